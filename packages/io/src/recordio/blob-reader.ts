/**
 * `RecordIOBlobReader`: reads RecordIO from a `Blob`/`File` (browsers: an `<input type=file>`, a
 * fetch response's `blob()`), or from bytes, asynchronously: a Blob can only be read with promises.
 * It reads the blob in slices through one reused buffer (a multi-GB File is never loaded whole),
 * supports dmlc's `numParts`/`partIndex` split and, given the `.idx` text, random access by key. The
 * record logic is MXRecordIO's (reader.ts); only the I/O is awaited.
 */
import { MXNetError } from '@mx/base';
import {
  parseRecordIOIndex,
  type RecordIOIndex,
  type RecordIOKey,
  type RecordIOKeyType,
  toKey,
} from './idx.js';
import { ReaderCore, type RecordReaderOptions, runAsync } from './reader.js';
import {
  type AsyncByteSource,
  asAsync,
  type BlobLike,
  blobSource,
  bytesSource,
  InMemoryFile,
  isBlobLike,
} from './source.js';

/** What a blob reader reads. */
export type RecordIOBlobInput = BlobLike | ArrayBuffer | Uint8Array | InMemoryFile;

/** Options of {@link RecordIOBlobReader.open}. */
export interface RecordIOBlobReaderOptions extends RecordReaderOptions {
  /** The name used in error messages (default: the File's name, or a description). */
  name?: string;
  /** The `.idx` index (its text, bytes or Blob), for `readIdx` / `seek`. */
  index?: string | Uint8Array | BlobLike;
  /** How index keys are read (default `'int'`). */
  keyType?: RecordIOKeyType;
}

function inputName(input: RecordIOBlobInput): string {
  if (input instanceof InMemoryFile) return input.name;
  if (typeof File !== 'undefined' && input instanceof File) return input.name;
  if (isBlobLike(input)) return `<Blob of ${input.size} bytes>`;
  return `<${input.byteLength} bytes in memory>`;
}

/** Async sequential and random-access reader over a Blob, File or bytes. */
export class RecordIOBlobReader {
  readonly name: string;
  readonly keyType: RecordIOKeyType;
  #src: AsyncByteSource;
  #core: ReaderCore;
  #index: RecordIOIndex | undefined;
  #closed = false;
  #busy = false;

  private constructor(
    src: AsyncByteSource,
    core: ReaderCore,
    index: RecordIOIndex | undefined,
    keyType: RecordIOKeyType,
  ) {
    this.name = src.name;
    this.#src = src;
    this.#core = core;
    this.#index = index;
    this.keyType = keyType;
  }

  /** Opens a reader: loads the index (if given) and finds this part's byte range (if split). */
  static async open(
    input: RecordIOBlobInput,
    options: RecordIOBlobReaderOptions = {},
  ): Promise<RecordIOBlobReader> {
    const name = options.name ?? inputName(input);
    const src = isBlobLike(input)
      ? blobSource(input, name)
      : asAsync(
          bytesSource(
            input instanceof InMemoryFile
              ? input.bytes()
              : input instanceof ArrayBuffer
                ? new Uint8Array(input)
                : input,
            name,
          ),
        );
    const core = new ReaderCore(name, src.size, options.bufferSize);
    const { numParts = 1, partIndex = 0 } = options;
    if (numParts !== 1 || partIndex !== 0) await runAsync(core.partition(numParts, partIndex), src);
    const keyType = options.keyType ?? 'int';
    let index: RecordIOIndex | undefined;
    if (options.index !== undefined) {
      const ix = options.index;
      const text =
        typeof ix === 'string'
          ? ix
          : new TextDecoder().decode(isBlobLike(ix) ? new Uint8Array(await ix.slice().arrayBuffer()) : ix);
      index = parseRecordIOIndex(text, keyType, `${name} (.idx)`);
    }
    return new RecordIOBlobReader(src, core, index, keyType);
  }

  #live(op: string): ReaderCore {
    if (this.#closed)
      throw new MXNetError(`${this.name} is closed`, { op, hint: 'open a new RecordIOBlobReader' });
    if (this.#busy) {
      throw new MXNetError(`${this.name}: another read or seek is still running`, {
        op,
        hint: 'await each read()/seek()/readIdx() before starting the next (or open one reader per consumer)',
      });
    }
    return this.#core;
  }

  /** Runs one I/O operation, refusing overlapping ones (they would share the read buffer). */
  async #exclusive<T>(op: Parameters<typeof runAsync<T>>[0]): Promise<T> {
    this.#busy = true;
    try {
      return await runAsync(op, this.#src);
    } finally {
      this.#busy = false;
    }
  }

  /** The next record's payload, or null at the end of the blob or part. */
  async read(): Promise<Uint8Array | null> {
    const core = this.#live('RecordIOBlobReader.read');
    const hit = core.readBuffered('RecordIOBlobReader.read');
    return hit === 'need' ? this.#exclusive(core.read('RecordIOBlobReader.read')) : hit;
  }

  /** Back to the first record (of the part); also the way on after a failed read. */
  reset(): void {
    this.#live('RecordIOBlobReader.reset').reset();
  }

  /** The next record's byte offset. */
  tell(): number {
    return this.#live('RecordIOBlobReader.tell').tell();
  }

  /** The byte range read: the whole blob, or this part. */
  get range(): { readonly begin: number; readonly end: number } {
    const core = this.#live('RecordIOBlobReader.range');
    return { begin: core.begin, end: core.end };
  }

  /** Moves to byte `offset`, where a record must start (or the end). */
  async seekOffset(offset: number): Promise<void> {
    const op = 'RecordIOBlobReader.seekOffset';
    const core = this.#live(op);
    await this.#exclusive(core.seek(offset, offset !== core.end, 'the seek offset', op));
  }

  /** The index's keys in file order (needs the `index` option). */
  get keys(): readonly RecordIOKey[] {
    return this.#requireIndex('RecordIOBlobReader.keys').keys;
  }

  /** The index's key → offset map (needs the `index` option). */
  get idx(): ReadonlyMap<RecordIOKey, number> {
    return this.#requireIndex('RecordIOBlobReader.idx').idx;
  }

  #requireIndex(op: string): RecordIOIndex {
    if (this.#index) return this.#index;
    throw new MXNetError(`${this.name} was opened without an index`, {
      op,
      hint: 'pass the .idx text, bytes or Blob as the `index` option of RecordIOBlobReader.open',
    });
  }

  /** Moves to the record of `key`. */
  async seek(key: RecordIOKey): Promise<void> {
    const op = 'RecordIOBlobReader.seek';
    const core = this.#live(op);
    const index = this.#requireIndex(op);
    const k = toKey(key, this.keyType, op);
    const offset = index.idx.get(k);
    if (offset === undefined) {
      throw new MXNetError(`key ${JSON.stringify(k)} is not in the index of ${this.name}`, {
        op,
        params: { key: k },
        hint: `the index has ${index.keys.length} keys; check keyType ('${this.keyType}')`,
      });
    }
    await this.#exclusive(core.seek(offset, true, `.idx key ${JSON.stringify(k)}`, op));
  }

  /** The record of `key`. */
  async readIdx(key: RecordIOKey): Promise<Uint8Array> {
    await this.seek(key);
    return (await this.read()) as Uint8Array;
  }

  /** The records from the current position to the end. */
  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    for (let r = await this.read(); r !== null; r = await this.read()) yield r;
  }

  close(): void {
    if (!this.#closed) this.#src.close();
    this.#closed = true;
  }
}
