/**
 * Storage statistics: the public `StorageStats` snapshot and the mutable counters managers bump.
 *
 * MXNet exposes memory use through its profiler counters ("Memory: <dev>") and the GPU pool
 * profile; here every manager keeps plain numeric counters (a field increment per event, nothing on
 * the hot path allocates) and `Storage.stats(ctx)` copies them into a frozen snapshot. The fields
 * are the ones needed to see what a pool is doing: how much is live, how much is cached, whether
 * the cache is being hit, and how often memory pressure forced a release.
 */

/** Which storage manager serves a device, with MXNet's log names. */
export type ManagerName = 'Pooled (Naive)' | 'Pooled (Round)' | 'Unpooled';

/** Memory statistics of one device (from `Storage.stats(ctx)`). All sizes in bytes. */
export interface StorageStats {
  /** The device, e.g. `cpu(0)`. */
  readonly ctx: string;
  /** Manager serving the device. */
  readonly manager: ManagerName;
  /** Rounded (bucket) size of the live handles: device memory in use by arrays. */
  readonly bytesInUse: number;
  /** Requested size of the live handles (bytesInUse minus rounding waste). */
  readonly bytesRequested: number;
  /** Bytes cached in the pool's buckets, ready for reuse (0 when unpooled). */
  readonly bytesPooled: number;
  /** Device memory held by the manager: bytesInUse + bytesPooled. */
  readonly bytesReserved: number;
  /** Highest bytesInUse seen. */
  readonly peakBytesInUse: number;
  /** Highest bytesReserved seen. */
  readonly peakBytesReserved: number;
  /** Handles allocated (size > 0) and not yet freed. */
  readonly liveHandles: number;
  /** Successful allocations with size > 0 (pool hits and fresh device blocks). */
  readonly numAllocs: number;
  /** free + directFree of live handles. */
  readonly numFrees: number;
  /** Blocks obtained from the device allocator. */
  readonly numDeviceAllocs: number;
  /** Blocks returned to the device allocator (directFree, releaseAll, unpooled free). */
  readonly numDeviceFrees: number;
  /** Allocations served from the pool's cache. */
  readonly numPoolHits: number;
  /** releaseAll runs, explicit and implicit (reserve check, OOM retry). */
  readonly numReleases: number;
  /** Times the owner was asked to reclaim memory (high-water mark passed, or out of memory; see PressureOptions). */
  readonly numReclaims: number;
}

/** Mutable counters behind a StorageStats snapshot (package-internal). */
export class StorageCounters {
  bytesInUse = 0;
  bytesRequested = 0;
  bytesPooled = 0;
  peakBytesInUse = 0;
  peakBytesReserved = 0;
  liveHandles = 0;
  numAllocs = 0;
  numFrees = 0;
  numDeviceAllocs = 0;
  numDeviceFrees = 0;
  numPoolHits = 0;
  numReleases = 0;

  snapshot(ctx: string, manager: ManagerName, numReclaims = 0): StorageStats {
    return Object.freeze({
      ctx,
      manager,
      bytesInUse: this.bytesInUse,
      bytesRequested: this.bytesRequested,
      bytesPooled: this.bytesPooled,
      bytesReserved: this.bytesInUse + this.bytesPooled,
      peakBytesInUse: this.peakBytesInUse,
      peakBytesReserved: this.peakBytesReserved,
      liveHandles: this.liveHandles,
      numAllocs: this.numAllocs,
      numFrees: this.numFrees,
      numDeviceAllocs: this.numDeviceAllocs,
      numDeviceFrees: this.numDeviceFrees,
      numPoolHits: this.numPoolHits,
      numReleases: this.numReleases,
      numReclaims,
    });
  }
}
