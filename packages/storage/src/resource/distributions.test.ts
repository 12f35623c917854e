/**
 * The libstdc++-compatible samplers against libstdc++ itself (tools/golden/std_distributions.sh).
 * Uniform samples and canonical values must be bit-exact. Normal samples go through log(), where
 * glibc's logf/log and V8's Math.log may round differently, so they are compared within a few ulps
 * of the result type; the number of engine draws they consume (checked via the next raw output)
 * must still match exactly, since the polar method's accept/reject test is exact arithmetic.
 */
import { readFileSync } from 'node:fs';
import { MXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import {
  fillNormal,
  fillUniform,
  generateCanonicalDouble,
  generateCanonicalFloat,
  NormalSampler,
  normalDouble,
  normalFloat,
  type RealDType,
  type Uint32Generator,
  uniformDouble,
  uniformFloat,
} from './distributions.js';
import { MT19937 } from './mt19937.js';

interface DistCase {
  readonly dist: 'uniform_real_distribution' | 'normal_distribution';
  readonly dtype: RealDType;
  readonly seed: number;
  readonly params: readonly [number, number];
  readonly values: readonly number[];
  readonly nextRaw: number;
}
interface StdGolden {
  readonly cases: readonly DistCase[];
  readonly freshPerCall: readonly {
    readonly dtype: RealDType;
    readonly seed: number;
    readonly calls: number;
    readonly perCall: number;
    readonly values: readonly number[];
    readonly nextRaw: number;
  }[];
  readonly canonical: {
    readonly inputs: readonly number[];
    readonly float32: readonly number[];
    readonly float64Inputs: readonly number[];
    readonly float64: readonly number[];
  };
}
const golden = JSON.parse(
  readFileSync(new URL('./__golden__/std_distributions.json', import.meta.url), 'utf8'),
) as StdGolden;

/** Golden floats are printed with 9 digits: round them back to the float they came from. */
const exact = (dtype: RealDType, values: readonly number[]): number[] =>
  dtype === 'float32' ? values.map(Math.fround) : [...values];

const ulp = (dtype: RealDType, x: number): number => {
  const e = Math.max(Math.floor(Math.log2(Math.abs(x) || 1)), dtype === 'float32' ? -126 : -1022);
  return 2 ** (e - (dtype === 'float32' ? 23 : 52));
};

/** Max distance in ulps of the result type, measured at the larger magnitude (4 ulps allowed). */
function expectClose(
  dtype: RealDType,
  actual: ArrayLike<number>,
  expected: readonly number[],
  scale: number,
): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i]!;
    const b = expected[i]!;
    // log's rounding error is relative to the standard-normal value, so allow it at the stddev's scale too.
    const tol = 4 * ulp(dtype, Math.max(Math.abs(a), Math.abs(b), scale));
    if (Math.abs(a - b) > tol) expect.fail(`element ${i}: ${a} vs ${b} (tolerance ${tol})`);
  }
}

class Fixed implements Uint32Generator {
  #i = 0;
  constructor(readonly values: readonly number[]) {}
  nextUint32(): number {
    return this.values[this.#i++ % this.values.length]!;
  }
}

const label = (c: DistCase) => `${c.dist}<${c.dtype}>(${c.params.join(', ')}) seed ${c.seed}`;

describe('generate_canonical', () => {
  it('float: one draw, float(u) / 2^32, nextafter(1, 0) when it rounds to 1', () => {
    const g = golden.canonical;
    const gen = new Fixed(g.inputs);
    expect(g.inputs.map(() => generateCanonicalFloat(gen))).toEqual(exact('float32', g.float32));
    expect(generateCanonicalFloat(new Fixed([0xffffffff]))).toBe(Math.fround(1 - 2 ** -24));
  });

  it('double: two draws, low word first, (u1 + u2 * 2^32) / 2^64', () => {
    const g = golden.canonical;
    const gen = new Fixed(g.float64Inputs);
    expect(g.float64.map(() => generateCanonicalDouble(gen))).toEqual(g.float64);
    expect(generateCanonicalDouble(new Fixed([0xffffffff]))).toBe(1 - 2 ** -53);
  });
});

describe('uniform_real_distribution (bit-exact)', () => {
  const cases = golden.cases.filter((c) => c.dist === 'uniform_real_distribution');
  it.each(cases.map((c) => [label(c), c] as const))('%s', (_name, c) => {
    const expected = exact(c.dtype, c.values);
    const [a, b] = c.params;
    const one = c.dtype === 'float32' ? uniformFloat : uniformDouble;
    const gen = new MT19937(c.seed);
    expect(expected.map(() => one(gen, a, b))).toEqual(expected);
    expect(gen.nextUint32()).toBe(c.nextRaw);

    const bulk = new MT19937(c.seed);
    const out = c.dtype === 'float32' ? new Float32Array(expected.length) : new Float64Array(expected.length);
    fillUniform(bulk, out, a, b);
    expect([...out]).toEqual(expected);
    expect(bulk.nextUint32()).toBe(c.nextRaw);
  });
});

describe('normal_distribution (polar method, within 4 ulps)', () => {
  const cases = golden.cases.filter((c) => c.dist === 'normal_distribution');
  it.each(cases.map((c) => [label(c), c] as const))('%s', (_name, c) => {
    const expected = exact(c.dtype, c.values);
    const [mean, stddev] = c.params;
    const sampler = new NormalSampler(mean, stddev, c.dtype);
    const gen = new MT19937(c.seed);
    const got = expected.map(() => sampler.next(gen));
    expectClose(c.dtype, got, expected, stddev);
    expect(gen.nextUint32()).toBe(c.nextRaw);
    // an even count ends on the saved half, so one fill reproduces the same stream
    const bulk = new MT19937(c.seed);
    const out = c.dtype === 'float32' ? new Float32Array(expected.length) : new Float64Array(expected.length);
    fillNormal(bulk, out, mean, stddev);
    expect([...out]).toEqual(got);
    expect(bulk.nextUint32()).toBe(c.nextRaw);
  });

  it('most samples are bit-exact (the tolerance only absorbs log rounding)', () => {
    let total = 0;
    let same = 0;
    for (const c of golden.cases.filter((k) => k.dist === 'normal_distribution')) {
      const sampler = new NormalSampler(c.params[0], c.params[1], c.dtype);
      const gen = new MT19937(c.seed);
      for (const v of exact(c.dtype, c.values)) {
        total++;
        if (sampler.next(gen) === v) same++;
      }
    }
    expect(same / total).toBeGreaterThan(0.9);
  });

  it.each(golden.freshPerCall.map((c) => [c.dtype, c] as const))(
    'fillNormal uses a fresh distribution per call, as mshadow SampleGaussian does (%s)',
    (_name, c) => {
      const gen = new MT19937(c.seed);
      const got: number[] = [];
      for (let call = 0; call < c.calls; call++) {
        const out = c.dtype === 'float32' ? new Float32Array(c.perCall) : new Float64Array(c.perCall);
        fillNormal(gen, out);
        got.push(...out);
      }
      expectClose(c.dtype, got, exact(c.dtype, c.values), 1);
      expect(gen.nextUint32()).toBe(c.nextRaw);
    },
  );
});

describe('NormalSampler state', () => {
  it('returns the saved half without drawing, and reset() drops it', () => {
    const gen = new MT19937(1);
    const s = new NormalSampler();
    expect(s.hasSaved).toBe(false);
    const first = s.next(gen);
    expect(s.hasSaved).toBe(true);
    const state = gen.getState();
    const second = s.next(gen);
    expect(gen.getState()).toEqual(state);
    expect(second).not.toBe(first);
    expect(s.hasSaved).toBe(false);
    s.next(gen);
    s.reset();
    expect(s.hasSaved).toBe(false);
  });

  it('normalFloat/normalDouble are one draw of a fresh distribution (RandGenerator::Impl::normal)', () => {
    for (const [one, dtype] of [
      [normalFloat, 'float32'],
      [normalDouble, 'float64'],
    ] as const) {
      const a = new MT19937(9);
      const b = new MT19937(9);
      const x1 = one(a, 2, 3);
      const x2 = one(a, 2, 3);
      const s = new NormalSampler(2, 3, dtype);
      expect(x1).toBe(s.next(b));
      s.reset();
      expect(x2).toBe(s.next(b));
      expect(a.getState()).toEqual(b.getState());
    }
  });

  it('fillNormal with stddev <= 0 fills with the mean and draws nothing', () => {
    const gen = new MT19937(3);
    const state = gen.getState();
    const out = new Float32Array(5);
    fillNormal(gen, out, 1.25, 0);
    expect([...out]).toEqual([1.25, 1.25, 1.25, 1.25, 1.25]);
    fillNormal(gen, out, -2, -1);
    expect([...out]).toEqual([-2, -2, -2, -2, -2]);
    expect(gen.getState()).toEqual(state);
  });

  it('rejects a non-positive or non-finite stddev and unknown dtypes', () => {
    expect(() => new NormalSampler(0, 0)).toThrow(MXNetError);
    expect(() => new NormalSampler(0, Number.NaN)).toThrow(/stddev > 0/);
    expect(() => new NormalSampler(Number.POSITIVE_INFINITY, 1)).toThrow(/finite mean/);
    expect(() => new NormalSampler(0, 1, 'float16' as RealDType)).toThrow(/unsupported dtype float16/);
  });
});
