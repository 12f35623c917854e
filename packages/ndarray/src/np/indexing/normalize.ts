/**
 * Index normalisation: the user's index → one entry per source axis (plus new axes), with NumPy's
 * checks in NumPy's order, so the first error reported is the one NumPy reports (the recorded
 * cases pin it). Pass 1 walks the key: unknown items, non-integer arrays, a second ellipsis; then
 * "too many indices"; pass 2 walks the expanded key: integer bounds, boolean shapes, zero steps.
 * Array values are not looked at here (the planner checks them where the caller has them).
 */
import {
  ellipsis,
  INDEX_INT_DTYPES,
  INVALID_INDEX_MESSAGE,
  type Index,
  type IndexArray,
  type IndexItem,
  indexArrayFromNested,
  indexError,
  isIndexArray,
  isSliceIndex,
  type NestedIndexList,
  type SliceIndex,
} from './types.js';

/** One entry of a normalised key. `keyPosition` is the entry's place in the user's tuple. */
export type NormItem =
  | { readonly kind: 'int'; readonly axis: number; readonly value: number; readonly keyPosition: number }
  | {
      readonly kind: 'slice';
      readonly axis: number;
      /** Python's `slice.indices(n)` start and step, and the number of elements. */
      readonly start: number;
      readonly step: number;
      readonly length: number;
      /** `0:n:1`, or from an ellipsis / implicit trailing axes (keyPosition -1 when implicit). */
      readonly full: boolean;
      readonly keyPosition: number;
    }
  | { readonly kind: 'newaxis'; readonly keyPosition: number }
  /** An integer index array (uses one axis). */
  | {
      readonly kind: 'array';
      readonly axis: number;
      readonly array: IndexArray;
      readonly keyPosition: number;
    }
  /** A boolean index array (uses `array.shape.length` axes; 0 for a scalar boolean). */
  | {
      readonly kind: 'bool';
      readonly axis: number;
      readonly array: IndexArray;
      readonly keyPosition: number;
    };

export interface NormalizedKey {
  readonly shape: readonly number[];
  readonly items: readonly NormItem[];
  /** Whether the user's index was a tuple (a JS array) rather than one item. */
  readonly tuple: boolean;
}

type Classified =
  | { kind: 'int'; value: number }
  | { kind: 'slice'; slice: SliceIndex }
  | { kind: 'newaxis' }
  | { kind: 'ellipsis' }
  | { kind: 'array'; array: IndexArray }
  | { kind: 'bool'; array: IndexArray };

function toNumber(v: number | bigint | boolean): number {
  return typeof v === 'number' ? v : Number(v);
}

function classify(item: IndexItem, shape: readonly number[]): Classified {
  if (item === null) return { kind: 'newaxis' };
  if (item === ellipsis) return { kind: 'ellipsis' };
  if (typeof item === 'boolean')
    return { kind: 'bool', array: { kind: 'array', shape: [], dtype: 'bool', values: [item] } };
  if (typeof item === 'number') {
    if (!Number.isInteger(item)) throw indexError(INVALID_INDEX_MESSAGE, shape);
    return { kind: 'int', value: item };
  }
  if (typeof item === 'bigint') return { kind: 'int', value: Number(item) };
  if (isSliceIndex(item)) {
    for (const part of [item.start, item.stop, item.step])
      if (part !== null && !Number.isInteger(part))
        throw indexError(
          'slice indices must be integers or None or have an __index__ method',
          shape,
          'TypeError',
        );
    return { kind: 'slice', slice: item };
  }
  const array = Array.isArray(item)
    ? indexArrayFromNested(item as NestedIndexList, shape)
    : isIndexArray(item)
      ? item
      : null;
  if (array === null) throw indexError(INVALID_INDEX_MESSAGE, shape);
  if (array.dtype === 'bool') return { kind: 'bool', array };
  if (!INDEX_INT_DTYPES.has(array.dtype))
    throw indexError(
      'arrays used as indices must be of integer (or boolean) type',
      shape,
      'IndexError',
      `got ${array.dtype}`,
    );
  // A 0-d integer array whose value is known is an integer (MXNet 2.0 converts it with item()).
  if (array.shape.length === 0 && array.values !== undefined && array.values.length === 1)
    return { kind: 'int', value: toNumber(array.values[0] as number) };
  return { kind: 'array', array };
}

/** Python's `slice(start, stop, step).indices(n)` and the number of elements it selects. */
export function sliceIndices(
  slice: SliceIndex,
  n: number,
): { readonly start: number; readonly step: number; readonly length: number } {
  const step = slice.step ?? 1;
  let start: number;
  let stop: number;
  if (step > 0) {
    start =
      slice.start === null ? 0 : slice.start < 0 ? Math.max(slice.start + n, 0) : Math.min(slice.start, n);
    stop = slice.stop === null ? n : slice.stop < 0 ? Math.max(slice.stop + n, 0) : Math.min(slice.stop, n);
  } else {
    start =
      slice.start === null
        ? n - 1
        : slice.start < 0
          ? Math.max(slice.start + n, -1)
          : Math.min(slice.start, n - 1);
    stop =
      slice.stop === null ? -1 : slice.stop < 0 ? Math.max(slice.stop + n, -1) : Math.min(slice.stop, n - 1);
  }
  const length =
    step > 0 ? Math.max(0, Math.ceil((stop - start) / step)) : Math.max(0, Math.ceil((start - stop) / -step));
  return { start, step, length };
}

function fullSlice(axis: number, n: number, keyPosition: number): NormItem {
  return { kind: 'slice', axis, start: 0, step: 1, length: n, full: true, keyPosition };
}

/**
 * Normalises `index` for an array of `shape`: every source axis gets exactly one int, slice or
 * array entry (booleans cover as many axes as they have dimensions), new axes stay in place.
 * Throws MXNetError with NumPy's message (and `numpyType`) for bad indices.
 */
export function normalizeIndex(shape: readonly number[], index: Index): NormalizedKey {
  const tuple = Array.isArray(index);
  const raw: readonly IndexItem[] = tuple ? (index as readonly IndexItem[]) : [index as IndexItem];
  const ndim = shape.length;

  // Pass 1: what each item is; a second ellipsis; then the number of axes used.
  const classified: Classified[] = [];
  let ellipsisAt = -1;
  let used = 0;
  raw.forEach((item, pos) => {
    const c = classify(item, shape);
    if (c.kind === 'ellipsis') {
      if (ellipsisAt >= 0) throw indexError("an index can only have a single ellipsis ('...')", shape);
      ellipsisAt = pos;
    }
    if (c.kind === 'int' || c.kind === 'slice' || c.kind === 'array') used += 1;
    if (c.kind === 'bool') used += c.array.shape.length;
    classified.push(c);
  });
  if (used > ndim)
    throw indexError(
      `too many indices for array: array is ${ndim}-dimensional, but ${used} were indexed`,
      shape,
    );

  // Pass 2: expand the ellipsis (or the implicit trailing one) and check each entry in order.
  const items: NormItem[] = [];
  let axis = 0;
  const expand = (keyPosition: number) => {
    for (let k = 0; k < ndim - used; k++, axis++)
      items.push(fullSlice(axis, shape[axis] as number, keyPosition));
  };
  classified.forEach((c, keyPosition) => {
    const n = shape[axis] as number;
    switch (c.kind) {
      case 'ellipsis':
        expand(keyPosition);
        return;
      case 'newaxis':
        items.push({ kind: 'newaxis', keyPosition });
        return;
      case 'int':
        if (c.value < -n || c.value >= n)
          throw indexError(`index ${c.value} is out of bounds for axis ${axis} with size ${n}`, shape);
        items.push({ kind: 'int', axis, value: c.value < 0 ? c.value + n : c.value, keyPosition });
        axis += 1;
        return;
      case 'slice': {
        if (c.slice.step === 0) throw indexError('slice step cannot be zero', shape, 'ValueError');
        const r = sliceIndices(c.slice, n);
        const full = r.start === 0 && r.step === 1 && r.length === n;
        items.push({ kind: 'slice', axis, ...r, full, keyPosition });
        axis += 1;
        return;
      }
      case 'array':
        items.push({ kind: 'array', axis, array: c.array, keyPosition });
        axis += 1;
        return;
      case 'bool': {
        const dims = c.array.shape;
        dims.forEach((d, j) => {
          const m = shape[axis + j] as number;
          if (d !== m)
            throw indexError(
              `boolean index did not match indexed array along dimension ${axis + j}; dimension is ${m} but corresponding boolean dimension is ${d}`,
              shape,
            );
        });
        items.push({ kind: 'bool', axis, array: c.array, keyPosition });
        axis += dims.length;
        return;
      }
    }
  });
  if (ellipsisAt < 0) expand(-1);
  return { shape, items, tuple };
}

/** Number of true elements of a boolean index array (from `values`, else `count`), or null. */
export function trueCount(array: IndexArray): number | null {
  if (array.values !== undefined) {
    let count = 0;
    for (let i = 0; i < array.values.length; i++) if (array.values[i]) count += 1;
    return count;
  }
  return array.count ?? null;
}

/** The integer values of an index array as numbers (booleans as 0/1), or null without values. */
export function arrayNumbers(array: IndexArray): number[] | null {
  if (array.values === undefined) return null;
  return Array.from(array.values, (v) => toNumber(v));
}
