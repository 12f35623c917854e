/**
 * The host quantize/dequantize functions against the NumPy transcription of MXNet's kernels
 * (tools/golden/kvstore/compression.py): packed bytes, residuals and dequantized values must be
 * equal bit for bit over several steps, for 2-bit and 1-bit, several thresholds (0.1 and 0.7 round
 * up and down in float32) and sizes around the word boundaries. Plus the size rule and bad sizes.
 */
import { MXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import golden from '../__golden__/compression.json' with { type: 'json' };
import {
  type CompressionType,
  compressedSize,
  dequantize,
  dequantize1Bit,
  dequantize2Bit,
  quantize,
  quantize1Bit,
  quantize2Bit,
} from './quantize.js';

interface Step {
  readonly grad: number[];
  readonly packed: number[];
  readonly residual: number[];
  readonly dequantized: number[];
}
interface Case {
  readonly type: CompressionType;
  readonly threshold: number;
  readonly size: number;
  readonly steps: Step[];
}

const cases = golden.cases as unknown as Case[];

/** Bit-exact float32 comparison (distinguishes -0 from 0 only via the bits). */
function bits(a: ArrayLike<number>): number[] {
  return Array.from(new Uint32Array(Float32Array.from(a).buffer));
}

describe('quantize / dequantize (MXNet gradient_compression-inl.h)', () => {
  it('covers both types, the edge thresholds and the word boundaries', () => {
    expect(new Set(cases.map((c) => `${c.type} ${c.threshold}`)).size).toBe(7);
    expect(cases.filter((c) => c.type === '1bit').map((c) => c.size)).toContain(33);
    expect(cases.filter((c) => c.type === '2bit').map((c) => c.size)).toContain(17);
  });

  it.each(cases.map((c) => [`${c.type} t=${c.threshold} n=${c.size}`, c] as const))(
    '%s: bytes, residuals and values equal the golden steps',
    (_name, c) => {
      const residual = new Float32Array(c.size);
      c.steps.forEach((s, k) => {
        const packed = quantize(c.type, Float32Array.from(s.grad), residual, c.threshold);
        expect(Array.from(packed), `step ${k} bytes`).toEqual(s.packed);
        expect(bits(residual), `step ${k} residual`).toEqual(bits(s.residual));
        const values = dequantize(c.type, packed, c.size, c.threshold);
        expect(bits(values), `step ${k} dequantized`).toEqual(bits(s.dequantized));
      });
    },
  );

  it('writes into given buffers and clears stale bits', () => {
    const c = cases.find((x) => x.type === '2bit' && x.size === 17) as Case;
    const s = c.steps[0] as Step;
    const out = new Uint8Array(4 * compressedSize(17, '2bit')).fill(0xff);
    const residual = new Float32Array(17);
    expect(quantize2Bit(Float32Array.from(s.grad), residual, c.threshold, out)).toBe(out);
    expect(Array.from(out)).toEqual(s.packed);
    const values = new Float32Array(17).fill(9);
    expect(dequantize2Bit(out, 17, c.threshold, values)).toBe(values);
    expect(bits(values)).toEqual(bits(s.dequantized));
    const one = new Uint8Array(4).fill(0xff);
    quantize1Bit(new Float32Array([-5, -5]), new Float32Array(2), 0.5, one);
    expect(Array.from(one)).toEqual([0, 0, 0, 0]);
    expect(Array.from(dequantize1Bit(one, 2))).toEqual([-1, -1]);
  });

  it('sizes the packed form as MXNet: ceil(n / 16) words for 2-bit, ceil(n / 32) for 1-bit', () => {
    expect([0, 1, 16, 17, 32, 33].map((n) => compressedSize(n, '2bit'))).toEqual([0, 1, 1, 2, 2, 3]);
    expect([0, 1, 32, 33, 64, 65].map((n) => compressedSize(n, '1bit'))).toEqual([0, 1, 1, 2, 2, 3]);
    expect(quantize2Bit(new Float32Array(0), new Float32Array(0), 0.5).length).toBe(0);
  });

  it('refuses mismatched residuals and buffers with an MXNetError', () => {
    expect(() => quantize2Bit(new Float32Array(3), new Float32Array(4), 0.5)).toThrow(
      /residual has 4 values/,
    );
    expect(() => quantize1Bit(new Float32Array(3), new Float32Array(3), 0.5, new Uint8Array(8))).toThrow(
      MXNetError,
    );
    expect(() => dequantize2Bit(new Uint8Array(4), 17, 0.5)).toThrow(/17 values need 8 packed bytes/);
    expect(() => dequantize1Bit(new Uint8Array(4), 3, new Float32Array(2))).toThrow(MXNetError);
  });
});
