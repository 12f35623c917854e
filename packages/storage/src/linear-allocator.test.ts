/**
 * LinearAllocator: unit cases for fit policy, coalescing and errors, and a fast-check property that
 * drives random alloc/free sequences (with and without growth) and checks the layout after each step.
 */
import { MXNetError } from '@mx/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LinearAllocator } from './linear-allocator.js';

const roundUp = (x: number, m: number): number => Math.ceil(x / m) * m;

describe('LinearAllocator', () => {
  it('hands out aligned offsets from base upwards and never 0', () => {
    const a = new LinearAllocator({ capacity: 1024 });
    expect(a.base).toBe(16);
    expect(a.alloc(1)).toBe(16);
    expect(a.alloc(17)).toBe(32);
    expect(a.alloc(16)).toBe(64);
    expect(a.usedBytes).toBe(16 + 32 + 16);
    expect(a.freeBytes).toBe(1024 - 16 - 64);
    expect(a.blockSize(32)).toBe(32);
  });

  it('returns null when the request does not fit and there is no grow()', () => {
    const a = new LinearAllocator({ capacity: 256, alignment: 16 });
    expect(a.alloc(240)).toBe(16);
    expect(a.alloc(1)).toBeNull();
    expect(a.freeBytes).toBe(0);
    expect(a.memoryInfo()).toEqual({ free: 0, total: 256 });
  });

  it('uses the best-fitting hole, not the first one', () => {
    const a = new LinearAllocator({ capacity: 4096, alignment: 16, base: 0 });
    const p = [64, 16, 32, 16, 16].map((s) => a.alloc(s) as number); // 0, 64, 80, 112, 128
    expect(p).toEqual([0, 64, 80, 112, 128]);
    a.free(0, 64); // hole [0, 64)
    a.free(80, 32); // hole [80, 112)
    expect(a.numFreeBlocks).toBe(2);
    expect(a.alloc(32)).toBe(80); // exact fit, although [0, 64) comes first
    expect(a.alloc(16)).toBe(0); // split the 64 hole
    expect(a.numFreeBlocks).toBe(1);
    expect(a.largestFreeBlock()).toBe(4096 - 144);
  });

  it('coalesces neighbours in every free order and gives back one block', () => {
    for (const order of [
      [0, 1, 2],
      [2, 1, 0],
      [1, 0, 2],
      [0, 2, 1],
      [2, 0, 1],
    ]) {
      const a = new LinearAllocator({ capacity: 1024 });
      const p = [a.alloc(100), a.alloc(200), a.alloc(300), a.alloc(16)] as number[];
      const sizes = [100, 200, 300];
      for (const i of order) a.free(p[i] as number, sizes[i] as number);
      expect(a.numFreeBlocks).toBe(1);
      expect(a.largestFreeBlock()).toBe((p[3] as number) - a.base); // the hole [base, p[3])
      a.free(p[3] as number, 16);
      expect(a.numFreeBlocks).toBe(0);
      expect(a.top).toBe(a.base);
      expect(a.largestFreeBlock()).toBe(1024 - 16);
    }
  });

  it('grows through grow() and honours maxCapacity', () => {
    const calls: number[] = [];
    const a = new LinearAllocator({
      capacity: 64,
      maxCapacity: 1024,
      grow: (min) => {
        calls.push(min);
        return roundUp(min, 256);
      },
    });
    expect(a.alloc(100)).toBe(16);
    expect(calls).toEqual([128]);
    expect(a.capacity).toBe(256);
    expect(a.alloc(2000)).toBeNull(); // beyond maxCapacity: grow() not even asked
    expect(calls).toEqual([128]);
    expect(a.memoryInfo()).toEqual({ free: 1024 - 256 + 256 - 16 - 112, total: 1024 });
  });

  it('returns null when grow() refuses, and rejects a shrinking grow()', () => {
    const a = new LinearAllocator({ capacity: 64, grow: () => null });
    expect(a.alloc(100)).toBeNull();
    expect(a.memoryInfo().total).toBe(Number.POSITIVE_INFINITY);
    const b = new LinearAllocator({ capacity: 64, grow: () => 32 });
    expect(() => b.alloc(100)).toThrow(MXNetError);
    expect(b.alloc(16)).toBe(16);
  });

  it('throws MXNetError on double free, foreign offsets and wrong sizes, and stays consistent', () => {
    const a = new LinearAllocator({ capacity: 1024 });
    const p = a.alloc(32) as number;
    expect(() => a.free(p, 64)).toThrow(/holds 32 bytes/);
    a.free(p, 32);
    expect(() => a.free(p, 32)).toThrow(MXNetError);
    expect(() => a.free(999, 16)).toThrow(/not a live block/);
    expect(() => a.alloc(-1)).toThrow(MXNetError);
    expect(a.usedBytes).toBe(0);
    expect(a.alloc(32)).toBe(p);
  });

  it('rejects bad options', () => {
    expect(() => new LinearAllocator({ capacity: 1024, alignment: 24 })).toThrow(/power of 2/);
    expect(() => new LinearAllocator({ capacity: 1024, base: 8 })).toThrow(/multiple of alignment/);
    expect(() => new LinearAllocator({ capacity: 8 })).toThrow(/capacity/);
    expect(() => new LinearAllocator({ capacity: 64, maxCapacity: 32 })).toThrow(/maxCapacity/);
  });

  type Op = { kind: 'alloc'; size: number } | { kind: 'free'; pick: number };
  const opArb: fc.Arbitrary<Op> = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({ kind: fc.constant('alloc' as const), size: fc.integer({ min: 0, max: 3000 }) }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant('alloc' as const), size: fc.integer({ min: 0, max: 40000 }) }),
    },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('free' as const), pick: fc.nat() }) },
  );

  it('property: no overlap, alignment, exact byte accounting, full coalescing at the end', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(1, 8, 16, 64, 256),
        fc.integer({ min: 1024, max: 65536 }),
        fc.boolean(),
        fc.array(opArb, { maxLength: 120 }),
        (alignment, cap, growable, ops) => {
          const capacity = roundUp(cap, alignment);
          const maxCapacity = capacity * 4;
          const a = new LinearAllocator({
            capacity,
            alignment,
            ...(growable
              ? { maxCapacity, grow: (min: number) => Math.min(maxCapacity, roundUp(min, 4096)) }
              : {}),
          });
          const live: { ptr: number; size: number; bytes: number }[] = [];
          for (const op of ops) {
            if (op.kind === 'alloc') {
              const bytes = roundUp(Math.max(op.size, 1), alignment);
              const canFitWithoutGrowing = a.largestFreeBlock() >= bytes;
              const ptr = a.alloc(op.size);
              if (ptr === null) {
                expect(canFitWithoutGrowing).toBe(false);
                if (growable) expect(a.top + bytes).toBeGreaterThan(maxCapacity);
              } else {
                live.push({ ptr, size: op.size, bytes });
              }
            } else if (live.length > 0) {
              const [block] = live.splice(op.pick % live.length, 1);
              if (block) a.free(block.ptr, block.size);
            }
            const sorted = [...live].sort((x, y) => x.ptr - y.ptr);
            let end = a.base;
            for (const b of sorted) {
              expect(b.ptr % alignment).toBe(0);
              expect(b.ptr).toBeGreaterThanOrEqual(end);
              end = b.ptr + b.bytes;
            }
            expect(end).toBeLessThanOrEqual(a.capacity);
            const used = live.reduce((s, b) => s + b.bytes, 0);
            expect(a.usedBytes).toBe(used);
            expect(a.freeBytes).toBe(a.capacity - a.base - used);
            expect(a.numLiveBlocks).toBe(live.length);
          }
          for (const b of live.splice(0)) a.free(b.ptr, b.size);
          expect(a.numFreeBlocks).toBe(0);
          expect(a.top).toBe(a.base);
          expect(a.largestFreeBlock()).toBe(a.capacity - a.base);
        },
      ),
      { numRuns: 300 },
    );
  });
});
