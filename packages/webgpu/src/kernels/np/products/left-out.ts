/**
 * np products ops cpu-wasm runs and webgpu does not, each with the reason (the coverage test requires
 * every cpu-wasm op to have a webgpu kernel or an entry here).
 */
const EINSUM =
  "not yet lowered on webgpu: the plan (@mx/ops planEinsum) needs a WGSL multiply-and-sum over strided windows for its non-GEMM steps (diagonals, broadcasts, elementwise products, several operands at once); its GEMM steps could reuse webgpu's batch_dot kernel. Until then np.einsum on gpu(0) needs the operands on cpu(0)";

export const LEFT_OUT: Readonly<Record<string, string>> = {
  _npi_einsum: EINSUM,
  _backward_npi_einsum: EINSUM,
};
