/**
 * Sparse-storage ops cpu-wasm runs and webgpu does not, each with the reason. `cast_storage` has a
 * webgpu kernel (cast-storage.ts), so every other op on csr / row_sparse arrays runs on gpu(0)
 * through the storage fallback. The coverage test requires every cpu-wasm op to have a webgpu
 * kernel or an entry here.
 */
const SPARSE_ONLY =
  'sparse storage only, and webgpu has no sparse kernels yet besides cast_storage: run it on cpu(0)';

export const LEFT_OUT: Readonly<Record<string, string>> = {
  _sparse_retain: SPARSE_ONLY,
  _backward_sparse_retain: SPARSE_ONLY,
  _square_sum: SPARSE_ONLY,
  _backward_square_sum: SPARSE_ONLY,
  _contrib_getnnz: SPARSE_ONLY,
  _sparse_adagrad_update: SPARSE_ONLY,
  _contrib_group_adagrad_update: SPARSE_ONLY,
};
