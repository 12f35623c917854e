/**
 * Promotion is checked against NumPy itself (the golden table of tools/golden/np/promotion.py:
 * every pair through np.promote_types, every triple through np.result_type, NumPy 1.24.2 with
 * ml_dtypes 0.5.4 for bfloat16). Scalar cases cannot come from that NumPy (value-based for Python
 * scalars), so they are written by hand from NEP 50's table and MXNet 2.0's scalar-op rule.
 */
import { describe, expect, it } from 'vitest';
import golden from './__golden__/np-promotion.json' with { type: 'json' };
import { ALL_DTYPES, DType, type DTypeName } from './dtype.js';
import { type PromotionOperand, promoteTypes, resultType } from './dtype-promotion.js';
import { MXNetError } from './error.js';

const pairs = golden.pairs as Record<string, Record<string, string | null>>;
const triples = golden.triples as Record<string, string | null>;
const names = golden.dtypes as DTypeName[];

function thrown(f: () => unknown): MXNetError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(MXNetError);
    return e as MXNetError;
  }
  throw new Error('expected an MXNetError');
}

function permutations<T>(xs: readonly T[]): T[][] {
  if (xs.length <= 1) return [xs.slice()];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
}

describe('promoteTypes (np.promote_types)', () => {
  it('covers exactly the DType table', () => {
    expect([...names].sort()).toEqual(ALL_DTYPES.map((d) => d.name).sort());
    expect(golden.numpy).toBe('1.24.2');
  });

  it('matches NumPy for all 169 ordered pairs', () => {
    let checked = 0;
    for (const a of names) {
      for (const b of names) {
        const want = pairs[a]![b];
        if (want === null) {
          const e = thrown(() => promoteTypes(a, b));
          expect(e.dtypes).toEqual([a, b]);
          expect(e.message).toContain(`${a} and ${b} have no common dtype`);
        } else {
          expect(`${a}+${b}=${promoteTypes(a, b)}`).toBe(`${a}+${b}=${want}`);
        }
        checked++;
      }
    }
    expect(checked).toBe(169);
  });

  it('has no promotion exactly where NumPy (ml_dtypes) has none: bfloat16 with float16 and int16+', () => {
    const none = names.flatMap((a) => names.filter((b) => pairs[a]![b] === null).map((b) => `${a},${b}`));
    expect(none.sort()).toEqual(Object.keys(golden.errors).sort());
    expect(none).toContain('bfloat16,float16');
    expect(none).toHaveLength(14);
  });

  it('accepts DTypeInfo objects and aliases', () => {
    expect(promoteTypes(DType.int32, DType.float32)).toBe('float64');
    expect(promoteTypes('i8' as DTypeName, 'u8' as DTypeName)).toBe('float64');
  });

  it('rejects unknown dtypes with an MXNetError', () => {
    const e = thrown(() => promoteTypes('float128' as DTypeName, 'int8'));
    expect(e.op).toBe('promoteTypes');
    expect(e.message).toContain('"float128"');
    expect(e.hint).toContain('float32');
  });
});

describe('resultType over array dtypes (np.result_type)', () => {
  it('equals promoteTypes for two dtypes and is the dtype itself for one', () => {
    for (const a of names) {
      expect(resultType([a])).toBe(a);
      for (const b of names) {
        if (pairs[a]![b] !== null) expect(resultType([a, b])).toBe(pairs[a]![b]);
      }
    }
  });

  it('matches NumPy for every triple without bfloat16 (NumPy is not a left fold)', () => {
    // np.result_type(int8, uint16, float32) is float32 although promote(int8, uint16) is int32.
    expect(triples['int8,uint16,float32']).toBe('float32');
    let checked = 0;
    for (const [key, want] of Object.entries(triples)) {
      if (key.includes('bfloat16')) continue;
      const ops = key.split(',') as DTypeName[];
      expect(`${key}=${resultType(ops)}`).toBe(`${key}=${want}`);
      checked++;
    }
    expect(checked).toBe(12 ** 3);
  });

  it('with bfloat16: agrees with NumPy in every argument order, or refuses a pair NumPy cannot promote', () => {
    // NumPy's answer for bfloat16 triples depends on argument order (float32, bfloat16, int16 →
    // float32; float32, int16, bfloat16 → TypeError); @mx resolves a set only when every pair has
    // a promotion, so its answer never depends on order.
    let resolved = 0;
    let refused = 0;
    for (const key of Object.keys(triples)) {
      if (!key.includes('bfloat16')) continue;
      const ops = key.split(',') as DTypeName[];
      const badPair = ops.some((a) => ops.some((b) => pairs[a]![b] === null));
      if (badPair) {
        const e = thrown(() => resultType(ops));
        expect(e.op).toBe('resultType');
        expect(pairs[e.dtypes![0]!]![e.dtypes![1]!]).toBeNull();
        refused++;
      } else {
        const r = resultType(ops);
        for (const p of permutations(ops)) expect(triples[p.join(',')]).toBe(r);
        resolved++;
      }
    }
    expect(resolved + refused).toBe(13 ** 3 - 12 ** 3);
    expect(resolved).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });
});

describe('resultType with weak scalars', () => {
  // NEP 50 ("Promotion rules for Python scalars", numpy.org/neps/nep-0050-scalar-promotion.html),
  // table of "Expression / New result": Python int/float/bool do not widen a NumPy dtype of their
  // kind or a higher one; NumPy scalars and 0-d arrays are strong (here: dtypes).
  const nep50: [string, PromotionOperand[], DTypeName][] = [
    ['uint8(1) + 2', ['uint8', 2], 'uint8'],
    ['array([1], uint8) + int64(1)', ['uint8', 'int64'], 'int64'],
    ['array([1], uint8) + array(1, int64)', ['uint8', 'int64'], 'int64'],
    ['array([1.], float32) + float64(1.)', ['float32', 'float64'], 'float64'],
    ['array([1.], float32) + array(1., float64)', ['float32', 'float64'], 'float64'],
    ['array([1], uint8) + 1', ['uint8', 1], 'uint8'],
    ['array([1], uint8) + 200', ['uint8', 200], 'uint8'],
    ['array([100], uint8) + 200', ['uint8', 200], 'uint8'],
    ['uint8(100) + 200', ['uint8', 200], 'uint8'],
    ['float32(1) + 3e100', ['float32', 3e100], 'float32'],
    ['array([1.0], float32) + 1e-14', ['float32', 1e-14], 'float32'],
    ['array(1.0, float32) + 1e-14', ['float32', 1e-14], 'float32'],
    ['array([1.], float32) + 3', ['float32', 3], 'float32'],
    ['float16 array + 1e10 (stays float16: weak)', ['float16', 1e10], 'float16'],
    ['int8 array + True', ['int8', true], 'int8'],
    ['bool array + True', ['bool', true], 'bool'],
    // NEP 50's rule for a Python int with a NumPy bool: the default integer (int64 on Linux);
    // MXNet 2.0's NumpyBinaryScalarType: bool input, is_int → kInt64.
    ['array([True]) + 1', ['bool', 1], 'int64'],
  ];
  for (const [expr, ops, want] of nep50) {
    it(`${expr} → ${want}`, () => expect(resultType(ops)).toBe(want));
  }

  it('a float scalar with bool/int arrays gives float64 (MXNet 2.0 NumpyBinaryScalarType, NEP 50)', () => {
    for (const a of ['bool', 'int8', 'uint8', 'int32', 'int64', 'uint64'] as const) {
      expect(resultType([a, 0.5])).toBe('float64');
      expect(resultType([a, 0.5], { defaultFloat: 'float32' })).toBe('float64');
      expect(resultType([a, { weak: 'float' }])).toBe('float64');
    }
    for (const a of ['float16', 'bfloat16', 'float32', 'float64'] as const) {
      expect(resultType([a, 0.5], { defaultFloat: 'float64' })).toBe(a);
    }
  });

  it('reads JS numbers: integers are int scalars, fractions/NaN/Infinity float, bigint int', () => {
    expect(resultType(['int16', 2.0])).toBe('int16');
    expect(resultType(['int16', Number.NaN])).toBe('float64');
    expect(resultType(['int16', Number.POSITIVE_INFINITY])).toBe('float64');
    expect(resultType(['bool', 5n])).toBe('int64');
    expect(resultType(['int16', { weak: 'int' }])).toBe('int16');
  });

  it('arrays promote first, then the highest scalar kind applies', () => {
    expect(resultType(['int8', 'uint8', 1, 0.5])).toBe('float64');
    expect(resultType([1, 'int8', true, 'uint8'])).toBe('int16');
    expect(resultType(['bool', 'bool', 1])).toBe('int64');
  });

  it('scalars alone take their default dtypes', () => {
    expect(resultType([true, false])).toBe('bool');
    expect(resultType([true, 3])).toBe('int64');
    expect(resultType([3, 0.5])).toBe('float32');
    expect(resultType([3, 0.5], { defaultFloat: 'float64' })).toBe('float64');
  });

  it('weakScalars: false makes scalars strong (bool, int64, default float)', () => {
    expect(resultType(['int8', 3], { weakScalars: false })).toBe('int64');
    expect(resultType(['float16', 0.5], { weakScalars: false })).toBe('float32');
    expect(resultType(['int32', 0.5], { weakScalars: false })).toBe('float64');
  });
});

describe('resultType bad input', () => {
  it('refuses no operands, unknown dtypes, bad options and unknown scalar kinds', () => {
    expect(thrown(() => resultType([])).message).toContain('at least one operand');
    const unknown = thrown(() => resultType(['int8', 'complex64' as DTypeName]));
    expect(unknown.op).toBe('resultType');
    expect(unknown.message).toContain('"complex64"');
    const opt = thrown(() => resultType(['int8'], { defaultFloat: 'float16' as 'float32' }));
    expect(opt.params).toEqual({ defaultFloat: 'float16' });
    expect(thrown(() => resultType([{ weak: 'complex' as 'int' }])).message).toContain('"complex"');
  });

  it('names both dtypes when a pair has no promotion, also with scalars present', () => {
    const e = thrown(() => resultType(['bfloat16', 1, 'int32']));
    expect(e.dtypes).toEqual(['bfloat16', 'int32']);
    expect(e.message).toContain('bfloat16 and int32 have no common dtype');
    expect(e.hint).toContain('astype');
  });
});
