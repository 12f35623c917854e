/**
 * DataLoader (MXNet python/mxnet/gluon/data/dataloader.py): batches of a dataset, in the order of
 * a batch sampler built from MXNet's options (batchSize / shuffle / sampler / lastBatch, or a
 * batchSampler), merged by a batchify function (default: Stack).
 *
 * - `numWorkers: 0` runs on the calling thread: `for (const batch of loader)` (or `for await`).
 *   Each batch is built in an `nd.scopeSync`, so temporaries of transforms are freed.
 * - `numWorkers > 0` runs the dataset and the batchify function in worker threads
 *   (node:worker_threads, or Web Workers): `for await (const batch of loader)` only. The pipeline
 *   must be describable to a worker (see worker-spec.ts); this is checked before any worker starts.
 *   @mx/gluon's own transforms and datasets are rebuilt in the workers from the package itself:
 *   `workerModule` (the URL of an ES module build of it) or, in Node, the built package
 *   (gluon-entry.ts); in a browser without `workerModule` they are an MXNetError saying so.
 *   Workers are kept `keepAlive` seconds after a complete epoch for the next one, terminated at
 *   once by `break`, errors and `dispose()` (worker-iter.ts).
 *
 * Either way every host array in a batch becomes an NDArray on the main thread (on `ctx`), and
 * the caller owns the batch's arrays (dispose them, or iterate inside `nd.scope`). With a seeded
 * shuffle both modes give the same batches.
 */
import { type Context, MXNetError } from '@mx/base';
import type { NDArray, Nd } from '@mx/ndarray';
import { applyBatchify, type BatchifyFn, Stack } from './batchify.js';
import type { Dataset } from './dataset.js';
import { resolveGluonSelf, type WorkerModuleOption, workerModuleUrl } from './gluon-entry.js';
import {
  BatchSampler,
  checkLastBatch,
  type LastBatch,
  RandomSampler,
  type SamplerLike,
  SequentialSampler,
} from './sampler.js';
import { isHostArray, mapArrays, type NdLike, ndOf } from './values.js';
import type { DataWorker } from './worker-host.js';
import { runEpoch, WorkerPool } from './worker-iter.js';
import { batchifySpecOf } from './worker-spec.js';

export interface DataLoaderOptions {
  /** Samples per batch (required unless `batchSampler` is given). */
  readonly batchSize?: number;
  /** Reshuffle at every epoch (a RandomSampler). Default false. */
  readonly shuffle?: boolean;
  /** Sampler of sample indices (not with `shuffle`). */
  readonly sampler?: SamplerLike<number>;
  /** Incomplete last batch: 'keep' (default), 'discard' or 'rollover'. */
  readonly lastBatch?: LastBatch;
  /** Sampler of batches of indices (then none of batchSize, shuffle, sampler, lastBatch). */
  readonly batchSampler?: SamplerLike<number[]>;
  /** Merges samples into a batch. Default: batchify.Stack. */
  readonly batchifyFn?: BatchifyFn;
  /** Worker threads (0: the calling thread; negative counts as 0). Default 0. */
  readonly numWorkers?: number;
  /** Batches requested ahead with workers. Default 2 × numWorkers. */
  readonly prefetch?: number;
  /** Seed of the shuffle (`shuffle: true` only); default random. */
  readonly seed?: number;
  /** Seconds to wait for a batch from the workers. Default 120. */
  readonly timeout?: number;
  /**
   * Seconds the workers wait after an epoch that ran to its end, to serve the next one; then they
   * are terminated (0: at the end of every epoch). Default 5. See also `dispose()`.
   */
  readonly keepAlive?: number;
  /** Device of the batches' arrays. Default: the runtime's default device. */
  readonly ctx?: Context;
  /**
   * The URL of an ES module build of @mx/gluon (your app's bundle of it) that the workers import
   * to rebuild this package's image transforms and datasets (Resize, RandomResizedCrop,
   * ImageRecordDataset…). Required for those in browsers (a string relative to the page, or a
   * URL); in Node a URL or an absolute path, default the installed built package. Unused with
   * `numWorkers: 0` and by pipelines without such objects.
   */
  readonly workerModule?: WorkerModuleOption;
}

const OP = 'DataLoader';

function conflict(message: string, options: DataLoaderOptions): MXNetError {
  const params: Record<string, unknown> = {};
  for (const k of ['batchSize', 'shuffle', 'sampler', 'lastBatch', 'batchSampler', 'seed'] as const) {
    if (options[k] !== undefined)
      params[k] = k === 'sampler' || k === 'batchSampler' ? '<sampler>' : options[k];
  }
  return new MXNetError(message, { op: OP, params });
}

/** Iterable batches of a dataset. `B` is the batch type the caller expects (unchecked). */
export class DataLoader<B = unknown> implements Iterable<B>, AsyncIterable<B> {
  readonly #nd: Nd;
  readonly #dataset: Dataset<unknown>;
  readonly #batchSampler: SamplerLike<number[]>;
  readonly #batchifyFn: BatchifyFn;
  readonly #numWorkers: number;
  readonly #prefetch: number;
  readonly #timeoutMs: number;
  readonly #ctx: Context | undefined;
  readonly #keepAliveMs: number;
  /** `workerModule` as an absolute URL. */
  readonly #workerModule: string | undefined;
  readonly #live = new Set<DataWorker>();
  /** The workers kept between epochs, and whether an epoch is using them. */
  #pool: WorkerPool | undefined;
  #busy = false;

  constructor(runtime: NdLike, dataset: Dataset<unknown>, options: DataLoaderOptions = {}) {
    this.#nd = ndOf(runtime);
    this.#dataset = dataset;
    const o = options;
    if (o.batchSampler === undefined) {
      if (o.batchSize === undefined) {
        throw conflict('batchSize must be specified unless batchSampler is specified', o);
      }
      let sampler = o.sampler;
      if (sampler === undefined) {
        if (o.shuffle === true) {
          sampler = new RandomSampler(dataset.length, o.seed === undefined ? {} : { seed: o.seed });
        } else {
          if (o.seed !== undefined) throw conflict('seed is only used with shuffle: true', o);
          sampler = new SequentialSampler(dataset.length);
        }
      } else if (o.shuffle === true) {
        throw conflict('shuffle must not be specified if sampler is specified', o);
      } else if (o.seed !== undefined) {
        throw conflict('seed must not be specified if sampler is specified (seed the sampler)', o);
      }
      this.#batchSampler = new BatchSampler(sampler, o.batchSize, checkLastBatch(o.lastBatch ?? 'keep', OP));
    } else {
      if (
        o.batchSize !== undefined ||
        o.shuffle === true ||
        o.sampler !== undefined ||
        o.lastBatch !== undefined ||
        o.seed !== undefined
      ) {
        throw conflict(
          'batchSize, shuffle, sampler, lastBatch and seed must not be specified if batchSampler is specified.',
          o,
        );
      }
      this.#batchSampler = o.batchSampler;
    }
    const numWorkers = o.numWorkers ?? 0;
    if (!Number.isInteger(numWorkers)) {
      throw new MXNetError(`numWorkers must be an integer, got ${numWorkers}`, {
        op: OP,
        params: { numWorkers },
      });
    }
    this.#numWorkers = Math.max(0, numWorkers);
    const prefetch = o.prefetch ?? 2 * this.#numWorkers;
    if (!Number.isFinite(prefetch)) {
      throw new MXNetError(`prefetch must be a number, got ${prefetch}`, { op: OP, params: { prefetch } });
    }
    this.#prefetch = Math.max(0, Math.trunc(prefetch));
    const timeout = o.timeout ?? 120;
    if (!(timeout > 0)) {
      throw new MXNetError(`timeout must be positive, given ${timeout}`, { op: OP, params: { timeout } });
    }
    this.#timeoutMs = timeout * 1000;
    const keepAlive = o.keepAlive ?? 5;
    if (!(keepAlive >= 0)) {
      throw new MXNetError(`keepAlive must be a number of seconds >= 0, given ${keepAlive}`, {
        op: OP,
        params: { keepAlive },
      });
    }
    this.#keepAliveMs = keepAlive * 1000;
    this.#batchifyFn = o.batchifyFn ?? new Stack();
    if (typeof this.#batchifyFn !== 'function' && typeof this.#batchifyFn?.batchify !== 'function') {
      throw new MXNetError('batchifyFn must be a function or an object with a batchify method', { op: OP });
    }
    this.#ctx = o.ctx;
    this.#workerModule = o.workerModule === undefined ? undefined : workerModuleUrl(o.workerModule, OP);
  }

  /** Number of batches in an epoch (the batch sampler's length). */
  get length(): number {
    return this.#batchSampler.length;
  }

  get numWorkers(): number {
    return this.#numWorkers;
  }

  /** Batches requested ahead when workers are used. */
  get prefetch(): number {
    return this.#prefetch;
  }

  /** Worker threads alive right now (running an epoch, or kept alive for the next one). */
  get activeWorkers(): number {
    return this.#live.size;
  }

  /** Terminate the workers kept between epochs now (an epoch still running fails). */
  async dispose(): Promise<void> {
    const pool = this.#pool;
    this.#pool = undefined;
    await pool?.terminate();
  }

  /** The batches of one epoch, on the calling thread (`numWorkers: 0` only). */
  *[Symbol.iterator](): Iterator<B> {
    if (this.#numWorkers > 0) {
      throw new MXNetError(`a DataLoader with ${this.#numWorkers} workers is iterated with for await`, {
        op: OP,
        hint: 'use for await (const batch of loader), or numWorkers: 0 for synchronous iteration',
      });
    }
    for (const indices of this.#batchSampler) yield this.#batchOnThisThread(indices);
  }

  /** The batches of one epoch (any numWorkers). */
  async *[Symbol.asyncIterator](): AsyncIterator<B> {
    if (this.#numWorkers === 0) {
      for (const indices of this.#batchSampler) yield this.#batchOnThisThread(indices);
      return;
    }
    let pool = this.#pool;
    const shared = !this.#busy;
    if (pool === undefined || pool.terminated || !shared) {
      // Describe the pipeline before starting any worker: an undescribable one fails here.
      const { dataset, batchify } = resolveGluonSelf(
        this.#dataset.workerSpec(),
        batchifySpecOf(this.#batchifyFn),
        this.#workerModule,
      );
      pool = new WorkerPool(this.#numWorkers, dataset, batchify, this.#live);
      // An epoch started while another runs gets workers of its own.
      if (shared) this.#pool = pool;
    }
    const current = pool;
    if (shared) this.#busy = true;
    yield* runEpoch<B>(current, {
      prefetch: this.#prefetch,
      timeoutMs: this.#timeoutMs,
      batches: this.#batchSampler[Symbol.iterator](),
      convert: (batch) => this.#nd.scopeSync(() => this.#toNd(batch)) as B,
      end: async (completed) => {
        if (shared) this.#busy = false;
        const forget = () => {
          if (this.#pool === current) this.#pool = undefined;
        };
        if (completed && shared && this.#keepAliveMs > 0) {
          current.release(this.#keepAliveMs, forget);
        } else {
          forget();
          await current.terminate();
        }
      },
    });
  }

  #batchOnThisThread(indices: readonly number[]): B {
    return this.#nd.scopeSync(() => {
      const samples = indices.map((i) => {
        try {
          return this.#dataset.get(i);
        } catch (e) {
          const reason = e instanceof MXNetError ? e.reason : e instanceof Error ? e.message : String(e);
          throw new MXNetError(`sample ${i} failed: ${reason}`, {
            op: OP,
            cause: e,
            ...(e instanceof MXNetError && e.hint !== undefined ? { hint: e.hint } : {}),
          });
        }
      });
      return this.#toNd(applyBatchify(this.#batchifyFn, samples)) as B;
    });
  }

  /** Host arrays of a batch as NDArrays (through JS arrays and plain records). */
  #toNd(batch: unknown): unknown {
    const nd = this.#nd;
    const ctx = this.#ctx;
    const convert = (v: unknown): unknown => {
      if (isHostArray(v)) {
        return nd.array(v.data, { shape: v.shape, dtype: v.dtype, ...(ctx === undefined ? {} : { ctx }) });
      }
      if (Array.isArray(v)) return v.map(convert);
      if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
        return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, convert(x)]));
      }
      return v;
    };
    const out = convert(batch);
    // NDArrays made by the batchify function on another device move to ctx.
    return ctx === undefined
      ? out
      : mapArrays(out, (a: NDArray) => (a.ctx.toString() === ctx.toString() ? a : a.copyTo(ctx)));
  }
}
