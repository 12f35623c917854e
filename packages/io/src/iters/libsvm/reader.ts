/**
 * LibSVMReader: the host half of MXNet's LibSVMIter (src/io/iter_libsvm.cc under
 * SparseBatchLoader), batches of LibSVM rows as CSR parts on the host. LibSVMIter will wrap it
 * once @mx/ndarray has CSRNDArray (issue 15): upload `data/indices/indptr` into a CSRNDArray of
 * `shape`, the label into a dense NDArray or a CSRNDArray, and hand out `pad` and `index`.
 *
 * Semantics (MXNet's, checked against its sources):
 * - each row of `data_libsvm` is one example with `data_shape[0]` columns; its label is the row's
 *   first number (dense, one float32 per row) unless `label_libsvm` is given: then the label is
 *   the CSR row of that file with `label_shape[0]` columns, read in step with the data (its own
 *   label column is ignored, as are weights and `qid` everywhere);
 * - indices are taken as written (0-based: dmlc's `indexing_mode` 0, which MXNet uses). MXNet
 *   passes dmlc parser options only inside the path (`'train.txt?indexing_mode=1'`); that works
 *   here too, and `indexing_mode` sets the default (1: 1-based, -1: 1-based when no index of the
 *   part is 0, sklearn's rule, which dmlc applies per parsed chunk and this reader per part);
 * - `round_batch` must be true (MXNet refuses false for sparse data): the last incomplete batch is
 *   filled from the start of the part (`pad` = rows taken), and the following `reset()` does not
 *   rewind, so the next epoch starts after those rows (MXNet's BatchLoader);
 * - `num_parts`/`part_index` split the files by bytes at line starts (see source.ts); data and
 *   label files are split on their own, as in MXNet;
 * - values are float32, indices and indptr int64; `index` holds the row numbers since the last
 *   rewind (MXNet's inst_index).
 *
 * Unlike MXNet, bad input is an MXNetError on `next()` naming the file, line and what to change:
 * a malformed token, an index ≥ the number of columns (MXNet copies it into the CSR unchecked), a
 * label file with fewer or more rows than the data (MXNet checks fewer only). The reader then
 * refuses to go on until `reset()`, which starts again from the first row.
 */
import { MXNetError } from '@mx/base';
import { LibSVMLineParser } from './line.js';
import { inputFiles, type LibSVMSource, LineStream, partRange } from './source.js';

/** A CSR matrix on the host: row r holds `data/indices[indptr[r] .. indptr[r+1])`. */
export interface HostCsr {
  readonly data: Float32Array;
  readonly indices: BigInt64Array;
  readonly indptr: BigInt64Array;
  readonly shape: [number, number];
}

/** One batch of LibSVMIter, on the host (new arrays each batch, owned by the caller). */
export interface HostCsrBatch extends HostCsr {
  /** (batch_size,) labels from the data rows, or a CSR (batch_size, label_shape[0]) from label_libsvm. */
  readonly label: Float32Array | HostCsr;
  /** Rows at the end of the batch taken from the start of the part (round_batch). */
  readonly pad: number;
  /** Row number of each example since the last rewind. */
  readonly index: readonly number[];
}

/** MXNet's LibSVMIter parameters (LibSVMIterParam and BatchParam), plus reader options. */
export interface LibSVMReaderParams {
  /** A LibSVM file, `;`-separated files, a directory, or the bytes; a path may end in `?indexing_mode=1`. */
  readonly data_libsvm: LibSVMSource;
  /** Number of columns, 1-D: `[cols]`. */
  readonly data_shape: readonly number[];
  /** Labels as a second LibSVM file (CSR). Default none (`'NULL'` also means none). */
  readonly label_libsvm?: LibSVMSource | null;
  /** `[label columns]` (more than 1) with label_libsvm; `[1]` (the default) without. */
  readonly label_shape?: readonly number[];
  readonly batch_size: number;
  /** Must be true (the default), as in MXNet. */
  readonly round_batch?: boolean;
  /** Split the input into this many parts by bytes (default 1)… */
  readonly num_parts?: number;
  /** …and read this one (default 0). */
  readonly part_index?: number;
  /** dmlc's indexing_mode for files without `?indexing_mode=`: 0 (default), 1, or -1 (detect). */
  readonly indexing_mode?: number;
  /** Bytes read from a file at a time. Default 1 MiB. */
  readonly buffer_bytes?: number;
}

const OP = 'LibSVMIter';
const LINE_HINT = 'LibSVM lines read `label[:weight] [qid:n] index:value …` (a # starts a comment)';

/** A path's `?key=value&…` suffix (dmlc's URISpec), for LibSVM's parser parameters. */
function splitUri(source: LibSVMSource, what: string, fallback: number, params: object) {
  if (typeof source !== 'string') return { source, indexingMode: fallback };
  if (source.includes('#')) {
    throw new MXNetError(`${what} '${source}' names a cache file ('#'), which this reader does not support`, {
      op: OP,
      params: { ...params },
      hint: 'remove the #… suffix',
    });
  }
  const q = source.indexOf('?');
  if (q < 0) return { source, indexingMode: fallback };
  let indexingMode = fallback;
  for (const arg of source.slice(q + 1).split('&')) {
    const eq = arg.indexOf('=');
    const key = eq < 0 ? arg : arg.slice(0, eq);
    const value = eq < 0 ? '' : arg.slice(eq + 1);
    if (key === 'format' && value === 'libsvm') continue;
    if (key === 'indexing_mode' && /^[+-]?\d+$/.test(value)) {
      indexingMode = Number(value);
      continue;
    }
    throw new MXNetError(`${what} '${source}': unsupported parser argument '${arg}'`, {
      op: OP,
      params: { ...params },
      hint: 'LibSVM paths take ?indexing_mode=<int> (and format=libsvm) only',
    });
  }
  return { source: source.slice(0, q), indexingMode };
}

function positive(params: object, name: string, v: unknown, min = 1): number {
  if (!Number.isSafeInteger(v) || (v as number) < min) {
    throw new MXNetError(`${name} must be an integer ≥ ${min}, got ${String(v)}`, {
      op: OP,
      params: { ...params },
    });
  }
  return v as number;
}

function shapeOf(params: object, name: string, v: unknown): number[] {
  if (!Array.isArray(v) || v.length === 0 || !v.every((d) => Number.isSafeInteger(d) && d > 0)) {
    throw new MXNetError(`${name} must be a non-empty list of positive integers, got ${String(v)}`, {
      op: OP,
      params: { ...params },
    });
  }
  return [...(v as number[])];
}

/** Growable CSR parts of one batch. */
class CsrBuilder {
  data = new Float32Array(256);
  indices = new BigInt64Array(256);
  readonly indptr: BigInt64Array;
  nnz = 0;
  rows = 0;
  constructor(
    readonly batchSize: number,
    readonly cols: number,
  ) {
    this.indptr = new BigInt64Array(batchSize + 1);
  }
  clear(): void {
    this.nnz = 0;
    this.rows = 0;
  }
  push(indices: Float64Array, values: Float32Array, n: number, shift: number): void {
    const need = this.nnz + n;
    if (need > this.data.length) {
      const size = Math.max(need, this.data.length * 2);
      const data = new Float32Array(size);
      data.set(this.data.subarray(0, this.nnz));
      this.data = data;
      const idx = new BigInt64Array(size);
      idx.set(this.indices.subarray(0, this.nnz));
      this.indices = idx;
    }
    const at = this.nnz;
    for (let i = 0; i < n; i++) {
      this.data[at + i] = values[i] as number;
      this.indices[at + i] = BigInt((indices[i] as number) - shift);
    }
    this.nnz = need;
    this.rows++;
    this.indptr[this.rows] = BigInt(need);
  }
  take(): HostCsr {
    return {
      data: this.data.slice(0, this.nnz),
      indices: this.indices.slice(0, this.nnz),
      indptr: this.indptr.slice(),
      shape: [this.batchSize, this.cols],
    };
  }
}

/** One LibSVM input (data or label) of the part: its lines, parser and indexing. */
class Input {
  readonly lines: LineStream;
  readonly parser: LibSVMLineParser;
  /** 1 when indices are 1-based, 0 when 0-based; undefined until detected (mode -1). */
  shift: number | undefined;
  constructor(
    readonly what: string,
    source: LibSVMSource,
    readonly mode: number,
    readonly cols: number,
    readonly shapeName: string,
    part: { index: number; count: number; bufferBytes?: number },
  ) {
    const files = inputFiles(source, what, OP);
    this.lines = new LineStream(files, partRange(files, part.index, part.count), what, part.bufferBytes);
    this.parser = new LibSVMLineParser(OP, LINE_HINT);
    this.shift = mode > 0 ? 1 : mode === 0 ? 0 : undefined;
    this.#part = part;
    this.#files = files;
  }
  readonly #part: { index: number; count: number; bufferBytes?: number };
  readonly #files: ReturnType<typeof inputFiles>;

  /** The next row into the parser's fields, checked; false at the end of the part. */
  nextRow(): boolean {
    if (this.shift === undefined) this.shift = this.#detect();
    const { lines, parser } = this;
    while (lines.next()) {
      if (!parser.parse(lines.buf, lines.start, lines.end, lines)) continue;
      const shift = this.shift;
      for (let i = 0; i < parser.nnz; i++) {
        const written = parser.indices[i] as number;
        const index = written - shift;
        if (index < 0 || index >= this.cols) {
          throw new MXNetError(
            `${lines.describe()}: feature index ${written}${shift ? ` (${index} 0-based)` : ''} is out of range ` +
              `for ${this.shapeName} (${this.cols})`,
            {
              op: OP,
              hint:
                shift === 0 && index === this.cols
                  ? `if the file is 1-based, read it with indexing_mode 1 (or '?indexing_mode=1' after the path); otherwise make ${this.shapeName} larger`
                  : shift === 1 && index < 0
                    ? 'a 0-based file: read it with indexing_mode 0'
                    : `make ${this.shapeName} larger than every index`,
            },
          );
        }
      }
      return true;
    }
    return false;
  }

  /** indexing_mode -1: 1-based when the part has indices and none is 0 (a pass over the part). */
  #detect(): number {
    const lines = new LineStream(
      this.#files,
      partRange(this.#files, this.#part.index, this.#part.count),
      this.what,
      this.#part.bufferBytes,
    );
    const parser = new LibSVMLineParser(OP, LINE_HINT);
    let min = Number.POSITIVE_INFINITY;
    try {
      while (lines.next()) {
        if (!parser.parse(lines.buf, lines.start, lines.end, lines)) continue;
        for (let i = 0; i < parser.nnz; i++) min = Math.min(min, parser.indices[i] as number);
      }
    } finally {
      lines.close();
    }
    return min !== Number.POSITIVE_INFINITY && min > 0 ? 1 : 0;
  }
}

/**
 * Batches of LibSVM rows as host CSR parts, with MXNet LibSVMIter's parameters and semantics
 * (see the file comment). This is the part LibSVMIter will wrap once CSRNDArray exists.
 */
export class LibSVMReader {
  readonly dataShape: readonly number[];
  readonly labelShape: readonly number[];
  readonly batchSize: number;
  readonly numParts: number;
  readonly partIndex: number;
  readonly #params: Readonly<Record<string, unknown>>;
  readonly #data: Input;
  readonly #label: Input | null;
  readonly #csr: CsrBuilder;
  readonly #labelCsr: CsrBuilder | null;
  readonly #dense: Float32Array;
  readonly #index: number[];
  #counter = 0;
  #overflow = 0;
  #end = false;
  #failure: MXNetError | null = null;

  constructor(params: LibSVMReaderParams) {
    const labelSource = params.label_libsvm;
    const withLabel = labelSource !== undefined && labelSource !== null && labelSource !== 'NULL';
    const p = {
      data_libsvm: describe(params.data_libsvm),
      data_shape: params.data_shape,
      label_libsvm: withLabel ? describe(labelSource) : 'NULL',
      label_shape: params.label_shape ?? [1],
      batch_size: params.batch_size,
      round_batch: params.round_batch ?? true,
      num_parts: params.num_parts ?? 1,
      part_index: params.part_index ?? 0,
      indexing_mode: params.indexing_mode ?? 0,
    };
    this.#params = p;
    if (params.data_libsvm === undefined || params.data_libsvm === null) {
      throw new MXNetError('data_libsvm is required', {
        op: OP,
        params: p,
        hint: 'pass a LibSVM path or bytes',
      });
    }
    this.batchSize = positive(p, 'batch_size', p.batch_size);
    this.numParts = positive(p, 'num_parts', p.num_parts);
    this.partIndex = positive(p, 'part_index', p.part_index, 0);
    if (this.partIndex >= this.numParts) {
      throw new MXNetError(`part_index ${this.partIndex} must be less than num_parts ${this.numParts}`, {
        op: OP,
        params: p,
      });
    }
    if (p.round_batch !== true) {
      throw new MXNetError('LibSVMIter supports round_batch = true only', {
        op: OP,
        params: p,
        hint: 'MXNet refuses round_batch = false for sparse data; drop the padded rows using pad instead',
      });
    }
    if (!Number.isSafeInteger(p.indexing_mode)) {
      throw new MXNetError(`indexing_mode must be an integer, got ${String(p.indexing_mode)}`, {
        op: OP,
        params: p,
      });
    }
    this.dataShape = shapeOf(p, 'data_shape', p.data_shape);
    this.labelShape = shapeOf(p, 'label_shape', p.label_shape);
    if (this.dataShape.length !== 1) {
      throw new MXNetError(`data_shape must be 1-D (the number of columns), got (${this.dataShape})`, {
        op: OP,
        params: p,
      });
    }
    const labelSize = this.labelShape.reduce((a, b) => a * b, 1);
    if (withLabel && (labelSize <= 1 || this.labelShape.length !== 1)) {
      throw new MXNetError(
        `label_shape must be 1-D with more than 1 column when label_libsvm is set, got (${this.labelShape})`,
        {
          op: OP,
          params: p,
          hint: 'set label_shape to the number of label columns, e.g. [10]',
        },
      );
    }
    if (!withLabel && labelSize !== 1) {
      throw new MXNetError(`label_shape must be (1,) without label_libsvm, got (${this.labelShape})`, {
        op: OP,
        params: p,
        hint: 'labels are then read from the first number of each data row; pass label_libsvm for CSR labels',
      });
    }
    const part = { index: this.partIndex, count: this.numParts, bufferBytes: params.buffer_bytes };
    const cols = this.dataShape[0] as number;
    const data = splitUri(params.data_libsvm, 'data_libsvm', p.indexing_mode, p);
    this.#data = new Input('data_libsvm', data.source, data.indexingMode, cols, 'data_shape', part);
    if (withLabel) {
      const label = splitUri(labelSource, 'label_libsvm', p.indexing_mode, p);
      this.#label = new Input(
        'label_libsvm',
        label.source,
        label.indexingMode,
        this.labelShape[0] as number,
        'label_shape',
        part,
      );
    } else {
      this.#label = null;
    }
    this.#csr = new CsrBuilder(this.batchSize, cols);
    this.#labelCsr = withLabel ? new CsrBuilder(this.batchSize, this.labelShape[0] as number) : null;
    this.#dense = new Float32Array(this.batchSize);
    this.#index = new Array<number>(this.batchSize).fill(0);
  }

  /** True when labels come from label_libsvm as CSR. */
  get labelIsCsr(): boolean {
    return this.#label !== null;
  }

  /**
   * Start a new epoch. After an epoch whose last batch wrapped around, this keeps reading after
   * the wrapped rows (MXNet); otherwise, and after an error, back to the first row of the part.
   */
  reset(): void {
    if (this.#failure !== null || this.#overflow === 0) this.#rewind();
    this.#overflow = 0;
    this.#failure = null;
  }

  /** The next batch, or undefined at the end of the epoch. */
  next(): HostCsrBatch | undefined {
    if (this.#failure !== null) {
      throw new MXNetError(`the LibSVMIter stopped at an error: ${this.#failure.reason}`, {
        op: OP,
        cause: this.#failure,
        hint: 'call reset() to read from the start again',
      });
    }
    try {
      return this.#batch();
    } catch (e) {
      this.#failure = e instanceof MXNetError ? e : new MXNetError(String(e), { op: OP, cause: e });
      throw this.#failure;
    }
  }

  /** Release the open files (a later `next()` or `reset()` reopens them). */
  close(): void {
    this.#data.lines.close();
    this.#label?.lines.close();
  }

  /** LibSVMIter::BeforeFirst: back to the first row of both inputs. */
  #rewind(): void {
    this.#data.lines.rewind();
    this.#label?.lines.rewind();
    this.#counter = 0;
    this.#end = false;
  }

  /** SparseBatchLoader::Next. */
  #batch(): HostCsrBatch | undefined {
    if (this.#overflow !== 0) return undefined;
    this.#csr.clear();
    this.#labelCsr?.clear();
    const bs = this.batchSize;
    let top = 0;
    while (top < bs && this.#example(top)) top++;
    if (top === 0) return undefined;
    let pad = 0;
    if (top < bs) {
      const have = top;
      this.#rewind();
      for (; top < bs; top++, pad++) {
        if (!this.#example(top)) {
          throw new MXNetError(
            `round_batch fills the last batch (${have} rows) from the start of the part, but ` +
              `data_libsvm '${this.#data.lines.fileName}' has only ${pad} rows, fewer than the ${bs - have} needed`,
            {
              op: OP,
              params: this.#params,
              hint: 'use a smaller batch_size (MXNet: the input must be bigger than batch size)',
            },
          );
        }
      }
      this.#overflow = pad;
    }
    return {
      ...this.#csr.take(),
      label: this.#labelCsr === null ? this.#dense.slice() : this.#labelCsr.take(),
      pad,
      index: [...this.#index],
    };
  }

  /** LibSVMIter::Next into slot `slot`; false at the end of the part. */
  #example(slot: number): boolean {
    if (this.#end) return false;
    const data = this.#data;
    const label = this.#label;
    if (!data.nextRow()) {
      this.#end = true;
      if (label?.nextRow()) {
        throw new MXNetError(
          `${label.lines.describe()}: label_libsvm has more rows than data_libsvm '${data.lines.fileName}' ` +
            `(${this.#counter} rows${this.numParts > 1 ? ` in part ${this.partIndex} of ${this.numParts}` : ''})`,
          { op: OP, params: this.#params, hint: rowsHint(this.numParts) },
        );
      }
      return false;
    }
    const row = data.parser;
    this.#csr.push(row.indices, row.values, row.nnz, data.shift ?? 0);
    if (label === null) {
      this.#dense[slot] = row.label;
    } else {
      if (!label.nextRow()) {
        throw new MXNetError(
          `${data.lines.describe()}: data_libsvm row ${this.#counter} has no label row in label_libsvm ` +
            `'${label.lines.fileName}' (it has fewer rows${this.numParts > 1 ? ` in part ${this.partIndex} of ${this.numParts}` : ''})`,
          { op: OP, params: this.#params, hint: rowsHint(this.numParts) },
        );
      }
      const l = label.parser;
      this.#labelCsr?.push(l.indices, l.values, l.nnz, label.shift ?? 0);
    }
    this.#index[slot] = this.#counter++;
    return true;
  }
}

function rowsHint(numParts: number): string {
  const base = 'pass data and label files with one row per example each';
  return numParts > 1
    ? `${base}; each file is split into parts by bytes on its own (as MXNet does), so their parts may hold different rows`
    : base;
}

function describe(source: LibSVMSource | null | undefined): string {
  if (source === null || source === undefined) return 'NULL';
  return typeof source === 'string' ? source : `<${source.length} bytes>`;
}
