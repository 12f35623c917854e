/** The optimizer family's golden cases through the cpu-wasm harness (see test-util/golden.ts). */
import { expect } from 'vitest';
import { describeGolden } from '../../test-util/golden.js';

describeGolden('optimizer', {
  ops: [
    'sgd_update',
    'sgd_mom_update',
    'mp_sgd_update',
    'mp_sgd_mom_update',
    'nag_mom_update',
    'adam_update',
    '_adamw_update',
    '_mp_adamw_update',
    'rmsprop_update',
    'rmspropalex_update',
    'ftrl_update',
    'signsgd_update',
    'signum_update',
    'lamb_update_phase1',
    'lamb_update_phase2',
    'multi_sgd_update',
    'multi_sgd_mom_update',
    'multi_mp_sgd_update',
    'multi_mp_sgd_mom_update',
    'multi_sum_sq',
  ],
  minErrorCases: 15,
  afterErrors: (h) => {
    const [o] = h.run(
      'sgd_update',
      [
        { shape: [2], dtype: 'float32', data: [1, 2] },
        { shape: [2], dtype: 'float32', data: [1, 1] },
      ],
      { lr: 0.5 },
    );
    expect([...(o?.data ?? [])]).toEqual([0.5, 1.5]);
  },
});
