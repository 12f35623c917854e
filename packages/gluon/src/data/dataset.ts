/**
 * Datasets (MXNet python/mxnet/gluon/data/dataset.py): `length` and `get(i)`, with MXNet's
 * derived datasets — `transform`/`transformFirst` (lazy, or materialised), `filter`, `shard`,
 * `take` and `sample`, all index maps over the original as in MXNet — plus `SimpleDataset` and
 * `ArrayDataset`.
 *
 * JavaScript has no tuples, so a sample that is a JS array IS a tuple: `transform(fn)` spreads it
 * into `fn`'s arguments (MXNet: `fn(*item)`), and Stack batches it field by field.
 *
 * Ownership: `get(i)` hands out samples the caller owns. NDArrays in them are new arrays or views
 * (rows of an NDArray source, views of stored arrays), so disposing them is always safe; the
 * derived datasets dispose the samples they consume and do not return.
 *
 * `workerSpec()` describes a dataset to DataLoader worker threads (see worker-spec.ts); datasets
 * that cannot be described throw an MXNetError from it.
 */
import { DType, fromBFloat16Bits, fromHalfBits, MXNetError, type StorageArray } from '@mx/base';
import { type HostArray, NDArray } from '@mx/ndarray';
import { Sampler, SequentialSampler } from './sampler.js';
import { arraysIn, disposeArrays, isHostArray, retain } from './values.js';
import { transformSpecOf, type WorkerDatasetSpec, type WorkerSourceSpec } from './worker-spec.js';

/**
 * A transform: a function of the sample's fields, or an object with `forward` (transform
 * objects, Blocks). Declared as a method so functions with narrower parameters are accepted.
 */
export type Transform = { bivarianceHack(...args: unknown[]): unknown }['bivarianceHack'] | TransformObject;
export interface TransformObject {
  forward(...args: unknown[]): unknown;
}

/** A test of a sample (declared as a method: a narrower parameter type is accepted). */
export type Predicate<T> = { bivarianceHack(sample: T): boolean }['bivarianceHack'];

export interface TransformOptions {
  /** true (default): transform each sample when it is read; false: transform all now. */
  readonly lazy?: boolean;
}

/** Check that `index` addresses a sample of a dataset of `length`. */
export function checkIndex(index: number, length: number, op: string): void {
  if (!Number.isInteger(index) || index < 0 || index >= length) {
    throw new MXNetError(`index ${String(index)} is out of range for a dataset of ${length} samples`, {
      op,
      hint: `use an integer in [0, ${length})`,
    });
  }
}

/** Abstract dataset: subclasses implement `length` and `get`. */
export abstract class Dataset<T = unknown> implements Iterable<T> {
  /** Number of samples. */
  abstract get length(): number;
  /** Sample `index` (owned by the caller). */
  abstract get(index: number): T;

  /** Every sample in order (each owned by the caller). */
  *[Symbol.iterator](): Iterator<T> {
    for (let i = 0; i < this.length; i++) yield this.get(i);
  }

  /**
   * A dataset of `fn(sample)` (`fn(...sample)` when the sample is a tuple). With `lazy: false`
   * every sample is transformed now and stored (a stochastic `fn` then gives the same result at
   * every epoch) in a SimpleDataset, whose `dispose()` frees the NDArrays it made.
   */
  transform<R = unknown>(fn: Transform, options: TransformOptions = {}): Dataset<R> {
    const trans = new LazyTransformDataset<R>(this, fn, false);
    return options.lazy === false ? SimpleDataset.owning<R>(Array.from(trans)) : trans;
  }

  /** Like `transform`, on the first field of each sample only (the others are kept as they are). */
  transformFirst<R = unknown>(fn: Transform, options: TransformOptions = {}): Dataset<R> {
    const trans = new LazyTransformDataset<R>(this, fn, true);
    return options.lazy === false ? SimpleDataset.owning<R>(Array.from(trans)) : trans;
  }

  /** The samples for which `fn` is true (evaluated now, on every sample; see FilterSampler). */
  filter(fn: Predicate<T>): Dataset<T> {
    const indices: number[] = [];
    for (let i = 0; i < this.length; i++) {
      const sample = this.get(i);
      try {
        if (fn(sample)) indices.push(i);
      } finally {
        disposeArrays(sample);
      }
    }
    return new SampledDataset(this, indices);
  }

  /**
   * Shard `index` of `numShards` contiguous shards: the first `length % numShards` shards get one
   * sample more (MXNet's split). Shard before shuffling for distinct shards per worker.
   */
  shard(numShards: number, index: number): Dataset<T> {
    const params = { numShards, index };
    if (!Number.isInteger(numShards) || numShards <= 0) {
      throw new MXNetError('Number of shards must be greater than 0', { op: 'Dataset.shard', params });
    }
    if (!Number.isInteger(index) || index < 0) {
      throw new MXNetError('Index must be non-negative', { op: 'Dataset.shard', params });
    }
    if (index >= numShards) {
      throw new MXNetError(`Shard index of out bound: ${index} out of ${numShards}`, {
        op: 'Dataset.shard',
        params,
      });
    }
    const shardLen = Math.floor(this.length / numShards);
    const rest = this.length % numShards;
    const start = shardLen * index + Math.min(index, rest);
    const end = start + shardLen + (index < rest ? 1 : 0);
    return new SampledDataset(this, Array.from(new SequentialSampler(end - start, start)));
  }

  /** The first `count` samples (all of them when `count` is null/undefined or larger than the dataset). */
  take(count?: number | null): Dataset<T> {
    if (count !== undefined && count !== null && (!Number.isInteger(count) || count < 0)) {
      throw new MXNetError(`count must be a non-negative integer, got ${String(count)}`, {
        op: 'Dataset.take',
        params: { count },
      });
    }
    const n = count === undefined || count === null || count > this.length ? this.length : count;
    return new SampledDataset(this, Array.from(new SequentialSampler(n)));
  }

  /** The samples at the indices `sampler` yields (drawn once, now). */
  sample(sampler: Sampler<number>): Dataset<T> {
    if (!(sampler instanceof Sampler)) {
      throw new MXNetError(
        `Invalid sampler type: ${(sampler as object)?.constructor?.name ?? typeof sampler}. Expected gluon.data.Sampler instead.`,
        { op: 'Dataset.sample' },
      );
    }
    return new SampledDataset(this, Array.from(sampler));
  }

  /**
   * A description a DataLoader worker thread rebuilds this dataset from. The default throws:
   * override it (or build the dataset with ModuleDataset) to use `numWorkers > 0`.
   */
  workerSpec(): WorkerDatasetSpec {
    throw new MXNetError(`a ${this.constructor.name} cannot be sent to DataLoader worker threads`, {
      op: 'DataLoader',
      hint: 'workers rebuild ArrayDataset/SimpleDataset of host data, MNIST, CIFAR, RecordFileDataset, the image datasets, ModuleDataset, and transforms of them; use numWorkers: 0 otherwise',
    });
  }
}

/** Samples `base.get(indices[i])` (MXNet's _SampledDataset). */
class SampledDataset<T> extends Dataset<T> {
  readonly #base: Dataset<T>;
  readonly #indices: Int32Array;

  constructor(base: Dataset<T>, indices: readonly number[]) {
    super();
    this.#base = base;
    this.#indices = Int32Array.from(indices);
  }

  get length(): number {
    return this.#indices.length;
  }

  get(index: number): T {
    checkIndex(index, this.length, 'Dataset.get');
    return this.#base.get(this.#indices[index] as number);
  }

  override workerSpec(): WorkerDatasetSpec {
    return { kind: 'sampled', base: this.#base.workerSpec(), indices: this.#indices.slice() };
  }
}

/** Apply a transform with MXNet's calling convention (tuples spread; `first`: first field only). */
export function applyTransform(fn: Transform, sample: unknown, first: boolean): unknown {
  const call = typeof fn === 'function' ? fn : (...args: unknown[]) => fn.forward(...args);
  if (first) return Array.isArray(sample) ? [call(sample[0]), ...sample.slice(1)] : call(sample);
  return Array.isArray(sample) ? call(...sample) : call(sample);
}

/** MXNet's _LazyTransformDataset (and _TransformFirstClosure with `first`). */
class LazyTransformDataset<R> extends Dataset<R> {
  readonly #base: Dataset<unknown>;
  readonly #fn: Transform;
  readonly #first: boolean;

  constructor(base: Dataset<unknown>, fn: Transform, first: boolean) {
    super();
    if (typeof fn !== 'function' && typeof (fn as TransformObject)?.forward !== 'function') {
      throw new MXNetError('a transform must be a function or an object with a forward method', {
        op: first ? 'Dataset.transformFirst' : 'Dataset.transform',
      });
    }
    this.#base = base;
    this.#fn = fn;
    this.#first = first;
  }

  get length(): number {
    return this.#base.length;
  }

  get(index: number): R {
    const sample = this.#base.get(index);
    let out: unknown;
    try {
      out = applyTransform(this.#fn, sample, this.#first);
    } catch (e) {
      disposeArrays(sample);
      throw e;
    }
    // The input sample was ours: free what the transform did not pass on.
    disposeArrays(sample, new Set(arraysIn(out)));
    return out as R;
  }

  override workerSpec(): WorkerDatasetSpec {
    return {
      kind: 'transform',
      base: this.#base.workerSpec(),
      fn: transformSpecOf(this.#fn),
      first: this.#first,
    };
  }
}

/** What ArrayDataset and SimpleDataset take as a field: arrays (axis 0 is the sample axis), lists, datasets. */
export type ArraySource = NDArray | HostArray | StorageArray | readonly unknown[] | Dataset<unknown>;

/** One field of an ArrayDataset: length, row access and worker description. */
interface Field {
  readonly length: number;
  get(index: number): unknown;
  spec(): WorkerSourceSpec;
}

/** Host numbers of a 1-d array (float16/bfloat16 decoded to float32, as NumPy would read them). */
function hostNumbers(data: StorageArray, dtype: string): StorageArray {
  if (dtype === 'float16') return Float32Array.from(data as Uint16Array, fromHalfBits);
  if (dtype === 'bfloat16') return Float32Array.from(data as Uint16Array, fromBFloat16Bits);
  return data;
}

/** A copy of `a` in a SharedArrayBuffer where there is one (workers then share it, not copy it). */
function shareable(a: HostArray): HostArray {
  if (typeof SharedArrayBuffer === 'undefined' || a.data.buffer instanceof SharedArrayBuffer) return a;
  const Ctor = a.data.constructor as new (buffer: ArrayBufferLike) => StorageArray;
  const data = new Ctor(new SharedArrayBuffer(a.data.byteLength));
  (data as Float64Array).set(a.data as Float64Array);
  return { data, shape: a.shape.slice(), dtype: a.dtype };
}

function hostField(a: HostArray, op: string, which: string): Field {
  const rows = a.shape[0];
  if (rows === undefined) {
    throw new MXNetError(`${which} is a zero-dim array; it has no samples`, { op, shapes: [a.shape] });
  }
  const size = a.shape.reduce((x, y) => x * y, 1);
  if (!(a.dtype in DType) || a.data.length !== size) {
    throw new MXNetError(
      `${which} is not a valid host array: ${a.data.length} values for shape (${a.shape})`,
      {
        op,
        shapes: [a.shape],
        hint: 'a host array is { data: TypedArray of prod(shape) elements, shape, dtype }',
      },
    );
  }
  const host = a.shape.length === 1 ? { ...a, data: hostNumbers(a.data, a.dtype) } : a;
  const rowSize = size / Math.max(rows, 1);
  const rest = a.shape.slice(1);
  return {
    length: rows,
    get: (i) =>
      host.shape.length === 1
        ? (host.data[i] as number | bigint)
        : { data: host.data.subarray(i * rowSize, (i + 1) * rowSize), shape: rest, dtype: host.dtype },
    spec: () => ({ kind: 'host', array: shareable(host) }),
  };
}

function field(source: ArraySource, op: string, which: string): Field {
  if (source instanceof NDArray) {
    if (source.ndim <= 1) {
      // MXNet converts a 1-d NDArray to NumPy: its samples are numbers.
      return hostField({ data: source.dataSync(), shape: source.shape, dtype: source.dtype }, op, which);
    }
    return {
      length: source.shape[0] as number,
      get: (i) => source.at(i),
      spec: () => ({
        kind: 'host',
        array: shareable({ data: source.dataSync(), shape: source.shape, dtype: source.dtype }),
      }),
    };
  }
  if (source instanceof Dataset)
    return {
      length: source.length,
      get: (i) => source.get(i),
      spec: () => ({ kind: 'dataset', spec: source.workerSpec() }),
    };
  if (isHostArray(source)) return hostField(source, op, which);
  if (ArrayBuffer.isView(source)) {
    const data = source as StorageArray;
    return hostField({ data, shape: [data.length], dtype: hostDType(data) }, op, which);
  }
  if (Array.isArray(source)) {
    const items = source as readonly unknown[];
    return {
      length: items.length,
      get: (i) => retain(items[i]),
      spec: () => {
        if (items.some((x) => arraysIn(x).length > 0)) {
          throw new MXNetError(
            `${which} is a list holding NDArrays; lists are sent to workers by structured clone`,
            {
              op: 'DataLoader',
              hint: 'pass the data as one NDArray or host array instead of a list of NDArrays, or use numWorkers: 0',
            },
          );
        }
        return { kind: 'list', items };
      },
    };
  }
  throw new MXNetError(`${which} is not an array, a list or a dataset`, {
    op,
    hint: 'pass NDArrays, host arrays ({ data, shape, dtype }), typed arrays, JS arrays or Datasets',
  });
}

function hostDType(a: StorageArray): HostArray['dtype'] {
  for (const info of Object.values(DType)) if (a.constructor === info.storage) return info.name;
  return 'float32';
}

/**
 * Wraps one array-like: an NDArray or host array (rows along axis 0; a 1-d one gives numbers), a
 * typed array, a JS list, or a dataset.
 */
export class SimpleDataset<T = unknown> extends Dataset<T> {
  readonly #field: Field;
  /** Samples this dataset made and owns (transform with lazy: false), freed by dispose(). */
  #owned: readonly unknown[] = [];

  constructor(data: readonly T[]);
  constructor(data: ArraySource);
  constructor(data: ArraySource) {
    super();
    this.#field = field(data, 'SimpleDataset', 'data');
  }

  /** @internal A SimpleDataset over samples it owns (transform with lazy: false). */
  static owning<T>(samples: T[]): SimpleDataset<T> {
    const ds = new SimpleDataset<T>(samples);
    ds.#owned = samples;
    return ds;
  }

  /**
   * Free the NDArrays of samples this dataset made itself (`transform(fn, { lazy: false })`);
   * arrays passed in by the caller stay the caller's.
   */
  dispose(): void {
    disposeArrays(this.#owned);
    this.#owned = [];
  }

  get length(): number {
    return this.#field.length;
  }

  get(index: number): T {
    checkIndex(index, this.length, 'SimpleDataset.get');
    return this.#field.get(index) as T;
  }

  override workerSpec(): WorkerDatasetSpec {
    return { kind: 'arrays', sources: [this.#field.spec()] };
  }
}

/**
 * Several array-likes of one length as one dataset: sample `i` is `[a0[i], a1[i], …]` (a tuple), or
 * `a0[i]` when there is one array. The arrays are any `ArraySource`.
 */
export class ArrayDataset<T = unknown> extends Dataset<T> {
  readonly #fields: readonly Field[];

  constructor(...arrays: ArraySource[]) {
    super();
    if (arrays.length === 0) throw new MXNetError('Needs at least 1 arrays', { op: 'ArrayDataset' });
    const fields = arrays.map((a, i) => field(a, 'ArrayDataset', `array[${i}]`));
    const n = (fields[0] as Field).length;
    fields.forEach((f, i) => {
      if (f.length !== n) {
        throw new MXNetError(
          `All arrays must have the same length; array[0] has length ${n} while array[${i}] has ${f.length}.`,
          { op: 'ArrayDataset', hint: 'every array needs one row per sample' },
        );
      }
    });
    this.#fields = fields;
  }

  get length(): number {
    return (this.#fields[0] as Field).length;
  }

  get(index: number): T {
    checkIndex(index, this.length, 'ArrayDataset.get');
    if (this.#fields.length === 1) return (this.#fields[0] as Field).get(index) as T;
    return this.#fields.map((f) => f.get(index)) as T;
  }

  override workerSpec(): WorkerDatasetSpec {
    return { kind: 'arrays', sources: this.#fields.map((f) => f.spec()) };
  }
}
