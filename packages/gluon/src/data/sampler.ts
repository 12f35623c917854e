/**
 * Samplers (MXNet python/mxnet/gluon/data/sampler.py): iterables of sample indices, or of batches
 * of indices, with a `length`. Same orders as MXNet:
 *
 * - RandomSampler draws each epoch's permutation the way MXNet's does, `np.random.shuffle` of
 *   `np.arange(length)`, with NumPy's legacy generator: a sampler made with `{ seed }` gives the
 *   orders MXNet gives after `np.random.seed(seed)` (MT19937 and NumPy's shuffle from @mx/io).
 *   Each sampler owns its generator (MXNet shares NumPy's global one).
 * - BatchSampler's 'rollover' keeps the incomplete last batch and puts it in front of the next
 *   epoch's first batch.
 *
 * Differences: bad arguments are MXNetErrors at construction (MXNet asserts, or raises only when
 * iterated); IntervalSampler's `length` is the number of indices it yields (MXNet returns
 * `length` even with `rollover=False`).
 */
import { MXNetError } from '@mx/base';
import { MT19937, numpyShuffle } from '@mx/io';
import { disposeArrays } from './values.js';

/** Anything iterable with a length (MXNet: `__iter__` and `__len__`). */
export interface SamplerLike<T = number> extends Iterable<T> {
  readonly length: number;
}

/** Base class of samplers. */
export abstract class Sampler<T = number> implements SamplerLike<T> {
  abstract get length(): number;
  abstract [Symbol.iterator](): Iterator<T>;
}

function checkCount(value: number, what: string, op: string, min = 0): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new MXNetError(`${what} must be an integer >= ${min}, got ${String(value)}`, {
      op,
      params: { [what]: value },
    });
  }
}

/** Indices [start, start + length) in order. */
export class SequentialSampler extends Sampler<number> {
  readonly #length: number;
  readonly #start: number;

  constructor(length: number, start = 0) {
    super();
    checkCount(length, 'length', 'SequentialSampler');
    if (!Number.isSafeInteger(start)) {
      throw new MXNetError(`start must be an integer, got ${String(start)}`, {
        op: 'SequentialSampler',
        params: { start },
      });
    }
    this.#length = length;
    this.#start = start;
  }

  get length(): number {
    return this.#length;
  }

  *[Symbol.iterator](): Iterator<number> {
    for (let i = 0; i < this.#length; i++) yield this.#start + i;
  }
}

export interface RandomSamplerOptions {
  /** Seed of the sampler's generator (NumPy's `np.random.seed`); default: a random seed. */
  readonly seed?: number;
}

/** A new permutation of [0, length) at every iteration. */
export class RandomSampler extends Sampler<number> {
  readonly #length: number;
  readonly #rng: MT19937;

  constructor(length: number, options: RandomSamplerOptions = {}) {
    super();
    checkCount(length, 'length', 'RandomSampler');
    this.#length = length;
    this.#rng = new MT19937(options.seed ?? Math.floor(Math.random() * 4294967296));
  }

  get length(): number {
    return this.#length;
  }

  [Symbol.iterator](): Iterator<number> {
    const indices = Int32Array.from({ length: this.#length }, (_, i) => i);
    numpyShuffle(indices, this.#rng);
    return indices[Symbol.iterator]();
  }
}

/** The indices of the samples of `dataset` for which `fn` is true (computed once, at construction). */
export class FilterSampler<T = unknown> extends Sampler<number> {
  readonly #indices: readonly number[];

  /** `dataset`: anything with `length` and `get(i)` (a Dataset). */
  constructor(
    fn: { bivarianceHack(sample: T): boolean }['bivarianceHack'],
    dataset: { readonly length: number; get(index: number): T },
  ) {
    super();
    const indices: number[] = [];
    for (let i = 0; i < dataset.length; i++) {
      const sample = dataset.get(i);
      try {
        if (fn(sample)) indices.push(i);
      } finally {
        disposeArrays(sample);
      }
    }
    this.#indices = indices;
  }

  get length(): number {
    return this.#indices.length;
  }

  [Symbol.iterator](): Iterator<number> {
    return this.#indices[Symbol.iterator]();
  }
}

/** How BatchSampler and DataLoader handle an incomplete last batch. */
export type LastBatch = 'keep' | 'discard' | 'rollover';
const LAST_BATCH: readonly LastBatch[] = ['keep', 'discard', 'rollover'];

export function checkLastBatch(value: string, op: string): LastBatch {
  if (!(LAST_BATCH as readonly string[]).includes(value)) {
    throw new MXNetError(`last_batch must be one of 'keep', 'discard', or 'rollover', but got ${value}`, {
      op,
      params: { lastBatch: value },
    });
  }
  return value as LastBatch;
}

/** Batches of `batchSize` indices from `sampler`; the last one handled by `lastBatch`. */
export class BatchSampler extends Sampler<number[]> {
  readonly #sampler: SamplerLike<number>;
  readonly #batchSize: number;
  readonly #lastBatch: LastBatch;
  /** Indices rolled over from the previous epoch ('rollover'). */
  #prev: number[] = [];

  constructor(sampler: SamplerLike<number>, batchSize: number, lastBatch: LastBatch = 'keep') {
    super();
    checkCount(batchSize, 'batchSize', 'BatchSampler', 1);
    this.#sampler = sampler;
    this.#batchSize = batchSize;
    this.#lastBatch = checkLastBatch(lastBatch, 'BatchSampler');
  }

  get batchSize(): number {
    return this.#batchSize;
  }

  get lastBatch(): LastBatch {
    return this.#lastBatch;
  }

  get length(): number {
    const n = this.#sampler.length;
    const bs = this.#batchSize;
    if (this.#lastBatch === 'keep') return Math.ceil(n / bs);
    if (this.#lastBatch === 'discard') return Math.floor(n / bs);
    return Math.floor((this.#prev.length + n) / bs);
  }

  *[Symbol.iterator](): Iterator<number[]> {
    let batch = this.#prev;
    this.#prev = [];
    for (const i of this.#sampler) {
      batch.push(i);
      if (batch.length === this.#batchSize) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) {
      if (this.#lastBatch === 'keep') yield batch;
      else if (this.#lastBatch === 'rollover') this.#prev = batch;
    }
  }
}

/**
 * Indices [0, length) in steps of `interval`: 0, interval, 2·interval…, then (with `rollover`)
 * 1, 1 + interval… until every index is visited.
 */
export class IntervalSampler extends Sampler<number> {
  readonly #length: number;
  readonly #interval: number;
  readonly #rollover: boolean;

  constructor(length: number, interval: number, rollover = true) {
    super();
    checkCount(length, 'length', 'IntervalSampler');
    checkCount(interval, 'interval', 'IntervalSampler', 1);
    if (interval > length) {
      throw new MXNetError(`Interval ${interval} must be smaller than or equal to length ${length}`, {
        op: 'IntervalSampler',
        params: { length, interval },
      });
    }
    this.#length = length;
    this.#interval = interval;
    this.#rollover = rollover;
  }

  get length(): number {
    return this.#rollover ? this.#length : Math.ceil(this.#length / this.#interval);
  }

  *[Symbol.iterator](): Iterator<number> {
    const starts = this.#rollover ? this.#interval : 1;
    for (let i = 0; i < starts; i++) for (let j = i; j < this.#length; j += this.#interval) yield j;
  }
}
