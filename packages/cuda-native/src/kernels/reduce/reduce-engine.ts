/**
 * The value-reduction engine on cuda-native (sum, mean, prod, max, min, nansum, nanprod, norm, and
 * the sums behind `_broadcast_backward`): one kernel shape for every axis set and size.
 *
 * Layout: a block of 256 threads is split into G groups of S threads (S a power of two chosen per
 * call, geometry.ts `reduceLaunch`), one group per (output, chunk). Each thread folds a strided
 * slice of the reduced elements sequentially (about 32), then the group combines its S partials:
 * a tree in shared memory down to 32, then warp shuffles (`__shfl_down_sync` with width S) — a
 * pairwise combination, so float32 sums stay in cpu-wasm's precision class (float32 accumulators,
 * blocked/pairwise order) without compensation. S = 1 is a thread per output.
 *
 * The input is the collapsed layout: kept segments (which output) and reduced segments (which
 * element of it), each as sizes and strides in MxDims. Long reductions (more than LMAX elements per
 * output) run in passes: pass 1 writes accumulator-typed partials of each (output, chunk) to per-op
 * scratch; the next pass reduces the partials (no element map, e.g. norm's square) and the last one
 * applies the op's finish (mean's division, norm's sqrt), converts to the output dtype and honours
 * req. Results are deterministic (no atomics).
 */
import type { DTypeName } from '@mx/base';
import { OpReq, type OpReqType } from '@mx/ops';
import { type CudaSource, ctype, hashText, KIND_C, loadC } from '../../cuda-c.js';
import { addr, type CudaBlob } from '../../kernel.js';
import type { CudaRuntime } from '../../runtime.js';
import { type AccKind, accC, accKind, extremeC, HELPERS, writeC } from './cgen.js';
import { RBLOCK, type ReduceGeometry, reduceGeometry, reduceLaunch, type Seg, segDims } from './geometry.js';

export type RedOp = 'sum' | 'prod' | 'max' | 'min' | 'nansum' | 'nanprod' | 'sumabs' | 'sumsq';
export type Finish = 'none' | 'mean' | 'sqrt';

function identity(op: RedOp, dtype: DTypeName, acc: AccKind): string {
  if (op === 'prod' || op === 'nanprod') return `(${accC(acc)})1`;
  if (op === 'max') return extremeC(dtype, acc, false);
  if (op === 'min') return extremeC(dtype, acc, true);
  return `(${accC(acc)})0`;
}

/** Combine two partials. max/min propagate NaN (NumPy) and rank +0 above -0 (JS Math.max). */
function combine(op: RedOp, acc: AccKind): string {
  if (op === 'prod' || op === 'nanprod') return 'return mx_mul(a, b);';
  if (op === 'max' || op === 'min') {
    const cmp = op === 'max' ? 'b > a' : 'b < a';
    if (acc === 'i32' || acc === 'i64') return `return ${cmp} ? b : a;`;
    const bits = acc === 'f32' ? '__float_as_uint' : '(unsigned long long)__double_as_longlong';
    const zero = op === 'max' ? `${bits}(a) > ${bits}(b)` : `${bits}(b) > ${bits}(a)`;
    return `if (mx_nan(a)) return a; if (mx_nan(b) || ${cmp} || (b == a && ${zero})) return b; return a;`;
  }
  return 'return mx_add(a, b);';
}

function mapExpr(op: RedOp, acc: AccKind): string {
  const float = acc === 'f32' || acc === 'f64';
  if (op === 'nansum' && float) return `mx_nan(x) ? (${accC(acc)})0 : x`;
  if (op === 'nanprod' && float) return `mx_nan(x) ? (${accC(acc)})1 : x`;
  if (op === 'sumabs') return float ? (acc === 'f32' ? 'fabsf(x)' : 'fabs(x)') : 'x < 0 ? mx_mul(x, -1) : x';
  if (op === 'sumsq') return 'mx_mul(x, x)';
  return 'x';
}

/**
 * The finished value (C expression of kind `acc` or of the input's storage type) from `res`. Integer
 * means wrap the sum to the input dtype first and truncate (cpu-wasm, C++).
 */
function finishExpr(finish: Finish, acc: AccKind, inDtype: DTypeName): string {
  if (finish === 'sqrt') return acc === 'f64' ? 'sqrt(res)' : 'sqrtf((float)res)';
  if (finish !== 'mean') return 'res';
  if (acc === 'f32') return '(float)((double)res / (double)count)';
  if (acc === 'f64') return 'res / (double)count';
  const st = ctype(inDtype).storage;
  return `(count == 0 ? 0LL : (long long)(${st})res / count)`;
}

interface Pass {
  readonly op: RedOp;
  readonly finish: Finish;
  /** The op's input dtype (its accumulator and identities). */
  readonly dtype: DTypeName;
  /** Reading the op's input (true) or accumulator partials of a previous pass (false). */
  readonly fromInput: boolean;
  /** Output dtype, or null when writing accumulator partials. */
  readonly outDtype: DTypeName | null;
}

const cache = new Map<string, CudaSource>();

function source(p: Pass): CudaSource {
  const key = `reduce:${p.op}:${p.finish}:${p.dtype}:${p.fromInput ? 'in' : 'part'}:${p.outDtype ?? 'partial'}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const acc = accKind(p.dtype);
  const A = accC(acc);
  const inT = p.fromInput ? ctype(p.dtype).storage : A;
  const load = p.fromInput ? `(${A})${loadC('x', p.dtype, 'off')}` : 'x[off]';
  const outT = p.outDtype === null ? A : ctype(p.outDtype).storage;
  const finished = finishExpr(p.finish, acc, p.dtype);
  const finKind =
    p.finish === 'mean' && (acc === 'i32' || acc === 'i64')
      ? 'i64'
      : p.finish === 'sqrt' && acc !== 'f64'
        ? 'f32'
        : acc;
  const write =
    p.outDtype === null
      ? 'y[v] = acc;'
      : `long long i = v; ${A} res = acc; ${writeC(p.outDtype, 'y', 'i', finKind, finished, 'add')}`;
  const entry = `mx_reduce_${p.op}_${hashText(key)}`;
  const code = `${HELPERS}
static __device__ __forceinline__ ${A} mx_comb(${A} a, ${A} b) { ${combine(p.op, acc)} }
static __device__ __forceinline__ ${A} mx_map(${A} x) { return ${p.fromInput ? mapExpr(p.op, acc) : 'x'}; }
extern "C" __global__ void __launch_bounds__(${RBLOCK}) ${entry}(const ${inT}* x, ${outT}* y, long long nVirt, long long C, long long L, long long R, int S, int nk, int nr, MxDims ksz, MxDims kst, MxDims rsz, MxDims rst, long long count, int add) {
  __shared__ ${A} sh[${RBLOCK}];
  const int tid = threadIdx.x;
  const int g = tid / S;
  const int t = tid - g * S;
  const long long v = (long long)blockIdx.x * (${RBLOCK} / S) + g;
  const bool valid = v < nVirt;
  ${A} acc = ${identity(p.op, p.dtype, acc)};
  if (valid) {
    const long long o = v / C;
    const long long c = v - o * C;
    long long base = 0;
    long long rem = o;
    for (int d = nk - 1; d >= 0; d--) { base += (rem % ksz.v[d]) * kst.v[d]; rem /= ksz.v[d]; }
    const long long start = c * L;
    const long long end = start + L < R ? start + L : R;
    for (long long r = start + t; r < end; r += S) {
      long long off = base;
      if (nr == 1) off += r * rst.v[0];
      else { long long q = r; for (int d = nr - 1; d >= 0; d--) { off += (q % rsz.v[d]) * rst.v[d]; q /= rsz.v[d]; } }
      acc = mx_comb(acc, mx_map(${load}));
    }
  }
  if (S > 32) {
    sh[tid] = acc;
    __syncthreads();
    for (int s = S >> 1; s >= 32; s >>= 1) {
      if (t < s) sh[tid] = mx_comb(sh[tid], sh[tid + s]);
      __syncthreads();
    }
    acc = sh[tid];
  }
  const int w = S < 32 ? S : 32;
  for (int s = w >> 1; s > 0; s >>= 1) acc = mx_comb(acc, __shfl_down_sync(0xffffffffu, acc, s, w));
  if (valid && t == 0) { ${write} }
}
`;
  const src = { entry, code };
  cache.set(key, src);
  return src;
}

interface PassGeo {
  readonly kept: readonly Seg[];
  readonly red: readonly Seg[];
  readonly outs: number;
  readonly R: number;
  readonly count: number;
  readonly innerKept: boolean;
}

/** One pass: C chunks of L elements per output of `geo`, S threads each, from `x` into `y`. */
function runPass(
  rt: CudaRuntime,
  p: Pass,
  x: number,
  y: number,
  geo: PassGeo,
  add: boolean,
  C: number,
  S: number,
  L: number,
) {
  const nVirt = geo.outs * C;
  const G = RBLOCK / S;
  const [ksz, kst] = segDims(geo.kept);
  const [rsz, rst] = segDims(geo.red);
  rt.launch(
    source(p),
    [Math.ceil(nVirt / G)],
    [RBLOCK],
    [
      { t: 'ptr', v: x },
      { t: 'ptr', v: y },
      { t: 'i64', v: nVirt },
      { t: 'i64', v: C },
      { t: 'i64', v: L },
      { t: 'i64', v: geo.R },
      { t: 'i32', v: S },
      { t: 'i32', v: geo.kept.length },
      { t: 'i32', v: geo.red.length },
      { t: 'dims', v: ksz },
      { t: 'dims', v: kst },
      { t: 'dims', v: rsz },
      { t: 'dims', v: rst },
      { t: 'i64', v: geo.count },
      { t: 'i32', v: add ? 1 : 0 },
    ],
  );
}

/**
 * Reduce `x` (viewed with `shape`, dense) over the flagged axes into `y` with req: the shared driver
 * of every value reduction.
 */
export function reduceInto(
  rt: CudaRuntime,
  name: string,
  op: RedOp,
  finish: Finish,
  x: CudaBlob,
  shape: readonly number[],
  flags: readonly boolean[],
  y: CudaBlob,
  req: OpReqType,
): void {
  if (req === OpReq.null || y.size === 0) return;
  const g: ReduceGeometry = reduceGeometry(name, shape, flags);
  const yp = addr(y, name);
  const add = req === OpReq.add;
  const outs = y.size;
  const final = (fromInput: boolean): Pass => ({ op, finish, dtype: x.dtype, fromInput, outDtype: y.dtype });
  if (x.size === 0) {
    // Nothing to read: the identity, finished (mean of nothing is NaN for floats, 0 for integers).
    const geo = { kept: [], red: [], outs, R: 0, count: 0, innerKept: false };
    runPass(rt, final(true), 0, yp, geo, add, 1, 1, 0);
    return;
  }
  const geo: PassGeo = { kept: g.kept, red: g.red, outs, R: g.count, count: g.count, innerKept: g.innerKept };
  const first = reduceLaunch(outs, g.count, g.innerKept);
  if (first.C === 1) {
    runPass(rt, final(true), addr(x, name), yp, geo, add, 1, first.S, first.L);
    return;
  }
  const accBytes = KIND_BYTES[accKind(x.dtype)];
  let cur = rt.temp(outs * first.C * accBytes);
  runPass(rt, { ...final(true), outDtype: null }, addr(x, name), cur, geo, false, first.C, first.S, first.L);
  // Further passes over the partials: kept [outs @ n], reduced [n @ 1].
  let n = first.C;
  for (;;) {
    const pgeo: PassGeo = {
      kept: outs > 1 ? [{ size: outs, stride: n }] : [],
      red: [{ size: n, stride: 1 }],
      outs,
      R: n,
      count: g.count,
      innerKept: false,
    };
    const l = reduceLaunch(outs, n, false);
    if (l.C === 1) {
      runPass(rt, final(false), cur, yp, pgeo, add, 1, l.S, l.L);
      return;
    }
    const next = rt.temp(outs * l.C * accBytes);
    runPass(rt, { ...final(false), outDtype: null }, cur, next, pgeo, false, l.C, l.S, l.L);
    cur = next;
    n = l.C;
  }
}

const KIND_BYTES: Readonly<Record<AccKind, number>> = { f32: 4, f64: 8, i32: 4, i64: 8 };

/** For tests: the C type names the engine accumulates each dtype in. */
export const accTypeName = (dtype: DTypeName): string => KIND_C[accKind(dtype)];
