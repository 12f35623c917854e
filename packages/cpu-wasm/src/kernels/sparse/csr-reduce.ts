/**
 * Reductions over sparse blocks on cpu-wasm: `sum`/`mean` of a CSR matrix over axis 0 or 1 (MXNet
 * `ReduceCsrImpl`), `norm` ord 2 of CSR/row_sparse over all axes (`L2NormComputeSparseImpl`) or
 * of CSR over axis 0 or 1, `_contrib_getnnz` (MXNet `NNZComputeCsrImpl`; axis 0 served as SciPy
 * counts it) and `_square_sum` with its backward (MXNet `square_sum-inl.h`).
 *
 * Every reduction accumulates in float64 (int64 data in BigInt) and casts once when storing — at
 * least as accurate as MXNet's float32 Kahan sums; integer sums wrap to the dtype before `mean`
 * divides (truncating), as MXNet's integer arithmetic does. Each loop reads the data block once.
 */
import type { DTypeName } from '@mx/base';
import type { OpReqType, SparseOutput, StorageType } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import { converterTo, storerFor } from '../reduce/convert.js';
import {
  type Blob,
  checkIndptr,
  checkRange,
  indexNumbers,
  kernelError,
  type Sparse,
  viewOf,
  writeIndices,
} from './blocks.js';

export interface AxesAttrs {
  readonly axis: readonly number[] | null;
  readonly keepdims: boolean;
  readonly exclude: boolean;
}

export interface NormAttrs {
  readonly ord: number;
  readonly axis: readonly number[] | null;
  readonly keepdims: boolean;
}

type Stypes = readonly StorageType[];

/** The single axis 0 or 1 of `axis`, or undefined. */
function axis01(axis: readonly number[] | null): 0 | 1 | undefined {
  return axis !== null && axis.length === 1 && (axis[0] === 0 || axis[0] === 1) ? axis[0] : undefined;
}

/** MXNet `ReduceAxesOpForwardStorage`: sum/mean of csr over axis 0 or 1, no keepdims/exclude. */
export function sumCsrServed(a: AxesAttrs, inSt: Stypes): boolean {
  return inSt[0] === 'csr' && axis01(a.axis) !== undefined && !a.keepdims && !a.exclude;
}

/** MXNet `LpNormStorageType`: ord 2 of csr/rsp over all axes, or of csr over axis 0/1 (no keepdims). */
export function normServed(a: NormAttrs, inSt: Stypes): boolean {
  if (a.ord !== 2 || inSt[0] === 'default') return false;
  if (a.axis === null || a.axis.length === 0) return true;
  return inSt[0] === 'csr' && axis01(a.axis) !== undefined && !a.keepdims;
}

/**
 * Per-row or per-column sums of a CSR matrix's values (`square`: of their squares) as float64, or
 * as BigInt for int64 data.
 */
function csrSums(
  rt: CpuWasmRuntime,
  op: string,
  src: Sparse,
  axis: 0 | 1,
  square: boolean,
): Float64Array | BigInt64Array {
  const rows = src.shape[0] as number;
  const cols = src.shape[1] as number;
  const nnz = src.storageShape[0] as number;
  const ptr = indexNumbers(rt, src.aux[0] as Blob);
  checkIndptr(op, ptr, rows, nnz);
  const n = axis === 0 ? cols : rows;
  const x = viewOf(rt, src.data);
  if (x instanceof BigInt64Array && !square) {
    const acc = new BigInt64Array(n);
    if (axis === 1) {
      for (let r = 0; r < rows; r++) {
        let s = 0n;
        for (let j = ptr[r] as number, e = ptr[r + 1] as number; j < e; j++) s += x[j] as bigint;
        acc[r] = BigInt.asIntN(64, s);
      }
      return acc;
    }
    const idx = indexNumbers(rt, src.aux[1] as Blob);
    checkRange(op, 'CSR column indices', idx, cols);
    for (let j = 0; j < nnz; j++) {
      const c = idx[j] as number;
      acc[c] = BigInt.asIntN(64, (acc[c] as bigint) + (x[j] as bigint));
    }
    return acc;
  }
  const v = (x instanceof BigInt64Array ? Float64Array.from(x, Number) : x) as ArrayLike<number>;
  const acc = new Float64Array(n);
  if (axis === 1) {
    for (let r = 0; r < rows; r++) {
      let s = 0;
      const e = ptr[r + 1] as number;
      if (square)
        for (let j = ptr[r] as number; j < e; j++) {
          const t = v[j] as number;
          s += t * t;
        }
      else for (let j = ptr[r] as number; j < e; j++) s += v[j] as number;
      acc[r] = s;
    }
    return acc;
  }
  const idx = indexNumbers(rt, src.aux[1] as Blob);
  checkRange(op, 'CSR column indices', idx, cols);
  if (square)
    for (let j = 0; j < nnz; j++) {
      const t = v[j] as number;
      const c = idx[j] as number;
      acc[c] = (acc[c] as number) + t * t;
    }
  else
    for (let j = 0; j < nnz; j++) {
      const c = idx[j] as number;
      acc[c] = (acc[c] as number) + (v[j] as number);
    }
  return acc;
}

/** Store `values` into `y` with req, after `post` (mean's division, norm's square root). */
function storeAll(
  rt: CpuWasmRuntime,
  op: string,
  y: Blob,
  req: OpReqType,
  values: ArrayLike<number | bigint>,
  post: (v: number | bigint) => number | bigint = (v) => v,
): void {
  if (y.size === 0) return;
  const store = storerFor(rt.view(y), y.dtype, req, op);
  for (let i = 0; i < values.length; i++) store(i, post(values[i] as number | bigint));
}

/** sum/mean of a CSR matrix over axis 0 or 1 into the dense `y`. */
export function sumCsr(
  rt: CpuWasmRuntime,
  op: 'sum' | 'mean',
  a: AxesAttrs,
  src: Sparse,
  y: Blob,
  req: OpReqType,
): void {
  const axis = axis01(a.axis);
  if (axis === undefined || a.keepdims || a.exclude)
    throw kernelError(op, `${op}(csr) only supports axis 0 or 1 without keepdims/exclude`, 'a kernel bug');
  const sums = csrSums(rt, op, src, axis, false);
  if (op === 'sum') {
    storeAll(rt, op, y, req, sums);
    return;
  }
  const count = src.shape[axis] as number;
  const dt = y.dtype;
  const wrap = converterTo(dt, op);
  let post: (v: number | bigint) => number | bigint;
  if (dt === 'int64') post = (v) => (count === 0 ? 0n : (v as bigint) / BigInt(count));
  else if (dt === 'float32' || dt === 'float64') post = (v) => (v as number) / count;
  else post = (v) => (count === 0 ? 0 : Math.trunc((wrap(v) as number) / count));
  storeAll(rt, op, y, req, sums, post);
}

/** norm ord 2 of a sparse array (over all axes, or of CSR over axis 0 or 1) into the dense `y`. */
export function normSparse(rt: CpuWasmRuntime, a: NormAttrs, src: Sparse, y: Blob, req: OpReqType): void {
  const op = 'norm';
  if (!normServed(a, [src.stype]))
    throw kernelError(op, 'this norm of a sparse array has no sparse kernel', 'a kernel bug');
  const sqrt = (v: number | bigint) => Math.sqrt(v as number);
  if (a.axis === null || a.axis.length === 0) {
    // Every stored value counts once (the aux blocks do not matter for the total).
    const x = viewOf(rt, src.data);
    let s = 0;
    for (let i = 0; i < x.length; i++) {
      const t = Number(x[i]);
      s += t * t;
    }
    storeAll(rt, op, y, req, [s], sqrt);
    return;
  }
  storeAll(rt, op, y, req, csrSums(rt, op, src, axis01(a.axis) as 0 | 1, true), sqrt);
}

/** `_contrib_getnnz`: stored values of a CSR matrix in all, per column (axis 0) or per row (axis 1). */
export function getnnz(rt: CpuWasmRuntime, axis: number | null, src: Sparse, y: Blob, req: OpReqType): void {
  const op = '_contrib_getnnz';
  const rows = src.shape[0] as number;
  const cols = src.shape[1] as number;
  const nnz = src.storageShape[0] as number;
  const ptr = indexNumbers(rt, src.aux[0] as Blob);
  checkIndptr(op, ptr, rows, nnz);
  if (axis === null) {
    storeAll(rt, op, y, req, [nnz]);
    return;
  }
  const counts = new Float64Array(axis === 0 ? cols : rows);
  if (axis === 1) for (let r = 0; r < rows; r++) counts[r] = (ptr[r + 1] as number) - (ptr[r] as number);
  else {
    const idx = indexNumbers(rt, src.aux[1] as Blob);
    checkRange(op, 'CSR column indices', idx, cols);
    for (let j = 0; j < nnz; j++) (counts[idx[j] as number] as number)++;
  }
  storeAll(rt, op, y, req, counts);
}

/** Dtypes `_square_sum` serves (float: it exists for gradients' norms). */
export const SQUARE_SUM_DTYPES: readonly DTypeName[] = ['float32', 'float64'];

/** `_square_sum` of a 2-D row_sparse array: axis 0 or axis 1 → dense `y`, axis 1 keepdims → rsp. */
export function squareSum(
  rt: CpuWasmRuntime,
  axis: 0 | 1,
  src: Sparse,
  out: Blob | SparseOutput<number>,
  req: OpReqType,
): void {
  const op = '_square_sum';
  const rows = src.shape[0] as number;
  const cols = src.shape[1] as number;
  const k = src.storageShape[0] as number;
  const idx = indexNumbers(rt, src.aux[0] as Blob, true);
  checkRange(op, 'row_sparse indices', idx, rows);
  const rowSums = (): Float64Array => {
    const x = viewOf(rt, src.data) as unknown as ArrayLike<number>;
    const s = new Float64Array(k);
    for (let i = 0; i < k; i++) {
      let t = 0;
      for (let c = i * cols, e = c + cols; c < e; c++) t += (x[c] as number) * (x[c] as number);
      s[i] = t;
    }
    return s;
  };
  if ('alloc' in out) {
    // axis 1 with keepdims: the input's stored rows, one value each.
    const s = rowSums();
    out.alloc([k, 1], [[k]]);
    writeIndices(viewOf(rt, out.aux[0] as Blob), 0, idx, 0, k);
    storeAll(rt, op, out.data, req, s);
    return;
  }
  if (axis === 1) {
    const s = rowSums();
    const dense = new Float64Array(rows);
    for (let i = 0; i < k; i++) dense[idx[i] as number] = s[i] as number;
    storeAll(rt, op, out, req, dense);
    return;
  }
  const x = viewOf(rt, src.data) as unknown as ArrayLike<number>;
  const acc = new Float64Array(cols);
  for (let i = 0; i < k; i++)
    for (let c = 0, at = i * cols; c < cols; c++, at++) {
      const t = x[at] as number;
      acc[c] = (acc[c] as number) + t * t;
    }
  storeAll(rt, op, out, req, acc);
}

/**
 * `_backward_square_sum`: 2 * data * ograd (ograd broadcast along the reduced axis), on the input's
 * stored rows; the head gradient is dense or row_sparse.
 */
export function squareSumBackward(
  rt: CpuWasmRuntime,
  axis: 0 | 1,
  og: Blob | Sparse,
  src: Sparse,
  out: SparseOutput<number>,
): void {
  const op = '_backward_square_sum';
  const rows = src.shape[0] as number;
  const cols = src.shape[1] as number;
  const k = src.storageShape[0] as number;
  const idx = indexNumbers(rt, src.aux[0] as Blob, true);
  checkRange(op, 'row_sparse indices', idx, rows);
  // The head gradient as a dense float64 vector over the kept axis (cols for axis 0, rows for 1).
  const g = new Float64Array(axis === 0 ? cols : rows);
  if ('stype' in og) {
    const n = og.shape[0] as number;
    const gi = indexNumbers(rt, og.aux[0] as Blob);
    checkRange(op, 'row_sparse indices of the head gradient', gi, n);
    const gd = viewOf(rt, og.data);
    // (n,) or (n, 1): one value per stored row; (1, cols) (axis 0 with keepdims): its one row.
    if (og.shape.length === 1 || og.shape[1] === 1)
      for (let i = 0; i < gi.length; i++) g[gi[i] as number] = Number(gd[i]);
    else if (gi.length > 0) for (let c = 0; c < cols; c++) g[c] = Number(gd[c]);
  } else {
    const gd = viewOf(rt, og);
    for (let i = 0; i < g.length; i++) g[i] = Number(gd[i]);
  }
  out.alloc([k, cols], [[k]]);
  writeIndices(viewOf(rt, out.aux[0] as Blob), 0, idx, 0, k);
  const x = viewOf(rt, src.data) as unknown as ArrayLike<number>;
  const y = viewOf(rt, out.data) as unknown as Float64Array;
  const conv = converterTo(out.dtype, op) as (v: number) => number;
  for (let i = 0; i < k; i++) {
    const gr = axis === 1 ? (g[idx[i] as number] as number) : 0;
    for (let c = 0, at = i * cols; c < cols; c++, at++)
      y[at] = conv(2 * (x[at] as number) * (axis === 1 ? gr : (g[c] as number)));
  }
}
