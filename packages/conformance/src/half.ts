/**
 * float16 and bfloat16 <-> number conversions for golden data. Both are stored as raw 16-bit
 * patterns (Uint16Array, as @mx/base stores them); JSON holds their values as floats. Encoding
 * rounds to nearest, ties to even, as NumPy's `astype(float16)` does.
 */

/** The float16 bit pattern nearest to `v`. */
export function toFloat16Bits(v: number): number {
  if (Number.isNaN(v)) return 0x7e00;
  const sign = v < 0 || Object.is(v, -0) ? 0x8000 : 0;
  const a = Math.abs(v);
  if (a >= 65520) return sign | 0x7c00; // rounds to infinity
  if (a < 2 ** -25) return sign; // rounds to zero (ties to even at exactly 2^-25)
  if (a < 2 ** -14) {
    // subnormal: units of 2^-24
    const m = roundHalfEven(a / 2 ** -24);
    return sign | m;
  }
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e -= 1;
  if (2 ** (e + 1) <= a) e += 1;
  let m = roundHalfEven((a / 2 ** e - 1) * 1024);
  if (m === 1024) {
    m = 0;
    e += 1;
  }
  if (e > 15) return sign | 0x7c00;
  return sign | ((e + 15) << 10) | m;
}

function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/** The value of a float16 bit pattern. */
export function fromFloat16Bits(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const e = (bits >> 10) & 0x1f;
  const m = bits & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 31) return m === 0 ? sign * Number.POSITIVE_INFINITY : Number.NaN;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}

/** The bfloat16 bit pattern nearest to `v` (the top half of its float32, rounded ties-to-even). */
export function toBFloat16Bits(v: number): number {
  const u = new Uint32Array(new Float32Array([v]).buffer)[0] as number;
  if (Number.isNaN(v)) return ((u >>> 16) | 0x40) & 0xffff;
  const lsb = (u >>> 16) & 1;
  return ((u + 0x7fff + lsb) >>> 16) & 0xffff;
}

/** The value of a bfloat16 bit pattern. */
export function fromBFloat16Bits(bits: number): number {
  return new Float32Array(new Uint32Array([(bits & 0xffff) << 16]).buffer)[0] as number;
}
