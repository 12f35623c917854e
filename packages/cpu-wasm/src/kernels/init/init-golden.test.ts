/** The init family's golden cases through the cpu-wasm harness (see test-util/golden.ts). */
import { expect } from 'vitest';
import { describeGolden } from '../../test-util/golden.js';

describeGolden('init', {
  ops: ['_zeros', '_ones', '_full', '_eye', 'zeros_like', 'ones_like', '_arange', '_linspace', '_copyto'],
  minErrorCases: 20,
  afterErrors: (h) => {
    const [o] = h.run('_full', [], { shape: [3], value: 4 });
    expect([...(o?.data ?? [])]).toEqual([4, 4, 4]);
  },
});
