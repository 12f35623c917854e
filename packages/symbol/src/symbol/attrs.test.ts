/**
 * The attribute text of op calls: Python's `str()` of the value (expected strings are what
 * CPython 3 prints for the same values) and the C API's renaming of hidden keys.
 */
import { MXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { opAttrKey, pyFloat, pyStr, setAttrKey } from './attrs.js';

describe('pyStr: Python str() of the value', () => {
  it('writes booleans, None, tuples and strings as Python does', () => {
    expect([pyStr(true), pyStr(false), pyStr(null), pyStr('relu')]).toEqual([
      'True',
      'False',
      'None',
      'relu',
    ]);
    expect([pyStr([5, 5]), pyStr([5]), pyStr([]), pyStr([[1, 2], [3]])]).toEqual([
      '(5, 5)',
      '(5,)',
      '()',
      '((1, 2), (3,))',
    ]);
    expect(pyStr([true, null])).toBe('(True, None)');
    expect(pyStr(12n)).toBe('12');
  });

  it('writes numbers as Python ints and floats', () => {
    const cases: [number, string][] = [
      [3, '3'],
      [-7, '-7'],
      [0.1, '0.1'],
      [2.5, '2.5'],
      [1e-5, '1e-05'],
      [-1e-5, '-1e-05'],
      [0.0001, '0.0001'],
      [1.5e-7, '1.5e-07'],
      [0.1 + 0.2, '0.30000000000000004'],
      [123456789.123, '123456789.123'],
      [1.5e16, '15000000000000000'], // integral: written as Python writes the int
      [1.5e21, '1.5e+21'],
      [1.7976931348623157e308, '1.7976931348623157e+308'],
      [5e-324, '5e-324'],
      [Number.POSITIVE_INFINITY, 'inf'],
      [Number.NEGATIVE_INFINITY, '-inf'],
      [Number.NaN, 'nan'],
    ];
    for (const [v, text] of cases) expect([v, pyStr(v)]).toEqual([v, text]);
    // str(float(v)): MXNet's own float arguments (neg() -> -1.0, full(value) -> 2.0).
    expect([pyFloat(-1), pyFloat(2), pyFloat(0.5), pyFloat(1e16), pyFloat(1e-5)]).toEqual([
      '-1.0',
      '2.0',
      '0.5',
      '1e+16',
      '1e-05',
    ]);
  });

  it('refuses values Python would not have passed', () => {
    expect(() => pyStr({ a: 1 })).toThrow(MXNetError);
    expect(() => pyStr(undefined)).toThrow(/cannot write undefined/);
  });
});

describe('hidden keys (kHiddenKeys)', () => {
  it('op keywords: a key starting with a hidden key is stored as __key__', () => {
    expect(opAttrKey('lr_mult', '0.1')).toBe('__lr_mult__');
    expect(opAttrKey('ctx_group', 'dev1')).toBe('__ctx_group__');
    expect(opAttrKey('profiler_scope', 's')).toBe('__profiler_scope__');
    expect(opAttrKey('num_hidden', '3')).toBe('num_hidden');
    expect(opAttrKey('__mood__', 'x')).toBe('__mood__');
    expect(() => opAttrKey('weight_lr_mult', '0.1')).toThrow(
      /setting variable attributes with weight_lr_mult is deprecated/,
    );
  });

  it('setAttr: only the exact hidden key is renamed', () => {
    expect(setAttrKey('wd_mult', '0')).toBe('__wd_mult__');
    expect(setAttrKey('mood', 'x')).toBe('mood');
    expect(setAttrKey('__wd_mult__', '0')).toBe('__wd_mult__');
    expect(() => setAttrKey('bias_wd_mult', '0')).toThrow(
      /bias_wd_mult is deprecated[\s\S]*as the bias input/,
    );
  });
});
