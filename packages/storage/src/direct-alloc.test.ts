/**
 * Allocations made straight on a device, outside Storage (a backend kernel's scratch space), when
 * the device is full: the allocator calls the handler Storage installed (`setExhaustedHandler`),
 * every manager on that device asks the pressure owner to reclaim and returns its cache, and the
 * allocator tries once more. Storage's own device calls keep their own release-and-retry and never
 * re-enter the handler.
 */
import { cpu, cpuPinned, Env } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { LinearAllocator } from './linear-allocator.js';
import { Storage, type StorageHandle } from './storage.js';

const KiB = 1024;

function setup(reclaim: () => void = () => undefined) {
  const linear = new LinearAllocator({ capacity: 256 * KiB, base: 0 });
  // One allocator serving two host contexts, as cpu-wasm's single wasm memory does.
  const storage = new Storage({
    env: new Env({}),
    allocators: { cpu: () => linear, cpu_pinned: () => linear },
    pressure: { reclaim, highWaterMark: 2 ** 40 },
  });
  return { linear, storage };
}

describe('direct device allocations when the device is full', () => {
  it('get the pool caches of every context on the device back, then succeed', () => {
    const { linear, storage } = setup();
    const a = storage.alloc(96 * KiB, cpu());
    const b = storage.alloc(96 * KiB, cpuPinned());
    storage.free(a);
    storage.free(b); // both cached in their pools: the device is full
    expect(linear.capacity - linear.usedBytes).toBeLessThan(128 * KiB);
    const p = linear.alloc(200 * KiB);
    expect(p).not.toBeNull();
    expect(storage.stats(cpu()).bytesPooled + storage.stats(cpuPinned()).bytesPooled).toBe(0);
    linear.free(p as number, 200 * KiB);
  });

  it("ask the owner to reclaim what it holds (unreachable arrays' blocks)", () => {
    const held: StorageHandle[] = [];
    let reclaims = 0;
    const { linear, storage } = setup(() => {
      reclaims++;
      for (const h of held.splice(0)) storage.free(h); // what finalizers of dropped arrays do
    });
    for (let i = 0; i < 3; i++) held.push(storage.alloc(64 * KiB, cpu()));
    const p = linear.alloc(150 * KiB);
    expect(p).not.toBeNull();
    expect(reclaims).toBeGreaterThan(0);
    expect(storage.stats(cpu()).numReclaims).toBeGreaterThan(0);
  });

  it('fail (null) when nothing can be freed, without retrying forever', () => {
    let reclaims = 0;
    const { linear, storage } = setup(() => {
      reclaims++;
    });
    const live = storage.alloc(200 * KiB, cpu());
    expect(linear.alloc(100 * KiB)).toBeNull();
    expect(reclaims).toBe(1);
    storage.free(live);
  });

  it("do not re-enter for Storage's own device calls (those release and retry themselves)", () => {
    let reclaims = 0;
    const { storage } = setup(() => {
      reclaims++;
    });
    const live = storage.alloc(200 * KiB, cpu());
    // Storage's own path: one outOfMemory reclaim from the manager, none from the allocator hook.
    expect(() => storage.alloc(100 * KiB, cpu())).toThrow(/Memory allocation failed/);
    expect(reclaims).toBe(1);
    storage.free(live);
  });
});
