/**
 * np.searchsorted, np.partition and np.argpartition (MXNet 2.0 delegates all three to host NumPy,
 * which browsers do not have), split from sort.ts to keep that file short; sort.ts spreads them
 * into the area's functions and lends them its sort/argsort/take.
 *
 * - searchsorted runs @mx's `_npi_searchsorted` (a binary search per value) on `a` and `v` cast to
 *   their common dtype, which NumPy compares in: `promote_types(a.dtype, v.dtype)`, with JS numbers
 *   typed as NumPy types Python scalars here (int64 for integers, float64 otherwise — not value-based
 *   and not MXNet's default float, so a float32 `a` is searched for 0.1 in float64 as NumPy does).
 *   `sorter` is applied with take (mode 'raise': an index out of range is an error at once, where
 *   NumPy only notices the indices its search visits). Dtypes the kernels lack are widened without
 *   changing the order (bool → uint8, float16 → float32, int16 → int32, uint32 → int64); on a
 *   backend without 64-bit storage (WebGPU) the search runs in float32/int32 and the result is
 *   int32, the design's rule for index results there (float64 values are then rounded to float32).
 * - partition/argpartition are a full sort/argsort along the axis (the sort ops, stable, NaN last).
 *   NumPy only promises that the kth element is where a sort would put it, with smaller-or-equal
 *   elements before it and larger-or-equal after, so a sorted lane is a valid partition of every
 *   kth at once; it costs O(n log n) (radix: O(n)) instead of introselect's O(n). kth is checked
 *   with NumPy's wording before anything runs.
 */
import { type DTypeName, MXNetError, promoteTypes } from '@mx/base';
import { NDArray } from '../../ndarray.js';
import type { ndarray } from '../array.js';
import type { ArrayLike, NpContext } from '../context.js';

/** np.searchsorted's keywords. */
export interface SearchsortedOptions {
  /** 'left' (default): the first suitable position; 'right': the last. */
  readonly side?: 'left' | 'right';
  /** Indices that sort `a` ascending (as from argsort); `a` itself is then unsorted. */
  readonly sorter?: ArrayLike | null;
}

/** np.partition's / np.argpartition's keywords (`kind` is only 'introselect'; `order` only null). */
export interface PartitionOptions {
  readonly axis?: number | null;
  readonly kind?: 'introselect' | null;
  readonly order?: null;
}

/** What sort.ts lends these functions. */
export interface SortBase {
  sort(a: ArrayLike, o?: { readonly axis?: number | null }): ndarray;
  argsort(a: ArrayLike, o?: { readonly axis?: number | null }): ndarray;
  take(a: ArrayLike, indices: ArrayLike, o?: { readonly axis?: number | null }): ndarray;
}

/**
 * A kernel dtype with `d`'s order: the sort, argsort and searchsorted kernels have float32/64,
 * int8/32/64 and uint8 (bool, 16-bit floats and the other ints widen; sort.ts casts back).
 */
export const sortWork = (d: DTypeName): DTypeName =>
  d === 'bool'
    ? 'uint8'
    : d === 'float16' || d === 'bfloat16'
      ? 'float32'
      : d === 'int16' || d === 'uint16'
        ? 'int32'
        : d === 'uint32'
          ? 'int64'
          : d;

/** NumPy's dtype of a Python scalar or list: bool, int64 for integers, float64 otherwise. */
function pythonDtype(x: ArrayLike): DTypeName {
  let kind: 'bool' | 'int' | 'float' = 'bool';
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) {
      for (const e of v) visit(e);
      return;
    }
    if (typeof v === 'boolean') return;
    if (typeof v === 'bigint' || Number.isInteger(v)) {
      if (kind === 'bool') kind = 'int';
    } else kind = 'float';
  };
  visit(x);
  return kind === 'bool' ? 'bool' : kind === 'int' ? 'int64' : 'float64';
}

/** Nesting depth of a JS value (0 for a scalar). */
const depth = (v: unknown): number => (Array.isArray(v) ? 1 + (v.length === 0 ? 0 : depth(v[0])) : 0);

/** The searchsorted, partition and argpartition functions of the np namespace. */
export function sortSearchFunctions(c: NpContext, base: SortBase) {
  /**
   * The dtype to search `d` in on the backend serving `x`: `d` when its kernel has it, else a
   * wider dtype with the same order, else (a backend without 64-bit types) float32 / int32.
   */
  const searchDtypes = (x: NDArray, d: DTypeName): { work: DTypeName; index: DTypeName } => {
    const backend = c.rt.backendFor(x.ctx, 'searchsorted');
    const op = c.rt.registry.get('_npi_searchsorted');
    const has = c.rt.registry.kernel(op, backend.name)?.dtypes ?? backend.capabilities.computeDTypes;
    const narrow: DTypeName = d.startsWith('float') || d === 'bfloat16' ? 'float32' : 'int32';
    const work = ([d, sortWork(d), narrow] as const).find((w) => has.includes(w)) ?? sortWork(d);
    return { work, index: has.includes('int64') ? 'int64' : 'int32' };
  };

  /** Where `v`'s values would be inserted into the sorted 1-D `a` (int64, v's shape). */
  const searchsorted = (a: ArrayLike, v: ArrayLike, o: SearchsortedOptions = {}): ndarray =>
    c.withTemps((t) => {
      const side = o.side ?? 'left';
      if (side !== 'left' && side !== 'right')
        throw new MXNetError(`search side must be 'left' or 'right' (got '${String(side)}')`, {
          op: 'searchsorted',
          params: { side },
          hint: "use side: 'left' or 'right'",
        });
      // A JS `a` goes where an array `v` lives (NumPy has one device; @mx refuses mixing them).
      let x = c.operand(a, t, undefined, v instanceof NDArray ? v.ctx : undefined);
      if (x.ndim !== 1)
        throw new MXNetError(
          x.ndim === 0 ? 'object of too small depth for desired array' : 'object too deep for desired array',
          {
            op: 'searchsorted',
            shapes: [x.shape],
            hint: 'a must be 1-D (sorted ascending, or with sorter); flatten it first',
          },
        );
      if (o.sorter !== undefined && o.sorter !== null) {
        const sorter = o.sorter;
        const s =
          sorter instanceof NDArray
            ? sorter
            : c.operand(sorter, t, pythonDtype(sorter) === 'float64' ? 'float64' : 'int64', x.ctx);
        if (!s.dtype.startsWith('int') && !s.dtype.startsWith('uint'))
          throw new MXNetError('sorter must only contain integers', {
            op: 'searchsorted',
            dtypes: [s.dtype],
            hint: 'pass the int64 indices of argsort(a)',
          });
        if (s.ndim !== 1)
          throw new MXNetError('object too deep for desired array', {
            op: 'searchsorted',
            shapes: [x.shape, s.shape],
            hint: 'sorter must be 1-D',
          });
        if (s.size !== x.size)
          throw new MXNetError('sorter.size must equal a.size', {
            op: 'searchsorted',
            shapes: [x.shape, s.shape],
            hint: 'sorter holds one index per element of a (argsort(a))',
          });
        x = base.take(x, s, { axis: 0 });
        t.push(x);
      }
      const vType = v instanceof NDArray ? v.dtype : pythonDtype(v);
      const { work, index } = searchDtypes(x, promoteTypes(x.dtype, vType));
      const xs = c.cast(x, work, t);
      const vs = v instanceof NDArray ? c.cast(v, work, t) : c.operand(v, t, work, x.ctx);
      return c.invoke1('_npi_searchsorted', [xs, vs], { side, dtype: index });
    });

  /** kth as a list of lane positions, with NumPy's checks (bounds only for non-empty arrays). */
  const kthList = (
    fn: string,
    kth: number | boolean | readonly number[],
    n: number,
    size: number,
  ): number[] => {
    if (depth(kth) > 1)
      throw new MXNetError('object too deep for desired array', {
        op: fn,
        params: { kth },
        hint: 'kth is an int or a 1-D list of ints',
      });
    const list = (Array.isArray(kth) ? kth : [kth]) as readonly unknown[];
    if (list.length === 0 || list.some((k) => typeof k !== 'boolean' && !Number.isInteger(k)))
      throw new MXNetError('Partition index must be integer', {
        op: fn,
        params: { kth },
        hint: 'kth is an int or a non-empty list of ints',
      });
    const ks = list.map(Number);
    if (size > 0)
      for (const k of ks)
        if (k < -n || k >= n)
          throw new MXNetError(`kth(=${k < 0 ? k + n : k}) out of bounds (${n})`, {
            op: fn,
            params: { kth },
            hint: `kth must be in [${-n}, ${n}) for an axis of length ${n}`,
          });
    return ks.map((k) => (k < 0 ? k + n : k));
  };

  /** The checks partition and argpartition share; returns the array and the axis to sort. */
  const prepare = (
    fn: string,
    a: ArrayLike,
    kth: number | boolean | readonly number[],
    o: PartitionOptions,
    t: NDArray[],
  ): { x: NDArray; axis: number | null } => {
    if (o.kind !== undefined && o.kind !== null && o.kind !== 'introselect')
      throw new MXNetError(`select kind must be 'introselect' (got '${String(o.kind)}')`, {
        op: fn,
        params: { kind: o.kind },
        hint: "leave kind out (only 'introselect' exists)",
      });
    if (o.order !== undefined && o.order !== null)
      throw new MXNetError('Cannot specify order when the array has no fields.', {
        op: fn,
        params: { order: o.order },
        hint: '@mx arrays have no structured dtypes; leave order out',
      });
    let x = c.operand(a, t);
    // NumPy's argpartition treats a 0-d array as one element along any axis; partition refuses it.
    if (fn === 'argpartition' && x.ndim === 0) {
      x = c.view(x, [1]);
      t.push(x);
    }
    const axis = o.axis === undefined ? -1 : o.axis;
    const n =
      axis === null ? x.size : (x.shape[(c.axes(axis, x.ndim, fn) as number[])[0] as number] as number);
    kthList(fn, kth, n, x.size);
    return { x, axis };
  };

  /**
   * A copy of `a` with the kth element(s) where a sort puts them, smaller-or-equal elements before
   * and larger-or-equal after (along `axis`, default -1; null flattens). Computed as a full sort:
   * NumPy's order inside each side is unspecified, and sorted lanes satisfy every kth at once.
   */
  const partition = (
    a: ArrayLike,
    kth: number | boolean | readonly number[],
    o: PartitionOptions = {},
  ): ndarray =>
    c.withTemps((t) => {
      const { x, axis } = prepare('partition', a, kth, o, t);
      return base.sort(x, { axis });
    });

  /**
   * The indices that partition `a` (int64), as np.argpartition; computed as a full stable argsort
   * along `axis`, which is a valid argpartition for every kth (see partition).
   */
  const argpartition = (
    a: ArrayLike,
    kth: number | boolean | readonly number[],
    o: PartitionOptions = {},
  ): ndarray =>
    c.withTemps((t) => {
      const { x, axis } = prepare('argpartition', a, kth, o, t);
      return base.argsort(x, { axis });
    });

  return { searchsorted, partition, argpartition };
}
