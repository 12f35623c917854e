/**
 * Printing arrays the way MXNet does: NumPy's `str()` of the values, then `<NDArray 2x3 @cpu(0)>`.
 *
 * The values follow NumPy's array2string with its default print options (NumPy >= 2.2 rules,
 * pinned by golden strings from tools/golden/print.py): precision 8 in `maxprec` mode, no
 * suppression of small values, threshold 1000 elements before summarising with `...` and 3 edge
 * items, line width 75. Floats print positionally, with the shortest digits that identify the value
 * in its own dtype (float16/float32 digits, not float64's) capped at 8 fractional digits (rounded
 * half to even on the exact binary value), padded to a common width; they switch to scientific
 * notation when a nonzero magnitude is below 1e-4, the largest is at least 10^min(8, the dtype's
 * decimal precision), or the largest/smallest ratio exceeds 1000 — comparisons made in the dtype,
 * as NumPy does. A 0-d array prints as its scalar (`str(np.float32(x))`). bfloat16, which NumPy
 * lacks, follows the same rules with its own rounding and a decimal precision of 2 (ml_dtypes').
 *
 * Exact decimal expansions of binary floats use BigInt, so ties and carries match NumPy's Dragon4.
 * Deviations from MXNet's repr, on purpose: no leading blank line (MXNet's repr starts with one for
 * the REPL), and the NumPy >= 2.2 cutoffs (MXNet-era NumPy switched float32 to scientific at 1e8).
 */
import { type DTypeName, fromBFloat16Bits, fromHalfBits, type StorageArray, shapeSize } from '@mx/base';
import type { NDArray } from './ndarray.js';

const THRESHOLD = 1000;
const EDGE_ITEMS = 3;
const LINE_WIDTH = 75;
const PRECISION = 8;

// ---- binary formats ----------------------------------------------------------------------------

/** Round `v` to a binary float with `mant` fraction bits and exponents in [emin, emax], half to even. */
function roundBinary(v: number, mant: number, emin: number, emax: number): number {
  if (!Number.isFinite(v) || v === 0) return v;
  const a = Math.abs(v);
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  else if (2 ** (e + 1) <= a) e++;
  const ulp = 2 ** (Math.max(e, emin) - mant);
  const q = a / ulp;
  const fl = Math.floor(q);
  const r = q - fl > 0.5 || (q - fl === 0.5 && fl % 2 === 1) ? fl + 1 : fl;
  const out = r * ulp;
  const max = (2 - 2 ** -mant) * 2 ** emax;
  return Math.sign(v) * (out > max ? Number.POSITIVE_INFINITY : out);
}

interface FloatInfo {
  /** Round a double to this format. */
  readonly round: (v: number) => number;
  /** NumPy's `finfo(dtype).precision` (decimal digits). */
  readonly precision: number;
}

const FLOATS: Partial<Record<DTypeName, FloatInfo>> = {
  float64: { round: (v) => v, precision: 15 },
  float32: { round: Math.fround, precision: 6 },
  float16: { round: (v) => roundBinary(v, 10, -14, 15), precision: 3 },
  bfloat16: { round: (v) => roundBinary(v, 7, -126, 127), precision: 2 },
};

// ---- exact decimal digits ----------------------------------------------------------------------

/** A nonnegative decimal `digits × 10^exp` (no leading zeros; "0" for zero). */
interface Decimal {
  readonly digits: string;
  readonly exp: number;
}

const dv = new DataView(new ArrayBuffer(8));

/** The exact decimal value of a finite nonnegative double. */
function exactDecimal(x: number): Decimal {
  if (x === 0) return { digits: '0', exp: 0 };
  dv.setFloat64(0, x);
  const hi = dv.getUint32(0);
  const lo = dv.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  let m = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let q: number;
  if (biased === 0) q = -1074;
  else {
    m |= 1n << 52n;
    q = biased - 1075;
  }
  if (q >= 0) return trimZeros({ digits: (m << BigInt(q)).toString(), exp: 0 });
  return trimZeros({ digits: (m * 5n ** BigInt(-q)).toString(), exp: q });
}

function trimZeros(d: Decimal): Decimal {
  const t = d.digits.replace(/0+$/, '');
  return t === '' ? { digits: '0', exp: 0 } : { digits: t, exp: d.exp + d.digits.length - t.length };
}

/** Keep the first `n` digits (n may be ≤ 0), rounding half to even on the dropped ones. */
function roundDigits(d: Decimal, n: number): Decimal {
  if (n >= d.digits.length) return d;
  const exp = d.exp + d.digits.length - n;
  if (n < 0) return { digits: '0', exp: 0 };
  const kept = d.digits.slice(0, n);
  const first = d.digits.charCodeAt(n) - 48;
  const rest = /[1-9]/.test(d.digits.slice(n + 1));
  const lastOdd = n > 0 && (d.digits.charCodeAt(n - 1) - 48) % 2 === 1;
  const up = first > 5 || (first === 5 && (rest || lastOdd));
  if (!up) return kept === '' ? { digits: '0', exp: 0 } : trimZeros({ digits: kept, exp });
  const bumped = (BigInt(kept === '' ? '0' : kept) + 1n).toString();
  return trimZeros({ digits: bumped, exp });
}

const toNumber = (d: Decimal) => Number(`${d.digits}e${d.exp}`);

/** Decimal exponent of the leading digit. */
const leadExp = (d: Decimal) => d.exp + d.digits.length - 1;

/** The shortest decimal that rounds back to `x` in its format (NumPy's `unique=True`). */
function shortest(x: number, info: FloatInfo): Decimal {
  const exact = exactDecimal(x);
  if (exact.digits === '0') return exact;
  for (let n = 1; n < exact.digits.length; n++) {
    const d = roundDigits(exact, n);
    if (info.round(toNumber(d)) === x) return d;
  }
  return exact;
}

/** NumPy's unique digits with at most `frac` fractional digits (positional) . */
function positionalDigits(x: number, info: FloatInfo, frac: number): Decimal {
  const s = shortest(x, info);
  if (-s.exp <= frac) return s;
  const exact = exactDecimal(x);
  return roundDigits(exact, exact.digits.length + exact.exp + frac);
}

/** NumPy's unique digits with at most `frac` digits after the leading one (scientific). */
function scientificDigits(x: number, info: FloatInfo, frac: number): Decimal {
  const s = shortest(x, info);
  if (s.digits.length <= frac + 1) return s;
  return roundDigits(exactDecimal(x), frac + 1);
}

/** `[int part, fraction digits]` of a decimal, positionally. */
function splitPositional(d: Decimal): [string, string] {
  if (d.exp >= 0) return [d.digits === '0' ? '0' : d.digits + '0'.repeat(d.exp), ''];
  const point = d.digits.length + d.exp;
  if (point > 0) return [d.digits.slice(0, point), d.digits.slice(point)];
  return ['0', '0'.repeat(-point) + d.digits];
}

/** `[mantissa int digit, mantissa fraction, exponent]` of a nonzero decimal (zero: exponent 0). */
function splitScientific(d: Decimal): [string, string, number] {
  if (d.digits === '0') return ['0', '', 0];
  return [d.digits[0] as string, d.digits.slice(1), leadExp(d)];
}

const negative = (x: number) => x < 0 || Object.is(x, -0);

// ---- element formatters ------------------------------------------------------------------------

type Value = number | bigint | boolean;
type Formatter = (v: Value) => string;

function floatFormatter(values: readonly number[], info: FloatInfo): Formatter {
  const finite = values.filter(Number.isFinite);
  const nonzero = finite.filter((v) => v !== 0).map(Math.abs);
  let exp = false;
  if (nonzero.length > 0) {
    const max = Math.max(...nonzero);
    const min = Math.min(...nonzero);
    exp =
      max >= info.round(10 ** Math.min(8, info.precision)) ||
      min < info.round(1e-4) ||
      info.round(max / min) > 1000;
  }
  let padLeft = 0;
  let padRight = 0;
  let precision = PRECISION;
  let expSize = -1;
  if (finite.length > 0 && exp) {
    const parts = finite.map((v) => splitScientific(scientificDigits(Math.abs(v), info, PRECISION)));
    precision = Math.max(...parts.map(([, f]) => f.length));
    expSize = Math.max(2, ...parts.map(([, , e]) => String(Math.abs(e)).length));
    padLeft = Math.max(...finite.map((v) => (negative(v) ? 2 : 1)));
    padRight = expSize + 2 + precision;
  } else if (finite.length > 0) {
    const parts = finite.map((v) => splitPositional(positionalDigits(Math.abs(v), info, PRECISION)));
    padLeft = Math.max(
      ...finite.map((v, i) => (parts[i] as [string, string])[0].length + (negative(v) ? 1 : 0)),
    );
    padRight = Math.max(...parts.map(([, f]) => f.length));
  }
  if (finite.length !== values.length) {
    const negInf = values.some((v) => v === Number.NEGATIVE_INFINITY);
    padLeft = Math.max(padLeft, 3 - (padRight + 1), 3 + (negInf ? 1 : 0) - (padRight + 1));
  }
  const width = padLeft + padRight + 1;
  return (value) => {
    const v = value as number;
    const sign = negative(v) ? '-' : '';
    if (Number.isNaN(v)) return 'nan'.padStart(width);
    if (!Number.isFinite(v)) return `${sign}inf`.padStart(width);
    if (exp) {
      const [i, f, e] = splitScientific(scientificDigits(Math.abs(v), info, precision));
      const es = `${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(expSize, '0')}`;
      return `${(sign + i).padStart(padLeft)}.${f.padEnd(precision, '0')}e${es}`;
    }
    const [i, f] = splitPositional(positionalDigits(Math.abs(v), info, precision));
    return `${(sign + i).padStart(padLeft)}.${f.padEnd(padRight)}`;
  };
}

function intFormatter(values: readonly (number | bigint)[]): Formatter {
  const width = values.reduce<number>((w, v) => Math.max(w, String(v).length), 0);
  return (v) => String(v).padStart(width);
}

/** `str()` of a NumPy scalar: shortest digits, positional in [1e-4, 1e16), else scientific. */
function scalarString(v: Value, dtype: DTypeName): string {
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  const info = FLOATS[dtype];
  if (info === undefined) return String(v);
  const x = v as number;
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x < 0 ? '-inf' : 'inf';
  const sign = negative(x) ? '-' : '';
  const a = Math.abs(x);
  const d = shortest(a, info);
  if (a === 0 || (a >= 1e-4 && a < 1e16)) {
    const [i, f] = splitPositional(d);
    return `${sign}${i}.${f === '' ? '0' : f}`;
  }
  const [i, f, e] = splitScientific(d);
  return `${sign}${i}${f === '' ? '' : `.${f}`}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
}

// ---- layout ------------------------------------------------------------------------------------

/** Element reader for the host copy of an array (float16/bfloat16 decoded, bools as booleans). */
function reader(data: StorageArray, dtype: DTypeName): (i: number) => Value {
  if (dtype === 'float16') return (i) => fromHalfBits(data[i] as number);
  if (dtype === 'bfloat16') return (i) => fromBFloat16Bits(data[i] as number);
  if (dtype === 'bool') return (i) => data[i] !== 0;
  return (i) => data[i] as number | bigint;
}

/** Flat indices NumPy shows (every one, or the edges of each long axis when summarising). */
function shownIndices(shape: readonly number[], strides: readonly number[], summarize: boolean): number[] {
  const out: number[] = [];
  const walk = (axis: number, offset: number): void => {
    if (axis === shape.length) {
      out.push(offset);
      return;
    }
    const n = shape[axis] as number;
    const stride = strides[axis] as number;
    const cut = summarize && n > 2 * EDGE_ITEMS;
    for (let i = 0; i < n; i++) {
      if (cut && i === EDGE_ITEMS) i = n - EDGE_ITEMS;
      walk(axis + 1, offset + i * stride);
    }
  };
  walk(0, 0);
  return out;
}

/** NumPy's `_formatArray` for `str()` (separator ' ', hanging indent ' ', brackets per axis). */
function layout(
  shape: readonly number[],
  strides: readonly number[],
  word: (flat: number) => string,
  summarize: boolean,
): string {
  const recurse = (axis: number, offset: number, hanging: string, width: number): string => {
    const left = shape.length - axis;
    if (left === 0) return word(offset);
    const n = shape[axis] as number;
    const stride = strides[axis] as number;
    const summary = summarize && 2 * EDGE_ITEMS < n;
    const lead = summary ? EDGE_ITEMS : 0;
    const trail = summary ? EDGE_ITEMS : n;
    const inner = (i: number) => recurse(axis + 1, offset + i * stride, `${hanging} `, width - 1);
    let s = '';
    if (left === 1) {
      const elemWidth = width - 1;
      let line = hanging;
      const extend = (w: string) => {
        if (line.length + w.length > elemWidth && line.length > hanging.length) {
          s += `${line.trimEnd()}\n`;
          line = hanging;
        }
        line += w;
      };
      for (let i = 0; i < lead; i++) {
        extend(inner(i));
        line += ' ';
      }
      if (summary) {
        extend('...');
        line += ' ';
      }
      for (let i = trail; i > 1; i--) {
        extend(inner(n - i));
        line += ' ';
      }
      extend(inner(n - 1));
      s += line;
    } else {
      const sep = '\n'.repeat(left - 1);
      for (let i = 0; i < lead; i++) s += hanging + inner(i) + sep;
      if (summary) s += `${hanging}...${sep}`;
      for (let i = trail; i > 1; i--) s += hanging + inner(n - i) + sep;
      s += hanging + inner(n - 1);
    }
    return `[${s.slice(hanging.length)}]`;
  };
  return recurse(0, 0, ' ', LINE_WIDTH);
}

/**
 * NumPy's `str()` of an array given its host data (row-major, as `x.data()` returns it), its shape
 * and dtype.
 */
export function formatValues(data: StorageArray, shape: readonly number[], dtype: DTypeName): string {
  const get = reader(data, dtype);
  if (shape.length === 0) return scalarString(get(0), dtype);
  const size = shapeSize(shape);
  if (size === 0) return '[]';
  const strides = shape.map((_, k) => shapeSize(shape.slice(k + 1)));
  const summarize = size > THRESHOLD;
  const shown = shownIndices(shape, strides, summarize).map(get);
  const info = FLOATS[dtype];
  let fmt: Formatter;
  if (dtype === 'bool') fmt = (v) => (v ? ' True' : 'False');
  else if (info !== undefined) fmt = floatFormatter(shown as number[], info);
  else fmt = intFormatter(shown as (number | bigint)[]);
  return layout(shape, strides, (i) => fmt(get(i)), summarize);
}

/** MXNet's trailer line: `<NDArray 2x3 @cpu(0)>` (shape joined by `x`, empty for 0-d). */
export function formatSuffix(shape: readonly number[], ctx: { toString(): string }): string {
  return `<NDArray ${shape.join('x')} @${ctx}>`;
}

/** Values then trailer, as `NDArray.toString` / `print` show them. */
export function formatArray(
  data: StorageArray,
  shape: readonly number[],
  dtype: DTypeName,
  ctx: { toString(): string },
): string {
  return `${formatValues(data, shape, dtype)}\n${formatSuffix(shape, ctx)}`;
}

/**
 * `NDArray.toString`: the values read with `dataSync()`, or — the backend cannot read
 * synchronously, the read fails (a failed array, an op that cannot finish synchronously, a call from
 * inside an engine op), or `unreadable` gives a reason — the trailer with the reason. Never throws.
 */
export function printSync(a: NDArray, unreadable: string | undefined): string {
  const without = (why: string) => `${formatSuffix(a.shape, a.ctx).slice(0, -1)} (${why})>`;
  if (unreadable !== undefined) return without(unreadable);
  const backend = a.chunk.backend;
  if (!backend.capabilities.syncRead) return without(`${backend.name} reads asynchronously: await x.print()`);
  try {
    return formatArray(a.dataSync(), a.shape, a.dtype, a.ctx);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return without(`values not shown: ${message.split('\n')[0]}`);
  }
}
