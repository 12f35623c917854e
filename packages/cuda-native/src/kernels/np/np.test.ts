/**
 * The np family's kernels rendered from every np golden case on a RenderRuntime (no GPU): launch
 * arguments checked against each signature, then every generated source compiled with nvcc and NVRTC.
 */
import { describe, expect, it } from 'vitest';
import { itCompiles } from '../../test-util/compile.js';
import { renderCases } from '../../test-util/render.js';
import { installNp } from './index.js';

const FAMILIES = [
  'np_creation',
  'np_elementwise',
  'np_indexing',
  'np_linalg',
  'np_misc',
  'np_products',
  'np_random',
  'np_reduce',
  'np_shape',
  'np_sort',
];

/** The np ops with kernels here that the golden cases exercise. */
const EXPECTED = [
  '_npi_searchsorted',
  '_npi_einsum',
  '_backward_npi_einsum',
  '_npi_matmul',
  '_backward_np_matmul',
  '_npi_dot',
  '_backward_npi_dot',
  '_npi_tensordot',
  '_backward_npi_tensordot',
  '_npi_tensordot_int_axes',
  '_backward_npi_tensordot_int_axes',
  '_npi_kron',
  '_backward_npi_kron',
  '_backward_gather_nd',
  '_backward_npi_diff',
  '_backward_npi_pad',
  '_backward_npi_repeats',
  '_backward_npi_std',
  '_backward_npi_trace',
  '_backward_npi_var',
  '_backward_tril',
  '_backward_triu',
  '_npi_all',
  '_npi_any',
  '_npi_backward_polyval',
  '_npi_bernoulli',
  '_npi_bitwise_and',
  '_npi_bitwise_and_scalar',
  '_npi_bitwise_left_shift',
  '_npi_bitwise_left_shift_scalar',
  '_npi_bitwise_not',
  '_npi_bitwise_or',
  '_npi_bitwise_or_scalar',
  '_npi_bitwise_right_shift',
  '_npi_bitwise_right_shift_scalar',
  '_npi_bitwise_xor',
  '_npi_bitwise_xor_scalar',
  '_npi_blackman',
  '_npi_diff',
  '_npi_exponential',
  '_npi_gcd',
  '_npi_gcd_scalar',
  '_npi_gumbel',
  '_npi_hamming',
  '_npi_hanning',
  '_npi_indices',
  '_npi_laplace',
  '_npi_lcm',
  '_npi_lcm_scalar',
  '_npi_linspace',
  '_npi_logistic',
  '_npi_logspace',
  '_npi_mean',
  '_npi_normal',
  '_npi_pad',
  '_npi_polyval',
  '_npi_pareto',
  '_npi_powerd',
  '_npi_prod',
  '_npi_rayleigh',
  '_npi_rbitwise_left_shift_scalar',
  '_npi_rbitwise_right_shift_scalar',
  '_npi_repeats',
  '_npi_roll',
  '_npi_rot90',
  '_npi_std',
  '_npi_sum',
  '_npi_trace',
  '_npi_tri',
  '_npi_tril',
  '_npi_triu',
  '_npi_uniform',
  '_npi_var',
  '_npi_weibull',
  '_scatter_set_nd',
  '_slice_assign',
  '_slice_assign_scalar',
  'gather_nd',
];

describe('cuda np kernels', () => {
  const r = renderCases(FAMILIES, undefined, (reg, host) => installNp(reg, host));
  it('renders every case with arguments matching each kernel signature', () => {
    expect(r.errors).toEqual([]);
    expect(r.rt.problems).toEqual([]);
    expect([...r.ran.keys()].sort()).toEqual([...EXPECTED].sort());
  });
  itCompiles(() => [r.rt]);
});
