/**
 * np's counting functions on MXNet 2.0's ops: `bincount` (`_npi_bincount`), `histogram`
 * (`_npi_histogram`) and `diff` (`_npi_diff`). bincount's output length depends on the data: MXNet
 * sizes it while running; here the maximum is read eagerly (a synchronous read, so cpu-wasm only
 * until the dynamic-shape route lands) and passed as `minlength`. histogram with a bin count and no
 * range reads the data's min/max the same way (MXNet 2.0 refuses that case); weights and density
 * are not supported (MXNet 2.0 neither).
 */
import { DType, type DTypeName, MXNetError } from '@mx/base';
import type { NDArray } from '../../ndarray.js';
import type { ndarray } from '../array.js';
import type { ArrayLike, NpContext } from '../context.js';

const kind = (d: DTypeName) => DType[d].kind;

export function countFunctions(c: NpContext) {
  /** A number read from a 0-d/size-1 array result (disposed). */
  const scalarOf = (r: ndarray): number => {
    try {
      return Number((r.dataSync() as unknown as (number | bigint)[])[0]);
    } finally {
      r.dispose();
    }
  };

  return {
    /** Counts of each non-negative integer value (int64), or the sums of `weights` per value. */
    bincount(
      x: ArrayLike,
      o: { readonly weights?: ArrayLike | null; readonly minlength?: number } = {},
    ): ndarray {
      return c.withTemps((t) => {
        const d = c.operand(x, t);
        const minlength = o.minlength ?? 0;
        if (minlength < 0) throw new MXNetError("'minlength' must not be negative", { op: 'bincount' });
        if (d.ndim !== 1)
          throw new MXNetError('object too deep for desired array', { op: 'bincount', shapes: [d.shape] });
        if (kind(d.dtype) === 'f') {
          throw new MXNetError(
            `Cannot cast array data from dtype('${d.dtype}') to dtype('int64') according to the rule 'safe'`,
            { op: 'bincount', dtypes: [d.dtype], hint: 'bincount counts integers: cast first' },
          );
        }
        let len = minlength;
        if (d.size > 0) {
          const lo = scalarOf(c.invoke1('_npi_min', [d], { axis: null, keepdims: false }));
          if (lo < 0)
            throw new MXNetError("'list' argument must have no negative elements", { op: 'bincount' });
          len = Math.max(len, scalarOf(c.invoke1('_npi_max', [d], { axis: null, keepdims: false })) + 1);
        }
        const w = o.weights === undefined || o.weights === null ? undefined : c.operand(o.weights, t);
        return c.invoke1('_npi_bincount', w === undefined ? [d] : [d, w], {
          minlength: len,
          has_weights: w !== undefined,
        });
      });
    },

    /**
     * Histogram: `[counts (int64), edges]`. `bins` is a count of equal bins over `range` (the data's
     * min/max when omitted) or the edges (a 1-D array, increasing).
     */
    histogram(
      a: ArrayLike,
      o: { readonly bins?: number | ArrayLike; readonly range?: readonly [number, number] | null } = {},
    ): [ndarray, ndarray] {
      return c.withTemps((t) => {
        let x = c.operand(a, t);
        if (kind(x.dtype) !== 'f') x = c.cast(x, c.defaultFloat(), t);
        if (x.ndim !== 1) x = t[t.push(c.view(x, [x.size])) - 1] as NDArray;
        const bins = o.bins ?? 10;
        if (typeof bins === 'number') {
          if (!Number.isInteger(bins) || bins < 1)
            throw new MXNetError('`bins` must be positive, when an integer', {
              op: 'histogram',
              params: { bins },
            });
          let lo: number;
          let hi: number;
          if (o.range !== undefined && o.range !== null) {
            [lo, hi] = o.range;
            if (lo > hi)
              throw new MXNetError('max must be larger than min in range parameter.', { op: 'histogram' });
            if (!Number.isFinite(lo) || !Number.isFinite(hi))
              throw new MXNetError(`supplied range of [${lo}, ${hi}] is not finite`, { op: 'histogram' });
          } else if (x.size === 0) {
            [lo, hi] = [0, 1];
          } else {
            lo = scalarOf(c.invoke1('_npi_min', [x], { axis: null, keepdims: false }));
            hi = scalarOf(c.invoke1('_npi_max', [x], { axis: null, keepdims: false }));
            if (!Number.isFinite(lo) || !Number.isFinite(hi))
              throw new MXNetError(`autodetected range of [${lo}, ${hi}] is not finite`, { op: 'histogram' });
          }
          if (lo === hi) [lo, hi] = [lo - 0.5, hi + 0.5];
          const [h, e] = c.invoke('_npi_histogram', [x], { bin_cnt: bins, range: [lo, hi] });
          return [h as ndarray, e as ndarray];
        }
        const edges = c.cast(c.operand(bins, t, x.dtype), x.dtype, t);
        if (edges.ndim !== 1) throw new MXNetError('`bins` must be 1d, when an array', { op: 'histogram' });
        const [h, e] = c.invoke('_npi_histogram', [x, edges], { bin_cnt: null, range: null });
        return [h as ndarray, e as ndarray];
      });
    },

    /** The n-th discrete difference along `axis` (default the last). */
    diff(a: ArrayLike, o: { readonly n?: number; readonly axis?: number } = {}): ndarray {
      return c.withTemps((t) => {
        const x = c.operand(a, t);
        const n = o.n ?? 1;
        if (n < 0) throw new MXNetError(`order must be non-negative but got ${n}`, { op: 'diff' });
        if (x.ndim === 0)
          throw new MXNetError('diff requires input that is at least one dimensional', {
            op: 'diff',
            shapes: [x.shape],
          });
        const axis = (c.axes(o.axis ?? -1, x.ndim, 'diff') as number[])[0] as number;
        if (x.dtype === 'bool') {
          throw new MXNetError('np.diff of bool arrays is not supported (NumPy uses not_equal there)', {
            op: 'diff',
            dtypes: [x.dtype],
            hint: "cast to an integer dtype first: x.astype('int32')",
          });
        }
        const y = x.dtype === 'float16' ? c.cast(x, 'float32', t) : x;
        const r = c.invoke1('_npi_diff', [y], { n, axis });
        if (r.dtype === x.dtype) return r;
        t.push(r);
        return c.invoke1('Cast', [r], { dtype: x.dtype });
      });
    },
  };
}
