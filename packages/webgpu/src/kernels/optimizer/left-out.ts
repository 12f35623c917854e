/**
 * Ops of this family that cpu-wasm runs and webgpu does not, each with the reason. The coverage
 * test requires every cpu-wasm op to have a webgpu kernel or an entry here, and no entry for an op
 * that has one; the conformance suite skips these ops' cases with the reason.
 */
export const LEFT_OUT: Readonly<Record<string, string>> = {
  _adamw_update: 'not implemented yet',
  _mp_adamw_update: 'not implemented yet',
  adam_update: 'not implemented yet',
  ftrl_update: 'not implemented yet',
  lamb_update_phase1: 'not implemented yet',
  lamb_update_phase2: 'not implemented yet',
  mp_sgd_mom_update: 'not implemented yet',
  mp_sgd_update: 'not implemented yet',
  multi_mp_sgd_mom_update: 'not implemented yet',
  multi_mp_sgd_update: 'not implemented yet',
  multi_sgd_mom_update: 'not implemented yet',
  multi_sgd_update: 'not implemented yet',
  multi_sum_sq: 'not implemented yet',
  nag_mom_update: 'not implemented yet',
  rmsprop_update: 'not implemented yet',
  rmspropalex_update: 'not implemented yet',
  sgd_mom_update: 'not implemented yet',
  sgd_update: 'not implemented yet',
  signsgd_update: 'not implemented yet',
  signum_update: 'not implemented yet',
};
