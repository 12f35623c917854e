/**
 * The reduce family's backward ops on cuda-native, used by gradients:
 *
 * - `_broadcast_backward`: a sum of the gradient over the axes broadcasting added or stretched, run
 *   by the reduce engine (reduce-engine.ts); equal sizes are a copy (or, with req=add, a reduction
 *   over no axes, which adds);
 * - `_backward_sum` / `_backward_mean`: the head gradient spread back over the reduced axes, one
 *   thread per output element reading og through merged segments (stride 0 on reduced ones); mean
 *   divides each head value by the count (integers truncate, as C++; float32 divides in double and
 *   rounds once, as cpu-wasm's division stored to a Float32Array);
 * - `_backward_topk`: ograd scattered to the `indices` positions along the axis, zeros elsewhere.
 *   One thread per lane walks its k entries in order, so repeated indices accumulate
 *   deterministically without atomics; indices outside [0, n) are skipped (cpu-wasm throws, but a
 *   GPU kernel cannot fail per element).
 * The second/third inputs only donate shapes or indices, so these ops accept any stored dtype there.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import { type Attrs, type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import { blocksFor, CUDA_DTYPES, type CudaSource, cachedSource, ctype, MAXD } from '../../cuda-c.js';
import { addr, CUDA, type CudaBlob, type CudaHost, cudaKernel } from '../../kernel.js';
import type { CudaRuntime } from '../../runtime.js';
import { accKind, addStorageC, fromStorageC, HELPERS, writeC } from './cgen.js';
import { broadcastFlags, laneGeometry, REDUCE_DTYPES, reducedFlags, unsupported } from './geometry.js';
import { reduceInto } from './reduce-engine.js';

interface AxesAttrs extends Attrs {
  readonly axis: readonly number[] | null;
  readonly keepdims: boolean;
  readonly exclude: boolean;
}

const cached = (key: string, name: string, make: (entry: string) => string): CudaSource =>
  cachedSource(name, key, make);

function spreadSource(mean: boolean, dtype: DTypeName): CudaSource {
  return cached(
    `spread:${mean ? 'mean' : 'sum'}:${dtype}`,
    mean ? 'backward_mean' : 'backward_sum',
    (entry) => {
      const T = ctype(dtype).storage;
      const acc = accKind(dtype);
      const g = fromStorageC(dtype, 'og[src]');
      let val = g;
      let kind = ctype(dtype).kind;
      if (mean) {
        if (dtype === 'float32') val = `(float)((double)${g} / (double)count)`;
        else if (acc === 'f64') val = `${g} / (double)count`;
        else if (acc === 'f32') val = `${g} / (float)count`;
        else {
          val = `(count == 0 ? 0LL : (long long)${g} / count)`;
          kind = 'i64';
        }
      }
      return `${HELPERS}
extern "C" __global__ void ${entry}(const ${T}* og, ${T}* out, long long total, int nd, MxDims sz, MxDims st, long long count, int add) {
  MX_GRID_LOOP(i, total) {
    long long src = 0;
    long long rem = i;
    for (int d = nd - 1; d >= 0; d--) { src += (rem % sz.v[d]) * st.v[d]; rem /= sz.v[d]; }
    ${writeC(dtype, 'out', 'i', kind, val, 'add')}
  }
}
`;
    },
  );
}

function spread(
  rt: CudaRuntime,
  name: string,
  a: AxesAttrs,
  og: CudaBlob,
  out: CudaBlob,
  req: OpReqType,
  mean: boolean,
) {
  for (const d of [og.dtype, out.dtype])
    if (!REDUCE_DTYPES.includes(d)) throw unsupported(name, d, REDUCE_DTYPES);
  if (req === OpReq.null || out.size === 0) return;
  const shape = out.shape;
  const flags = reducedFlags(shape.length, a.axis, a.exclude);
  // Merged segments of the output shape; og strides (dense over kept axes), 0 on reduced ones.
  const segs: { size: number; stride: number; red: boolean }[] = [];
  let ogStride = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    const d = shape[i] as number;
    const red = flags[i] as boolean;
    if (d === 1) continue;
    const first = segs[0];
    if (first !== undefined && first.red === red) first.size *= d;
    else segs.unshift({ size: d, stride: red ? 0 : ogStride, red });
    if (!red) ogStride *= d;
  }
  if (segs.length > MAXD) {
    throw new MXNetError(`${name} on cuda handles at most ${MAXD} alternating axis groups`, {
      op: name,
      params: a,
      shapes: [og.shape, out.shape],
      device: 'gpu',
      hint: 'reshape so adjacent axes of the same role merge',
    });
  }
  const count = og.size === 0 ? 1 : out.size / og.size;
  rt.launch(
    spreadSource(mean, out.dtype),
    [blocksFor(out.size)],
    [256],
    [
      { t: 'ptr', v: addr(og, name) },
      { t: 'ptr', v: addr(out, name) },
      { t: 'i64', v: out.size },
      { t: 'i32', v: segs.length },
      { t: 'dims', v: segs.map((s) => s.size) },
      { t: 'dims', v: segs.map((s) => s.stride) },
      { t: 'i64', v: count },
      { t: 'i32', v: req === OpReq.add ? 1 : 0 },
    ],
  );
}

function scatterSource(g: DTypeName, ind: DTypeName): CudaSource {
  return cached(`topk-scatter:${g}:${ind}`, 'backward_topk', (entry) => {
    const G = ctype(g).storage;
    const I = ctype(ind).storage;
    return `${HELPERS}
extern "C" __global__ void ${entry}(const ${G}* og, const ${I}* ind, ${G}* out, long long lanes, long long n, long long inner, long long k) {
  MX_GRID_LOOP(lane, lanes) {
    const long long o = lane / inner;
    const long long kk = lane - o * inner;
    for (long long j = 0; j < k; j++) {
      const long long p = o * k * inner + kk + j * inner;
      const long long s = (long long)${fromStorageC(ind, 'ind[p]')};
      if (s >= 0 && s < n) {
        const long long q = o * n * inner + kk + s * inner;
        out[q] = ${addStorageC(g, 'out[q]', 'og[p]')};
      }
    }
  }
}
`;
  });
}

function topkScatter(
  rt: CudaRuntime,
  axis: number | null,
  og: CudaBlob,
  ind: CudaBlob,
  out: CudaBlob,
  req: OpReqType,
) {
  const name = '_backward_topk';
  for (const d of [og.dtype, out.dtype])
    if (!REDUCE_DTYPES.includes(d)) throw unsupported(name, d, REDUCE_DTYPES);
  if (ind.dtype === 'bool')
    throw unsupported(
      name,
      ind.dtype,
      CUDA_DTYPES.filter((d) => d !== 'bool'),
    );
  if (req === OpReq.null || out.size === 0) return;
  if (req !== OpReq.add) rt.memset(addr(out, name), 0, out.size * ctype(out.dtype).bytes);
  if (og.size === 0) return;
  const [outer, n, inner] = laneGeometry(out.shape, axis);
  const lanes = outer * inner;
  const k = og.size / lanes;
  if (ind.size !== og.size) {
    throw new MXNetError(`indices have ${ind.size} elements but ograd has ${og.size}`, {
      op: name,
      shapes: [og.shape, ind.shape, out.shape],
      device: 'gpu',
      hint: 'pass the indices topk/sort returned with this gradient',
    });
  }
  rt.launch(
    scatterSource(og.dtype, ind.dtype),
    [Math.max(1, Math.min(Math.ceil(lanes / 64), 65535 * 16))],
    [64],
    [
      { t: 'ptr', v: addr(og, name) },
      { t: 'ptr', v: addr(ind, name) },
      { t: 'ptr', v: addr(out, name) },
      { t: 'i64', v: lanes },
      { t: 'i64', v: n },
      { t: 'i64', v: inner },
      { t: 'i64', v: k },
    ],
  );
}

function broadcastBackward(rt: CudaRuntime, g: CudaBlob, out: CudaBlob, req: OpReqType) {
  const name = '_broadcast_backward';
  if (!REDUCE_DTYPES.includes(g.dtype)) throw unsupported(name, g.dtype, REDUCE_DTYPES);
  if (req === OpReq.null || out.size === 0) return;
  if (g.size === out.size && req !== OpReq.add && out.dtype === g.dtype) {
    // Same element count: only size-1 axes differ, so the sum is the identity (a copy).
    const src = addr(g, name);
    const dst = addr(out, name);
    if (src !== dst) rt.copy(dst, src, g.size * ctype(g.dtype).bytes);
    return;
  }
  const flags = g.size === out.size ? g.shape.map(() => false) : broadcastFlags(g.shape, out.shape);
  reduceInto(rt, name, 'sum', 'none', g, g.shape, flags, out, req);
}

export function installReduceBackward(registry: OpRegistry, host: CudaHost): void {
  if (registry.has('_broadcast_backward')) {
    registry.registerKernel(
      '_broadcast_backward',
      CUDA,
      cudaKernel(
        host,
        '_broadcast_backward',
        (_a, inputs, req, outputs) =>
          broadcastBackward(host.rt, inputs[0] as CudaBlob, outputs[0] as CudaBlob, req[0] as OpReqType),
        CUDA_DTYPES,
      ),
    );
  }
  for (const [name, mean] of [
    ['_backward_sum', false],
    ['_backward_mean', true],
  ] as const) {
    if (!registry.has(name)) continue;
    registry.registerKernel(
      name,
      CUDA,
      cudaKernel<AxesAttrs>(
        host,
        name,
        (a, inputs, req, outputs) =>
          spread(host.rt, name, a, inputs[0] as CudaBlob, outputs[0] as CudaBlob, req[0] as OpReqType, mean),
        CUDA_DTYPES,
      ),
    );
  }
  if (registry.has('_backward_topk')) {
    registry.registerKernel(
      '_backward_topk',
      CUDA,
      cudaKernel<{ axis: number | null } & Attrs>(
        host,
        '_backward_topk',
        (a, inputs, req, outputs) =>
          topkScatter(
            host.rt,
            a.axis,
            inputs[0] as CudaBlob,
            inputs[1] as CudaBlob,
            outputs[0] as CudaBlob,
            req[0] as OpReqType,
          ),
        CUDA_DTYPES,
      ),
    );
  }
}
