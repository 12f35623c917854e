/**
 * StorageHandle: one block handed out by `Storage` (MXNet's `Storage::Handle`: dptr, size, ctx, name),
 * plus `byteOffset`: a small block is a slot carved out of a larger pooled block (a slab, see
 * managers/small-objects.ts), so its memory starts `byteOffset` bytes into `dptr`.
 *
 * Validity lives on the handle itself, in private fields (owning manager, live flag, rounded size,
 * pool bucket or slab), instead of in a Set of live handles on the Storage: free() then costs a field read,
 * not a hash lookup, and a freed handle carries what is needed to report a double free by name.
 * Managers reach those fields through `handleInternals`, which this file exports for the package's
 * own managers but `index.ts` does not re-export, so users see an immutable value with `live` and
 * `actualSize` getters and cannot forge or revive handles.
 */
import type { Context } from '@mx/base';

/** A pool bucket: blocks of exactly `bytes` bytes, reused last-in first-out. */
export interface PoolBucket<P> {
  readonly bytes: number;
  readonly ptrs: P[];
}

/** The slab a small block was carved from (implemented by managers/small-objects.ts). */
export interface SmallSlab<P> {
  readonly ptr: P;
}

/** What a handle needs from the manager that allocated it (implemented by the managers). */
export interface HandleOwner {
  /** The Storage the manager belongs to (identity token for foreign-handle checks). */
  readonly storage: object;
  free(handle: StorageHandle): void;
  directFree(handle: StorageHandle): void;
}

/** Package-internal access to a handle's private state. */
export interface HandleInternals {
  create<P>(
    owner: HandleOwner | null,
    dptr: P | null,
    size: number,
    ctx: Context,
    name: string,
    rounded: number,
    bucket: PoolBucket<P> | null,
    slab?: SmallSlab<P> | null,
    byteOffset?: number,
  ): StorageHandle<P>;
  /** If `h` is a live handle of `storage`: mark it freed and return its manager; else null. */
  release(h: unknown, storage: object): HandleOwner | null;
  /** Why `release` refused `h`: 'not-a-handle', 'foreign', 'freed' or 'ok'. */
  diagnose(h: unknown, storage: object): 'not-a-handle' | 'foreign' | 'freed' | 'ok';
  bucket<P>(h: StorageHandle<P>): PoolBucket<P> | null;
  /** The slab of a small block; null for a block of its own. */
  slab<P>(h: StorageHandle<P>): SmallSlab<P> | null;
}

// Assigned by StorageHandle's static block, which is the only code that can see its #fields.
let internals: HandleInternals | undefined;

/** A block of device memory from `Storage.alloc`. Immutable; `free` it exactly once. */
export class StorageHandle<P = unknown> {
  /** The pointer (allocator-specific: ArrayBuffer, byte offset, GPU buffer...); null for size 0 or a failsafe OOM. */
  readonly dptr: P | null;
  /**
   * Where the block starts inside `dptr`, in bytes: 0 for a block of its own, the slot's offset for
   * a small block carved from a slab (always a multiple of 16). Backends address the block at
   * `dptr + byteOffset` (a TBlob's `ptr` and `byteOffset`).
   */
  readonly byteOffset: number;
  /** Requested size in bytes. */
  readonly size: number;
  /** Device the block lives on. */
  readonly ctx: Context;
  /** Name given at alloc (MXNet's default is "unknown"), used in error messages and profiles. */
  readonly name: string;
  #owner: HandleOwner | null;
  #live: boolean;
  #rounded: number;
  #bucket: PoolBucket<P> | null;
  #slab: SmallSlab<P> | null;

  private constructor(
    owner: HandleOwner | null,
    dptr: P | null,
    size: number,
    ctx: Context,
    name: string,
    rounded: number,
    bucket: PoolBucket<P> | null,
    slab: SmallSlab<P> | null,
    byteOffset: number,
  ) {
    this.dptr = dptr;
    this.byteOffset = byteOffset;
    this.size = size;
    this.ctx = ctx;
    this.name = name;
    this.#owner = owner;
    this.#live = owner !== null;
    this.#rounded = rounded;
    this.#bucket = bucket;
    this.#slab = slab;
  }

  /** True from alloc until free/directFree (always false for null-dptr handles). */
  get live(): boolean {
    return this.#live;
  }

  /**
   * Bytes the block really occupies on the device: the pool bucket size, the size class of a small
   * block (16 B to 2 KiB), `size` when unpooled.
   */
  get actualSize(): number {
    return this.#rounded;
  }

  toString(): string {
    return `StorageHandle(name="${this.name}", size=${this.size}, ctx=${this.ctx.toString()})`;
  }

  static {
    internals = {
      create: (owner, dptr, size, ctx, name, rounded, bucket, slab = null, byteOffset = 0) =>
        new StorageHandle(owner, dptr, size, ctx, name, rounded, bucket, slab, byteOffset),
      release(h, storage) {
        if (!(h instanceof StorageHandle)) return null;
        const owner = h.#owner;
        if (owner === null || !h.#live || owner.storage !== storage) return null;
        h.#live = false;
        return owner;
      },
      diagnose(h, storage) {
        if (!(h instanceof StorageHandle)) return 'not-a-handle';
        if (h.#owner === null || h.#owner.storage !== storage) return 'foreign';
        return h.#live ? 'ok' : 'freed';
      },
      bucket: (h) => h.#bucket,
      slab: (h) => h.#slab,
    };
  }
}

/** Package-internal: the managers' and Storage's access to handle state. Not part of the public API. */
export const handleInternals: HandleInternals = internals as HandleInternals;
