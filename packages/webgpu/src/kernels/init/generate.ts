/**
 * The one kernel shape every init op shares: write a value computed from the element index `e`
 * into each element of one output, honouring req. Fills, `_eye`, `_arange` and `_linspace` only
 * differ in the WGSL expression for element e, so they share the launch, the req handling and —
 * the fiddly part — packed bool outputs: there one invocation owns a whole u32 word (4 elements,
 * clipped to the view's range), so no two invocations read-modify-write the same word.
 *
 * Uniform words: 0 element offset of the output, 1 element count, 2 invocations; op-specific
 * scalars start at word `EXTRA` (3). The pipeline key encodes the dtype, req=add and the op's
 * expression (the `kind` string), never shapes or values.
 */
import { MXNetError } from '@mx/base';
import { OpReq, type OpReqType } from '@mx/ops';
import type { GpuBlob } from '../../kernel.js';
import { grid1d, type WebGpuRuntime } from '../../runtime.js';
import { elemOffset, main1d, needsF16, paramsDecl, wgslType } from '../../wgsl.js';

export const EXTRA = 3;
const WG = 256;

/**
 * Write `value(e)` (a WGSL expression of the dtype's scalar type; `e` is the u32 element index
 * within the output) to every element of `out`. `kind` names the expression for the cache key;
 * `words` are the extra uniform words (read from word EXTRA on) and `helpers` WGSL functions the
 * expression calls.
 */
export function generate(
  rt: WebGpuRuntime,
  op: string,
  out: GpuBlob,
  req: OpReqType,
  kind: string,
  value: (e: string) => string,
  words: readonly number[] = [],
  helpers = '',
): void {
  if (req === OpReq.null || out.size === 0 || out.ptr === null) return;
  const t = wgslType(out.dtype, op);
  const add = req === OpReq.add;
  const nWords = EXTRA + words.length;
  const off = elemOffset(out);
  const n = out.size;
  const packed = t.packed === 4;
  const threads = packed ? Math.floor((off + n - 1) / 4) - Math.floor(off / 4) + 1 : n;
  const key = `init:${kind}:${out.dtype}:${add ? 'add' : 'write'}:${nWords}`;
  const entry = rt.pipeline(key, () => source(out.dtype, add, value, nWords, helpers, packed), nWords);
  rt.dispatch(entry, [out.ptr], [off, n, threads, ...words], grid1d(threads, WG));
}

function source(
  dtype: GpuBlob['dtype'],
  add: boolean,
  value: (e: string) => string,
  nWords: number,
  helpers: string,
  packed: boolean,
): string {
  const t = wgslType(dtype);
  const head = `${needsF16([dtype]) ? 'enable f16;\n' : ''}${paramsDecl(nWords)}
@group(0) @binding(1) var<storage, read_write> o: array<${t.storage}>;
${helpers}
`;
  if (!packed) {
    const v = value('i');
    const body = add ? `o[off + i] = o[off + i] + (${v});` : `o[off + i] = ${v};`;
    return `${head}${main1d(WG, 'pu(2u)', `  let off = pu(0u);\n  ${body}`)}`;
  }
  // Packed 1-byte elements (bool): this invocation owns word w and writes its in-range bytes.
  const v = value('e');
  const byte = add ? `select(0u, 1u, ((word >> s) & 0xffu) != 0u || (${v}) != 0u)` : `(u32(${v}) & 0xffu)`;
  return `${head}${main1d(
    WG,
    'pu(2u)',
    `  let off = pu(0u); let n = pu(1u);
  let w = (off >> 2u) + i;
  var word = o[w];
  for (var k = 0u; k < 4u; k++) {
    let a = w * 4u + k;
    if (a >= off && a < off + n) {
      let e = a - off;
      let s = k * 8u;
      word = (word & ~(0xffu << s)) | (${byte} << s);
    }
  }
  o[w] = word;`,
  )}`;
}

/** The error for an op called with a dtype it cannot produce on webgpu. */
export function dtypeError(op: string, dtype: string, allowed: readonly string[]): MXNetError {
  return new MXNetError(`${op} does not support dtype ${dtype} on webgpu`, {
    op,
    dtypes: [dtype as GpuBlob['dtype']],
    device: 'gpu(0)',
    hint: `supported: ${allowed.join(', ')}; create it in one of those and cast with astype()`,
  });
}
