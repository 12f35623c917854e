/**
 * UnpooledStorageManager: MXNet's `NaiveStorageManager` (and CPUSharedStorageManager's policy).
 *
 * Every alloc goes to the device allocator for exactly `size` bytes (the allocator may round up to
 * its own alignment internally; stats count the requested bytes), and every free returns the block
 * at once. There is no cache, so no reserve check and no retry: a failure is "Memory allocation
 * failed" right away, or a null dptr with `failsafe`. Used for `Unpooled`, for
 * `MXNET_USE_NAIVE_STORAGE_MANAGER=1`, for cpu_shared, and as the baseline the pool is measured against.
 */
import type { Context } from '@mx/base';
import type { DeviceAllocator } from '../device-allocator.js';
import { handleInternals, type StorageHandle } from '../handle.js';
import { allocFailedError, type StorageManager } from './manager.js';
import { StorageCounters, type StorageStats } from './stats.js';

export class UnpooledStorageManager<P> implements StorageManager {
  readonly name = 'Unpooled' as const;
  readonly ctx: Context;
  readonly storage: object;
  readonly #device: DeviceAllocator<P>;
  readonly #c = new StorageCounters();

  constructor(storage: object, ctx: Context, device: DeviceAllocator<P>) {
    this.storage = storage;
    this.ctx = ctx;
    this.#device = device;
  }

  alloc(size: number, name: string, failsafe: boolean): StorageHandle {
    let ptr: P | null;
    let cause: unknown;
    try {
      ptr = this.#device.alloc(size) ?? null;
    } catch (e) {
      ptr = null;
      cause = e;
    }
    if (ptr === null) {
      if (failsafe) return handleInternals.create<P>(null, null, size, this.ctx, name, 0, null);
      throw allocFailedError({
        ctx: this.ctx,
        manager: this.name,
        allocator: this.#device.name,
        name,
        size,
        rounded: size,
        bytesInUse: this.#c.bytesInUse,
        bytesPooled: 0,
        cause,
      });
    }
    const c = this.#c;
    c.numAllocs++;
    c.numDeviceAllocs++;
    c.liveHandles++;
    c.bytesRequested += size;
    c.bytesInUse += size;
    if (c.bytesInUse > c.peakBytesInUse) c.peakBytesInUse = c.bytesInUse;
    if (c.bytesInUse > c.peakBytesReserved) c.peakBytesReserved = c.bytesInUse;
    return handleInternals.create(this, ptr, size, this.ctx, name, size, null);
  }

  free(handle: StorageHandle): void {
    const c = this.#c;
    c.numFrees++;
    c.numDeviceFrees++;
    c.liveHandles--;
    c.bytesInUse -= handle.size;
    c.bytesRequested -= handle.size;
    this.#device.free(handle.dptr as P, handle.size);
  }

  directFree(handle: StorageHandle): void {
    this.free(handle);
  }

  /** Nothing is cached; counted as a release run so stats read the same under every manager. */
  releaseAll(): void {
    this.#c.numReleases++;
  }

  stats(): StorageStats {
    return this.#c.snapshot(this.ctx.toString(), this.name);
  }
}
