/**
 * CSVIter: MXNet's C++ CSV iterator (src/io/iter_csv.cc under BatchLoader and PrefetcherIter)
 * with its parameters and batching, reading files of any size in bounded memory.
 *
 * - each row of `data_csv` is one example, reshaped to `data_shape`; `label_csv` rows are read in
 *   step with it and reshaped to `label_shape`; without `label_csv` every label is 0;
 * - labels come out as MXNet's Python wrapper returns them: (batch_size,) when `label_shape` is
 *   (1,) (MXDataIter flattens a (batch, 1) label), (batch_size, ...label_shape) otherwise;
 * - `round_batch` (default true) fills an incomplete last batch by wrapping to the first rows
 *   (`pad` = rows taken from the start) and then — MXNet's documented quirk — the next `reset()`
 *   does not rewind: the following epoch starts after the rows already used as padding. With
 *   `round_batch: false` the last batch keeps `pad` = missing rows and those rows hold what the
 *   previous batch had there (MXNet reuses its batch buffer; zeros for the first batch);
 * - `dtype` float32 (default), int32 or int64, as MXNet's CSVIter supports;
 * - `batch.index` holds the row numbers (from 0 at each rewind) of the examples.
 *
 * Rows are parsed on `next()` into a host buffer of one batch and uploaded into new arrays on
 * `ctx`, owned by the caller. MXNet prefetches `prefetch_buffer` batches on a thread and hands out
 * recycled buffers; here batches are made on demand (wrap the iterator in PrefetchingIter to
 * prepare the next batch while the caller awaits) and stay valid until disposed.
 *
 * Bad input — a row with the wrong number of fields, a field that is not a number, label and data
 * files with different numbers of rows — raises an MXNetError naming the file and line on
 * `next()`; the iterator then refuses to continue until `reset()`, after which it reads from the
 * start again.
 */
import { type Context, MXNetError, shapeSize } from '@mx/base';
import type { NDArray, Nd } from '@mx/ndarray';
import { DataDesc, DataIter, shapeRepr } from '../data-iter.js';
import { type NdLike, ndOf } from '../runtime-of.js';
import { CsvReader, type CsvRowTarget, type CsvSource, type CsvValueKind } from './csv-reader.js';

/** MXNet's CSVIter parameters (CSVIterParam, BatchParam, PrefetcherParam), plus ctx and names. */
export interface CSVIterParams {
  /** The data: a CSV file, a directory (all its files, in name order), or the file's bytes. */
  readonly data_csv: CsvSource;
  /** Shape of one example; each row holds its `prod(data_shape)` values. */
  readonly data_shape: readonly number[];
  /** The labels, same forms as `data_csv`. Default none ('NULL' in MXNet): all labels are 0. */
  readonly label_csv?: CsvSource | null;
  /** Shape of one label. Default (1,). */
  readonly label_shape?: readonly number[];
  readonly batch_size: number;
  /** Fill the last batch from the start of the data (default true); false pads in place. */
  readonly round_batch?: boolean;
  /** Accepted for compatibility (MXNet's prefetch depth); batches are made on demand. Default 4. */
  readonly prefetch_buffer?: number;
  /** float32 (default, also for null), int32 or int64. */
  readonly dtype?: CsvValueKind | null;
  /** Device of the batches. Default: the runtime's default device. */
  readonly ctx?: Context;
  /** Name in `provideData` (MXDataIter's `data_name`). Default 'data'. */
  readonly data_name?: string;
  /** Name in `provideLabel` (MXDataIter's `label_name`). Default 'softmax_label'. */
  readonly label_name?: string;
  /** Bytes read from a file at a time (memory stays about this per file). Default 1 MiB. */
  readonly buffer_bytes?: number;
}

const OP = 'CSVIter';
const DTYPES: readonly CsvValueKind[] = ['float32', 'int32', 'int64'];

type HostBuffer = Float32Array | Int32Array | BigInt64Array;

function hostBuffer(kind: CsvValueKind, n: number): HostBuffer {
  if (kind === 'int32') return new Int32Array(n);
  if (kind === 'int64') return new BigInt64Array(n);
  return new Float32Array(n);
}

function describe(source: CsvSource | null | undefined): string {
  if (source === null || source === undefined) return 'NULL';
  return typeof source === 'string' ? source : `<${source.length} bytes>`;
}

function checkShape(params: Readonly<Record<string, unknown>>, name: string, shape: unknown): number[] {
  if (
    !Array.isArray(shape) ||
    shape.length === 0 ||
    !shape.every((d) => Number.isSafeInteger(d) && (d as number) > 0)
  ) {
    throw new MXNetError(`${name} must be a non-empty list of positive integers, got ${String(shape)}`, {
      op: OP,
      params,
      hint: `e.g. ${name}: [3] for rows of 3 values`,
    });
  }
  return [...(shape as number[])];
}

export class CSVIter extends DataIter {
  readonly dataShape: readonly number[];
  readonly labelShape: readonly number[];
  readonly roundBatch: boolean;
  readonly dtype: CsvValueKind;
  readonly ctx: Context;
  readonly #nd: Nd;
  readonly #params: Readonly<Record<string, unknown>>;
  readonly #data: CsvReader;
  readonly #label: CsvReader | null;
  readonly #dataName: string;
  readonly #labelName: string;
  readonly #rowSize: number;
  readonly #labelSize: number;
  /** One batch on the host, reused (so a padded batch keeps the previous batch's rows). */
  readonly #hostData: HostBuffer;
  readonly #hostLabel: HostBuffer;
  readonly #hostIndex: number[];
  /** Scratch row for checking that the label file has no row left after the data. */
  readonly #spare: HostBuffer;
  /** Rows taken from the start to fill the last batch (BatchLoader's num_overflow_). */
  #overflow = 0;
  /** Row number of the next example since the last rewind (MXNet's inst_counter_). */
  #counter = 0;
  #pad = 0;
  #hasBatch = false;
  #failure: MXNetError | null = null;

  constructor(runtime: NdLike, params: CSVIterParams) {
    const p = {
      data_csv: describe(params.data_csv),
      data_shape: params.data_shape,
      label_csv: describe(params.label_csv),
      label_shape: params.label_shape ?? [1],
      batch_size: params.batch_size,
      round_batch: params.round_batch ?? true,
      prefetch_buffer: params.prefetch_buffer ?? 4,
      dtype: params.dtype ?? null,
    };
    super(p.batch_size);
    this.#params = p;
    if (!Number.isSafeInteger(p.batch_size) || p.batch_size < 1) {
      throw new MXNetError(`batch_size must be a positive integer, got ${String(p.batch_size)}`, {
        op: OP,
        params: p,
      });
    }
    if (!Number.isSafeInteger(p.prefetch_buffer) || p.prefetch_buffer < 1) {
      throw new MXNetError(`prefetch_buffer must be a positive integer, got ${String(p.prefetch_buffer)}`, {
        op: OP,
        params: p,
      });
    }
    if (typeof p.round_batch !== 'boolean') {
      throw new MXNetError(`round_batch must be a boolean, got ${String(p.round_batch)}`, {
        op: OP,
        params: p,
      });
    }
    if (p.dtype !== null && !DTYPES.includes(p.dtype)) {
      throw new MXNetError(`dtype '${String(p.dtype)}' is not supported by CSVIter`, {
        op: OP,
        params: p,
        hint: "MXNet's CSVIter reads float32 (the default), int32 or int64",
      });
    }
    if (params.data_csv === undefined || params.data_csv === null) {
      throw new MXNetError('data_csv is required', { op: OP, params: p, hint: 'pass a CSV path or bytes' });
    }
    this.dataShape = checkShape(p, 'data_shape', p.data_shape);
    this.labelShape = checkShape(p, 'label_shape', p.label_shape);
    this.roundBatch = p.round_batch;
    this.dtype = p.dtype ?? 'float32';
    this.#nd = ndOf(runtime);
    this.ctx = params.ctx ?? this.#nd.runtime.defaultContext;
    this.#dataName = params.data_name ?? 'data';
    this.#labelName = params.label_name ?? 'softmax_label';
    this.#rowSize = shapeSize(this.dataShape);
    const withLabel =
      params.label_csv !== undefined && params.label_csv !== null && params.label_csv !== 'NULL';
    // MXNet's dummy label is one 0 per example, whatever label_shape says.
    this.#labelSize = withLabel ? shapeSize(this.labelShape) : 1;
    const reader = (source: CsvSource, what: string) =>
      new CsvReader(source, { what, op: OP, kind: this.dtype, bufferBytes: params.buffer_bytes });
    this.#data = reader(params.data_csv, 'data_csv');
    try {
      this.#label = withLabel ? reader(params.label_csv as CsvSource, 'label_csv') : null;
    } catch (e) {
      this.#data.close();
      throw e;
    }
    const bs = this.batchSize;
    this.#hostData = hostBuffer(this.dtype, bs * this.#rowSize);
    this.#hostLabel = hostBuffer(this.dtype, bs * this.#labelSize);
    this.#hostIndex = new Array<number>(bs).fill(0);
    this.#spare = hostBuffer(this.dtype, Math.max(this.#rowSize, this.#labelSize));
    this.#rewind();
  }

  get provideData(): DataDesc[] {
    return [new DataDesc(this.#dataName, [this.batchSize, ...this.dataShape], this.dtype)];
  }

  get provideLabel(): DataDesc[] {
    return [new DataDesc(this.#labelName, this.#labelBatchShape(), this.dtype)];
  }

  /**
   * Start a new epoch. With `round_batch`, after an epoch whose last batch wrapped around this
   * keeps reading after the wrapped rows (MXNet); otherwise, and after an error, back to row 0.
   */
  reset(): void {
    this.checkLive('reset');
    if (this.#failure !== null || !this.roundBatch || this.#overflow === 0) this.#rewind();
    this.#overflow = 0;
    this.#failure = null;
    this.#hasBatch = false;
  }

  iterNext(): boolean {
    this.checkLive('iterNext');
    if (this.#failure !== null) {
      throw new MXNetError(`the CSVIter stopped at an error: ${this.#failure.reason}`, {
        op: OP,
        cause: this.#failure,
        hint: 'call reset() to read from the start again',
      });
    }
    this.#hasBatch = false;
    try {
      this.#hasBatch = this.#loadBatch();
    } catch (e) {
      if (e instanceof MXNetError) this.#failure = e;
      else this.#failure = new MXNetError(String(e), { op: OP, cause: e });
      throw e;
    }
    return this.#hasBatch;
  }

  getData(): NDArray[] {
    this.#current('getData');
    const shape = [this.batchSize, ...this.dataShape];
    return [this.#nd.array(this.#hostData, { shape, dtype: this.dtype, ctx: this.ctx })];
  }

  getLabel(): NDArray[] {
    this.#current('getLabel');
    return [
      this.#nd.array(this.#hostLabel, { shape: this.#labelBatchShape(), dtype: this.dtype, ctx: this.ctx }),
    ];
  }

  getPad(): number {
    this.#current('getPad');
    return this.#pad;
  }

  /** Row numbers of the examples of the current batch (padding rows included). */
  override getIndex(): readonly number[] {
    this.#current('getIndex');
    return [...this.#hostIndex];
  }

  override dispose(): void {
    if (this.isDisposed) return;
    this.#data.close();
    this.#label?.close();
    super.dispose();
  }

  #labelBatchShape(): number[] {
    if (this.#label === null) return [this.batchSize];
    const ls = this.labelShape;
    return ls.length === 1 && ls[0] === 1 ? [this.batchSize] : [this.batchSize, ...ls];
  }

  #current(op: string): void {
    this.checkLive(op);
    if (!this.#hasBatch) {
      throw new MXNetError('there is no current batch', {
        op: `${OP}.${op}`,
        hint: 'call iterNext() or next() first',
      });
    }
  }

  /** BatchLoader's BeforeFirst on the example iterator: back to row 0 of both files. */
  #rewind(): void {
    this.#data.rewind();
    this.#label?.rewind();
    this.#counter = 0;
  }

  /** BatchLoader::Next: fill the host batch; false at the end of the epoch. */
  #loadBatch(): boolean {
    this.#pad = 0;
    if (this.#overflow !== 0) return false;
    const bs = this.batchSize;
    let top = 0;
    while (this.#readExample(top)) {
      if (++top >= bs) return true;
    }
    if (top === 0) return false;
    if (!this.roundBatch) {
      this.#pad = bs - top;
      return true;
    }
    const have = top;
    this.#rewind();
    for (; top < bs; top++, this.#overflow++) {
      if (!this.#readExample(top)) {
        throw new MXNetError(
          `round_batch fills the last batch (${have} rows) from the start of the data, but ` +
            `'${this.#data.fileName}' has only ${top - have} rows, fewer than the ${bs - have} needed`,
          {
            op: OP,
            params: this.#params,
            hint: 'use a smaller batch_size, or round_batch: false',
          },
        );
      }
    }
    this.#pad = this.#overflow;
    return true;
  }

  /** The next example into slot `slot` of the host batch; false at the end of the data. */
  #readExample(slot: number): boolean {
    const data = this.#data;
    const n = data.readRow(this.#hostData as CsvRowTarget, slot * this.#rowSize, this.#rowSize);
    const label = this.#label;
    if (n < 0) {
      if (label !== null && label.readRow(this.#spare, 0, this.#labelSize) >= 0) {
        throw new MXNetError(
          `label_csv '${label.fileName}' has more rows than data_csv '${data.fileName}': its row at line ` +
            `${label.rowLine} has no data row (the data has ${this.#counter})`,
          { op: OP, params: this.#params, hint: 'pass data and label files with one row per example each' },
        );
      }
      return false;
    }
    if (n !== this.#rowSize) {
      throw new MXNetError(
        `data_csv '${data.fileName}' line ${data.rowLine} has ${n} values, but data_shape ` +
          `${shapeRepr(this.dataShape)} needs ${this.#rowSize}`,
        { op: OP, params: this.#params, hint: 'every row holds one example of data_shape' },
      );
    }
    if (label !== null) {
      const m = label.readRow(this.#hostLabel as CsvRowTarget, slot * this.#labelSize, this.#labelSize);
      if (m < 0) {
        throw new MXNetError(
          `label_csv '${label.fileName}' has fewer rows than data_csv '${data.fileName}': the data row ` +
            `at line ${data.rowLine} (example ${this.#counter}) has no label`,
          { op: OP, params: this.#params, hint: 'pass data and label files with one row per example each' },
        );
      }
      if (m !== this.#labelSize) {
        throw new MXNetError(
          `label_csv '${label.fileName}' line ${label.rowLine} has ${m} values, but label_shape ` +
            `${shapeRepr(this.labelShape)} needs ${this.#labelSize}`,
          { op: OP, params: this.#params, hint: 'every row holds one label of label_shape' },
        );
      }
    }
    this.#hostIndex[slot] = this.#counter++;
    return true;
  }
}
