/**
 * The backend contract: what a device package (cpu-wasm, webgpu, cuda-native, or a third party's)
 * implements so the NDArray layer can run every operator on it.
 *
 * Kept small on purpose (jax-js's lesson): device contexts served, a raw allocator that
 * @mx/storage pools, host <-> device transfers, device-to-device copy, and kernels installed into a
 * registry (an expression compiler covers the whole elementwise family). Everything else in @mx is
 * built on these; nothing in @mx/ndarray names a particular backend.
 */
import type { Context, DeviceType, DTypeName, StorageArray } from '@mx/base';
import type { DeviceAllocator } from '@mx/storage';
import type { OpRegistry } from './registry.js';
import type { TBlob } from './types.js';

export interface BackendCapabilities {
  /** Dtypes kernels compute in; other dtypes can be stored, copied and cast only. */
  readonly computeDTypes: readonly DTypeName[];
  /** Dtypes that can be stored (allocated, copied, saved). */
  readonly storageDTypes: readonly DTypeName[];
  /** True when `readSync` works (reads can block the calling thread). */
  readonly syncRead: boolean;
  /** Largest single allocation in bytes. */
  readonly maxBufferBytes: number;
}

export interface Backend<P = unknown> {
  /** Unique name, used as the kernel key in registries (`cpu-wasm`). */
  readonly name: string;
  /** Device types whose contexts this backend serves (`cpu` for cpu-wasm, `gpu` for webgpu). */
  readonly deviceTypes: readonly DeviceType[];
  readonly capabilities: BackendCapabilities;
  /** The raw allocator for one device, pooled by @mx/storage. */
  allocator(ctx: Context): DeviceAllocator<P>;
  /** Register this backend's kernels and expression compiler. */
  install(registry: OpRegistry): void;
  /** Copy host data into a blob (same dtype and element count). Runs inside an engine op. */
  write(dst: TBlob<P>, src: StorageArray): void;
  /** A host copy of a blob, synchronously (only when `capabilities.syncRead`). */
  readSync(src: TBlob<P>): StorageArray;
  /** A host copy of a blob. */
  read(src: TBlob<P>): Promise<StorageArray>;
  /**
   * Optional: the blob's elements as a typed array over the device memory itself, no copy — only
   * where device memory is host memory that never moves or detaches (cpu-wasm's shared memory);
   * undefined otherwise (then use `readSync`/`read` and `write`). Meant for transports that send
   * from or receive into an array (ps-lite's zero-copy SArray): the view is valid only while the
   * engine op that holds the array's variable runs, and must not be kept beyond it.
   */
  hostView?(blob: TBlob<P>): StorageArray | undefined;
  /** Copy between two blobs of this backend (same dtype and size; may be different devices of it). */
  copy(dst: TBlob<P>, src: TBlob<P>): void;
  /**
   * Optional: throw an MXNetError when `ctx` cannot be used now (a lost GPU device), so the NDArray
   * layer reports the cause before allocating instead of a generic allocation failure.
   */
  checkAvailable?(ctx: Context, op: string): void;
  /** Release everything the backend holds (workers, device). */
  dispose(): void;
}
