/**
 * np's statistics with NumPy's signatures on MXNet 2.0's ops: `std`/`var` (`_npi_std`/`_npi_var`,
 * ddof, dtype, keepdims), `average` (`_npi_average`, weights, returned), `percentile`, `quantile`
 * and `median` (`_npi_percentile`; MXNet's median is the 50th percentile with 'midpoint', which
 * equals NumPy's median). Dtypes follow MXNet 2.0: integer inputs give the default float; percentile
 * of float16 is float32 (MXNet's NumpyPercentileType). `method` (NumPy ≥ 1.22) and `interpolation`
 * (MXNet's keyword) are the same option.
 */
import { DType, type DTypeName, MXNetError } from '@mx/base';
import { NDArray } from '../../ndarray.js';
import type { ndarray, ReduceOptions } from '../array.js';
import type { ArrayLike, Axis, NpContext } from '../context.js';

const isFloat = (d: DTypeName): boolean => DType[d].kind === 'f';

/** Options of std / var. */
export interface MomentOptions extends ReduceOptions {
  /** Delta degrees of freedom: the divisor is N - ddof. */
  readonly ddof?: number;
}

/** The interpolation methods MXNet 2.0's percentile supports. */
export type QuantileMethod = 'linear' | 'lower' | 'higher' | 'midpoint' | 'nearest';

/** Options of percentile / quantile / median. */
export interface QuantileOptions {
  readonly axis?: Axis;
  readonly keepdims?: boolean;
  /** NumPy's `method` (≥ 1.22). */
  readonly method?: QuantileMethod;
  /** NumPy's older name of `method` (MXNet 2.0's keyword). */
  readonly interpolation?: QuantileMethod;
}

/** Options of average. */
export interface AverageOptions {
  readonly axis?: Axis;
  /** Weights: a's shape, or 1-D along the single `axis`. */
  readonly weights?: ArrayLike | null;
  /** Also return the sum of weights. */
  readonly returned?: boolean;
}

export function statsFunctions(c: NpContext) {
  const moment =
    (fn: string, op: string) =>
    (a: ArrayLike, o: MomentOptions = {}) =>
      c.withTemps((t) => {
        let x = c.operand(a, t);
        const axes = c.axes(o.axis, x.ndim, fn);
        const out = o.dtype ?? (isFloat(x.dtype) ? x.dtype : c.defaultFloat());
        if (x.dtype === 'float16') x = c.cast(x, 'float32', t);
        const work = out === 'float16' ? 'float32' : out;
        const r = c.invoke1(op, [x], {
          axis: axes ?? null,
          dtype: work,
          keepdims: o.keepdims ?? false,
          ddof: o.ddof ?? 0,
        });
        if (r.dtype === out) return r;
        t.push(r);
        return c.invoke1('Cast', [r], { dtype: out });
      });

  const percentileOf =
    (fn: string, scale: number, range: string) =>
    (a: ArrayLike, q: ArrayLike, o: QuantileOptions = {}) =>
      c.withTemps((t) => {
        let x = c.operand(a, t);
        const axes = c.axes(o.axis, x.ndim, fn);
        const method = o.method ?? o.interpolation ?? 'linear';
        if (!['linear', 'lower', 'higher', 'midpoint', 'nearest'].includes(method)) {
          throw new MXNetError(
            `'${method}' is not a valid method. Use one of: linear, lower, higher, midpoint, nearest`,
            {
              op: fn,
              hint: 'MXNet 2.0 supports these five methods',
            },
          );
        }
        if (!isFloat(x.dtype) && c.defaultFloat() === 'float64') x = c.cast(x, 'float64', t);
        const params = { axis: axes ?? null, interpolation: method, keepdims: o.keepdims ?? false };
        if (typeof q === 'number') {
          if (!(q >= 0 && q <= 100 / scale)) {
            throw new MXNetError(`${range} must be in the range [0, ${100 / scale}]`, {
              op: fn,
              params: { q },
            });
          }
          return c.invoke1('_npi_percentile', [x], { ...params, q_scalar: q * scale });
        }
        if (!(q instanceof NDArray)) {
          const flat: unknown[] = [];
          const visit = (v: unknown): void => {
            if (Array.isArray(v)) for (const e of v) visit(e);
            else flat.push(v);
          };
          visit(q);
          if (flat.some((v) => !((v as number) >= 0 && (v as number) <= 100 / scale)))
            throw new MXNetError(`${range} must be in the range [0, ${100 / scale}]`, { op: fn });
        }
        let qa = c.operand(q, t, q instanceof NDArray ? undefined : 'float64');
        if (qa.ndim > 1) {
          throw new MXNetError(`q must be a scalar or 1-D array, got ${qa.ndim}-D`, {
            op: fn,
            shapes: [qa.shape],
          });
        }
        if (scale !== 1)
          qa = t[
            t.push(c.invoke1('_mul_scalar', [c.cast(qa, 'float64', t)], { scalar: scale })) - 1
          ] as NDArray;
        return c.invoke1('_npi_percentile', [x, qa], { ...params, q_scalar: null });
      });

  return {
    /** Standard deviation over `axis` (divisor N - ddof). */
    std: moment('std', '_npi_std'),
    /** Variance over `axis` (divisor N - ddof). */
    var: moment('var', '_npi_var'),
    /**
     * Weighted average over `axis`; with `returned`, `[average, sumOfWeights]`. Integer inputs give
     * the default float (NumPy: float64).
     */
    average(a: ArrayLike, o: AverageOptions = {}): ndarray | [ndarray, ndarray] {
      return c.withTemps((t) => {
        let x = c.operand(a, t);
        const axes = c.axes(o.axis, x.ndim, 'average');
        const weighted = o.weights !== undefined && o.weights !== null;
        let w = weighted ? c.operand(o.weights as ArrayLike, t) : undefined;
        let dt = w === undefined ? x.dtype : c.resultType(x, w);
        if (!isFloat(dt)) dt = c.defaultFloat();
        const work = dt === 'float16' ? 'float32' : dt;
        x = c.cast(x, work, t);
        if (w !== undefined) w = c.cast(w, work, t);
        const outs = c.invoke('_npi_average', w === undefined ? [x] : [x, w], {
          axis: axes ?? null,
          returned: o.returned ?? false,
          weighted,
        });
        const fix = (r: ndarray) => {
          if (r.dtype === dt) return r;
          t.push(r);
          return c.invoke1('Cast', [r], { dtype: dt });
        };
        if (o.returned) return [fix(outs[0] as ndarray), fix(outs[1] as ndarray)];
        return fix(outs[0] as ndarray);
      });
    },
    /** The q-th percentiles (q in [0, 100], a number or a 1-D array whose axis comes first). */
    percentile: percentileOf('percentile', 1, 'Percentiles'),
    /** The q-th quantiles (q in [0, 1]). */
    quantile: percentileOf('quantile', 100, 'Quantiles'),
    /** The median over `axis` (NaN where a lane has a NaN). */
    median: (a: ArrayLike, o: { readonly axis?: Axis; readonly keepdims?: boolean } = {}) =>
      percentileOf('median', 1, 'Percentiles')(a, 50, { ...o, method: 'midpoint' }),
  };
}
