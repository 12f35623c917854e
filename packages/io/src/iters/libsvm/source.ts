/**
 * The lines of one part of a LibSVM input, streamed in bounded memory, split as dmlc-core's text
 * InputSplit splits them (src/io/input_split_base.cc, line_split.cc), which is what MXNet's
 * LibSVMIter reads through:
 *
 * - the input is one file, a `;`-separated list of files, a directory (its files; here in name
 *   order, dmlc takes the order `readdir` gives), or bytes; empty files are left out;
 * - the files count as one stream of `total` bytes; part r of n gets bytes
 *   [min(r·step, total), min((r+1)·step, total)) with step = ⌈total / n⌉, and each boundary that
 *   is not the start of a file moves forward past the next line break (`\n` or `\r`) and any line
 *   breaks after it, within its file. So every line lands in exactly one part, parts may be empty,
 *   and they are not even (MXNet says so);
 * - the end of every file ends a line (dmlc inserts a `\n` between files).
 *
 * Files are read with positioned `readSync` calls (node:fs reached through
 * `process.getBuiltinModule`, so importing @mx/io never imports it) into one buffer that grows
 * only for a line longer than it. Line numbers are counted from the part's start; for a part that
 * does not start at the top of its file the lines before it are counted only when a message
 * needs the number.
 */
import { MXNetError } from '@mx/base';
import { nodeModule } from '../../host.js';
import { bytesPart, filePart, type Part } from '../csv-reader.js';
import type { LineLocator } from './line.js';

/** A LibSVM file path (or `;`-separated paths, or a directory), or the file's bytes. */
export type LibSVMSource = string | Uint8Array;

interface FsLike {
  openSync(path: string, flags: string): number;
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number;
  closeSync(fd: number): void;
  statSync(path: string): { isDirectory(): boolean; isFile(): boolean; size: number };
  readdirSync(path: string): string[];
}

/** One file of the input (or the bytes): CSVIter's part, with its size. */
export interface InputFile extends Part {
  readonly size: number;
}

function bytesFile(bytes: Uint8Array): InputFile {
  return { ...bytesPart(bytes), size: bytes.length };
}

function diskFile(fs: FsLike, path: string, size: number, what: string, op: string): InputFile {
  return { ...filePart(fs, path, what, op), size };
}

/** The non-empty files of `source` (`what` names the parameter in messages). */
export function inputFiles(source: LibSVMSource, what: string, op: string): InputFile[] {
  if (source instanceof Uint8Array) return source.length === 0 ? [] : [bytesFile(source)];
  const hint = `pass the ${what} file's bytes (a Uint8Array) instead of a path`;
  const fs = nodeModule('node:fs', op, hint) as unknown as FsLike;
  const path = nodeModule('node:path', op, hint);
  const stat = (p: string) => {
    try {
      return fs.statSync(p);
    } catch (e) {
      throw new MXNetError(`cannot open the ${what} file '${p}'`, {
        op,
        cause: e,
        hint: 'check the path (relative paths start at the process working directory)',
      });
    }
  };
  const files: InputFile[] = [];
  for (const entry of source.split(';')) {
    if (entry === '') continue;
    const info = stat(entry);
    if (info.isDirectory()) {
      for (const name of fs.readdirSync(entry).sort()) {
        const p = path.join(entry, name);
        const s = stat(p);
        if (s.isFile() && s.size > 0) files.push(diskFile(fs, p, s.size, what, op));
      }
    } else if (info.size > 0) {
      files.push(diskFile(fs, entry, info.size, what, op));
    }
  }
  return files;
}

const EOL_N = 10;
const EOL_R = 13;

function isEol(c: number): boolean {
  return c === EOL_N || c === EOL_R;
}

/** Bytes [begin, end) of the concatenated files that part `partIndex` of `numParts` reads. */
export interface PartRange {
  readonly begin: number;
  readonly end: number;
}

/** dmlc's LineSplitter::SeekRecordBegin: bytes from `pos` in `file` to the next line's start. */
function seekRecordBegin(file: InputFile, pos: number): number {
  const buf = new Uint8Array(4096);
  let n = 0;
  let seenEol = false;
  for (let at = pos; ; ) {
    const got = file.read(buf, 0, buf.length, at);
    if (got === 0) return n;
    for (let i = 0; i < got; i++) {
      const eol = isEol(buf[i] as number);
      if (!seenEol) {
        n++;
        seenEol = eol;
      } else if (eol) {
        n++;
      } else {
        return n;
      }
    }
    at += got;
  }
}

/** dmlc's InputSplitBase::ResetPartition for line-split text (align 1). */
export function partRange(files: readonly InputFile[], partIndex: number, numParts: number): PartRange {
  const starts = [0];
  for (const f of files) starts.push((starts[starts.length - 1] as number) + f.size);
  const total = starts[starts.length - 1] as number;
  const step = Math.ceil(total / numParts);
  const adjust = (offset: number): number => {
    if (offset >= total) return total;
    let i = starts.length - 2;
    while ((starts[i] as number) > offset) i--;
    const fileStart = starts[i] as number;
    if (offset === fileStart) return offset;
    const file = files[i] as InputFile;
    file.open();
    try {
      return offset + seekRecordBegin(file, offset - fileStart);
    } finally {
      file.close();
    }
  };
  const begin = adjust(Math.min(step * partIndex, total));
  const end = adjust(Math.min(step * (partIndex + 1), total));
  return { begin, end: Math.max(begin, end) };
}

const DEFAULT_BUFFER = 1 << 20;

/**
 * The lines of bytes [begin, end) of the files, one at a time: after `next()` returns true the
 * line is `buf[start..end)` (without its line break).
 */
export class LineStream implements LineLocator {
  readonly what: string;
  buf: Uint8Array;
  start = 0;
  end = 0;
  readonly #files: readonly InputFile[];
  readonly #range: PartRange;
  readonly #starts: number[] = [0];
  #file = -1;
  #opened = false;
  /** Next byte of the current file to read, and its end within the range (file positions). */
  #readPos = 0;
  #readEnd = 0;
  /** Parse position, end of the buffered bytes. */
  #pos = 0;
  #fill = 0;
  #eof = true;
  /** File position of the part's start in this file. */
  #firstPos = 0;
  /** Line breaks between `#firstPos` and the current line, and whether the last byte was `\r`. */
  #breaks = 0;
  #prevCR = false;

  constructor(files: readonly InputFile[], range: PartRange, what: string, bufferBytes?: number) {
    this.#files = files;
    this.#range = range;
    this.what = what;
    for (const f of files) this.#starts.push((this.#starts[this.#starts.length - 1] as number) + f.size);
    this.buf = new Uint8Array(Math.max(16, bufferBytes ?? DEFAULT_BUFFER));
    this.rewind();
  }

  /** Name of the file of the current line. */
  get fileName(): string {
    return this.#files[Math.max(0, this.#file)]?.name ?? '<no file>';
  }

  /** Back to the first line of the part. */
  rewind(): void {
    this.close();
    this.#file = -1;
    this.#eof = true;
    this.#pos = 0;
    this.#fill = 0;
  }

  close(): void {
    if (this.#opened) this.#files[this.#file]?.close();
    this.#opened = false;
  }

  /** The next line (blank ones included); false at the end of the part. */
  next(): boolean {
    for (;;) {
      const buf = this.buf;
      let p = this.#pos;
      // Line breaks before the line: each \n, \r or \r\n counts as one.
      while (p < this.#fill) {
        const c = buf[p] as number;
        if (c === EOL_N) {
          if (!this.#prevCR) this.#breaks++;
          this.#prevCR = false;
        } else if (c === EOL_R) {
          this.#breaks++;
          this.#prevCR = true;
        } else {
          break;
        }
        p++;
      }
      this.#pos = p;
      let q = p;
      while (q < this.#fill && !isEol(buf[q] as number)) q++;
      if (q < this.#fill || (this.#eof && q > p)) {
        this.#prevCR = false;
        this.start = p;
        this.end = q;
        this.#pos = q;
        return true;
      }
      if (!this.#more()) return false;
    }
  }

  /** Where the current line is, for messages: "data_libsvm 'a.txt' line 3". */
  describe(): string {
    return `${this.what} '${this.fileName}' line ${this.lineNumber()}`;
  }

  /** 1-based number of the current line in its file. */
  lineNumber(): number {
    let before = 0;
    if (this.#firstPos > 0) {
      const file = this.#files[this.#file] as InputFile;
      before = countBreaks(file, this.#firstPos);
    }
    return before + this.#breaks + 1;
  }

  /** Read more bytes (moving the unfinished line to the front); false at the end of the part. */
  #more(): boolean {
    if (this.#eof) return this.#nextFile();
    const buf = this.buf;
    if (this.#pos > 0) {
      buf.copyWithin(0, this.#pos, this.#fill);
      this.#fill -= this.#pos;
      this.#pos = 0;
    }
    if (this.#fill === buf.length) {
      const grown = new Uint8Array(buf.length * 2);
      grown.set(buf);
      this.buf = grown;
    }
    const want = Math.min(this.buf.length - this.#fill, this.#readEnd - this.#readPos);
    const got =
      want > 0 ? (this.#files[this.#file] as InputFile).read(this.buf, this.#fill, want, this.#readPos) : 0;
    this.#readPos += got;
    this.#fill += got;
    if (got === 0) this.#eof = true;
    return true;
  }

  /** Start the next file of the range; false when there is none. */
  #nextFile(): boolean {
    this.close();
    const { begin, end } = this.#range;
    for (;;) {
      this.#file++;
      const file = this.#files[this.#file];
      if (file === undefined) return false;
      const fileStart = this.#starts[this.#file] as number;
      const fileEnd = fileStart + file.size;
      if (fileEnd <= begin) continue;
      if (fileStart >= end) return false;
      file.open();
      this.#opened = true;
      this.#readPos = Math.max(begin, fileStart) - fileStart;
      this.#readEnd = Math.min(end, fileEnd) - fileStart;
      this.#firstPos = this.#readPos;
      this.#pos = 0;
      this.#fill = 0;
      this.#eof = false;
      this.#breaks = 0;
      this.#prevCR = false;
      if (this.#readPos === 0) this.#skipBom();
      return true;
    }
  }

  /** A UTF-8 byte order mark at the top of a file is not part of the first line. */
  #skipBom(): void {
    const file = this.#files[this.#file] as InputFile;
    const head = new Uint8Array(3);
    const got = file.read(head, 0, Math.min(3, this.#readEnd), 0);
    if (got === 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) {
      this.#readPos = 3;
    }
  }
}

/** Line breaks in the first `upTo` bytes of `file` (\r\n counts once; a final \r looks ahead). */
function countBreaks(file: InputFile, upTo: number): number {
  const buf = new Uint8Array(1 << 16);
  let n = 0;
  let prevCR = false;
  for (let at = 0; at < upTo; ) {
    const got = file.read(buf, 0, Math.min(buf.length, upTo - at), at);
    if (got === 0) break;
    for (let i = 0; i < got; i++) {
      const c = buf[i] as number;
      if (c === EOL_N) {
        if (!prevCR) n++;
        prevCR = false;
      } else {
        if (c === EOL_R) n++;
        prevCR = c === EOL_R;
      }
    }
    at += got;
  }
  return n;
}
