/**
 * Selection kernels over CSR on cpu-wasm: `slice` of a CSR matrix (MXNet `SliceCsrImpl`: a row
 * range and a column window, CSR out) and `where(csr condition, dense x, dense y)` (MXNet
 * `WhereOpForwardCsrImpl`: the output starts as y and takes x where a stored condition value is
 * nonzero). The slice finds each row's column window by binary search in its ascending indices, so
 * it costs O(rows · log(row nnz) + output nnz); a window spanning every column copies whole rows.
 */
import { type SparseOutput, sliceStart } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import {
  type Blob,
  checkIndptr,
  checkRange,
  indexNumbers,
  kernelError,
  lowerBound,
  type Sparse,
  viewOf,
  writeIndices,
} from './blocks.js';

export interface SliceAttrs {
  readonly begin: readonly (number | null)[];
  readonly end: readonly (number | null)[];
  readonly step: readonly (number | null)[];
}

/** `slice` of a CSR matrix into the CSR `out`, whose shape inference already sized. */
export function sliceCsr(rt: CpuWasmRuntime, a: SliceAttrs, src: Sparse, out: SparseOutput<number>): void {
  const op = 'slice';
  const rows = src.shape[0] as number;
  const cols = src.shape[1] as number;
  const orows = out.shape[0] as number;
  const ocols = out.shape[1] as number;
  const nnz = src.storageShape[0] as number;
  const { b } = sliceStart(src.shape, a.begin, a.step);
  const r0 = b[0] as number;
  const c0 = b[1] as number;
  const ptr = indexNumbers(rt, src.aux[0] as Blob, true);
  checkIndptr(op, ptr, rows, nnz);
  const idx = indexNumbers(rt, src.aux[1] as Blob, true);
  checkRange(op, 'CSR column indices', idx, cols);
  // [lo, hi) of each output row in the input's blocks.
  const lo = new Float64Array(orows);
  const hi = new Float64Array(orows);
  const optr = new Float64Array(orows + 1);
  const whole = ocols > 0 && c0 === 0 && ocols === cols;
  for (let i = 0; i < orows; i++) {
    const s = ptr[r0 + i] as number;
    const e = ptr[r0 + i + 1] as number;
    if (whole) {
      lo[i] = s;
      hi[i] = e;
    } else if (ocols > 0) {
      const l = lowerBound(idx, s, e, c0);
      lo[i] = l;
      hi[i] = lowerBound(idx, l, e, c0 + ocols);
    }
    optr[i + 1] = (optr[i] as number) + (hi[i] as number) - (lo[i] as number);
  }
  const onnz = optr[orows] as number;
  out.alloc([onnz], [[orows + 1], [onnz]]);
  writeIndices(viewOf(rt, out.aux[0] as Blob), 0, optr, 0, orows + 1);
  if (onnz === 0) return;
  const x = viewOf(rt, src.data) as unknown as Float64Array;
  const y = viewOf(rt, out.data) as unknown as Float64Array;
  const oix = viewOf(rt, out.aux[1] as Blob);
  for (let i = 0; i < orows; i++) {
    const l = lo[i] as number;
    const n = (hi[i] as number) - l;
    if (n === 0) continue;
    const at = optr[i] as number;
    y.set(x.subarray(l, l + n), at);
    writeIndices(oix, at, idx, l, n, -c0);
  }
}

/** `where(csr cond, x, y)` into the dense `out` (all of cond's shape). */
export function whereCsr(rt: CpuWasmRuntime, cond: Sparse, x: Blob, y: Blob, out: Blob): void {
  const op = 'where';
  if (out.size === 0) return;
  const rows = cond.shape[0] as number;
  const cols = cond.shape[1] as number;
  if (x.shape.length !== 2 || x.shape[0] !== rows || x.shape[1] !== cols)
    throw kernelError(op, 'where with a csr condition needs x of the condition’s 2-D shape', 'a kernel bug');
  if (rt.address(out) !== rt.address(y)) rt.copyBlob(out, y);
  const nnz = cond.storageShape[0] as number;
  if (nnz === 0) return;
  const ptr = indexNumbers(rt, cond.aux[0] as Blob);
  checkIndptr(op, ptr, rows, nnz);
  const idx = indexNumbers(rt, cond.aux[1] as Blob);
  checkRange(op, 'CSR column indices', idx, cols);
  const c = viewOf(rt, cond.data);
  const xv = viewOf(rt, x);
  const ov = viewOf(rt, out);
  for (let r = 0; r < rows; r++) {
    const base = r * cols;
    for (let j = ptr[r] as number, e = ptr[r + 1] as number; j < e; j++) {
      // MXNet's `0 != cond`: NaN selects x.
      if (Number(c[j]) !== 0) {
        const at = base + (idx[j] as number);
        ov[at] = xv[at] as number;
      }
    }
  }
}
