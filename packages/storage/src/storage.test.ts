/**
 * Storage API: allocation semantics, manager choice from MXNET_* settings, and bad input. Every
 * error case asserts the MXNetError and then that the same Storage still works.
 */
import { type Context, cpu, cpuPinned, cpuShared, Env, gpu, MXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import type { DeviceAllocator } from './device-allocator.js';
import { HostAllocator } from './host-allocator.js';
import { LinearAllocator } from './linear-allocator.js';
import { Storage, type StorageHandle } from './storage.js';

const fresh = (vars: Record<string, string> = {}): Storage => new Storage({ env: new Env(vars) });
const linearGpu = (): DeviceAllocator<number> => new LinearAllocator({ capacity: 2 ** 24, name: 'fake-gpu' });

/** Allocate, use and free on `ctx`: proves a Storage is still usable. */
function roundTrip(storage: Storage, ctx: Context = cpu()): void {
  const before = storage.stats(ctx);
  const h = storage.alloc(1000, ctx, { name: 'probe' });
  expect(h.dptr).not.toBeNull();
  expect(h.live).toBe(true);
  storage.free(h);
  const after = storage.stats(ctx);
  expect(after.numAllocs).toBe(before.numAllocs + 1);
  expect(after.numFrees).toBe(before.numFrees + 1);
  expect(after.liveHandles).toBe(before.liveHandles);
  expect(after.bytesInUse).toBe(before.bytesInUse);
}

function catchError(fn: () => unknown): MXNetError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(MXNetError);
    return e as MXNetError;
  }
  throw new Error('expected an MXNetError');
}

describe('Storage.alloc / free', () => {
  it('hands out page-rounded host buffers and reuses the most recently freed block', () => {
    const s = fresh();
    const a = s.alloc<ArrayBuffer>(2100, cpu(), { name: 'weight' });
    expect(a.dptr).toBeInstanceOf(ArrayBuffer);
    expect(a.dptr?.byteLength).toBe(4096);
    expect([a.size, a.actualSize, a.name, a.ctx, a.byteOffset]).toEqual([2100, 4096, 'weight', cpu(), 0]);
    const b = s.alloc(4000, cpu());
    expect(b.name).toBe('unknown');
    s.free(a);
    s.free(b);
    expect(s.alloc(2049, cpu()).dptr).toBe(b.dptr); // LIFO
    expect(s.alloc(4096, cpu()).dptr).toBe(a.dptr);
    expect(s.stats(cpu())).toMatchObject({
      numPoolHits: 2,
      numDeviceAllocs: 2,
      bytesPooled: 0,
      liveHandles: 2,
    });
  });

  it('gives size 0 a null pointer without creating a manager, and frees it as a no-op', () => {
    const s = fresh();
    const z = s.alloc(0, gpu(3), { name: 'empty' });
    expect([z.dptr, z.size, z.live, z.name]).toEqual([null, 0, false, 'empty']);
    s.free(z);
    s.free(z);
    s.directFree(z);
    expect(s.contexts()).toEqual([]);
    expect(s.stats(gpu(3)).numAllocs).toBe(0);
  });

  it('directFree bypasses the pool; releaseAll returns the cache to the device', () => {
    const host = new HostAllocator();
    const s = new Storage({ env: new Env(), allocators: { cpu: () => host } });
    const hs = [1, 2, 3].map(() => s.alloc(5000, cpu()));
    expect(host.usedBytes).toBe(3 * 8192);
    s.directFree(hs[0] as StorageHandle);
    s.free(hs[1] as StorageHandle);
    s.free(hs[2] as StorageHandle);
    expect(host.usedBytes).toBe(2 * 8192);
    expect(s.stats(cpu())).toMatchObject({ bytesPooled: 2 * 8192, bytesInUse: 0, numDeviceFrees: 1 });
    s.releaseAll(cpu());
    expect(host.usedBytes).toBe(0);
    expect(s.stats(cpu())).toMatchObject({
      bytesPooled: 0,
      bytesReserved: 0,
      numDeviceFrees: 3,
      numReleases: 1,
      peakBytesInUse: 3 * 8192,
      peakBytesReserved: 3 * 8192,
    });
    s.releaseAll(cpu(7)); // never used: nothing to do, nothing created
    expect(s.contexts()).toEqual([cpu()]);
  });

  it('keeps one manager per device type and id', () => {
    const s = fresh();
    s.alloc(10, cpu(0));
    s.alloc(10, cpu(1));
    s.alloc(10, cpu(1));
    s.alloc(10, cpuPinned(0));
    expect(s.contexts()).toEqual([cpu(0), cpu(1), cpuPinned(0)]);
    expect(s.stats(cpu(1)).liveHandles).toBe(2);
    expect(s.stats(cpu(0)).liveHandles).toBe(1);
    expect(s.stats(cpu(0)).ctx).toBe('cpu(0)');
  });
});

describe('manager choice', () => {
  it('follows MXNET_<DEV>_MEM_POOL_TYPE and MXNET_USE_NAIVE_STORAGE_MANAGER', () => {
    const s = fresh({ MXNET_CPU_MEM_POOL_TYPE: 'Round', MXNET_CPU_PINNED_MEM_POOL_TYPE: 'Unpooled' });
    expect(s.managerName(cpu())).toBe('Pooled (Round)');
    expect(s.managerName(gpu())).toBe('Pooled (Naive)');
    expect(s.managerName(cpuPinned())).toBe('Unpooled');
    expect(s.managerName(cpuShared())).toBe('Unpooled');
    expect(s.alloc(5000, cpu()).actualSize).toBe(8192);
    expect(s.alloc(5000, cpuPinned()).actualSize).toBe(5000);
    const naive = fresh({ MXNET_USE_NAIVE_STORAGE_MANAGER: '1', MXNET_CPU_MEM_POOL_TYPE: 'Round' });
    expect(naive.managerName(cpu())).toBe('Unpooled');
    expect(naive.alloc(5000, cpu()).actualSize).toBe(5000);
  });

  it('reports zero stats and the configured manager for an unused device', () => {
    expect(fresh({ MXNET_GPU_MEM_POOL_TYPE: 'Round' }).stats(gpu(1))).toEqual({
      ctx: 'gpu(1)',
      manager: 'Pooled (Round)',
      bytesInUse: 0,
      bytesRequested: 0,
      bytesPooled: 0,
      bytesReserved: 0,
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
    });
  });

  it('gives cpu_shared SharedArrayBuffers, unpooled', () => {
    const s = fresh();
    const h = s.alloc<SharedArrayBuffer>(100, cpuShared());
    expect(h.dptr).toBeInstanceOf(SharedArrayBuffer);
    expect(h.dptr?.byteLength).toBe(100);
    s.free(h);
    expect(s.stats(cpuShared())).toMatchObject({ manager: 'Unpooled', bytesPooled: 0, numDeviceFrees: 1 });
  });

  it('surfaces a bad MXNET_CPU_MEM_POOL_TYPE at the first cpu alloc, caches nothing, and recovers once fixed', () => {
    const vars: Record<string, string | undefined> = { MXNET_CPU_MEM_POOL_TYPE: 'Foo' };
    const s = new Storage({ env: new Env(vars), allocators: { gpu: linearGpu } });
    const err = catchError(() => s.alloc(64, cpu()));
    expect(err.message).toMatch(/MXNET_CPU_MEM_POOL_TYPE/);
    expect(err.device).toBe('cpu(0)');
    expect(() => s.alloc(64, cpu())).toThrow(/MXNET_CPU_MEM_POOL_TYPE/); // not cached as broken
    roundTrip(s, cpuPinned());
    roundTrip(s, gpu());
    vars.MXNET_CPU_MEM_POOL_TYPE = 'Round';
    roundTrip(s, cpu());
    expect(s.managerName(cpu())).toBe('Pooled (Round)');
  });

  it('rejects a Round pool whose page size is not a power of 2', () => {
    const vars: Record<string, string | undefined> = {
      MXNET_CPU_MEM_POOL_TYPE: 'Round',
      MXNET_CPU_POOL_PAGE_SIZE: '5000',
    };
    const s = new Storage({ env: new Env(vars) });
    expect(() => s.alloc(64, cpu())).toThrow(/MXNET_CPU_POOL_PAGE_SIZE/);
    roundTrip(s, cpuPinned());
    vars.MXNET_CPU_POOL_PAGE_SIZE = '8192';
    roundTrip(s, cpu());
    expect(s.alloc(5000, cpu()).actualSize).toBe(8192);
  });

  it('requires an allocator for gpu and takes one through registerAllocator', () => {
    const s = fresh();
    const err = catchError(() => s.alloc(64, gpu()));
    expect(err.message).toMatch(/no allocator is registered for gpu/);
    expect(err.hint).toMatch(/@mx\/webgpu|@mx\/cuda-native/);
    roundTrip(s, cpu());
    s.registerAllocator('gpu', linearGpu);
    const h = s.alloc<number>(64, gpu());
    expect(h.dptr).toBe(16);
    expect(() => s.registerAllocator('gpu', linearGpu)).toThrow(/before the first allocation/);
    expect(() => s.registerAllocator('tpu' as 'gpu', linearGpu)).toThrow(/unknown device type/);
  });

  it('wraps a failing allocator factory and retries it on the next alloc', () => {
    let calls = 0;
    const s = new Storage({
      env: new Env(),
      allocators: {
        gpu: () => {
          if (calls++ === 0) throw new Error('driver not loaded');
          return linearGpu();
        },
      },
    });
    expect(catchError(() => s.alloc(8, gpu())).message).toMatch(/driver not loaded/);
    roundTrip(s, gpu());
  });
});

describe('bad input', () => {
  it.each([-1, Number.NaN, 1.5, Number.POSITIVE_INFINITY, 2 ** 53, '12' as unknown as number])(
    'rejects size %s with an MXNetError naming size, device and op',
    (size) => {
      const s = fresh();
      const err = catchError(() => s.alloc(size, gpu(2)));
      expect(err.op).toBe('Storage.alloc');
      expect(err.device).toBe('gpu(2)');
      expect(err.message).toContain(String(size));
      roundTrip(s);
    },
  );

  it('rejects a context that is not a Context', () => {
    const s = fresh();
    expect(() => s.alloc(8, 'cpu(0)' as unknown as Context)).toThrow(/expected a Context/);
    expect(() => s.stats({} as Context)).toThrow(MXNetError);
    roundTrip(s);
  });

  it('rejects a double free by name, size and device, and the pool stays consistent', () => {
    const s = fresh();
    const h = s.alloc(3000, cpu(), { name: 'activations' });
    s.free(h);
    for (const op of [() => s.free(h), () => s.directFree(h)]) {
      const err = catchError(op);
      expect(err.message).toMatch(/double free/);
      expect(err.message).toContain('activations');
      expect(err.message).toContain('3000');
      expect(err.device).toBe('cpu(0)');
    }
    expect(s.stats(cpu())).toMatchObject({
      numFrees: 1,
      liveHandles: 0,
      bytesPooled: 4096,
      numDeviceFrees: 0,
    });
    const again = s.alloc(3000, cpu());
    expect(again.dptr).toBe(h.dptr); // the block was cached once, not twice
    expect(s.alloc(3000, cpu()).dptr).not.toBe(h.dptr);
    roundTrip(s);
  });

  it('rejects a double free of a small block, and its slot is reused once', () => {
    const s = fresh();
    const keep = s.alloc(300, cpu()); // keeps the slab partly used
    const h = s.alloc(300, cpu(), { name: 'scalar' });
    s.free(h);
    expect(() => s.free(h)).toThrow(/double free.*"scalar"/);
    expect(() => s.directFree(h)).toThrow(/double free/);
    expect(s.stats(cpu())).toMatchObject({ numFrees: 1, liveHandles: 1, bytesInUse: 320 });
    const again = s.alloc(300, cpu());
    expect([again.dptr, again.byteOffset]).toEqual([h.dptr, h.byteOffset]);
    const next = s.alloc(300, cpu());
    expect(next.dptr).toBe(h.dptr);
    expect(new Set([keep.byteOffset, again.byteOffset, next.byteOffset]).size).toBe(3);
    roundTrip(s);
  });

  it('rejects a handle from another Storage, and that handle stays valid there', () => {
    const a = fresh();
    const b = fresh();
    const h = a.alloc(64, cpu(), { name: 'foreign' });
    expect(catchError(() => b.free(h)).message).toMatch(/"foreign".*not allocated by this Storage/);
    expect(() => b.directFree(h)).toThrow(MXNetError);
    expect(h.live).toBe(true);
    a.free(h);
    expect(a.stats(cpu()).numFrees).toBe(1);
    roundTrip(b);
  });

  it('rejects things that are not handles', () => {
    const s = fresh();
    expect(() => s.free({ dptr: null } as unknown as StorageHandle)).toThrow(/expected a StorageHandle/);
    expect(() => s.free(undefined as unknown as StorageHandle)).toThrow(MXNetError);
    roundTrip(s);
  });
});
