/**
 * Sparse-storage ops cpu-wasm runs and webgpu does not yet, each with the reason (issue 15 puts
 * sparse arrays on cpu-wasm first; webgpu follows with `cast_storage`, then falls back to dense
 * kernels). The coverage test requires every cpu-wasm op to have a webgpu kernel or an entry here.
 */
export const LEFT_OUT: Readonly<Record<string, string>> = {
  cast_storage:
    'sparse storage (csr, row_sparse) is not on webgpu yet: cast on cpu-wasm, then copy the dense array',
};
