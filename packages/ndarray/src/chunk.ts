/**
 * Chunk: one storage allocation plus the engine variable that orders every access to it (MXNet's
 * `NDArray::Chunk`: "one var per storage chunk"). Arrays and their views hold a chunk by
 * reference count; when the last holder lets go, the chunk asks the engine to delete its var, and
 * the storage is freed by that delete op — i.e. only after every op already pushed on the chunk has
 * run, so disposing an array whose result is still being computed is always safe.
 *
 * A sparse array's chunk has no dense block: it carries a SparseStore (data and aux blocks, whose
 * sizes change as ops write it) and frees it the same way.
 *
 * Under memory pressure a chunk also points at its record in the runtime's list of live chunks
 * (creating op, dtype, shape, sometimes a JS stack), so an out-of-memory error can say which
 * allocation sites hold the memory (memory/live-chunks.ts).
 *
 * The owner is a small internal object of the runtime, not the public Runtime class: the published
 * typings then never expose (or half-strip) the release hook.
 */
import type { Context } from '@mx/base';
import type { Var } from '@mx/engine';
import type { Backend } from '@mx/ops';
import type { StorageHandle } from '@mx/storage';
import type { LiveNode, Recorded } from './memory/live-chunks.js';
import type { SparseStore } from './sparse/store.js';

/** What a chunk needs from its runtime to release itself (an internal object of the runtime). */
export interface ChunkOwner {
  releaseChunk(chunk: Chunk): void;
}

export class Chunk implements Recorded {
  readonly handle: StorageHandle | null;
  readonly var: Var;
  readonly ctx: Context;
  readonly backend: Backend;
  readonly bytes: number;
  /** A sparse array's blocks (`handle` is then null); undefined for dense chunks. Set at creation. */
  sparse: SparseStore | undefined = undefined;
  /** Its record among the live chunks (only once the runtime records them, see LiveChunks). */
  liveNode: LiveNode | null = null;
  readonly #owner: ChunkOwner;
  #refs = 1;

  constructor(
    owner: ChunkOwner,
    handle: StorageHandle | null,
    v: Var,
    ctx: Context,
    backend: Backend,
    bytes: number,
  ) {
    this.#owner = owner;
    this.handle = handle;
    this.var = v;
    this.ctx = ctx;
    this.backend = backend;
    this.bytes = bytes;
  }

  /** The device pointer (null for zero-size arrays). */
  get ptr(): unknown {
    return this.handle?.dptr ?? null;
  }

  /** Where the chunk's memory starts inside `ptr` (non-zero for small blocks carved from a slab). */
  get byteOffset(): number {
    return this.handle?.byteOffset ?? 0;
  }

  get live(): boolean {
    return this.#refs > 0;
  }

  retain(): void {
    this.#refs++;
  }

  /** Drop one reference; the last one hands the chunk back to its runtime. */
  release(): void {
    if (this.#refs <= 0) return;
    if (--this.#refs === 0) this.#owner.releaseChunk(this);
  }
}
