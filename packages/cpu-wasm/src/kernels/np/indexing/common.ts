/**
 * Shared pieces of the np indexing kernels: reading a mask (any dtype) as 0/1 bytes, index arrays
 * as integers, and moving element blocks as bytes (the kernels never interpret the data, so one
 * byte copy serves every dtype). Every kernel validates everything data-dependent in a first pass
 * before its first write, so a failing call leaves its output (and `out=` arrays) untouched.
 */
import { DType, MXNetError } from '@mx/base';
import { OpReq, type OpReqType, type TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';

export type Blob = TBlob<number>;
export const BACKEND = 'cpu-wasm';

/** `prod(shape[from:to])`. */
export function prod(shape: readonly number[], from = 0, to = shape.length): number {
  let n = 1;
  for (let i = from; i < to; i++) n *= shape[i] as number;
  return n;
}

/** The mask's elements as 0/1 (NumPy truthiness: nonzero, NaN true, -0 false). */
export function readMask(rt: CpuWasmRuntime, blob: Blob): Uint8Array {
  const out = new Uint8Array(blob.size);
  if (blob.size === 0) return out;
  const v = rt.view(blob);
  if (blob.dtype === 'float16' || blob.dtype === 'bfloat16') {
    for (let i = 0; i < blob.size; i++) out[i] = ((v[i] as number) & 0x7fff) !== 0 ? 1 : 0;
  } else if (DType[blob.dtype].bigint) {
    for (let i = 0; i < blob.size; i++) out[i] = (v[i] as bigint) !== 0n ? 1 : 0;
  } else {
    for (let i = 0; i < blob.size; i++) out[i] = (v[i] as number) !== 0 ? 1 : 0;
  }
  return out;
}

/** An index array's values as (truncated) integers. */
export function readInts(rt: CpuWasmRuntime, blob: Blob): Float64Array {
  const out = new Float64Array(blob.size);
  if (blob.size === 0) return out;
  const v = rt.view(blob);
  if (blob.dtype === 'float16' || blob.dtype === 'bfloat16')
    throw new MXNetError(`index arrays of ${blob.dtype} are not supported`, {
      dtypes: [blob.dtype],
      device: BACKEND,
      hint: 'use an integer index array',
    });
  if (DType[blob.dtype].bigint) for (let i = 0; i < blob.size; i++) out[i] = Number(v[i] as bigint);
  else for (let i = 0; i < blob.size; i++) out[i] = Math.trunc(v[i] as number) || 0;
  return out;
}

/** Bytes of the whole memory (take it after any allocation). */
export function bytes(rt: CpuWasmRuntime): Uint8Array {
  return new Uint8Array(rt.memory.buffer);
}

/** Out-of-place writes start from a copy of the array written (in place: nothing to do). */
export function copyBase(rt: CpuWasmRuntime, base: Blob, out: Blob): void {
  if (rt.address(base) !== rt.address(out)) rt.copyBlob(out, base);
}

/** Writes of these kernels overwrite; `add` has no meaning for an assignment (refused). */
export function checkWriteReq(op: string, req: OpReqType | undefined): boolean {
  if (req === OpReq.null) return false;
  if (req === OpReq.add)
    throw new MXNetError(`${op} cannot add into its output (req=add)`, {
      op,
      device: BACKEND,
      hint: 'write into a new array (req=write) or in place',
    });
  return true;
}

/** NumPy's IndexError text for an index out of range. */
export function outOfBounds(
  op: string,
  value: number,
  axis: number,
  size: number,
  shapes: Blob[],
): MXNetError {
  return new MXNetError(`index ${value} is out of bounds for axis ${axis} with size ${size}`, {
    op,
    device: BACKEND,
    shapes: shapes.map((b) => [...b.shape]),
    hint: `indices along axis ${axis} must lie in [${-size}, ${size - 1}]`,
  });
}
