/** The reduce family's golden cases through the cpu-wasm harness (see test-util/golden.ts). */
import { expect } from 'vitest';
import { describeGolden } from '../../test-util/golden.js';

describeGolden('reduce', {
  ops: [
    'sum',
    'mean',
    'prod',
    'max',
    'min',
    'nansum',
    'nanprod',
    'norm',
    'argmax',
    'argmin',
    'sort',
    'argsort',
    'topk',
    '_np_cumsum',
    '_broadcast_backward',
    '_backward_sum',
    '_backward_mean',
    '_backward_topk',
  ],
  minErrorCases: 28,
  afterErrors: (h) => {
    const [o] = h.run('sum', [{ shape: [3], dtype: 'float32', data: [1, 2, 3] }]);
    expect([...(o?.data ?? [])]).toEqual([6]);
  },
});
