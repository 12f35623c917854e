/**
 * webgpu kernel of `_npi_searchsorted`: one invocation per element of `v`, each a binary search
 * over the sorted 1-D `a` in NumPy's order (NaN after every number, NaN equal to NaN). NaN is
 * tested on the bits, since Dawn/SwiftShader's float comparisons cannot be trusted to see it. The
 * output is int32 (the op's `dtype: 'int32'`; WebGPU stores no int64, so np.searchsorted asks for
 * int32 on gpu(0)); req add accumulates. An empty `a` has no buffer: every position is then 0,
 * and only the output is bound.
 * Uniform words: 0 a offset, 1 v offset, 2 count (v's size), 3 n (a's size), 4 output offset.
 */
import type { DTypeName } from '@mx/base';
import { type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import { type GpuBlob, type GpuHost, gpuKernel } from '../../../kernel.js';
import { grid1d, type WebGpuRuntime } from '../../../runtime.js';
import { bindBlobs, declareArrays, elemOffset, main1d, paramsDecl, wgslType } from '../../../wgsl.js';

const WG = 256;
const WORDS = 8;
const OP = '_npi_searchsorted';

/** Dtypes of a and v (unpacked 32-bit; the np layer widens narrower ones), and the int32 output. */
export const SEARCHSORTED_DTYPES: readonly DTypeName[] = ['float32', 'int32', 'uint32'];

interface SearchAttrs {
  readonly side: 'left' | 'right';
  readonly dtype: 'int32' | 'int64';
  readonly [k: string]: unknown;
}

function source(
  a: GpuBlob,
  v: GpuBlob,
  out: GpuBlob,
  right: boolean,
  add: boolean,
): { code: string; key: string } {
  const empty = a.ptr === null;
  // An empty a reads nothing: only the output is bound (auto layouts drop unused bindings).
  const blobs = empty ? [out] : [out, v, a];
  const bindings = bindBlobs(blobs);
  const { decls, names } = declareArrays(
    bindings,
    blobs.map((b) => b.dtype),
  );
  const [o, vs, as] = names as [string, string, string | undefined];
  const t = wgslType(v.dtype, OP).scalar;
  const float = t === 'f32';
  // lt(x, y): x sorts strictly before y.
  const helpers = float
    ? `fn nan_(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }
fn lt(x: f32, y: f32) -> bool { return (x < y && !nan_(x) && !nan_(y)) || (nan_(y) && !nan_(x)); }
`
    : `fn lt(x: ${t}, y: ${t}) -> bool { return x < y; }
`;
  const search = empty
    ? '  let lo = 0u;'
    : `  let x = ${vs}[pu(1u) + i];
  var lo = 0u;
  var hi = pu(3u);
  loop {
    if (lo >= hi) { break; }
    let mid = (lo + hi) >> 1u;
    let m = ${as}[pu(0u) + mid];
    if (${right ? '!lt(x, m)' : 'lt(m, x)'}) { lo = mid + 1u; } else { hi = mid; }
  }`;
  const at = `${o}[pu(4u) + i]`;
  const body = `${search}
  ${add ? `${at} = ${at} + i32(lo);` : `${at} = i32(lo);`}`;
  const key = `np_searchsorted:${v.dtype}:${right ? 'r' : 'l'}:${add ? 'add' : 'write'}:${empty ? 'empty' : 'a'}:${bindings.key}`;
  return { code: `${paramsDecl(WORDS)}${decls}${empty ? '' : helpers}${main1d(WG, 'pu(2u)', body)}`, key };
}

function run(
  rt: WebGpuRuntime,
  attrs: SearchAttrs,
  a: GpuBlob,
  v: GpuBlob,
  out: GpuBlob,
  req: OpReqType,
): void {
  if (req === OpReq.null || out.size === 0 || out.ptr === null) return;
  const { code, key } = source(a, v, out, attrs.side === 'right', req === OpReq.add);
  const entry = rt.pipeline(key, () => code, WORDS);
  const blobs = a.ptr === null ? [out] : [out, v, a];
  const words = [a.ptr === null ? 0 : elemOffset(a), elemOffset(v), v.size, a.size, elemOffset(out), 0, 0, 0];
  rt.dispatch(entry, bindBlobs(blobs).buffers, words, grid1d(v.size, WG));
}

export function installSearchsorted(registry: OpRegistry, gpu: GpuHost): void {
  registry.registerKernel(
    OP,
    'webgpu',
    gpuKernel<SearchAttrs>(
      gpu,
      OP,
      (attrs, [a, v], [r], [out]) =>
        run(gpu.rt, attrs, a as GpuBlob, v as GpuBlob, out as GpuBlob, r as OpReqType),
      SEARCHSORTED_DTYPES,
    ),
  );
}
