/**
 * np's sorting, searching and set functions (docs/design/np.md, piece A5) on MXNet 2.0's ops:
 * `sort`/`argsort`/`take` (MXNet 2.0's `_npi_sort`/`_npi_argsort`/`_npi_take` are aliases of these
 * legacy ops, so traces record what MXNet writes), `_npi_where` and its scalar forms, `_npi_unique`
 * and `_npx_nonzero` (dynamic shapes), `_contrib_boolean_mask` for `extract`. `flatnonzero`,
 * `argwhere` and `extract` compose as NumPy's Python does (MXNet 2.0 delegates them to host NumPy);
 * so do `searchsorted`, `partition` and `argpartition` (sort-search.ts, spread in below).
 *
 * Dtypes: sort keeps the input's (bool/float16/small ints are sorted in a wider dtype the kernels
 * have and cast back); index results are int64 (MXNet 2.0); `where` promotes x and y with NumPy's
 * rules (weak JS scalars), except that two float scalars give the default float (MXNet's
 * `_npi_where_scalar2` is float32). NumPy's `kind`/`order` keywords are accepted and ignored: the
 * kernels sort stably (NumPy's default quicksort does not promise an order for ties).
 */
import { MXNetError } from '@mx/base';
import type { NDArray } from '../../ndarray.js';
import type { ndarray } from '../array.js';
import type { ArrayLike, NpContext } from '../context.js';
import { sortSearchFunctions, sortWork } from './sort-search.js';

/** NumPy's sort keywords (`kind` and `order` are accepted; the sort is always stable). */
export interface SortOptions {
  readonly axis?: number | null;
  readonly kind?: 'quicksort' | 'mergesort' | 'heapsort' | 'stable' | null;
  readonly order?: null;
}

/** np.unique's keywords. */
export interface UniqueOptions {
  readonly returnIndex?: boolean;
  readonly returnInverse?: boolean;
  readonly returnCounts?: boolean;
  readonly axis?: number | null;
}

/** np.take's keywords. */
export interface TakeOptions {
  readonly axis?: number | null;
  readonly mode?: 'raise' | 'wrap' | 'clip';
}

/** Index arrays up to this size are scanned on the host for negatives (np.take, mode 'raise'). */
const PEEK_LIMIT = 1 << 16;

/** The sort functions of the np namespace. */
export function sortFunctions(c: NpContext) {
  const keep = <T extends NDArray>(t: NDArray[], a: T): T => {
    t.push(a);
    return a;
  };
  /** `x` flattened (a view) when axis is null; the normalised axis otherwise. */
  const lanes = (fn: string, x: NDArray, axis: number | null | undefined, t: NDArray[]) => {
    if (axis === null) return { x: keep(t, c.view(x, [x.size])), axis: 0 };
    return { x, axis: (c.axes(axis ?? -1, x.ndim, fn) as number[])[0] as number };
  };
  /** Hidden outputs nobody will read: skipped unless autograd or deferred compute may need them. */
  const hiddenSkip = (): boolean[] | undefined =>
    c.rt.autograd.isRecording || c.rt.dc.active ? undefined : [false, true];

  const sort = (a: ArrayLike, o: SortOptions = {}): ndarray =>
    c.withTemps((t) => {
      const x0 = c.operand(a, t);
      const { x, axis } = lanes('sort', x0, o.axis, t);
      const work = sortWork(x.dtype);
      const skip = hiddenSkip();
      const r = c.invoke1('sort', [c.cast(x, work, t)], { axis, is_ascend: true }, skip ? { skip } : {});
      if (r.dtype === x.dtype) return r;
      t.push(r);
      return c.invoke1('Cast', [r], { dtype: x.dtype });
    });

  const argsort = (a: ArrayLike, o: SortOptions = {}): ndarray =>
    c.withTemps((t) => {
      const x0 = c.operand(a, t);
      const { x, axis } = lanes('argsort', x0, o.axis, t);
      return c.invoke1('argsort', [c.cast(x, sortWork(x.dtype), t)], {
        axis,
        is_ascend: true,
        dtype: 'int64',
      });
    });

  /** The nonzero positions as an int64 (count, ndim) array (NumPy's argwhere). */
  const argwhere = (a: ArrayLike): ndarray =>
    c.withTemps((t) => c.invoke1('_npx_nonzero', [c.operand(a, t)]));

  const nonzero = (a: ArrayLike): ndarray[] =>
    c.withTemps((t) => {
      let x = c.operand(a, t);
      // NumPy 1.24 treats a 0-d array as 1-d here (a DeprecationWarning there).
      if (x.ndim === 0) x = keep(t, c.view(x, [1]));
      const idx = keep(t, c.invoke1('_npx_nonzero', [x]));
      const count = idx.shape[0] as number;
      return x.shape.map((_, i) => {
        const col = keep(t, c.invoke1('slice_axis', [idx], { axis: 1, begin: i, end: i + 1 }));
        return c.view(col, [count]);
      });
    });

  const flatnonzero = (a: ArrayLike): ndarray =>
    c.withTemps((t) => {
      const x = c.operand(a, t);
      return nonzero(keep(t, c.view(x, [x.size])))[0] as ndarray;
    });

  /**
   * True when `idx` is known to hold no negative value: a small integer array already computed on
   * a backend that reads synchronously (cpu), outside deferred compute. Anything else (a pending
   * failure included) answers false, and the caller wraps with ops.
   */
  const knownNonNegative = (idx: NDArray): boolean => {
    if (idx.size > PEEK_LIMIT || c.rt.dc.active || idx.isDeferred) return false;
    if (!idx.chunk.backend.capabilities.syncRead) return false;
    let v: ArrayBufferView;
    try {
      v = idx.dataSync() as unknown as ArrayBufferView;
    } catch {
      return false;
    }
    // Signs as 32-bit words: int64's high words (little-endian), or the values of narrower ints.
    const wide = v instanceof BigInt64Array;
    const w =
      wide || v instanceof Int32Array
        ? new Int32Array(v.buffer, v.byteOffset, v.byteLength / 4)
        : (v as unknown as { readonly length: number; readonly [i: number]: number });
    for (let i = wide ? 1 : 0; i < w.length; i += wide ? 2 : 1) if ((w[i] as number) < 0) return false;
    return true;
  };

  /**
   * NumPy's 'raise' mode counts negative indices from the end (MXNet's take kernel refuses them):
   * signed indices in [-n, 0) become `i + n`; what is still out of range raises in the kernel.
   * Indices known to be non-negative (the common case) go to the kernel as they are.
   */
  const raiseIndices = (x: NDArray, idx: NDArray, axis: number, mode: string, t: NDArray[]): NDArray => {
    if (mode !== 'raise' || !idx.dtype.startsWith('int') || idx.size === 0) return idx;
    if (knownNonNegative(idx)) return idx;
    const n = x.shape[axis] as number;
    const shifted = keep(t, c.invoke1('_plus_scalar', [idx], { scalar: n }));
    const neg = keep(t, c.invoke1('_lesser_scalar', [idx], { scalar: 0 }));
    const inRange = keep(t, c.invoke1('_greater_equal_scalar', [idx], { scalar: -n }));
    const wrap = keep(t, c.invoke1('elemwise_mul', [neg, inRange]));
    return keep(t, c.invoke1('_npi_where', [wrap, shifted, idx]));
  };

  const take = (a: ArrayLike, indices: ArrayLike, o: TakeOptions = {}): ndarray =>
    c.withTemps((t) => {
      const mode = o.mode ?? 'raise';
      if (!['raise', 'wrap', 'clip'].includes(mode))
        throw new MXNetError(`function take does not support mode '${mode}'`, {
          op: 'take',
          params: { mode },
          hint: "use 'raise', 'wrap' or 'clip'",
        });
      const x0 = c.operand(a, t);
      const idx = c.operand(
        indices,
        t,
        typeof indices === 'number' || Array.isArray(indices) ? 'int64' : undefined,
      );
      if (idx.dtype.startsWith('float'))
        throw new MXNetError(
          "Cannot cast array data from dtype('float64') to dtype('int64') according to the rule 'safe'",
          {
            op: 'take',
            dtypes: [idx.dtype],
            hint: 'indices must be integers',
          },
        );
      const { x, axis } =
        o.axis === null || o.axis === undefined ? lanes('take', x0, null, t) : lanes('take', x0, o.axis, t);
      return c.invoke1('take', [x, raiseIndices(x, idx, axis, mode, t)], { axis, mode });
    });

  /** `x` or `y` by `condition` (3 arguments), or `nonzero(condition)` (1 argument). */
  function where(condition: ArrayLike): ndarray[];
  function where(condition: ArrayLike, x: ArrayLike, y: ArrayLike): ndarray;
  function where(condition: ArrayLike, x?: ArrayLike, y?: ArrayLike): ndarray | ndarray[] {
    if (x === undefined && y === undefined) return nonzero(condition);
    if (x === undefined || y === undefined)
      throw new MXNetError('either both or neither of x and y should be given', {
        op: 'where',
        hint: 'pass x and y, or only the condition (nonzero)',
      });
    return c.withTemps((t) => {
      const isScalar = (v: ArrayLike) => typeof v === 'number' || typeof v === 'boolean';
      if (isScalar(condition)) {
        // MXNet 2.0: a scalar condition returns x or y itself (as an array).
        const pick = condition ? x : y;
        const arr = c.operand(pick, t);
        return c.invoke1('_copy', [arr]);
      }
      const cond = c.operand(condition, t);
      const dtype = c.resultType(x, y);
      if (isScalar(x) && isScalar(y)) {
        if (dtype === 'float32')
          return c.invoke1('_npi_where_scalar2', [cond], { x: Number(x), y: Number(y) });
        const yArr = c.fromValues(y as number, dtype);
        t.push(yArr);
        return c.invoke1('_npi_where_lscalar', [cond, yArr], { scalar: Number(x) });
      }
      if (isScalar(x))
        return c.invoke1('_npi_where_lscalar', [cond, c.cast(c.operand(y, t), dtype, t)], {
          scalar: Number(x),
        });
      if (isScalar(y))
        return c.invoke1('_npi_where_rscalar', [cond, c.cast(c.operand(x, t), dtype, t)], {
          scalar: Number(y),
        });
      const xs = c.cast(c.operand(x, t), dtype, t);
      const ys = c.cast(c.operand(y, t), dtype, t);
      return c.invoke1('_npi_where', [cond, xs, ys]);
    });
  }

  const extract = (condition: ArrayLike, arr: ArrayLike): ndarray =>
    c.withTemps((t) => {
      const cond = c.operand(condition, t);
      const x = c.operand(arr, t);
      if (cond.size !== x.size)
        throw new MXNetError(`index ${cond.size - 1} is out of bounds for axis 0 with size ${x.size}`, {
          op: 'extract',
          shapes: [cond.shape, x.shape],
          hint: 'condition and arr must have the same size',
        });
      const flat = keep(t, c.view(x, [x.size]));
      const mask = keep(t, c.view(cond, [cond.size]));
      return c.invoke1('_contrib_boolean_mask', [flat, mask], { axis: 0 });
    });

  const unique = (ar: ArrayLike, o: UniqueOptions = {}): ndarray | ndarray[] =>
    c.withTemps((t) => {
      const x = c.operand(ar, t);
      let axis: number | null = null;
      if (o.axis !== null && o.axis !== undefined)
        axis = (c.axes(o.axis, x.ndim, 'unique') as number[])[0] as number;
      const outs = c.invoke('_npi_unique', [x], {
        return_index: o.returnIndex ?? false,
        return_inverse: o.returnInverse ?? false,
        return_counts: o.returnCounts ?? false,
        axis,
      });
      return outs.length === 1 ? (outs[0] as ndarray) : outs;
    });

  /** NumPy's msort: sort along the first axis. */
  const msort = (a: ArrayLike): ndarray => sort(a, { axis: 0 });

  return {
    sort,
    argsort,
    msort,
    nonzero,
    flatnonzero,
    argwhere,
    where,
    take,
    extract,
    unique,
    ...sortSearchFunctions(c, { sort, argsort, take }),
  };
}

export type SortFunctions = ReturnType<typeof sortFunctions>;
