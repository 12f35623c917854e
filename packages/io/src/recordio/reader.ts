/**
 * The record reader behind MXRecordIO (sync) and RecordIOBlobReader (async). Its operations are
 * generators that yield the reads they need ({@link ReadRequest}) and get back the byte counts, so
 * one implementation of reading, seeking and part splitting serves both: `runSync` answers from a
 * sync source, `runAsync` awaits an async one. Records already in the buffer are returned without
 * starting a generator. A failed read does not move the position (it fails the same way again);
 * `reset()` returns to the start of the file or part and forgets the buffer.
 */
import { MXNetError } from '@mx/base';
import { checkRecordHead, type ParseContext, type ParseResult, parseRecord } from './format.js';
import type { AsyncByteSource, SyncByteSource } from './source.js';
import { DEFAULT_BUFFER_SIZE, partBounds, ReadWindow, scanRecordHead, shrunkError } from './window.js';

/** Options of the readers. */
export interface RecordReaderOptions {
  /** Split the file into this many parts, as dmlc's InputSplit does for `num_parts` (default 1). */
  numParts?: number;
  /** Read only this part (default 0). */
  partIndex?: number;
  /** Initial read-buffer size in bytes (default 1 MiB; grows for larger records). */
  bufferSize?: number;
}

/** One read a reader operation needs. */
export interface ReadRequest {
  readonly buffer: Uint8Array;
  readonly offset: number;
  readonly length: number;
  readonly position: number;
}

type Io<T> = Generator<ReadRequest, T, number>;

export class ReaderCore {
  readonly name: string;
  readonly size: number;
  #win: ReadWindow;
  #begin = 0;
  #end: number;
  #pos = 0;
  /** Records read since the last reset (undefined after a seek by offset). */
  #record: number | undefined = 0;
  #endLabel: string;
  /** Reused for every parse (read() runs once per record); filled in before each. */
  #parseCtx: { name: string; op: string; record: number | undefined; endLabel: string };

  constructor(name: string, size: number, bufferSize = DEFAULT_BUFFER_SIZE) {
    this.name = name;
    this.size = size;
    this.#end = size;
    this.#endLabel = `the end of the file (${size} bytes)`;
    this.#win = new ReadWindow(bufferSize);
    this.#parseCtx = { name, op: '', record: 0, endLabel: this.#endLabel };
  }

  /** First byte of the file or part. */
  get begin(): number {
    return this.#begin;
  }

  /** End of the file or part. */
  get end(): number {
    return this.#end;
  }

  /** Offset of the next record header. */
  tell(): number {
    return this.#pos;
  }

  reset(): void {
    this.#pos = this.#begin;
    this.#record = 0;
    this.#win.clear();
  }

  #parse(op: string): ParseResult {
    const ctx = this.#parseCtx;
    ctx.op = op;
    ctx.record = this.#record;
    ctx.endLabel = this.#endLabel;
    const pos = this.#pos;
    const start = this.#win.indexOf(pos);
    const avail = start < 0 ? 0 : this.#win.available(pos, this.#end);
    return parseRecord(this.#win.buffer, Math.max(0, start), avail, this.#end - pos, pos, ctx);
  }

  /** Makes `need` bytes from `pos` (not past `limit`) available in the window. */
  *#ensure(pos: number, need: number, limit: number, op: string): Io<void> {
    if (this.#win.view(pos, limit).length >= need) return;
    const plan = this.#win.plan(pos, need, limit);
    let got = 0;
    while (got < plan.min) {
      const n = yield {
        buffer: this.#win.buffer,
        offset: plan.offset + got,
        length: plan.length - got,
        position: plan.position + got,
      };
      if (n <= 0) throw shrunkError(this.name, op, plan.position + got, this.size);
      got += n;
      this.#win.commit(n);
    }
  }

  /** Restricts reading to part `partIndex` of `numParts` (dmlc's record assignment). */
  *partition(numParts: number, partIndex: number): Io<void> {
    const b = partBounds(this.name, this.size, numParts, partIndex);
    const end = b.seekEnd ? yield* this.#seekHead(b.end) : b.end;
    const begin = b.seekBegin ? yield* this.#seekHead(b.begin) : b.begin;
    this.#begin = Math.min(begin, end);
    this.#end = end;
    this.#endLabel = `the end of part ${partIndex} of ${numParts} (byte ${end})`;
    this.reset();
  }

  *#seekHead(from: number): Io<number> {
    let at = from;
    for (;;) {
      const r = scanRecordHead(this.#win.view(at, this.size), this.size - at, at, this.name);
      if (r.kind === 'found') return r.offset;
      at = r.offset;
      yield* this.#ensure(at, Math.min(8, this.size - at), this.size, 'recordIOPartition');
    }
  }

  /** The next record from the buffer alone, or 'need' when the buffer does not hold all of it. */
  readBuffered(op: string): Uint8Array | null | 'need' {
    const r = this.#parse(op);
    return this.#take(r);
  }

  *read(op: string): Io<Uint8Array | null> {
    for (;;) {
      const r = this.#parse(op);
      if (r.kind !== 'need') return this.#take(r) as Uint8Array | null;
      yield* this.#ensure(this.#pos, r.bytes, this.#end, op);
    }
  }

  #take(r: ParseResult): Uint8Array | null | 'need' {
    if (r.kind === 'need') return 'need';
    if (r.kind === 'end') return null;
    this.#pos += r.size;
    if (this.#record !== undefined) this.#record++;
    return r.payload;
  }

  /**
   * Moves to file offset `pos`, which must lie in the file or part; with `requireRecord` a record
   * must start there (what `.idx` offsets promise). `what` names the offset in errors (a key).
   */
  *seek(pos: number, requireRecord: boolean, what: string, op: string): Io<void> {
    const ctx: ParseContext = { name: this.name, op, record: undefined, endLabel: this.#endLabel };
    if (
      !Number.isSafeInteger(pos) ||
      pos < this.#begin ||
      pos > this.#end ||
      (requireRecord && pos === this.#end)
    ) {
      const range =
        this.#begin === 0 && this.#end === this.size
          ? `the file (${this.size} bytes)`
          : `this part (bytes ${this.#begin} to ${this.#end})`;
      throw new MXNetError(
        `${this.name}: ${what} points at byte offset ${pos}, ${pos === this.#end ? 'the end of' : 'outside'} ${range}`,
        {
          op,
          params: { file: this.name, offset: pos },
          hint: 'the offset (or .idx file) does not belong to this RecordIO file, or the file was truncated',
        },
      );
    }
    if (requireRecord) {
      const need = Math.min(8, this.#end - pos);
      yield* this.#ensure(pos, need, this.#end, op);
      checkRecordHead(this.#win.view(pos, this.#end), this.#end - pos, pos, ctx, what);
    }
    this.#pos = pos;
    this.#record = undefined;
  }
}

/** Runs a reader operation against a sync source. */
export function runSync<T>(op: Io<T>, src: SyncByteSource): T {
  let r = op.next();
  while (!r.done) {
    const q = r.value;
    r = op.next(src.readAt(q.buffer, q.offset, q.length, q.position));
  }
  return r.value;
}

/** Runs a reader operation against an async source. */
export async function runAsync<T>(op: Io<T>, src: AsyncByteSource): Promise<T> {
  let r = op.next();
  while (!r.done) {
    const q = r.value;
    r = op.next(await src.readAt(q.buffer, q.offset, q.length, q.position));
  }
  return r.value;
}
