/**
 * Test support shared by the indexing tests (golden.test.ts, apply.test.ts and the two fast-check
 * property tests): the recorded NumPy cases' types and loading (tools/golden/np/indexing.py →
 * __golden__/indexing.json), the decoding of a recorded key item, labels, reading an array's values
 * as numbers, nested JS lists from flat values, and the random boolean-mask key item. Test-only;
 * not exported, and named without `.test.ts` so vitest does not collect it.
 */
import { readFileSync } from 'node:fs';
import type { NDArray } from '../../ndarray.js';
import { ellipsis, type IndexArray, type IndexItem, s } from './types.js';

/** A key item as the generator records it (`a`: shape, `d`: dtype, `v`: flat values). */
export type RawItem =
  | number
  | boolean
  | null
  | '...'
  | { s: (number | null)[] }
  | { f: number }
  | { a: number[]; d: string; v: number[] };

/** NumPy's exception: its type name and message. */
export interface GoldenError {
  type: string;
  message: string;
}

/** A recorded `x[key]` on an arange source of `shape`. */
export interface GetCase {
  shape: number[];
  key: RawItem[];
  src?: string;
  error?: GoldenError;
  result?: { shape: number[]; values: number[] };
  np_view?: boolean;
  mx_view?: boolean | null;
}

/** A recorded `x[key] = value` (value of `value_shape`); `result` is x afterwards. */
export interface SetCase {
  shape: number[];
  key: RawItem[];
  value_shape: number[];
  src?: string;
  error?: GoldenError;
  result?: number[];
}

/** The recorded cases and the NumPy version that produced them. */
export interface IndexingGolden {
  numpy: string;
  get: GetCase[];
  set: SetCase[];
}

/** Read __golden__/indexing.json. */
export function loadIndexingGolden(): IndexingGolden {
  return JSON.parse(
    readFileSync(new URL('./__golden__/indexing.json', import.meta.url), 'utf8'),
  ) as IndexingGolden;
}

/** Elements of a shape. */
export const size = (shape: readonly number[]): number => shape.reduce((a, b) => a * b, 1);

/** A case's shape and key, for failure messages. */
export const label = (c: { shape: number[]; key: RawItem[] }): string =>
  `${JSON.stringify(c.shape)} [${JSON.stringify(c.key)}]`;

/** A recorded key item as the planner's IndexItem (arrays keep their host values). */
export function decodeItem(item: RawItem): IndexItem {
  if (item === '...') return ellipsis;
  if (item === null || typeof item === 'number' || typeof item === 'boolean') return item;
  if ('s' in item) return s(item.s[0] ?? null, item.s[1] ?? null, item.s[2] ?? null);
  if ('f' in item) return item.f;
  const values = item.d === 'bool' ? item.v.map((v) => v !== 0) : item.v;
  return { kind: 'array', shape: item.a, dtype: item.d, values } satisfies IndexArray;
}

/** Whether a key item is an index array. */
export const isArr = (v: unknown): v is IndexArray =>
  typeof v === 'object' && v !== null && (v as IndexArray).kind === 'array';

/** An array's values as numbers (bigint and bool converted). */
export function numbers(a: NDArray): number[] {
  return Array.from(a.dataSync() as ArrayLike<number | bigint>, (v) => Number(v));
}

/** Row-major flat `values` as nested JS lists of `shape` (a non-empty, non-0-d shape). */
export function nestedList(shape: readonly number[], values: readonly unknown[]): unknown {
  const rows = (dim: number, base: number): unknown =>
    dim === shape.length
      ? values[base]
      : Array.from({ length: shape[dim] as number }, (_, i) =>
          rows(dim + 1, base + i * size(shape.slice(dim + 1))),
        );
  return rows(0, 0);
}

/**
 * A random boolean mask key item at `axis` of `shape` drawn with `next` (a tape reader): over one
 * or two of the remaining axes, or, one time in `wrongShapeOneIn`, of the wrong length `n + 1`.
 */
export function maskItem(
  next: (n: number) => number,
  shape: readonly number[],
  axis: number,
  n: number,
  wrongShapeOneIn: number,
): IndexArray {
  const d = Math.max(1, Math.min(shape.length - axis, 1 + next(2)));
  const mshape = next(wrongShapeOneIn) === 0 ? [n + 1] : shape.slice(axis, axis + d);
  return {
    kind: 'array',
    shape: mshape,
    dtype: 'bool',
    values: Array.from({ length: size(mshape) }, () => next(3) !== 0),
  };
}
