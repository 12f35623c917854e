/**
 * CUDA C snippets the reduce family's generators share, in one place so every kernel converts and
 * stores identically (cpu-wasm's convert.ts rules: float→int truncates, integers wrap to their
 * width, req=add adds in the output's own arithmetic):
 *
 * - the accumulator kind of an input dtype (MXNet: integers in their own type, wrapping; 16-bit
 *   floats in float32; float32 in float32; float64 in float64); int8/uint8 accumulate in `int` and
 *   wrap when stored, which is the same result modulo 2^8;
 * - wrapping integer add/mul through unsigned arithmetic (signed overflow is undefined in C);
 * - NaN tests by bits (immune to compilers assuming no NaNs);
 * - conversion of a computed value to a storage type, and the write honouring req (`add` flag).
 */
import type { DTypeName } from '@mx/base';
import { ctype, KIND_C, type Kind, literalC } from '../../cuda-c.js';

export type AccKind = 'f32' | 'f64' | 'i32' | 'i64';

/** The kind a reduction of `dtype` accumulates in. */
export function accKind(dtype: DTypeName): AccKind {
  const k = ctype(dtype).kind;
  if (k === 'f32' || k === 'f64' || k === 'i64') return k;
  return 'i32';
}

export const isFloatKind = (k: Kind): boolean => k === 'f32' || k === 'f64';

/** Device helpers every reduce-family source includes (static: one copy per translation unit). */
export const HELPERS = `static __device__ __forceinline__ bool mx_nan(float x) { return (__float_as_uint(x) & 0x7fffffffu) > 0x7f800000u; }
static __device__ __forceinline__ bool mx_nan(double x) { return (__double_as_longlong(x) & 0x7fffffffffffffffLL) > 0x7ff0000000000000LL; }
static __device__ __forceinline__ bool mx_nan(int x) { return false; }
static __device__ __forceinline__ bool mx_nan(long long x) { return false; }
static __device__ __forceinline__ int mx_add(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
static __device__ __forceinline__ long long mx_add(long long a, long long b) { return (long long)((unsigned long long)a + (unsigned long long)b); }
static __device__ __forceinline__ float mx_add(float a, float b) { return a + b; }
static __device__ __forceinline__ double mx_add(double a, double b) { return a + b; }
static __device__ __forceinline__ int mx_mul(int a, int b) { return (int)((unsigned)a * (unsigned)b); }
static __device__ __forceinline__ long long mx_mul(long long a, long long b) { return (long long)((unsigned long long)a * (unsigned long long)b); }
static __device__ __forceinline__ float mx_mul(float a, float b) { return a * b; }
static __device__ __forceinline__ double mx_mul(double a, double b) { return a * b; }
`;

/** C expression reading a storage value `v` of `dtype` as its compute kind (cuda-c.ts `loadC`). */
export function fromStorageC(dtype: DTypeName, v: string): string {
  if (dtype === 'float16') return `mx_h2f(${v})`;
  if (dtype === 'bfloat16') return `mx_bf2f(${v})`;
  if (dtype === 'bool') return `((${v}) != 0)`;
  return `(${v})`;
}

/** C expression converting `v` (of compute kind `from`) to the storage type of `to`. */
export function castC(from: Kind, to: DTypeName, v: string): string {
  if (to === 'float16') return `mx_f2h((float)(${v}))`;
  if (to === 'bfloat16') return `mx_f2bf((float)(${v}))`;
  if (to === 'bool') return `(unsigned char)((${v}) != 0)`;
  const st = ctype(to).storage;
  if ((to === 'int8' || to === 'uint8') && isFloatKind(from)) return `(${st})(int)(${v})`;
  if ((to === 'int8' || to === 'uint8' || to === 'int32') && from === 'i64') return `(${st})(unsigned)(${v})`;
  return `(${st})(${v})`;
}

/** C expression adding two storage values of `dtype` in its own arithmetic. */
export function addStorageC(dtype: DTypeName, a: string, b: string): string {
  switch (dtype) {
    case 'float16':
      return `mx_f2h(mx_h2f(${a}) + mx_h2f(${b}))`;
    case 'bfloat16':
      return `mx_f2bf(mx_bf2f(${a}) + mx_bf2f(${b}))`;
    case 'bool':
      return `(unsigned char)((${a}) != 0 || (${b}) != 0)`;
    case 'int32':
      return `(int)((unsigned)(${a}) + (unsigned)(${b}))`;
    case 'int64':
      return `(long long)((unsigned long long)(${a}) + (unsigned long long)(${b}))`;
    case 'int8':
    case 'uint8':
      return `(${ctype(dtype).storage})((${a}) + (${b}))`;
    default:
      return `(${a}) + (${b})`;
  }
}

/**
 * C statement storing `v` (compute kind `from`) into `arr[idx]` of dtype `dtype`: written, or added
 * to what is there when the int `addFlag` is non-zero (req=add).
 */
export function writeC(
  dtype: DTypeName,
  arr: string,
  idx: string,
  from: Kind,
  v: string,
  addFlag: string,
): string {
  const st = ctype(dtype).storage;
  return `{ ${st} mx_w = ${castC(from, dtype, v)}; if (${addFlag}) mx_w = ${addStorageC(dtype, `${arr}[${idx}]`, 'mx_w')}; ${arr}[${idx}] = mx_w; }`;
}

/** The C type of an accumulator kind. */
export const accC = (k: AccKind): string => KIND_C[k];

/** Lowest / highest value of `dtype` as a literal of accumulator kind `acc` (max/min identities). */
export function extremeC(dtype: DTypeName, acc: AccKind, highest: boolean): string {
  switch (dtype) {
    case 'int8':
      return literalC(acc, highest ? 127 : -128);
    case 'uint8':
      return literalC(acc, highest ? 255 : 0);
    case 'int32':
      return highest ? '2147483647' : '(-2147483647 - 1)';
    case 'int64':
      return highest ? '9223372036854775807LL' : '(-9223372036854775807LL - 1LL)';
    default:
      return literalC(acc, highest ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY);
  }
}
