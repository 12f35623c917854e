/**
 * `MXIndexedRecordIO`: RecordIO with random access through an `.idx` text index (MXNet
 * `mx.recordio.MXIndexedRecordIO(idx_path, uri, flag, key_type)`). Writing appends a
 * `key\toffset\n` line per `writeIdx`; reading loads the index when opened and `readIdx(key)` seeks
 * to the record. A key whose offset is past the end of the file, or where no record starts, fails
 * with an MXNetError naming the key, the offset and the file.
 */
import { MXNetError } from '@mx/base';
import { formatIndexLine, parseRecordIOIndex, type RecordIOKey, type RecordIOKeyType, toKey } from './idx.js';
import { runSync } from './reader.js';
import { MXRecordIO, type RecordIOFlag, type RecordIOUri } from './recordio.js';
import { InMemoryFile, openFileSink, readWholeFile } from './source.js';
import { BufferedSink } from './writer.js';

/** Where the index lives: a path (Node), an {@link InMemoryFile}, or (reading) its bytes or text. */
export type RecordIOIndexUri = string | InMemoryFile | Uint8Array;

/** Options of {@link MXIndexedRecordIO}. */
export interface MXIndexedRecordIOOptions {
  /** How keys are read and written (default `'int'`, as MXNet's `key_type=int`). */
  keyType?: RecordIOKeyType;
  /** Read/write buffer size of the `.rec` (default 1 MiB). */
  bufferSize?: number;
}

/** RecordIO with an `.idx` index for random access by key. */
export class MXIndexedRecordIO extends MXRecordIO {
  readonly idxPath: RecordIOIndexUri;
  readonly keyType: RecordIOKeyType;
  /** Key → record offset (when reading: from the index; when writing: what was written). */
  idx = new Map<RecordIOKey, number>();
  /** Keys in index order. */
  keys: RecordIOKey[] = [];
  #idxOut: BufferedSink | undefined;

  constructor(
    idxPath: RecordIOIndexUri,
    uri: RecordIOUri,
    flag: RecordIOFlag,
    options: MXIndexedRecordIOOptions = {},
  ) {
    super(uri, flag, options.bufferSize === undefined ? {} : { bufferSize: options.bufferSize });
    this.idxPath = idxPath;
    this.keyType = options.keyType ?? 'int';
    try {
      this.#openIndex();
    } catch (e) {
      super.close();
      throw e;
    }
  }

  get idxName(): string {
    const p = this.idxPath;
    return typeof p === 'string' ? p : p instanceof InMemoryFile ? p.name : '<idx bytes>';
  }

  override open(): void {
    super.open();
    try {
      this.#openIndex();
    } catch (e) {
      super.close();
      throw e;
    }
  }

  #openIndex(): void {
    const op = 'MXIndexedRecordIO.open';
    const p = this.idxPath;
    this.idx = new Map();
    this.keys = [];
    if (this.writable) {
      if (p instanceof Uint8Array) {
        throw new MXNetError('cannot write an .idx into fixed bytes', {
          op,
          hint: 'pass an InMemoryFile (or a path in Node) as the index',
        });
      }
      this.#idxOut = new BufferedSink(
        p instanceof InMemoryFile ? p.openSink() : openFileSink(p, op),
        1 << 16,
      );
      return;
    }
    const bytes = typeof p === 'string' ? readWholeFile(p, op) : p instanceof InMemoryFile ? p.bytes() : p;
    const parsed = parseRecordIOIndex(new TextDecoder().decode(bytes), this.keyType, this.idxName);
    this.idx = parsed.idx;
    this.keys = parsed.keys;
  }

  /** Closes the record file and the index (flushing a written index). */
  override close(): void {
    const out = this.#idxOut;
    this.#idxOut = undefined;
    try {
      super.close();
    } finally {
      out?.close();
    }
  }

  /** Moves the reader to the record of `key`. */
  seek(key: RecordIOKey): void {
    const op = 'MXIndexedRecordIO.seek';
    const { core, src } = this.requireReader(op);
    const k = toKey(key, this.keyType, op);
    const offset = this.idx.get(k);
    if (offset === undefined) {
      throw new MXNetError(`key ${JSON.stringify(k)} is not in the index ${this.idxName}`, {
        op,
        params: { key: k, file: this.idxName },
        hint: `the index has ${this.keys.length} keys${this.keys.length ? ` (first: ${JSON.stringify(this.keys[0])})` : ''}; check keyType ('${this.keyType}')`,
      });
    }
    runSync(core.seek(offset, true, `.idx key ${JSON.stringify(k)} (${this.idxName})`, op), src);
  }

  /** The record of `key` (MXNet `read_idx`). */
  readIdx(key: RecordIOKey): Uint8Array {
    this.seek(key);
    return this.read() as Uint8Array;
  }

  /** Appends a record and its index line (MXNet `write_idx`). */
  writeIdx(key: RecordIOKey, buf: Uint8Array | string): void {
    const op = 'MXIndexedRecordIO.writeIdx';
    this.requireWriter(op);
    const k = toKey(key, this.keyType, op);
    const pos = this.tell();
    this.write(buf);
    (this.#idxOut as BufferedSink).write(new TextEncoder().encode(formatIndexLine(k, pos)));
    this.idx.set(k, pos);
    this.keys.push(k);
  }
}
