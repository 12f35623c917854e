/**
 * Bounds-checked little-endian reading and chunked writing for the binary formats.
 *
 * Every read states what it expects, so a short or corrupted file fails with an MXNetError such as
 * "params.bin: truncated: record 2 needs 512 bytes of float32 data at offset 1064, file has 900"
 * instead of a RangeError or a garbage array. Sizes are checked against the bytes left *before*
 * anything is allocated, so a corrupted dimension cannot ask for gigabytes, and readers end with
 * {@link ByteReader.expectEnd}, so bytes a damaged count or size leaves over are an error too.
 */
import { DType, type DTypeName, type StorageArray } from '@mx/base';
import { fileError } from './types.js';

/** True on little-endian hosts (every platform Node and browsers ship on today). */
const HOST_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export class ByteReader {
  readonly bytes: Uint8Array;
  readonly #view: DataView;
  readonly #op: string;
  readonly #source: string | undefined;
  #pos: number;
  /** What is being read, for messages ("record 2", "names"); set by the caller as it goes. */
  where = 'header';

  constructor(bytes: Uint8Array, op: string, source: string | undefined, pos = 0) {
    this.bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#op = op;
    this.#source = source;
    this.#pos = pos;
  }

  get pos(): number {
    return this.#pos;
  }

  get remaining(): number {
    return this.bytes.length - this.#pos;
  }

  /** An MXNetError naming the file, the current item and `message`. */
  error(message: string, hint?: string): Error {
    return fileError(this.#op, this.#source, `${message} (${this.where})`, hint);
  }

  /** A corruption error at byte `offset`. */
  corrupt(message: string, offset: number, hint?: string): Error {
    return fileError(
      this.#op,
      this.#source,
      `corrupted: ${this.where}: ${message} at offset ${offset}`,
      hint,
    );
  }

  /** Throws the truncation error unless `n` bytes (of `what`) remain. */
  need(n: number, what: string): void {
    if (n > this.remaining) {
      throw fileError(
        this.#op,
        this.#source,
        `truncated: ${this.where} needs ${n} bytes of ${what} at offset ${this.#pos}, file has ${this.bytes.length}`,
        'the file is incomplete or not in this format; save it again',
      );
    }
  }

  u16(what: string): number {
    this.need(2, what);
    const v = this.#view.getUint16(this.#pos, true);
    this.#pos += 2;
    return v;
  }

  u32(what: string): number {
    this.need(4, what);
    const v = this.#view.getUint32(this.#pos, true);
    this.#pos += 4;
    return v;
  }

  i32(what: string): number {
    this.need(4, what);
    const v = this.#view.getInt32(this.#pos, true);
    this.#pos += 4;
    return v;
  }

  /** A u64 that must fit a safe integer (counts and lengths). */
  u64(what: string): number {
    this.need(8, what);
    const at = this.#pos;
    const v = this.#view.getBigUint64(at, true);
    this.#pos += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw this.corrupt(`${what} ${v} is too large`, at);
    return Number(v);
  }

  /** An i64 (dims); values outside the safe-integer range are corruption. */
  i64(what: string): number {
    this.need(8, what);
    const at = this.#pos;
    const v = this.#view.getBigInt64(at, true);
    this.#pos += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw this.corrupt(`${what} ${v} is out of range`, at);
    }
    return Number(v);
  }

  /** The next `n` bytes (a view, not a copy). */
  take(n: number, what: string): Uint8Array {
    this.need(n, what);
    const out = this.bytes.subarray(this.#pos, this.#pos + n);
    this.#pos += n;
    return out;
  }

  /** Moves past `n` bytes (of data already checked with {@link need}). */
  skip(n: number): void {
    this.#pos += n;
  }

  /** Throws unless the whole input was read: trailing bytes mean the file is not what it says. */
  expectEnd(what: string): void {
    if (this.remaining === 0) return;
    throw fileError(
      this.#op,
      this.#source,
      `corrupted: ${this.remaining} trailing bytes after ${what} at offset ${this.#pos}, file has ${this.bytes.length}`,
      'a count or size field was damaged, or bytes were appended: the file is not what its header says',
    );
  }
}

/** Copies little-endian (or big-endian when `bigEndian`) element bytes into a fresh storage array. */
export function storageFromBytes(dtype: DTypeName, src: Uint8Array, bigEndian: boolean): StorageArray {
  const info = DType[dtype];
  const copy = new Uint8Array(src.length);
  copy.set(src);
  if (bigEndian === HOST_LITTLE_ENDIAN) swapBytes(copy, info.bytes);
  return new info.storage(copy.buffer, 0, src.length / info.bytes);
}

/** The little-endian bytes of a storage array (a copy when the host must swap, else a view). */
export function bytesOfStorage(data: StorageArray): Uint8Array {
  const view = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (HOST_LITTLE_ENDIAN || data.BYTES_PER_ELEMENT === 1) return view;
  const copy = view.slice();
  swapBytes(copy, data.BYTES_PER_ELEMENT);
  return copy;
}

function swapBytes(b: Uint8Array, width: number): void {
  if (width === 1) return;
  for (let i = 0; i + width <= b.length; i += width) {
    for (let j = 0; j < width >> 1; j++) {
      const t = b[i + j] as number;
      b[i + j] = b[i + width - 1 - j] as number;
      b[i + width - 1 - j] = t;
    }
  }
}

/** Collects little-endian fields and byte chunks; `finish()` concatenates them once. */
export class ByteWriter {
  readonly #chunks: Uint8Array[] = [];
  #length = 0;

  get length(): number {
    return this.#length;
  }

  bytes(b: Uint8Array): void {
    if (b.length === 0) return;
    this.#chunks.push(b);
    this.#length += b.length;
  }

  #field(n: number, set: (v: DataView) => void): void {
    const b = new Uint8Array(n);
    set(new DataView(b.buffer));
    this.bytes(b);
  }

  u16(v: number): void {
    this.#field(2, (d) => d.setUint16(0, v, true));
  }

  u32(v: number): void {
    this.#field(4, (d) => d.setUint32(0, v >>> 0, true));
  }

  i32(v: number): void {
    this.#field(4, (d) => d.setInt32(0, v, true));
  }

  u64(v: number): void {
    this.#field(8, (d) => d.setBigUint64(0, BigInt(v), true));
  }

  i64(v: number): void {
    this.#field(8, (d) => d.setBigInt64(0, BigInt(v), true));
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.#length);
    let at = 0;
    for (const c of this.#chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}
