/** The NN layers family's golden cases through the cpu-wasm harness (see test-util/golden.ts). */
import { expect } from 'vitest';
import { describeGolden } from '../../../test-util/golden.js';

describeGolden('nn_layers', {
  ops: [
    'FullyConnected',
    '_backward_FullyConnected',
    'Activation',
    '_backward_Activation',
    'LeakyReLU',
    '_backward_LeakyReLU',
    'softmax',
    '_backward_softmax',
    'log_softmax',
    '_backward_log_softmax',
    'masked_softmax',
    '_backward_masked_softmax',
    'masked_log_softmax',
    '_backward_masked_log_softmax',
    'SoftmaxOutput',
    'Softmax',
    '_backward_SoftmaxOutput',
    'LinearRegressionOutput',
    '_backward_linear_reg_out',
    'LogisticRegressionOutput',
    '_backward_logistic_reg_out',
    'MAERegressionOutput',
    '_backward_mae_reg_out',
    'smooth_l1',
    'Dropout',
    '_backward_Dropout',
  ],
  minErrorCases: 20,
  afterErrors: (h) => {
    const x = { shape: [1, 2], dtype: 'float32' as const, data: [1, 2] };
    const w = { shape: [1, 2], dtype: 'float32' as const, data: [3, 4] };
    const [o] = h.run('FullyConnected', [x, w], { num_hidden: 1, no_bias: true });
    expect([...(o?.data ?? [])]).toEqual([11]);
  },
});
