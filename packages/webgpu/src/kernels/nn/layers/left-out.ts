/**
 * Ops of this family that cpu-wasm runs and webgpu does not, each with the reason. The coverage
 * test requires every cpu-wasm op to have a webgpu kernel or an entry here, and no entry for an op
 * that has one; the conformance suite skips these ops' cases with the reason.
 */
export const LEFT_OUT: Readonly<Record<string, string>> = {
  Activation: 'not implemented yet',
  Dropout: 'not implemented yet',
  LeakyReLU: 'not implemented yet',
  LinearRegressionOutput: 'not implemented yet',
  LogisticRegressionOutput: 'not implemented yet',
  MAERegressionOutput: 'not implemented yet',
  SoftmaxOutput: 'not implemented yet',
  _backward_Activation: 'not implemented yet',
  _backward_Dropout: 'not implemented yet',
  _backward_LeakyReLU: 'not implemented yet',
  _backward_SoftmaxOutput: 'not implemented yet',
  _backward_linear_reg_out: 'not implemented yet',
  _backward_log_softmax: 'not implemented yet',
  _backward_logistic_reg_out: 'not implemented yet',
  _backward_mae_reg_out: 'not implemented yet',
  _backward_masked_softmax: 'not implemented yet',
  _backward_softmax: 'not implemented yet',
  log_softmax: 'not implemented yet',
  masked_softmax: 'not implemented yet',
  smooth_l1: 'not implemented yet',
  softmax: 'not implemented yet',
};
