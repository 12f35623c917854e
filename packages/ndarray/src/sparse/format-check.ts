/**
 * MXNet's sparse format rules (`src/common/utils.h`: `csr_indptr_check`, `csr_idx_check`,
 * `rsp_idx_check` and the shape checks of `CheckFormatCSRImpl`/`CheckFormatRSPImpl`) over host
 * copies of the parts. One function serves `checkFormat()` (after the fact, like MXNet's
 * `check_format`) and the creation functions (before anything is allocated), so both name the same
 * broken rule. Returns the broken rule as text, or undefined when the parts are valid.
 */
import type { SparseStorageType } from '@mx/ops';

/** Host copies of a sparse array's parts (indices as numbers or bigints). */
export interface HostSparseParts {
  readonly stype: SparseStorageType;
  readonly shape: readonly number[];
  readonly storageShape: readonly number[];
  /** Number of data elements (storage shape's size). */
  readonly dataLength: number;
  readonly indices: ArrayLike<number | bigint>;
  readonly indptr?: ArrayLike<number | bigint>;
}

/**
 * The first broken rule, or undefined. `full = false` checks only the shapes (MXNet's O(1)
 * check); `full = true` also the index values (O(nnz)).
 */
export function sparseFormatError(p: HostSparseParts, full = true): string | undefined {
  return p.stype === 'csr' ? csrError(p, full) : rspError(p, full);
}

function csrError(p: HostSparseParts, full: boolean): string | undefined {
  const { shape, storageShape, indices } = p;
  const indptr = p.indptr ?? [];
  // kCSRShapeErr
  if (shape.length !== 2) return `shape: a CSR array is 2-D, got ${shape.length}-D`;
  const [rows, cols] = shape as [number, number];
  if (storageShape.length !== 1) return `shape: the data is 1-D (nnz,), got ${storageShape.length}-D`;
  const nnz = storageShape[0] as number;
  if (indptr.length !== rows + 1)
    return `shape: indptr has rows + 1 = ${rows + 1} entries, got ${indptr.length}`;
  if (indices.length !== nnz)
    return `shape: indices has nnz = ${nnz} entries (one per value), got ${indices.length}`;
  if (p.dataLength !== nnz) return `shape: data has ${p.dataLength} values, indices ${nnz}`;
  if (!full) return undefined;
  // kCSRIndPtrErr
  const ptr = (i: number) => Number(indptr[i]);
  if (ptr(0) !== 0) return `indptr: indptr[0] must be 0, got ${ptr(0)}`;
  for (let r = 0; r < rows; r++) {
    if (ptr(r + 1) < ptr(r))
      return `indptr: must be non-decreasing, indptr[${r + 1}] = ${ptr(r + 1)} < indptr[${r}] = ${ptr(r)}`;
  }
  if (ptr(rows) !== nnz) return `indptr: the last entry must equal nnz = ${nnz}, got ${ptr(rows)}`;
  // kCSRIdxErr
  for (let r = 0; r < rows; r++) {
    for (let j = ptr(r); j < ptr(r + 1); j++) {
      const c = Number(indices[j]);
      if (!(c >= 0 && c < cols))
        return `indices: column ${c} at indices[${j}] (row ${r}) is outside [0, ${cols})`;
      if (j + 1 < ptr(r + 1) && Number(indices[j + 1]) <= c)
        return `indices: must be strictly increasing within a row, row ${r} has ${c} then ${Number(indices[j + 1])}`;
    }
  }
  return undefined;
}

function rspError(p: HostSparseParts, full: boolean): string | undefined {
  const { shape, storageShape, indices } = p;
  // kRSPShapeErr
  if (shape.length === 0) return 'shape: a row_sparse array has at least one axis';
  const k = storageShape[0] ?? -1;
  const rest = shape.slice(1);
  if (storageShape.length !== shape.length || storageShape.slice(1).some((d, i) => d !== rest[i]))
    return `shape: the data is (k, ${rest.join(', ')}), got (${storageShape.join(', ')})`;
  if (indices.length !== k)
    return `shape: indices has k = ${k} entries (one per stored row), got ${indices.length}`;
  if (!full) return undefined;
  // kRSPIdxErr
  const rows = shape[0] as number;
  for (let i = 0; i < k; i++) {
    const r = Number(indices[i]);
    if (!(r >= 0 && r < rows)) return `indices: row ${r} at indices[${i}] is outside [0, ${rows})`;
    if (i + 1 < k && Number(indices[i + 1]) <= r)
      return `indices: must be strictly increasing, indices[${i}] = ${r} then ${Number(indices[i + 1])}`;
  }
  return undefined;
}
