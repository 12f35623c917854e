import { MXNetError } from '@mx/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeParams, formatParams, P, parseParams } from './params.js';

const schema = {
  num_hidden: P.int({ lowerBound: 1, doc: 'Number of hidden nodes of the output.' }),
  no_bias: P.bool({ default: false, doc: 'Whether to disable bias parameter.' }),
  flatten: P.bool({ default: true }),
  momentum: P.float({ default: 0.9, range: [0, 1] }),
  pool_type: P.enum(['avg', 'max', 'sum'], { default: 'max' }),
  kernel: P.shape({ default: [] }),
  axis: P.optional(P.int()),
  axes: P.optional(P.tuple(P.int())),
  dtype: P.dtype({ default: null }),
  name: P.string({ default: '' }),
};

describe('parseParams', () => {
  it('fills defaults and parses typed values', () => {
    const p = parseParams(schema, { num_hidden: 10 }, 'FullyConnected');
    expect(p).toEqual({
      num_hidden: 10,
      no_bias: false,
      flatten: true,
      momentum: 0.9,
      pool_type: 'max',
      kernel: [],
      axis: null,
      axes: null,
      dtype: null,
      name: '',
    });
    expect(Object.isFrozen(p)).toBe(true);
  });

  it("parses MXNet's string forms (symbol JSON attrs)", () => {
    const p = parseParams(
      schema,
      {
        num_hidden: '128',
        no_bias: 'True',
        flatten: '0',
        momentum: '1e-1',
        pool_type: 'avg',
        kernel: '(3, 3)',
        axis: 'None',
        axes: '[0,2]',
        dtype: 'float16',
        __lr_mult__: '2',
      },
      'op',
    );
    expect(p).toMatchObject({
      num_hidden: 128,
      no_bias: true,
      flatten: false,
      momentum: 0.1,
      pool_type: 'avg',
      kernel: [3, 3],
      axis: null,
      axes: [0, 2],
      dtype: 'float16',
    });
    expect(
      parseParams(schema, { num_hidden: 1, kernel: '(2,)', axis: '-1', momentum: '1' }, 'op'),
    ).toMatchObject({ kernel: [2], axis: -1 });
    expect(parseParams(schema, { num_hidden: 1, kernel: '()' }, 'op').kernel).toEqual([]);
    expect(parseParams({ x: P.float() }, { x: '-inf' }, 'op').x).toBe(Number.NEGATIVE_INFINITY);
    expect(Number.isNaN(parseParams({ x: P.float() }, { x: 'nan' }, 'op').x)).toBe(true);
  });

  it("reports an unknown key with MXNet's text, listing the valid arguments", () => {
    const err = (() => {
      try {
        parseParams(schema, { num_hidden: 1, nohidden: 3 }, 'FullyConnected');
      } catch (e) {
        return e as MXNetError;
      }
      throw new Error('no error');
    })();
    expect(err).toBeInstanceOf(MXNetError);
    expect(err.message).toContain("Cannot find argument 'nohidden', Possible Arguments:");
    expect(err.message).toContain('num_hidden : int, required');
    expect(err.message).toContain("pool_type : {'avg', 'max', 'sum'},optional, default='max'");
    expect(err.message).toContain('momentum : float, optional, default=0.9');
    expect(err.message).toContain(', in operator FullyConnected(name="", num_hidden="1", nohidden="3")');
    expect(err.op).toBe('FullyConnected');
  });

  it('reports missing, malformed, out-of-range and bad-enum values as MXNet does', () => {
    expect(() => parseParams(schema, {}, 'FullyConnected')).toThrow(
      'Required parameter num_hidden of int is not presented, in operator FullyConnected(name="")',
    );
    expect(() => parseParams(schema, { num_hidden: '1.5' }, 'op')).toThrow(
      "Invalid Parameter format for num_hidden expect int but value='1.5'",
    );
    expect(() => parseParams(schema, { num_hidden: 0 }, 'op')).toThrow(
      'value 0 for Parameter num_hidden should be greater equal to 1',
    );
    expect(() => parseParams(schema, { num_hidden: 1, momentum: 2 }, 'op')).toThrow(
      'value 2 for Parameter momentum exceed bound [0,1]',
    );
    expect(() => parseParams(schema, { num_hidden: 1, pool_type: 'mean' }, 'op')).toThrow(
      "Invalid Input: 'mean', valid values are: {'avg', 'max', 'sum'}",
    );
    expect(() => parseParams(schema, { num_hidden: 1, no_bias: 'yes' }, 'op')).toThrow(
      "Invalid Parameter format for no_bias expect boolean but value='yes'",
    );
    expect(() => parseParams(schema, { num_hidden: 1, kernel: '(3, x)' }, 'op')).toThrow(
      "Invalid Parameter format for kernel expect Shape(tuple) but value='(3, x)'",
    );
    expect(() => parseParams(schema, { num_hidden: 1, axis: 'one' }, 'op')).toThrow(
      "Invalid Parameter format for axis expect int or None but value='one'",
    );
    expect(() => parseParams(schema, { num_hidden: 1, dtype: 'float128' }, 'op')).toThrow(
      /Invalid Input: 'float128'/,
    );
  });

  it('round-trips every valid value through its string form (property)', () => {
    const value = fc.record({
      num_hidden: fc.integer({ min: 1, max: 1 << 30 }),
      no_bias: fc.boolean(),
      momentum: fc.double({ min: 0, max: 1, noNaN: true }),
      pool_type: fc.constantFrom('avg', 'max', 'sum'),
      kernel: fc.array(fc.integer({ min: -4, max: 1 << 20 }), { maxLength: 5 }),
      axis: fc.option(fc.integer({ min: -8, max: 8 }), { nil: null }),
    });
    fc.assert(
      fc.property(value, (v) => {
        const parsed = parseParams(schema, v, 'op');
        const text = formatParams(schema, parsed);
        const again = parseParams(schema, text, 'op');
        expect(again).toEqual(parsed);
        for (const t of Object.values(text)) expect(typeof t).toBe('string');
      }),
    );
  });

  it('never throws anything but MXNetError on arbitrary input (property)', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null))),
        (input) => {
          try {
            parseParams(schema, input, 'op');
          } catch (e) {
            expect(e).toBeInstanceOf(MXNetError);
          }
        },
      ),
    );
  });

  it('documents fields', () => {
    expect(describeParams({ a: P.int({ default: 1, doc: 'the a' }) })).toBe(
      'a : int, optional, default=1\n    the a',
    );
  });

  it('states the TypeScript type of the typed values each field accepts, and small value sets', () => {
    const typed = (s: { tsType: string; choices: unknown }) => [s.tsType, s.choices];
    expect(typed(P.int())).toEqual(['number', undefined]);
    expect(typed(P.double({ default: 1 }))).toEqual(['number', undefined]);
    expect(typed(P.bool({ default: false }))).toEqual(['boolean', [false, true]]);
    expect(typed(P.string({ default: '' }))).toEqual(['string', undefined]);
    expect(typed(P.enum(['a', 'b']))).toEqual(["'a' | 'b'", ['a', 'b']]);
    expect(typed(P.shape())).toEqual(['number | readonly number[]', undefined]);
    expect(typed(P.tuple(P.float()))).toEqual(['number | readonly number[]', undefined]);
    expect(typed(P.tuple(P.enum(['x', 'y'])))[0]).toBe("'x' | 'y' | readonly ('x' | 'y')[]");
    expect(typed(P.optional(P.int()))).toEqual(['number | null', undefined]);
    expect(typed(P.optional(P.bool()))).toEqual(['boolean | null', [false, true, null]]);
    expect(P.dtype({ default: 'float32' }).tsType).toBe('DTypeName');
    expect(P.dtype({ default: null }).tsType).toBe('DTypeName | null');
    expect(P.dtype({ default: null }).choices).toContain(null);
    // Every choice parses (the declaration generator probes ops with them).
    const optEnum = P.optional(P.enum(['p', 'q']));
    for (const c of optEnum.choices ?? []) expect(optEnum.parse(c, 'k')).toBe(c);
  });
});
