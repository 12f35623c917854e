/**
 * np products ops cpu-wasm runs and webgpu does not, each with the reason (the coverage test requires
 * every cpu-wasm op to have a webgpu kernel or an entry here).
 */
const EINSUM =
  "not yet lowered on webgpu: the plan (@mx/ops planEinsum) needs a WGSL multiply-and-sum over strided windows for its non-GEMM steps (diagonals, broadcasts, elementwise products, several operands at once); its GEMM steps could reuse webgpu's batch_dot kernel. Until then np.einsum on gpu(0) needs the operands on cpu(0)";

const LOWERED =
  "lowered onto einsum's executor on cpu-wasm (@mx/ops lowerProduct); on webgpu it needs the same einsum lowering (its GEMM steps could reuse webgpu's batch_dot kernel). Until then the op needs its operands on cpu(0)";
const TRACE =
  'a strided diagonal sum (offset, axis1, axis2) written as a cpu-wasm loop; no WGSL kernel yet. Until then np.trace on gpu(0) needs the operand on cpu(0)';

export const LEFT_OUT: Readonly<Record<string, string>> = {
  _npi_einsum: EINSUM,
  _backward_npi_einsum: EINSUM,
  _npi_matmul: LOWERED,
  _backward_np_matmul: LOWERED,
  _npi_dot: LOWERED,
  _backward_npi_dot: LOWERED,
  _npi_tensordot: LOWERED,
  _backward_npi_tensordot: LOWERED,
  _npi_tensordot_int_axes: LOWERED,
  _backward_npi_tensordot_int_axes: LOWERED,
  _npi_kron: LOWERED,
  _backward_npi_kron: LOWERED,
  _npi_trace: TRACE,
  _backward_npi_trace: TRACE,
};
