import { describe, expect, it } from 'vitest';
import golden from './__golden__/base.json' with { type: 'json' };
import { fromBFloat16Bits, fromHalfBits, toBFloat16Bits, toHalfBits } from './half.js';

const num = (v: number | string): number =>
  v === 'inf' ? Number.POSITIVE_INFINITY : v === '-inf' ? Number.NEGATIVE_INFINITY : (v as number);
const { half } = golden;

describe('float16 and bfloat16 bits (golden data from NumPy)', () => {
  it("round doubles to float16 as NumPy's astype does", () => {
    expect(half.values.map((v) => toHalfBits(num(v)))).toEqual(half.toHalf);
  });

  it('decode float16 bit patterns', () => {
    expect(half.bits.map(fromHalfBits)).toEqual(half.fromHalf.map(num));
  });

  it('round to bfloat16 through float32, half to even', () => {
    expect(half.values.map((v) => toBFloat16Bits(num(v)))).toEqual(half.toBFloat16);
  });

  it('decode bfloat16 bit patterns', () => {
    expect(half.bits.map(fromBFloat16Bits)).toEqual(half.fromBFloat16.map(num));
  });

  it('keep NaN a quiet NaN and the sign of zero', () => {
    expect(fromHalfBits(toHalfBits(Number.NaN))).toBeNaN();
    expect(fromBFloat16Bits(toBFloat16Bits(Number.NaN))).toBeNaN();
    expect(Object.is(fromHalfBits(toHalfBits(-0)), -0)).toBe(true);
    expect(Object.is(fromBFloat16Bits(toBFloat16Bits(-0)), -0)).toBe(true);
  });
});
