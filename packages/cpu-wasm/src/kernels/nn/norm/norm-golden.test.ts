/** The norm family's golden cases through the cpu-wasm harness (see test-util/golden.ts). */
import { expect } from 'vitest';
import { describeGolden } from '../../../test-util/golden.js';

describeGolden('norm', {
  ops: [
    'BatchNorm',
    '_npx_batch_norm',
    '_backward_BatchNorm',
    'LayerNorm',
    '_npx_layer_norm',
    '_backward_LayerNorm',
    'InstanceNorm',
    '_backward_InstanceNorm',
    'GroupNorm',
    '_backward_GroupNorm',
  ],
  minErrorCases: 15,
  afterErrors: (h) => {
    const x = { shape: [1, 4], dtype: 'float32' as const, data: [1, 2, 3, 4] };
    const ones = { shape: [4], dtype: 'float32' as const, data: [1, 1, 1, 1] };
    const zeros = { shape: [4], dtype: 'float32' as const, data: [0, 0, 0, 0] };
    const [o] = h.run('LayerNorm', [x, ones, zeros], { eps: 0 });
    const s = Math.sqrt(1.25);
    expect(Array.from(o?.data ?? [], Number).map((v) => Math.round(v * 1e5) / 1e5)).toEqual(
      [-1.5, -0.5, 0.5, 1.5].map((v) => Math.round((v / s) * 1e5) / 1e5),
    );
  },
});
