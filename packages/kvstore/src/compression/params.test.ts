/**
 * Compression settings: MXNet's checks and messages (`SetParams`), the float32 threshold, and the
 * `EncodeParams` string a distributed store sends to servers ("2,0.500000"), decoded back.
 */
import { MXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { GradientCompression, type GradientCompressionParams } from './params.js';

describe('GradientCompression', () => {
  it('defaults the threshold to 0.5 and keeps it as a float32', () => {
    const two = GradientCompression.fromParams({ type: '2bit' });
    expect([two.type, two.threshold]).toEqual(['2bit', 0.5]);
    expect(GradientCompression.fromParams({ type: '1bit', threshold: 0.1 }).threshold).toBe(Math.fround(0.1));
    expect(GradientCompression.fromParams({ type: '1bit', threshold: 0 }).threshold).toBe(0);
  });

  it("refuses MXNet's bad settings with MXNet's messages", () => {
    const bad = (p: unknown) => () => GradientCompression.fromParams(p as GradientCompressionParams);
    expect(bad({ type: '3bit' })).toThrow(/Unknown type for gradient compression 3bit/);
    expect(bad({ threshold: 0.5 })).toThrow(/Required parameter type/);
    expect(bad({ type: '2bit', threshold: 0 })).toThrow(
      /threshold must be greater than 0 for two bit compression/,
    );
    expect(bad({ type: '2bit', threshold: -1 })).toThrow(MXNetError);
    expect(bad({ type: '2bit', threshold: Number.NaN })).toThrow(/finite number/);
    expect(bad({ type: '2bit', threshold: '0.5' })).toThrow(/finite number/);
    expect(bad(null)).toThrow(MXNetError);
  });

  it('encodes as MXNet EncodeParams and decodes back', () => {
    expect(GradientCompression.fromParams({ type: '2bit', threshold: 0.5 }).encode()).toBe('2,0.500000');
    expect(GradientCompression.fromParams({ type: '1bit', threshold: 1.25 }).encode()).toBe('1,1.250000');
    const d = GradientCompression.decode('2,0.250000');
    expect([d?.type, d?.threshold]).toEqual(['2bit', 0.25]);
    expect(GradientCompression.decode('0')).toBeUndefined();
    expect(GradientCompression.decode('1')?.threshold).toBe(0.5);
    expect(() => GradientCompression.decode('7,0.5')).toThrow(/cannot decode/);
    expect(() => GradientCompression.decode('2,abc')).toThrow(MXNetError);
  });

  it('compares settings by type and threshold', () => {
    const a = GradientCompression.fromParams({ type: '2bit', threshold: 0.5 });
    expect(a.equals(GradientCompression.fromParams({ type: '2bit' }))).toBe(true);
    expect(a.equals(GradientCompression.fromParams({ type: '1bit' }))).toBe(false);
    expect(a.equals(undefined)).toBe(false);
  });
});
