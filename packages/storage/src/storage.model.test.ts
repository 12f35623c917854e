/**
 * Model-based property test of Storage over a LinearAllocator, for the Naive, Round and Unpooled
 * managers, with and without the small-object allocator. The test keeps its own model of the pool
 * (bucket rules written from MXNet's spec, LIFO reuse, reserve check, release-and-retry, every
 * counter; size classes, slabs with LIFO slot reuse, the "keep one slab with room per class" rule)
 * and compares after each random step: stats field by field, the pointer (and slot offset) each
 * allocation must return, non-overlap of live blocks, slots and cached blocks, and the allocator's
 * byte accounting. Whether a device allocation succeeds depends on
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
  /** Bytes of a slab's block; 0 = small-object allocator off. */
  slab: number;
}

/** Slot sizes, written out from the spec: 16, 32, 48, 64, 128, 192, 256, then 4 steps per doubling to 2048. */
const CLASSES = [
  16, 32, 48, 64, 128, 192, 256, 320, 384, 448, 512, 640, 768, 896, 1024, 1280, 1536, 1792, 2048,
];

interface ModelSlab {
  ptr: number;
  bytes: number;
  cls: number;
  capacity: number;
  used: number;
  next: number;
  free: number[];
  listed: boolean;
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
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 2100 }) },
  { weight: 2, arbitrary: fc.constantFrom(16, 17, 32, 128, 129, 2048, 2049, 4096, 4097, 65536, 65537) },
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
/** Mostly small requests, so slabs fill up, empty and go back to the pool within one run. */
const smallOpArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      op: fc.constant('alloc' as const),
      size: fc.oneof(
        fc.integer({ min: 1, max: 2048 }),
        fc.integer({ min: 1793, max: 2100 }),
        fc.constantFrom(16, 4096, 70000),
      ),
      failsafe: fc.boolean(),
    }),
  },
  { weight: 6, arbitrary: fc.record({ op: fc.constant('free' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('directFree' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ op: 'releaseAll' as const }) },
);
const setupArb: fc.Arbitrary<Setup> = fc.record({
  kind: fc.constantFrom<Kind>('Naive', 'Round', 'Unpooled'),
  page: fc.constantFrom(32, 64, 512, 4096),
  large: fc.constantFrom(65536, 100000, 2 * MiB),
  cutoff: fc.constantFrom(20, 21, 22),
  reserve: fc.integer({ min: 0, max: 20 }),
  slab: fc.constantFrom(0, 4096, 8192, 65536),
});

interface Block {
  h: StorageHandle<number>;
  ptr: number;
  offset: number;
  size: number;
  rounded: number;
  slab: ModelSlab | null;
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
  const storage = new Storage({
    env,
    allocators: { cpu: () => spy(linear, log) },
    smallObjects: s.slab === 0 ? false : { slabBytes: s.slab },
  });
  const ctx = cpu(0);
  const pooled = s.kind !== 'Unpooled';
  const smallMax = pooled && s.slab > 0 ? Math.min(2048, Math.floor(s.page / 2)) : 0;
  const slabBytes = modelRounded(s, s.slab);
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
    numReclaims: 0,
  };
  let created = false;
  let held = 0; // footprint in the LinearAllocator of every block the manager holds
  const live: Block[] = [];
  const freed: StorageHandle<number>[] = [];
  const cache = new Map<number, number[]>(); // rounded -> ptrs, most recent last
  const lists = new Map<number, ModelSlab[]>(); // class -> slabs with a free slot, allocation from the last
  const slabs = new Set<ModelSlab>(); // every slab held
  const listOf = (cls: number): ModelSlab[] => {
    let l = lists.get(cls);
    if (l === undefined) {
      l = [];
      lists.set(cls, l);
    }
    return l;
  };
  const unlist = (slab: ModelSlab): void => {
    const l = listOf(slab.cls);
    const i = l.indexOf(slab);
    const last = l.pop() as ModelSlab;
    if (last !== slab) l[i] = last; // the last slab takes its place
    slab.listed = false;
  };
  const toCache = (rounded: number, ptr: number): void => {
    const bucket = cache.get(rounded) ?? [];
    bucket.push(ptr);
    cache.set(rounded, bucket);
  };

  const releaseAll = (): void => {
    m.numReleases++;
    if (m.bytesPooled === 0) return;
    for (const cls of CLASSES) {
      const l = listOf(cls);
      for (let i = l.length - 1; i >= 0; i--) {
        const slab = l[i] as ModelSlab;
        if (slab.used > 0) continue;
        unlist(slab);
        slabs.delete(slab);
        toCache(slab.bytes, slab.ptr);
      }
    }
    for (const [rounded, ptrs] of cache) {
      m.numDeviceFrees += ptrs.length;
      m.bytesPooled -= rounded * ptrs.length;
      held -= roundUp(rounded, ALIGN) * ptrs.length;
    }
    cache.clear();
  };
  /** A block of `bytes` from the device as the pool gets it: reserve check, try, release, retry. */
  const fromDevice = (bytes: number): number | null => {
    const free = CAPACITY - ALIGN - held;
    const reserve = (CAPACITY * s.reserve) / 100;
    if (!(free > bytes && reserve <= free - bytes)) releaseAll();
    let result = device(bytes);
    if (result === null) {
      releaseAll();
      result = device(bytes);
    }
    if (result !== null) {
      m.numDeviceAllocs++;
      held += roundUp(bytes, ALIGN);
    }
    return result;
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
      if (op.size > 0 && op.size <= smallMax) {
        created = true;
        const cls = CLASSES.find((c) => c >= op.size) as number;
        const l = listOf(cls);
        let slab = l[l.length - 1];
        let hit = true;
        if (slab === undefined) {
          const bucket = cache.get(slabBytes);
          let ptr: number | null;
          if (bucket !== undefined && bucket.length > 0) ptr = bucket.pop() as number;
          else {
            hit = false;
            ptr = fromDevice(slabBytes);
            if (ptr !== null) m.bytesPooled += slabBytes;
          }
          if (ptr !== null) {
            slab = {
              ptr,
              bytes: slabBytes,
              cls,
              capacity: Math.floor(slabBytes / cls),
              used: 0,
              next: 0,
              free: [],
              listed: true,
            };
            l.push(slab);
            slabs.add(slab);
          }
        }
        if (thrown !== undefined) {
          expect(thrown).toBeInstanceOf(MXNetError);
          expect((thrown as MXNetError).reason).toMatch(/Memory allocation failed/);
          expect(slab === undefined && !op.failsafe).toBe(true);
        }
        if (h !== undefined) {
          expect(h.size).toBe(op.size);
          if (slab === undefined) {
            expect(op.failsafe).toBe(true);
            expect(h.dptr).toBeNull();
          } else {
            const offset = slab.free.length > 0 ? (slab.free.pop() as number) : slab.next++ * cls;
            slab.used++;
            if (slab.used === slab.capacity) unlist(slab);
            expect([h.dptr, h.byteOffset, h.actualSize]).toEqual([slab.ptr, offset, cls]);
            live.push({ h, ptr: slab.ptr, offset, size: op.size, rounded: cls, slab });
            m.numAllocs++;
            if (hit) m.numPoolHits++;
            m.liveHandles++;
            m.bytesPooled -= cls;
            m.bytesInUse += cls;
            m.bytesRequested += op.size;
          }
        }
      } else {
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
          } else if (pooled) {
            result = fromDevice(rounded);
          } else {
            result = device(rounded);
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
          expect(h.byteOffset).toBe(0);
          expect(h.dptr).toBe(op.size === 0 ? null : result);
          if (predicted !== undefined) expect(h.dptr).toBe(predicted);
          if (result !== null) {
            live.push({ h, ptr: result, offset: 0, size: op.size, rounded, slab: null });
            m.numAllocs++;
            m.liveHandles++;
            m.bytesInUse += rounded;
            m.bytesRequested += op.size;
            expect(h.actualSize).toBe(rounded);
          }
        }
      }
    } else if (op.op === 'releaseAll') {
      if (created) releaseAll();
      storage.releaseAll(ctx);
      const liveFootprint =
        live.reduce((t, b) => t + (b.slab === null ? roundUp(b.rounded, ALIGN) : 0), 0) +
        [...slabs].reduce((t, sl) => t + roundUp(sl.bytes, ALIGN), 0);
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
      const slab = b.slab;
      if (slab !== null) {
        m.bytesPooled += b.rounded;
        slab.free.push(b.offset);
        slab.used--;
        if (!slab.listed) {
          listOf(slab.cls).push(slab);
          slab.listed = true;
        }
        if (slab.used === 0 && op.op === 'directFree') {
          unlist(slab);
          slabs.delete(slab);
          m.bytesPooled -= slab.bytes;
          m.numDeviceFrees++;
          held -= roundUp(slab.bytes, ALIGN);
        } else if (slab.used === 0 && listOf(slab.cls).length > 1) {
          unlist(slab);
          slabs.delete(slab);
          toCache(slab.bytes, slab.ptr);
        }
      } else if (pooled && op.op === 'free') {
        toCache(b.rounded, b.ptr);
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
    // Device blocks (live, cached, slabs) are disjoint and inside [base, capacity); each slab's
    // live slots lie inside it and are disjoint.
    const blocks = [
      ...live.filter((b) => b.slab === null).map((b) => [b.ptr, b.rounded] as const),
      ...[...slabs].map((sl) => [sl.ptr, sl.bytes] as const),
      ...[...cache].flatMap(([r, ptrs]) => ptrs.map((p) => [p, r] as const)),
    ].sort((x, y) => x[0] - y[0]);
    let end = ALIGN;
    for (const [ptr, bytes] of blocks) {
      expect(ptr).toBeGreaterThanOrEqual(end);
      end = ptr + bytes;
    }
    expect(end).toBeLessThanOrEqual(CAPACITY);
    for (const sl of slabs) {
      const slots = live
        .filter((b) => b.slab === sl)
        .map((b) => b.offset)
        .sort((x, y) => x - y);
      expect(slots.length).toBe(sl.used);
      let next = 0;
      for (const off of slots) {
        expect(off % (sl.cls >= 64 ? 64 : 16)).toBe(0);
        expect(off).toBeGreaterThanOrEqual(next);
        next = off + sl.cls;
      }
      expect(next).toBeLessThanOrEqual(sl.bytes);
    }
  }
}

describe('Storage model property', () => {
  it('stats, reuse order, layout and release accounting match the model', () => {
    fc.assert(
      fc.property(setupArb, fc.array(opArb, { maxLength: 150 }), (setup, ops) => run(setup, ops)),
      { numRuns: 400 },
    );
  });

  it.each<Kind>(['Naive', 'Round'])(
    '%s: small objects — slabs fill, empty and return to the pool',
    (kind) => {
      fc.assert(
        fc.property(fc.array(smallOpArb, { minLength: 200, maxLength: 400 }), (ops) =>
          run({ kind, page: 4096, large: 2 * MiB, cutoff: 20, reserve: 5, slab: 4096 }, ops),
        ),
        { numRuns: 25, seed: 7 },
      );
    },
  );

  it.each<Kind>(['Naive', 'Round', 'Unpooled'])('%s: a long fixed-seed run under memory pressure', (kind) => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 400, maxLength: 600 }), (ops) =>
        run({ kind, page: 4096, large: 2 * MiB, cutoff: 20, reserve: 5, slab: 8192 }, ops),
      ),
      { numRuns: 30, seed: 42 },
    );
  });
});
