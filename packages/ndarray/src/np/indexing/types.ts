/**
 * The index forms of `x.get(index)` / `x.set(index, value)` (docs/design/np.md, "Indexing"), at the
 * pure level: no NDArray here, so the planner and the reference indexer can be tested against
 * recorded NumPy results without a backend. An index array is described by shape + dtype (+ its
 * values when the caller has them on the host: JS nested arrays, or tests); the np layer builds
 * these descriptors from its ndarrays. A top-level JS array is a tuple (NumPy's `x[a, b]`); a JS
 * array *inside* a tuple is an index array (NumPy's `x[[0, 1]]`, which is `x[([0, 1],)]`).
 */
import { MXNetError } from '@mx/base';

/** `np.s(start, stop, step)`: NumPy's `start:stop:step`; `null` is an omitted part. */
export interface SliceIndex {
  readonly kind: 'slice';
  readonly start: number | null;
  readonly stop: number | null;
  readonly step: number | null;
}

/** NumPy's `Ellipsis` (`...`). A registered symbol, so copies of this module agree on it. */
export const ellipsis: unique symbol = Symbol.for('@mx/np.ellipsis');
export type Ellipsis = typeof ellipsis;

/** `np.newaxis`: NumPy's `None`. */
export const newaxis = null;

/**
 * An index array: integer (any int/uint dtype) or `bool`. `values` (row-major, `shape`'s size) are
 * optional for planning — only a boolean array mixed with other indices needs them (or `count`,
 * its number of true elements, e.g. from `_npx_nonzero`'s output shape) — and required by the
 * reference indexer. A 0-d integer array with values is an integer, as in MXNet 2.0.
 */
export interface IndexArray {
  readonly kind: 'array';
  readonly shape: readonly number[];
  /** NumPy dtype name: `int64`, `int32`, `uint8`, …, `bool`; anything else is refused. */
  readonly dtype: string;
  readonly values?: ArrayLike<number | bigint | boolean>;
  /** Number of true elements of a boolean array, when known without `values`. */
  readonly count?: number;
}

/** One entry of an index tuple. `boolean` is a scalar boolean (a 0-d boolean index). */
export type IndexItem = number | boolean | SliceIndex | null | Ellipsis | IndexArray | NestedIndexList;

/** A JS nested array used as an index array (integers or booleans, rectangular). */
export type NestedIndexList = readonly (number | boolean | bigint | NestedIndexList)[];

/** A whole index: one item, or a tuple of items (a top-level JS array). */
export type Index = IndexItem | readonly IndexItem[];

/** `np.s(start, stop, step)`; `np.s()` is `:`. */
export function s(
  start: number | null = null,
  stop: number | null = null,
  step: number | null = null,
): SliceIndex {
  return { kind: 'slice', start, stop, step };
}

/** Integer dtypes accepted for index arrays (NumPy's integer kinds that @mx has). */
export const INDEX_INT_DTYPES: ReadonlySet<string> = new Set([
  'int8',
  'int16',
  'int32',
  'int64',
  'uint8',
  'uint16',
  'uint32',
  'uint64',
]);

/** An `IndexArray` from flat values (default dtype: `bool` for booleans, else `int64`). */
export function indexArray(
  values: ArrayLike<number | bigint | boolean>,
  shape: readonly number[] = [values.length],
  dtype?: string,
): IndexArray {
  const first = values.length > 0 ? values[0] : 0;
  return {
    kind: 'array',
    shape: [...shape],
    dtype: dtype ?? (typeof first === 'boolean' ? 'bool' : 'int64'),
    values,
  };
}

export function isSliceIndex(v: unknown): v is SliceIndex {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'slice';
}

export function isIndexArray(v: unknown): v is IndexArray {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'array';
}

/** NumPy's text for an index it does not know. */
export const INVALID_INDEX_MESSAGE =
  'only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are valid indices';

/** An IndexError/ValueError/TypeError of NumPy's, as MXNetError (`numpyType` says which). */
export function indexError(
  message: string,
  shape: readonly number[],
  numpyType: 'IndexError' | 'ValueError' | 'TypeError' = 'IndexError',
  hint?: string,
): MXNetError {
  const err = new MXNetError(message, {
    op: 'np.ndarray indexing',
    shapes: [shape],
    ...(hint ? { hint } : {}),
  });
  Object.defineProperty(err, 'numpyType', { value: numpyType, enumerable: true });
  return err;
}

/** NumPy's `(2,)` / `(2,3)` / `()` shape text (no spaces), as its indexing messages print shapes. */
export function npShape(shape: readonly number[]): string {
  return shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(',')})`;
}

/**
 * A JS nested list as an IndexArray (NumPy's `np.array(list)` for an index): rectangular, all
 * booleans or all integers; `[]` is an empty integer array, as NumPy treats empty lists.
 */
export function indexArrayFromNested(list: NestedIndexList, arrayShape: readonly number[]): IndexArray {
  const shape: number[] = [];
  for (let cur: unknown = list; Array.isArray(cur); cur = cur[0]) {
    shape.push(cur.length);
    if (cur.length === 0) break;
  }
  const flat: (number | bigint | boolean)[] = [];
  const walk = (v: unknown, depth: number): void => {
    const ragged = depth < shape.length ? !Array.isArray(v) || v.length !== shape[depth] : Array.isArray(v);
    if (ragged)
      throw indexError(
        'setting an array element with a sequence. The requested array has an inhomogeneous shape',
        arrayShape,
        'ValueError',
        'index lists must be rectangular',
      );
    if (depth < shape.length) {
      for (const e of v as unknown[]) walk(e, depth + 1);
      return;
    }
    if (typeof v !== 'boolean' && typeof v !== 'bigint' && !Number.isInteger(v))
      throw indexError('arrays used as indices must be of integer (or boolean) type', arrayShape);
    flat.push(v as number | bigint | boolean);
  };
  walk(list, 0);
  // NumPy: all booleans make a boolean array; booleans among integers are the integers 0/1.
  const allBool = flat.length > 0 && flat.every((v) => typeof v === 'boolean');
  const values = allBool ? flat : flat.map((v) => (typeof v === 'boolean' ? Number(v) : v));
  return { kind: 'array', shape, dtype: allBool ? 'bool' : 'int64', values };
}
