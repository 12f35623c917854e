/**
 * The stand-in chunk of a deferred (not yet computed) array: no storage, no engine variable of its
 * own, nothing pushed. It exists because an NDArray always has a chunk to hand to the runtime's
 * safety net: a deferred array joins the FinalizationRegistry like any other, with this stand-in
 * as the value to release. Once the array is computed it holds the real chunk, and the stand-in
 * forwards its release to that chunk — so an array dropped without `dispose()` is freed whether it
 * was collected before or after its computation, and one never computed frees nothing.
 */
import type { Context } from '@mx/base';
import type { Var } from '@mx/engine';
import type { Backend } from '@mx/ops';
import { Chunk, type ChunkOwner } from '../chunk.js';

/** The owner of one stand-in: releases the chunk the array computed, if any. */
class PendingOwner implements ChunkOwner {
  computed: Chunk | undefined = undefined;
  releaseChunk(): void {
    this.computed?.release();
    this.computed = undefined;
  }
}

/** A storage-less chunk standing in for a deferred array's future one. */
export class PendingChunk extends Chunk {
  readonly #owner: PendingOwner;

  /** `placeholderVar` is a variable no op ever uses (one per runtime is enough). */
  constructor(placeholderVar: Var, ctx: Context, backend: Backend) {
    const owner = new PendingOwner();
    super(owner, null, placeholderVar, ctx, backend, 0);
    this.#owner = owner;
  }

  /** The array was computed into `chunk`: a release of the stand-in now releases that chunk. */
  forwardTo(chunk: Chunk): void {
    this.#owner.computed = chunk;
  }
}
