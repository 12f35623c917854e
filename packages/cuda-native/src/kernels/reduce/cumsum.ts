/**
 * `_np_cumsum` (alias cumsum) on cuda-native: an inclusive scan of each (outer, n, inner) lane.
 *
 * Like MXNet (and cpu-wasm) each element is first cast to the output dtype and the running sum is
 * kept in that dtype (integers wrap). Short lanes, or lanes numerous enough to fill the device, are
 * one thread each scanning sequentially — NumPy's order, bit-exact with cpu-wasm for floats (16-bit
 * outputs round every step, as MXNet's half_t does). Long lanes take a block each: chunks of 256
 * elements scanned with warp shuffles and a shared table of warp totals, each chunk's total carried
 * into the next (a different float rounding order; integers are exact either way). Every element is
 * read before its slot is written by the same thread, so the in-place option (output 0 on input 0)
 * is safe in both modes.
 */
import type { DTypeName } from '@mx/base';
import { type Attrs, type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import { type CudaSource, cachedSource, ctype } from '../../cuda-c.js';
import { addr, CUDA, type CudaBlob, type CudaHost, cudaKernel } from '../../kernel.js';
import type { CudaRuntime } from '../../runtime.js';
import { accC, accKind, addStorageC, castC, fromStorageC, HELPERS, writeC } from './cgen.js';
import { laneGeometry, REDUCE_DTYPES, unsupported } from './geometry.js';

const WG = 256;
const SEQ_MAX = 128;
const SEQ_LANES = 8192;

function source(block: boolean, xd: DTypeName, od: DTypeName): CudaSource {
  const key = `cumsum:${block ? 'block' : 'seq'}:${xd}:${od}`;
  return cachedSource(`cumsum`, key, (entry) => {
    const X = ctype(xd).storage;
    const O = ctype(od).storage;
    const elem = castC(ctype(xd).kind, od, fromStorageC(xd, 'x[p]'));
    const params = `const ${X}* x, ${O}* y, long long lanes, long long n, long long inner, int add`;
    let code: string;
    if (!block) {
      code = `${HELPERS}
extern "C" __global__ void ${entry}(${params}) {
  MX_GRID_LOOP(lane, lanes) {
    long long p = (lane / inner) * n * inner + lane % inner;
    ${O} acc = ${elem};
    for (long long j = 0; j < n; j++, p += inner) {
      if (j > 0) { const ${O} e = ${elem}; acc = ${addStorageC(od, 'acc', 'e')}; }
      ${O} w = acc;
      if (add) w = ${addStorageC(od, 'y[p]', 'w')};
      y[p] = w;
    }
  }
}
`;
    } else {
      const ak = accKind(od);
      const A = accC(ak);
      code = `${HELPERS}
extern "C" __global__ void __launch_bounds__(${WG}) ${entry}(${params}) {
  __shared__ ${A} wsum[${WG / 32}];
  const long long lane = blockIdx.x;
  const int tid = threadIdx.x;
  const int l = tid & 31;
  const int warp = tid >> 5;
  const long long base = (lane / inner) * n * inner + lane % inner;
  ${A} carry = (${A})0;
  for (long long b = 0; b < n; b += ${WG}) {
    const long long j = b + tid;
    const long long p = base + j * inner;
    ${A} v = (${A})0;
    if (j < n) v = (${A})${fromStorageC(od, elem)};
    for (int s = 1; s < 32; s <<= 1) { const ${A} u = __shfl_up_sync(0xffffffffu, v, s); if (l >= s) v = mx_add(v, u); }
    if (l == 31) wsum[warp] = v;
    __syncthreads();
    if (warp == 0) {
      ${A} w = l < ${WG / 32} ? wsum[l] : (${A})0;
      for (int s = 1; s < ${WG / 32}; s <<= 1) { const ${A} u = __shfl_up_sync(0xffffffffu, w, s); if (l >= s) w = mx_add(w, u); }
      if (l < ${WG / 32}) wsum[l] = w;
    }
    __syncthreads();
    if (warp > 0) v = mx_add(v, wsum[warp - 1]);
    const ${A} r = mx_add(v, carry);
    if (j < n) ${writeC(od, 'y', 'p', ak, 'r', 'add')}
    carry = mx_add(carry, wsum[${WG / 32 - 1}]);
    __syncthreads();
  }
}
`;
    }
    return code;
  });
}

function cumsum(rt: CudaRuntime, axis: number | null, x: CudaBlob, y: CudaBlob, req: OpReqType): void {
  for (const d of [x.dtype, y.dtype])
    if (!REDUCE_DTYPES.includes(d)) throw unsupported('_np_cumsum', d, REDUCE_DTYPES);
  if (req === OpReq.null || x.size === 0) return;
  const [outer, n, inner] = laneGeometry(x.shape, axis);
  const lanes = outer * inner;
  const block = n > SEQ_MAX && lanes < SEQ_LANES;
  const args = [
    { t: 'ptr', v: addr(x, '_np_cumsum') },
    { t: 'ptr', v: addr(y, '_np_cumsum') },
    { t: 'i64', v: lanes },
    { t: 'i64', v: n },
    { t: 'i64', v: inner },
    { t: 'i32', v: req === OpReq.add ? 1 : 0 },
  ] as const;
  if (block) rt.launch(source(true, x.dtype, y.dtype), [lanes], [WG], args);
  else
    rt.launch(
      source(false, x.dtype, y.dtype),
      [Math.max(1, Math.min(Math.ceil(lanes / 64), 65535 * 16))],
      [64],
      args,
    );
}

export function installCumsum(registry: OpRegistry, host: CudaHost): void {
  if (!registry.has('_np_cumsum')) return;
  registry.registerKernel(
    '_np_cumsum',
    CUDA,
    cudaKernel<{ axis: number | null } & Attrs>(
      host,
      '_np_cumsum',
      (a, inputs, req, outputs) =>
        cumsum(host.rt, a.axis, inputs[0] as CudaBlob, outputs[0] as CudaBlob, req[0] as OpReqType),
      REDUCE_DTYPES,
    ),
  );
}
