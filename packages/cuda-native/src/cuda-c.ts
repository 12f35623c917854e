/**
 * CUDA C building blocks every kernel family shares: how each dtype is stored and computed, the
 * prelude every kernel source starts with (half and bfloat16 conversions through PTX and bit
 * arithmetic, so no CUDA header is needed and NVRTC and nvcc compile the same text), literals, and
 * the 1-D grid-stride launch shape.
 *
 * Conventions (so the runtime can launch generically and the render check can verify arguments):
 * - every kernel is `extern "C" __global__ void <entry>(...)` with parameters of the types
 *   `ARG_C_TYPES` lists, in the order the launch passes them;
 * - arrays are passed as typed device pointers already advanced to the blob's first element;
 * - element counts and indices are `long long`; shapes and strides travel as `MxDims` by value.
 */
import { type DTypeName, MXNetError } from '@mx/base';

/** Largest number of (collapsed) dims a strided kernel walks. */
export const MAXD = 8;

/** How a dtype lives in CUDA C. */
export interface CType {
  /** The C type of array elements. */
  readonly storage: string;
  /** Compute kind: 16-bit floats compute in f32, as mshadow's half_t does. */
  readonly kind: Kind;
  readonly bytes: number;
}

/** Compute kinds (cpu-wasm's, plus the float16/bfloat16 storage they compute from). */
export type Kind = 'f32' | 'f64' | 'i32' | 'i64' | 'i8' | 'u8' | 'bool';

/** The C type a kind computes in. */
export const KIND_C: Readonly<Record<Kind, string>> = {
  f32: 'float',
  f64: 'double',
  i32: 'int',
  i64: 'long long',
  i8: 'signed char',
  u8: 'unsigned char',
  bool: 'bool',
};

const TYPES: Partial<Record<DTypeName, CType>> = {
  float32: { storage: 'float', kind: 'f32', bytes: 4 },
  float64: { storage: 'double', kind: 'f64', bytes: 8 },
  float16: { storage: 'unsigned short', kind: 'f32', bytes: 2 },
  bfloat16: { storage: 'unsigned short', kind: 'f32', bytes: 2 },
  int32: { storage: 'int', kind: 'i32', bytes: 4 },
  int64: { storage: 'long long', kind: 'i64', bytes: 8 },
  int8: { storage: 'signed char', kind: 'i8', bytes: 1 },
  uint8: { storage: 'unsigned char', kind: 'u8', bytes: 1 },
  bool: { storage: 'unsigned char', kind: 'bool', bytes: 1 },
};

/** Dtypes cuda-native computes in (every device: 16-bit floats convert in registers). */
export const CUDA_DTYPES: readonly DTypeName[] = Object.freeze(Object.keys(TYPES) as DTypeName[]);

/** The C representation of `dtype`, or an MXNetError naming the op. */
export function ctype(dtype: DTypeName, op = 'cuda'): CType {
  const t = TYPES[dtype];
  if (t === undefined) {
    throw new MXNetError(`cuda-native cannot compute in ${dtype}`, {
      op,
      dtypes: [dtype],
      device: 'gpu',
      hint: `supported: ${CUDA_DTYPES.join(', ')}; cast with astype() first`,
    });
  }
  return t;
}

/** C expression reading element `idx` of array `name` (dtype `dtype`) as its compute kind. */
export function loadC(name: string, dtype: DTypeName, idx: string): string {
  if (dtype === 'float16') return `mx_h2f(${name}[${idx}])`;
  if (dtype === 'bfloat16') return `mx_bf2f(${name}[${idx}])`;
  if (dtype === 'bool') return `(${name}[${idx}] != 0)`;
  return `${name}[${idx}]`;
}

/** C expression converting a compute value `v` (of the dtype's kind) to its storage type. */
export function toStorage(dtype: DTypeName, v: string): string {
  if (dtype === 'float16') return `mx_f2h(${v})`;
  if (dtype === 'bfloat16') return `mx_f2bf(${v})`;
  if (dtype === 'bool') return `(unsigned char)((${v}) != 0)`;
  return `(${ctype(dtype).storage})(${v})`;
}

/** C literal of kind `kind` for the JS number `v` (NaN and infinities through bit patterns). */
export function literalC(kind: Kind, v: number): string {
  if (kind === 'f32' || kind === 'f64') {
    if (Number.isNaN(v))
      return kind === 'f32' ? '__int_as_float(0x7fc00000)' : '__longlong_as_double(0x7ff8000000000000LL)';
    if (!Number.isFinite(v)) {
      const inf =
        kind === 'f32' ? '__int_as_float(0x7f800000)' : '__longlong_as_double(0x7ff0000000000000LL)';
      return v > 0 ? inf : `(-${inf})`;
    }
    if (Object.is(v, -0)) return kind === 'f32' ? '(-0.0f)' : '(-0.0)';
    const t = kind === 'f32' ? String(Math.fround(v)) : String(v);
    const s = /[.en]/.test(t) ? t : `${t}.0`;
    return kind === 'f32' ? `${s}f` : s;
  }
  if (kind === 'bool') return v !== 0 ? 'true' : 'false';
  const t = Number.isFinite(v) ? Math.trunc(v) : 0;
  if (kind === 'i64') {
    if (t >= 2 ** 63) return '9223372036854775807LL';
    if (t <= -(2 ** 63)) return '(-9223372036854775807LL - 1LL)';
    return `${t}LL`;
  }
  if (kind === 'i32') {
    const c = Math.max(-2147483648, Math.min(2147483647, t));
    return c === -2147483648 ? '(-2147483647 - 1)' : `${c}`;
  }
  return `(${KIND_C[kind]})(${t | 0})`;
}

/**
 * Definitions every kernel source starts with. No #include: NVRTC has no system headers, and the
 * 16-bit conversions are single PTX instructions or bit arithmetic.
 */
export const PRELUDE = `struct MxDims { long long v[${MAXD}]; };
__device__ __forceinline__ float mx_h2f(unsigned short h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
__device__ __forceinline__ unsigned short mx_f2h(float f) { unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
__device__ __forceinline__ float mx_bf2f(unsigned short b) { return __uint_as_float(((unsigned)b) << 16); }
__device__ __forceinline__ unsigned short mx_f2bf(float f) {
  unsigned u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (unsigned short)(u >> 16);
}
#define MX_GRID_LOOP(i, n) for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (long long)blockDim.x * gridDim.x)
`;

/** Threads per block of 1-D kernels. */
export const BLOCK = 256;

/** Blocks for a grid-stride loop over `n` items (capped: each thread loops over the rest). */
export function blocksFor(n: number): number {
  return Math.max(1, Math.min(Math.ceil(n / BLOCK), 65535 * 4));
}

/** A kernel's source (without the prelude) and its entry point. */
export interface CudaSource {
  /** The `extern "C" __global__` function to launch. */
  readonly entry: string;
  /** CUDA C after the prelude. */
  readonly code: string;
}

/** Kernel argument kinds and the C parameter types they bind to. */
export const ARG_C_TYPES = {
  ptr: '*',
  i32: 'int',
  u32: 'unsigned',
  i64: 'long long',
  f32: 'float',
  f64: 'double',
  dims: 'MxDims',
} as const;

/** One launch argument: a device address, a scalar, or an MxDims (at most MAXD values). */
export type KernelArg =
  | { readonly t: 'ptr'; readonly v: number }
  | { readonly t: 'i32' | 'u32' | 'i64' | 'f32' | 'f64'; readonly v: number }
  | { readonly t: 'dims'; readonly v: readonly number[] };

/** The scalar argument type carrying a value of compute kind `kind`. */
export function argTypeOf(kind: Kind): 'f32' | 'f64' | 'i32' | 'i64' {
  return kind === 'f32' ? 'f32' : kind === 'f64' ? 'f64' : kind === 'i64' ? 'i64' : 'i32';
}

const SOURCES = new Map<string, CudaSource>();

/**
 * The source of specialisation `key` of a kernel family member `prefix`, built once per process:
 * `build(entry)` returns CUDA C defining `extern "C" __global__ void <entry>(...)`. Generation is a
 * pure function of (prefix, key), so one memo serves every family (codegen never runs per call).
 */
export function cachedSource(prefix: string, key: string, build: (entry: string) => string): CudaSource {
  const k = `${prefix}|${key}`;
  let s = SOURCES.get(k);
  if (s === undefined) {
    const entry = `mx_${prefix.replace(/[^A-Za-z0-9]/g, '_')}_${hashText(k)}`;
    s = { entry, code: build(entry) };
    SOURCES.set(k, s);
  }
  return s;
}

/** Stable short hash of a string (FNV-1a, 52 bits) for kernel entry names and cache files. */
export function hashText(s: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) >>> 0;
  }
  return h1.toString(16).padStart(8, '0') + (h2 & 0xfffff).toString(16).padStart(5, '0');
}
