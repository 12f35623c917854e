/**
 * Small shared pieces of the shape kernels: the registration wrapper (every kernel of this family
 * moves bytes, so it declares every storable dtype), blob addressing, and `withTarget`, which runs
 * a kernel that can only overwrite into a scratch block when `req` is add and then accumulates the
 * scratch into the output — so multi-pass kernels (Pad, diag, take, pick, one_hot) honour `add`
 * without an accumulate variant of each pass.
 */
import { DType, type DTypeName, MXNetError } from '@mx/base';
import { type Attrs, type OpRegistry, OpReq, type OpReqType, type TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import { copyStrided, dense } from './strided-copy.js';

export const BACKEND = 'cpu-wasm';

/** Every dtype cpu-wasm can store: data movement does not depend on the element type. */
export const ALL_DTYPES: readonly DTypeName[] = Object.freeze(Object.keys(DType) as DTypeName[]);

export type Blob = TBlob<number>;

export type ShapeKernel<A> = (
  attrs: A,
  inputs: readonly Blob[],
  req: readonly OpReqType[],
  outputs: readonly Blob[],
) => void;

/** Register a dense kernel for `name` on cpu-wasm. */
export function defineKernel<A>(registry: OpRegistry, name: string, fn: ShapeKernel<A>): void {
  registry.registerKernel<Attrs>(name, BACKEND, {
    dtypes: ALL_DTYPES,
    compute: (attrs, _ctx, inputs, req, outputs) =>
      fn(attrs as unknown as A, inputs as readonly Blob[], req, outputs as readonly Blob[]),
  });
}

/** Byte address of a blob's first element. */
export function addr(rt: CpuWasmRuntime, b: Blob): number {
  return rt.address(b);
}

/** Copy a whole dense blob into another of the same size (Reshape and friends). */
export function copyBlob(rt: CpuWasmRuntime, src: Blob, dst: Blob, req: OpReqType): void {
  if (req === OpReq.null || dst.size === 0) return;
  const a = addr(rt, src);
  const b = addr(rt, dst);
  if (a === b && req !== OpReq.add) return;
  copyStrided(rt, dst.dtype, [dst.size], { addr: a, strides: [1] }, { addr: b, strides: [1] }, req);
}

/**
 * Run `fn` on a blob it may overwrite: the output itself for write/inplace, a scratch block for add
 * (accumulated into the output afterwards). Skips null requests and zero-size outputs.
 */
export function withTarget(
  rt: CpuWasmRuntime,
  out: Blob,
  req: OpReqType,
  op: string,
  fn: (target: Blob) => void,
): void {
  if (req === OpReq.null || out.size === 0) return;
  if (req !== OpReq.add) {
    fn(out);
    return;
  }
  const bytes = out.size * DType[out.dtype].bytes;
  const alloc = rt.memory.allocator;
  const ptr = alloc.alloc(bytes);
  if (ptr === null)
    throw new MXNetError(`out of memory allocating ${bytes} bytes of scratch for req=add`, {
      op,
      shapes: [out.shape],
      dtypes: [out.dtype],
      device: BACKEND,
    });
  try {
    const tmp: Blob = { ptr, byteOffset: 0, shape: out.shape, dtype: out.dtype, size: out.size };
    fn(tmp);
    copyStrided(
      rt,
      out.dtype,
      [out.size],
      dense(ptr, [out.size]),
      dense(addr(rt, out), [out.size]),
      OpReq.add,
    );
  } finally {
    alloc.free(ptr, bytes);
  }
}

/** Input shape left-padded with 1s to `ndim`, and its strides (0 where padded). */
export function alignRight(
  shape: readonly number[],
  strides: readonly number[],
  ndim: number,
): [number[], number[]] {
  const pad = ndim - shape.length;
  return [
    Array.from({ length: ndim }, (_, i) => (i < pad ? 1 : (shape[i - pad] as number))),
    Array.from({ length: ndim }, (_, i) => (i < pad ? 0 : (strides[i - pad] as number))),
  ];
}
