/**
 * The convolution forward as an implicit GEMM on the linalg tiled skeleton (per group: grid z =
 * group); also Deconvolution's data gradient:
 *
 *   Y[n, f, p] = Σ_(c,q) W[f, c, q] · X[n, c, p·s - pad + q·dil]     M=MG  N=batch·NS  K=CG·KS
 *
 * The im2col gather is the B-tile load: a column (image n, output position p) is decomposed once
 * per invocation outside the K loop into its input base address and window origin; a row r = (c, q)
 * comes from the row table (conv-table.ts: r → c·IS + linear offset of q·dil, and the per-axis
 * tap offsets), so the hot loop does no integer division — one table read (the same for
 * the whole warp), a bounds test per axis and one load.
 */
import type { GpuBlob } from '../../../kernel.js';
import type { WebGpuRuntime } from '../../../runtime.js';
import { elemOffset } from '../../../wgsl.js';
import { type GemmShader, pickTile, USER_WORDS } from '../../linalg/tiled-gemm.js';
import { buildTable, ROW } from './conv-table.js';
import { AX, bind, COMMON, launch, P, range, split } from './conv-wgsl.js';
import { CONV_WORDS, type ConvGeom, CW, convWords, sizes } from './geometry.js';

/** Element stride of spatial axis a of the input (product of the later extents). */
const inStride = (a: number, nd: number): string =>
  range(nd)
    .slice(a + 1)
    .map((b) => AX(b, 0))
    .join(' * ') || '1u';

/** Y (+)= conv(X, W) (+ bias per output channel), all groups. */
export function convForward(
  rt: WebGpuRuntime,
  g: ConvGeom,
  x: GpuBlob,
  w: GpuBlob,
  bias: GpuBlob | null,
  y: GpuBlob,
  acc: boolean,
): void {
  const nd = g.kernel.length;
  const s = sizes(g);
  const k = g.cg * s.ks;
  const words = convWords(g, {
    x: elemOffset(x),
    w: elemOffset(w),
    y: elemOffset(y),
    bias: bias ? elemOffset(bias) : 0,
  });
  const table = buildTable(rt, 'forward', nd, k, words);
  const bufs = bind(bias ? [x, w, y, table, bias] : [x, w, y, table]);
  const [X, Wt, Y, T, Bi] = bufs.names as [string, string, string, string, string?];
  const tile = pickTile(g.mg, g.n * s.ns, g.groups);
  const sh: GemmShader = {
    key: `conv-fwd:${nd}:${acc ? 1 : 0}:${bias ? 1 : 0}:${bufs.key}`,
    tile,
    decls: `${bufs.decls}
fn ldX(k: u32, col: i32, ${range(nd)
      .map((a) => `i${a}: i32`)
      .join(', ')}) -> f32 {
  let e = ${ROW}u * k;
${range(nd)
  .map((a) => `  if (u32(i${a} + ${T}[e + ${a + 1}u]) >= ${AX(a, 0)}) { return 0.0; }`)
  .join('\n')}
  return ${X}[u32(col + ${T}[e])];
}
`,
    batchSetup: `${COMMON}  let wBase = ${P(CW.OFF_W)} + g * MG * CG * KS;
  let xBase = ${P(CW.OFF_X)} + g * CG * IS;
  let yBase = ${P(CW.OFF_Y)} + g * MG * NS;`,
    a: { contigX: false, load: (_s, kk, xx) => `${Wt}[wBase + ${xx} * gK + ${kk}]` },
    b: {
      contigX: true,
      setup: (sl, xx) => {
        const o = `Bo${sl}_`;
        return `  let Bn${sl} = ${xx} / NS; let Bp${sl} = ${xx} - Bn${sl} * NS;
  ${split(o, `Bp${sl}`, 1, nd)}
${range(nd)
  .map((a) => `  let Bi${sl}_${a} = i32(${o}${a} * ${AX(a, 3)}) - i32(${AX(a, 5)});`)
  .join('\n')}
  let Bcol${sl} = i32(xBase + Bn${sl} * C * IS)${range(nd)
    .map((a) => ` + Bi${sl}_${a} * i32(${inStride(a, nd)})`)
    .join('')};
`;
      },
      load: (sl, kk) => `ldX(${kk}, Bcol${sl}, ${range(nd).map((a) => `Bi${sl}_${a}`)})`,
    },
    store: (row, col, v) =>
      `let n = ${col} / NS; let yi = yBase + n * F * NS + ${row} * NS + (${col} - n * NS); ${Y}[yi] = ${acc ? `${Y}[yi] + ` : ''}${v}${Bi ? ` + ${Bi}[${P(CW.OFF_BIAS)} + g * MG + ${row}]` : ''};`,
    paramWords: USER_WORDS + CONV_WORDS,
  };
  launch(rt, sh, bufs, g.mg, g.n * s.ns, k, g.groups, words);
  if (table.ptr) rt.release(table.ptr);
}
