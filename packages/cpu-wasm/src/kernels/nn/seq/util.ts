/**
 * Small shared pieces of the seq kernels (Embedding, Sequence*, UpSampling, CTCLoss): kernel
 * registration, float views with a dtype check, reading index-like inputs (lengths, labels) as
 * integers, workspace allocation freed on every path, and writing a float64 result under `req`.
 *
 * Index-like inputs may have any dtype, so kernels register every storable dtype and check the
 * float operands themselves (the op definitions already reject bad dtypes at inference time).
 */
import { DType, type DTypeName, MXNetError } from '@mx/base';
import { type Attrs, type OpRegistry, OpReq, type OpReqType, type TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { readIndices } from '../../shape/dtype-bits.js';

export type Blob = TBlob<number>;

export const BACKEND = 'cpu-wasm';

export const ALL_DTYPES: readonly DTypeName[] = Object.freeze(Object.keys(DType) as DTypeName[]);

export type SeqKernel<A> = (
  attrs: A,
  inputs: readonly Blob[],
  req: readonly OpReqType[],
  outputs: readonly Blob[],
) => void;

/** Register a dense cpu-wasm kernel for `name` over every storable dtype. */
export function defineKernel<A>(registry: OpRegistry, name: string, fn: SeqKernel<A>): void {
  registry.registerKernel<Attrs>(name, BACKEND, {
    dtypes: ALL_DTYPES,
    compute: (attrs, _ctx, inputs, req, outputs) =>
      fn(attrs as unknown as A, inputs as readonly Blob[], req, outputs as readonly Blob[]),
  });
}

export type FloatArray = Float32Array | Float64Array;

/** A float view of `b`; MXNetError naming `op` when `b` is not float32/float64. */
export function floatView(rt: CpuWasmRuntime, b: Blob, op: string, what: string): FloatArray {
  if (b.dtype !== 'float32' && b.dtype !== 'float64') {
    throw new MXNetError(`needs float32 or float64 ${what} on cpu-wasm, got ${b.dtype}`, {
      op,
      dtypes: [b.dtype],
      device: BACKEND,
      hint: `cast ${what} with astype('float32')`,
    });
  }
  return rt.view(b) as FloatArray;
}

/**
 * Read `b` as integers (truncated toward zero, as MXNet's static_cast<int>; NaN reads as 0), as a
 * plain copy that stays valid when the memory grows.
 */
export function readInts(rt: CpuWasmRuntime, b: Blob): Float64Array {
  return readIndices(rt, b.dtype, rt.address(b), b.size);
}

/** Run `fn` with `bytes` of workspace (byte address), freed afterwards, also on throw. */
export function withWorkspace<T>(rt: CpuWasmRuntime, op: string, bytes: number, fn: (ptr: number) => T): T {
  const alloc = rt.memory.allocator;
  const size = Math.max(bytes, 8);
  const ptr = alloc.alloc(size);
  if (ptr === null)
    throw new MXNetError(`out of memory allocating ${size} bytes of workspace`, { op, device: BACKEND });
  try {
    return fn(ptr);
  } finally {
    alloc.free(ptr, size);
  }
}

/** Store `src` into the float view `dst` (offset `at`) under `req` (write/inplace overwrite, add accumulates). */
export function storeFloat(dst: FloatArray, at: number, src: ArrayLike<number>, req: OpReqType): void {
  const n = src.length;
  if (req === OpReq.add)
    for (let i = 0; i < n; i++) dst[at + i] = (dst[at + i] as number) + (src[i] as number);
  else if (req !== OpReq.null) for (let i = 0; i < n; i++) dst[at + i] = src[i] as number;
}

/** Product of dims [from, to). */
export function prod(shape: readonly number[], from = 0, to = shape.length): number {
  let n = 1;
  for (let i = from; i < to; i++) n *= shape[i] as number;
  return n;
}
