/**
 * The samplers on cpu-wasm: moments of 1e5 samples within bounds, fixed-seed reproducibility,
 * bounds respected, parameter errors raised when the kernel runs, and a clear error when no
 * generator is attached.
 */
import { cpu, isMXNetError } from '@mx/base';
import { ParallelRandomResource, RandomResource } from '@mx/storage';
import { describe, expect, it } from 'vitest';
import { createOpHarness } from '../../test-util/run-op.js';

const N = 100_000;
const bank = (seed: number) => new ParallelRandomResource(cpu(), 0, 1024, seed);

function moments(data: ArrayLike<number | bigint>): {
  mean: number;
  variance: number;
  min: number;
  max: number;
} {
  let s = 0;
  let s2 = 0;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < data.length; i++) {
    const v = Number(data[i]);
    s += v;
    s2 += v * v;
    min = Math.min(min, v);
    max = Math.max(max, v);
  }
  const mean = s / data.length;
  return { mean, variance: s2 / data.length - mean * mean, min, max };
}

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a throw');
}

describe('random samplers on cpu-wasm', () => {
  const h = createOpHarness();

  it('declares MXNet resources and aliases', () => {
    for (const name of [
      '_random_uniform',
      'uniform',
      'random_uniform',
      '_random_normal',
      'normal',
      'random_normal',
      '_random_randint',
      'random_randint',
    ]) {
      const op = h.registry.get(name);
      expect(op.resourceRequest(op.parseParams(name.includes('randint') ? { low: 0, high: 2 } : {}))).toEqual(
        ['parallelRandom', 'tempSpace'],
      );
    }
  });

  for (const dtype of ['float32', 'float64'] as const) {
    it(`uniform(${dtype}) on [-2, 3): moments and bounds of 1e5 samples`, () => {
      const [o] = h.run(
        '_random_uniform',
        [],
        { low: -2, high: 3, shape: [N], dtype },
        { requested: [bank(1)] },
      );
      expect(o!.dtype).toBe(dtype);
      const m = moments(o!.data as Float32Array);
      // U(a,b): mean 0.5, variance 25/12; standard error of the mean ~0.0046.
      expect(Math.abs(m.mean - 0.5)).toBeLessThan(0.03);
      expect(Math.abs(m.variance - 25 / 12)).toBeLessThan(0.05);
      expect(m.min).toBeGreaterThanOrEqual(-2);
      expect(m.max).toBeLessThan(3);
    });

    it(`normal(${dtype}) loc 1.5 scale 2: moments of 1e5 samples`, () => {
      const [o] = h.run(
        '_random_normal',
        [],
        { loc: 1.5, scale: 2, shape: [N], dtype },
        { requested: [bank(2)] },
      );
      const m = moments(o!.data as Float32Array);
      expect(Math.abs(m.mean - 1.5)).toBeLessThan(0.05);
      expect(Math.abs(m.variance - 4)).toBeLessThan(0.12);
      expect(m.min).toBeLessThan(1.5 - 6);
      expect(m.max).toBeGreaterThan(1.5 + 6);
    });
  }

  for (const dtype of ['int32', 'int64'] as const) {
    it(`randint(${dtype}) on [-3, 7): every value hit, uniform counts`, () => {
      const [o] = h.run(
        '_random_randint',
        [],
        { low: -3, high: 7, shape: [N], dtype },
        { requested: [bank(3)] },
      );
      expect(o!.dtype).toBe(dtype);
      const counts = new Map<number, number>();
      for (const v of Array.from(o!.data as ArrayLike<number | bigint>))
        counts.set(Number(v), (counts.get(Number(v)) ?? 0) + 1);
      expect([...counts.keys()].sort((a, b) => a - b)).toEqual([-3, -2, -1, 0, 1, 2, 3, 4, 5, 6]);
      for (const c of counts.values()) expect(Math.abs(c - N / 10)).toBeLessThan(600); // ~6 sigma
    });
  }

  it('randint covers a range wider than 2^26 and int64 bounds beyond int32', () => {
    const [o] = h.run(
      '_random_randint',
      [],
      { low: 0, high: 2 ** 40, shape: [1000], dtype: 'int64' },
      { requested: [bank(4)] },
    );
    const m = moments(o!.data as BigInt64Array);
    expect(m.min).toBeGreaterThanOrEqual(0);
    expect(m.max).toBeLessThan(2 ** 40);
    expect(m.max).toBeGreaterThan(2 ** 39);
    expect(
      thrown(() =>
        h.run('_random_randint', [], { low: 0, high: 2 ** 40, shape: [2] }, { requested: [bank(4)] }),
      ).message,
    ).toContain("dtype='int64'");
  });

  it('the same seed reproduces the samples; the next call continues the stream', () => {
    const run = (r: ParallelRandomResource) => [
      ...h.run('_random_normal', [], { shape: [3, 700] }, { requested: [r] })[0]!.data,
    ];
    const a = bank(7);
    const first = run(a);
    const second = run(a);
    expect(run(bank(7))).toEqual(first);
    expect(second).not.toEqual(first);
    expect(run(bank(8))).not.toEqual(first);
    // dtype defaults to float32
    expect(h.run('_random_uniform', [], { shape: [2] }, { requested: [bank(1)] })[0]!.dtype).toBe('float32');
    expect(
      h.run('_random_randint', [], { low: 0, high: 2, shape: [2] }, { requested: [bank(1)] })[0]!.dtype,
    ).toBe('int32');
  });

  it('accepts a single kRandom generator too', () => {
    const [o] = h.run('_random_uniform', [], { shape: [500] }, { requested: [new RandomResource(cpu(), 5)] });
    expect(moments(o!.data as Float32Array).max).toBeLessThan(1);
  });

  it('uniform with low == high gives low; zero-size outputs draw nothing', () => {
    expect([
      ...h.run('_random_uniform', [], { low: 2, high: 2, shape: [3] }, { requested: [bank(1)] })[0]!.data,
    ]).toEqual([2, 2, 2]);
    expect(h.run('_random_normal', [], { shape: [0, 4] }, { requested: [bank(1)] })[0]!.data.length).toBe(0);
  });

  it('raises bad distribution parameters when the kernel runs, not at shape inference', () => {
    const op = h.registry.get('_random_normal');
    const attrs = op.parseParams({ loc: 0, scale: -1, shape: [3] });
    const out: (readonly number[] | undefined)[] = [undefined];
    expect(op.inferShape(attrs, [], out)).toBe(true); // the call itself is accepted
    const e = thrown(() => h.run('_random_normal', [], { scale: -1, shape: [3] }, { requested: [bank(1)] }));
    expect(isMXNetError(e)).toBe(true);
    expect(e.message).toContain('scale parameter in gaussian has to be positive');
    expect(
      thrown(() => h.run('_random_uniform', [], { low: 1, high: 0, shape: [3] }, { requested: [bank(1)] }))
        .message,
    ).toContain('low must be less or equal to high');
    expect(
      thrown(() => h.run('_random_randint', [], { low: 1, high: 1, shape: [3] }, { requested: [bank(1)] }))
        .message,
    ).toContain('low must be less than high');
    expect(thrown(() => h.run('_random_uniform', [], { shape: [3] })).message).toContain(
      'no random generator',
    );
    expect(
      thrown(() => h.run('_random_uniform', [], { shape: [3], dtype: 'float16' }, { requested: [bank(1)] }))
        .message,
    ).toContain('float16');
    // still usable
    expect(h.run('_random_uniform', [], { shape: [4] }, { requested: [bank(1)] })[0]!.data.length).toBe(4);
  });
});
