/**
 * Ops of the np family that cpu-wasm runs and cuda-native does not yet, each with the reason. The
 * coverage test requires every cpu-wasm op to have a cuda kernel or an entry in some family's list.
 * Elementwise np ops come from the backend's expression compiler and composites from other
 * families' kernels, so neither appears here; what is listed needs a kernel of its own.
 */
const DYNAMIC =
  'data-dependent output shape (Kernel.computeDynamic): the count must reach the host before the output exists, and CudaRuntime has no device-to-host read for a kernel; run it on cpu(0) and copy the result';
const MASK_WRITE =
  'the mask count and prefix sum must be checked against the value before any write (a host read CudaRuntime does not offer); planned with a CUDA compaction kernel';
const DECOMP =
  'pivoted/iterative factorisation with data-dependent control flow; planned with cuSOLVER (getrf/potrf/geqrf/gesvd/syevd), which the addon does not load yet — run np.linalg on cpu(0)';
const DECOMP_GRAD = 'backward of a decomposition that runs on cpu(0) (needs the cuSOLVER factors)';
const SEQUENTIAL = 'sequential draws per call (not a per-element transform of Philox draws)';
const HOST_TINY = 'a handful of index values computed once per call on the host; not yet written as a kernel';

export const LEFT_OUT: Readonly<Record<string, string>> = {
  // indexing
  _contrib_boolean_mask: DYNAMIC,
  _npx_nonzero: DYNAMIC,
  _backward_contrib_boolean_mask: 'backward of the dynamic-shape boolean_mask (its forward runs on cpu(0))',
  _npi_boolean_mask_assign_scalar: MASK_WRITE,
  _npi_boolean_mask_assign_tensor: MASK_WRITE,
  _backward_npi_boolean_mask_assign_tensor_value: `${MASK_WRITE}; then a sum over broadcast axes into the value`,
  // sort
  _npi_unique: `${DYNAMIC}; also needs a device sort (cub radix sort)`,
  // reduce
  _npi_bincount: DYNAMIC,
  _npi_average:
    'a weighted mean whose zero-weight-sum check raises before any write (a host read of the sums); not written yet',
  _backward_np_average: 'gradient of _npi_average, which is left out',
  _npi_percentile: 'sorts every lane (needs a segmented device sort, cub); not written yet — run on cpu(0)',
  _histogram: 'bin search with integer atomics per bin and a data-dependent range; not written yet',
  // linalg
  _linalg_det: `${DECOMP}; LU with partial pivoting`,
  _linalg_slogdet: `${DECOMP}; LU with partial pivoting`,
  _linalg_inverse: `${DECOMP}; LU with partial pivoting`,
  _npi_solve: `${DECOMP}; LU with partial pivoting`,
  _npi_tensorinv: `${DECOMP}; LU with partial pivoting`,
  _npi_tensorsolve: `${DECOMP}; LU with partial pivoting`,
  _npi_cholesky: `${DECOMP}; Cholesky with a positive-definiteness check`,
  _npi_qr: `${DECOMP}; Householder QR`,
  _npi_svd: `${DECOMP}; one-sided Jacobi SVD`,
  _npi_eigh: `${DECOMP}; symmetric eigensolver`,
  _npi_eigvalsh: `${DECOMP}; symmetric eigensolver`,
  _npi_eig: `${DECOMP}; Hessenberg + shifted QR`,
  _npi_eigvals: `${DECOMP}; Hessenberg + shifted QR`,
  _npi_pinv: `${DECOMP}; SVD-based`,
  _npi_pinv_scalar_rcond: `${DECOMP}; SVD-based`,
  _npi_matrix_rank: `${DECOMP}; SVD-based`,
  _npi_matrix_rank_none_tol: `${DECOMP}; SVD-based`,
  _backward_linalg_det: DECOMP_GRAD,
  _backward_linalg_slogdet: DECOMP_GRAD,
  _backward_linalg_inverse: DECOMP_GRAD,
  _backward_npi_solve: DECOMP_GRAD,
  _backward_npi_tensorinv: DECOMP_GRAD,
  _backward_npi_tensorsolve: DECOMP_GRAD,
  _backward_linalg_potrf: DECOMP_GRAD,
  _backward_npi_qr: DECOMP_GRAD,
  _backward_npi_svd: DECOMP_GRAD,
  // random
  _npi_gamma:
    'rejection sampling (Marsaglia–Tsang) loops a data-dependent number of times per element; not written yet',
  _backward_gamma_sample:
    "the implicit gradient evaluates the incomplete gamma function's series / continued fraction; not ported yet",
  _npi_choice: `${SEQUENTIAL}: sampling without replacement is a partial Fisher–Yates / sequential weighted draws`,
  _npi_multinomial: `${SEQUENTIAL}: n categorical draws per sample`,
  _shuffle: `${SEQUENTIAL}: a Fisher–Yates permutation (the row moves could run on the GPU once it is drawn on the host)`,
  // misc
  _npi_tril_indices: HOST_TINY,
  _npi_diag_indices_from: HOST_TINY,
  _unravel_index:
    'int64 indices in, coordinates out, with a bounds check that raises before writing (a host read)',
  _npi_fill_diagonal: 'strided scalar writes of a few elements into a copy; not written yet',
  _npi_ediff1d: 'a 1-D difference with concatenated ends; not written yet',
  _npi_backward_ediff1d: 'a 1-D difference with sliced ends; not written yet',
  _npi_interp:
    'binary search per point over a sorted (or period-wrapped, host-sorted) xp in float64; not written yet',
};
