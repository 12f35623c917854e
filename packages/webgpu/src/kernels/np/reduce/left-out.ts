/**
 * np reduce ops cpu-wasm runs and webgpu does not, each with the reason (the coverage test requires
 * every cpu-wasm op to have a webgpu kernel or an entry here). `_npi_sum`, `_npi_prod`, `_npi_mean`,
 * `_npi_max`, `_npi_min`, `_backward_npi_sum`, `_backward_np_mean` and `_npi_cumsum` run on webgpu
 * through their composite kernels (the legacy reduce/cumsum kernels), so they are not listed.
 */
const LANE_TS = 'a TypeScript lane loop on cpu-wasm; no WGSL kernel yet (small, data-dependent work)';

export const LEFT_OUT: Readonly<Record<string, string>> = {
  _npi_all: `bool reduction: ${LANE_TS}; np.all on gpu(0) can use _npi_min of (x != 0)`,
  _npi_any: `bool reduction: ${LANE_TS}; np.any on gpu(0) can use _npi_max of (x != 0)`,
  _npi_std: `two-pass moments in float64: ${LANE_TS}`,
  _npi_var: `two-pass moments in float64: ${LANE_TS}`,
  _backward_npi_std: `gradient of _npi_std: ${LANE_TS}`,
  _backward_npi_var: `gradient of _npi_var: ${LANE_TS}`,
  _npi_average: `weighted average with a data-dependent zero-sum check: ${LANE_TS}`,
  _backward_np_average: `gradient of _npi_average: ${LANE_TS}`,
  _npi_percentile: 'sorts every lane (no WGSL sort kernel for lanes yet); run on cpu(0)',
  _npi_bincount: 'data-dependent output length (needs the dynamic-shape route, docs/design/np.md F2)',
  _histogram: 'scatter-add of counts needs integer atomics per bin; not written yet',
  _npi_diff: `n-th difference: ${LANE_TS}`,
  _backward_npi_diff: `gradient of _npi_diff: ${LANE_TS}`,
};
