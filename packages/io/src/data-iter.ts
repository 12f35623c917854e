/**
 * The iterator protocol of `mxnet.io`: `DataDesc` (name, shape, dtype, layout of one input),
 * `DataBatch` (the arrays of one step) and `DataIter`, the base class every iterator extends.
 *
 * MXNet's `next()` raises StopIteration at the end of an epoch; here it returns `null`, and the
 * JS iteration protocols are provided on top (`for (const b of iter)`, `for await`), which, like a
 * Python `for` loop over an MXNet iterator, continue from where the iterator is and do not reset
 * it. A batch's arrays belong to the caller: `batch.dispose()`, `using batch = ...`, or a
 * surrounding `nd.scope` releases them.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import type { NDArray } from '@mx/ndarray';

/** A shape as Python prints a tuple: `(2, 3)`, `(5,)`, `()`. */
export function shapeRepr(shape: readonly number[]): string {
  return shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
}

/** Name, shape, dtype and layout of one data or label input (MXNet `mx.io.DataDesc`). */
export class DataDesc {
  readonly name: string;
  readonly shape: readonly number[];
  readonly dtype: DTypeName;
  readonly layout: string;

  constructor(name: string, shape: readonly number[], dtype: DTypeName = 'float32', layout = 'NCHW') {
    this.name = name;
    this.shape = Object.freeze([...shape]);
    this.dtype = dtype;
    this.layout = layout;
  }

  /** The axis of the batch dimension: the position of `N` in `layout` (0 without a layout, -1 without N). */
  static getBatchAxis(layout: string | null | undefined): number {
    return layout === null || layout === undefined ? 0 : layout.indexOf('N');
  }

  toString(): string {
    return `DataDesc[${this.name},${shapeRepr(this.shape)},${this.dtype},${this.layout}]`;
  }
}

export interface DataBatchOptions {
  readonly pad?: number;
  readonly index?: readonly number[] | null;
  readonly bucketKey?: unknown;
  readonly provideData?: readonly DataDesc[];
  readonly provideLabel?: readonly DataDesc[];
}

/** One step of data (MXNet `mx.io.DataBatch`). Owns its arrays: dispose it when done. */
export class DataBatch implements Disposable {
  readonly data: readonly NDArray[];
  readonly label: readonly NDArray[];
  /** How many examples at the end of the batch are padding (to be ignored in prediction). */
  readonly pad: number;
  /** Which examples the batch holds, when the iterator knows (MXNet's `index`). */
  readonly index: readonly number[] | null;
  readonly bucketKey: unknown;
  readonly provideData: readonly DataDesc[] | undefined;
  readonly provideLabel: readonly DataDesc[] | undefined;

  constructor(data: readonly NDArray[], label: readonly NDArray[] = [], options: DataBatchOptions = {}) {
    this.data = data;
    this.label = label;
    this.pad = options.pad ?? 0;
    this.index = options.index ?? null;
    this.bucketKey = options.bucketKey;
    this.provideData = options.provideData;
    this.provideLabel = options.provideLabel;
  }

  /** Dispose every data and label array of the batch. */
  dispose(): void {
    for (const a of this.data) a.dispose();
    for (const a of this.label) a.dispose();
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  toString(): string {
    const labels =
      this.label.length > 0 ? `[${this.label.map((l) => shapeRepr(l.shape)).join(', ')}]` : 'None';
    return `DataBatch: data shapes: [${this.data.map((d) => shapeRepr(d.shape)).join(', ')}] label shapes: ${labels}`;
  }
}

/**
 * Base class of the iterators (MXNet `mx.io.DataIter`). Subclasses implement `iterNext` and the
 * getters of the current batch; `next()` and the iteration protocols are built from them.
 */
export abstract class DataIter implements Iterable<DataBatch>, AsyncIterable<DataBatch>, Disposable {
  readonly batchSize: number;
  #disposed = false;

  constructor(batchSize: number) {
    this.batchSize = batchSize;
  }

  /** Descriptions of the data arrays of every batch. */
  abstract get provideData(): DataDesc[];
  /** Descriptions of the label arrays of every batch. */
  abstract get provideLabel(): DataDesc[];
  /** Go back to the beginning of the data. */
  abstract reset(): void;
  /** Move to the next batch; false at the end of the epoch. */
  abstract iterNext(): boolean;
  /** New arrays holding the data of the current batch (the caller owns them). */
  abstract getData(): NDArray[];
  /** New arrays holding the labels of the current batch (the caller owns them). */
  abstract getLabel(): NDArray[];
  /** Number of padding examples at the end of the current batch. */
  abstract getPad(): number;

  /** Indices of the examples of the current batch, when known. */
  getIndex(): readonly number[] | null {
    return null;
  }

  /** The next batch, or null at the end of the epoch (where MXNet raises StopIteration). */
  next(): DataBatch | null {
    this.checkLive('next');
    if (!this.iterNext()) return null;
    return new DataBatch(this.getData(), this.getLabel(), { pad: this.getPad(), index: this.getIndex() });
  }

  *[Symbol.iterator](): Iterator<DataBatch> {
    for (let b = this.next(); b !== null; b = this.next()) yield b;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<DataBatch> {
    for (let b = this.next(); b !== null; b = this.next()) yield b;
  }

  get isDisposed(): boolean {
    return this.#disposed;
  }

  /** Release what the iterator holds (its own copies of the data); batches already returned stay valid. */
  dispose(): void {
    this.#disposed = true;
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  /** Throws when the iterator was disposed. */
  protected checkLive(op: string): void {
    if (this.#disposed) {
      throw new MXNetError(`the ${this.constructor.name} was disposed`, {
        op: `${this.constructor.name}.${op}`,
        hint: 'create a new iterator',
      });
    }
  }
}
