/**
 * The field readers shared by dense and sparse MXNet records (mxnet-record.ts, mxnet-sparse.ts):
 * `mxnet::TShape` (i32 ndim + i64 dims), dtype flags and data extents. Kept apart so the sparse
 * part of a record can be read by its own module without an import cycle.
 */
import { ALL_DTYPES, DType, type DTypeName, dtypeFromFlag, shapeToString } from '@mx/base';
import type { ByteReader } from './bytes.js';
import { elementCount } from './types.js';

/** Bytes of `shape` x `dtype`; a truncation error unless they are all in the file. */
export function dataSize(r: ByteReader, dtype: DTypeName, shape: readonly number[], what: string): number {
  const n = shape.includes(0) ? 0 : elementCount(shape) * DType[dtype].bytes;
  if (!Number.isSafeInteger(n)) {
    throw r.corrupt(`shape ${shapeToString(shape)} is too large for any file`, r.pos);
  }
  r.need(n, what);
  return n;
}

/**
 * TShape: i32 ndim + ndim x i64. Returns null for "none": ndim -1 or a dim of -1 when `unknownIsNone`
 * (np semantics, V1), ndim 0 when `zeroIsNone` (legacy semantics). Other negatives are corruption.
 */
export function readShape(r: ByteReader, unknownIsNone: boolean, zeroIsNone: boolean): number[] | null {
  const at = r.pos;
  const ndim = r.i32('shape ndim');
  if (ndim === -1 && unknownIsNone) return null;
  if (ndim < 0) throw r.corrupt(`shape ndim ${ndim} is negative`, at);
  r.need(ndim * 8, `${ndim} shape dims`);
  const shape: number[] = [];
  let none = ndim === 0 && zeroIsNone;
  for (let i = 0; i < ndim; i++) {
    const dimAt = r.pos;
    const d = r.i64('shape dim');
    if (d === -1 && unknownIsNone) none = true;
    else if (d < 0) throw r.corrupt(`shape dim ${i} is ${d}`, dimAt);
    shape.push(d);
  }
  return none ? null : shape;
}

/** An i32 dtype flag; unknown flags are corruption. */
export function readDType(r: ByteReader, what: string): DTypeName {
  const at = r.pos;
  const flag = r.i32(what);
  if (flag < 0 || flag >= ALL_DTYPES.length) {
    throw r.corrupt(`unknown dtype flag ${flag} (MXNet's flags are 0..${ALL_DTYPES.length - 1})`, at);
  }
  return dtypeFromFlag(flag).name;
}
