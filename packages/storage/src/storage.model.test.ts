/**
 * Model-based property test of Storage over a LinearAllocator, for the Naive, Round and Unpooled
 * managers. The test keeps its own model of the pool (bucket rules written from MXNet's spec, LIFO
 * reuse, reserve check, release-and-retry, every counter) and compares after each random step:
 * stats field by field, the pointer each pool hit must return, non-overlap of live and cached
 * blocks, and the allocator's byte accounting. Whether a device allocation succeeds depends on
 * fragmentation, which the model does not simulate: a spy records each device call, the model
 * checks that the call was the one it predicted and that a failure was genuine (no hole was big
 * enough), then follows the recorded outcome.
 */
import { cpu, Env, MXNetError } from '@mx/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DeviceAllocator } from './device-allocator.js';
import { LinearAllocator } from './linear-allocator.js';
import type { StorageStats } from './managers/stats.js';
import { Storage, type StorageHandle } from './storage.js';

const MiB = 2 ** 20;
const CAPACITY = 8 * MiB;
const ALIGN = 16;
const roundUp = (x: number, m: number): number => Math.ceil(x / m) * m;

type Kind = 'Naive' | 'Round' | 'Unpooled';
interface Setup {
  kind: Kind;
  page: number;
  large: number;
  cutoff: number;
  reserve: number;
}

function modelRounded(s: Setup, size: number): number {
  if (s.kind === 'Unpooled') return size;
  if (s.kind === 'Naive') {
    const r = roundUp(size, s.page);
    return r > s.large ? roundUp(r, s.large) : r;
  }
  const linear = 2 ** s.cutoff;
  if (size > linear) return roundUp(size, linear);
  let p = s.page;
  while (p < size) p *= 2;
  return p;
}

interface DeviceCall {
  size: number;
  result: number | null;
  largestBefore: number;
}

/** Records every device allocation so the model can follow (and check) what the device did. */
function spy(inner: LinearAllocator, log: DeviceCall[]): DeviceAllocator<number> {
  return {
    name: 'spy',
    alignment: inner.alignment,
    alloc(size) {
      const largestBefore = inner.largestFreeBlock();
      const result = inner.alloc(size);
      log.push({ size, result, largestBefore });
      return result;
    },
    free: (ptr, size) => inner.free(ptr, size),
    memoryInfo: () => inner.memoryInfo(),
  };
}

type Op =
  | { op: 'alloc'; size: number; failsafe: boolean }
  | { op: 'free' | 'directFree' | 'doubleFree'; pick: number }
  | { op: 'releaseAll' };

const sizeArb = fc.oneof(
  { weight: 1, arbitrary: fc.constant(0) },
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 5000 }) },
  { weight: 2, arbitrary: fc.constantFrom(32, 4096, 4097, 65536, 65537) },
  { weight: 3, arbitrary: fc.integer({ min: 5000, max: 3 * MiB }) },
  { weight: 1, arbitrary: fc.integer({ min: 9 * MiB, max: 2 ** 40 }) },
);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({ op: fc.constant('alloc' as const), size: sizeArb, failsafe: fc.boolean() }),
  },
  { weight: 5, arbitrary: fc.record({ op: fc.constant('free' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('directFree' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('doubleFree' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ op: 'releaseAll' as const }) },
);
const setupArb: fc.Arbitrary<Setup> = fc.record({
  kind: fc.constantFrom<Kind>('Naive', 'Round', 'Unpooled'),
  page: fc.constantFrom(32, 64, 512, 4096),
  large: fc.constantFrom(65536, 100000, 2 * MiB),
  cutoff: fc.constantFrom(20, 21, 22),
  reserve: fc.integer({ min: 0, max: 20 }),
});

interface Block {
  h: StorageHandle<number>;
  ptr: number;
  size: number;
  rounded: number;
}

function run(s: Setup, ops: Op[]): void {
  const linear = new LinearAllocator({ capacity: CAPACITY, alignment: ALIGN });
  const log: DeviceCall[] = [];
  const env = new Env({
    MXNET_CPU_MEM_POOL_TYPE: s.kind,
    MXNET_CPU_POOL_PAGE_SIZE: String(s.page),
    MXNET_CPU_MEM_LARGE_ALLOC_ROUND_SIZE: String(s.large),
    MXNET_CPU_MEM_POOL_ROUND_LINEAR_CUTOFF: String(s.cutoff),
    MXNET_CPU_MEM_POOL_RESERVE: String(s.reserve),
  });
  const storage = new Storage({ env, allocators: { cpu: () => spy(linear, log) } });
  const ctx = cpu(0);
  const pooled = s.kind !== 'Unpooled';
  const m = {
    bytesInUse: 0,
    bytesRequested: 0,
    bytesPooled: 0,
    peakBytesInUse: 0,
    peakBytesReserved: 0,
    liveHandles: 0,
    numAllocs: 0,
    numFrees: 0,
    numDeviceAllocs: 0,
    numDeviceFrees: 0,
    numPoolHits: 0,
    numReleases: 0,
  };
  let created = false;
  let held = 0; // footprint in the LinearAllocator of every block the manager holds
  const live: Block[] = [];
  const freed: StorageHandle<number>[] = [];
  const cache = new Map<number, number[]>(); // rounded -> ptrs, most recent last

  const releaseAll = (): void => {
    m.numReleases++;
    for (const [rounded, ptrs] of cache) {
      m.numDeviceFrees += ptrs.length;
      m.bytesPooled -= rounded * ptrs.length;
      held -= roundUp(rounded, ALIGN) * ptrs.length;
    }
    cache.clear();
  };
  let seen = 0;
  const device = (bytes: number): number | null => {
    const call = log[seen++];
    expect(call?.size).toBe(bytes);
    if (call?.result === null) expect(call.largestBefore).toBeLessThan(roundUp(bytes, ALIGN));
    return call?.result ?? null;
  };

  for (const op of ops) {
    if (op.op === 'alloc') {
      // Run it first: the model then replays the device calls the spy recorded.
      let h: StorageHandle<number> | undefined;
      let thrown: unknown;
      try {
        h = storage.alloc<number>(op.size, ctx, { name: `a${op.size}`, failsafe: op.failsafe });
      } catch (e) {
        thrown = e;
      }
      const rounded = modelRounded(s, op.size);
      let predicted: number | null | undefined; // a pool hit's pointer
      let result: number | null = null;
      if (op.size > 0) {
        created = true;
        const bucket = cache.get(rounded);
        if (pooled && bucket !== undefined && bucket.length > 0) {
          predicted = bucket.pop() as number;
          m.bytesPooled -= rounded;
          m.numPoolHits++;
          result = predicted;
        } else {
          if (pooled) {
            const free = CAPACITY - ALIGN - held;
            const reserve = (CAPACITY * s.reserve) / 100;
            if (!(free > rounded && reserve <= free - rounded)) releaseAll();
          }
          result = device(rounded);
          if (result === null && pooled) {
            releaseAll();
            result = device(rounded);
          }
          if (result !== null) {
            m.numDeviceAllocs++;
            held += roundUp(rounded, ALIGN);
          }
        }
      }
      if (thrown !== undefined) {
        expect(thrown).toBeInstanceOf(MXNetError);
        expect((thrown as MXNetError).reason).toMatch(/Memory allocation failed/);
        expect(op.size > 0 && result === null && !op.failsafe).toBe(true);
      }
      if (h !== undefined) {
        expect(h.size).toBe(op.size);
        expect(h.dptr).toBe(op.size === 0 ? null : result);
        if (predicted !== undefined) expect(h.dptr).toBe(predicted);
        if (result !== null) {
          live.push({ h, ptr: result, size: op.size, rounded });
          m.numAllocs++;
          m.liveHandles++;
          m.bytesInUse += rounded;
          m.bytesRequested += op.size;
          expect(h.actualSize).toBe(rounded);
        }
      }
    } else if (op.op === 'releaseAll') {
      if (created) releaseAll();
      storage.releaseAll(ctx);
      const liveFootprint = live.reduce((t, b) => t + roundUp(b.rounded, ALIGN), 0);
      expect(linear.freeBytes).toBe(CAPACITY - ALIGN - liveFootprint);
    } else if (op.op === 'doubleFree') {
      const h = freed[op.pick % Math.max(freed.length, 1)];
      if (h !== undefined) {
        expect(() => storage.free(h)).toThrow(/double free/);
        expect(() => storage.directFree(h)).toThrow(MXNetError);
      }
    } else if (live.length > 0) {
      const [b] = live.splice(op.pick % live.length, 1) as [Block];
      m.numFrees++;
      m.liveHandles--;
      m.bytesInUse -= b.rounded;
      m.bytesRequested -= b.size;
      if (pooled && op.op === 'free') {
        const bucket = cache.get(b.rounded) ?? [];
        bucket.push(b.ptr);
        cache.set(b.rounded, bucket);
        m.bytesPooled += b.rounded;
      } else {
        m.numDeviceFrees++;
        held -= roundUp(b.rounded, ALIGN);
      }
      if (op.op === 'free') storage.free(b.h);
      else storage.directFree(b.h);
      expect(b.h.live).toBe(false);
      freed.push(b.h);
    }
    m.peakBytesInUse = Math.max(m.peakBytesInUse, m.bytesInUse);
    m.peakBytesReserved = Math.max(m.peakBytesReserved, m.bytesInUse + m.bytesPooled);

    expect(seen).toBe(log.length); // no device call the model did not predict
    const expected: StorageStats = {
      ctx: 'cpu(0)',
      manager: s.kind === 'Unpooled' ? 'Unpooled' : `Pooled (${s.kind})`,
      ...m,
      bytesReserved: m.bytesInUse + m.bytesPooled,
    };
    expect(storage.stats(ctx)).toEqual(expected);
    expect(linear.usedBytes).toBe(held);
    // Live and cached blocks are disjoint and inside [base, capacity).
    const blocks = [
      ...live.map((b) => [b.ptr, b.rounded] as const),
      ...[...cache].flatMap(([r, ptrs]) => ptrs.map((p) => [p, r] as const)),
    ].sort((x, y) => x[0] - y[0]);
    let end = ALIGN;
    for (const [ptr, bytes] of blocks) {
      expect(ptr).toBeGreaterThanOrEqual(end);
      end = ptr + bytes;
    }
    expect(end).toBeLessThanOrEqual(CAPACITY);
  }
}

describe('Storage model property', () => {
  it('stats, reuse order, layout and release accounting match the model', () => {
    fc.assert(
      fc.property(setupArb, fc.array(opArb, { maxLength: 150 }), (setup, ops) => run(setup, ops)),
      { numRuns: 400 },
    );
  });

  it.each<Kind>(['Naive', 'Round', 'Unpooled'])('%s: a long fixed-seed run under memory pressure', (kind) => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 400, maxLength: 600 }), (ops) =>
        run({ kind, page: 4096, large: 2 * MiB, cutoff: 20, reserve: 5 }, ops),
      ),
      { numRuns: 30, seed: 42 },
    );
  });
});
