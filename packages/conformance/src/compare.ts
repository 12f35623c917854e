/**
 * `compareArrays`: NumPy `allclose` semantics for golden comparisons, with a report a person can
 * act on (where the first mismatches are, actual vs expected, and the error against the bound).
 *
 * Rules (numpy.isclose with equal_nan=True): |a - e| <= atol + rtol * |e|; NaN equals NaN only
 * when both are NaN; infinities are equal only to the same infinity. int64/uint64 values compare
 * exactly as BigInt when both tolerances are 0 (the default for integer dtypes), else as numbers.
 * float16/bfloat16 bit patterns are decoded first. Shapes and dtypes must match exactly.
 */
import type { DTypeName, StorageArray } from '@mx/base';
import { fromBFloat16Bits, fromFloat16Bits } from './half.js';
import type { CaseArray } from './types.js';

/** One element that is not close. */
export interface Mismatch {
  /** Flat row-major index. */
  readonly flat: number;
  /** Multi-dimensional index. */
  readonly index: readonly number[];
  readonly actual: number | bigint;
  readonly expected: number | bigint;
}

export interface CompareResult {
  readonly ok: boolean;
  /** Number of elements that are not close (0 when shapes or dtypes differ). */
  readonly mismatchCount: number;
  /** The first mismatches (at most `maxReported`). */
  readonly mismatches: readonly Mismatch[];
  /** Empty when ok; otherwise what differs, in one or a few lines. */
  readonly message: string;
}

export interface CompareOptions {
  /** How many mismatches to list; default 5. */
  readonly maxReported?: number;
}

/** An array to compare: a CaseArray, or any {shape, dtype, data} with the same layout. */
export type ComparableArray = Pick<CaseArray, 'shape' | 'dtype' | 'data'>;

function valueAt(dtype: DTypeName, data: StorageArray, i: number): number | bigint {
  const v = (data as unknown as ArrayLike<number | bigint>)[i] as number | bigint;
  if (dtype === 'float16') return fromFloat16Bits(v as number);
  if (dtype === 'bfloat16') return fromBFloat16Bits(v as number);
  if (dtype === 'bool') return v ? 1 : 0;
  return v;
}

/** numpy.isclose(a, e, rtol, atol, equal_nan=True) for one pair. */
export function isClose(a: number | bigint, e: number | bigint, rtol: number, atol: number): boolean {
  if (typeof a === 'bigint' && typeof e === 'bigint' && rtol === 0 && atol === 0) return a === e;
  const x = Number(a);
  const y = Number(e);
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) && Number.isNaN(y);
  if (!Number.isFinite(x) || !Number.isFinite(y)) return x === y;
  return Math.abs(x - y) <= atol + rtol * Math.abs(y);
}

function unravel(flat: number, shape: readonly number[]): number[] {
  const idx = new Array<number>(shape.length).fill(0);
  let r = flat;
  for (let d = shape.length - 1; d >= 0; d--) {
    const n = shape[d] as number;
    idx[d] = r % n;
    r = Math.floor(r / n);
  }
  return idx;
}

function fmt(v: number | bigint): string {
  return typeof v === 'bigint' ? `${v}` : String(Number(v.toPrecision(9)));
}

const shapeText = (s: readonly number[]): string => (s.length === 1 ? `(${s[0]},)` : `(${s.join(', ')})`);

/**
 * Compare `actual` with `expected` under NumPy allclose semantics. Returns ok, how many elements
 * differ and a message listing the first ones.
 */
export function compareArrays(
  actual: ComparableArray,
  expected: ComparableArray,
  rtol: number,
  atol: number,
  options: CompareOptions = {},
): CompareResult {
  const max = options.maxReported ?? 5;
  if (actual.dtype !== expected.dtype) {
    return {
      ok: false,
      mismatchCount: 0,
      mismatches: [],
      message: `dtype ${actual.dtype}, expected ${expected.dtype}`,
    };
  }
  const sameShape =
    actual.shape.length === expected.shape.length && actual.shape.every((d, i) => d === expected.shape[i]);
  if (!sameShape) {
    return {
      ok: false,
      mismatchCount: 0,
      mismatches: [],
      message: `shape ${shapeText(actual.shape)}, expected ${shapeText(expected.shape)}`,
    };
  }
  const n = expected.data.length;
  if (actual.data.length !== n) {
    return {
      ok: false,
      mismatchCount: 0,
      mismatches: [],
      message: `${actual.data.length} values, expected ${n} for shape ${shapeText(expected.shape)}`,
    };
  }
  const mismatches: Mismatch[] = [];
  let count = 0;
  for (let i = 0; i < n; i++) {
    const a = valueAt(actual.dtype, actual.data, i);
    const e = valueAt(expected.dtype, expected.data, i);
    if (isClose(a, e, rtol, atol)) continue;
    count++;
    if (mismatches.length < max)
      mismatches.push({ flat: i, index: unravel(i, expected.shape), actual: a, expected: e });
  }
  if (count === 0) return { ok: true, mismatchCount: 0, mismatches, message: '' };
  const lines = mismatches.map((m) => {
    const err = Math.abs(Number(m.actual) - Number(m.expected));
    const bound = atol + rtol * Math.abs(Number(m.expected));
    return `  at [${m.index.join(', ')}]: ${fmt(m.actual)} vs expected ${fmt(m.expected)} (|diff| ${fmt(err)} > ${fmt(bound)})`;
  });
  const head = `${count} of ${n} elements differ (rtol=${rtol}, atol=${atol}, dtype ${expected.dtype}, shape ${shapeText(expected.shape)})`;
  return { ok: false, mismatchCount: count, mismatches, message: [head, ...lines].join('\n') };
}
