/**
 * RecordFileDataset (MXNet python/mxnet/gluon/data/dataset.py): the records of a RecordIO `.rec`
 * file, addressed through its `.idx` index, read with @mx/io's MXIndexedRecordIO. Sample `i` is
 * the raw bytes of the record of the index's `i`-th key (index order, which need not be file
 * order), exactly MXNet's `read_idx(keys[i])`; decoding (`recordio.unpack`, image decoding) is left
 * to transforms or subclasses, as in MXNet.
 *
 * The file stays open (one reader, reads seek by key) until `close()`. Beyond MXNet, the `.rec`
 * and `.idx` can be given as bytes or InMemoryFiles (browsers, tests) instead of a path.
 *
 * Workers: a DataLoader worker thread builds its own RecordFileDataset from @mx/gluon (an
 * `'instance'` spec with the file name, or the `{ rec, idx }` bytes; the package is the
 * DataLoader's `workerModule` or, in Node, the built one), opens its own reader and
 * closes it when the worker ends. Paths are made absolute when the dataset is made. In-memory
 * InMemoryFiles cannot be sent (use bytes), nor can subclasses (give them a `workerSpec()`).
 */
import { MXNetError } from '@mx/base';
import { MXIndexedRecordIO, type RecordIOIndexUri, type RecordIOKey, type RecordIOUri } from '@mx/io';
import { checkIndex, Dataset } from './dataset.js';
import { gluonInstance } from './gluon-entry.js';
import type { WorkerDatasetSpec } from './worker-spec.js';

/** A `.rec` and its `.idx` given explicitly (bytes, InMemoryFiles, or paths). */
export interface RecordFileSource {
  /** The record file. */
  readonly rec: RecordIOUri;
  /** Its index (`key\toffset` lines). */
  readonly idx: RecordIOIndexUri;
}

/**
 * MXNet's `os.path.splitext(filename)[0] + '.idx'`: the last extension of the file name is
 * replaced (a name's leading dots do not start an extension; folders are not looked at).
 */
export function idxPathOf(filename: string): string {
  const start = Math.max(filename.lastIndexOf('/'), filename.lastIndexOf('\\')) + 1;
  let first = start;
  while (filename[first] === '.') first++;
  const dot = filename.lastIndexOf('.');
  return `${dot > first ? filename.slice(0, dot) : filename}.idx`;
}

/** An absolute path (Node), so that a worker finds the same file whatever the working directory. */
function absolute<T>(p: T): T {
  if (typeof p !== 'string') return p;
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const path = proc?.getBuiltinModule?.('node:path') as { resolve(p: string): string } | undefined;
  return (path?.resolve(p) ?? p) as T;
}

/** Sources a worker can be sent: paths and bytes (not InMemoryFiles). */
function sendable(x: unknown): boolean {
  return typeof x === 'string' || x instanceof Uint8Array || x instanceof ArrayBuffer;
}

/** The raw records of a `.rec` file, in the order of the keys of its `.idx`. */
export class RecordFileDataset extends Dataset<Uint8Array> {
  /** The record file (its path, or a name for bytes given in memory). */
  readonly filename: string;
  /** The index file (its path, or a name for bytes given in memory). */
  readonly idxFile: string;
  readonly #record: MXIndexedRecordIO;
  readonly #keys: readonly RecordIOKey[];
  /** What the constructor was given, paths made absolute (for workers). */
  readonly #source: string | RecordFileSource;

  /**
   * `filename`: path of the `.rec` (Node); its index is the same path with the extension
   * replaced by `.idx`, as in MXNet. Or `{ rec, idx }` to give both explicitly. Opening reads
   * the whole index and fails with an MXNetError naming a missing or malformed file.
   */
  constructor(filename: string | RecordFileSource) {
    super();
    const op = 'RecordFileDataset';
    let rec: RecordIOUri;
    let idx: RecordIOIndexUri;
    if (typeof filename === 'string') {
      rec = filename;
      idx = idxPathOf(filename);
      this.#source = absolute(filename);
    } else if (filename !== null && typeof filename === 'object' && 'rec' in filename && 'idx' in filename) {
      rec = filename.rec;
      idx = filename.idx;
      this.#source = { rec: absolute(rec), idx: absolute(idx) };
    } else {
      throw new MXNetError('filename must be the path of a .rec file, or { rec, idx }', {
        op,
        hint: "pass 'data/train.rec' (its index is data/train.idx), or { rec: bytes, idx: bytes }",
      });
    }
    this.#record = new MXIndexedRecordIO(idx, rec, 'r');
    this.filename = this.#record.name;
    this.idxFile = this.#record.idxName;
    this.#keys = this.#record.keys.slice();
  }

  /** Number of records: the number of keys in the index. */
  get length(): number {
    return this.#keys.length;
  }

  /** The keys of the index, in index order (sample `i` is the record of `keys[i]`). */
  get keys(): readonly RecordIOKey[] {
    return this.#keys;
  }

  /** The bytes of the record of the `index`-th key (a fresh copy, owned by the caller). */
  get(index: number): Uint8Array {
    checkIndex(index, this.length, 'RecordFileDataset.get');
    // MXIndexedRecordIO fails by name on a key whose offset is no record start (or past the end).
    return this.#record.readIdx(this.#keys[index] as RecordIOKey);
  }

  /** Closes the record file (reads fail afterwards). */
  close(): void {
    this.#record.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  /** Workers open the same file (or bytes) with a reader of their own (see the file comment). */
  override workerSpec(): WorkerDatasetSpec {
    if (this.constructor !== RecordFileDataset) return super.workerSpec();
    const src = this.#source;
    if (typeof src !== 'string' && !(sendable(src.rec) && sendable(src.idx))) {
      throw new MXNetError(
        `a RecordFileDataset of InMemoryFiles (${this.filename}) cannot be sent to DataLoader worker threads`,
        { op: 'DataLoader', hint: 'give { rec, idx } as bytes (Uint8Array) or paths, or use numWorkers: 0' },
      );
    }
    const spec = gluonInstance('data.RecordFileDataset', [src], `a RecordFileDataset (${this.filename})`);
    return { ...spec, length: this.length };
  }
}
