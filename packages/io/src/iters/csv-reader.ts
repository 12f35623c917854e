/**
 * CsvReader: rows of numbers streamed from CSV input in bounded memory, for CSVIter.
 *
 * The input is a file, a directory (its files in name order, like MXNet's `data_csv = 'dir/'`)
 * or bytes. Files are read with positioned `readSync` calls into one buffer of `bufferBytes`
 * (node:fs reached through `process.getBuiltinModule`, so importing @mx/io never imports it):
 * only whole lines are parsed, the unfinished tail is moved to the front before the next read,
 * and the buffer grows only for a single line longer than it. Values are written straight into
 * the caller's typed array; no string is made per field (see csv-number.ts).
 *
 * Format (dmlc's CSV parser, which MXNet uses, made strict): rows end at `\n`, `\r\n` or `\r`;
 * blank and whitespace-only lines are skipped; a UTF-8 BOM at the start of a file is skipped;
 * fields are separated by `,` with optional spaces or tabs around them. dmlc reads what `strtof`
 * can and silently turns the rest of a field (or an empty field) into 0; here anything that is
 * not a number is an MXNetError naming the file, line and column.
 */
import { MXNetError } from '@mx/base';
import { nodeModule } from '../host.js';
import { ascii, float32Of, type ParseState, parseDecimal, parseState } from './csv-number.js';

/** A CSV file path, a directory path (all its files, in name order), or the file's bytes. */
export type CsvSource = string | Uint8Array;
/** How the fields are converted: MXNet's CSVIter dtypes. */
export type CsvValueKind = 'float32' | 'int32' | 'int64';
export type CsvRowTarget = Float32Array | Int32Array | BigInt64Array;

export interface FsLike {
  openSync(path: string, flags: string): number;
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number;
  closeSync(fd: number): void;
  statSync(path: string): { isDirectory(): boolean; isFile(): boolean };
  readdirSync(path: string): string[];
}

interface PathLike {
  join(...parts: string[]): string;
}

/** One file (or the bytes) of the input (also LibSVM's, libsvm/source.ts). */
export interface Part {
  readonly name: string;
  open(): void;
  /** Up to `length` bytes from `position` into `into[offset..]`; 0 at the end. */
  read(into: Uint8Array, offset: number, length: number, position: number): number;
  close(): void;
}

/** The bytes as an input part (the same reads as a file). */
export function bytesPart(bytes: Uint8Array): Part {
  return {
    name: `<${bytes.length} bytes>`,
    open() {},
    read(into, offset, length, position) {
      const chunk = bytes.subarray(position, position + length);
      into.set(chunk, offset);
      return chunk.length;
    },
    close() {},
  };
}

/** A file read with Node's fs; open and read failures are MXNetErrors naming it (`what`: its role). */
export function filePart(fs: FsLike, path: string, what: string, op: string): Part {
  let fd = -1;
  return {
    name: path,
    open() {
      if (fd >= 0) return;
      try {
        fd = fs.openSync(path, 'r');
      } catch (e) {
        throw new MXNetError(`cannot open the ${what} file '${path}'`, {
          op,
          cause: e,
          hint: 'check the path',
        });
      }
    },
    read(into, offset, length, position) {
      try {
        return fs.readSync(fd, into, offset, length, position);
      } catch (e) {
        throw new MXNetError(`cannot read the ${what} file '${path}'`, { op, cause: e });
      }
    },
    close() {
      if (fd >= 0) fs.closeSync(fd);
      fd = -1;
    },
  };
}

function partsOf(source: CsvSource, what: string, op: string): Part[] {
  if (source instanceof Uint8Array) return [bytesPart(source)];
  const hint = `pass the ${what} file's bytes (a Uint8Array) instead of a path`;
  const fs = nodeModule('node:fs', op, hint) as unknown as FsLike;
  let isDir: boolean;
  try {
    isDir = fs.statSync(source).isDirectory();
  } catch (e) {
    throw new MXNetError(`cannot open the ${what} file '${source}'`, {
      op,
      cause: e,
      hint: 'check the path (relative paths start at the process working directory)',
    });
  }
  if (!isDir) return [filePart(fs, source, what, op)];
  const path = nodeModule('node:path', op, hint) as unknown as PathLike;
  const files = fs
    .readdirSync(source)
    .sort()
    .map((name) => path.join(source, name))
    .filter((p) => fs.statSync(p).isFile());
  if (files.length === 0) {
    throw new MXNetError(`the ${what} directory '${source}' has no files`, { op, hint: 'check the path' });
  }
  return files.map((p) => filePart(fs, p, what, op));
}

const DEFAULT_BUFFER = 1 << 20;

/** The first offset from p that is not a space or a tab. */
function skipBlanks(buf: Uint8Array, p: number, lim: number): number {
  while (p < lim) {
    const c = buf[p] as number;
    if (c !== 32 && c !== 9) break;
    p++;
  }
  return p;
}

export interface CsvReaderOptions {
  /** Name of the input in messages (`data_csv`). */
  readonly what: string;
  /** Op named by errors (`CSVIter`). */
  readonly op: string;
  readonly kind: CsvValueKind;
  /** Bytes read at a time (the buffer grows only for a longer line). Default 1 MiB. */
  readonly bufferBytes?: number;
}

export class CsvReader {
  readonly what: string;
  readonly kind: CsvValueKind;
  readonly #op: string;
  readonly #parts: readonly Part[];
  readonly #st: ParseState = parseState();
  #buf: Uint8Array;
  /** Parse position, end of the complete lines, end of the bytes read. */
  #pos = 0;
  #lim = 0;
  #end = 0;
  #part = 0;
  #opened = false;
  #filePos = 0;
  #partEof = false;
  #atStart = true;
  /** Line number at `#pos` (1-based), and whether the byte before `#pos` was a `\r`. */
  #line = 1;
  #prevCR = false;
  #rowLine = 0;

  constructor(source: CsvSource, options: CsvReaderOptions) {
    this.what = options.what;
    this.kind = options.kind;
    this.#op = options.op;
    this.#parts = partsOf(source, options.what, options.op);
    this.#buf = new Uint8Array(Math.max(16, options.bufferBytes ?? DEFAULT_BUFFER));
  }

  /** Name of the file being read (the last file once the input is exhausted). */
  get fileName(): string {
    return (this.#parts[Math.min(this.#part, this.#parts.length - 1)] as Part).name;
  }

  /** Line of the row `readRow` returned last. */
  get rowLine(): number {
    return this.#rowLine;
  }

  /** Bytes held for parsing (the buffer's size). */
  get bufferBytes(): number {
    return this.#buf.length;
  }

  /** Back to the first row of the first file. */
  rewind(): void {
    if (this.#opened) this.#parts[this.#part]?.close();
    this.#part = 0;
    this.#opened = false;
    this.#startPart();
  }

  /** Release the open file. */
  close(): void {
    if (this.#opened) this.#parts[this.#part]?.close();
    this.#opened = false;
  }

  /**
   * Parse the next row into `dst[offset .. offset+count)`: returns its number of fields (values
   * past `count` are checked but not stored), or -1 at the end of the input. Throws an MXNetError
   * naming the file, line and column for a field that is not a number.
   */
  readRow(dst: CsvRowTarget, offset: number, count: number): number {
    for (;;) {
      if (this.#pos >= this.#lim && !this.#fill()) return -1;
      const buf = this.#buf;
      const lim = this.#lim;
      let p = this.#pos;
      let c = buf[p] as number;
      if (c === 10) {
        if (!this.#prevCR) this.#line++;
        this.#prevCR = false;
        this.#pos = p + 1;
        continue;
      }
      if (c === 13) {
        this.#line++;
        this.#prevCR = true;
        this.#pos = p + 1;
        continue;
      }
      this.#prevCR = false;
      const lineStart = p;
      p = skipBlanks(buf, p, lim);
      c = p < lim ? (buf[p] as number) : 10;
      if (c === 10 || c === 13) {
        this.#pos = p; // a blank line
        continue;
      }
      let n = 0;
      for (;;) {
        const at = p;
        if (n < count) this.#store(dst, offset + n, buf, p, lim, lineStart);
        else this.#skipNumber(buf, p, lim, lineStart);
        n++;
        p = skipBlanks(buf, this.#st.end, lim);
        if (p >= lim) break;
        c = buf[p] as number;
        if (c === 44) {
          p = skipBlanks(buf, p + 1, lim);
          continue;
        }
        if (c === 10 || c === 13) break;
        throw this.#error(lineStart, at, 'has characters after the number', buf, lim);
      }
      this.#pos = p;
      this.#rowLine = this.#line;
      return n;
    }
  }

  /** Parse the field at p into dst[i] (sets `#st.end`). */
  #store(dst: CsvRowTarget, i: number, buf: Uint8Array, p: number, lim: number, lineStart: number): void {
    const st = this.#st;
    if (this.kind === 'int64') {
      (dst as BigInt64Array)[i] = this.#int64(buf, p, lim, lineStart);
      return;
    }
    const v = parseDecimal(buf, p, lim, st);
    if (st.end < 0) throw this.#error(lineStart, p, 'is not a number', buf, lim);
    if (this.kind === 'float32') {
      (dst as Float32Array)[i] = float32Of(v, buf, p, st.end, st);
      return;
    }
    if (!Number.isInteger(v)) throw this.#error(lineStart, p, 'is not an integer (dtype int32)', buf, lim);
    if (v < -2147483648 || v > 2147483647) {
      throw this.#error(lineStart, p, 'is out of the int32 range', buf, lim);
    }
    (dst as Int32Array)[i] = v;
  }

  #skipNumber(buf: Uint8Array, p: number, lim: number, lineStart: number): void {
    parseDecimal(buf, p, lim, this.#st);
    if (this.#st.end < 0) throw this.#error(lineStart, p, 'is not a number', buf, lim);
  }

  /** An int64 field: plain integers exactly (any length), other numbers when integral. */
  #int64(buf: Uint8Array, p: number, lim: number, lineStart: number): bigint {
    const st = this.#st;
    let q = p;
    if (q < lim && (buf[q] === 45 || buf[q] === 43)) q++;
    const digitsStart = q;
    while (q < lim && (buf[q] as number) >= 48 && (buf[q] as number) <= 57) q++;
    const next = q < lim ? (buf[q] as number) : 10;
    let big: bigint;
    if (q > digitsStart && next !== 46 && next !== 101 && next !== 69) {
      big = BigInt(ascii(buf, p, q).replace('+', ''));
      st.end = q;
    } else {
      const v = parseDecimal(buf, p, lim, st);
      if (st.end < 0) throw this.#error(lineStart, p, 'is not a number', buf, lim);
      if (!Number.isInteger(v)) throw this.#error(lineStart, p, 'is not an integer (dtype int64)', buf, lim);
      big = BigInt(v);
    }
    if (big < -(2n ** 63n) || big >= 2n ** 63n) {
      throw this.#error(lineStart, p, 'is out of the int64 range', buf, lim);
    }
    return big;
  }

  #error(lineStart: number, at: number, what: string, buf: Uint8Array, lim: number): MXNetError {
    let e = at;
    while (e < lim && buf[e] !== 44 && buf[e] !== 10 && buf[e] !== 13) e++;
    const text = ascii(buf, at, Math.min(e, at + 40)).trim();
    const field = text === '' ? 'an empty field' : `'${text}${e > at + 40 ? '…' : ''}'`;
    return new MXNetError(
      `${this.what} '${this.fileName}' line ${this.#line}, column ${at - lineStart + 1}: ${field} ${what}`,
      {
        op: this.#op,
        hint: 'CSVIter reads comma-separated numbers only: no header row, no quotes, no empty fields',
      },
    );
  }

  #startPart(): void {
    this.#pos = 0;
    this.#lim = 0;
    this.#end = 0;
    this.#filePos = 0;
    this.#partEof = false;
    this.#atStart = true;
    this.#line = 1;
    this.#prevCR = false;
  }

  /** Make a complete line available at `#pos`; false at the end of the input. */
  #fill(): boolean {
    for (;;) {
      if (this.#pos < this.#lim) return true;
      const part = this.#parts[this.#part];
      if (part === undefined) return false;
      if (this.#partEof) {
        part.close();
        this.#opened = false;
        this.#part++;
        this.#startPart();
        continue;
      }
      if (!this.#opened) {
        part.open();
        this.#opened = true;
      }
      if (this.#pos > 0) {
        this.#buf.copyWithin(0, this.#pos, this.#end);
        this.#end -= this.#pos;
        this.#pos = 0;
      }
      if (this.#end === this.#buf.length) {
        const grown = new Uint8Array(this.#buf.length * 2);
        grown.set(this.#buf);
        this.#buf = grown;
      }
      const buf = this.#buf;
      const n = part.read(buf, this.#end, buf.length - this.#end, this.#filePos);
      this.#filePos += n;
      this.#end += n;
      if (n === 0) this.#partEof = true;
      if (this.#atStart && (this.#end >= 3 || this.#partEof)) {
        this.#atStart = false;
        if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) this.#pos = 3;
      }
      if (this.#partEof) {
        this.#lim = this.#end;
      } else {
        let last = this.#end > 0 ? buf.lastIndexOf(10, this.#end - 1) : -1;
        if (last < 0 && this.#end > 0) last = buf.lastIndexOf(13, this.#end - 1);
        this.#lim = last + 1;
      }
    }
  }
}
