/**
 * Memory pressure: the pool's release-and-retry on device failure, MXNet's reserve check driven by
 * memoryInfo() (including both boundaries of `free > rounded && reserve <= free - rounded`), the
 * "Memory allocation failed" error, failsafe allocation, and the unpooled manager's failures.
 */
import { cpu, Env, gpu, MXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import type { DeviceAllocator } from './device-allocator.js';
import { HostAllocator } from './host-allocator.js';
import { LinearAllocator } from './linear-allocator.js';
import { Storage, type StorageHandle } from './storage.js';

const PAGE = 4096;

/** A LinearAllocator without memoryInfo, so only a failed device alloc can trigger a release. */
function blind(capacity: number): { device: DeviceAllocator<number>; linear: LinearAllocator } {
  const linear = new LinearAllocator({ capacity, base: 0 });
  return {
    linear,
    device: {
      name: 'blind',
      alignment: 16,
      alloc: (n) => linear.alloc(n),
      free: (p, n) => linear.free(p, n),
    },
  };
}

function storageOn(device: DeviceAllocator, vars: Record<string, string> = {}): Storage {
  return new Storage({ env: new Env(vars), allocators: { gpu: () => device } });
}

describe('release and retry on device failure', () => {
  it('frees the cache and retries once when cached blocks fill the device', () => {
    const { device, linear } = blind(8 * PAGE);
    const s = storageOn(device);
    const hs = Array.from({ length: 8 }, () => s.alloc(PAGE, gpu()));
    for (const h of hs) s.free(h);
    expect(linear.freeBytes).toBe(0);
    const big = s.alloc(2 * PAGE, gpu(), { name: 'big' });
    expect(big.dptr).not.toBeNull();
    expect(s.stats(gpu())).toMatchObject({
      numReleases: 1,
      numDeviceAllocs: 9,
      numDeviceFrees: 8,
      bytesPooled: 0,
      bytesInUse: 2 * PAGE,
      peakBytesReserved: 8 * PAGE,
    });
  });

  it("fails an impossible request with MXNet's message, then keeps working", () => {
    const { device } = blind(16 * PAGE);
    const s = storageOn(device);
    const keep = s.alloc(PAGE, gpu());
    s.free(s.alloc(PAGE * 2, gpu()));
    let err: MXNetError | undefined;
    try {
      s.alloc(100 * PAGE - 5, gpu(), { name: 'huge' });
    } catch (e) {
      err = e as MXNetError;
    }
    expect(err).toBeInstanceOf(MXNetError);
    expect(err?.reason).toMatch(/^Memory allocation failed/);
    expect(err?.message).toContain(String(100 * PAGE - 5)); // requested
    expect(err?.message).toContain(String(100 * PAGE)); // rounded
    expect(err?.message).toContain('"huge"');
    expect(err?.message).toMatch(/in use 4096 B/);
    expect(err?.device).toBe('gpu(0)');
    expect(err?.hint).toMatch(/releaseAll|smaller batch/);
    expect(s.stats(gpu())).toMatchObject({ numReleases: 1, numAllocs: 2, liveHandles: 1, bytesPooled: 0 });
    const h = s.alloc(PAGE * 3, gpu());
    s.free(h);
    s.free(keep);
    expect(s.stats(gpu())).toMatchObject({ liveHandles: 0, numAllocs: 3, numFrees: 3 });
  });

  it('returns a null pointer with failsafe, counts no allocation, and frees it as a no-op', () => {
    const { device } = blind(4 * PAGE);
    const s = storageOn(device);
    const h = s.alloc(10 * PAGE, gpu(), { failsafe: true, name: 'maybe' });
    expect([h.dptr, h.size, h.live, h.name]).toEqual([null, 10 * PAGE, false, 'maybe']);
    s.free(h);
    expect(s.stats(gpu())).toMatchObject({ numAllocs: 0, numFrees: 0, liveHandles: 0, numReleases: 1 });
  });

  it('treats a throwing allocator as out of memory and keeps the cause', () => {
    let fail = true;
    const inner = new HostAllocator();
    const device: DeviceAllocator = {
      name: 'flaky',
      alignment: 16,
      alloc(n) {
        if (fail) throw new RangeError('device lost');
        return inner.alloc(n);
      },
      free: (p, n) => inner.free(p as ArrayBuffer, n),
    };
    const s = storageOn(device);
    let err: unknown;
    try {
      s.alloc(64, gpu());
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MXNetError);
    expect((err as MXNetError).cause).toBeInstanceOf(RangeError);
    fail = false;
    expect(s.alloc(64, gpu()).dptr).toBeInstanceOf(ArrayBuffer);
  });
});

describe('reserve check (memoryInfo)', () => {
  it('releases the cache when a new block would cut into the reserve', () => {
    const host = new HostAllocator({ maxBytes: 100 * PAGE });
    const s = new Storage({
      env: new Env({ MXNET_CPU_MEM_POOL_RESERVE: '10' }),
      allocators: { cpu: () => host },
    });
    const hs = Array.from({ length: 80 }, () => s.alloc(PAGE, cpu()));
    for (const h of hs.slice(40)) s.free(h);
    s.alloc(2 * PAGE, cpu()); // free 20 pages -> 18, reserve 10: fine
    expect(s.stats(cpu()).numReleases).toBe(0);
    s.alloc(9 * PAGE, cpu()); // 18 - 9 = 9 pages < reserve of 10 pages: release first
    expect(s.stats(cpu())).toMatchObject({ numReleases: 1, numDeviceFrees: 40, bytesPooled: 0 });
    expect(host.usedBytes).toBe((40 + 2 + 9) * PAGE);
  });

  it('keeps the cache when free - rounded equals the reserve exactly', () => {
    const host = new HostAllocator({ maxBytes: 100 * PAGE });
    const s = new Storage({
      env: new Env({ MXNET_CPU_MEM_POOL_RESERVE: '10' }),
      allocators: { cpu: () => host },
    });
    s.free(s.alloc(PAGE, cpu()));
    s.alloc(89 * PAGE, cpu()); // free 99 pages, 99 - 89 = 10 = reserve: no release
    expect(s.stats(cpu())).toMatchObject({ numReleases: 0, bytesPooled: PAGE });
    s.alloc(2 * PAGE, cpu()); // 10 - 2 < 10: release
    expect(s.stats(cpu())).toMatchObject({ numReleases: 1, bytesPooled: 0 });
  });

  it('releases when free equals the rounded size, even with no reserve', () => {
    const host = new HostAllocator({ maxBytes: 3 * PAGE });
    const s = new Storage({
      env: new Env({ MXNET_CPU_MEM_POOL_RESERVE: '0' }),
      allocators: { cpu: () => host },
    });
    s.free(s.alloc(PAGE, cpu()));
    s.alloc(2 * PAGE, cpu()); // free 2 pages is not > 2 pages: release, then it fits
    expect(s.stats(cpu())).toMatchObject({ numReleases: 1, bytesPooled: 0, bytesInUse: 2 * PAGE });
  });

  it('skips the check when the device reports an unbounded total', () => {
    const linear = new LinearAllocator({ capacity: PAGE, grow: (min) => min });
    const s = new Storage({ env: new Env(), allocators: { cpu: () => linear } });
    s.free(s.alloc(PAGE, cpu()));
    s.alloc(2 * PAGE, cpu());
    expect(s.stats(cpu())).toMatchObject({ numReleases: 0, bytesPooled: PAGE });
  });
});

describe('unpooled failures', () => {
  it('fails at once (no release), or returns null with failsafe, and keeps working', () => {
    const s = new Storage({
      env: new Env({ MXNET_GPU_MEM_POOL_TYPE: 'Unpooled' }),
      allocators: { gpu: () => new HostAllocator({ maxBytes: 1000 }) },
    });
    const a = s.alloc(600, gpu());
    expect(() => s.alloc(600, gpu())).toThrow(/Memory allocation failed: requested 600 B/);
    const n = s.alloc(600, gpu(), { failsafe: true });
    expect(n.dptr).toBeNull();
    s.free(a);
    const b: StorageHandle = s.alloc(1000, gpu());
    expect(s.stats(gpu())).toMatchObject({
      manager: 'Unpooled',
      numReleases: 0,
      numAllocs: 2,
      bytesInUse: 1000,
    });
    s.directFree(b);
    expect(s.stats(gpu())).toMatchObject({ liveHandles: 0, numDeviceFrees: 2, bytesPooled: 0 });
  });
});
