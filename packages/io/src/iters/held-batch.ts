/**
 * Batches that a wrapping iterator holds for a while (the current batch of `iterNext()`, a
 * prefetched one) and then hands to the caller. While held, their arrays are kept out of any
 * `nd.scope` cleanup (a prefetch callback runs in the async context of the `next()` call that
 * scheduled it, so its arrays would otherwise belong to that caller's scope). When handed over,
 * the caller gets views made in its own context — a surrounding `nd.scope` owns them, as with
 * any other batch — and the held arrays are released: no copy, the storage just changes hands.
 */
import type { NDArray } from '@mx/ndarray';
import { DataBatch } from '../data-iter.js';

/** Keep the batch's arrays out of the enclosing scopes' cleanup; returns the batch. */
export function holdBatch(batch: DataBatch): DataBatch {
  for (const a of [...batch.data, ...batch.label]) a.runtime.keep(a);
  return batch;
}

/** New arrays (views) on the given ones, created in the caller's context. */
export function viewsOf(arrays: readonly NDArray[]): NDArray[] {
  return arrays.map((a) => a.detach());
}

/** The held batch as the caller's own: views on its arrays, with the held arrays released. */
export function handOver(batch: DataBatch): DataBatch {
  const out = new DataBatch(viewsOf(batch.data), viewsOf(batch.label), {
    pad: batch.pad,
    index: batch.index,
    bucketKey: batch.bucketKey,
    provideData: batch.provideData,
    provideLabel: batch.provideLabel,
  });
  batch.dispose();
  return out;
}
