/**
 * Shared host-side pieces of the cuda-native shape kernels: registration, the small shape
 * arithmetic every op needs (normalised axes, dense strides, products), the C types that move raw
 * elements of 1/2/4/8 bytes (so copies are dtype-agnostic), scalar launch arguments that carry a
 * fill value in any dtype, and the index type a generated kernel decomposes element indices in
 * (32-bit where the element count allows: 64-bit division is slow on the GPU).
 */
import { type DTypeName, MXNetError } from '@mx/base';
import type { Attrs, OpRegistry, OpReqType } from '@mx/ops';
import { OpReq } from '@mx/ops';
import { CUDA_DTYPES, ctype, type KernelArg } from '../../cuda-c.js';
import { CUDA, type CudaBlob, type CudaCompute, type CudaHost, cudaKernel } from '../../kernel.js';

export const norm = (a: number, n: number): number => (a < 0 ? a + n : a);

export function prod(shape: readonly number[], from = 0, to = shape.length): number {
  let n = 1;
  for (let i = from; i < to; i++) n *= shape[i] as number;
  return n;
}

/** Row-major strides in elements of a dense array of `shape`. */
export function denseStrides(shape: readonly number[]): number[] {
  const s = new Array<number>(shape.length);
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    s[i] = acc;
    acc *= shape[i] as number;
  }
  return s;
}

/** Dtypes with add arithmetic in cpu-wasm's scatter/sum kernels (the gradients that sum). */
export const SUM_DTYPES: readonly DTypeName[] = ['float32', 'float64', 'int32', 'int64', 'int8', 'uint8'];

/** Register `fn` for `name` on cuda (only when the op is defined). */
export function reg<A extends Attrs>(
  registry: OpRegistry,
  host: CudaHost,
  name: string,
  fn: CudaCompute<A>,
  dtypes: readonly DTypeName[] = CUDA_DTYPES,
): void {
  if (!registry.has(name)) return;
  registry.registerKernel(name, CUDA, cudaKernel<A>(host, name, fn, dtypes));
}

/** True when `req` asks for nothing or the output is empty. */
export function skip(req: OpReqType | undefined, out: CudaBlob | undefined): boolean {
  return req === undefined || req === OpReq.null || out === undefined || out.size === 0;
}

/** The unsigned C type moving raw elements of `bytes` bytes. */
export function rawType(bytes: number): string {
  switch (bytes) {
    case 1:
      return 'unsigned char';
    case 2:
      return 'unsigned short';
    case 4:
      return 'unsigned int';
    default:
      return 'unsigned long long';
  }
}

/** Element size of `dtype` in bytes (an MXNetError naming the op for dtypes cuda cannot hold). */
export function itemBytes(dtype: DTypeName, op: string): number {
  return ctype(dtype, op).bytes;
}

/** C parameter type and launch argument carrying value `v` as dtype `dtype` computes it. */
export function scalarParam(dtype: DTypeName, v: number, op: string): { c: string; arg: KernelArg } {
  const kind = ctype(dtype, op).kind;
  if (kind === 'f32') return { c: 'float', arg: { t: 'f32', v } };
  if (kind === 'f64') return { c: 'double', arg: { t: 'f64', v } };
  if (kind === 'bool') return { c: 'int', arg: { t: 'i32', v: v !== 0 && !Number.isNaN(v) ? 1 : 0 } };
  // cpu-wasm's encodeScalar: integers truncate, non-finite values become 0, narrow types wrap.
  const t = Number.isFinite(v) ? Math.trunc(v) : 0;
  if (kind === 'i64') return { c: 'long long', arg: { t: 'i64', v: t } };
  return { c: 'int', arg: { t: 'i32', v: t | 0 } };
}

/** The C type element indices are decomposed in for a launch over `n` items. */
export function indexType(n: number): 'unsigned' | 'unsigned long long' {
  return n < 2 ** 32 - 1 ? 'unsigned' : 'unsigned long long';
}

/** An MXNetError for a kernel-level problem (shapes the op definition let through, limits). */
export function kernelError(op: string, msg: string, extra: { shapes?: number[][]; hint?: string } = {}) {
  return new MXNetError(msg, {
    op,
    device: 'gpu',
    ...(extra.shapes === undefined ? {} : { shapes: extra.shapes }),
    hint: extra.hint ?? 'run this op on cpu(0)',
  });
}

/** Byte range [lo, hi) an N-d window touches (`ptr` = element [0, ..., 0]). */
export function byteSpan(
  ptr: number,
  shape: readonly number[],
  strides: readonly number[],
  bytes: number,
): [number, number] {
  let lo = ptr;
  let hi = ptr;
  shape.forEach((n, i) => {
    const s = (strides[i] as number) * bytes;
    if (s > 0) hi += (n - 1) * s;
    else lo += (n - 1) * s;
  });
  return [lo, hi + bytes];
}
