/**
 * dmlc RecordIO framing as pure functions over bytes, shared by every reader and writer here (sync
 * Node files, in-memory bytes, async Blobs): a record is `magic, lrec = cflag<<29 | length, payload,
 * zero padding to 4 bytes`; a payload holding the magic at a 4-byte-aligned offset is cut there into
 * parts (cflag 1 first, 2 middle, 3 last) and the magic itself is dropped. Parsing never reads: it is
 * handed the bytes it has and answers "record", "end" or "need N bytes", so sync and async drivers
 * share one implementation of the checks. Errors name the file, the byte offset and the record.
 */
import { MXNetError } from '@mx/base';
import { allocBytes, type PayloadSlab, SLAB_MAX_PAYLOAD } from './source.js';

/** dmlc's `RecordIOWriter::kMagic`; little-endian bytes `0A 23 D7 CE`. */
export const RECORDIO_MAGIC = 0xced7230a;
/** Lengths are 29 bits: a record (part) must be shorter than this. */
export const RECORDIO_MAX_LENGTH = 2 ** 29;

const M0 = 0x0a;
const M1 = 0x23;
const M2 = 0xd7;
const M3 = 0xce;

/** `cflag << 29 | length`, the second word of a record header. */
export function encodeLRec(cflag: number, length: number): number {
  return ((cflag << 29) | length) >>> 0;
}

/** The continuation flag of an lrec word (0 whole, 1 first, 2 middle, 3 last part). */
export function decodeFlag(lrec: number): number {
  return (lrec >>> 29) & 7;
}

/** The length of an lrec word. */
export function decodeLength(lrec: number): number {
  return lrec & (RECORDIO_MAX_LENGTH - 1);
}

/** `n` rounded up to a multiple of 4. */
export function align4(n: number): number {
  return (n + 3) & ~3;
}

/** Whether the 4 bytes at `i` are the magic number. */
export function isMagicAt(b: Uint8Array, i: number): boolean {
  return b[i] === M0 && b[i + 1] === M1 && b[i + 2] === M2 && b[i + 3] === M3;
}

/** Little-endian uint32 at `i` (the caller checked the bounds). */
export function u32At(b: Uint8Array, i: number): number {
  return (
    ((b[i] as number) |
      ((b[i + 1] as number) << 8) |
      ((b[i + 2] as number) << 16) |
      ((b[i + 3] as number) << 24)) >>>
    0
  );
}

/**
 * The payload offsets where dmlc's writer cuts a record: every 4-byte-aligned magic that ends
 * within the payload's aligned prefix (`i < floor(len / 4) * 4`).
 */
export function magicCuts(payload: Uint8Array): number[] {
  const cuts: number[] = [];
  const lower = payload.length & ~3;
  for (let i = 0; i < lower; i += 4) if (payload[i] === M0 && isMagicAt(payload, i)) cuts.push(i);
  return cuts;
}

/** Bytes the framed record takes in the file (headers, parts, padding). */
export function framedSize(payloadLength: number, cuts: readonly number[]): number {
  // Each cut drops the 4 magic bytes and adds an 8-byte header; only the last part is padded.
  return 8 + payloadLength + 4 * cuts.length + (align4(payloadLength) - payloadLength);
}

/**
 * Writes the framed record into `out` at `at` (which must have `framedSize` bytes), exactly as
 * dmlc's `RecordIOWriter::WriteRecord` lays it out; returns the offset after it.
 */
export function frameInto(payload: Uint8Array, cuts: readonly number[], out: Uint8Array, at: number): number {
  checkPayloadLength(payload.length, 'frameInto');
  const header = (cflag: number, length: number): void => {
    out[at] = M0;
    out[at + 1] = M1;
    out[at + 2] = M2;
    out[at + 3] = M3;
    const l = encodeLRec(cflag, length);
    out[at + 4] = l & 0xff;
    out[at + 5] = (l >>> 8) & 0xff;
    out[at + 6] = (l >>> 16) & 0xff;
    out[at + 7] = l >>> 24;
    at += 8;
  };
  let from = 0;
  for (const cut of cuts) {
    header(from === 0 ? 1 : 2, cut - from);
    out.set(payload.subarray(from, cut), at);
    at += cut - from;
    from = cut + 4;
  }
  header(from === 0 ? 0 : 3, payload.length - from);
  out.set(payload.subarray(from), at);
  at += payload.length - from;
  const end = at + (align4(payload.length) - payload.length);
  out.fill(0, at, end);
  return end;
}

/** dmlc's limit: a record must be shorter than 2^29 bytes. */
export function checkPayloadLength(length: number, op: string): void {
  if (length >= RECORDIO_MAX_LENGTH) {
    throw new MXNetError(`a RecordIO record must be shorter than 2^29 bytes (512 MiB); got ${length}`, {
      op,
      params: { length },
      hint: 'split the data over several records',
    });
  }
}

/** Where a parse happens, for error messages. */
export interface ParseContext {
  /** The file's name (path, or a label for in-memory data). */
  readonly name: string;
  /** The operation reported in errors (`MXRecordIO.read`, ...). */
  readonly op: string;
  /** The record's ordinal since the last reset or seek, when known. */
  readonly record: number | undefined;
  /** Where the readable range ends, and why (file size or part end). */
  readonly endLabel: string;
  /** Where small single-part payloads go (a reader's slab); without it every payload is a `slice`. */
  readonly slab?: PayloadSlab;
}

/** The outcome of {@link parseRecord}. */
export type ParseResult =
  | { readonly kind: 'record'; readonly payload: Uint8Array; readonly size: number }
  | { readonly kind: 'need'; readonly bytes: number }
  | { readonly kind: 'end' };

function fail(ctx: ParseContext, offset: number, what: string, hint: string): never {
  const rec = ctx.record === undefined ? '' : ` (record ${ctx.record} of this pass)`;
  throw new MXNetError(`${ctx.name}: ${what} at byte offset ${offset}${rec}`, {
    op: ctx.op,
    params: { file: ctx.name, offset },
    hint,
  });
}

const CORRUPT_HINT =
  'the file is not a RecordIO file, or is truncated or corrupt; rewrite it (MXRecordIO, im2rec), or check that the offset/.idx belongs to this file';

/**
 * Parses the record whose header starts at `buf[start]` (file offset `offset`). `avail` bytes are
 * buffered from there and `remaining` is how many the range has in all (`avail <= remaining`).
 * Returns the joined payload (a copy) and the record's framed size, `end` when `remaining` is 0, or
 * how many bytes from the header it needs buffered to go on. Strict where dmlc's sequential reader
 * is lenient: a record must start with cflag 0 or 1 and continue with 2s then a 3. (Offsets into
 * one buffer rather than a subarray: this runs once per record.)
 */
export function parseRecord(
  buf: Uint8Array,
  start: number,
  avail: number,
  remaining: number,
  offset: number,
  ctx: ParseContext,
): ParseResult {
  if (remaining === 0) return END;
  let at = 0;
  let total = 0;
  let parts = 0;
  for (;;) {
    if (remaining - at < 8) {
      fail(
        ctx,
        offset + at,
        `truncated record header: ${remaining - at} byte(s) left before ${ctx.endLabel}`,
        CORRUPT_HINT,
      );
    }
    if (avail - at < 8) return { kind: 'need', bytes: at + 8 };
    const h = start + at;
    if (!isMagicAt(buf, h)) {
      const word = u32At(buf, h).toString(16).padStart(8, '0');
      fail(ctx, offset + at, `bad magic 0x${word} (expected 0xced7230a)`, CORRUPT_HINT);
    }
    const lrec = u32At(buf, h + 4);
    const cflag = decodeFlag(lrec);
    const len = decodeLength(lrec);
    if (cflag > 3) fail(ctx, offset + at, `invalid continuation flag ${cflag} (must be 0-3)`, CORRUPT_HINT);
    if (parts === 0 && cflag > 1) {
      fail(
        ctx,
        offset + at,
        `no record starts here: a continuation part (cflag ${cflag}) of a multi-part record`,
        CORRUPT_HINT,
      );
    }
    if (parts > 0 && cflag < 2) {
      fail(
        ctx,
        offset + at,
        `bad continuation flag sequence: cflag ${cflag} inside the multi-part record that starts at offset ${offset}`,
        CORRUPT_HINT,
      );
    }
    const next = at + 8 + align4(len);
    if (next > remaining) {
      fail(
        ctx,
        offset + at,
        `record part of length ${len} runs past ${ctx.endLabel} (needs ${next - at} bytes, ${remaining - at} left)`,
        CORRUPT_HINT,
      );
    }
    if (avail < next) return { kind: 'need', bytes: next };
    total += len;
    parts++;
    at = next;
    if (cflag === 0 || cflag === 3) break;
    total += 4;
  }
  return { kind: 'record', payload: joinParts(buf, start, parts, total, ctx.slab), size: at };
}

const END: ParseResult = { kind: 'end' };

/**
 * A copy of `buf[from, from + len)` the caller owns: a view into `slab` when there is one and the
 * payload is small, else an array with its own ArrayBuffer.
 */
export function copyPayload(
  buf: Uint8Array,
  from: number,
  len: number,
  slab: PayloadSlab | undefined,
): Uint8Array {
  const out = slab !== undefined && len <= SLAB_MAX_PAYLOAD ? slab.take(len) : allocBytes(len);
  out.set(buf.subarray(from, from + len));
  return out;
}

/**
 * Copies the payload out of `parts` validated parts at `buf[start]`, the magic between parts; a
 * small single part into `slab` when there is one.
 */
function joinParts(
  buf: Uint8Array,
  start: number,
  parts: number,
  total: number,
  slab: PayloadSlab | undefined,
): Uint8Array {
  if (parts === 1) return copyPayload(buf, start + 8, total, slab);
  const out = allocBytes(total);
  let at = start;
  let o = 0;
  for (let p = 0; p < parts; p++) {
    const len = decodeLength(u32At(buf, at + 4));
    out.set(buf.subarray(at + 8, at + 8 + len), o);
    o += len;
    if (p < parts - 1) {
      out[o] = M0;
      out[o + 1] = M1;
      out[o + 2] = M2;
      out[o + 3] = M3;
      o += 4;
    }
    at += 8 + align4(len);
  }
  return out;
}

/**
 * Checks that a record starts at `view[0]` (magic, then cflag 0 or 1): what `.idx` offsets and
 * seeks must point at. `view` must hold at least 8 bytes when `remaining >= 8`; `what` names the
 * offset's origin in the message (".idx key 7 (train.idx)").
 */
export function checkRecordHead(
  view: Uint8Array,
  remaining: number,
  offset: number,
  ctx: ParseContext,
  what: string,
): void {
  let why: string | undefined;
  if (remaining < 8) why = `only ${remaining} byte(s) are left before ${ctx.endLabel}`;
  else if (!isMagicAt(view, 0)) why = 'there is no magic number there';
  else {
    const cflag = decodeFlag(u32At(view, 4));
    if (cflag !== 0 && cflag !== 1) why = `cflag ${cflag} there is not the start of a record`;
  }
  if (why === undefined) return;
  throw new MXNetError(
    `${ctx.name}: ${what} points at byte offset ${offset}, where no record starts: ${why}`,
    {
      op: ctx.op,
      params: { file: ctx.name, offset },
      hint: CORRUPT_HINT,
    },
  );
}
