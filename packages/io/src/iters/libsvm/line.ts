/**
 * One LibSVM line, parsed from bytes: `label[:weight] [qid:n] index:value index:value … [# comment]`.
 *
 * This is the grammar of dmlc-core's LibSVM parser (src/data/libsvm_parser.h, which MXNet's
 * LibSVMIter uses) made strict. dmlc skips any character that cannot be part of a number before a
 * token (so `x:1` reads as feature 1 without a value and `3:abc` reads its value from the next
 * line), and reads a feature without `:value` as one without a value, which MXNet cannot batch.
 * Here each of those is an MXNetError naming the line and column; whatever dmlc reads correctly
 * reads the same here:
 *
 * - space and tab separate tokens; a `#` at the start of a token ends the line (comment);
 *   a line that is empty, blank or only a comment has no row;
 * - numbers use dmlc's number characters only (`0-9 + - . e E`: no `inf`/`nan`/hex) and get
 *   the float32 value dmlc's own `atof` gives (dmlc-float.ts);
 * - indices (and `qid`) are unsigned decimal integers, optionally with `+`;
 * - blanks are allowed around `:` (dmlc allows them);
 * - `qid:n` is recognised only right after the label, as in dmlc.
 */
import { MXNetError } from '@mx/base';
import { ascii } from '../csv-number.js';
import { dmlcFloat } from './dmlc-float.js';

/** Where the line being parsed is, for messages ("data_libsvm 'a.txt' line 3"). */
export interface LineLocator {
  describe(): string;
}

const SPACE = 32;
const TAB = 9;
const HASH = 35;
const COLON = 58;

function isBlank(c: number): boolean {
  return c === SPACE || c === TAB;
}

/** dmlc's `isdigitchars`: the characters a number may contain. */
export function isNumberChar(c: number): boolean {
  return (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46 || c === 101 || c === 69;
}

/** Indices this large or larger are out of every range (and past exact doubles). */
const INDEX_LIMIT = 2 ** 53;

/**
 * A reusable line parser: `parse` fills `label`, `weight`, `qid` and the first `nnz` entries of
 * `indices`/`values` (scratch arrays, grown as needed, overwritten by the next line).
 */
export class LibSVMLineParser {
  label = 0;
  /** The weight after `label:`, or NaN when the line has none. */
  weight = Number.NaN;
  /** The `qid:` number, or -1 when the line has none. */
  qid = -1;
  nnz = 0;
  indices: Float64Array = new Float64Array(64);
  values: Float32Array = new Float32Array(64);
  readonly #op: string;
  readonly #hint: string;

  /** `op` names the iterator in errors; `hint` is added to every syntax error. */
  constructor(op: string, hint: string) {
    this.#op = op;
    this.#hint = hint;
  }

  /**
   * Parse the line `buf[start..end)` (no line break in it). Returns false when the line has no row
   * (blank or comment), true with the row's fields set otherwise; throws an MXNetError naming
   * `where`'s line and the column for anything dmlc would misread.
   */
  parse(buf: Uint8Array, start: number, end: number, where: LineLocator): boolean {
    let p = this.#skipBlanks(buf, start, end);
    if (p >= end || buf[p] === HASH) return false;
    this.nnz = 0;
    this.weight = Number.NaN;
    this.qid = -1;
    p = this.#number(buf, p, end, start, where, 'the label');
    this.label = this.#lastNumber;
    let q = this.#skipBlanks(buf, p, end);
    if (q < end && buf[q] === COLON) {
      q = this.#skipBlanks(buf, q + 1, end);
      p = this.#number(buf, q, end, start, where, 'the weight after the label');
      this.weight = this.#lastNumber;
    }
    p = this.#afterToken(buf, p, end, start, where);
    q = this.#skipBlanks(buf, p, end);
    if (end - q >= 4 && buf[q] === 113 && buf[q + 1] === 105 && buf[q + 2] === 100 && buf[q + 3] === COLON) {
      p = this.#integer(buf, q + 4, end, start, where, 'the qid');
      this.qid = this.#lastInteger;
      p = this.#afterToken(buf, p, end, start, where);
    }
    for (;;) {
      p = this.#skipBlanks(buf, p, end);
      if (p >= end || buf[p] === HASH) return true;
      const tokenStart = p;
      p = this.#integer(buf, p, end, start, where, 'the feature index');
      const index = this.#lastInteger;
      q = this.#skipBlanks(buf, p, end);
      if (q >= end || buf[q] !== COLON) {
        throw this.#error(
          buf,
          start,
          tokenStart,
          end,
          where,
          'is a feature without a value',
          'write every feature as index:value',
        );
      }
      q = this.#skipBlanks(buf, q + 1, end);
      p = this.#number(buf, q, end, start, where, `the value of feature ${index}`);
      this.#push(index, this.#lastNumber);
      p = this.#afterToken(buf, p, end, start, where);
    }
  }

  #lastNumber = 0;
  #lastInteger = 0;

  #push(index: number, value: number): void {
    const n = this.nnz;
    if (n === this.indices.length) {
      const indices = new Float64Array(n * 2);
      indices.set(this.indices);
      this.indices = indices;
      const values = new Float32Array(n * 2);
      values.set(this.values);
      this.values = values;
    }
    this.indices[n] = index;
    this.values[n] = value;
    this.nnz = n + 1;
  }

  #skipBlanks(buf: Uint8Array, p: number, end: number): number {
    while (p < end && isBlank(buf[p] as number)) p++;
    return p;
  }

  /** After a token: a blank, a comment or the end of the line must follow. */
  #afterToken(buf: Uint8Array, p: number, end: number, start: number, where: LineLocator): number {
    if (p >= end) return p;
    const c = buf[p] as number;
    if (isBlank(c) || c === HASH) return p;
    throw this.#error(
      buf,
      start,
      p,
      end,
      where,
      'follows a token without a space',
      'separate tokens by spaces',
    );
  }

  /** A float32 number at p (sets #lastNumber); returns the offset after it. */
  #number(buf: Uint8Array, p: number, end: number, start: number, where: LineLocator, what: string): number {
    let q = p;
    while (q < end && isNumberChar(buf[q] as number)) q++;
    const v = dmlcFloat(buf, p, q);
    if (v === undefined)
      throw this.#error(buf, start, p, end, where, `is not a number (${what})`, this.#hint);
    this.#lastNumber = v;
    return q;
  }

  /** An unsigned integer at p (sets #lastInteger, ≥ 2^53 when huge); returns the offset after it. */
  #integer(buf: Uint8Array, p: number, end: number, start: number, where: LineLocator, what: string): number {
    let q = p;
    if (q < end && buf[q] === 43) q++;
    const digits = q;
    let v = 0;
    while (q < end && (buf[q] as number) >= 48 && (buf[q] as number) <= 57) {
      v = Math.min(v * 10 + ((buf[q] as number) - 48), INDEX_LIMIT);
      q++;
    }
    if (q === digits || (q < end && isNumberChar(buf[q] as number))) {
      throw this.#error(
        buf,
        start,
        p,
        end,
        where,
        `is not a non-negative integer (${what})`,
        what === 'the qid' ? 'write qid:<integer>' : this.#hint,
      );
    }
    this.#lastInteger = v;
    return q;
  }

  #error(
    buf: Uint8Array,
    lineStart: number,
    at: number,
    end: number,
    where: LineLocator,
    what: string,
    hint: string,
  ): MXNetError {
    let e = at;
    while (e < end && !isBlank(buf[e] as number)) e++;
    if (e === at && at < end) e = at + 1;
    const text = ascii(buf, at, Math.min(e, at + 40));
    const token = text === '' ? 'the end of the line' : `'${text}${e > at + 40 ? '…' : ''}'`;
    return new MXNetError(`${where.describe()}, column ${at - lineStart + 1}: ${token} ${what}`, {
      op: this.#op,
      hint,
    });
  }
}
