/**
 * Numbers of a LibSVM file as dmlc-core reads them. dmlc's LibSVM parser converts with its own
 * `dmlc::atof` (ParseFloat<float> in include/dmlc/strtonum.h), not the C library's, and it is not
 * correctly rounded: the integer part is accumulated in a uint64 (wrapping) and cast to float;
 * at most 19 fraction digits are read (the rest are ignored) as uint64 / 10^k in double, cast to
 * float and added in float; the exponent is clipped to 38 (values then clamp to 3.402823466 or
 * 1.175494351 times the scale) and applied by a float scale built from 1e8 and 10 steps. MXNet's
 * LibSVMIter gets exactly these float32 values, so this reproduces that arithmetic step by step
 * (float operations as `Math.fround` of the double result, which is exact for + − × ÷).
 *
 * Syntax is checked strictly here (dmlc reads whatever prefix it can): optional sign, digits with
 * an optional `.` (at least one digit), optional `e`/`E`, optional sign and at least one digit.
 */

const F = Math.fround;
const MAX_SIG = F(3.402823466);
const MIN_SIG = F(1.175494351);
const E8 = F(1e8);
const TWO64 = 2n ** 64n;

/** A uint64 (as a BigInt < 2^64) rounded to float32 once, to nearest even, as a C cast does. */
function uint64ToFloat(n: bigint): number {
  if (n < 2n ** 53n) return F(Number(n));
  const bits = n.toString(2).length;
  const drop = BigInt(bits - 24);
  let top = n >> drop;
  const rest = n - (top << drop);
  const half = 1n << (drop - 1n);
  if (rest > half || (rest === half && (top & 1n) === 1n)) top += 1n;
  return F(Number(top) * 2 ** Number(drop));
}

/** A uint64 rounded to double once (BigInt → Number is round-to-nearest-even). */
function uint64ToDouble(n: bigint): number {
  return Number(n);
}

/**
 * The float32 dmlc reads from `buf[p..q)`, or undefined when those bytes are not exactly one
 * number of the syntax above.
 */
export function dmlcFloat(buf: Uint8Array, p: number, q: number): number | undefined {
  let i = p;
  let neg = false;
  if (i < q && (buf[i] === 45 || buf[i] === 43)) {
    neg = buf[i] === 45;
    i++;
  }
  const digit = (k: number) => (k < q ? (buf[k] as number) - 48 : -1);
  // Integer part: uint64, wrapping like dmlc's accumulation.
  let small = 0;
  let big: bigint | undefined;
  let any = false;
  for (let d = digit(i); d >= 0 && d <= 9; d = digit(++i)) {
    any = true;
    if (big === undefined && small < 2 ** 48) small = small * 10 + d;
    else big = ((big ?? BigInt(small)) * 10n + BigInt(d)) % TWO64;
  }
  let value = big === undefined ? F(small) : uint64ToFloat(big);
  if (i < q && buf[i] === 46) {
    i++;
    let val2 = 0n;
    let pow10 = 1n;
    let count = 0;
    for (let d = digit(i); d >= 0 && d <= 9; d = digit(++i)) {
      any = true;
      if (count < 19) {
        val2 = val2 * 10n + BigInt(d);
        pow10 *= 10n;
      }
      count++;
    }
    value = F(value + F(uint64ToDouble(val2) / Number(pow10)));
  }
  if (!any) return undefined;
  if (i < q && (buf[i] === 101 || buf[i] === 69)) {
    i++;
    let frac = false;
    if (i < q && (buf[i] === 45 || buf[i] === 43)) {
      frac = buf[i] === 45;
      i++;
    }
    let expon = 0;
    const start = i;
    for (let d = digit(i); d >= 0 && d <= 9; d = digit(++i)) expon = (expon * 10 + d) % 2 ** 32;
    if (i === start) return undefined;
    if (expon > 38) expon = 38;
    if (expon === 38 && ((!frac && value > MAX_SIG) || (frac && value < MIN_SIG))) {
      value = frac ? MIN_SIG : MAX_SIG;
    }
    let scale = 1;
    while (expon >= 8) {
      scale = F(scale * E8);
      expon -= 8;
    }
    while (expon > 0) {
      scale = F(scale * 10);
      expon -= 1;
    }
    value = frac ? F(value / scale) : F(value * scale);
  }
  if (i !== q) return undefined;
  return neg ? -value : value;
}
