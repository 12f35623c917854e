/**
 * Chunk: one storage allocation plus the engine variable that orders every access to it (MXNet's
 * `NDArray::Chunk`: "one var per storage chunk"). Arrays and their views hold a chunk by
 * reference count; when the last holder lets go, the chunk asks the engine to delete its var, and
 * the storage is freed by that delete op — i.e. only after every op already pushed on the chunk has
 * run, so disposing an array whose result is still being computed is always safe.
 */
import type { Context } from '@mx/base';
import type { Var } from '@mx/engine';
import type { Backend } from '@mx/ops';
import type { StorageHandle } from '@mx/storage';

/** What a chunk needs from its runtime to release itself. */
export interface ChunkOwner {
  releaseChunk(chunk: Chunk): void;
}

export class Chunk {
  readonly handle: StorageHandle | null;
  readonly var: Var;
  readonly ctx: Context;
  readonly backend: Backend;
  readonly bytes: number;
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
