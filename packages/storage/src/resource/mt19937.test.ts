/**
 * MT19937 against std::mt19937: NumPy golden outputs (tools/golden/mt19937.py), the C++ standard's
 * 10000th-output requirement, and state save/restore and seed-reduction properties.
 */
import { readFileSync } from 'node:fs';
import { MXNetError } from '@mx/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MT19937, toUint32 } from './mt19937.js';

interface MtGolden {
  readonly count: number;
  readonly seeds: Readonly<Record<string, readonly number[]>>;
}
const golden = JSON.parse(
  readFileSync(new URL('./__golden__/mt19937.json', import.meta.url), 'utf8'),
) as MtGolden;

function draws(gen: MT19937, n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(gen.nextUint32());
  return out;
}

describe('MT19937', () => {
  it('starts with std::mt19937 default_seed outputs', () => {
    expect(MT19937.DEFAULT_SEED).toBe(5489);
    expect(draws(new MT19937(), 3)).toEqual([3499211612, 581869302, 3890346734]);
    expect(draws(new MT19937(5489), 3)).toEqual([3499211612, 581869302, 3890346734]);
  });

  it('gives 4123659995 as the 10000th output of a default-constructed engine (C++ [rand.predef])', () => {
    const gen = new MT19937();
    gen.discard(9999);
    expect(gen.nextUint32()).toBe(4123659995);
  });

  it.each(Object.keys(golden.seeds))('matches NumPy legacy-seeded MT19937 for seed %s', (seedText) => {
    const expected = golden.seeds[seedText]!;
    expect(expected).toHaveLength(golden.count);
    expect(draws(new MT19937(Number(seedText)), expected.length)).toEqual(expected);
  });

  it('fillUint32 continues the same sequence as nextUint32, across twists', () => {
    const expected = golden.seeds['5489']!;
    const gen = new MT19937();
    const a = new Uint32Array(7);
    gen.fillUint32(a);
    const b = new Uint32Array(1200);
    gen.fillUint32(b);
    const rest = draws(gen, 10);
    expect([...a, ...b, ...rest]).toEqual(expected.slice(0, 1217));
  });

  it('discard(n) equals n draws, for any split of the count', () => {
    const expected = golden.seeds['0']!;
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 700 }), { maxLength: 4 }), (parts) => {
        const total = parts.reduce((s, p) => s + p, 0);
        fc.pre(total < expected.length);
        const gen = new MT19937(0);
        for (const p of parts) gen.discard(p);
        return gen.nextUint32() === expected[total];
      }),
    );
  });

  it('seeds are reduced mod 2^32 like a C++ uint32_t conversion', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.integer({ min: -2000, max: 2000 }), (s, k) => {
        const wrapped = s + k * 2 ** 32;
        expect(toUint32(wrapped)).toBe(s);
        expect(draws(new MT19937(wrapped), 3)).toEqual(draws(new MT19937(s), 3));
      }),
      { numRuns: 50 },
    );
    expect(draws(new MT19937(-1), 5)).toEqual(golden.seeds['4294967295']!.slice(0, 5));
    expect(toUint32(-(2 ** 32))).toBe(0);
    expect(toUint32(2 ** 60 + 768)).toBe(768); // exact even where doubles are 256 apart
  });

  it('getState/setState round-trips at any position', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        fc.integer({ min: 0, max: 2000 }),
        (seed, skip) => {
          const gen = new MT19937(seed);
          gen.discard(skip);
          const state = gen.getState();
          const ahead = draws(gen, 700);
          const other = new MT19937(12345);
          other.setState(state);
          expect(draws(other, 700)).toEqual(ahead);
          const clone = new MT19937(seed);
          clone.discard(skip);
          expect(draws(clone.clone(), 5)).toEqual(ahead.slice(0, 5));
        },
      ),
      { numRuns: 30 },
    );
  });

  it('getState returns a copy that later draws do not change', () => {
    const gen = new MT19937(7);
    const state = gen.getState();
    const before = state.mt.slice();
    draws(gen, 1000);
    expect(state.mt).toEqual(before);
  });

  it('rejects non-integer seeds, bad discard counts and malformed states with MXNetError', () => {
    const gen = new MT19937();
    for (const bad of [1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => gen.seed(bad)).toThrow(/seed must be an integer/);
    }
    expect(() => gen.discard(-1)).toThrow(/non-negative integer/);
    expect(() => gen.discard(0.5)).toThrow(/non-negative integer/);
    expect(() => gen.setState({ mt: new Uint32Array(10), index: 0 })).toThrow(/624 words/);
    expect(() => gen.setState({ mt: new Uint32Array(624), index: 625 })).toThrow(/state.index/);
    expect(() => gen.seed(0.25)).toThrow(MXNetError);
  });
});
