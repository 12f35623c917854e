/**
 * PooledStorageManager: MXNet's `PooledStorageManager<RoundMultiple|RoundPower2, ...>` for one device.
 *
 * free() caches the block in the bucket of its rounded size; alloc() reuses the most recently freed
 * block of that bucket (LIFO: warm in cache, and what MXNet does). On a miss it rounds the size,
 * releases the whole cache first if the device's free memory minus the block would cut into the
 * reserve (`MXNET_<DEV>_MEM_POOL_RESERVE` % of total), asks the device, and on failure releases the
 * cache and retries once before failing with "Memory allocation failed" (or a null dptr with
 * `failsafe`). A failed allocation leaves every counter and bucket consistent.
 *
 * Hot-path shape (bench: alloc/free pairs from a warm pool): the bucket key is a few arithmetic
 * ops; buckets with small keys live in a dense array (no hashing), larger ones in a Map; the handle
 * remembers its bucket, so free() is a push with no lookup at all; no closures, no try/catch and no
 * allocation besides the handle on the reuse path. Both strategies share this class behind a
 * boolean so call sites stay monomorphic.
 */
import type { Context } from '@mx/base';
import type { DeviceAllocator } from '../device-allocator.js';
import { handleInternals, type PoolBucket, type StorageHandle } from '../handle.js';
import { naiveKey, roundMultipleSize, roundPower2Bucket, roundPower2Bytes } from './bucketing.js';
import type { ManagerConfig } from './config.js';
import { allocFailedError, type StorageManager } from './manager.js';
import { StorageCounters, type StorageStats } from './stats.js';

/** Keys below this index a dense array; the rest a Map. Covers Naive up to 16 MiB at 4 KiB pages. */
const DENSE_KEYS = 4096;

class Bucket<P> implements PoolBucket<P> {
  readonly ptrs: P[] = [];
  constructor(readonly bytes: number) {}
}

export class PooledStorageManager<P> implements StorageManager {
  readonly name: 'Pooled (Naive)' | 'Pooled (Round)';
  readonly ctx: Context;
  readonly storage: object;
  readonly #device: DeviceAllocator<P>;
  readonly #round: boolean;
  readonly #page: number;
  readonly #large: number;
  readonly #logPage: number;
  readonly #cutoff: number;
  readonly #cutoffBytes: number;
  readonly #reservePercent: number;
  readonly #dense: (Bucket<P> | undefined)[] = new Array<Bucket<P> | undefined>(DENSE_KEYS).fill(undefined);
  readonly #far = new Map<number, Bucket<P>>();
  /** Every bucket ever created, for releaseAll. */
  readonly #all: Bucket<P>[] = [];
  readonly #c = new StorageCounters();
  #cause: unknown;

  constructor(
    storage: object,
    ctx: Context,
    device: DeviceAllocator<P>,
    config: Exclude<ManagerConfig, { kind: 'Unpooled' }>,
  ) {
    this.storage = storage;
    this.ctx = ctx;
    this.#device = device;
    this.name = `Pooled (${config.kind})`;
    this.#round = config.kind === 'Round';
    this.#page = config.page;
    this.#large = config.kind === 'Naive' ? config.large : 0;
    this.#logPage = config.kind === 'Round' ? config.logPage : 0;
    this.#cutoff = config.kind === 'Round' ? config.cutoff : 0;
    this.#cutoffBytes = 2 ** this.#cutoff;
    this.#reservePercent = config.reservePercent;
  }

  alloc(size: number, name: string, failsafe: boolean): StorageHandle {
    const key = this.#round
      ? roundPower2Bucket(size, this.#logPage, this.#cutoff, this.#cutoffBytes)
      : naiveKey(size, this.#page, this.#large);
    const bucket = key < DENSE_KEYS ? this.#dense[key] : this.#far.get(key);
    if (bucket !== undefined && bucket.ptrs.length > 0) {
      const ptr = bucket.ptrs.pop() as P;
      const bytes = bucket.bytes;
      const c = this.#c;
      c.numAllocs++;
      c.numPoolHits++;
      c.liveHandles++;
      c.bytesPooled -= bytes;
      c.bytesRequested += size;
      c.bytesInUse += bytes;
      if (c.bytesInUse > c.peakBytesInUse) c.peakBytesInUse = c.bytesInUse;
      return handleInternals.create(this, ptr, size, this.ctx, name, bytes, bucket);
    }
    return this.#allocFromDevice(size, key, bucket, name, failsafe);
  }

  free(handle: StorageHandle): void {
    const bucket = handleInternals.bucket(handle) as Bucket<P>;
    const bytes = bucket.bytes;
    bucket.ptrs.push(handle.dptr as P);
    const c = this.#c;
    c.numFrees++;
    c.liveHandles--;
    c.bytesInUse -= bytes;
    c.bytesRequested -= handle.size;
    c.bytesPooled += bytes;
  }

  directFree(handle: StorageHandle): void {
    const bytes = handle.actualSize;
    const c = this.#c;
    c.numFrees++;
    c.numDeviceFrees++;
    c.liveHandles--;
    c.bytesInUse -= bytes;
    c.bytesRequested -= handle.size;
    this.#device.free(handle.dptr as P, bytes);
  }

  releaseAll(): void {
    const c = this.#c;
    c.numReleases++;
    if (c.bytesPooled === 0) return;
    const device = this.#device;
    for (const bucket of this.#all) {
      const { ptrs, bytes } = bucket;
      // One block at a time, so the counters stay true even if the device's free() throws.
      while (ptrs.length > 0) {
        const ptr = ptrs.pop() as P;
        c.bytesPooled -= bytes;
        c.numDeviceFrees++;
        device.free(ptr, bytes);
      }
    }
  }

  stats(): StorageStats {
    return this.#c.snapshot(this.ctx.toString(), this.name);
  }

  #allocFromDevice(
    size: number,
    key: number,
    existing: Bucket<P> | undefined,
    name: string,
    failsafe: boolean,
  ): StorageHandle {
    const bytes =
      existing !== undefined
        ? existing.bytes
        : this.#round
          ? roundPower2Bytes(key, this.#cutoff)
          : roundMultipleSize(size, this.#page, this.#large);
    const info = this.#device.memoryInfo?.();
    if (info !== undefined && Number.isFinite(info.total)) {
      const reserve = (info.total * this.#reservePercent) / 100;
      if (!(info.free > bytes && reserve <= info.free - bytes)) this.releaseAll();
    }
    let ptr = this.#tryDevice(bytes);
    if (ptr === null) {
      this.releaseAll();
      ptr = this.#tryDevice(bytes);
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
        rounded: bytes,
        bytesInUse: this.#c.bytesInUse,
        bytesPooled: this.#c.bytesPooled,
        cause,
      });
    }
    this.#cause = undefined;
    const bucket = existing ?? this.#newBucket(key, bytes);
    const c = this.#c;
    c.numAllocs++;
    c.numDeviceAllocs++;
    c.liveHandles++;
    c.bytesRequested += size;
    c.bytesInUse += bytes;
    if (c.bytesInUse > c.peakBytesInUse) c.peakBytesInUse = c.bytesInUse;
    const reserved = c.bytesInUse + c.bytesPooled;
    if (reserved > c.peakBytesReserved) c.peakBytesReserved = reserved;
    return handleInternals.create(this, ptr, size, this.ctx, name, bytes, bucket);
  }

  #newBucket(key: number, bytes: number): Bucket<P> {
    const bucket = new Bucket<P>(bytes);
    if (key < DENSE_KEYS) this.#dense[key] = bucket;
    else this.#far.set(key, bucket);
    this.#all.push(bucket);
    return bucket;
  }

  /** The device's block, or null on failure (null return or throw; the error is kept as the cause). */
  #tryDevice(bytes: number): P | null {
    try {
      const ptr = this.#device.alloc(bytes);
      if (ptr == null) return null;
      return ptr;
    } catch (e) {
      this.#cause = e;
      return null;
    }
  }
}
