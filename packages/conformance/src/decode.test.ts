/** Golden JSON decoding: special floats, BigInt int64, bool, half precision, and malformed files. */
import { describe, expect, it } from 'vitest';
import { decodeArray, decodeCase } from './decode.js';
import { fromBFloat16Bits, fromFloat16Bits, toBFloat16Bits, toFloat16Bits } from './half.js';
import { listFamilies, loadCases } from './load.js';

describe('decoding golden cases', () => {
  it('decodes nan/inf strings, int64 as BigInt, bool as 0/1', () => {
    const f = decodeArray({ shape: [4], dtype: 'float32', data: [1.5, 'nan', 'inf', '-inf'] });
    expect(f.data).toBeInstanceOf(Float32Array);
    expect([...f.data]).toEqual([1.5, Number.NaN, Infinity, -Infinity]);
    const i = decodeArray({ shape: [2, 1], dtype: 'int64', data: [2 ** 40, -3] });
    expect(i.data).toBeInstanceOf(BigInt64Array);
    expect([...i.data]).toEqual([2n ** 40n, -3n]);
    const b = decodeArray({ shape: [3], dtype: 'bool', data: [1, 0, 1] });
    expect(b.data).toBeInstanceOf(Uint8Array);
    expect(b.dtype).toBe('bool');
    expect([...decodeArray({ shape: [], dtype: 'uint8', data: [255] }).data]).toEqual([255]);
  });

  it('stores float16/bfloat16 as bits, rounding to nearest even', () => {
    const h = decodeArray({ shape: [3], dtype: 'float16', data: [1, 65504, 'nan'] });
    expect([...h.data]).toEqual([0x3c00, 0x7bff, 0x7e00]);
    expect(toFloat16Bits(1 + 2 ** -11)).toBe(0x3c00); // tie → even
    expect(toFloat16Bits(1 + 3 * 2 ** -11)).toBe(0x3c02);
    expect(toFloat16Bits(2 ** -24)).toBe(1);
    expect(toFloat16Bits(-0)).toBe(0x8000);
    expect(toFloat16Bits(70000)).toBe(0x7c00);
    for (const v of [0.1, -2.5, 1000, 6e-5])
      expect(Math.abs(fromFloat16Bits(toFloat16Bits(v)) - v)).toBeLessThan(Math.abs(v) * 1e-3);
    expect(fromBFloat16Bits(toBFloat16Bits(3.140625))).toBe(3.140625);
    expect(toBFloat16Bits(1 + 2 ** -8)).toBe(0x3f80); // tie → even
  });

  it('rejects malformed arrays and cases with MXNetError', () => {
    expect(() => decodeArray({ shape: [3], dtype: 'float32', data: [1, 2] })).toThrow(
      '2 values for shape (3)',
    );
    expect(() => decodeArray({ shape: [1], dtype: 'float32', data: ['x'] })).toThrow('unexpected value');
    expect(() => decodeArray({ shape: [1], dtype: 'complex64', data: [1] })).toThrow('unknown dtype');
    expect(() => decodeCase('t', { name: 'n', op: 'x' })).toThrow('needs "outputs" or "error"');
  });

  it('loads the shipped families', () => {
    expect(listFamilies()).toContain('init');
    const init = loadCases('init');
    expect(init.length).toBeGreaterThan(200);
    const c = init.find((x) => x.name === '_full/float32/nan')!;
    expect(c).toMatchObject({ family: 'init', op: '_full', inputs: [] });
    expect(Number.isNaN(c.outputs![0]!.data[0] as number)).toBe(true);
    const e = init.find((x) => x.error !== undefined)!;
    expect(e.outputs).toBeUndefined();
    expect(loadCases().length).toBeGreaterThanOrEqual(init.length);
    expect(loadCases(['init']).length).toBe(init.length);
    expect(() => loadCases('nope')).toThrow("no golden cases for family 'nope'");
  });
});
