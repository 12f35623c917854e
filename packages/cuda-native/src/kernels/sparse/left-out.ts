/**
 * Ops of the sparse family that cpu-wasm runs and cuda-native does not yet, each with the reason. The
 * coverage test requires every cpu-wasm op to have a cuda kernel or an entry in some family's list.
 * Every op here reads or writes csr / row_sparse blocks, whose sizes (nnz, kept rows) a dense →
 * sparse cast learns only from a pass over the data: MXNet's GPU kernel copies that count to the
 * host before `SparseOutput.alloc`, and CudaRuntime has no device-to-host read for a kernel yet.
 */
const NEEDS_READ =
  "dense → sparse needs the nnz / kept-row count on the host before SparseOutput.alloc (MXNet's cast_storage-inl.cuh copies it back); CudaRuntime offers no device-to-host read to a kernel yet, so cast_storage runs on cpu(0)";
const SPARSE_ONLY =
  'sparse storage only, and cuda-native has no sparse kernels yet (cast_storage first, see its entry); run it on cpu(0)';

export const LEFT_OUT: Readonly<Record<string, string>> = {
  cast_storage: NEEDS_READ,
  _sparse_retain: SPARSE_ONLY,
  _backward_sparse_retain: SPARSE_ONLY,
  _square_sum: SPARSE_ONLY,
  _backward_square_sum: SPARSE_ONLY,
  _contrib_getnnz: SPARSE_ONLY,
  _sparse_adagrad_update: SPARSE_ONLY,
  _contrib_group_adagrad_update: SPARSE_ONLY,
};
