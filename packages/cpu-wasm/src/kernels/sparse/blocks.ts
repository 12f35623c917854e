/**
 * Helpers the sparse reduce/select kernels share for reading and writing blocks: index blocks
 * (int64 as BigInt64Array, int32, or a dense index array of any dtype) read as numbers once per
 * block, index writes that work for either aux dtype, the CSR row-pointer checks that keep a
 * malformed input from being read out of bounds, and MXNetError construction naming the op.
 *
 * Views of the wasm memory detach when it grows, which a sparse output's `alloc` may do: values
 * needed across an `alloc` are copied here (`indexCopy`), every other view is taken afterwards.
 */
import { MXNetError, type StorageArray } from '@mx/base';
import type { SparseBlob, TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';

export type Blob = TBlob<number>;
export type Sparse = SparseBlob<number>;
/** A typed view read/written element by element (number or bigint elements). */
export type Values = StorageArray & { [i: number]: number | bigint };

const EMPTY = new Float64Array(0);

/** An MXNetError for a kernel-time check (the values are device data, unknown at the call). */
export function kernelError(op: string, message: string, hint: string): MXNetError {
  return new MXNetError(message, { op, hint });
}

/** A view of a blob (empty blobs give an empty array without touching the memory). */
export function viewOf(rt: CpuWasmRuntime, b: Blob): Values {
  return (b.size === 0 ? EMPTY : rt.view(b)) as Values;
}

/**
 * The values of an index block as numbers: a copy (JS-owned, valid across `alloc`) for int64 and
 * non-int32 blocks, a live view for int32 unless `copy`.
 */
export function indexNumbers(rt: CpuWasmRuntime, b: Blob, copy = false): ArrayLike<number> {
  if (b.size === 0) return EMPTY;
  const v = rt.view(b);
  if (v instanceof Int32Array) return copy ? v.slice() : v;
  const out = new Float64Array(v.length);
  if (v instanceof BigInt64Array) for (let i = 0; i < v.length; i++) out[i] = Number(v[i]);
  else out.set(v as ArrayLike<number>);
  return out;
}

/** Write `values[from..from+n)` into an int32/int64 index view starting at `at`, adding `shift`. */
export function writeIndices(
  view: StorageArray,
  at: number,
  values: ArrayLike<number>,
  from: number,
  n: number,
  shift = 0,
): void {
  if (view instanceof BigInt64Array) {
    for (let i = 0; i < n; i++) view[at + i] = BigInt((values[from + i] as number) + shift);
    return;
  }
  const v = view as Int32Array;
  if (shift === 0 && values instanceof Int32Array) {
    v.set(values.subarray(from, from + n), at);
    return;
  }
  for (let i = 0; i < n; i++) v[at + i] = (values[from + i] as number) + shift;
}

/** Throws unless indptr is a valid row pointer over `nnz` values (MXNet's check_format rules). */
export function checkIndptr(op: string, ptr: ArrayLike<number>, rows: number, nnz: number): void {
  if (ptr.length !== rows + 1)
    throw kernelError(op, `malformed CSR: indptr has ${ptr.length} entries for ${rows} rows`, FORMAT_HINT);
  let prev = 0;
  for (let r = 0; r <= rows; r++) {
    const p = ptr[r] as number;
    if (!(p >= prev && p <= nnz) || (r === 0 && p !== 0))
      throw kernelError(op, `malformed CSR: indptr[${r}] = ${p} (nnz ${nnz})`, FORMAT_HINT);
    prev = p;
  }
  if (prev !== nnz)
    throw kernelError(op, `malformed CSR: indptr ends at ${prev}, but nnz is ${nnz}`, FORMAT_HINT);
}

/** Throws unless every index lies in [0, bound). */
export function checkRange(op: string, what: string, ix: ArrayLike<number>, bound: number): void {
  for (let i = 0; i < ix.length; i++) {
    const v = ix[i] as number;
    if (!(v >= 0 && v < bound))
      throw kernelError(op, `malformed ${what}: ${v} at position ${i} is outside [0, ${bound})`, FORMAT_HINT);
  }
}

/** Row `r`'s position in the strictly ascending `rows[0..n)`, or -1 (binary search). */
export function findRow(rows: ArrayLike<number>, n: number, r: number): number {
  let lo = 0;
  let hi = n - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = rows[mid] as number;
    if (v === r) return mid;
    if (v < r) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** First position in ascending `ix[from..to)` whose value is >= `v`. */
export function lowerBound(ix: ArrayLike<number>, from: number, to: number, v: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((ix[mid] as number) < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const FORMAT_HINT = 'check the sparse array with checkFormat()';
