/**
 * float16 and bfloat16 bit conversions. JavaScript has no half types, so @mx stores both as uint16
 * bit patterns (see dtype.ts); these four functions are the one place that turns bits into numbers
 * and back, for every package (host conversions, printing, kernels that compute on the CPU).
 *
 * Rounding is round-to-nearest-even as NumPy's `astype`: a double rounds to float16 once, from the
 * double (no double rounding through float32); bfloat16 rounds from float32 as ml_dtypes does (a
 * double is first rounded to float32). NaN stays NaN (quiet), overflow goes to ±inf, -0 keeps its
 * sign. Checked against NumPy by tools/golden/base.py.
 */

const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);

/** Round-half-even of a non-negative double to an integer. */
function rne(m: number): number {
  const fl = Math.floor(m);
  const d = m - fl;
  if (d > 0.5 || (d === 0.5 && fl % 2 === 1)) return fl + 1;
  return fl;
}

/** float16 bits of `v`, rounded to nearest even (NumPy `np.float16(v).view(np.uint16)`). */
export function toHalfBits(v: number): number {
  const sign = v < 0 || Object.is(v, -0) ? 0x8000 : 0;
  const a = Math.abs(v);
  if (Number.isNaN(v)) return 0x7e00;
  if (a >= 65520) return sign | 0x7c00; // rounds to inf (the largest half is 65504)
  if (a < 2 ** -14) return sign | rne(a * 2 ** 24); // subnormal or zero: units of 2^-24
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  else if (2 ** (e + 1) <= a) e++;
  let m = rne(a * 2 ** (10 - e)); // in [1024, 2048]
  if (m === 2048) {
    m = 1024;
    e++;
  }
  if (e > 15) return sign | 0x7c00;
  return sign | ((e + 15) << 10) | (m - 1024);
}

/** The value of float16 bits `h`. */
export function fromHalfBits(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? Number.NaN : s * Number.POSITIVE_INFINITY;
  return s * (1024 + m) * 2 ** (e - 25);
}

/** bfloat16 bits of `v` (rounded to float32, then to nearest even on the top 16 bits). */
export function toBFloat16Bits(v: number): number {
  F32[0] = v;
  const b = U32[0] as number;
  if (Number.isNaN(v)) return ((b >>> 16) & 0x8000) | 0x7fc0;
  return ((b + 0x7fff + ((b >>> 16) & 1)) >>> 16) & 0xffff;
}

/** The value of bfloat16 bits `h` (the upper half of a float32). */
export function fromBFloat16Bits(h: number): number {
  U32[0] = (h & 0xffff) << 16;
  return F32[0] as number;
}
