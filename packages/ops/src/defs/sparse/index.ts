/**
 * The sparse family (MXNet's storage-aware ops that exist only for sparse storage): `cast_storage`,
 * `_sparse_retain` (+ backward), `_square_sum` (+ backward) and `_contrib_getnnz`; ops that also
 * serve dense arrays (`dot`, `sum`, `slice`, `where`...) declare their storage inference in their
 * own family (docs/design/sparse.md). The layout helpers are what every package agrees on for the
 * aux blocks' order.
 */
import type { OpRegistry } from '../../registry.js';
import type { SparseStorageType } from '../../types.js';
import { registerCastStorage } from './cast-storage.js';
import { registerGetnnz } from './getnnz.js';
import { registerRetain } from './retain.js';
import { registerSquareSum } from './square-sum.js';

export { STORAGE_TYPES } from './cast-storage.js';

/**
 * The aux blocks of a sparse storage type, in MXNet's order: CSR `[indptr, indices]`
 * (`csr::kIndPtr = 0`, `csr::kIdx = 1`), row_sparse `[indices]` (`rowsparse::kIdx = 0`).
 */
export function sparseAuxNames(stype: SparseStorageType): readonly string[] {
  return stype === 'csr' ? CSR_AUX : RSP_AUX;
}

const CSR_AUX = Object.freeze(['indptr', 'indices']);
const RSP_AUX = Object.freeze(['indices']);

export function registerSparse(registry: OpRegistry): void {
  registerCastStorage(registry);
  registerRetain(registry);
  registerSquareSum(registry);
  registerGetnnz(registry);
}
