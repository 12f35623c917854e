/**
 * kTempSpace: a growable scratch block reused by every op that is handed this copy (MXNet
 * `SpaceAllocator`, reached through `Resource::get_space_typed`).
 *
 * The block only grows: a request that fits returns the current handle unchanged, a larger one
 * frees the old block and allocates exactly the requested size. Sizes are not rounded here because
 * the Storage pool already rounds to its buckets. Round-robin copies (MXNET_CPU_TEMP_COPY) let
 * independent ops use scratch concurrently; ops sharing a copy are serialized by its `var`.
 */
import type { Context } from '@mx/base';
import { MXNetError } from '@mx/base';
import type { Storage, StorageHandle } from '../storage.js';

export class TempSpaceResource<V = unknown> {
  readonly type = 'tempSpace' as const;
  /** Copy index among this device's temp-space copies (MXNet `Resource::id`). */
  readonly id: number;
  readonly ctx: Context;
  /** The scheduler variable ops must list as mutable while they use the space; undefined without a scheduler. */
  readonly var: V | undefined;
  readonly #storage: Storage;
  #handle: StorageHandle | null = null;

  constructor(storage: Storage, ctx: Context, id: number, variable?: V) {
    this.#storage = storage;
    this.ctx = ctx;
    this.id = id;
    this.var = variable;
  }

  /** The current block, or null before the first {@link get} / after {@link release}. */
  get handle(): StorageHandle | null {
    return this.#handle;
  }

  /** Bytes the current block holds (0 when there is none). */
  get capacity(): number {
    return this.#handle?.size ?? 0;
  }

  /**
   * A block of at least `size` bytes on this resource's device: the current one when it is big
   * enough, otherwise a new one of exactly `size` bytes (the old one goes back to the Storage pool).
   * Its contents are undefined, and the block stays valid only until the next larger `get`. A small
   * block (≤ 2 KiB) is a slot in a shared slab: address it at `dptr + byteOffset`.
   */
  get<P = unknown>(size: number, name = 'temp_space'): StorageHandle<P> {
    if (!Number.isSafeInteger(size) || size < 0) {
      throw new MXNetError(
        `temp space size must be a non-negative integer number of bytes, got ${String(size)}`,
        {
          op: 'TempSpaceResource.get',
          params: { size },
          device: this.ctx.toString(),
          hint: 'request the scratch size in bytes (element count × element size)',
        },
      );
    }
    const current = this.#handle;
    if (current !== null && current.size >= size) return current as StorageHandle<P>;
    this.release();
    const fresh = this.#storage.alloc<P>(size, this.ctx, { name });
    this.#handle = fresh;
    return fresh;
  }

  /** Give the block back to Storage (no-op when there is none). */
  release(): void {
    const current = this.#handle;
    if (current === null) return;
    this.#handle = null;
    this.#storage.free(current);
  }
}
