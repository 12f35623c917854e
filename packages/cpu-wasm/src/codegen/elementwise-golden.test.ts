/**
 * The elementwise family's golden cases (A2's definitions, compiled by this folder's SimpleOp
 * compiler, Cast by its kernel) through the cpu-wasm harness (see test-util/golden.ts).
 */
import { expect } from 'vitest';
import { describeGolden } from '../test-util/golden.js';

describeGolden('elementwise', {
  ops: [
    'elemwise_add',
    'broadcast_add',
    '_plus_scalar',
    '_rminus_scalar',
    'sigmoid',
    'erfinv',
    'where',
    'clip',
    'Cast',
  ],
  minErrorCases: 10,
  afterErrors: (h) => {
    const a = { shape: [3], dtype: 'float32' as const, data: [1, 2, 3] };
    const [o] = h.run('elemwise_add', [a, a]);
    expect([...(o?.data ?? [])]).toEqual([2, 4, 6]);
  },
});
