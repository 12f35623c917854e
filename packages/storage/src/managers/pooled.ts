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
 * Two additions to MXNet's pool: requests up to 2 KiB are served from slabs of size-class slots
 * (small-objects.ts) instead of a whole page each; and with a pressure owner (pressure.ts), a device
 * allocation that would take the bytes in use past the high-water mark, or that the device refuses,
 * first asks the owner to reclaim (e.g. a GC that lets finalizers free unreachable arrays into this
 * pool) and then retries from the cache.
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
import type { PressureValve } from './pressure.js';
import { SIZE_CLASSES, Slab, SlabLists, sizeClassIndex, smallObjectLimit } from './small-objects.js';
import { StorageCounters, type StorageStats } from './stats.js';

/** Keys below this index a dense array; the rest a Map. Covers Naive up to 16 MiB at 4 KiB pages. */
const DENSE_KEYS = 4096;

/** #deviceBlock's answer when a reclaim ran and the allocation should start over. */
const RETRY: unique symbol = Symbol('retry');

class Bucket<P> implements PoolBucket<P> {
  readonly ptrs: P[] = [];
  constructor(readonly bytes: number) {}
}

export class PooledStorageManager<P> implements StorageManager {
  readonly name: 'Pooled (Naive)' | 'Pooled (Round)';
  inDevice = false;
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
  readonly #valve: PressureValve;
  /** Requests up to this many bytes get a slab slot (0: small-object allocator off). */
  readonly #smallMax: number;
  readonly #slabs = new SlabLists<P>();
  readonly #slabKey: number;
  readonly #slabBytes: number;
  #cause: unknown;
  /** Set while an allocation is retried after a reclaim, so it cannot trigger another one. */
  #retrying = false;
  /** Whether the failing allocation reclaimed first (for the error message). */
  #reclaimed = false;
  readonly #inUse = (): number => this.#c.bytesInUse;

  constructor(
    storage: object,
    ctx: Context,
    device: DeviceAllocator<P>,
    config: Exclude<ManagerConfig, { kind: 'Unpooled' }>,
    valve: PressureValve,
    slabBytes: number,
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
    this.#valve = valve;
    this.#smallMax = slabBytes > 0 ? smallObjectLimit(config.page) : 0;
    this.#slabBytes = Math.max(slabBytes, 1);
    this.#slabKey = this.#keyOf(this.#slabBytes);
  }

  alloc(size: number, name: string, failsafe: boolean): StorageHandle {
    if (size <= this.#smallMax) return this.#allocSmall(size, name, failsafe);
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
    const slab = handleInternals.slab(handle);
    if (slab !== null) {
      this.#freeSmall(handle, slab as Slab<P>, false);
      return;
    }
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
    const slab = handleInternals.slab(handle);
    if (slab !== null) {
      this.#freeSmall(handle, slab as Slab<P>, true);
      return;
    }
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
    // Slabs with no slot in use go back to their bucket first, so they are released below.
    for (const slab of this.#slabs.takeEmpty()) slab.bucket.ptrs.push(slab.ptr);
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
    return this.#c.snapshot(this.ctx.toString(), this.name, this.#valve.reclaims);
  }

  #keyOf(size: number): number {
    return this.#round
      ? roundPower2Bucket(size, this.#logPage, this.#cutoff, this.#cutoffBytes)
      : naiveKey(size, this.#page, this.#large);
  }

  #bytesOf(size: number, key: number): number {
    return this.#round
      ? roundPower2Bytes(key, this.#cutoff)
      : roundMultipleSize(size, this.#page, this.#large);
  }

  #allocFromDevice(
    size: number,
    key: number,
    existing: Bucket<P> | undefined,
    name: string,
    failsafe: boolean,
  ): StorageHandle {
    const bytes = existing !== undefined ? existing.bytes : this.#bytesOf(size, key);
    const ptr = this.#deviceBlock(bytes, size);
    if (ptr === RETRY) return this.#retry(size, name, failsafe);
    if (ptr === null) return this.#fail(size, bytes, name, failsafe);
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

  /**
   * A block of `bytes` from the device for a request of `size`: the high-water check (may reclaim
   * and ask for a retry), MXNet's reserve check, then the device, releasing the cache and trying
   * once more on failure, then (with a pressure owner) a reclaim and a retry. Null: out of memory.
   */
  #deviceBlock(bytes: number, size: number): P | null | typeof RETRY {
    const valve = this.#valve;
    if (this.#c.bytesInUse + bytes > valve.mark && !this.#retrying) {
      if (valve.relieve(this.ctx, 'highWater', size, this.#inUse)) return RETRY;
    }
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
    if (ptr === null && !this.#retrying && valve.relieve(this.ctx, 'outOfMemory', size, this.#inUse)) {
      this.#cause = undefined;
      return RETRY;
    }
    if (ptr !== null) this.#cause = undefined;
    return ptr;
  }

  /** The allocation again, from the top (the cache may now hold blocks), without another reclaim. */
  #retry(size: number, name: string, failsafe: boolean): StorageHandle {
    this.#retrying = true;
    this.#reclaimed = true;
    try {
      return this.alloc(size, name, failsafe);
    } finally {
      this.#retrying = false;
      this.#reclaimed = false;
    }
  }

  /** Out of memory: a null-dptr handle with `failsafe`, else MXNet's error (with the owner's report). */
  #fail(size: number, rounded: number, name: string, failsafe: boolean): StorageHandle {
    const cause = this.#cause;
    this.#cause = undefined;
    if (failsafe) return handleInternals.create<P>(null, null, size, this.ctx, name, 0, null);
    throw allocFailedError({
      ctx: this.ctx,
      manager: this.name,
      allocator: this.#device.name,
      name,
      size,
      rounded,
      bytesInUse: this.#c.bytesInUse,
      bytesPooled: this.#c.bytesPooled,
      cause,
      reclaimed: this.#reclaimed,
      report: this.#valve.describe(this.ctx),
    });
  }

  /** A slot of the size class of `size` (≤ 2 KiB), from a slab with room or a new slab. */
  #allocSmall(size: number, name: string, failsafe: boolean): StorageHandle {
    const ci = sizeClassIndex(size);
    const c = this.#c;
    let slab = this.#slabs.top(ci);
    let hit = true;
    if (slab === undefined) {
      // A new slab: a cached block of the slab bucket, else one from the device.
      const bucket = this.#slabKey < DENSE_KEYS ? this.#dense[this.#slabKey] : this.#far.get(this.#slabKey);
      let ptr: P | null;
      if (bucket !== undefined && bucket.ptrs.length > 0) {
        ptr = bucket.ptrs.pop() as P;
      } else {
        const bytes = bucket !== undefined ? bucket.bytes : this.#bytesOf(this.#slabBytes, this.#slabKey);
        const got = this.#deviceBlock(bytes, size);
        if (got === RETRY) return this.#retry(size, name, failsafe);
        if (got === null) return this.#fail(size, SIZE_CLASSES[ci] as number, name, failsafe);
        ptr = got;
        hit = false;
        c.numDeviceAllocs++;
        c.bytesPooled += bytes;
        const reserved = c.bytesInUse + c.bytesPooled;
        if (reserved > c.peakBytesReserved) c.peakBytesReserved = reserved;
      }
      slab = new Slab<P>(
        ptr,
        bucket ?? this.#newBucket(this.#slabKey, this.#bytesOf(this.#slabBytes, this.#slabKey)),
        ci,
      );
      this.#slabs.add(slab);
    }
    const offset = slab.take();
    if (slab.used === slab.capacity) this.#slabs.remove(slab);
    const cls = slab.slotBytes;
    c.numAllocs++;
    if (hit) c.numPoolHits++;
    c.liveHandles++;
    c.bytesPooled -= cls;
    c.bytesRequested += size;
    c.bytesInUse += cls;
    if (c.bytesInUse > c.peakBytesInUse) c.peakBytesInUse = c.bytesInUse;
    return handleInternals.create(this, slab.ptr, size, this.ctx, name, cls, null, slab, offset);
  }

  /**
   * Give a slot back. An emptied slab returns to its bucket unless it is its class's only slab with
   * room; with `direct` (directFree) an emptied slab goes straight back to the device.
   */
  #freeSmall(handle: StorageHandle, slab: Slab<P>, direct: boolean): void {
    const cls = slab.slotBytes;
    const c = this.#c;
    c.numFrees++;
    c.liveHandles--;
    c.bytesInUse -= cls;
    c.bytesRequested -= handle.size;
    c.bytesPooled += cls;
    slab.put(handle.byteOffset);
    const slabs = this.#slabs;
    if (slab.index < 0) slabs.add(slab);
    if (slab.used > 0) return;
    if (direct) {
      slabs.remove(slab);
      const bytes = slab.bucket.bytes;
      c.bytesPooled -= bytes;
      c.numDeviceFrees++;
      this.#device.free(slab.ptr, bytes);
    } else if (slabs.count(slab.classIndex) > 1) {
      slabs.remove(slab);
      slab.bucket.ptrs.push(slab.ptr);
    }
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
    this.inDevice = true;
    try {
      const ptr = this.#device.alloc(bytes);
      if (ptr == null) return null;
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
    this.releaseAll();
  }
}
