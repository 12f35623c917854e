/**
 * Unit tests of the reduce family's host-side planning (no CUDA involved): axis merging into kept
 * and reduced segments, lane geometry, launch shapes, and the C conversion snippets' choices.
 */
import { describe, expect, it } from 'vitest';
import { accKind, castC, extremeC } from './cgen.js';
import {
  broadcastFlags,
  LMAX,
  laneGeometry,
  reducedFlags,
  reduceGeometry,
  reduceLaunch,
} from './geometry.js';

describe('reduce geometry', () => {
  it('merges adjacent axes of the same role and drops size-1 axes', () => {
    const g = reduceGeometry('sum', [2, 3, 4, 5], [false, true, true, false]);
    expect(g.kept).toEqual([
      { size: 2, stride: 60 },
      { size: 5, stride: 1 },
    ]);
    expect(g.red).toEqual([{ size: 12, stride: 5 }]);
    expect(g.count).toBe(12);
    expect(g.outs).toBe(10);
    expect(g.innerKept).toBe(true);
    const h = reduceGeometry('sum', [2, 1, 3], [true, false, true]);
    expect(h.kept).toEqual([]);
    expect(h.red).toEqual([{ size: 6, stride: 1 }]);
    expect(h.innerKept).toBe(false);
  });

  it('reports empty reductions without segments', () => {
    const g = reduceGeometry('sum', [0, 3], [true, false]);
    expect(g).toMatchObject({ count: 0, outs: 3, kept: [], red: [] });
  });

  it('refuses more than MAXD groups of one role', () => {
    const shape = Array.from({ length: 18 }, () => 2);
    const flags = shape.map((_, i) => i % 2 === 0);
    expect(() => reduceGeometry('sum', shape, flags)).toThrow(/at most 8/);
  });

  it('reads axis/exclude like MXNet', () => {
    expect(reducedFlags(3, null, false)).toEqual([true, true, true]);
    expect(reducedFlags(3, [-1], false)).toEqual([false, false, true]);
    expect(reducedFlags(3, [0], true)).toEqual([false, true, true]);
    expect(broadcastFlags([4, 3, 5], [3, 1])).toEqual([true, false, true]);
  });

  it('computes (outer, n, inner) lanes', () => {
    expect(laneGeometry([2, 3, 4], 1)).toEqual([2, 3, 4]);
    expect(laneGeometry([2, 3, 4], -1)).toEqual([6, 4, 1]);
    expect(laneGeometry([2, 3, 4], null)).toEqual([1, 24, 1]);
  });

  it('chooses threads per output and chunks', () => {
    expect(reduceLaunch(100, 10, false)).toEqual({ S: 1, C: 1, L: 10 });
    expect(reduceLaunch(1, 8192, false)).toEqual({ S: 256, C: 1, L: 8192 });
    expect(reduceLaunch(1, 1000, false)).toEqual({ S: 32, C: 1, L: 1000 });
    expect(reduceLaunch(100000, 1000, true).S).toBe(4);
    const big = reduceLaunch(1, LMAX * 10 + 1, false);
    expect(big.C).toBe(11);
    expect(big.C * big.L).toBeGreaterThanOrEqual(LMAX * 10 + 1);
    expect(big.L).toBeLessThanOrEqual(LMAX);
  });
});

describe('reduce C snippets', () => {
  it('accumulates like cpu-wasm: integers in their own width, 16-bit floats in f32', () => {
    expect(accKind('float16')).toBe('f32');
    expect(accKind('bfloat16')).toBe('f32');
    expect(accKind('float32')).toBe('f32');
    expect(accKind('float64')).toBe('f64');
    expect(accKind('int8')).toBe('i32');
    expect(accKind('int64')).toBe('i64');
  });

  it('casts floats to narrow integers through int and wraps int64 to 32 bits', () => {
    expect(castC('f32', 'int8', 'v')).toBe('(signed char)(int)(v)');
    expect(castC('i64', 'int32', 'v')).toBe('(int)(unsigned)(v)');
    expect(castC('f32', 'float16', 'v')).toBe('mx_f2h((float)(v))');
    expect(extremeC('uint8', 'i32', true)).toBe('255');
    expect(extremeC('float32', 'f32', false)).toContain('0x7f800000');
  });
});
