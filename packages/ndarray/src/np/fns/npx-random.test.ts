/**
 * `npx.random.bernoulli` (MXNet 2.0's numpy_extension/random.py over `_npi_bernoulli`): sample
 * means within 6 standard errors of the probability (given as prob, or as the logit
 * log(p / (1 - p)), whose sigmoid is p by definition), per-element array parameters broadcast to
 * `size`, MXNet's float32 default and the dtype option, reproducibility under `np.random.seed`,
 * and MXNet's ValueError texts. Everything runs under the leak check.
 */
import { cpu } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime, type NDArray } from '../../index.js';
import { ndarray } from '../array.js';
import { createNp } from '../namespace.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 0 });
const { np, npx } = createNp(rt);
afterAll(() => rt.dispose());

const values = async (a: NDArray): Promise<number[]> =>
  Array.from((await a.data()) as ArrayLike<number | bigint>, (v) => Number(v));

/** |mean - p| within 6 binomial standard errors. */
function expectMean(x: readonly number[], p: number): void {
  const mean = x.reduce((s, v) => s + v, 0) / x.length;
  expect(Math.abs(mean - p)).toBeLessThan(6 * Math.sqrt((p * (1 - p)) / x.length));
}

describe('npx.random.bernoulli', () => {
  it('prob: 0/1 float32 samples with mean prob', async () => {
    np.random.seed(17);
    await rt.nd.leakCheck(async () => {
      const a = npx.random.bernoulli(0.3, null, [20000]);
      expect(a).toBeInstanceOf(ndarray);
      expect(a.dtype).toBe('float32');
      expect([...a.shape]).toEqual([20000]);
      const x = await values(a);
      a.dispose();
      expect(x.every((v) => v === 0 || v === 1)).toBe(true);
      expectMean(x, 0.3);
    });
  });

  it('logit: mean sigmoid(logit)', async () => {
    np.random.seed(18);
    await rt.nd.leakCheck(async () => {
      const a = npx.random.bernoulli(undefined, Math.log(0.8 / 0.2), 20000);
      const x = await values(a);
      a.dispose();
      expectMean(x, 0.8);
    });
  });

  it('array parameters: one probability per column, broadcast to size', async () => {
    np.random.seed(19);
    await rt.nd.leakCheck(async () => {
      const probs = [0.1, 0.5, 0.95];
      const a = npx.random.bernoulli([probs], null, [6000, 3]);
      expect([...a.shape]).toEqual([6000, 3]);
      const x = await values(a);
      a.dispose();
      for (const [j, p] of probs.entries())
        expectMean(
          x.filter((_, i) => i % 3 === j),
          p,
        );
      const logits = np.array(
        [0.2, 0.7].map((p) => Math.log(p / (1 - p))),
        { dtype: 'float64' },
      );
      const b = npx.random.bernoulli(null, logits, [8000, 2], { dtype: 'float64' });
      expect(b.dtype).toBe('float64');
      const y = await values(b);
      for (const [j, p] of [0.2, 0.7].entries())
        expectMean(
          y.filter((_, i) => i % 2 === j),
          p,
        );
      // Without size: the parameter's shape.
      const c = npx.random.bernoulli(null, logits);
      expect([...c.shape]).toEqual([2]);
      for (const t of [logits, b, c]) t.dispose();
    });
  });

  it('sizes, dtypes and ctx: size () is a single value, dtype as asked', async () => {
    await rt.nd.leakCheck(async () => {
      const cases: [NDArray, number[], string][] = [
        [npx.random.bernoulli(0.5), [], 'float32'],
        [npx.random.bernoulli(0.5, null, []), [], 'float32'],
        [npx.random.bernoulli(0.5, null, 4, { dtype: 'int32' }), [4], 'int32'],
        [npx.random.bernoulli(0.5, null, [2, 3], { dtype: 'bool', ctx: cpu(0) }), [2, 3], 'bool'],
        [npx.random.bernoulli(1, null, [0, 2], { dtype: 'uint8' }), [0, 2], 'uint8'],
      ];
      for (const [a, shape, dt] of cases) {
        expect([...a.shape]).toEqual(shape);
        expect(a.dtype).toBe(dt);
        expect((await values(a)).every((v) => v === 0 || v === 1)).toBe(true);
        a.dispose();
      }
      const ones = npx.random.bernoulli(1, null, [5], { dtype: 'int32' });
      expect(await values(ones)).toEqual([1, 1, 1, 1, 1]);
      const zeros = npx.random.bernoulli(undefined, -1000, [3]);
      expect(await values(zeros)).toEqual([0, 0, 0]);
      ones.dispose();
      zeros.dispose();
    });
  });

  it('the same seed reproduces the samples; another seed does not', async () => {
    await rt.nd.leakCheck(async () => {
      const run = async (s: number) => {
        np.random.seed(s);
        const a = npx.random.bernoulli(0.5, null, [64]);
        const b = npx.random.bernoulli(null, [[-1, 0, 1]], [8, 3]);
        const out = [...(await values(a)), ...(await values(b))];
        a.dispose();
        b.dispose();
        return out;
      };
      const x = await run(5);
      expect(await run(5)).toEqual(x);
      expect(await run(6)).not.toEqual(x);
    });
  });

  it("refuses prob outside [0, 1], both or neither parameter, and bad dtypes (MXNet's wording)", async () => {
    await rt.nd.leakCheck(async () => {
      const probMsg = 'ValueError: expect probs >= 0 && probs <= 1';
      expect(() => npx.random.bernoulli(1.5, null, [2])).toThrow(probMsg);
      expect(() => npx.random.bernoulli(-0.1)).toThrow(probMsg);
      expect(() => npx.random.bernoulli(Number.NaN)).toThrow(probMsg);
      // An array prob is checked when the kernel runs (as MXNet), before anything is written.
      const a = npx.random.bernoulli([0.5, 1.2]);
      await expect(a.data()).rejects.toThrow(probMsg);
      a.dispose();
      const both = 'Either `prob` or `logit` must be specified, but not both';
      expect(() => npx.random.bernoulli(0.5, 0.1)).toThrow(both);
      expect(() => npx.random.bernoulli()).toThrow(`${both}. Received prob=None, logit=None`);
      expect(() => npx.random.bernoulli(null, null, [2])).toThrow(both);
      expect(() => npx.random.bernoulli(0.5, null, [2], { dtype: 'int64' })).toThrow(
        "Invalid Input: 'int64'",
      );
      expect(() => npx.random.bernoulli(0.5, null, [2, -1])).toThrow('negative dimensions are not allowed');
    });
  });
});
