/**
 * DeviceAllocator: the raw-memory contract a backend implements and `Storage` pools.
 *
 * MXNet's storage managers sit on a per-device "context helper" (`cudaMalloc`, aligned `malloc`,
 * `cudaHostAlloc`) that only knows how to get and return blocks and how much memory is left. We keep
 * exactly that much, so a backend (cpu-wasm inside one WebAssembly.Memory, webgpu buffers,
 * cuda-native device pointers) writes a few lines and gets MXNet's pooling, OOM retry and stats for
 * free. Pointers are opaque (`P`): an ArrayBuffer, a byte offset, a GPUBuffer, a bigint address.
 * Failure is `null` (or a throw, which the managers catch and treat the same way), never a partial
 * result: the pool reacts to a failure by releasing its cache and retrying once.
 */
import type { Context, DeviceType } from '@mx/base';

/** Memory the device has, for the pool's reserve check (MXNet's `MemoryInfo`). */
export interface MemoryInfo {
  /** Bytes still available for new allocations. */
  readonly free: number;
  /** Bytes the device has in all; a non-finite total disables the pool's reserve check. */
  readonly total: number;
}

/** What a backend provides for one device so that `Storage` can pool its memory. */
export interface DeviceAllocator<P = unknown> {
  /** Short name for messages and stats, e.g. `host`, `linear`, `webgpu`. */
  readonly name: string;
  /** Alignment in bytes of every pointer it returns (and the granule it rounds sizes up to). */
  readonly alignment: number;
  /**
   * A block of at least `size` bytes (`size` > 0), or null when the device cannot provide it.
   * Throwing is allowed and is handled like null (the error becomes the `cause` of the OOM error).
   */
  alloc(size: number): P | null;
  /** Return a block; `size` is the size it was allocated with. */
  free(ptr: P, size: number): void;
  /** Free and total bytes of the device; optional (without it the pool skips its reserve check). */
  memoryInfo?(): MemoryInfo;
  /**
   * False when the backend cannot address several arrays inside one block, so small requests must
   * not share slabs (webgpu: a shader declares one element type per bound buffer, so arrays of
   * different dtypes cannot live in the same buffer). Default true: small requests are slots in
   * shared slabs, at `dptr + byteOffset`.
   */
  readonly smallObjects?: boolean;
  /**
   * Storage installs a handler here when it takes the allocator on. The allocator calls it when an
   * allocation made *outside* Storage (a kernel's scratch space taken straight from the device)
   * cannot be served; the handler asks the pressure owner to reclaim unreachable arrays and returns
   * the pool's cached blocks to the device, then returns true if the allocation is worth one more
   * try. Storage's own allocations have their own release-and-retry, so there it returns false.
   */
  setExhaustedHandler?(handler: ((size: number) => boolean) | null): void;
}

/** Makes the allocator for one device; called once, when the device is first used. */
export type AllocatorFactory = (ctx: Context) => DeviceAllocator;

/** Allocator factories by device type (the `allocators` option of `Storage`). */
export type AllocatorFactories = Partial<Record<DeviceType, AllocatorFactory>>;
