/**
 * Random initializers checked by statistics of real draws: every tolerance is a number of standard
 * errors for the sample size (5σ: a false alarm about once in 1.7 million), and the target scales
 * come from NumPy (tools/golden/gluon/init_metric.py), not from our code.
 */
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import golden from '../__golden__/init.json' with { type: 'json' };
import {
  InitDesc,
  MSRAPrelu,
  Normal,
  Uniform,
  Xavier,
  type XavierFactorType,
  type XavierRndType,
} from './index.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })], seed: 1234 });
const { nd } = rt;
afterAll(async () => {
  await rt.dispose();
});

const Z = 5; // standard errors allowed

interface Stats {
  n: number;
  mean: number;
  variance: number;
  min: number;
  max: number;
  /** Fraction of |x| <= bound. */
  within: (bound: number) => number;
}

async function stats(a: NDArray): Promise<Stats> {
  const v = Float64Array.from((await a.data()) as Float32Array);
  const n = v.length;
  let sum = 0;
  for (const x of v) sum += x;
  const mean = sum / n;
  let ss = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const x of v) {
    ss += (x - mean) ** 2;
    min = Math.min(min, x);
    max = Math.max(max, x);
  }
  return {
    n,
    mean,
    variance: ss / n,
    min,
    max,
    within: (b) => v.filter((x) => Math.abs(x) <= b).length / n,
  };
}

/** U(-s, s): bounded, mean 0 ± Z·σ/√n, variance s²/3 ± Z·s²·√(4/45n), extremes near ±s. */
function expectUniform(s: Stats, scale: number): void {
  const sd = scale / Math.sqrt(3);
  expect(s.min).toBeGreaterThanOrEqual(-scale * (1 + 1e-6));
  expect(s.max).toBeLessThanOrEqual(scale * (1 + 1e-6));
  // P(max < s(1 - 2·10/n)) = (1 - 10/n)^n ≈ e^-10.
  expect(s.max).toBeGreaterThan(scale * (1 - 20 / s.n));
  expect(s.min).toBeLessThan(-scale * (1 - 20 / s.n));
  expect(Math.abs(s.mean)).toBeLessThan((Z * sd) / Math.sqrt(s.n));
  expect(Math.abs(s.variance - sd * sd)).toBeLessThan(Z * scale * scale * Math.sqrt(4 / 45 / s.n));
}

/** N(0, σ²): mean 0 ± Z·σ/√n, variance σ² ± Z·σ²·√(2/n), 68.27% within one σ. */
function expectNormal(s: Stats, sigma: number): void {
  expect(Math.abs(s.mean)).toBeLessThan((Z * sigma) / Math.sqrt(s.n));
  expect(Math.abs(s.variance - sigma * sigma)).toBeLessThan(Z * sigma * sigma * Math.sqrt(2 / s.n));
  const p = 0.682689492137;
  expect(Math.abs(s.within(sigma) - p)).toBeLessThan(Z * Math.sqrt((p * (1 - p)) / s.n));
}

describe('Uniform and Normal', () => {
  it('Uniform(scale) draws U(-scale, scale) into the weight', async () => {
    for (const scale of [0.07, 2.5]) {
      const w = nd.zeros([400, 500]);
      new Uniform(scale).init('fc_weight', w);
      expectUniform(await stats(w), scale);
      w.dispose();
    }
  });

  it("Normal(sigma) draws N(0, sigma²); defaults are MXNet's (0.07, 0.01)", async () => {
    expect(new Uniform().scale).toBe(0.07);
    expect(new Normal().sigma).toBe(0.01);
    for (const sigma of [0.01, 3]) {
      const w = nd.zeros([200_000]);
      new Normal(sigma).init(new InitDesc('conv_weight'), w);
      expectNormal(await stats(w), sigma);
      w.dispose();
    }
  });

  it('float64 weights are drawn in float64', async () => {
    const w = nd.zeros([100_000], { dtype: 'float64' });
    new Normal(0.5).init('w_weight', w);
    expect(w.dtype).toBe('float64');
    const v = (await w.data()) as Float64Array;
    expect(v.some((x) => Math.fround(x) !== x)).toBe(true);
    w.dispose();
  });

  it("draws come from the runtime's seeded generator", async () => {
    const draw = async (seed: number) => {
      const r = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 16 })], seed });
      const w = r.nd.zeros([64, 32]);
      new Xavier().init('w_weight', w);
      const v = Array.from((await w.data()) as Float32Array);
      await r.dispose();
      return v;
    };
    const a = await draw(99);
    expect(await draw(99)).toEqual(a);
    expect(await draw(100)).not.toEqual(a);
  });
});

describe('Xavier', () => {
  it("computes MXNet's bound from the fans (NumPy formula)", () => {
    for (const g of golden.xavier) {
      const x = new Xavier({
        rndType: g.rnd_type as XavierRndType,
        factorType: g.factor_type as XavierFactorType,
        magnitude: g.magnitude,
      });
      expect(x.scaleFor('w', g.shape)).toBeCloseTo(g.scale, 12);
    }
  });

  it('draws uniform / gaussian samples with that scale for every rnd and factor type', async () => {
    for (const g of golden.xavier) {
      const w = nd.zeros(g.shape);
      new Xavier({
        rndType: g.rnd_type as XavierRndType,
        factorType: g.factor_type as XavierFactorType,
        magnitude: g.magnitude,
      }).init('layer_weight', w);
      const s = await stats(w);
      if (g.rnd_type === 'uniform') expectUniform(s, g.scale);
      else expectNormal(s, g.scale);
      w.dispose();
    }
  });

  it('MSRAPrelu is gaussian Xavier with magnitude 2 / (1 + slope²)', async () => {
    for (const g of golden.msraprelu) {
      const init = new MSRAPrelu({ factorType: g.factor_type as XavierFactorType, slope: g.slope });
      expect(init.rndType).toBe('gaussian');
      expect(init.scaleFor('w', g.shape)).toBeCloseTo(g.scale, 12);
      const w = nd.zeros(g.shape);
      init.init('conv_weight', w);
      expectNormal(await stats(w), g.scale);
      w.dispose();
    }
  });

  it("refuses weights with fewer than 2 dims, with MXNet's message, leaving them untouched", async () => {
    const b = nd.full([5], 7);
    expect(() => new Xavier().init('fc_weight', b)).toThrow(
      'Xavier initializer cannot be applied to vector fc_weight. It requires at least 2D.',
    );
    expect(() => new MSRAPrelu().init('s_weight', b)).toThrow(/cannot be applied to vector/);
    expect(Array.from((await b.data()) as Float32Array)).toEqual([7, 7, 7, 7, 7]);
    b.dispose();
  });

  it('does not leak arrays', async () => {
    const w = nd.zeros([8, 4, 3, 3]);
    await nd.leakCheck(async () => {
      new Xavier({ rndType: 'gaussian' }).init('w_weight', w);
      new Uniform().init('w_weight', w);
      await w.data();
    });
    w.dispose();
  });
});
