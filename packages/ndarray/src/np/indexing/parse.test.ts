/**
 * The string mini-language: Python subscript forms by hand, errors with their column, and
 * fast-check fuzzing (fixed seed, bounded): arbitrary text never throws anything but MXNetError,
 * and formatIndex/parseIndex round-trip every basic index. (The recorded NumPy keys' Python text
 * is parsed in golden.test.ts.)
 */
import { MXNetError } from '@mx/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatIndex, parseIndex } from './parse.js';
import { ellipsis, type IndexItem, s } from './types.js';

describe('parseIndex', () => {
  it.each([
    ['1:5, ..., ::-1', [s(1, 5), ellipsis, s(null, null, -1)]],
    ['0', 0],
    ['-3', -3],
    ['- 3', -3],
    ['+2', 2],
    ['-0', 0],
    ['0,', [0]],
    ['', []],
    ['   ', []],
    [':', s()],
    ['::', s()],
    ['::2', s(null, null, 2)],
    ['1:', s(1)],
    [':-1', s(null, -1)],
    ['1:2:', s(1, 2)],
    [' 1 : 2 : -1 ', s(1, 2, -1)],
    ['None, 0', [null, 0]],
    ['newaxis', null],
    ['np.newaxis, ...', [null, ellipsis]],
    ['...', ellipsis],
    ['True', true],
    ['False,', [false]],
    ['\t2 ,\n3', [2, 3]],
  ] as [string, unknown][])('%j', (text, want) => {
    expect(parseIndex(text)).toEqual(want);
  });

  it.each([
    ['1:2:3:4', 'expected \',\' but found ":" at column 6'],
    ['a', 'unexpected "a" at column 1'],
    ['1,,2', 'unexpected "," at column 3'],
    ['-', 'expected digits after the sign at column 2'],
    ['Nonesuch', 'unexpected "N" at column 1'],
    ['1 2', 'expected \',\' but found "2" at column 3'],
    ['99999999999999999999', 'integer out of range at column 1'],
    ['1.5', 'expected \',\' but found "." at column 2'],
    [',', 'unexpected "," at column 1'],
    ['[0, 1]', 'unexpected "[" at column 1'],
  ])('refuses %j', (text, what) => {
    let err: unknown;
    try {
      parseIndex(text);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MXNetError);
    expect((err as MXNetError).reason).toContain(what);
    expect((err as MXNetError).hint).toContain('Python subscript syntax');
  });

  it('formats and refuses non-basic items in the string form', () => {
    expect(formatIndex([s(1, 5), ellipsis, s(null, null, -1)])).toBe('1:5, ..., ::-1');
    expect(formatIndex([null])).toBe('None,');
    expect(formatIndex(0)).toBe('0');
    expect(formatIndex([])).toBe('');
    expect(() => formatIndex([[0, 1]])).toThrow(MXNetError);
    expect(() => formatIndex(1.5)).toThrow(MXNetError);
  });
});

const intArb = fc.integer({ min: -1_000_000, max: 1_000_000 });
const optInt = fc.option(intArb, { nil: null });
const itemArb: fc.Arbitrary<IndexItem> = fc.oneof(
  intArb,
  fc.boolean(),
  fc.constant(null),
  fc.constant(ellipsis),
  fc.tuple(optInt, optInt, optInt).map(([a, b, c]) => s(a, b, c)),
);

describe('parseIndex fuzzing (fast-check, seed 16)', () => {
  it('throws nothing but MXNetError on arbitrary text', () => {
    const alphabet = fc.constantFrom(...'0123456789-+:,. \t\n[]()NoneTrueFalsnewaxisp.…é\u0000'.split(''));
    const text = fc.oneof(fc.string({ unit: alphabet, maxLength: 40 }), fc.string({ maxLength: 40 }));
    fc.assert(
      fc.property(text, (t) => {
        try {
          parseIndex(t);
        } catch (e) {
          if (!(e instanceof MXNetError)) throw e;
        }
      }),
      { seed: 16, numRuns: 3000 },
    );
  });

  it('round-trips formatIndex for every basic index', () => {
    const index = fc.oneof(itemArb, fc.array(itemArb, { maxLength: 6 }));
    fc.assert(
      fc.property(index, (i) => {
        expect(parseIndex(formatIndex(i))).toEqual(i);
      }),
      { seed: 16, numRuns: 2000 },
    );
  });

  it('parses mutated valid strings to the same result or an MXNetError', () => {
    const arb = fc.tuple(
      fc.array(itemArb, { minLength: 1, maxLength: 5 }),
      fc.nat(60),
      fc.constantFrom(' ', ',', ':', '-', ''),
    );
    fc.assert(
      fc.property(arb, ([items, at, ch]) => {
        const text = formatIndex(items);
        const k = at % (text.length + 1);
        const mutated = text.slice(0, k) + ch + text.slice(k);
        try {
          const again = parseIndex(mutated);
          // Whatever it parses to formats to text that parses back to it.
          expect(parseIndex(formatIndex(again))).toEqual(again);
        } catch (e) {
          if (!(e instanceof MXNetError)) throw e;
        }
      }),
      { seed: 16, numRuns: 2000 },
    );
  });
});
