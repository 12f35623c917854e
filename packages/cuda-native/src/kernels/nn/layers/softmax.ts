/**
 * The softmax row kernel: softmax, log_softmax, masked_softmax, masked_log_softmax forward and
 * backward, and SoftmaxOutput's forward. The data is (outer, M, inner) around the axis; each of the
 * outer·inner rows is one block (grid-strided past the grid size) whose threads stride along the
 * row (element j at o·M·inner + j·inner + k, so any axis works without a transpose and rows of any
 * length fit), with warp-shuffle + shared-memory reductions for the max and the sum, numerically
 * stable (exp(x - max)), accumulating in float (double for float64) whatever the storage type.
 *
 * Options, as cpu-wasm: `length` (any integer dtype, one per row or one for all: entries from
 * length on are left out and output 0), a bool `mask` broadcast to data (masked entries count as
 * the lowest value of the data dtype before the softmax and output 0, or -inf for the log variant;
 * their gradient is 0), temperature T. Forward: max, Σ exp((x - max)/T), then exp(z)/Σ or
 * z - log Σ. Backward: Σ g·y (log: Σ g), then y(g - Σ)/T (log: (g - e^y Σ)/T).
 */
import type { DTypeName } from '@mx/base';
import { ctype, type KernelArg, literalC, loadC } from '../../../cuda-c.js';
import { addr, type CudaBlob, type CudaHost } from '../../../kernel.js';
import { MATH_C } from './map.js';
import {
  accArg,
  accOf,
  type BcastPlan,
  BIDX_C,
  bcastPlan,
  cptr,
  indexReaderC,
  type Mode,
  putC,
  SourceCache,
} from './util.js';

export interface RowGeometry {
  readonly outer: number;
  readonly m: number;
  readonly inner: number;
}

export interface SoftmaxRowCall {
  readonly op: string;
  readonly backward: boolean;
  readonly log: boolean;
  /** Forward: x; backward: ograd. */
  readonly a: CudaBlob;
  /** Backward: the forward output y. */
  readonly y?: CudaBlob;
  readonly length?: CudaBlob;
  readonly mask?: CudaBlob;
  readonly out: CudaBlob;
  readonly mode: Mode;
  readonly geo: RowGeometry;
  readonly temperature: number;
}

const LOWEST: Partial<Record<DTypeName, string>> = {
  float32: '-3.4028234663852886e38',
  float64: '-1.7976931348623157e308',
  float16: '-65504.0',
  bfloat16: '-3.3895313892515355e38',
};

/** Block reductions over ACC (blockDim a multiple of 32, at most 1024; `sh` holds 32 values). */
export const BLOCK_REDUCE_C = `static __device__ __forceinline__ ACC mx_warp_sum(ACC v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}
static __device__ __forceinline__ ACC mx_warp_max(ACC v) {
  for (int o = 16; o > 0; o >>= 1) { ACC u = __shfl_down_sync(0xffffffffu, v, o); v = u > v ? u : v; }
  return v;
}
static __device__ ACC mx_block_sum(ACC v, ACC* sh) {
  v = mx_warp_sum(v);
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
  __syncthreads();
  if (lane == 0) sh[w] = v;
  __syncthreads();
  if (w == 0) {
    v = lane < nw ? sh[lane] : (ACC)0;
    v = mx_warp_sum(v);
    if (lane == 0) sh[0] = v;
  }
  __syncthreads();
  return sh[0];
}
static __device__ ACC mx_block_max(ACC v, ACC* sh, ACC lowest) {
  v = mx_warp_max(v);
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
  __syncthreads();
  if (lane == 0) sh[w] = v;
  __syncthreads();
  if (w == 0) {
    v = lane < nw ? sh[lane] : lowest;
    v = mx_warp_max(v);
    if (lane == 0) sh[0] = v;
  }
  __syncthreads();
  return sh[0];
}
`;

/** Threads per row block: the smallest of 32..256 covering a row of `m` (warp multiples). */
export function rowThreads(m: number): number {
  return m >= 256 ? 256 : m >= 128 ? 128 : m >= 64 ? 64 : 32;
}

const cache = new SourceCache('layers_softmax');

function source(c: SoftmaxRowCall, acc: 'float' | 'double', entry: string): string {
  const A = c.a.dtype;
  const Y = c.y?.dtype ?? A;
  const L = c.length?.dtype ?? 'int32';
  const hasLen = c.length !== undefined;
  const hasMask = c.mask !== undefined;
  const ninf = literalC(acc === 'double' ? 'f64' : 'f32', Number.NEGATIVE_INFINITY);
  const on = (i: string) => (hasMask ? `(${loadC('mk', 'bool', `mx_bidx(${i}, msh, mst, mnd)`)})` : 'true');
  const lenExpr = hasLen ? 'mx_rdlen(lens, M, nlen == 1 ? 0 : row)' : 'M';
  const rd = (arr: string, dt: DTypeName, i: string) => `((ACC)(${loadC(arr, dt, i)}))`;
  const lowest = `((ACC)${LOWEST[A] ?? LOWEST.float32})`;
  const val = (i: string) => (hasMask ? `(${on(i)} ? ${rd('a', A, i)} : ${lowest})` : rd('a', A, i));
  let body: string;
  if (!c.backward) {
    const result = c.log ? 'z - ls' : 'mx_exp(z) / s';
    // masked_log_softmax: masked entries output -inf (MXNet's masked_neg_inf), masked_softmax 0.
    const init = hasMask && c.log ? `(${on('i')} ? (ACC)0 : ${ninf})` : '0';
    body = `    ACC mx = ${ninf};
    for (long long j = threadIdx.x; j < len; j += blockDim.x) { ACC v = ${val('base + j * inner')}; mx = v > mx ? v : mx; }
    mx = mx_block_max(mx, sh, ${ninf});
    ACC s = 0;
    for (long long j = threadIdx.x; j < len; j += blockDim.x) s += mx_exp((${val('base + j * inner')} - mx) / T);
    s = mx_block_sum(s, sh);
    ACC ls = mx_log(s);
    for (long long j = threadIdx.x; j < M; j += blockDim.x) {
      long long i = base + j * inner;
      ACC v = ${init};
      if (j < len && ${on('i')}) {
        ACC z = (${val('i')} - mx) / T;
        v = ${result};
      }
      ${putC('out', c.out.dtype, 'i', 'v', c.mode)}
    }
`;
  } else {
    const term = c.log ? rd('a', A, 'i') : `${rd('a', A, 'i')} * ${rd('y', Y, 'i')}`;
    const grad = c.log ? '(gv - mx_exp(yv) * s) / T' : 'yv * (gv - s) / T';
    body = `    ACC s = 0;
    for (long long j = threadIdx.x; j < len; j += blockDim.x) {
      long long i = base + j * inner;
      if (${on('i')}) s += ${term};
    }
    s = mx_block_sum(s, sh);
    for (long long j = threadIdx.x; j < M; j += blockDim.x) {
      long long i = base + j * inner;
      ACC v = 0;
      if (j < len && ${on('i')}) {
        ACC gv = ${rd('a', A, 'i')};
        ACC yv = ${rd('y', Y, 'i')};
        v = ${grad};
      }
      ${putC('out', c.out.dtype, 'i', 'v', c.mode)}
    }
`;
  }
  const lenReader = hasLen
    ? `${indexReaderC('mx_rdidx', L)}static __device__ __forceinline__ long long mx_rdlen(const ${ctype(L).storage}* l, long long M, long long k) {
  long long v = mx_rdidx(l, k);
  return v < 0 ? 0 : (v > M ? M : v);
}
`
    : '';
  return `${MATH_C}${BIDX_C}typedef ${acc} ACC;
${BLOCK_REDUCE_C}${lenReader}extern "C" __global__ void ${entry}(${cptr(A, 'a')}, ${cptr(Y, 'y')}, ${cptr(L, 'lens')}, const unsigned char* mk, ${cptr(c.out.dtype, 'out', false)}, long long rows, long long M, long long inner, ${acc} T, long long nlen, MxDims msh, MxDims mst, int mnd) {
  __shared__ ACC sh[32];
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    long long base = (row / inner) * M * inner + row % inner;
    long long len = ${lenExpr};
${body}  }
}
`;
}

/** Queue one softmax-family row pass (nothing for mode 'n' or an empty output). */
export function softmaxRows(host: CudaHost, c: SoftmaxRowCall): void {
  const { outer, m, inner } = c.geo;
  const rows = outer * inner;
  if (c.mode === 'n' || c.out.size === 0 || rows === 0) return;
  const dts = [c.a.dtype, c.y?.dtype ?? c.a.dtype, c.out.dtype];
  const acc = accOf(dts);
  const flags = `${c.backward ? 'b' : 'f'}${c.log ? 'l' : 's'}${c.length ? `L${c.length.dtype}` : ''}${c.mask ? 'K' : ''}`;
  const key = `${flags}|${dts.join(',')}|${c.mode}|${acc}`;
  const src = cache.get(key, (entry) => source(c, acc, entry));
  const plan: BcastPlan | undefined = c.mask ? bcastPlan(c.op, c.a.shape, c.mask.shape) : undefined;
  const ptr = (b: CudaBlob | undefined): KernelArg => ({ t: 'ptr', v: b === undefined ? 0 : addr(b, c.op) });
  const args: KernelArg[] = [
    ptr(c.a),
    ptr(c.y),
    ptr(c.length),
    ptr(c.mask),
    ptr(c.out),
    { t: 'i64', v: rows },
    { t: 'i64', v: m },
    { t: 'i64', v: Math.max(1, inner) },
    { t: accArg(acc), v: c.temperature },
    { t: 'i64', v: c.length?.size ?? 0 },
    { t: 'dims', v: plan?.shape ?? [] },
    { t: 'dims', v: plan?.stride ?? [] },
    { t: 'i32', v: plan?.shape.length ?? 0 },
  ];
  host.rt.launch(src, [Math.min(rows, 1 << 20)], [rowThreads(m)], args);
}
