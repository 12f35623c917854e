/**
 * The WGSL of the pooling kernels (pool.ts runs them): the uniform layout (3-D window geometry,
 * per-axis element strides of input and output, offsets), window clipping as MXNet/cpu-wasm
 * define it, the forward per output, the max backward's first-maximum pass and the backward
 * gather per input element.
 */
import { main1d, paramsDecl } from '../../../wgsl.js';

export type Kind = 'max' | 'avg' | 'sum' | 'lp2' | 'lp3';
export const WG = 256;

/** Uniform words: geometry [d, h, w] triples, strides, offsets. */
export const Q = {
  TOTAL: 0,
  CH: 1,
  IN: 2,
  OUT: 5,
  K: 8,
  S: 11,
  PAD: 14,
  /** Input strides n, c, d, h, w; output strides n, c, d, h, w. */
  IS: 17,
  OS: 22,
  OFF_X: 27,
  OFF_Y: 28,
  OFF_DY: 29,
  OFF_DX: 30,
  INCLUDE_PAD: 31,
} as const;
export const WORDS = 32;
const pu = (i: number): string => `pu(${i}u)`;
const AXES = ['d', 'h', 'w'] as const;

/** Statements: `n, c, <p>d, <p>h, <p>w` of linear index i over (n, c, extents at word `at`). */
function decompose(p: string, at: number): string {
  return `  var t = i;
  let ${p}w = t % ${pu(at + 2)}; t = t / ${pu(at + 2)};
  let ${p}h = t % ${pu(at + 1)}; t = t / ${pu(at + 1)};
  let ${p}d = t % ${pu(at)}; t = t / ${pu(at)};
  let c = t % ${pu(Q.CH)}; let n = t / ${pu(Q.CH)};
`;
}

/** Window of output o`a` on axis a: i32 start/end clipped to the input, `full` clipped to the padded extent. */
function windowOf(a: number, o: string, v: string): string {
  return `  let raw${v} = i32(${o} * ${pu(Q.S + a)}) - i32(${pu(Q.PAD + a)});
  let end${v} = min(raw${v} + i32(${pu(Q.K + a)}), i32(${pu(Q.IN + a)}));
  let full${v} = min(raw${v} + i32(${pu(Q.K + a)}), i32(${pu(Q.IN + a)} + ${pu(Q.PAD + a)})) - raw${v};
  let st${v} = max(raw${v}, 0);
`;
}

const divisor = (v: readonly string[]): string =>
  `select((end${v[0]} - st${v[0]}) * (end${v[1]} - st${v[1]}) * (end${v[2]} - st${v[2]}), full${v[0]} * full${v[1]} * full${v[2]}, ${pu(Q.INCLUDE_PAD)} != 0u)`;

const xAddr = (base: string, d: string, h: string, w: string): string =>
  `${base} + u32(${d}) * ${pu(Q.IS + 2)} + u32(${h}) * ${pu(Q.IS + 3)} + u32(${w}) * ${pu(Q.IS + 4)}`;
const oAddr = (base: string, d: string, h: string, w: string): string =>
  `${base} + ${d} * ${pu(Q.OS + 2)} + ${h} * ${pu(Q.OS + 3)} + ${w} * ${pu(Q.OS + 4)}`;

export function forwardSource(kind: Kind, acc: boolean, decls: string, X: string, Y: string): string {
  const combine =
    kind === 'max'
      ? 'if (x > s) { s = x; }'
      : kind === 'lp2'
        ? 's += x * x;'
        : kind === 'lp3'
          ? 's += x * x * x;'
          : 's += x;';
  const fin =
    kind === 'avg'
      ? `s = s / f32(${divisor(['0', '1', '2'])});`
      : kind === 'lp2'
        ? 's = sqrt(s);'
        : kind === 'lp3'
          ? 's = cbrt(s);'
          : '';
  return `${paramsDecl(WORDS)}${decls}
fn cbrt(x: f32) -> f32 {
  if (x == 0.0) { return 0.0; }
  var y = sign(x) * exp2(log2(abs(x)) / 3.0);
  y = y - (y * y * y - x) / (3.0 * y * y);
  return y;
}
${main1d(
  WG,
  pu(Q.TOTAL),
  `${decompose('o', Q.OUT)}${AXES.map((ax, a) => windowOf(a, `o${ax}`, `${a}`)).join('')}
  let xb = ${pu(Q.OFF_X)} + n * ${pu(Q.IS)} + c * ${pu(Q.IS + 1)};
  var s = ${kind === 'max' ? '-3.4028234663852886e38' : '0.0'};
  for (var d = st0; d < end0; d++) {
    for (var h = st1; h < end1; h++) {
      for (var w = st2; w < end2; w++) {
        let x = ${X}[${xAddr('xb', 'd', 'h', 'w')}];
        ${combine}
      }
    }
  }
  ${fin}
  let yi = ${oAddr(`${pu(Q.OFF_Y)} + n * ${pu(Q.OS)} + c * ${pu(Q.OS + 1)}`, 'od', 'oh', 'ow')};
  ${Y}[yi] = ${acc ? `${Y}[yi] + ` : ''}s;`,
)}`;
}

/** Max backward pass 1: per output, the plane index of the first window element equal to it. */
export function argmaxSource(decls: string, X: string, Y: string, I: string): string {
  return `${paramsDecl(WORDS)}${decls}
${main1d(
  WG,
  pu(Q.TOTAL),
  `${decompose('o', Q.OUT)}${AXES.map((ax, a) => windowOf(a, `o${ax}`, `${a}`)).join('')}
  let xb = ${pu(Q.OFF_X)} + n * ${pu(Q.IS)} + c * ${pu(Q.IS + 1)};
  let y = ${Y}[${oAddr(`${pu(Q.OFF_Y)} + n * ${pu(Q.OS)} + c * ${pu(Q.OS + 1)}`, 'od', 'oh', 'ow')}];
  var found = 0xffffffffu;
  for (var d = st0; d < end0 && found == 0xffffffffu; d++) {
    for (var h = st1; h < end1 && found == 0xffffffffu; h++) {
      for (var w = st2; w < end2; w++) {
        if (${X}[${xAddr('xb', 'd', 'h', 'w')}] == y) {
          found = (u32(d) * ${pu(Q.IN + 1)} + u32(h)) * ${pu(Q.IN + 2)} + u32(w);
          break;
        }
      }
    }
  }
  ${I}[i] = found;`,
)}`;
}

/** Backward gather: each input element sums the gradients of the outputs covering it. */
export function gatherSource(kind: Kind, acc: boolean, decls: string, names: Record<string, string>): string {
  const { DY, X, Y, DX, I } = names as Record<string, string>;
  const range = (
    ax: string,
    a: number,
  ) => `  let num${a} = i32(i${ax}) + i32(${pu(Q.PAD + a)}) - i32(${pu(Q.K + a)}) + 1;
  let lo${a} = select(0u, (u32(max(num${a}, 0)) + ${pu(Q.S + a)} - 1u) / ${pu(Q.S + a)}, num${a} > 0);
  let hi${a} = min((i${ax} + ${pu(Q.PAD + a)}) / ${pu(Q.S + a)} + 1u, ${pu(Q.OUT + a)});
`;
  let term = 'g';
  if (kind === 'max') term = `select(0.0, g, ${I}[oi] == me)`;
  else if (kind === 'avg') term = `g / f32(${divisor(['0', '1', '2'])})`;
  else if (kind === 'lp2') term = `select(g * (x / y), 0.0, y == 0.0)`;
  else if (kind === 'lp3') term = `select(g * ((x / y) * (x / y)), 0.0, y == 0.0)`;
  const needY = kind === 'lp2' || kind === 'lp3';
  return `${paramsDecl(WORDS)}${decls}
${main1d(
  WG,
  pu(Q.TOTAL),
  `${decompose('i', Q.IN)}${AXES.map((ax, a) => range(ax, a)).join('')}
  let me = (id * ${pu(Q.IN + 1)} + ih) * ${pu(Q.IN + 2)} + iw;
  let ob = ${pu(Q.OFF_DY)} + n * ${pu(Q.OS)} + c * ${pu(Q.OS + 1)};
  let yb = ${pu(Q.OFF_Y)} + n * ${pu(Q.OS)} + c * ${pu(Q.OS + 1)};
  let xi = ${pu(Q.IS + 2)} * id + ${pu(Q.IS + 3)} * ih + ${pu(Q.IS + 4)} * iw + n * ${pu(Q.IS)} + c * ${pu(Q.IS + 1)};
  ${needY ? `let x = ${X}[${pu(Q.OFF_X)} + xi];` : ''}
  var s = 0.0;
  for (var od = lo0; od < hi0; od++) {
    for (var oh = lo1; oh < hi1; oh++) {
      for (var ow = lo2; ow < hi2; ow++) {
${kind === 'avg' ? AXES.map((ax, a) => windowOf(a, `o${ax}`, `${a}`)).join('') : ''}        let g = ${DY}[${oAddr('ob', 'od', 'oh', 'ow')}];
        ${kind === 'max' ? `let oi = ((n * ${pu(Q.CH)} + c) * ${pu(Q.OUT)} + od) * ${pu(Q.OUT + 1)} * ${pu(Q.OUT + 2)} + oh * ${pu(Q.OUT + 2)} + ow;` : ''}
        ${needY ? `let y = ${Y}[${oAddr('yb', 'od', 'oh', 'ow')}];` : ''}
        s += ${term};
      }
    }
  }
  let di = ${pu(Q.OFF_DX)} + xi;
  ${DX}[di] = ${acc ? `${DX}[di] + ` : ''}s;`,
)}`;
}
