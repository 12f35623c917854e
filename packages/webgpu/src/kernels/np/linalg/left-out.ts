/**
 * np linalg ops cpu-wasm runs and webgpu does not, each with the reason (the coverage test requires
 * every cpu-wasm op to have a webgpu kernel or an entry here). Decompositions are iterative with
 * data-dependent convergence and pivoting on small matrices — a poor fit for WGSL and f32-only
 * storage; docs/design/np.md routes np.linalg on gpu(0) through cpu(0) (copy, run, copy back).
 * Batched WGSL Cholesky/LU for n <= 32 is a later item.
 */
const DECOMP =
  'runs on cpu(0): pivoted/iterative factorisation with data-dependent control flow (docs/design/np.md, np.linalg on WebGPU)';
const GRAD = 'backward of a decomposition that runs on cpu(0); its forward factors live there';

export const LEFT_OUT: Readonly<Record<string, string>> = {
  _linalg_det: `${DECOMP}; LU with partial pivoting`,
  _linalg_slogdet: `${DECOMP}; LU with partial pivoting`,
  _linalg_inverse: `${DECOMP}; LU with partial pivoting`,
  _npi_solve: `${DECOMP}; LU with partial pivoting`,
  _npi_tensorinv: `${DECOMP}; LU with partial pivoting`,
  _npi_tensorsolve: `${DECOMP}; LU with partial pivoting`,
  _npi_cholesky: `${DECOMP}; Cholesky with a positive-definiteness check`,
  _npi_qr: `${DECOMP}; Householder QR`,
  _npi_svd: `${DECOMP}; one-sided Jacobi SVD (iterative)`,
  _npi_eigh: `${DECOMP}; tridiagonalisation + implicit QL (iterative)`,
  _npi_eigvalsh: `${DECOMP}; tridiagonalisation + implicit QL (iterative)`,
  _npi_eig: `${DECOMP}; Hessenberg + shifted QR (iterative), float64 needed for accuracy`,
  _npi_eigvals: `${DECOMP}; Hessenberg + shifted QR (iterative), float64 needed for accuracy`,
  _npi_pinv: `${DECOMP}; SVD-based`,
  _npi_pinv_scalar_rcond: `${DECOMP}; SVD-based`,
  _npi_matrix_rank: `${DECOMP}; SVD-based, int64 output (no 64-bit integers on WebGPU)`,
  _npi_matrix_rank_none_tol: `${DECOMP}; SVD-based, int64 output (no 64-bit integers on WebGPU)`,
  _backward_linalg_det: GRAD,
  _backward_linalg_slogdet: GRAD,
  _backward_linalg_inverse: GRAD,
  _backward_npi_solve: GRAD,
  _backward_npi_tensorinv: GRAD,
  _backward_npi_tensorsolve: GRAD,
  _backward_linalg_potrf: GRAD,
  _backward_npi_qr: GRAD,
  _backward_npi_svd: GRAD,
};
