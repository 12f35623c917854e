/**
 * np's reductions with NumPy's signatures (`axis` as one axis, several or null; `keepdims`; `dtype`;
 * `initial`) on MXNet 2.0's ops (`_npi_sum`, `_npi_prod`, `_npi_mean`, `_npi_max`/`_npi_amax`,
 * `_npi_min`/`_npi_amin`, `_npi_all`, `_npi_any`, `_npi_cumsum`), so traces record what MXNet 2.0
 * writes. Result dtypes are MXNet 2.0's (`NumpySumType`: the input's dtype, bool → int64 for
 * sum/prod/cumsum, an explicit `dtype` wins; `mean` of integers gives the default float; `argmax`/
 * `argmin` give int64). The input is cast to the result dtype before the op (so every backend's
 * kernel sees one dtype); float16 is computed in float32 and cast back.
 *
 * The nan* functions, `ptp` and `countNonzero` compose these ops as NumPy's Python does (MXNet 2.0
 * has none of them). Statistics (std, var, average, percentile…) are in reduce-stats.ts, counting
 * (bincount, histogram, diff) in reduce-count.ts; both are spread into this area's object.
 */
import { DType, type DTypeName, MXNetError } from '@mx/base';
import type { NDArray } from '../../ndarray.js';
import type { ndarray, ReduceOptions } from '../array.js';
import type { ArrayLike, Axis, NpContext } from '../context.js';
import { countFunctions } from './reduce-count.js';
import { statsFunctions } from './reduce-stats.js';

export const isFloat = (d: DTypeName): boolean => DType[d].kind === 'f';

/** Options of sum/prod/max/min (NumPy's keywords). */
export interface ReduceInitialOptions extends ReduceOptions {
  /** The starting value of the reduction (NumPy `initial`). */
  readonly initial?: number;
}

/** Options of the nan-aware moments. */
export interface NanMomentOptions extends ReduceOptions {
  /** Delta degrees of freedom (divisor N - ddof). */
  readonly ddof?: number;
}

/** `axis` normalised (undefined = all) as the op param (`null` = all). */
export const axisParam = (axes: number[] | undefined): number[] | null => axes ?? null;

/** Push `a` to `temps` and return it. */
export function keep<T extends NDArray>(temps: NDArray[], a: T): T {
  temps.push(a);
  return a;
}

/** The reductions of the np namespace. */
export function reduceFunctions(c: NpContext) {
  /**
   * Run the `_npi_*` reduction `op` of `a`, result dtype `out` (computed in `work` when the kernels
   * have no such dtype: float16 → float32, bool → uint8), shaped as NumPy's.
   */
  const run = (
    fn: string,
    op: string,
    a: ArrayLike,
    o: ReduceInitialOptions,
    resultOf: (d: DTypeName) => DTypeName,
    withDType: boolean,
  ) =>
    c.withTemps((t) => {
      const x = c.operand(a, t);
      const axes = c.axes(o.axis, x.ndim, fn);
      const out = o.dtype ?? resultOf(x.dtype);
      const work: DTypeName = out === 'float16' ? 'float32' : out === 'bool' ? 'uint8' : out;
      const y = c.cast(x, work, t);
      const params: Record<string, unknown> = { axis: axisParam(axes), keepdims: o.keepdims ?? false };
      if (withDType) params.dtype = work === 'uint8' ? 'int32' : work;
      if (o.initial !== undefined) params.initial = o.initial;
      const r = c.invoke1(op, [y], params);
      if (r.dtype === out) return r;
      t.push(r);
      return c.invoke1('Cast', [r], { dtype: out });
    });

  const sumType = (d: DTypeName): DTypeName => (d === 'bool' ? 'int64' : d);
  const meanType = (d: DTypeName): DTypeName => (isFloat(d) ? d : c.defaultFloat());
  const same = (d: DTypeName): DTypeName => d;

  const sum = (a: ArrayLike, o: ReduceInitialOptions = {}) => run('sum', '_npi_sum', a, o, sumType, true);
  const prod = (a: ArrayLike, o: ReduceInitialOptions = {}) => run('prod', '_npi_prod', a, o, sumType, true);
  const mean = (a: ArrayLike, o: ReduceOptions = {}) => run('mean', '_npi_mean', a, o, meanType, true);
  const max = (a: ArrayLike, o: ReduceInitialOptions = {}) => run('max', '_npi_max', a, o, same, false);
  const min = (a: ArrayLike, o: ReduceInitialOptions = {}) => run('min', '_npi_min', a, o, same, false);

  const arg =
    (fn: string, op: string) =>
    (a: ArrayLike, o: { readonly axis?: number | null } = {}) =>
      c.withTemps((t) => {
        let x = c.operand(a, t);
        if (x.size === 0) {
          throw new MXNetError(`attempt to get ${fn} of an empty sequence`, { op: fn, shapes: [x.shape] });
        }
        let axis = o.axis ?? null;
        if (axis === null) {
          x = keep(t, c.view(x, [x.size]));
          axis = 0;
        } else axis = (c.axes(axis, x.ndim, fn) as number[])[0] as number;
        const r = keep(t, c.invoke1(op, [x], { axis }));
        const out = keep(t, c.invoke1('Cast', [r], { dtype: 'int64' }));
        const shape = x.shape.filter((_, i) => i !== axis);
        return c.view(out, shape);
      });

  const boolReduce =
    (fn: string, op: string) =>
    (a: ArrayLike, o: { readonly axis?: Axis; readonly keepdims?: boolean } = {}) =>
      c.withTemps((t) => {
        let x = c.operand(a, t);
        const axes = c.axes(o.axis, x.ndim, fn);
        if (x.dtype === 'float16') x = c.cast(x, 'float32', t);
        return c.invoke1(op, [x], { axis: axisParam(axes), keepdims: o.keepdims ?? false });
      });

  /** 1 where `x` is not NaN, in x's dtype (float x). */
  const notNan = (x: NDArray, t: NDArray[]) => keep(t, c.invoke1('_equal', [x, x]));
  /** `x` with NaN replaced by `fill`. */
  const fillNan = (x: NDArray, fill: number, t: NDArray[]) => {
    const z = keep(t, c.invoke1('zeros_like', [x]));
    const f = fill === 0 ? z : keep(t, c.invoke1('_plus_scalar', [z], { scalar: fill }));
    return keep(t, c.invoke1('where', [notNan(x, t), x, f]));
  };
  /** The float array to compute a nan-function on, or undefined when NumPy delegates (no NaN possible). */
  const floaty = (fn: string, a: ArrayLike, t: NDArray[]): NDArray | undefined => {
    const x = c.operand(a, t);
    c.dense(x, fn);
    if (!isFloat(x.dtype)) return undefined;
    return x.dtype === 'float16' ? c.cast(x, 'float32', t) : x;
  };
  const back16 = (a: ArrayLike, r: ndarray, t: NDArray[]): ndarray => {
    if (!(a instanceof Object && 'dtype' in a && (a as NDArray).dtype === 'float16')) return r;
    t.push(r);
    return c.invoke1('Cast', [r], { dtype: 'float16' });
  };

  const nanSumLike =
    (fn: string, fill: number, plain: typeof sum) =>
    (a: ArrayLike, o: ReduceOptions = {}) =>
      c.withTemps((t) => {
        const x = floaty(fn, a, t);
        if (x === undefined) return plain(a, o);
        return back16(a, plain(fillNan(x, fill, t), o), t);
      });

  /** nanmean / nanvar's pieces: sum of the NaN-free values and their count, shaped like the result. */
  const nanMean = (x: NDArray, o: ReduceOptions, t: NDArray[]) => {
    const s = keep(t, sum(fillNan(x, 0, t), { ...o, dtype: undefined }));
    const n = keep(t, sum(notNan(x, t), { ...o, dtype: undefined }));
    return { s, n, m: c.invoke1('elemwise_div', [s, n]) };
  };

  const nanVar = (fn: string, a: ArrayLike, o: NanMomentOptions, sqrt: boolean, plain: typeof var_) =>
    c.withTemps((t) => {
      const x = floaty(fn, a, t);
      if (x === undefined) return plain(a, o);
      const m = keep(t, nanMean(x, { axis: o.axis, keepdims: true }, t).m);
      const d = keep(t, c.invoke1('broadcast_sub', [x, m]));
      const sq = keep(t, c.invoke1('square', [fillNan(d, 0, t)]));
      const ss = keep(t, sum(sq, { axis: o.axis, keepdims: o.keepdims }));
      const n = keep(t, sum(notNan(x, t), { axis: o.axis, keepdims: o.keepdims }));
      const dn = keep(t, c.invoke1('_minus_scalar', [n], { scalar: o.ddof ?? 0 }));
      const den = keep(t, c.invoke1('_maximum_scalar', [dn], { scalar: 0 }));
      let r = c.invoke1('elemwise_div', [ss, den]);
      if (sqrt) {
        t.push(r);
        r = c.invoke1('sqrt', [r]);
      }
      if (o.dtype !== undefined && o.dtype !== r.dtype) {
        t.push(r);
        r = c.invoke1('Cast', [r], { dtype: o.dtype });
      }
      return back16(a, r, t);
    });

  const nanExtreme =
    (fn: string, isMax: boolean) =>
    (a: ArrayLike, o: ReduceOptions = {}) =>
      c.withTemps((t) => {
        const x = floaty(fn, a, t);
        if (x === undefined) return (isMax ? max : min)(a, o);
        const axes = c.axes(o.axis, x.ndim, fn);
        if (x.shape.some((d, i) => d === 0 && (axes === undefined || axes.includes(i)))) {
          throw new MXNetError(
            `zero-size array to reduction operation ${isMax ? 'fmax' : 'fmin'} which has no identity`,
            {
              op: fn,
              shapes: [x.shape],
              params: { axis: o.axis ?? null },
            },
          );
        }
        const r = keep(t, (isMax ? max : min)(fillNan(x, isMax ? -Infinity : Infinity, t), o));
        const n = keep(t, sum(notNan(x, t), o));
        const nan = keep(
          t,
          c.invoke1('_plus_scalar', [keep(t, c.invoke1('zeros_like', [r]))], { scalar: Number.NaN }),
        );
        return back16(a, c.invoke1('where', [n, r, nan]), t);
      });

  const stats = statsFunctions(c);
  const var_ = stats.var;

  return {
    /** Sum over `axis` (MXNet 2.0: integer sums keep the dtype; bool sums are int64). */
    sum,
    /** Product over `axis` (dtype rule as sum's). */
    prod,
    /** Mean over `axis`; integer and bool arrays give the default float. */
    mean,
    /** Maximum over `axis` (an empty reduced axis needs `initial`). */
    max,
    /** Minimum over `axis`. */
    min,
    /** NumPy's alias of max. */
    amax: (a: ArrayLike, o: ReduceInitialOptions = {}) => run('amax', '_npi_amax', a, o, same, false),
    /** NumPy's alias of min. */
    amin: (a: ArrayLike, o: ReduceInitialOptions = {}) => run('amin', '_npi_amin', a, o, same, false),
    /** Index of the maximum (int64), over the flattened array unless `axis` is given. */
    argmax: arg('argmax', 'argmax'),
    argmin: arg('argmin', 'argmin'),
    /** Whether every element over `axis` is true (bool). */
    all: boolReduce('all', '_npi_all'),
    /** Whether any element over `axis` is true (bool). */
    any: boolReduce('any', '_npi_any'),
    /** Range (max - min) over `axis`. */
    ptp: (a: ArrayLike, o: { readonly axis?: Axis; readonly keepdims?: boolean } = {}) =>
      c.withTemps((t) => {
        const x = c.operand(a, t);
        if (x.dtype === 'bool') {
          throw new MXNetError(
            'numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` operator, or the logical_xor function instead.',
            { op: 'ptp', dtypes: [x.dtype], hint: 'cast the array to an integer dtype first' },
          );
        }
        const hi = keep(t, max(x, o));
        const lo = keep(t, min(x, o));
        return c.invoke1('elemwise_sub', [hi, lo]);
      }),
    /** Number of non-zero elements over `axis` (int64). */
    countNonzero: (a: ArrayLike, o: { readonly axis?: Axis; readonly keepdims?: boolean } = {}) =>
      c.withTemps((t) => {
        const x = c.operand(a, t);
        c.axes(o.axis, x.ndim, 'count_nonzero');
        const nz =
          x.dtype === 'bool'
            ? x
            : keep(
                t,
                c.invoke1('_not_equal_scalar', [c.cast(x, x.dtype === 'float16' ? 'float32' : x.dtype, t)], {
                  scalar: 0,
                }),
              );
        return sum(keep(t, c.invoke1('Cast', [nz], { dtype: 'int64' })), {
          axis: o.axis,
          keepdims: o.keepdims,
        });
      }),
    /** Cumulative sum along `axis` (null flattens); bool gives int64, other dtypes stay (MXNet 2.0). */
    cumsum: (a: ArrayLike, o: { readonly axis?: number | null; readonly dtype?: DTypeName } = {}) =>
      c.withTemps((t) => {
        const x = c.operand(a, t);
        const axis = o.axis ?? null;
        if (axis !== null) c.axes(axis, x.ndim, 'cumsum');
        const out = o.dtype ?? (x.dtype === 'bool' ? 'int64' : x.dtype);
        const work: DTypeName = out === 'float16' || out === 'bool' ? 'float32' : out;
        const y = x.dtype === 'bool' || x.dtype === 'float16' ? c.cast(x, work, t) : x;
        const r = c.invoke1('_npi_cumsum', [y], { axis, dtype: work });
        if (r.dtype === out) return r;
        t.push(r);
        return c.invoke1('Cast', [r], { dtype: out });
      }),
    /** Sum treating NaN as zero. */
    nansum: nanSumLike('nansum', 0, sum),
    /** Product treating NaN as one. */
    nanprod: nanSumLike('nanprod', 1, prod),
    /** Mean of the non-NaN values (NaN where a lane has none). */
    nanmean: (a: ArrayLike, o: ReduceOptions = {}) =>
      c.withTemps((t) => {
        const x = floaty('nanmean', a, t);
        if (x === undefined) return mean(a, o);
        const { m } = nanMean(x, { axis: o.axis, keepdims: o.keepdims }, t);
        if (o.dtype === undefined || o.dtype === m.dtype) return back16(a, m, t);
        t.push(m);
        return c.invoke1('Cast', [m], { dtype: o.dtype });
      }),
    /** Variance of the non-NaN values. */
    nanvar: (a: ArrayLike, o: NanMomentOptions = {}) => nanVar('nanvar', a, o, false, stats.var),
    /** Standard deviation of the non-NaN values. */
    nanstd: (a: ArrayLike, o: NanMomentOptions = {}) => nanVar('nanstd', a, o, true, stats.std),
    /** Maximum ignoring NaN (NaN where a lane is all NaN). */
    nanmax: nanExtreme('nanmax', true),
    /** Minimum ignoring NaN. */
    nanmin: nanExtreme('nanmin', false),
    ...stats,
    ...countFunctions(c),
  };
}

export type ReduceFunctions = ReturnType<typeof reduceFunctions>;
