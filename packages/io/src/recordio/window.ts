/**
 * The read buffer shared by the sync and async readers: a `Uint8Array` holding a window of the
 * file, refilled in chunks (never the whole file) and grown only when one record is larger than
 * it. It is reused until the reader lends views of it (small payloads returned without a copy):
 * from then on nothing writes it again and the next refill goes into a fresh buffer, so a view
 * stays the caller's. The window does no I/O itself: `plan` says where to read, the driver reads (sync or
 * async) and `commit`s, so both drivers share the bookkeeping. Also here: dmlc's part split
 * (`InputSplitBase::ResetPartition` + `RecordIOSplitter::SeekRecordBegin`) as pure steps.
 */
import { MXNetError } from '@mx/base';
import { decodeFlag, isMagicAt, u32At } from './format.js';
import { allocBytes } from './source.js';

/** Default read buffer: 1 MiB. */
export const DEFAULT_BUFFER_SIZE = 1 << 20;

/** A read to perform: `length` bytes from file `position` into the window at `offset`; at least `min`. */
export interface ReadPlan {
  readonly offset: number;
  readonly length: number;
  readonly position: number;
  readonly min: number;
}

/** The most a buffer that lent views is replaced with (what one kept view can keep alive). */
export const LEND_CHUNK = 1 << 18;

export class ReadWindow {
  #buf: Uint8Array;
  /** File offset of `#buf[0]`. */
  #base = 0;
  /** Valid bytes in `#buf`. */
  #fill = 0;
  /** Whether views into `#buf` were handed out: then it is never written again. */
  #lent = false;
  /** Size of the fresh buffer that replaces a lent one. */
  readonly #lendChunk: number;

  constructor(capacity: number) {
    // Not zero-filled: only the bytes reads committed are ever looked at.
    this.#buf = allocBytes(Math.max(64, capacity));
    this.#lendChunk = Math.min(this.#buf.length, LEND_CHUNK);
  }

  /**
   * Marks the buffer as lent: views of committed bytes were handed out, so no later read, move or
   * growth writes into it; the next refill goes into a fresh buffer of at most {@link LEND_CHUNK}
   * bytes (or the record's size), keeping what is buffered from the position on.
   */
  lend(): void {
    this.#lent = true;
  }

  /** Whether the buffer was lent (see {@link lend}). */
  get lent(): boolean {
    return this.#lent;
  }

  /** The buffered bytes from file offset `pos` up to `limit` (empty when `pos` is not buffered). */
  view(pos: number, limit: number): Uint8Array {
    const from = pos - this.#base;
    if (from < 0 || from > this.#fill) return this.#buf.subarray(0, 0);
    return this.#buf.subarray(from, Math.max(from, Math.min(this.#fill, limit - this.#base)));
  }

  /** Index in `buffer` of file offset `pos`, or -1 when it is not buffered. */
  indexOf(pos: number): number {
    const from = pos - this.#base;
    return from < 0 || from > this.#fill ? -1 : from;
  }

  /** How many bytes from file offset `pos` (buffered, see `indexOf`) are buffered before `limit`. */
  available(pos: number, limit: number): number {
    return Math.max(0, Math.min(this.#fill, limit - this.#base) - (pos - this.#base));
  }

  /** Forgets the contents (after a reset or a failed read the file may be re-read from anywhere). */
  clear(): void {
    this.#base = 0;
    this.#fill = 0;
  }

  /**
   * Prepares to hold `need` bytes from `pos` (not past `limit`): keeps what is buffered from `pos`
   * on, moved to the front, grows the buffer when `need` exceeds it, and returns the read that fills
   * the rest (as much as fits before `limit`).
   */
  plan(pos: number, need: number, limit: number): ReadPlan {
    const from = pos - this.#base;
    const keep = from >= 0 && from < this.#fill ? this.#fill - from : 0;
    if (this.#lent || need > this.#buf.length) {
      // A lent buffer is left to its views; a short one is outgrown.
      const size = this.#lent ? Math.max(need, this.#lendChunk) : Math.max(need, this.#buf.length * 2);
      const fresh = allocBytes(size);
      if (keep > 0) fresh.set(this.#buf.subarray(from, this.#fill));
      this.#buf = fresh;
      this.#lent = false;
    } else if (keep > 0) {
      this.#buf.copyWithin(0, from, this.#fill);
    }
    this.#base = pos;
    this.#fill = keep;
    const length = Math.max(0, Math.min(this.#buf.length - keep, limit - pos - keep));
    return { offset: keep, length, position: pos + keep, min: Math.max(0, need - keep) };
  }

  /** File offset of `buffer[0]`. */
  get base(): number {
    return this.#base;
  }

  /** Valid bytes at the start of `buffer`. */
  get fill(): number {
    return this.#fill;
  }

  /** The buffer a plan reads into. */
  get buffer(): Uint8Array {
    return this.#buf;
  }

  /** Records `n` more valid bytes after a read. */
  commit(n: number): void {
    this.#fill += n;
  }
}

/** The error when a file ends before the size it had when it was opened. */
export function shrunkError(name: string, op: string, position: number, size: number): MXNetError {
  return new MXNetError(
    `${name}: the file ended at byte ${position}, before its size when opened (${size})`,
    {
      op,
      hint: 'another process truncated or rewrote the file while it was being read; reopen it',
    },
  );
}

/** Outcome of one {@link scanRecordHead} step. */
export type ScanResult =
  | { readonly kind: 'found'; readonly offset: number }
  | { readonly kind: 'need'; readonly offset: number };

/**
 * One step of dmlc's `SeekRecordBegin` from file offset `offset` (4-byte aligned) over `view` (the
 * buffered bytes from there; `remaining` bytes to the end of the file): read words until a magic
 * followed by cflag 0 or 1, skipping the lrec word after a magic with another cflag. Returns the
 * head's offset (the file's end when there is none), or where to continue once more is buffered.
 */
export function scanRecordHead(
  view: Uint8Array,
  remaining: number,
  offset: number,
  name: string,
): ScanResult {
  let at = 0;
  for (;;) {
    if (at >= remaining) return { kind: 'found', offset: offset + remaining };
    if (view.length - at < 8 && view.length < remaining) return { kind: 'need', offset: offset + at };
    if (isMagicAt(view, at)) {
      if (remaining - at < 8) {
        throw new MXNetError(
          `${name}: invalid RecordIO file: a magic number ends the file at byte offset ${offset + at}`,
          {
            op: 'recordIOPartition',
            params: { file: name, offset: offset + at },
            hint: 'the file is truncated or not a RecordIO file',
          },
        );
      }
      const cflag = decodeFlag(u32At(view, at + 4));
      if (cflag === 0 || cflag === 1) return { kind: 'found', offset: offset + at };
      at += 8;
    } else {
      at += 4;
    }
  }
}

/** The raw byte bounds of part `partIndex` of `numParts`, before moving them to record heads. */
export interface PartBounds {
  readonly begin: number;
  readonly end: number;
  /** Whether `begin` / `end` must be moved forward to the next record head. */
  readonly seekBegin: boolean;
  readonly seekEnd: boolean;
}

/**
 * dmlc's `InputSplitBase::ResetPartition` for one file of `size` bytes: parts of
 * `ceil(size / numParts)` bytes rounded up to 4; each bound inside the file then moves to the next
 * record head, so a record belongs to the part its header starts in.
 */
export function partBounds(name: string, size: number, numParts: number, partIndex: number): PartBounds {
  checkPart(numParts, partIndex, 'recordIOPartition');
  if (size % 4 !== 0) {
    throw new MXNetError(
      `${name}: a RecordIO file split into parts must be a multiple of 4 bytes long; it has ${size}`,
      {
        op: 'recordIOPartition',
        params: { file: name, size, numParts },
        hint: 'the file is truncated or not a RecordIO file (dmlc: "file do not align by 4 bytes")',
      },
    );
  }
  const nstep = (Math.ceil(size / numParts) + 3) & ~3;
  const begin = Math.min(nstep * partIndex, size);
  const end = Math.min(nstep * (partIndex + 1), size);
  if (begin === end) return { begin, end, seekBegin: false, seekEnd: false };
  return { begin, end, seekBegin: begin !== 0, seekEnd: end !== size };
}

/**
 * dmlc's `IndexedRecordIOSplitter::ResetPartition`: the record offsets (from an `.idx`, keys
 * ignored) sorted, cut into parts of `ceil(count / numParts)` records; returns this part's offsets.
 */
export function indexedPartition(offsets: readonly number[], numParts: number, partIndex: number): number[] {
  checkPart(numParts, partIndex, 'indexedPartition');
  const sorted = [...offsets].sort((a, b) => a - b);
  const nstep = Math.ceil(sorted.length / numParts);
  return sorted.slice(
    Math.min(partIndex * nstep, sorted.length),
    Math.min((partIndex + 1) * nstep, sorted.length),
  );
}

/** Throws unless `numParts` is a positive integer and `0 <= partIndex < numParts`. */
export function checkPart(numParts: number, partIndex: number, op: string): void {
  if (
    !Number.isInteger(numParts) ||
    numParts < 1 ||
    !Number.isInteger(partIndex) ||
    partIndex < 0 ||
    partIndex >= numParts
  ) {
    throw new MXNetError(`invalid part: partIndex ${partIndex} of numParts ${numParts}`, {
      op,
      params: { numParts, partIndex },
      hint: 'numParts is a positive integer and 0 <= partIndex < numParts',
    });
  }
}
