/**
 * The record reader behind MXRecordIO (sync) and RecordIOBlobReader (async). Its operations are
 * generators that yield the reads they need ({@link ReadRequest}) and get back the byte counts, so
 * one implementation of reading, seeking and part splitting serves both: `runSync` answers from a
 * sync source, `runAsync` awaits an async one. Records already in the buffer are returned without
 * starting a generator; read in sequence from a sync source, a small one (≤ 4 KiB) is a view of
 * the buffer itself, which is then lent (never written again: the next refill goes to a fresh
 * one), as copying it out cost more than reading the file. A large single-part record (≥ 1/64 of
 * the buffer, 16 KiB by default) that is not all buffered is read straight from the file into the
 * array returned (one copy, not two), and for sync sources the same call (`readv`) brings the next
 * 4 KiB into the buffer, so the next large record's header comes cheaply and its payload also goes
 * straight to its array. That is for sync sources, whose reads are cheap (the sync driver marks
 * the requests it answers); an async read costs much more per call, so there only a record larger
 * than the buffer is read directly, and refills always fill it. A failed read does not move the
 * position (it fails the same way again); `reset()` returns to the start of the file or part and
 * forgets the buffer.
 */
import { MXNetError } from '@mx/base';
import {
  align4,
  checkRecordHead,
  copyPayload,
  decodeFlag,
  decodeLength,
  isMagicAt,
  type ParseContext,
  type ParseResult,
  parseRecord,
  u32At,
} from './format.js';
import {
  type AsyncByteSource,
  allocBytes,
  PayloadSlab,
  SLAB_MAX_PAYLOAD,
  type SyncByteSource,
} from './source.js';
import { DEFAULT_BUFFER_SIZE, partBounds, ReadWindow, scanRecordHead, shrunkError } from './window.js';

/** Options of the readers. */
export interface RecordReaderOptions {
  /** Split the file into this many parts, as dmlc's InputSplit does for `num_parts` (default 1). */
  numParts?: number;
  /** Read only this part (default 0). */
  partIndex?: number;
  /**
   * Read-buffer size in bytes (default 1 MiB). Larger single-part records are read straight into
   * their arrays; it grows only for a larger multi-part record.
   */
  bufferSize?: number;
}

/** One read a reader operation needs. */
export interface ReadRequest {
  readonly buffer: Uint8Array;
  readonly offset: number;
  readonly length: number;
  readonly position: number;
  /** Set by the sync driver when it answers: this reader's reads are cheap. */
  sync?: boolean;
  /**
   * Where the bytes after the request may go in the same call, for a source that can (`readvAt`);
   * the answer then counts them too (an answer above `length` filled part of `tail`).
   */
  readonly tail?: Uint8Array | undefined;
}

type Io<T> = Generator<ReadRequest, T, number>;

/** The sync refill after a directly read record: its successor's header and a little. */
const HEAD_CHUNK = 4096;

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
  #parseCtx: { name: string; op: string; record: number | undefined; endLabel: string; slab: PayloadSlab };
  /** Payloads at least this long that are not all buffered are read straight into their array. */
  readonly #directMin: number;
  /** Whether a record was read directly since the last refill (a sync one then reads a little). */
  #afterDirect = false;
  /** Whether the driver is sync (learnt from the first answered read; see the file comment). */
  #cheapReads = false;

  constructor(name: string, size: number, bufferSize = DEFAULT_BUFFER_SIZE) {
    this.name = name;
    this.size = size;
    this.#end = size;
    this.#endLabel = `the end of the file (${size} bytes)`;
    this.#win = new ReadWindow(bufferSize);
    this.#directMin = Math.max(4, this.#win.buffer.length >>> 6);
    this.#parseCtx = { name, op: '', record: 0, endLabel: this.#endLabel, slab: new PayloadSlab() };
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
    this.#afterDirect = false;
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
    const short = this.#afterDirect && this.#cheapReads;
    const length = short ? Math.min(plan.length, Math.max(plan.min, HEAD_CHUNK)) : plan.length;
    // One short refill per direct read: small records after a large one go back to full refills.
    this.#afterDirect = false;
    let got = 0;
    while (got < plan.min) {
      const req: ReadRequest = {
        buffer: this.#win.buffer,
        offset: plan.offset + got,
        length: length - got,
        position: plan.position + got,
      };
      const n = yield req;
      if (req.sync) this.#cheapReads = true;
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

  /**
   * The next record from the buffer alone, or 'need' when the buffer does not hold all of it. This
   * runs once per record, so the common case (a whole single-part record buffered) is decided here
   * with no parse result or context; anything else (end, parts, errors, a partial record) goes
   * through the general parse, which checks and reports it.
   */
  readBuffered(op: string, view = false): Uint8Array | null | 'need' {
    const win = this.#win;
    const buf = win.buffer;
    const pos = this.#pos;
    const i = pos - win.base;
    // Bytes buffered from `pos` up to the end of the range (negative when `pos` is not buffered).
    const avail = Math.min(win.fill, this.#end - win.base) - i;
    if (i >= 0 && avail >= 8 && isMagicAt(buf, i)) {
      const lrec = u32At(buf, i + 4);
      const len = decodeLength(lrec);
      const size = 8 + align4(len);
      if (decodeFlag(lrec) === 0 && size <= avail) {
        this.#pos = pos + size;
        const record = this.#record;
        if (view) {
          // A view valid until the buffer moves (the next read): nothing is lent or copied.
          if (record !== undefined) this.#record = record + 1;
          return new Uint8Array(buf.buffer, buf.byteOffset + i + 8, len);
        }
        // After a seek (random access) a lent view could keep a whole buffer alive for one record.
        if (record === undefined || len > SLAB_MAX_PAYLOAD || !this.#cheapReads) {
          if (record !== undefined) this.#record = record + 1;
          return copyPayload(buf, i + 8, len, this.#parseCtx.slab);
        }
        this.#record = record + 1;
        // Reading on sequentially from a sync source: the payload is lent out of the buffer itself.
        win.lend();
        return new Uint8Array(buf.buffer, buf.byteOffset + i + 8, len);
      }
    }
    return this.#take(this.#parse(op));
  }

  /**
   * The next record; with `view`, a single-part one is a view into the buffer, valid until the
   * next read (the record is brought whole into the buffer, never read directly into its own).
   */
  *read(op: string, view = false): Io<Uint8Array | null> {
    for (;;) {
      if (view) {
        const hit = this.readBuffered(op, true);
        if (hit !== 'need') return hit;
      }
      const r = this.#parse(op);
      if (r.kind !== 'need') return this.#take(r) as Uint8Array | null;
      const direct = view ? -1 : this.#directLength(r.bytes);
      if (direct >= 0) return yield* this.#readDirect(direct, op);
      yield* this.#ensure(this.#pos, r.bytes, this.#end, op);
    }
  }

  /**
   * The payload length of the record at the position when it is to be read directly: a single
   * part (cflag 0) of at least `#directMin` bytes (async: larger than the buffer) whose header is
   * buffered and checked (the parse asked for exactly its framed size, so the magic, flag and
   * bounds passed), else -1.
   */
  #directLength(needBytes: number): number {
    const pos = this.#pos;
    const at = this.#win.indexOf(pos);
    if (needBytes <= 8 || at < 0 || this.#win.available(pos, this.#end) < 8) return -1;
    const lrec = u32At(this.#win.buffer, at + 4);
    const len = decodeLength(lrec);
    if (decodeFlag(lrec) !== 0 || len < this.#directMin || needBytes !== 8 + align4(len)) return -1;
    if (!this.#cheapReads && needBytes <= this.#win.buffer.length) return -1;
    return len;
  }

  /** Reads the checked single-part record at the position: buffered prefix, then the file. */
  *#readDirect(len: number, op: string): Io<Uint8Array> {
    const pos = this.#pos;
    const out = allocBytes(len);
    const from = this.#win.indexOf(pos) + 8;
    let got = Math.min(len, this.#win.available(pos, this.#end) - 8);
    out.set(this.#win.buffer.subarray(from, from + got));
    // Sync: the window restarts right after the payload (its padding first), and the same call
    // that reads the payload reads the successor's header into it (one readv, not two reads).
    let tail: Uint8Array | undefined;
    const after = pos + 8 + len;
    if (got < len && this.#cheapReads && after < this.#end) {
      const plan = this.#win.plan(after, 0, this.#end);
      tail = this.#win.buffer.subarray(plan.offset, plan.offset + Math.min(plan.length, HEAD_CHUNK));
    }
    let tailGot = 0;
    while (got < len) {
      const rest = len - got;
      const n = yield { buffer: out, offset: got, length: rest, position: pos + 8 + got, tail };
      if (n <= 0) throw shrunkError(this.name, op, pos + 8 + got, this.size);
      got += Math.min(n, rest);
      tailGot = Math.max(0, n - rest);
    }
    if (tailGot > 0) this.#win.commit(tailGot);
    this.#pos = pos + 8 + align4(len);
    if (this.#record !== undefined) this.#record++;
    // Without the successor's header in hand, the next refill is a short one (see #ensure).
    this.#afterDirect = tailGot === 0;
    return out;
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
    // A caller may have changed payloads lent from the buffer: a seek back must re-read the file.
    if (this.#win.lent) this.#win.clear();
    if (requireRecord) {
      const need = Math.min(8, this.#end - pos);
      yield* this.#ensure(pos, need, this.#end, op);
      checkRecordHead(this.#win.view(pos, this.#end), this.#end - pos, pos, ctx, what);
    }
    this.#pos = pos;
    this.#record = undefined;
    this.#afterDirect = false;
  }
}

/** Runs a reader operation against a sync source (marking each request: its reads are cheap). */
export function runSync<T>(op: Io<T>, src: SyncByteSource): T {
  let r = op.next();
  while (!r.done) {
    const q = r.value;
    q.sync = true;
    const n =
      q.tail !== undefined && src.readvAt !== undefined
        ? src.readvAt([q.buffer.subarray(q.offset, q.offset + q.length), q.tail], q.position)
        : src.readAt(q.buffer, q.offset, q.length, q.position);
    r = op.next(n);
  }
  return r.value;
}

/** Runs a reader operation against an async source (each read is costly: always the long one). */
export async function runAsync<T>(op: Io<T>, src: AsyncByteSource): Promise<T> {
  let r = op.next();
  while (!r.done) {
    const q = r.value;
    r = op.next(await src.readAt(q.buffer, q.offset, q.length, q.position));
  }
  return r.value;
}
