/**
 * The row table of the implicit-GEMM convolutions: one small dispatch decomposes every K index
 * r = (channel, kernel tap q) once, so the GEMM's hot tile loads do no integer division — they
 * read the table row (the same for the whole warp, so a broadcast) instead. 8 i32 per row:
 *
 *   [0]    forward: c·IS + linear input offset of q·dil;  data gradient: f·NS
 *   [1..3] the tap's offset q_a·dil_a per spatial axis
 *   [4]    data gradient: the weight element (f·CG·KS + q) of row r (column c added by the GEMM)
 */
import type { GpuBlob } from '../../../kernel.js';
import { grid1d, type WebGpuRuntime } from '../../../runtime.js';
import { main1d, paramsDecl } from '../../../wgsl.js';
import { USER_WORDS } from '../../linalg/tiled-gemm.js';
import { AX, bind, linear, P, range, split } from './conv-wgsl.js';
import { CONV_WORDS, CW } from './geometry.js';

export const ROW = 8;

/** Build the table of `k` rows for `mode` (words: the conv's uniform words); release its buffer after use. */
export function buildTable(
  rt: WebGpuRuntime,
  mode: 'forward' | 'data',
  nd: number,
  k: number,
  words: readonly number[],
): GpuBlob {
  const buf = rt.createBuffer(Math.max(1, k) * ROW * 4);
  const table: GpuBlob = { ptr: buf, byteOffset: 0, shape: [k * ROW], dtype: 'int32', size: k * ROW };
  const b = bind([table]);
  const T = b.names[0] as string;
  const base = mode === 'forward' ? `c * ${P(CW.IS)} + ${linear('m', 0, nd)}` : `c * ${P(CW.NS)}`;
  const entry = rt.pipeline(
    `conv-table:${mode}:${nd}`,
    () => `${paramsDecl(USER_WORDS + CONV_WORDS)}${b.decls}
${main1d(
  64,
  'pu(0u)',
  `  let KS = ${P(CW.KS)};
  let c = i / KS; let q = i - c * KS;
  ${split('k', 'q', 2, nd)}
${range(nd)
  .map((a) => `  let m${a} = k${a} * ${AX(a, 4)};`)
  .join('\n')}
  let r = ${ROW}u * i;
  ${T}[r] = i32(${base});
${range(nd)
  .map((a) => `  ${T}[r + ${a + 1}u] = i32(m${a});`)
  .join('\n')}
  ${T}[r + 4u] = i32(c * ${P(CW.CG)} * KS + q);`,
)}`,
    USER_WORDS + CONV_WORDS,
  );
  const params = new Array<number>(USER_WORDS).fill(0);
  params[0] = k;
  if (k > 0) rt.dispatch(entry, b.buffers, [...params, ...words], grid1d(k, 64));
  return table;
}
