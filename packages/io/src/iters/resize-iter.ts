/**
 * ResizeIter: an iterator cut or stretched to `size` batches per epoch (MXNet `mx.io.ResizeIter`,
 * python/mxnet/io/io.py). Each epoch takes `size` batches from the wrapped iterator; when it runs
 * out in the middle, it is reset and continues (so an epoch may contain a padded batch in the
 * middle). `reset()` resets the wrapped iterator too unless `resetInternal` is false, in which case
 * the next epoch continues where this one stopped.
 *
 * `next()` passes the wrapped iterator's batch through (the caller owns it). The wrapped iterator
 * belongs to the ResizeIter from then on: `dispose()` disposes it.
 */
import { MXNetError } from '@mx/base';
import type { NDArray } from '@mx/ndarray';
import { type DataBatch, type DataDesc, DataIter } from '../data-iter.js';
import { holdBatch, viewsOf } from './held-batch.js';

const OP = 'ResizeIter';

export class ResizeIter extends DataIter {
  /** The wrapped iterator. */
  readonly dataIter: DataIter;
  /** Batches per epoch. */
  readonly size: number;
  /** Whether `reset()` resets the wrapped iterator. */
  readonly resetInternal: boolean;
  readonly #provideData: readonly DataDesc[];
  readonly #provideLabel: readonly DataDesc[];
  #cur = 0;
  #current: DataBatch | null = null;

  constructor(dataIter: DataIter, size: number, resetInternal = true) {
    super(dataIter.batchSize);
    if (!Number.isSafeInteger(size) || size < 0) {
      throw new MXNetError(`size must be a non-negative integer, got ${String(size)}`, {
        op: OP,
        params: { size, reset_internal: resetInternal },
      });
    }
    this.dataIter = dataIter;
    this.size = size;
    this.resetInternal = resetInternal;
    // MXNet copies the descriptions once, at construction.
    this.#provideData = dataIter.provideData;
    this.#provideLabel = dataIter.provideLabel;
  }

  get provideData(): DataDesc[] {
    return [...this.#provideData];
  }

  get provideLabel(): DataDesc[] {
    return [...this.#provideLabel];
  }

  /** Batches taken in the current epoch (MXNet's `cur`). */
  get cur(): number {
    return this.#cur;
  }

  reset(): void {
    this.checkLive('reset');
    this.#drop();
    this.#cur = 0;
    if (this.resetInternal) this.dataIter.reset();
  }

  override next(): DataBatch | null {
    this.checkLive('next');
    this.#drop();
    return this.#pull();
  }

  iterNext(): boolean {
    this.checkLive('iterNext');
    this.#drop();
    const batch = this.#pull();
    if (batch === null) return false;
    this.#current = holdBatch(batch);
    return true;
  }

  getData(): NDArray[] {
    return viewsOf(this.#batch('getData').data);
  }

  getLabel(): NDArray[] {
    return viewsOf(this.#batch('getLabel').label);
  }

  getPad(): number {
    return this.#batch('getPad').pad;
  }

  override getIndex(): readonly number[] | null {
    return this.#batch('getIndex').index;
  }

  /** Disposes the current batch and the wrapped iterator. */
  override dispose(): void {
    if (this.isDisposed) return;
    this.#drop();
    this.dataIter.dispose();
    super.dispose();
  }

  #pull(): DataBatch | null {
    if (this.#cur === this.size) return null;
    let batch = this.dataIter.next();
    if (batch === null) {
      this.dataIter.reset();
      batch = this.dataIter.next();
      if (batch === null) {
        throw new MXNetError('the wrapped iterator gives no batch, even after reset()', {
          op: OP,
          hint: 'wrap an iterator that has at least one batch',
        });
      }
    }
    this.#cur++;
    return batch;
  }

  #batch(op: string): DataBatch {
    this.checkLive(op);
    if (this.#current === null) {
      throw new MXNetError('there is no current batch', { op: `${OP}.${op}`, hint: 'call iterNext() first' });
    }
    return this.#current;
  }

  #drop(): void {
    this.#current?.dispose();
    this.#current = null;
  }
}
