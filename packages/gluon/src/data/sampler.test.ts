import { MXNetError } from '@mx/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import golden from '../__golden__/data.json' with { type: 'json' };
import { SimpleDataset } from './dataset.js';
import {
  BatchSampler,
  FilterSampler,
  IntervalSampler,
  RandomSampler,
  type SamplerLike,
  SequentialSampler,
} from './sampler.js';

const iota = (n: number, start = 0) => Array.from({ length: n }, (_, i) => start + i);

interface Summary {
  readonly n: number;
  readonly weighted: number;
  readonly perm?: number[];
  readonly head?: number[];
  readonly tail?: number[];
}

function expectSummary(perm: number[], s: Summary): void {
  expect(perm.length).toBe(s.n);
  if (s.perm) expect(perm).toEqual(s.perm);
  if (s.head) expect(perm.slice(0, s.head.length)).toEqual(s.head);
  if (s.tail) expect(perm.slice(perm.length - s.tail.length)).toEqual(s.tail);
  expect(perm.reduce((acc, v, i) => acc + (i + 1) * v, 0)).toBe(s.weighted);
}

describe('SequentialSampler', () => {
  it('yields [start, start + length)', () => {
    expect([...new SequentialSampler(10)]).toEqual(iota(10));
    const s = new SequentialSampler(3, 5);
    expect([...s]).toEqual([5, 6, 7]);
    expect(s.length).toBe(3);
    expect([...new SequentialSampler(0)]).toEqual([]);
  });

  it('rejects bad lengths', () => {
    expect(() => new SequentialSampler(-1)).toThrow(MXNetError);
    expect(() => new SequentialSampler(2.5)).toThrow(/length must be an integer/);
    expect(() => new SequentialSampler(2, 0.5)).toThrow(/start must be an integer/);
  });
});

describe(`RandomSampler matches np.random.seed + np.random.shuffle (NumPy ${golden.random_sampler.numpy})`, () => {
  it.each(golden.random_sampler.cases.map((c) => [c.n, c.seed, c] as const))(
    'n=%i seed=%i, three epochs',
    (n, seed, c) => {
      const s = new RandomSampler(n, { seed });
      expect(s.length).toBe(n);
      for (const epoch of c.epochs) expectSummary([...s], epoch as Summary);
    },
  );

  it('seeded permutations are permutations, and the seed fixes them', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 2 ** 32 - 1 }), (n, seed) => {
        const a = new RandomSampler(n, { seed });
        const b = new RandomSampler(n, { seed });
        const first = [...a];
        expect([...first].sort((x, y) => x - y)).toEqual(iota(n));
        expect([...b]).toEqual(first);
      }),
      { seed: 20240611, numRuns: 60 },
    );
  });

  it('without a seed still gives permutations', () => {
    expect([...new RandomSampler(50)].sort((x, y) => x - y)).toEqual(iota(50));
  });
});

describe('BatchSampler', () => {
  it("'keep' and 'discard' as in MXNet's docstring and test_sampler", () => {
    const seq = new SequentialSampler(10);
    const keep = new BatchSampler(seq, 3, 'keep');
    expect([...keep]).toEqual([[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]);
    expect(keep.length).toBe(4);
    const discard = new BatchSampler(seq, 3, 'discard');
    expect([...discard].flat()).toEqual(iota(9));
    expect(discard.length).toBe(3);
    const randomKeep = new BatchSampler(new RandomSampler(10, { seed: 1 }), 3);
    expect([...randomKeep].flat().sort((a, b) => a - b)).toEqual(iota(10));
  });

  it("'rollover' puts the incomplete batch in front of the next epoch", () => {
    // MXNet's __iter__: batch, self._prev = self._prev, []; ...; if batch (rollover): self._prev = batch.
    const b = new BatchSampler(new SequentialSampler(10), 3, 'rollover');
    expect(b.length).toBe(3);
    expect([...b]).toEqual([
      [0, 1, 2],
      [3, 4, 5],
      [6, 7, 8],
    ]);
    // (len(prev) + len(sampler)) // batch_size with prev = [9]
    expect(b.length).toBe(3);
    expect([...b]).toEqual([
      [9, 0, 1],
      [2, 3, 4],
      [5, 6, 7],
    ]);
    expect(b.length).toBe(4);
    expect([...b]).toEqual([
      [8, 9, 0],
      [1, 2, 3],
      [4, 5, 6],
      [7, 8, 9],
    ]);
    expect(b.length).toBe(3);
    expect([...b][0]).toEqual([0, 1, 2]);
  });

  it('rejects bad arguments', () => {
    const seq = new SequentialSampler(4);
    expect(() => new BatchSampler(seq, 0)).toThrow(MXNetError);
    expect(() => new BatchSampler(seq, 2, 'pad' as 'keep')).toThrow(
      "last_batch must be one of 'keep', 'discard', or 'rollover', but got pad",
    );
  });

  it('takes any iterable with a length', () => {
    const custom: SamplerLike<number> = { length: 3, [Symbol.iterator]: () => [7, 8, 9][Symbol.iterator]() };
    expect([...new BatchSampler(custom, 2)]).toEqual([[7, 8], [9]]);
  });
});

describe('IntervalSampler', () => {
  it("MXNet's examples", () => {
    expect([...new IntervalSampler(13, 3)]).toEqual([0, 3, 6, 9, 12, 1, 4, 7, 10, 2, 5, 8, 11]);
    expect([...new IntervalSampler(13, 3, false)]).toEqual([0, 3, 6, 9, 12]);
    expect([...new IntervalSampler(10, 3)].sort((a, b) => a - b)).toEqual(iota(10));
    expect([...new IntervalSampler(10, 3, false)]).toEqual([0, 3, 6, 9]);
  });

  it('length is the number of indices yielded', () => {
    expect(new IntervalSampler(13, 3).length).toBe(13);
    expect(new IntervalSampler(13, 3, false).length).toBe(5);
    expect(new IntervalSampler(10, 3, false).length).toBe(4);
  });

  it('rejects an interval larger than the length', () => {
    expect(() => new IntervalSampler(3, 4)).toThrow('Interval 4 must be smaller than or equal to length 3');
    expect(() => new IntervalSampler(3, 0)).toThrow(MXNetError);
  });
});

describe('FilterSampler', () => {
  it('keeps the indices whose sample passes', () => {
    const ds = new SimpleDataset(iota(20, 100));
    const s = new FilterSampler((x: number) => x % 3 === 0, ds);
    expect([...s]).toEqual([2, 5, 8, 11, 14, 17]);
    expect(s.length).toBe(6);
  });
});
