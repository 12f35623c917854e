/**
 * `MXRecordIO`: MXNet's sequential RecordIO reader/writer (`mx.recordio.MXRecordIO`), synchronous
 * like MXNet's. A path is a Node file (read in buffered chunks through one reused buffer, written
 * through one); bytes (`Uint8Array`/`ArrayBuffer`) and an `InMemoryFile` work everywhere, browsers
 * included. `Blob`/`File` need async reads: see RecordIOBlobReader. Beyond MXNet: `numParts` /
 * `partIndex` give the records dmlc's InputSplit assigns to one part, `seekOffset` is the C API's
 * reader seek, `tell()` also works when reading, and the object is iterable.
 */
import { MXNetError } from '@mx/base';
import { ReaderCore, type RecordReaderOptions, runSync } from './reader.js';
import { bytesSource, InMemoryFile, openFileSink, openFileSource, type SyncByteSource } from './source.js';
import { RecordWriterCore } from './writer.js';

/** 'r' to read, 'w' to write (creating or truncating the file). */
export type RecordIOFlag = 'r' | 'w';

/** What a RecordIO object opens: a path (Node), bytes (read only), or an {@link InMemoryFile}. */
export type RecordIOUri = string | Uint8Array | ArrayBuffer | InMemoryFile;

/** Options of {@link MXRecordIO}. `numParts`/`partIndex` apply to reading. */
export interface MXRecordIOOptions extends RecordReaderOptions {}

/** A short name for a uri, for messages. */
export function uriName(uri: RecordIOUri): string {
  if (typeof uri === 'string') return uri;
  if (uri instanceof InMemoryFile) return uri.name;
  return `<${uri.byteLength} bytes in memory>`;
}

/** Reads and writes RecordIO files record by record (MXNet `MXRecordIO(uri, flag)`). */
export class MXRecordIO {
  readonly uri: RecordIOUri;
  readonly flag: RecordIOFlag;
  readonly options: Readonly<MXRecordIOOptions>;
  #src: SyncByteSource | undefined;
  #reader: ReaderCore | undefined;
  #writer: RecordWriterCore | undefined;

  /** Opens `uri` for reading (`'r'`) or writing (`'w'`), as MXNet's constructor does. */
  constructor(uri: RecordIOUri, flag: RecordIOFlag, options: MXRecordIOOptions = {}) {
    if (flag !== 'r' && flag !== 'w') {
      throw new MXNetError(`invalid flag '${String(flag)}' for ${uriName(uri)}`, {
        op: 'MXRecordIO',
        params: { flag },
        hint: "use 'r' to read or 'w' to write",
      });
    }
    if (flag === 'w' && (uri instanceof Uint8Array || uri instanceof ArrayBuffer)) {
      throw new MXNetError('cannot write RecordIO into fixed bytes', {
        op: 'MXRecordIO',
        params: { flag },
        hint: 'write into an InMemoryFile (then .bytes() or .toBlob()), or into a file path in Node',
      });
    }
    this.uri = uri;
    this.flag = flag;
    this.options = { ...options };
    this.#openRecordFile();
  }

  /** The file's path or in-memory name. */
  get name(): string {
    return uriName(this.uri);
  }

  /** Whether it was opened for writing. */
  get writable(): boolean {
    return this.flag === 'w';
  }

  get isOpen(): boolean {
    return this.#reader !== undefined || this.#writer !== undefined;
  }

  /** (Re)opens the file: a reader starts at the first record (of its part), a writer truncates. */
  open(): void {
    this.close();
    this.#openRecordFile();
  }

  #openRecordFile(): void {
    const op = 'MXRecordIO.open';
    if (this.flag === 'w') {
      const sink =
        this.uri instanceof InMemoryFile ? this.uri.openSink() : openFileSink(this.uri as string, op);
      this.#writer = new RecordWriterCore(sink, this.options.bufferSize);
      return;
    }
    const uri = this.uri;
    const src =
      typeof uri === 'string'
        ? openFileSource(uri, op)
        : uri instanceof InMemoryFile
          ? uri.openSource()
          : bytesSource(uri instanceof ArrayBuffer ? new Uint8Array(uri) : uri, uriName(uri));
    try {
      const core = new ReaderCore(src.name, src.size, this.options.bufferSize);
      const { numParts = 1, partIndex = 0 } = this.options;
      if (numParts !== 1 || partIndex !== 0) runSync(core.partition(numParts, partIndex), src);
      this.#src = src;
      this.#reader = core;
    } catch (e) {
      src.close();
      throw e;
    }
  }

  /** Flushes and closes (a no-op when closed). */
  close(): void {
    const writer = this.#writer;
    const src = this.#src;
    this.#writer = undefined;
    this.#reader = undefined;
    this.#src = undefined;
    if (writer) writer.out.close();
    src?.close();
  }

  /**
   * Back to the first record (MXNet: close + open, so a reader sees the file as it is now, and a
   * writer starts over with an empty file). Also the way on after a failed read.
   */
  reset(): void {
    this.close();
    this.open();
  }

  protected requireWriter(op: string): RecordWriterCore {
    if (this.#writer) return this.#writer;
    throw this.#modeError(op, 'w');
  }

  protected requireReader(op: string): { core: ReaderCore; src: SyncByteSource } {
    if (this.#reader && this.#src) return { core: this.#reader, src: this.#src };
    throw this.#modeError(op, 'r');
  }

  #modeError(op: string, want: RecordIOFlag): MXNetError {
    if (!this.isOpen) {
      return new MXNetError(`${this.name} is closed`, { op, hint: 'call open() or reset() to reopen it' });
    }
    const what = want === 'w' ? 'write to' : 'read from';
    return new MXNetError(
      `cannot ${what} ${this.name}: it is open for ${this.writable ? 'writing' : 'reading'} ('${this.flag}')`,
      {
        op,
        params: { flag: this.flag },
        hint: `open a separate MXRecordIO with flag '${want}'`,
      },
    );
  }

  /** Appends one record (a string is written as UTF-8). */
  write(buf: Uint8Array | string): void {
    const w = this.requireWriter('MXRecordIO.write');
    w.write(typeof buf === 'string' ? new TextEncoder().encode(buf) : buf, 'MXRecordIO.write');
  }

  /**
   * The next record's payload (the caller's: later reads, `reset()` and `close()` never write it),
   * or null at the end of the file or part. Payloads larger than 4 KiB own their ArrayBuffer.
   * Smaller ones are views shared with their neighbours (like Node's pooled Buffers): read on in
   * sequence from a file, views of the read buffer itself (at most 256 KiB, the default 1 MiB for
   * the first), which the reader never writes again; after a seek, views into a 64 KiB slab. So
   * one kept small record keeps that buffer alive: `record.slice()` keeps only its bytes, and is
   * needed before transferring `record.buffer`.
   */
  read(): Uint8Array | null {
    // The fields, not requireReader's pair: this runs once per record.
    const core = this.#reader;
    const src = this.#src;
    if (core === undefined || src === undefined) throw this.#modeError('MXRecordIO.read', 'r');
    const hit = core.readBuffered('MXRecordIO.read');
    return hit === 'need' ? runSync(core.read('MXRecordIO.read'), src) : hit;
  }

  /**
   * The next record's payload as a view into the reader's buffer, valid only until the next read,
   * seek, `reset()` or `close()` — MXNet's C API `MXRecordIOReaderReadRecord`, whose pointer lives
   * as long (Python's `read()` copies it). No copy and no allocation per record: the fastest way
   * through a file; `slice()` a record to keep it. A multi-part record is a copy. null at the end.
   */
  readView(): Uint8Array | null {
    const core = this.#reader;
    const src = this.#src;
    if (core === undefined || src === undefined) throw this.#modeError('MXRecordIO.readView', 'r');
    const hit = core.readBuffered('MXRecordIO.readView', true);
    return hit === 'need' ? runSync(core.read('MXRecordIO.readView', true), src) : hit;
  }

  /** Writer: bytes written so far (the next record's offset). Reader: the next record's offset. */
  tell(): number {
    if (this.#writer) return this.#writer.out.tell();
    return this.requireReader('MXRecordIO.tell').core.tell();
  }

  /**
   * Moves the reader to byte `offset`, where a record must start (an offset from `tell()` or an
   * `.idx`); the end of the file or part is allowed too (then `read()` gives null).
   */
  seekOffset(offset: number): void {
    const { core, src } = this.requireReader('MXRecordIO.seekOffset');
    runSync(core.seek(offset, offset !== core.end, 'the seek offset', 'MXRecordIO.seekOffset'), src);
  }

  /** The byte range this reader covers: the whole file, or its part (`numParts`/`partIndex`). */
  get range(): { readonly begin: number; readonly end: number } {
    const { core } = this.requireReader('MXRecordIO.range');
    return { begin: core.begin, end: core.end };
  }

  /** The records from the current position to the end. */
  *[Symbol.iterator](): Iterator<Uint8Array> {
    for (let r = this.read(); r !== null; r = this.read()) yield r;
  }

  [Symbol.dispose](): void {
    this.close();
  }
}
