/**
 * np's reductions with NumPy's signatures (`axis` as one axis, several or null; `keepdims`; `dtype`)
 * and MXNet 2.0's result dtypes (`NumpySumType`: the input's dtype, bool → int64 for sum/prod, an
 * explicit `dtype` wins; `mean` of integers gives the default float; `argmax`/`argmin` give int64).
 * They run MXNet's reduction ops and reshape the result to NumPy's shape (a full reduction is 0-d,
 * where the legacy op gives shape (1,)); the reshape is a view, so it costs nothing.
 */
import { DType, type DTypeName, MXNetError } from '@mx/base';
import type { NDArray } from '../../ndarray.js';
import type { ndarray, ReduceOptions } from '../array.js';
import type { ArrayLike, NpContext } from '../context.js';

const isFloat = (d: DTypeName): boolean => DType[d].kind === 'f';

/** NumPy's result shape of reducing `axes` (undefined: all) of `shape`. */
function reducedShape(
  shape: readonly number[],
  axes: readonly number[] | undefined,
  keepdims: boolean,
): number[] {
  const all = axes === undefined;
  const out: number[] = [];
  shape.forEach((d, i) => {
    if (all || axes.includes(i)) {
      if (keepdims) out.push(1);
    } else out.push(d);
  });
  return out;
}

/** Reshape a fresh result to `shape` (a view), as an np array. */
function shaped(c: NpContext, r: ndarray, shape: readonly number[]): ndarray {
  if (r.shape.length === shape.length && r.shape.every((d, i) => d === shape[i])) return r;
  const v = c.view(r, shape);
  r.dispose();
  return v;
}

/** The reductions of the np namespace. */
export function reduceFunctions(c: NpContext) {
  /** A legacy reduction `op` of `a` in `compute` dtype, shaped as NumPy's. */
  const reduce = (
    fn: string,
    op: string,
    a: ArrayLike,
    o: ReduceOptions,
    compute: (d: DTypeName) => DTypeName,
  ) =>
    c.withTemps((t) => {
      const x = c.operand(a, t);
      const axes = c.axes(o.axis, x.ndim, fn);
      if ((op === 'max' || op === 'min') && x.size === 0) {
        const empty = axes === undefined || axes.some((ax) => x.shape[ax] === 0);
        if (empty) {
          throw new MXNetError(
            `zero-size array to reduction operation ${op === 'max' ? 'maximum' : 'minimum'} which has no identity`,
            { op: fn, shapes: [x.shape], params: { axis: o.axis ?? null } },
          );
        }
      }
      const y = c.cast(x, o.dtype ?? compute(x.dtype), t);
      const r = c.invoke1(op, [y], { axis: axes ?? null, keepdims: o.keepdims ?? false });
      return shaped(c, r, reducedShape(x.shape, axes, o.keepdims ?? false));
    });

  const sumType = (d: DTypeName): DTypeName => (d === 'bool' ? 'int64' : d);
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
        const out = c.invoke1('Cast', [r], { dtype: 'int64' });
        return shaped(c, out, reducedShape(x.shape, [axis], false));
      });

  return {
    /** Sum over `axis` (MXNet 2.0: integer sums keep the dtype; bool sums are int64). */
    sum: (a: ArrayLike, o: ReduceOptions = {}) => reduce('sum', 'sum', a, o, sumType),
    prod: (a: ArrayLike, o: ReduceOptions = {}) => reduce('prod', 'prod', a, o, sumType),
    /** Mean over `axis`; integer and bool arrays give the default float. */
    mean: (a: ArrayLike, o: ReduceOptions = {}) =>
      reduce('mean', 'mean', a, o, (d) => (isFloat(d) ? d : c.defaultFloat())),
    max: (a: ArrayLike, o: ReduceOptions = {}) => reduce('max', 'max', a, o, (d) => d),
    min: (a: ArrayLike, o: ReduceOptions = {}) => reduce('min', 'min', a, o, (d) => d),
    amax: (a: ArrayLike, o: ReduceOptions = {}) => reduce('amax', 'max', a, o, (d) => d),
    amin: (a: ArrayLike, o: ReduceOptions = {}) => reduce('amin', 'min', a, o, (d) => d),
    /** Index of the maximum (int64), over the flattened array unless `axis` is given. */
    argmax: arg('argmax', 'argmax'),
    argmin: arg('argmin', 'argmin'),
  };
}

function keep(temps: NDArray[], a: ndarray): ndarray {
  temps.push(a);
  return a;
}

export type ReduceFunctions = ReturnType<typeof reduceFunctions>;
