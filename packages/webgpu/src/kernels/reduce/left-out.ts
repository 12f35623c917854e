/**
 * Ops of this family that cpu-wasm runs and webgpu does not, each with the reason. The coverage
 * test requires every cpu-wasm op to have a webgpu kernel or an entry here, and no entry for an op
 * that has one; the conformance suite skips these ops' cases with the reason.
 */
export const LEFT_OUT: Readonly<Record<string, string>> = {
  _backward_mean: 'not implemented yet',
  _backward_sum: 'not implemented yet',
  _backward_topk: 'not implemented yet',
  _broadcast_backward: 'not implemented yet',
  _np_cumsum: 'not implemented yet',
  argmax: 'not implemented yet',
  argmin: 'not implemented yet',
  argsort: 'not implemented yet',
  max: 'not implemented yet',
  mean: 'not implemented yet',
  min: 'not implemented yet',
  nanprod: 'not implemented yet',
  nansum: 'not implemented yet',
  norm: 'not implemented yet',
  prod: 'not implemented yet',
  sort: 'not implemented yet',
  sum: 'not implemented yet',
  topk: 'not implemented yet',
};
