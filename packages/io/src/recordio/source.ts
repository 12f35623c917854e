/**
 * Where RecordIO bytes come from and go to. Readers see a positional `readAt` (sync for Node files
 * and in-memory bytes, async for Blobs/Files); writers see an append-only `write`. Node's `fs` is
 * reached through `process.getBuiltinModule`, never imported, so the package bundles for browsers
 * and only the calls that need a file system fail there, with an MXNetError saying what to use.
 */
import { MXNetError } from '@mx/base';

/** A byte range readable synchronously: a Node file or bytes in memory. */
export interface SyncByteSource {
  /** Shown in error messages. */
  readonly name: string;
  /** Size in bytes when opened. */
  readonly size: number;
  /** Copies up to `length` bytes from `position` into `dst` at `offset`; returns how many (0 at the end). */
  readAt(dst: Uint8Array, offset: number, length: number, position: number): number;
  /**
   * Optional: fills `parts` one after the other from `position` in one call (`readv`); returns how
   * many bytes in all (fewer at the end of the file).
   */
  readvAt?(parts: readonly Uint8Array[], position: number): number;
  close(): void;
}

/** A byte range readable asynchronously (a `Blob`/`File`, or bytes in memory). */
export interface AsyncByteSource {
  readonly name: string;
  readonly size: number;
  readAt(dst: Uint8Array, offset: number, length: number, position: number): Promise<number>;
  close(): void;
}

/** An append-only byte sink. */
export interface ByteSink {
  readonly name: string;
  write(src: Uint8Array): void;
  close(): void;
}

interface NodeFs {
  openSync(path: string, flags: string): number;
  closeSync(fd: number): void;
  fstatSync(fd: number): { size: number };
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number;
  readvSync(fd: number, buffers: readonly Uint8Array[], position: number): number;
  writeSync(fd: number, buffer: Uint8Array, offset: number, length: number): number;
  readFileSync(path: string): Uint8Array;
}

function nodeFs(op: string): NodeFs {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const fs = proc?.getBuiltinModule?.('node:fs') as NodeFs | undefined;
  if (!fs) {
    throw new MXNetError('RecordIO file paths need Node.js >= 20.16 (node:fs)', {
      op,
      hint: 'in a browser, read a Blob/File/ArrayBuffer with RecordIOBlobReader, or pass bytes / an InMemoryFile to MXRecordIO',
    });
  }
  return fs;
}

function fileError(op: string, what: string, path: string, cause: unknown): MXNetError {
  return new MXNetError(`cannot ${what} the file '${path}'`, {
    op,
    cause,
    hint: 'check the path and its permissions (relative paths start at the working directory)',
  });
}

/** Opens a Node file for positional reads. */
export function openFileSource(path: string, op: string): SyncByteSource {
  const fs = nodeFs(op);
  let fd: number;
  let size: number;
  try {
    fd = fs.openSync(path, 'r');
  } catch (e) {
    throw fileError(op, 'open', path, e);
  }
  try {
    size = fs.fstatSync(fd).size;
  } catch (e) {
    fs.closeSync(fd);
    throw fileError(op, 'stat', path, e);
  }
  let open = true;
  return {
    name: path,
    size,
    readAt(dst, offset, length, position) {
      try {
        return fs.readSync(fd, dst, offset, length, position);
      } catch (e) {
        throw fileError(op, 'read', path, e);
      }
    },
    readvAt(parts, position) {
      try {
        return fs.readvSync(fd, parts, position);
      } catch (e) {
        throw fileError(op, 'read', path, e);
      }
    },
    close() {
      if (open) fs.closeSync(fd);
      open = false;
    },
  };
}

/** Opens (creates or truncates) a Node file for appending writes. */
export function openFileSink(path: string, op: string): ByteSink {
  const fs = nodeFs(op);
  let fd: number;
  try {
    fd = fs.openSync(path, 'w');
  } catch (e) {
    throw fileError(op, 'create', path, e);
  }
  let open = true;
  return {
    name: path,
    write(src) {
      try {
        for (let done = 0; done < src.length; ) done += fs.writeSync(fd, src, done, src.length - done);
      } catch (e) {
        throw fileError(op, 'write', path, e);
      }
    },
    close() {
      if (open) fs.closeSync(fd);
      open = false;
    },
  };
}

/** A whole (small) file's bytes, e.g. an `.idx`. */
export function readWholeFile(path: string, op: string): Uint8Array {
  const fs = nodeFs(op);
  try {
    return fs.readFileSync(path);
  } catch (e) {
    throw fileError(op, 'read', path, e);
  }
}

/** Node's `Buffer.allocUnsafeSlow` (its own ArrayBuffer, not the pool), where there is one. */
const allocUnsafeSlow = (globalThis as { Buffer?: { allocUnsafeSlow?: (n: number) => Uint8Array } }).Buffer
  ?.allocUnsafeSlow;

/**
 * A fresh `Uint8Array` of `n` bytes with its own `ArrayBuffer` (byteOffset 0, byteLength `n`, so it
 * can be transferred), for the caller to overwrite entirely: in Node without zero-filling it first
 * (a large record is read straight into it), elsewhere a plain zeroed one. Never a Buffer, never
 * pooled memory.
 */
export function allocBytes(n: number): Uint8Array {
  if (allocUnsafeSlow !== undefined) {
    const b = allocUnsafeSlow(n);
    if (b.byteOffset === 0 && b.buffer.byteLength === n) return new Uint8Array(b.buffer, 0, n);
  }
  return new Uint8Array(n);
}

/** Payloads up to this size share slabs (see {@link PayloadSlab}). */
export const SLAB_MAX_PAYLOAD = 4096;
const SLAB_SIZE = 1 << 16;

/**
 * Where a reader puts small payloads it copies (those of async sources, and after a seek; read in
 * sequence from a sync source they are lent from the read buffer instead, see ReadWindow.lend):
 * consecutive, 8-byte aligned views into a 64 KiB slab that is
 * never reused, a fresh one when it is full (as Node's Buffer pool does with 8 KiB). Allocating an
 * ArrayBuffer per record cost more than reading the file for records of a few hundred bytes; a view
 * costs a tenth of that. The views own their bytes (nothing else writes them), but share their
 * `buffer`: a kept record keeps its slab alive, and transferring `record.buffer` would take the
 * neighbours with it — `record.slice()` gives an exclusive copy. One per reader (no shared state).
 */
export class PayloadSlab {
  /** The current slab's ArrayBuffer itself (not a view's `.buffer`: this runs once per record). */
  #slab: ArrayBufferLike = new ArrayBuffer(0);
  #size = 0;
  #used = 0;

  /** A view of `n` (≤ SLAB_MAX_PAYLOAD) fresh bytes for the caller to fill. */
  take(n: number): Uint8Array {
    let at = this.#used;
    if (at + n > this.#size) {
      this.#slab = allocBytes(SLAB_SIZE).buffer;
      this.#size = SLAB_SIZE;
      at = 0;
    }
    this.#used = (at + n + 7) & ~7;
    return new Uint8Array(this.#slab, at, n);
  }
}

/** Bytes in memory as a source (no copy: the caller must not change them while reading). */
export function bytesSource(bytes: Uint8Array, name: string): SyncByteSource {
  return {
    name,
    size: bytes.length,
    readAt(dst, offset, length, position) {
      const n = Math.max(0, Math.min(length, bytes.length - position));
      dst.set(bytes.subarray(position, position + n), offset);
      return n;
    },
    close() {},
  };
}

/**
 * What RecordIO reads of a `Blob`/`File`: typed by shape, so the published typings need no DOM lib
 * (a Blob or File is one).
 */
export interface BlobLike {
  readonly size: number;
  slice(start?: number, end?: number): { arrayBuffer(): Promise<ArrayBuffer> };
}

/** A Blob-like object (not bytes, not an InMemoryFile). */
export function isBlobLike(x: unknown): x is BlobLike {
  return (
    typeof x === 'object' &&
    x !== null &&
    !(x instanceof Uint8Array) &&
    !(x instanceof ArrayBuffer) &&
    typeof (x as { size?: unknown }).size === 'number' &&
    typeof (x as { slice?: unknown }).slice === 'function'
  );
}

/** A `Blob` (or `File`) as an async source; reads slice the blob, never the whole of it at once. */
export function blobSource(blob: BlobLike, name: string): AsyncByteSource {
  return {
    name,
    size: blob.size,
    async readAt(dst, offset, length, position) {
      const end = Math.min(blob.size, position + length);
      if (end <= position) return 0;
      let got: Uint8Array;
      try {
        got = new Uint8Array(await blob.slice(position, end).arrayBuffer());
      } catch (e) {
        throw new MXNetError(`cannot read bytes ${position} to ${end} of ${name}`, {
          op: 'RecordIOBlobReader.read',
          cause: e,
          hint: 'the file behind the Blob was changed or removed after it was opened; open it again',
        });
      }
      dst.set(got, offset);
      return got.length;
    },
    close() {},
  };
}

/** A sync source used asynchronously (in-memory bytes behind the async reader's interface). */
export function asAsync(src: SyncByteSource): AsyncByteSource {
  return {
    name: src.name,
    size: src.size,
    readAt: async (dst, offset, length, position) => src.readAt(dst, offset, length, position),
    close: () => src.close(),
  };
}

/**
 * A growable file in memory: write a `.rec` (and its `.idx`) where there is no file system, then
 * read it back, download it (`toBlob`) or hand its bytes on. Opening it for writing truncates it,
 * as opening a file with 'w' does.
 */
export class InMemoryFile {
  readonly name: string;
  #buf: Uint8Array;
  #size = 0;

  constructor(name = '<memory>', initial?: Uint8Array) {
    this.name = name;
    this.#buf = new Uint8Array(Math.max(64, initial?.length ?? 0));
    if (initial) {
      this.#buf.set(initial);
      this.#size = initial.length;
    }
  }

  /** Bytes written so far. */
  get size(): number {
    return this.#size;
  }

  /** A copy of the contents. */
  bytes(): Uint8Array {
    return this.#buf.slice(0, this.#size);
  }

  /** The contents as UTF-8 text (for `.idx` files). */
  text(): string {
    return new TextDecoder().decode(this.#buf.subarray(0, this.#size));
  }

  /**
   * The contents as a Blob (e.g. to download; where the platform has `Blob`). Typed by shape so
   * the typings need no DOM lib: `new Blob([file.bytes()])` gives the DOM type.
   */
  toBlob(type = 'application/octet-stream'): BlobLike {
    const B = (globalThis as { Blob?: new (parts: unknown[], options: { type: string }) => BlobLike }).Blob;
    if (B === undefined) {
      throw new MXNetError('InMemoryFile.toBlob: this platform has no Blob', { hint: 'use .bytes()' });
    }
    return new B([this.bytes().buffer as ArrayBuffer], { type });
  }

  /** @internal A source over the current contents (copied, so later writes do not show). */
  openSource(): SyncByteSource {
    return bytesSource(this.bytes(), this.name);
  }

  /** @internal Truncates and returns an appending sink. */
  openSink(): ByteSink {
    this.#size = 0;
    return {
      name: this.name,
      write: (src) => {
        const need = this.#size + src.length;
        if (need > this.#buf.length) {
          const grown = new Uint8Array(Math.max(need, this.#buf.length * 2));
          grown.set(this.#buf.subarray(0, this.#size));
          this.#buf = grown;
        }
        this.#buf.set(src, this.#size);
        this.#size = need;
      },
      close: () => {},
    };
  }
}
