/** compareArrays follows numpy.allclose (equal_nan) and reports where and by how much arrays differ. */
import { describe, expect, it } from 'vitest';
import { compareArrays, isClose } from './compare.js';
import { toBFloat16Bits, toFloat16Bits } from './half.js';
import type { CaseArray } from './types.js';

const f32 = (data: number[], shape = [data.length]): CaseArray => ({
  shape,
  dtype: 'float32',
  data: Float32Array.from(data),
});

describe('compareArrays', () => {
  it('uses |a - e| <= atol + rtol * |e|', () => {
    expect(isClose(1.0001, 1, 1e-4, 0)).toBe(true);
    expect(isClose(1.0003, 1, 1e-4, 0)).toBe(false);
    expect(isClose(0.5e-6, 0, 1e-4, 1e-6)).toBe(true);
    expect(isClose(100, 101, 0.01, 0)).toBe(true); // relative to the expected value
    expect(isClose(101, 100, 0.01, 0)).toBe(true);
    expect(isClose(102, 100, 0.01, 0)).toBe(false);
  });

  it('treats nan as equal only to nan, inf only to the same inf', () => {
    expect(isClose(Number.NaN, Number.NaN, 0, 0)).toBe(true);
    expect(isClose(Number.NaN, 1, 1, 1)).toBe(false);
    expect(isClose(1, Number.NaN, 1, 1)).toBe(false);
    expect(isClose(Infinity, Infinity, 0, 0)).toBe(true);
    expect(isClose(-Infinity, Infinity, 1, 1)).toBe(false);
    expect(isClose(1e308, Infinity, 1, 1)).toBe(false);
  });

  it('compares int64 exactly as BigInt', () => {
    const a: CaseArray = { shape: [2], dtype: 'int64', data: BigInt64Array.from([2n ** 60n, 1n]) };
    const b: CaseArray = { shape: [2], dtype: 'int64', data: BigInt64Array.from([2n ** 60n + 1n, 1n]) };
    expect(compareArrays(a, a, 0, 0).ok).toBe(true);
    const r = compareArrays(a, b, 0, 0);
    expect(r.ok).toBe(false);
    expect(r.mismatches[0]).toMatchObject({ flat: 0, actual: 2n ** 60n, expected: 2n ** 60n + 1n });
  });

  it('decodes float16 and bfloat16 bits before comparing', () => {
    const h = (v: number[]): CaseArray => ({
      shape: [v.length],
      dtype: 'float16',
      data: Uint16Array.from(v.map(toFloat16Bits)),
    });
    expect(compareArrays(h([1, 2.5]), h([1, 2.5]), 0, 0).ok).toBe(true);
    expect(compareArrays(h([1, 2.5]), h([1, 2.501]), 1e-3, 1e-3).ok).toBe(true);
    const b = (v: number[]): CaseArray => ({
      shape: [v.length],
      dtype: 'bfloat16',
      data: Uint16Array.from(v.map(toBFloat16Bits)),
    });
    expect(compareArrays(b([3]), b([3.1]), 0, 0).ok).toBe(false);
  });

  it('reports shape and dtype mismatches and the first differing elements', () => {
    expect(compareArrays(f32([1, 2]), f32([1, 2], [2, 1]), 0, 0).message).toBe('shape (2,), expected (2, 1)');
    const d: CaseArray = { shape: [2], dtype: 'float64', data: Float64Array.from([1, 2]) };
    expect(compareArrays(d, f32([1, 2]), 0, 0).message).toBe('dtype float64, expected float32');
    const r = compareArrays(f32([0, 1, 2, 3, 4, 5], [2, 3]), f32([0, 1, 9, 3, 4, 7], [2, 3]), 1e-5, 1e-6, {
      maxReported: 1,
    });
    expect(r.ok).toBe(false);
    expect(r.mismatchCount).toBe(2);
    expect(r.mismatches).toHaveLength(1);
    expect(r.mismatches[0]!.index).toEqual([0, 2]);
    expect(r.message).toContain('2 of 6 elements differ');
    expect(r.message).toContain('at [0, 2]: 2 vs expected 9');
  });

  it('accepts empty and zero-dim arrays', () => {
    expect(compareArrays(f32([], [0, 3]), f32([], [0, 3]), 0, 0).ok).toBe(true);
    expect(compareArrays(f32([7], []), f32([7], []), 0, 0).ok).toBe(true);
  });
});
