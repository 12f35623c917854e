/**
 * argmax / argmin on cuda-native: the reduce engine's layout (groups of S threads per lane, strided
 * sequential folds, a shared-memory tree down to a warp, then shuffles) over (outer, n, inner)
 * lanes of the one axis (the flattened array when axis is None), carrying (value, index) pairs.
 * Lanes longer than LMAX run in passes: (value, index) partials per chunk go to per-op scratch and
 * the next pass picks among them.
 *
 * The pair order is total, so the combination order cannot change the answer: a NaN beats every
 * number (NumPy and cpu-wasm return the first NaN), then the larger (smaller) value, then the
 * smaller index — ties give the first occurrence, as MXNet documents. The result has the output's
 * dtype (MXNet's ElemwiseType: the input's) and honours req.
 */
import type { DTypeName } from '@mx/base';
import { type Attrs, type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import { type CudaSource, ctype, hashText, loadC } from '../../cuda-c.js';
import { addr, CUDA, type CudaBlob, type CudaHost, cudaKernel } from '../../kernel.js';
import type { CudaRuntime } from '../../runtime.js';
import { accC, accKind, HELPERS, writeC } from './cgen.js';
import { laneGeometry, RBLOCK, REDUCE_DTYPES, reduceLaunch, unsupported } from './geometry.js';

interface ReduceAxisAttrs extends Attrs {
  readonly axis: number | null;
  readonly keepdims: boolean;
}

/**
 * direct: input → output; partial: input → (value, index) partials; middle: partials → partials
 * (lanes longer than LMAX² elements); final: partials → output.
 */
type Mode = 'direct' | 'partial' | 'middle' | 'final';

const cache = new Map<string, CudaSource>();

function source(max: boolean, dtype: DTypeName, outDtype: DTypeName, mode: Mode): CudaSource {
  const key = `arg:${max ? 'max' : 'min'}:${dtype}:${outDtype}:${mode}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const A = accC(accKind(dtype));
  const readsPartials = mode === 'final' || mode === 'middle';
  const writesPartials = mode === 'partial' || mode === 'middle';
  const inT = readsPartials ? A : ctype(dtype).storage;
  const outT = writesPartials ? A : ctype(outDtype).storage;
  const load = readsPartials ? 'x[off]' : `(${A})${loadC('x', dtype, 'off')}`;
  const write = writesPartials
    ? 'y[v] = bv; yi[v] = bi;'
    : `long long i = v; ${writeC(outDtype, 'y', 'i', 'i64', 'bi', 'add')}`;
  const entry = `mx_arg${max ? 'max' : 'min'}_${hashText(key)}`;
  const code = `${HELPERS}
static __device__ __forceinline__ bool mx_better(${A} av, long long ai, ${A} bv, long long bi) {
  if (bi < 0) return false;
  if (ai < 0) return true;
  const bool an = mx_nan(av), bn = mx_nan(bv);
  if (an != bn) return bn;
  if (an || bv == av) return bi < ai;
  return bv ${max ? '>' : '<'} av;
}
extern "C" __global__ void __launch_bounds__(${RBLOCK}) ${entry}(const ${inT}* x, const long long* xi, ${outT}* y, long long* yi, long long nVirt, long long C, long long L, long long n, long long inner, int S, int add) {
  __shared__ ${A} sv[${RBLOCK}];
  __shared__ long long si[${RBLOCK}];
  const int tid = threadIdx.x;
  const int g = tid / S;
  const int t = tid - g * S;
  const long long v = (long long)blockIdx.x * (${RBLOCK} / S) + g;
  const bool valid = v < nVirt;
  ${A} bv = (${A})0;
  long long bi = -1;
  if (valid) {
    const long long lane = v / C;
    const long long c = v - lane * C;
    const long long base = (lane / inner) * n * inner + lane % inner;
    const long long start = c * L;
    const long long end = start + L < n ? start + L : n;
    for (long long j = start + t; j < end; j += S) {
      const long long off = base + j * inner;
      const ${A} e = ${load};
      const long long ei = ${readsPartials ? 'xi[off]' : 'j'};
      if (mx_better(bv, bi, e, ei)) { bv = e; bi = ei; }
    }
  }
  if (S > 32) {
    sv[tid] = bv;
    si[tid] = bi;
    __syncthreads();
    for (int s = S >> 1; s >= 32; s >>= 1) {
      if (t < s && mx_better(sv[tid], si[tid], sv[tid + s], si[tid + s])) { sv[tid] = sv[tid + s]; si[tid] = si[tid + s]; }
      __syncthreads();
    }
    bv = sv[tid];
    bi = si[tid];
  }
  const int w = S < 32 ? S : 32;
  for (int s = w >> 1; s > 0; s >>= 1) {
    const ${A} ov = __shfl_down_sync(0xffffffffu, bv, s, w);
    const long long oi = __shfl_down_sync(0xffffffffu, bi, s, w);
    if (mx_better(bv, bi, ov, oi)) { bv = ov; bi = oi; }
  }
  if (valid && t == 0) { ${write} }
}
`;
  const src = { entry, code };
  cache.set(key, src);
  return src;
}

interface ArgPass {
  readonly x: number;
  readonly xi: number;
  readonly y: number;
  readonly yi: number;
  readonly lanes: number;
  readonly n: number;
  readonly inner: number;
  readonly add: boolean;
}

function launch(
  rt: CudaRuntime,
  src: CudaSource,
  p: ArgPass,
  outs: number,
  C: number,
  S: number,
  L: number,
): void {
  const nVirt = outs * C;
  rt.launch(
    src,
    [Math.ceil(nVirt / (RBLOCK / S))],
    [RBLOCK],
    [
      { t: 'ptr', v: p.x },
      { t: 'ptr', v: p.xi },
      { t: 'ptr', v: p.y },
      { t: 'ptr', v: p.yi },
      { t: 'i64', v: nVirt },
      { t: 'i64', v: C },
      { t: 'i64', v: L },
      { t: 'i64', v: p.n },
      { t: 'i64', v: p.inner },
      { t: 'i32', v: S },
      { t: 'i32', v: p.add ? 1 : 0 },
    ],
  );
}

/** argmax/argmin of `x` along `axis` into `y` with req. */
export function argReduce(
  rt: CudaRuntime,
  name: string,
  max: boolean,
  axis: number | null,
  x: CudaBlob,
  y: CudaBlob,
  req: OpReqType,
): void {
  for (const d of [x.dtype, y.dtype])
    if (!REDUCE_DTYPES.includes(d)) throw unsupported(name, d, REDUCE_DTYPES);
  if (req === OpReq.null || y.size === 0 || x.size === 0) return;
  const [outer, n, inner] = laneGeometry(x.shape, axis);
  const lanes = outer * inner;
  const add = req === OpReq.add;
  const first = reduceLaunch(lanes, n, false);
  const yp = addr(y, name);
  if (first.C === 1) {
    const p = { x: addr(x, name), xi: 0, y: yp, yi: 0, lanes, n, inner, add };
    launch(rt, source(max, x.dtype, y.dtype, 'direct'), p, lanes, 1, first.S, first.L);
    return;
  }
  const valBytes = ctype(x.dtype).bytes > 4 || accKind(x.dtype) === 'i64' ? 8 : 4;
  const alloc = (count: number) => ({ v: rt.temp(count * valBytes), i: rt.temp(count * 8) });
  let cur = alloc(lanes * first.C);
  const p1 = { x: addr(x, name), xi: 0, y: cur.v, yi: cur.i, lanes, n, inner, add: false };
  launch(rt, source(max, x.dtype, y.dtype, 'partial'), p1, lanes, first.C, first.S, first.L);
  let m = first.C;
  for (;;) {
    const l = reduceLaunch(lanes, m, false);
    if (l.C === 1) {
      const p = { x: cur.v, xi: cur.i, y: yp, yi: 0, lanes, n: m, inner: 1, add };
      launch(rt, source(max, x.dtype, y.dtype, 'final'), p, lanes, 1, l.S, l.L);
      return;
    }
    const next = alloc(lanes * l.C);
    const p = { x: cur.v, xi: cur.i, y: next.v, yi: next.i, lanes, n: m, inner: 1, add: false };
    launch(rt, source(max, x.dtype, 'int64', 'middle'), p, lanes, l.C, l.S, l.L);
    cur = next;
    m = l.C;
  }
}

export function installArgOps(registry: OpRegistry, host: CudaHost): void {
  for (const [name, max] of [
    ['argmax', true],
    ['argmin', false],
  ] as const) {
    if (!registry.has(name)) continue;
    registry.registerKernel(
      name,
      CUDA,
      cudaKernel<ReduceAxisAttrs>(
        host,
        name,
        (attrs, inputs, req, outputs) =>
          argReduce(
            host.rt,
            name,
            max,
            attrs.axis,
            inputs[0] as CudaBlob,
            outputs[0] as CudaBlob,
            req[0] as OpReqType,
          ),
        REDUCE_DTYPES,
      ),
    );
  }
}
