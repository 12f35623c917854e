/** The linalg family's golden cases through the cpu-wasm harness (see test-util/golden.ts). */
import { expect } from 'vitest';
import { describeGolden } from '../test-util/golden.js';

describeGolden('linalg', {
  ops: ['dot', 'batch_dot', '_linalg_gemm2', 'linalg_gemm2'],
  minErrorCases: 10,
  afterErrors: (h) => {
    const a = { shape: [1, 2], dtype: 'float32' as const, data: [1, 2] };
    const b = { shape: [2, 1], dtype: 'float32' as const, data: [3, 4] };
    const [o] = h.run('dot', [a, b]);
    expect([...(o?.data ?? [])]).toEqual([11]);
  },
});
