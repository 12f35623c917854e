/**
 * The convolution's two gradients as implicit GEMMs on the linalg tiled skeleton (per group: grid
 * z = group [× K-split]); the col2im / im2col gathers live in the tile-load path, so no column
 * matrix is ever written:
 *
 *   backwardData   dX[n, c, i] = Σ_(f,q) W[f, c, q] · dY[n, f, (i + pad - q·dil)/s]   M=CG  N=batch·IS  K=MG·KS
 *                  (terms whose division is inexact or out of range are zero: a gather, no atomics;
 *                  also Deconvolution's forward, with its bias per output channel)
 *   backwardWeight dW[f, (c,q)] = Σ_(n,p) dY[n, f, p] · X[n, c, p·s - pad + q·dil]   M=MG  N=CG·KS  K=batch·NS
 *                  (split over K into scratch partials plus a summing pass when the output is
 *                  small, so a GPU is filled without float atomics)
 *
 * Each column's decomposition is computed once per invocation outside the K loop.
 */
import type { GpuBlob } from '../../../kernel.js';
import type { WebGpuRuntime } from '../../../runtime.js';
import { elemOffset } from '../../../wgsl.js';
import { type GemmShader, pickTile, USER_WORDS } from '../../linalg/tiled-gemm.js';
import { buildTable, ROW } from './conv-table.js';
import { AX, bind, COMMON, launch, linear, P, range, split } from './conv-wgsl.js';
import { CONV_WORDS, type ConvGeom, CW, convWords, sizes } from './geometry.js';
import { splitSum } from './split-sum.js';

/** dX (+)= the data gradient of conv(X, W) for dY (+ bias per input channel: Deconvolution). */
export function convBackwardData(
  rt: WebGpuRuntime,
  g: ConvGeom,
  dy: GpuBlob,
  w: GpuBlob,
  dx: GpuBlob,
  acc: boolean,
  bias: GpuBlob | null = null,
): void {
  const nd = g.kernel.length;
  const s = sizes(g);
  const k = g.mg * s.ks;
  const words = convWords(g, {
    x: elemOffset(dx),
    w: elemOffset(w),
    y: elemOffset(dy),
    bias: bias ? elemOffset(bias) : 0,
  });
  const table = buildTable(rt, 'data', nd, k, words);
  const unit = g.stride.every((v) => v === 1);
  const bufs = bind(bias ? [dy, w, dx, table, bias] : [dy, w, dx, table]);
  const [DY, Wt, DX, T, Bi] = bufs.names as [string, string, string, string, string?];
  const tile = pickTile(g.cg, g.n * s.is, g.groups);
  // Output index o_a = (t_a - tap_a) / stride_a must be exact and in range; stride 1 skips the division.
  const axis = (a: number) =>
    unit
      ? `  let o${a} = t${a} - ${T}[e + ${a + 1}u]; if (u32(o${a}) >= ${AX(a, 1)}) { return 0.0; }`
      : `  let u${a} = t${a} - ${T}[e + ${a + 1}u]; if (u${a} < 0) { return 0.0; }
  let o${a} = u32(u${a}) / ${AX(a, 3)}; if (o${a} * ${AX(a, 3)} != u32(u${a}) || o${a} >= ${AX(a, 1)}) { return 0.0; }`;
  const sh: GemmShader = {
    key: `conv-bwd-data:${nd}:${unit ? 's1' : 's'}:${acc ? 1 : 0}:${bias ? 1 : 0}:${bufs.key}`,
    tile,
    decls: `${bufs.decls}
fn ldDY(k: u32, yb: u32, ${range(nd)
      .map((a) => `t${a}: i32`)
      .join(', ')}) -> f32 {
  let e = ${ROW}u * k;
${range(nd).map(axis).join('\n')}
  return ${DY}[yb + u32(${T}[e]) + ${linear('o', 1, nd)}];
}
`,
    batchSetup: `${COMMON}  let wBase = ${P(CW.OFF_W)} + g * MG * CG * KS;
  let dyBase = ${P(CW.OFF_Y)} + g * MG * NS;
  let dxBase = ${P(CW.OFF_X)} + g * CG * IS;`,
    a: {
      contigX: false,
      load: (_s, kk, xx) => `${Wt}[wBase + u32(${T}[${ROW}u * ${kk} + 4u]) + ${xx} * KS]`,
    },
    b: {
      contigX: true,
      setup: (sl, xx) => {
        const o = `Bi${sl}_`;
        return `  let Bn${sl} = ${xx} / IS; let Bp${sl} = ${xx} - Bn${sl} * IS;
  ${split(o, `Bp${sl}`, 0, nd)}
  let Byb${sl} = dyBase + Bn${sl} * F * NS;
${range(nd)
  .map((a) => `  let Bt${sl}_${a} = i32(${o}${a}) + i32(${AX(a, 5)});`)
  .join('\n')}
`;
      },
      load: (sl, kk) => `ldDY(${kk}, Byb${sl}, ${range(nd).map((a) => `Bt${sl}_${a}`)})`,
    },
    store: (row, col, v) =>
      `let n = ${col} / IS; let xi = dxBase + n * C * IS + ${row} * IS + (${col} - n * IS); ${DX}[xi] = ${acc ? `${DX}[xi] + ` : ''}${v}${Bi ? ` + ${Bi}[${P(CW.OFF_BIAS)} + g * CG + ${row}]` : ''};`,
    paramWords: USER_WORDS + CONV_WORDS,
  };
  launch(rt, sh, bufs, g.cg, g.n * s.is, k, g.groups, words);
  if (table.ptr) rt.release(table.ptr);
}

/** dW (+)= the weight gradient of conv(X, W) for dY. */
export function convBackwardWeight(
  rt: WebGpuRuntime,
  g: ConvGeom,
  x: GpuBlob,
  dy: GpuBlob,
  dw: GpuBlob,
  acc: boolean,
): void {
  const nd = g.kernel.length;
  const s = sizes(g);
  const m = g.mg;
  const n = g.cg * s.ks;
  const k = g.n * s.ns;
  const tile = pickTile(m, n, g.groups);
  const tiles = Math.ceil(m / tile.bm) * Math.ceil(n / tile.bn) * g.groups;
  // Enough workgroups to fill a GPU, each split still a long K run.
  const splits = Math.max(1, Math.min(64, Math.ceil(256 / tiles), Math.floor(k / 512)));
  const scratch = splits > 1 ? rt.createBuffer(splits * g.groups * m * n * 4) : null;
  const outBlob: GpuBlob = scratch
    ? { ptr: scratch, byteOffset: 0, shape: [splits * g.groups * m * n], dtype: 'float32', size: 0 }
    : dw;
  const bufs = bind([x, dy, outBlob]);
  const [X, DY, DW] = bufs.names as [string, string, string];
  const sh: GemmShader = {
    key: `conv-bwd-weight:${nd}:${scratch ? 'split' : acc ? 1 : 0}:${bufs.key}`,
    tile,
    decls: `${bufs.decls}
fn ldXw(k: u32, xb: u32, ${range(nd)
      .map((a) => `e${a}: i32`)
      .join(', ')}) -> f32 {
  let NS = ${P(CW.NS)};
  let n = k / NS; let p = k - n * NS;
  ${split('o', 'p', 1, nd)}
${range(nd)
  .map(
    (a) =>
      `  let p${a} = i32(o${a} * ${AX(a, 3)}) + e${a}; if (p${a} < 0 || p${a} >= i32(${AX(a, 0)})) { return 0.0; }`,
  )
  .join('\n')}
  return ${X}[xb + n * ${P(CW.G)} * ${P(CW.CG)} * ${P(CW.IS)} + ${linear('p', 0, nd)}];
}
`,
    batchSetup: `${COMMON}  let dyBase = ${P(CW.OFF_Y)} + g * MG * NS;
  let xBase = ${P(CW.OFF_X)} + g * CG * IS;
  let dwBase = ${scratch ? `(split * G + g) * MG * gN` : `${P(CW.OFF_W)} + g * MG * gN`};`,
    a: {
      contigX: false,
      load: (_s, kk, xx) => `${DY}[dyBase + (${kk} / NS) * F * NS + ${xx} * NS + (${kk} % NS)]`,
    },
    b: {
      contigX: false,
      setup: (sl, xx) => `  let Bc${sl} = ${xx} / KS; let Bq${sl} = ${xx} - Bc${sl} * KS;
  ${split(`Bk${sl}_`, `Bq${sl}`, 2, nd)}
  let Bxb${sl} = xBase + Bc${sl} * IS;
${range(nd)
  .map((a) => `  let Be${sl}_${a} = i32(Bk${sl}_${a} * ${AX(a, 4)}) - i32(${AX(a, 5)});`)
  .join('\n')}
`,
      load: (sl, kk) => `ldXw(${kk}, Bxb${sl}, ${range(nd).map((a) => `Be${sl}_${a}`)})`,
    },
    store: (row, col, v) =>
      `let wi = dwBase + ${row} * gN + ${col}; ${DW}[wi] = ${acc && !scratch ? `${DW}[wi] + ` : ''}${v};`,
    paramWords: USER_WORDS + CONV_WORDS,
  };
  const words = convWords(g, { x: elemOffset(x), w: elemOffset(dw), y: elemOffset(dy), bias: 0 });
  launch(rt, sh, bufs, m, n, k, g.groups, words, splits);
  if (scratch) {
    splitSum(rt, scratch, splits, dw, acc);
    rt.release(scratch);
  }
}
