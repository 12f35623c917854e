import { describe, expect, it } from 'vitest';
import golden from '../__golden__/shuffles.json' with { type: 'json' };
import { MT19937 } from './mt19937.js';
import { numpyShuffle, stdShuffle } from './shuffle.js';

interface Summary {
  readonly n: number;
  readonly weighted: number;
  readonly perm?: number[];
  readonly head?: number[];
  readonly tail?: number[];
}

function expectSummary(perm: ArrayLike<number>, s: Summary): void {
  const a = Array.from(perm);
  expect(a.length).toBe(s.n);
  if (s.perm) expect(a).toEqual(s.perm);
  if (s.head) expect(a.slice(0, s.head.length)).toEqual(s.head);
  if (s.tail) expect(a.slice(a.length - s.tail.length)).toEqual(s.tail);
  expect(a.reduce((acc, v, i) => acc + (i + 1) * v, 0)).toBe(s.weighted);
}

const iota = (n: number) => Array.from({ length: n }, (_, i) => i);

describe(`stdShuffle matches std::shuffle + std::mt19937 (${golden.std_shuffle.library})`, () => {
  it.each(golden.std_shuffle.cases.map((c) => [c.n, c.seed, c] as const))('n=%i seed=%i', (n, seed, c) => {
    const a = iota(n);
    stdShuffle(a, new MT19937(seed));
    expectSummary(a, c as Summary);
  });
});

describe(`numpyShuffle matches NumPy ${golden.numpy_shuffle.numpy} legacy RandomState.shuffle`, () => {
  it.each(golden.numpy_shuffle.cases.map((c) => [c.n, c.seed, c] as const))('n=%i seed=%i', (n, seed, c) => {
    const g = new MT19937(seed);
    const idx = iota(n);
    for (const epoch of c.epochs) {
      numpyShuffle(idx, g);
      expectSummary(idx, epoch.idx as Summary);
    }
  });
});
