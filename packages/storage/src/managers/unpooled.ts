/**
 * UnpooledStorageManager: MXNet's `NaiveStorageManager` (and CPUSharedStorageManager's policy).
 *
 * Every alloc goes to the device allocator for exactly `size` bytes (the allocator may round up to
 * its own alignment internally; stats count the requested bytes), and every free returns the block
 * at once. There is no cache, so no reserve check and no retry: a failure is "Memory allocation
 * failed" right away, or a null dptr with `failsafe`. Used for `Unpooled`, for
 * `MXNET_USE_NAIVE_STORAGE_MANAGER=1`, for cpu_shared, and as the baseline the pool is measured against.
 * With a pressure owner (pressure.ts) an allocation past the high-water mark, or one the device
 * refuses, first asks the owner to reclaim, then proceeds (or is tried once more).
 */
import type { Context } from '@mx/base';
import type { DeviceAllocator } from '../device-allocator.js';
import { handleInternals, type StorageHandle } from '../handle.js';
import { allocFailedError, type StorageManager } from './manager.js';
import type { PressureValve } from './pressure.js';
import { StorageCounters, type StorageStats } from './stats.js';

export class UnpooledStorageManager<P> implements StorageManager {
  readonly name = 'Unpooled' as const;
  inDevice = false;
  readonly ctx: Context;
  readonly storage: object;
  readonly #device: DeviceAllocator<P>;
  readonly #c = new StorageCounters();
  readonly #valve: PressureValve;
  readonly #inUse = (): number => this.#c.bytesInUse;
  /** Why the last device allocation failed (a throw), for the error's cause. */
  #cause: unknown;

  constructor(storage: object, ctx: Context, device: DeviceAllocator<P>, valve: PressureValve) {
    this.storage = storage;
    this.ctx = ctx;
    this.#device = device;
    this.#valve = valve;
  }

  alloc(size: number, name: string, failsafe: boolean): StorageHandle {
    const valve = this.#valve;
    if (this.#c.bytesInUse + size > valve.mark) valve.relieve(this.ctx, 'highWater', size, this.#inUse);
    let ptr = this.#tryDevice(size);
    let reclaimed = false;
    if (ptr === null && valve.relieve(this.ctx, 'outOfMemory', size, this.#inUse)) {
      reclaimed = true;
      ptr = this.#tryDevice(size);
    }
    if (ptr === null) {
      const cause = this.#cause;
      this.#cause = undefined;
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
        reclaimed,
        report: valve.describe(this.ctx),
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
    return this.#c.snapshot(this.ctx.toString(), this.name, this.#valve.reclaims);
  }

  /** The device's block, or null on failure (null return or throw; the error is kept as the cause). */
  #tryDevice(size: number): P | null {
    this.inDevice = true;
    try {
      const ptr = this.#device.alloc(size) ?? null;
      if (ptr !== null) this.#cause = undefined;
      return ptr;
    } catch (e) {
      this.#cause = e;
      return null;
    } finally {
      this.inDevice = false;
    }
  }

  relieveDirect(size: number): void {
    this.#valve.relieve(this.ctx, 'outOfMemory', size, this.#inUse);
  }
}
