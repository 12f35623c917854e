/** Host values in and out of half-precision arrays (stored as bit patterns, seen as numbers). */
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime } from './index.js';

const rt = createRuntime({ backends: [new CpuWasmBackend()] });
const { nd } = rt;
afterAll(() => rt.dispose());

describe('float16 and bfloat16 from and to JS numbers', () => {
  it('rounds like NumPy and reads back numbers, not bit patterns', async () => {
    await rt.leakCheck(async () => {
      // NumPy: np.array([1.5, 0.1, 70000, -2.5e-8, 65519], dtype=np.float16).astype(float).tolist()
      const want = [1.5, 0.0999755859375, Number.POSITIVE_INFINITY, -0, 65504];
      const h = nd.array([1.5, 0.1, 70000, -2.5e-8, 65519], { dtype: 'float16' });
      expect(await h.array()).toEqual(want);
      const one = h.at(1);
      expect(await one.item()).toBe(0.0999755859375);
      // The float32 path through Cast agrees with the host conversion.
      const f = nd.array([1.5, 0.1, 70000, -2.5e-8, 65519]);
      const viaCast = f.astype('float16');
      expect(await viaCast.array()).toEqual(want);
      // bfloat16 keeps float32's exponent: 1/3 → 0.333984375 (top 16 bits, half to even).
      const b = nd.array([1 / 3, 1e30], { dtype: 'bfloat16' });
      const got = (await b.array()) as number[];
      expect(got[0]).toBe(0.333984375);
      expect(got[1]).toBeCloseTo(1e30, -27);
      for (const a of [h, one, f, viaCast, b]) a.dispose();
    });
  });
});
