/**
 * Numbers of a CSV field, parsed from bytes without making a string per field (CSVIter is
 * benchmarked in MB/s): the digits are accumulated into an integer while it stays exact (15
 * digits) and scaled by an exact power of ten (Clinger's fast path: one rounding, so the double
 * is correctly rounded); longer or far-out numbers fall back to `Number(text)`, also correct.
 *
 * float32 values are rounded once from the decimal, as C's `strtof` (which MXNet's parser uses)
 * does: rounding the double again is wrong only when the double lands exactly halfway between
 * two float32 values, and that rare case is decided exactly with BigInts (`float32Of`).
 *
 * Syntax accepted (what `strtof` reads, minus hex floats): optional sign, digits with an optional
 * `.` (at least one digit), optional exponent `e`/`E` with optional sign and digits; `inf`,
 * `infinity`, `nan` in any case.
 */

/** Exact powers of ten as doubles (10^0 .. 10^22). */
const POW10: readonly number[] = Object.freeze(Array.from({ length: 23 }, (_, i) => 10 ** i));
const FLOAT32_MAX = 3.4028234663852886e38;
/** Halfway between FLOAT32_MAX and 2^128: decimals at or above it round to infinity. */
const FLOAT32_OVERFLOW = 3.4028235677973366e38;

/** Where a parse ended: `end` is the offset after the number, or -1 on a syntax error. */
export interface ParseState {
  end: number;
  /** float32 neighbours (scratch for the halfway test, per parser: no shared state). */
  readonly f32: Float32Array;
  readonly u32: Uint32Array;
}

export function parseState(): ParseState {
  const f32 = new Float32Array(1);
  return { end: 0, f32, u32: new Uint32Array(f32.buffer) };
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Bytes [a, b) as a string (ASCII). */
export function ascii(buf: Uint8Array, a: number, b: number): string {
  let s = '';
  for (let i = a; i < b; i++) s += String.fromCharCode(buf[i] as number);
  return s;
}

/** `inf`, `infinity` or `nan` (any case) at p: the value, with `st.end` set; or undefined. */
function special(buf: Uint8Array, p: number, lim: number, st: ParseState): number | undefined {
  const lower = (i: number) => (p + i < lim ? (buf[p + i] as number) | 0x20 : 0);
  if (lower(0) === 0x6e && lower(1) === 0x61 && lower(2) === 0x6e) {
    st.end = p + 3;
    return Number.NaN;
  }
  if (lower(0) === 0x69 && lower(1) === 0x6e && lower(2) === 0x66) {
    const word = 'infinity';
    let k = 3;
    while (k < 8 && lower(k) === word.charCodeAt(k)) k++;
    st.end = p + (k === 8 ? 8 : 3);
    return Number.POSITIVE_INFINITY;
  }
  return undefined;
}

/**
 * The number at `buf[p..lim)` as a correctly rounded double; `st.end` is set to the offset after
 * it, or to -1 when there is no number there (the return value is then meaningless).
 */
export function parseDecimal(buf: Uint8Array, p0: number, lim: number, st: ParseState): number {
  let p = p0;
  let neg = false;
  let c = p < lim ? (buf[p] as number) : 0;
  if (c === 45) {
    neg = true;
    p++;
  } else if (c === 43) {
    p++;
  }
  const start = p;
  let m = 0;
  let digits = 0;
  let exp = 0;
  let any = false;
  let exact = true;
  for (; p < lim; p++) {
    const d = (buf[p] as number) - 48;
    if (d < 0 || d > 9) break;
    any = true;
    if (digits < 15) {
      if (m !== 0 || d !== 0) {
        m = m * 10 + d;
        digits++;
      }
    } else {
      exp++;
      if (d !== 0) exact = false;
    }
  }
  if (p < lim && buf[p] === 46) {
    p++;
    for (; p < lim; p++) {
      const d = (buf[p] as number) - 48;
      if (d < 0 || d > 9) break;
      any = true;
      if (digits < 15) {
        if (m !== 0 || d !== 0) {
          m = m * 10 + d;
          digits++;
        }
        exp--;
      } else if (d !== 0) {
        exact = false;
      }
    }
  }
  if (!any) {
    const v = p === start + 1 ? undefined : special(buf, start, lim, st); // "." alone is no number
    if (v === undefined) {
      st.end = -1;
      return 0;
    }
    return neg ? -v : v;
  }
  c = p < lim ? (buf[p] as number) : 0;
  if (c === 101 || c === 69) {
    let q = p + 1;
    let eneg = false;
    c = q < lim ? (buf[q] as number) : 0;
    if (c === 45) {
      eneg = true;
      q++;
    } else if (c === 43) {
      q++;
    }
    let e = 0;
    const eStart = q;
    for (; q < lim && isDigit(buf[q] as number); q++) if (e < 1e6) e = e * 10 + ((buf[q] as number) - 48);
    if (q === eStart) {
      st.end = -1;
      return 0;
    }
    exp += eneg ? -e : e;
    p = q;
  }
  st.end = p;
  let v: number;
  if (m === 0) v = 0;
  else if (exact && exp >= 0 && exp <= 22) v = m * (POW10[exp] as number);
  else if (exact && exp < 0 && exp >= -22) v = m / (POW10[-exp] as number);
  else if (exact && exp > 22 && exp - 22 + digits <= 15) v = m * (POW10[exp - 22] as number) * 1e22;
  else v = Number(ascii(buf, start, p));
  return neg ? -v : v;
}

/** Digits and power of ten of the decimal in [a, b) (validated syntax): value = digits · 10^exp. */
function decimalParts(buf: Uint8Array, a: number, b: number): { digits: bigint; exp: number } {
  let s = '';
  let exp = 0;
  let i = a;
  let frac = false;
  for (; i < b; i++) {
    const c = buf[i] as number;
    if (c === 46) frac = true;
    else if (isDigit(c)) {
      s += String.fromCharCode(c);
      if (frac) exp--;
    } else if (c === 101 || c === 69) break;
  }
  if (i < b) exp += Number(ascii(buf, i + 1, b));
  return { digits: BigInt(s === '' ? '0' : s), exp };
}

/** |d| as an integer times a power of two (d finite, non-zero). */
function binaryParts(d: number): { mant: bigint; exp: number } {
  let exp = 0;
  let x = Math.abs(d);
  while (!Number.isInteger(x)) {
    x *= 2;
    exp--;
  }
  return { mant: BigInt(x), exp };
}

/** Sign of |decimal in [a, b)| − |d|, exactly. */
function compareExact(buf: Uint8Array, a: number, b: number, d: number): number {
  const dec = decimalParts(buf, a, b);
  const bin = binaryParts(d);
  let lhs = dec.digits;
  let rhs = bin.mant;
  if (dec.exp >= 0) lhs *= 10n ** BigInt(dec.exp);
  else rhs *= 10n ** BigInt(-dec.exp);
  if (bin.exp >= 0) rhs *= 2n ** BigInt(bin.exp);
  else lhs *= 2n ** BigInt(-bin.exp);
  return lhs < rhs ? -1 : lhs > rhs ? 1 : 0;
}

/**
 * The float32 nearest to the decimal in `buf[a..b)` (without its sign), given `d`, its correctly
 * rounded double: `Math.fround(d)` unless `d` is exactly halfway between two float32 values, where
 * the decimal itself decides (ties to even only when it is exactly halfway too).
 */
export function float32Of(d: number, buf: Uint8Array, a: number, b: number, st: ParseState): number {
  const f = Math.fround(d);
  if (f === d || Number.isNaN(d)) return f;
  const ad = Math.abs(d);
  let lo: number;
  let hi: number;
  if (ad > FLOAT32_MAX) {
    if (ad !== FLOAT32_OVERFLOW) return f;
    lo = FLOAT32_MAX;
    hi = Number.POSITIVE_INFINITY;
  } else {
    const af = Math.abs(f);
    st.f32[0] = af;
    st.u32[0] = (st.u32[0] as number) + (ad > af ? 1 : -1);
    const other = st.f32[0] as number;
    if ((af + other) / 2 !== ad) return f;
    lo = Math.min(af, other);
    hi = Math.max(af, other);
  }
  const cmp = compareExact(buf, a, b, ad);
  if (cmp === 0) return f;
  const r = cmp > 0 ? hi : lo;
  return d < 0 ? -r : r;
}
