/**
 * Bucketing: hand-written tables of MXNet's rounding (Naive = RoundMultiple, Round = RoundPower2)
 * and fast-check comparisons against independent models written from the rules, not from the code.
 */
import { Env, MXNetError } from '@mx/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ilog2ul,
  naiveKey,
  roundMultipleSize,
  roundPower2Bucket,
  roundPower2Bytes,
  roundPower2Size,
} from './bucketing.js';
import { resolveManagerConfig, resolveManagerName } from './config.js';

const MiB = 2 ** 20;

/** Models: "round up to a multiple", and "next power of 2 up to 2^T, multiples of 2^T above". */
function modelNaive(size: number, page: number, large: number): number {
  const r = Math.ceil(size / page) * page;
  return r > large ? Math.ceil(r / large) * large : r;
}
function modelRound(size: number, page: number, cutoff: number): number {
  const linear = 2 ** cutoff;
  if (size > linear) return Math.ceil(size / linear) * linear;
  let p = page;
  while (p < size) p *= 2;
  return p;
}

describe('ilog2ul', () => {
  it.each([
    [0, 1],
    [1, 1],
    [2, 2],
    [3, 2],
    [4, 3],
    [4095, 12],
    [4096, 13],
    [2 ** 31, 32],
    [2 ** 32 - 1, 32],
    [2 ** 32, 33],
    [2 ** 34 - 1, 34],
    [2 ** 34, 35],
    [Number.MAX_SAFE_INTEGER, 53],
  ])('ilog2ul(%d) = %d', (x, k) => {
    expect(ilog2ul(x)).toBe(k);
  });
});

describe('RoundMultiple (Naive pool)', () => {
  it.each([
    [1, 4096],
    [4096, 4096],
    [4097, 8192],
    [2 * MiB - 1, 2 * MiB],
    [2 * MiB, 2 * MiB],
    [2 * MiB + 1, 4 * MiB],
    [5_000_000, 6 * MiB],
    [2 ** 34 + 1, 2 ** 34 + 2 * MiB],
  ])('default settings: %d bytes -> %d', (size, rounded) => {
    expect(roundMultipleSize(size, 4096, 2 * MiB)).toBe(rounded);
  });

  it('rounds to the large size even when it is not a multiple of the page', () => {
    expect(roundMultipleSize(33, 32, 1000)).toBe(64);
    expect(roundMultipleSize(999, 32, 1000)).toBe(2000); // 1024 > 1000 -> multiple of 1000
  });

  it('property: matches the model, and keys identify rounded sizes one-to-one', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 32, max: 65536 }),
        fc.integer({ min: 1, max: 2 ** 24 }),
        fc.integer({ min: 1, max: 2 ** 36 }),
        fc.integer({ min: 1, max: 2 ** 36 }),
        (page, large, a, b) => {
          const ra = roundMultipleSize(a, page, large);
          expect(ra).toBe(modelNaive(a, page, large));
          const rb = roundMultipleSize(b, page, large);
          expect(naiveKey(a, page, large) === naiveKey(b, page, large)).toBe(ra === rb);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('RoundPower2 (Round pool)', () => {
  it.each([
    [1, 4096],
    [4096, 4096],
    [4097, 8192],
    [65537, 131072],
    [2 ** 24, 2 ** 24],
    [2 ** 24 + 1, 2 ** 25],
    [3 * 2 ** 24 - 5, 3 * 2 ** 24],
    [2 ** 34, 2 ** 34],
    [2 ** 34 + 1, 2 ** 34 + 2 ** 24],
    [2 ** 40 + 3, 2 ** 40 + 2 ** 24],
  ])('default settings: %d bytes -> %d', (size, rounded) => {
    expect(roundPower2Size(size, 4096, 24)).toBe(rounded);
  });

  it('uses MXNet bucket ids', () => {
    const bucket = (s: number) => roundPower2Bucket(s, 12, 24, 2 ** 24);
    expect(bucket(1)).toBe(12);
    expect(bucket(4097)).toBe(13);
    expect(bucket(2 ** 24)).toBe(24);
    expect(bucket(2 ** 24 + 1)).toBe(25);
    expect(bucket(3 * 2 ** 24 - 5)).toBe(26);
    expect(roundPower2Bytes(26, 24)).toBe(3 * 2 ** 24);
    expect(roundPower2Bytes(24, 24)).toBe(2 ** 24);
  });

  it('property: matches the model for every page and cutoff', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 5, max: 20 }),
        fc.integer({ min: 20, max: 34 }),
        fc.integer({ min: 1, max: 2 ** 40 }),
        (logPage, cutoff, size) => {
          expect(roundPower2Size(size, 2 ** logPage, cutoff)).toBe(modelRound(size, 2 ** logPage, cutoff));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('manager settings', () => {
  it('picks managers from MXNET_* settings', () => {
    expect(resolveManagerName(new Env(), 'cpu')).toBe('Pooled (Naive)');
    expect(resolveManagerName(new Env({ MXNET_GPU_MEM_POOL_TYPE: 'Round' }), 'gpu')).toBe('Pooled (Round)');
    expect(resolveManagerName(new Env({ MXNET_CPU_PINNED_MEM_POOL_TYPE: 'Unpooled' }), 'cpu_pinned')).toBe(
      'Unpooled',
    );
    expect(resolveManagerName(new Env({ MXNET_USE_NAIVE_STORAGE_MANAGER: '1' }), 'gpu')).toBe('Unpooled');
    expect(resolveManagerName(new Env(), 'cpu_shared')).toBe('Unpooled');
    expect(resolveManagerConfig(new Env({ MXNET_CPU_POOL_PAGE_SIZE: '64' }), 'cpu')).toEqual({
      kind: 'Naive',
      page: 64,
      large: 2 * MiB,
      reservePercent: 5,
    });
  });

  it('rejects a Round page size that is not a power of 2, and a cutoff below log2(page)', () => {
    const bad = new Env({ MXNET_CPU_MEM_POOL_TYPE: 'Round', MXNET_CPU_POOL_PAGE_SIZE: '4000' });
    expect(() => resolveManagerConfig(bad, 'cpu')).toThrow(MXNetError);
    expect(() => resolveManagerConfig(bad, 'cpu')).toThrow(/MXNET_CPU_POOL_PAGE_SIZE/);
    const low = new Env({
      MXNET_GPU_MEM_POOL_TYPE: 'Round',
      MXNET_GPU_POOL_PAGE_SIZE: String(2 ** 22),
      MXNET_GPU_MEM_POOL_ROUND_LINEAR_CUTOFF: '21',
    });
    expect(() => resolveManagerConfig(low, 'gpu')).toThrow(/MXNET_GPU_MEM_POOL_ROUND_LINEAR_CUTOFF/);
  });
});
