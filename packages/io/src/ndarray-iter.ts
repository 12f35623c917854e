/**
 * NDArrayIter: batches cut from in-memory arrays (MXNet `mx.io.NDArrayIter`, python/mxnet/io/io.py),
 * with MXNet's batching rules reproduced exactly:
 *
 * - inputs are one array, a list (named `_0_data`, `_1_data`...) or a name → array record, kept in
 *   name order; host data becomes float32 arrays, as `mx.nd.array` makes them;
 * - `last_batch_handle`: 'pad' fills the last batch from the start of the data (tiling when the
 *   batch is larger than the data) and reports the padding in `pad`; 'discard' drops it;
 *   'roll_over' keeps it and puts it in front of the first batch of the next epoch (whose `pad`
 *   is then the number of rolled-over examples, as in MXNet);
 * - `shuffle` reorders the data at construction and at every `reset()`, like MXNet: NumPy's legacy
 *   shuffle of the index array `idx` (kept from one reset to the next), applied to the already
 *   reordered data. `seed` plays the part of `np.random.seed(seed)`: the same seed gives MXNet's
 *   order. Without a seed the order differs from run to run, as with NumPy's global generator.
 *
 * Batches are views (`slice`) on the arrays the iterator holds, or new arrays where a batch joins
 * two ranges (padding, roll-over); either way the caller owns the batch and disposes it. The
 * iterator's own arrays (converted host data, shuffled copies, the rolled-over rows) are kept out
 * of `nd.scope` cleanups and released by `dispose()`.
 */
import { type Context, MXNetError, type StorageArray } from '@mx/base';
import { NDArray, type Nd, type NestedArray } from '@mx/ndarray';
import { DataBatch, DataDesc, DataIter } from './data-iter.js';
import { MT19937 } from './random/mt19937.js';
import { numpyShuffle } from './random/shuffle.js';
import { type NdLike, ndOf } from './runtime-of.js';

/** Host data accepted in place of an NDArray: nested JS arrays, or a 1-d typed array. */
export type HostData = NestedArray | StorageArray;
export type IterArray = NDArray | HostData;
/** One array, a list of arrays, or a record name → array. */
export type IterInput = IterArray | readonly (NDArray | StorageArray)[] | Readonly<Record<string, IterArray>>;

export type LastBatchHandle = 'pad' | 'discard' | 'roll_over';
const LAST_BATCH_HANDLES: readonly LastBatchHandle[] = ['pad', 'discard', 'roll_over'];

/** MXNet's keyword arguments of `NDArrayIter`, plus `seed` and `ctx`. */
export interface NDArrayIterOptions {
  readonly data: IterInput;
  readonly label?: IterInput | null;
  /** Default 1. */
  readonly batch_size?: number;
  /** Default false. */
  readonly shuffle?: boolean;
  /** Default 'pad'. */
  readonly last_batch_handle?: LastBatchHandle;
  /** Name of a single data array (default 'data'); a list gets `_<i>_<data_name>`. */
  readonly data_name?: string;
  /** Name of a single label array (default 'softmax_label'). */
  readonly label_name?: string;
  /** Seed of the shuffle (MXNet: `np.random.seed(seed)` before creating the iterator). */
  readonly seed?: number;
  /** Device for arrays made from host data (default: the runtime's default device). */
  readonly ctx?: Context;
}

interface Source {
  readonly name: string;
  readonly array: NDArray;
  /** Created by the iterator from host data (disposed with it). */
  readonly owned: boolean;
}

const OP = 'NDArrayIter';

function isHostList(x: readonly unknown[]): boolean {
  return x.every((v) => v instanceof NDArray || ArrayBuffer.isView(v));
}

export class NDArrayIter extends DataIter {
  readonly shuffle: boolean;
  readonly lastBatchHandle: LastBatchHandle;
  /** Number of examples (rows of the first data array, in name order). */
  readonly numData: number;
  readonly #nd: Nd;
  readonly #data: readonly Source[];
  readonly #label: readonly Source[];
  /** Arrays batches are cut from: the sources, or shuffled copies of them. */
  #rows: { data: NDArray[]; label: NDArray[] };
  #shuffled = false;
  /** NumPy's `self.idx`: shuffled in place at every reset. */
  readonly #idx: Int32Array;
  /** Original row at each position of the current order. */
  #order: Int32Array;
  readonly #rng: MT19937 | null;
  #cursor: number;
  #cacheData: NDArray[] | null = null;
  #cacheLabel: NDArray[] | null = null;

  constructor(runtime: NdLike, options: NDArrayIterOptions) {
    const batchSize = options.batch_size ?? 1;
    super(batchSize);
    const nd = ndOf(runtime);
    this.#nd = nd;
    const params = {
      batch_size: batchSize,
      shuffle: options.shuffle ?? false,
      last_batch_handle: options.last_batch_handle ?? 'pad',
    };
    if (!Number.isSafeInteger(batchSize) || batchSize < 1) {
      throw new MXNetError(`batch_size must be a positive integer, got ${batchSize}`, { op: OP, params });
    }
    if (!LAST_BATCH_HANDLES.includes(params.last_batch_handle)) {
      throw new MXNetError(`unknown last_batch_handle '${params.last_batch_handle}'`, {
        op: OP,
        params,
        hint: "use 'pad', 'discard' or 'roll_over'",
      });
    }
    this.shuffle = params.shuffle;
    this.lastBatchHandle = params.last_batch_handle;
    const ctx = options.ctx ?? nd.runtime.defaultContext;
    const data = initData(nd, options.data, false, options.data_name ?? 'data', ctx);
    let label: Source[];
    try {
      label = initData(nd, options.label ?? null, true, options.label_name ?? 'softmax_label', ctx);
    } catch (e) {
      disposeOwned(data);
      throw e;
    }
    this.#data = data;
    this.#label = label;
    const first = data[0] as Source;
    this.numData = first.array.shape[0] as number;
    for (const s of [...data, ...label]) {
      if ((s.array.shape[0] as number) < this.numData) {
        disposeOwned([...data, ...label]);
        throw new MXNetError(
          `'${s.name}' has ${s.array.shape[0]} rows, fewer than the ${this.numData} of '${first.name}'`,
          {
            op: OP,
            params,
            shapes: [...data, ...label].map((x) => x.array.shape),
            hint: 'every data and label array needs one row per example',
          },
        );
      }
    }
    this.#rows = { data: data.map((s) => s.array), label: label.map((s) => s.array) };
    this.#idx = Int32Array.from({ length: this.numData }, (_, i) => i);
    this.#order = this.#idx.slice();
    this.#rng = this.shuffle ? new MT19937(options.seed ?? Math.floor(Math.random() * 4294967296)) : null;
    this.#cursor = -batchSize;
    this.reset();
  }

  get provideData(): DataDesc[] {
    return this.#data.map(
      (s) => new DataDesc(s.name, [this.batchSize, ...s.array.shape.slice(1)], s.array.dtype),
    );
  }

  get provideLabel(): DataDesc[] {
    return this.#label.map(
      (s) => new DataDesc(s.name, [this.batchSize, ...s.array.shape.slice(1)], s.array.dtype),
    );
  }

  /** NumPy's `idx` of MXNet's iterator: the shuffled index array (a copy). */
  get idx(): number[] {
    return Array.from(this.#idx);
  }

  /** MXNet's `cursor`: the first row of the current batch (negative before the first batch). */
  get cursor(): number {
    return this.#cursor;
  }

  /** Back to the start; with 'roll_over', the rows left at the end of the epoch open the next one. */
  reset(): void {
    this.checkLive('reset');
    if (this.shuffle) this.#shuffleData();
    const n = this.numData;
    const bs = this.batchSize;
    if (this.lastBatchHandle === 'roll_over' && n - bs < this.#cursor && this.#cursor < n) {
      this.#cursor = this.#cursor - n - bs;
    } else {
      this.#cursor = -bs;
    }
  }

  /** Back to the start, dropping rolled-over rows. */
  hardReset(): void {
    this.checkLive('hardReset');
    if (this.shuffle) this.#shuffleData();
    this.#cursor = -this.batchSize;
    this.#dropCache();
  }

  iterNext(): boolean {
    this.checkLive('iterNext');
    this.#cursor += this.batchSize;
    return this.#cursor < this.numData;
  }

  override next(): DataBatch | null {
    this.checkLive('next');
    if (!this.iterNext()) return null;
    const data = this.getData();
    const label = this.getLabel();
    if ((data[0] as NDArray).shape[0] !== this.batchSize) {
      // An incomplete last batch ends the epoch; 'roll_over' keeps it for the next one.
      if (this.lastBatchHandle === 'roll_over') {
        this.#dropCache();
        this.#cacheData = data.map((a) => this.#nd.keep(a));
        this.#cacheLabel = label.map((a) => this.#nd.keep(a));
      } else {
        for (const a of [...data, ...label]) a.dispose();
      }
      return null;
    }
    return new DataBatch(data, label, { pad: this.getPad(), index: null });
  }

  getData(): NDArray[] {
    this.checkLive('getData');
    return this.#batchify('data');
  }

  getLabel(): NDArray[] {
    this.checkLive('getLabel');
    return this.#batchify('label');
  }

  getPad(): number {
    const n = this.numData;
    const bs = this.batchSize;
    if (this.lastBatchHandle === 'pad' && this.#cursor + bs > n) return this.#cursor + bs - n;
    if (this.lastBatchHandle === 'roll_over' && -bs < this.#cursor && this.#cursor < 0) return -this.#cursor;
    return 0;
  }

  override dispose(): void {
    if (this.isDisposed) return;
    this.#dropCache();
    this.#dropShuffled();
    disposeOwned([...this.#data, ...this.#label]);
    super.dispose();
  }

  #batchify(kind: 'data' | 'label'): NDArray[] {
    const arrays = this.#rows[kind];
    const n = this.numData;
    const bs = this.batchSize;
    const cursor = this.#cursor;
    if (cursor >= n) {
      throw new MXNetError('the iterator is at the end of the data', { op: OP, hint: 'call reset()' });
    }
    if (this.lastBatchHandle === 'roll_over' && -bs < cursor && cursor < 0) {
      const cache = kind === 'data' ? this.#cacheData : this.#cacheLabel;
      if (cache === null) {
        throw new MXNetError('the first batch of this epoch needs the rows rolled over from the last one', {
          op: OP,
          hint: 'read batches with next(), which keeps the rolled-over rows, or call hardReset()',
        });
      }
      if (kind === 'data') this.#cacheData = null;
      else this.#cacheLabel = null;
      return this.#concat(cache, slices(arrays, 0, cursor + bs));
    }
    if (this.lastBatchHandle === 'pad' && cursor + bs > n) {
      const pad = bs - n + cursor;
      const first = slices(arrays, cursor, n);
      let second: NDArray[];
      if (pad > n) {
        const all = slices(arrays, 0, n);
        second = all.map((a) =>
          this.#nd.tile(a, { reps: [Math.floor(pad / n), ...a.shape.slice(1).map(() => 1)] }),
        );
        for (const a of all) a.dispose();
        if (pad % n !== 0) second = this.#concat(second, slices(arrays, 0, pad % n));
      } else {
        second = slices(arrays, 0, pad);
      }
      return this.#concat(first, second);
    }
    return slices(arrays, cursor, Math.min(cursor + bs, n));
  }

  /** Row-wise concatenation of two lists of arrays; disposes the inputs. */
  #concat(first: NDArray[], second: NDArray[]): NDArray[] {
    const out = first.map((a, i) => this.#nd.Concat(a, second[i] as NDArray, { dim: 0 }));
    for (const a of [...first, ...second]) a.dispose();
    return out;
  }

  /** MXNet's `_shuffle_data`: shuffle `idx`, then reorder the current data by it. */
  #shuffleData(): void {
    numpyShuffle(this.#idx, this.#rng as MT19937);
    const order = new Int32Array(this.numData);
    for (let r = 0; r < order.length; r++) order[r] = this.#order[this.#idx[r] as number] as number;
    this.#order = order;
    // Gather from the original arrays with the composed order (same rows as MXNet's gather of
    // the previous gather, one copy instead of a chain).
    const indexByCtx = new Map<Context, NDArray>();
    const gather = (s: Source): NDArray => {
      let index = indexByCtx.get(s.array.ctx);
      if (index === undefined) {
        index = this.#nd.array(order, { dtype: 'int32', ctx: s.array.ctx });
        indexByCtx.set(s.array.ctx, index);
      }
      return this.#nd.keep(this.#nd.take(s.array, index, { axis: 0 }));
    };
    const rows = { data: this.#data.map(gather), label: this.#label.map(gather) };
    for (const index of indexByCtx.values()) index.dispose();
    this.#dropShuffled();
    this.#rows = rows;
    this.#shuffled = true;
  }

  #dropShuffled(): void {
    if (!this.#shuffled) return;
    for (const a of [...this.#rows.data, ...this.#rows.label]) a.dispose();
    this.#shuffled = false;
  }

  #dropCache(): void {
    for (const a of [...(this.#cacheData ?? []), ...(this.#cacheLabel ?? [])]) a.dispose();
    this.#cacheData = null;
    this.#cacheLabel = null;
  }
}

function slices(arrays: readonly NDArray[], begin: number, end: number): NDArray[] {
  return arrays.map((a) => a.slice(begin, end));
}

function disposeOwned(sources: readonly Source[]): void {
  for (const s of sources) if (s.owned) s.array.dispose();
}

/** MXNet's `_init_data`: the canonical (name, array) list, sorted by name. */
function initData(
  nd: Nd,
  input: IterInput | null,
  allowEmpty: boolean,
  defaultName: string,
  ctx: Context,
): Source[] {
  let entries: [string, IterArray][];
  if (input === null) {
    entries = [];
  } else if (input instanceof NDArray || ArrayBuffer.isView(input) || typeof input !== 'object') {
    entries = [[defaultName, input as IterArray]];
  } else if (Array.isArray(input)) {
    const list = input as readonly IterArray[];
    if (!isHostList(list)) entries = [[defaultName, list as NestedArray]];
    else if (list.length === 1) entries = [[defaultName, list[0] as IterArray]];
    else entries = list.map((a, i) => [`_${i}_${defaultName}`, a]);
  } else {
    entries = Object.entries(input as Readonly<Record<string, IterArray>>);
  }
  if (entries.length === 0 && !allowEmpty) {
    throw new MXNetError('data is empty', { op: OP, hint: 'pass at least one data array' });
  }
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const out: Source[] = [];
  try {
    for (const [name, value] of entries) {
      if (value instanceof NDArray) {
        if (value.ndim === 0) {
          throw new MXNetError(`'${name}' is a zero-dim array; it needs a first axis of examples`, {
            op: OP,
            shapes: [value.shape],
          });
        }
        out.push({ name, array: value, owned: false });
        continue;
      }
      if (typeof value !== 'object' || value === null) {
        throw new MXNetError(`'${name}' is ${String(value)}, not an array`, {
          op: OP,
          hint: 'pass NDArrays, typed arrays or nested JS arrays',
        });
      }
      const array = nd.keep(
        ArrayBuffer.isView(value)
          ? nd.array(value as StorageArray, { dtype: 'float32', ctx })
          : nd.array(value as NestedArray, { ctx }),
      );
      out.push({ name, array, owned: true });
      if (array.ndim === 0) {
        throw new MXNetError(`'${name}' is a scalar; it needs a first axis of examples`, { op: OP });
      }
    }
  } catch (e) {
    disposeOwned(out);
    throw e;
  }
  return out;
}
