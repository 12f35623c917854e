/**
 * The pressure hook (managers/pressure.ts): a device allocation past the high-water mark, or one the
 * device refuses, asks the owner to reclaim first and then retries from the cache; the mark then
 * moves to max(base, growth × bytes in use), so memory that is legitimately alive costs one reclaim
 * per doubling, not one per allocation. Also: the out-of-memory error carries the owner's report,
 * reclaims never nest, and a failing owner cannot break an allocation.
 */
import { type Context, cpu, Env, gpu, MXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import type { DeviceAllocator } from './device-allocator.js';
import { LinearAllocator } from './linear-allocator.js';
import type { MemoryPressure, PressureOptions } from './managers/pressure.js';
import { Storage, type StorageHandle } from './storage.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/** A LinearAllocator of `capacity` bytes without memoryInfo (no reserve check) on gpu. */
function device(capacity: number): { allocator: DeviceAllocator<number>; linear: LinearAllocator } {
  const linear = new LinearAllocator({ capacity, base: 0 });
  return {
    linear,
    allocator: {
      name: 'test',
      alignment: 16,
      alloc: (n) => linear.alloc(n),
      free: (p, n) => linear.free(p, n),
    },
  };
}

function storageWith(
  pressure: PressureOptions,
  capacity = 64 * MiB,
  vars: Record<string, string> = {},
): { s: Storage; linear: LinearAllocator } {
  const { allocator, linear } = device(capacity);
  return { s: new Storage({ env: new Env(vars), allocators: { gpu: () => allocator }, pressure }), linear };
}

describe('high-water mark', () => {
  it('reclaims before a device allocation passes the mark, then serves the retry from the cache', () => {
    const dropped: StorageHandle[] = [];
    const calls: MemoryPressure[] = [];
    let s!: Storage;
    const pressure: PressureOptions = {
      highWaterMark: 256 * KiB,
      reclaim(p) {
        calls.push(p);
        for (const h of dropped.splice(0)) s.free(h); // what a GC + finalizers would free
      },
    };
    ({ s } = storageWith(pressure));
    for (let i = 0; i < 4; i++) dropped.push(s.alloc(64 * KiB, gpu()));
    expect(calls).toEqual([]); // 256 KiB in use: at the mark, not past it
    const h = s.alloc(64 * KiB, gpu(), { name: 'next' });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ reason: 'highWater', requested: 64 * KiB, bytesInUse: 256 * KiB });
    expect(calls[0]?.highWaterMark).toBe(256 * KiB);
    expect(calls[0]?.ctx).toEqual(gpu());
    expect(s.stats(gpu())).toMatchObject({
      numReclaims: 1,
      numDeviceAllocs: 4, // the retry reused a freed block
      numPoolHits: 1,
      liveHandles: 1,
      bytesInUse: 64 * KiB,
    });
    expect(h.live).toBe(true);
    // Pool hits never check the mark.
    s.free(h);
    for (let i = 0; i < 100; i++) s.free(s.alloc(64 * KiB, gpu()));
    expect(s.stats(gpu()).numReclaims).toBe(1);
  });

  it('memory that stays alive costs one reclaim per doubling, not one per allocation', () => {
    let reclaims = 0;
    const { s } = storageWith({ highWaterMark: 1 * MiB, growth: 2, reclaim: () => reclaims++ }, 128 * MiB);
    const live = Array.from({ length: 1024 }, () => s.alloc(64 * KiB, gpu())); // 64 MiB, never freed
    // Reclaims as the bytes in use reach 1, 2, 4, 8, 16 and 32 MiB (the next mark is 2 × in use);
    // the 64 MiB mark is reached, not passed.
    expect(reclaims).toBe(6);
    expect(s.stats(gpu())).toMatchObject({ numReclaims: 6, liveHandles: 1024, bytesInUse: 64 * MiB });
    for (const h of live) s.free(h);
  });

  it('does not reclaim below the mark, and reclaims with an unpooled manager too', () => {
    let reclaims = 0;
    const pressure = { highWaterMark: 1 * MiB, reclaim: () => reclaims++ };
    const { s } = storageWith(pressure, 64 * MiB, { MXNET_GPU_MEM_POOL_TYPE: 'Unpooled' });
    const hs = Array.from({ length: 15 }, () => s.alloc(64 * KiB, gpu()));
    expect(reclaims).toBe(0);
    hs.push(s.alloc(64 * KiB, gpu()), s.alloc(64 * KiB, gpu()));
    expect(reclaims).toBe(1);
    for (const h of hs) s.free(h);
    expect(s.stats(gpu())).toMatchObject({ manager: 'Unpooled', numReclaims: 1, liveHandles: 0 });
  });

  it('slabs of the small-object allocator count: a reclaim can hand back freed slots', () => {
    const dropped: StorageHandle[] = [];
    let s!: Storage;
    ({ s } = storageWith({
      highWaterMark: 128 * KiB,
      reclaim: () => {
        for (const h of dropped.splice(0)) s.free(h);
      },
    }));
    // 64 KiB slabs of 16-byte slots: 4096 per slab; the third slab would pass 128 KiB.
    for (let i = 0; i < 8192; i++) dropped.push(s.alloc(4, gpu()));
    expect(s.stats(gpu())).toMatchObject({ numDeviceAllocs: 2, numReclaims: 0 });
    const h = s.alloc(4, gpu());
    expect(s.stats(gpu())).toMatchObject({ numDeviceAllocs: 2, numReclaims: 1, liveHandles: 1 });
    s.free(h);
  });
});

describe('out of memory', () => {
  it('reclaims once and retries before failing; the retry can use what the owner freed', () => {
    const dropped: StorageHandle[] = [];
    const reasons: string[] = [];
    let s!: Storage;
    const { s: made, linear } = storageWith(
      {
        highWaterMark: Number.MAX_SAFE_INTEGER,
        reclaim(p) {
          reasons.push(p.reason);
          for (const h of dropped.splice(0)) s.free(h);
        },
      },
      1 * MiB,
    );
    s = made;
    for (let i = 0; i < 16; i++) dropped.push(s.alloc(64 * KiB, gpu()));
    expect(linear.freeBytes).toBe(0);
    const h = s.alloc(128 * KiB, gpu()); // the device is full; 16 blocks are unreachable
    expect(reasons).toEqual(['outOfMemory']);
    expect(h.live).toBe(true);
    // The cache was released on the retry so the 128 KiB block fitted.
    expect(s.stats(gpu())).toMatchObject({ numReclaims: 1, liveHandles: 1, bytesInUse: 128 * KiB });
    s.free(h);
  });

  it("fails with the owner's report after reclaiming, and works again afterwards", () => {
    const seen: Context[] = [];
    const { s } = storageWith(
      {
        highWaterMark: Number.MAX_SAFE_INTEGER,
        reclaim: () => undefined,
        describe: (ctx) => {
          seen.push(ctx);
          return 'live arrays on gpu(0): 3 × FullyConnected float32 (128, 512)';
        },
      },
      1 * MiB,
    );
    const keep = s.alloc(512 * KiB, gpu());
    let err: MXNetError | undefined;
    try {
      s.alloc(768 * KiB, gpu(), { name: 'activations' });
    } catch (e) {
      err = e as MXNetError;
    }
    expect(err).toBeInstanceOf(MXNetError);
    expect(err?.reason).toMatch(
      /^Memory allocation failed after releasing the pool cache and reclaiming unreachable arrays and retrying/,
    );
    expect(err?.reason).toContain('"activations"');
    expect(err?.reason).toContain('\nlive arrays on gpu(0): 3 × FullyConnected float32 (128, 512)');
    expect(err?.device).toBe('gpu(0)');
    expect(seen).toEqual([gpu()]);
    expect(s.stats(gpu()).numReclaims).toBe(1);
    // failsafe: a null pointer, after the same reclaim.
    expect(s.alloc(768 * KiB, gpu(), { failsafe: true }).dptr).toBeNull();
    expect(s.stats(gpu()).numReclaims).toBe(2);
    s.free(keep);
    const again = s.alloc(768 * KiB, gpu());
    expect(again.live).toBe(true);
    s.free(again);
  });

  it('a small allocation whose slab does not fit fails the same way', () => {
    const { s } = storageWith({ reclaim: () => undefined, describe: () => 'nothing to free' }, 64 * KiB);
    const big = s.alloc(40 * KiB, gpu());
    expect(() => s.alloc(8, gpu(), { name: 'scalar' })).toThrow(
      /Memory allocation failed.*"scalar"[\s\S]*nothing to free/,
    );
    s.free(big);
    s.releaseAll(gpu());
    const h = s.alloc(8, gpu());
    expect([h.actualSize, h.byteOffset]).toEqual([16, 0]);
    s.free(h);
  });

  it('an unpooled manager reclaims and retries too', () => {
    const dropped: StorageHandle[] = [];
    let s!: Storage;
    ({ s } = storageWith(
      {
        highWaterMark: Number.MAX_SAFE_INTEGER,
        reclaim: () => {
          for (const h of dropped.splice(0)) s.free(h);
        },
      },
      1 * MiB,
      { MXNET_GPU_MEM_POOL_TYPE: 'Unpooled' },
    ));
    for (let i = 0; i < 4; i++) dropped.push(s.alloc(256 * KiB, gpu()));
    const h = s.alloc(512 * KiB, gpu());
    expect(s.stats(gpu())).toMatchObject({ numReclaims: 1, liveHandles: 1, bytesInUse: 512 * KiB });
    s.free(h);
  });
});

describe('the owner misbehaving', () => {
  it('a reclaim that allocates does not nest, and one that throws does not fail the allocation', () => {
    let depth = 0;
    let maxDepth = 0;
    let s!: Storage;
    const inner: StorageHandle[] = [];
    ({ s } = storageWith({
      highWaterMark: 64 * KiB,
      reclaim() {
        depth++;
        maxDepth = Math.max(maxDepth, depth);
        inner.push(s.alloc(128 * KiB, gpu())); // past the mark again, inside the reclaim
        depth--;
        throw new Error('owner bug');
      },
    }));
    const h = s.alloc(128 * KiB, gpu());
    expect(maxDepth).toBe(1);
    expect(h.live).toBe(true);
    expect(inner).toHaveLength(1);
    s.free(h);
    for (const x of inner) s.free(x);
  });

  it('a describe that throws still gives the out-of-memory error', () => {
    const { s } = storageWith(
      {
        reclaim: () => undefined,
        describe: () => {
          throw new Error('boom');
        },
      },
      64 * KiB,
    );
    expect(() => s.alloc(128 * KiB, gpu())).toThrow(
      /Memory allocation failed[\s\S]*describing live memory failed: Error: boom/,
    );
  });

  it('rejects a pressure option without reclaim, and bad slab sizes', () => {
    expect(() => new Storage({ pressure: {} as PressureOptions })).toThrow(MXNetError);
    expect(() => new Storage({ pressure: {} as PressureOptions })).toThrow(
      /pressure.reclaim must be a function/,
    );
    for (const slabBytes of [0, 100, 4095, 1.5, Number.NaN, 2 ** 31]) {
      expect(() => new Storage({ smallObjects: { slabBytes } })).toThrow(/slabBytes must be/);
    }
    // Without a pressure option nothing is ever reclaimed (MXNet's behaviour).
    const s = new Storage();
    const hs = Array.from({ length: 100 }, () => s.alloc(1 * MiB, cpu()));
    expect(s.stats(cpu()).numReclaims).toBe(0);
    for (const h of hs) s.free(h);
  });
});
