/**
 * Conversions between JavaScript values and flat typed arrays: nested arrays to (shape, data) for
 * `nd.array`, and flat data back to nested arrays for `x.array()`. Values are converted the way
 * NumPy's `np.array(values, dtype)` does for the common cases: booleans become 0/1, numbers are
 * truncated toward zero and wrapped for integer dtypes (typed-array semantics), int64/uint64 accept
 * numbers and bigints, float16/bfloat16 (stored as bit patterns) are rounded to nearest even on the
 * way in and decoded on the way out.
 */
import {
  DType,
  type DTypeName,
  fromBFloat16Bits,
  fromHalfBits,
  MXNetError,
  type StorageArray,
  toBFloat16Bits,
  toHalfBits,
} from '@mx/base';

/** A nested JS array (or a scalar) of numbers, bigints or booleans. */
export type NestedArray = number | bigint | boolean | readonly NestedArray[];

/** The shape of a nested array; ragged input is an MXNetError. */
export function nestedShape(value: NestedArray, op = 'nd.array'): number[] {
  const shape: number[] = [];
  let v: NestedArray = value;
  while (Array.isArray(v)) {
    shape.push(v.length);
    if (v.length === 0) break;
    v = v[0] as NestedArray;
  }
  const check = (x: NestedArray, depth: number): void => {
    if (depth === shape.length) {
      if (Array.isArray(x)) throw ragged();
      return;
    }
    if (!Array.isArray(x) || x.length !== shape[depth]) throw ragged();
    for (const y of x as readonly NestedArray[]) check(y, depth + 1);
  };
  const ragged = () =>
    new MXNetError('nested array is ragged (rows of different lengths)', {
      op,
      hint: 'every row at one depth must have the same length',
    });
  check(value, 0);
  return shape;
}

/** Flatten a nested array into a new typed array of `dtype`. */
export function flattenNested(value: NestedArray, dtype: DTypeName, size: number): StorageArray {
  const info = DType[dtype];
  const out = new info.storage(size);
  let i = 0;
  const put = info.bigint
    ? (x: number | bigint | boolean) => {
        (out as BigInt64Array)[i++] = typeof x === 'bigint' ? x : BigInt(Math.trunc(Number(x)));
      }
    : dtype === 'float16' || dtype === 'bfloat16'
      ? (x: number | bigint | boolean) => {
          // Stored as bit patterns: round the value the way NumPy's astype does.
          (out as Uint16Array)[i++] = (dtype === 'float16' ? toHalfBits : toBFloat16Bits)(Number(x));
        }
      : (x: number | bigint | boolean) => {
          (out as Float64Array)[i++] = Number(x);
        };
  const walk = (x: NestedArray): void => {
    if (Array.isArray(x)) for (const y of x as readonly NestedArray[]) walk(y);
    else put(x as number | bigint | boolean);
  };
  walk(value);
  return out;
}

/** Copy any array-like of numbers/bigints into a new typed array of `dtype`. */
export function toStorage(values: ArrayLike<number | bigint | boolean>, dtype: DTypeName): StorageArray {
  const info = DType[dtype];
  if (values instanceof info.storage) return (values as StorageArray).slice();
  return flattenNested(Array.from(values as ArrayLike<number>), dtype, values.length);
}

/** Rebuild a nested JS array from flat row-major data (a scalar for shape []). */
export function toNested(data: StorageArray, shape: readonly number[], dtype: DTypeName): NestedArray {
  const isBool = dtype === 'bool';
  const decode = dtype === 'float16' ? fromHalfBits : dtype === 'bfloat16' ? fromBFloat16Bits : undefined;
  const get = (i: number): number | bigint | boolean => {
    const v = data[i] as number | bigint;
    return isBool ? v !== 0 : decode !== undefined ? decode(v as number) : v;
  };
  if (shape.length === 0) return get(0);
  let offset = 0;
  const build = (depth: number): NestedArray[] => {
    const n = shape[depth] as number;
    const out: NestedArray[] = new Array(n);
    if (depth === shape.length - 1) {
      for (let j = 0; j < n; j++) out[j] = get(offset++);
    } else {
      for (let j = 0; j < n; j++) out[j] = build(depth + 1);
    }
    return out;
  };
  return build(0);
}
