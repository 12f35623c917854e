import { describe, expect, it } from 'vitest';
import golden from './__golden__/base.json' with { type: 'json' };
import { ALL_DTYPES, DType, dtype, dtypeFromFlag, isFloatDType, isIntegerDType } from './dtype.js';
import { MXNetError } from './error.js';

describe('DType', () => {
  it("has MXNet's type flags (mshadow::TypeFlag)", () => {
    const flags = Object.fromEntries(ALL_DTYPES.map((d) => [d.name, d.flag]));
    expect(flags).toEqual({
      float32: 0,
      float64: 1,
      float16: 2,
      uint8: 3,
      int32: 4,
      int8: 5,
      int64: 6,
      bool: 7,
      int16: 8,
      uint16: 9,
      uint32: 10,
      uint64: 11,
      bfloat16: 12,
    });
    for (const d of ALL_DTYPES) expect(dtypeFromFlag(d.flag)).toBe(d);
  });

  it("matches NumPy's itemsize, kind and descriptor", () => {
    for (const [name, np] of Object.entries(golden.dtypes)) {
      const d = dtype(name);
      expect({ itemsize: d.bytes, kind: d.kind, str: d.descr }).toEqual(np);
    }
    expect(DType.bfloat16.bytes).toBe(2);
    expect(DType.bfloat16.descr).toBeUndefined();
  });

  it('stores every dtype in a typed array of its byte size', () => {
    for (const d of ALL_DTYPES) expect(d.storage.BYTES_PER_ELEMENT).toBe(d.bytes);
    expect(new DType.int64.storage(2)).toBeInstanceOf(BigInt64Array);
    expect(DType.int64.bigint && DType.uint64.bigint).toBe(true);
    expect(DType.float64.bigint || DType.int32.bigint).toBe(false);
  });

  it('resolves names, NumPy aliases, descriptors and flags', () => {
    expect(dtype('float')).toBe(DType.float32);
    expect(dtype('<f8')).toBe(DType.float64);
    expect(dtype('bool_')).toBe(DType.bool);
    expect(dtype('|b1')).toBe(DType.bool);
    expect(dtype(4)).toBe(DType.int32);
    expect(dtype(DType.uint16)).toBe(DType.uint16);
    expect(isFloatDType(DType.bfloat16) && isIntegerDType(DType.uint8)).toBe(true);
    expect(isIntegerDType(DType.bool)).toBe(false);
  });

  it('rejects unknown dtypes and flags with MXNetError listing the valid ones', () => {
    expect(() => dtype('complex64')).toThrow(MXNetError);
    expect(() => dtype('complex64')).toThrow(/float32, float64/);
    expect(() => dtypeFromFlag(13)).toThrow(/unknown MXNet dtype flag 13/);
    expect(() => dtypeFromFlag(-1)).toThrow(MXNetError);
  });
});
