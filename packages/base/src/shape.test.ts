import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import golden from './__golden__/base.json' with { type: 'json' };
import { MXNetError } from './error.js';
import {
  broadcastShapes,
  checkShape,
  fromLegacyShape,
  isShapeKnown,
  normalizeAxis,
  parseShape,
  shapeSize,
  shapesEqual,
  shapeToString,
  stridesOf,
  toLegacyShape,
} from './shape.js';

describe('shape helpers (NumPy semantics)', () => {
  it('broadcast like numpy.broadcast_shapes, raising where NumPy raises', () => {
    for (const c of golden.broadcast) {
      if (c.out === null) expect(() => broadcastShapes(...c.shapes)).toThrow(MXNetError);
      else expect(broadcastShapes(...c.shapes)).toEqual(c.out);
    }
  });

  it('count elements like numpy.prod: () is 1, a zero dim is 0', () => {
    for (const c of golden.size) expect(shapeSize(c.shape)).toBe(c.size);
    expect(shapeSize([])).toBe(1);
    expect(shapeSize([3, 0, 4])).toBe(0);
    expect(() => shapeSize([2, -1])).toThrow(/unknown/);
  });

  it('broadcast unknown dims (-1) against 1 and against known dims', () => {
    expect(broadcastShapes([-1, 3], [1, 3])).toEqual([-1, 3]);
    expect(broadcastShapes([-1, 3], [4, 3])).toEqual([4, 3]);
    expect(broadcastShapes([-1], [-1])).toEqual([-1]);
  });

  it('name the shapes in the broadcast error', () => {
    expect(() => broadcastShapes([2, 3], [4])).toThrow(/shapes \(2, 3\) \(4,\)/);
  });

  it('print and parse Python tuples', () => {
    expect(shapeToString([])).toBe('()');
    expect(shapeToString([5])).toBe('(5,)');
    expect(shapeToString([2, 3])).toBe('(2, 3)');
    expect(parseShape('(2, 3)')).toEqual([2, 3]);
    expect(parseShape('[2,3]')).toEqual([2, 3]);
    expect(parseShape('(5,)')).toEqual([5]);
    expect(parseShape('()')).toEqual([]);
    expect(parseShape('7')).toEqual([7]);
    expect(parseShape('(None, 4)')).toEqual([-1, 4]);
    expect(() => parseShape('(2, x)')).toThrow(/"x" is not an integer/);
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 1000 }), { maxLength: 6 }), (s) => {
        expect(parseShape(shapeToString(s))).toEqual(s);
      }),
    );
  });

  it('compute C-contiguous strides and normalise axes', () => {
    expect(stridesOf([2, 3, 4])).toEqual([12, 4, 1]);
    expect(stridesOf([])).toEqual([]);
    expect(stridesOf([3, 0, 2])).toEqual([0, 2, 1]);
    expect(normalizeAxis(-1, 3)).toBe(2);
    expect(normalizeAxis(0, 1)).toBe(0);
    expect(() => normalizeAxis(3, 3)).toThrow(/axis 3 is out of bounds for array of dimension 3/);
    expect(() => normalizeAxis(-4, 3)).toThrow(MXNetError);
  });

  it('check shapes and convert legacy (MXNet 1.x) shapes', () => {
    expect(() => checkShape([2, -1])).not.toThrow();
    expect(() => checkShape([2, -1], 'data', false)).toThrow(/invalid dimension -1 at axis 1/);
    expect(() => checkShape([2.5])).toThrow(MXNetError);
    expect(isShapeKnown([2, 0])).toBe(true);
    expect(isShapeKnown([2, -1])).toBe(false);
    expect(fromLegacyShape([128, 0])).toEqual([128, -1]);
    expect(fromLegacyShape([])).toBeUndefined();
    expect(toLegacyShape([128, -1])).toEqual([128, 0]);
    expect(toLegacyShape(undefined)).toEqual([]);
    expect(shapesEqual([1, 2], [1, 2]) && !shapesEqual([1, 2], [2, 1]) && !shapesEqual([1], [1, 1])).toBe(
      true,
    );
  });
});
