/**
 * np random ops cpu-wasm runs and webgpu does not, each with the reason (the coverage test requires
 * every cpu-wasm op to have a webgpu kernel or an entry here). The location–scale samplers are
 * simple Philox transforms (as the legacy `_random_uniform`/`_random_normal` webgpu kernels); they
 * are left for a follow-up together with their hidden noise outputs, not refused for a technical
 * reason. The others need sequential or data-dependent work per element.
 */
const PHILOX_LATER =
  'a Philox transform like _random_uniform/_random_normal on webgpu; not written yet (run np.random on cpu(0) and copy the result)';

export const LEFT_OUT: Readonly<Record<string, string>> = {
  _npi_uniform: PHILOX_LATER,
  _npi_normal: PHILOX_LATER,
  _npi_exponential: PHILOX_LATER,
  _npi_laplace: PHILOX_LATER,
  _npi_logistic: PHILOX_LATER,
  _npi_gumbel: PHILOX_LATER,
  _npi_weibull: PHILOX_LATER,
  _npi_pareto: PHILOX_LATER,
  _npi_powerd: PHILOX_LATER,
  _npi_rayleigh: PHILOX_LATER,
  _npi_bernoulli: PHILOX_LATER,
  _npi_gamma:
    'rejection sampling (Marsaglia–Tsang) loops a data-dependent number of times per element; MXNet resamples failed lanes on the GPU, not worth it for WGSL yet',
  _backward_gamma_sample:
    "the implicit gradient evaluates the incomplete gamma function's series / continued fraction in float64, which WGSL lacks",
  _npi_choice:
    'sampling without replacement (partial Fisher–Yates, sequential weighted draws) is sequential per call',
  _npi_multinomial:
    'n sequential categorical draws per sample with int64 counts (no 64-bit integers in WGSL)',
  _shuffle:
    'a Fisher–Yates permutation is sequential; the row moves could run on the GPU once the permutation is drawn on the host',
};
