/**
 * dumps() writes floats as Python's repr does (image-augment.json float_repr, from CPython), and
 * lays out keyword arguments like json.dumps; the augmenters' own dumps are checked in
 * augmenters.test.ts.
 */
import { describe, expect, it } from 'vitest';
import golden from '../__golden__/image-augment.json' with { type: 'json' };
import { dumpsAugmenter, pyFloat } from './dumps.js';

describe('Python float repr', () => {
  it.each(golden.float_repr.map(([v, text]) => [text as string, v as number] as const))('%s', (text, v) => {
    expect(pyFloat(v)).toBe(text);
  });

  it('writes NaN and infinities as json.dumps does', () => {
    expect([
      pyFloat(Number.NaN),
      pyFloat(Number.POSITIVE_INFINITY),
      pyFloat(Number.NEGATIVE_INFINITY),
    ]).toEqual(['NaN', 'Infinity', '-Infinity']);
  });
});

describe('dumpsAugmenter', () => {
  it("lays out [name, {k: v}] with Python's separators, ints as ints and floats as floats", () => {
    const text = dumpsAugmenter('x', [
      ['size', [224, 224], 'int'],
      ['area', 1, 'float'],
      ['mean', null, 'float'],
      ['type', 'float32', 'str'],
      ['m', [[1, 0.5]], 'float'],
    ]);
    expect(text).toBe(
      '["x", {"size": [224, 224], "area": 1.0, "mean": null, "type": "float32", "m": [[1.0, 0.5]]}]',
    );
  });
});
