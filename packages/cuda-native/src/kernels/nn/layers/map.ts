/**
 * One elementwise kernel for every activation, output layer and mask product of this family:
 * out[i] (=|+=) expr(a0, a1, …) over up to four inputs, each read at i ('same'), at its channel
 * (i / inner) % C ('chan': prelu's gamma) or through a broadcast plan ('bcast': Dropout's
 * shared-axes mask). The expression is CUDA C over a0..a3 and p0..p3 in the compute type T (double
 * for float64, float otherwise, so 16-bit data computes in float), with the math helpers of
 * MATH_C (overloaded for float and double, so one expression serves both).
 *
 * Separate from the elementwise family's compiler: layer ops pick their formula from a string
 * param, which a registered SimpleOp cannot do.
 */
import type { DTypeName } from '@mx/base';
import { BLOCK, blocksFor, type KernelArg, loadC } from '../../../cuda-c.js';
import { addr, type CudaBlob, type CudaHost } from '../../../kernel.js';
import { accArg, accOf, type BcastPlan, BIDX_C, cptr, type Mode, putC, SourceCache } from './util.js';

/** Device math for T = float or double (expression helpers of the activations and losses). */
export const MATH_C = `static __device__ __forceinline__ float mx_exp(float x) { return expf(x); }
static __device__ __forceinline__ double mx_exp(double x) { return exp(x); }
static __device__ __forceinline__ float mx_expm1(float x) { return expm1f(x); }
static __device__ __forceinline__ double mx_expm1(double x) { return expm1(x); }
static __device__ __forceinline__ float mx_log(float x) { return logf(x); }
static __device__ __forceinline__ double mx_log(double x) { return log(x); }
static __device__ __forceinline__ float mx_log1p(float x) { return log1pf(x); }
static __device__ __forceinline__ double mx_log1p(double x) { return log1p(x); }
static __device__ __forceinline__ float mx_tanh(float x) { return tanhf(x); }
static __device__ __forceinline__ double mx_tanh(double x) { return tanh(x); }
static __device__ __forceinline__ float mx_erf(float x) { return erff(x); }
static __device__ __forceinline__ double mx_erf(double x) { return erf(x); }
static __device__ __forceinline__ float mx_abs(float x) { return fabsf(x); }
static __device__ __forceinline__ double mx_abs(double x) { return fabs(x); }
template <typename T> static __device__ __forceinline__ T mx_sigmoid(T x) { return (T)1 / ((T)1 + mx_exp(-x)); }
template <typename T> static __device__ __forceinline__ T mx_softrelu(T x) { return x > (T)20 ? x : mx_log1p(mx_exp(x)); }
template <typename T> static __device__ __forceinline__ T mx_xelu(T x, T s) { return x > (T)0 ? x : x * s; }
template <typename T> static __device__ __forceinline__ T mx_gelu_erf(T x) {
  return (T)0.5 * x * ((T)1 + mx_erf(x / (T)1.4142135623730951));
}
template <typename T> static __device__ __forceinline__ T mx_gelu_u(T x) {
  return (T)0.7978845608028654 * (x + (T)0.044715 * (x * x * x));
}
template <typename T> static __device__ __forceinline__ T mx_gelu_tanh(T x) {
  return (T)0.5 * x * ((T)1 + mx_tanh(mx_gelu_u(x)));
}
template <typename T> static __device__ __forceinline__ T mx_gelu_erf_grad(T g, T x) {
  return g * ((T)0.5 * ((T)1 + mx_erf(x / (T)1.4142135623730951)) + x * (T)0.3989422804014327 * mx_exp((T)-0.5 * (x * x)));
}
template <typename T> static __device__ __forceinline__ T mx_gelu_tanh_grad(T g, T x) {
  T u = mx_gelu_u(x);
  T c = mx_exp(u) + mx_exp(-u);
  T sech2 = (T)4 / (c * c);
  return g * ((T)0.5 * ((T)1 + mx_tanh(u)) + ((T)0.5 * x * sech2) * ((T)0.7978845608028654 * ((T)1 + (T)(3.0 * 0.044715) * (x * x))));
}
template <typename T> static __device__ __forceinline__ T mx_mish_grad(T g, T x) {
  T t = mx_tanh(mx_softrelu(x));
  return g * (t + (x * mx_sigmoid(x)) * ((T)1 - t * t));
}
`;

export type View = 'same' | 'chan' | 'bcast';

export interface MapCall {
  /** Op name for errors and the source key. */
  readonly op: string;
  /** CUDA C expression of type T over a0..a(n-1) and p0..p3. */
  readonly expr: string;
  readonly inputs: readonly CudaBlob[];
  readonly views?: readonly View[];
  readonly params?: readonly number[];
  /** For a 'chan' input: (inner, C) of the output around the channel axis. */
  readonly chan?: { readonly inner: number; readonly C: number };
  /** For a 'bcast' input: its plan into the output. */
  readonly bcast?: BcastPlan;
  readonly out: CudaBlob;
  readonly mode: Mode;
}

const cache = new SourceCache('layers_map');

function source(c: MapCall, acc: string, entry: string): string {
  const n = c.inputs.length;
  const params = c.inputs.map((b, k) => cptr(b.dtype, `in${k}`));
  params.push(cptr(c.out.dtype, 'out', false));
  let body = '';
  for (let k = 0; k < n; k++) {
    const v = c.views?.[k] ?? 'same';
    const idx = v === 'same' ? 'i' : v === 'chan' ? '((i / inner) % C)' : 'mx_bidx(i, bsh, bst, bnd)';
    body += `    T a${k} = (T)(${loadC(`in${k}`, (c.inputs[k] as CudaBlob).dtype, idx)});\n`;
  }
  body += `    ${putC('out', c.out.dtype, 'i', `(${c.expr})`, c.mode)}\n`;
  return `${MATH_C}${BIDX_C}typedef ${acc} T;
extern "C" __global__ void ${entry}(${params.join(', ')}, long long n, ${acc} p0, ${acc} p1, ${acc} p2, ${acc} p3, long long inner, long long C, MxDims bsh, MxDims bst, int bnd) {
  MX_GRID_LOOP(i, n) {
${body}  }
}
`;
}

/** Queue out (=|+=) expr(inputs); nothing when the mode is 'n' or the output is empty. */
export function runMap(host: CudaHost, c: MapCall): void {
  const n = c.out.size;
  if (c.mode === 'n' || n === 0) return;
  const dts: DTypeName[] = [...c.inputs.map((b) => b.dtype), c.out.dtype];
  const acc = accOf(dts);
  const views = c.inputs.map((_, k) => c.views?.[k] ?? 'same').join(',');
  const key = `${c.expr}|${dts.join(',')}|${views}|${c.mode}|${acc}`;
  const src = cache.get(key, (entry) => source(c, acc, entry));
  const t = accArg(acc);
  const p = c.params ?? [];
  const args: KernelArg[] = [
    ...c.inputs.map((b): KernelArg => ({ t: 'ptr', v: addr(b, c.op) })),
    { t: 'ptr', v: addr(c.out, c.op) },
    { t: 'i64', v: n },
    ...[0, 1, 2, 3].map((k): KernelArg => ({ t, v: p[k] ?? 0 })),
    { t: 'i64', v: Math.max(1, c.chan?.inner ?? 1) },
    { t: 'i64', v: Math.max(1, c.chan?.C ?? 1) },
    { t: 'dims', v: c.bcast?.shape ?? [] },
    { t: 'dims', v: c.bcast?.stride ?? [] },
    { t: 'i32', v: c.bcast?.shape.length ?? 0 },
  ];
  host.rt.launch(src, [blocksFor(n)], [BLOCK], args);
}
