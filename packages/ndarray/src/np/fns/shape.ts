/**
 * np's shape functions with NumPy's rules: `reshape` takes one unknown dimension as -1 (no MXNet
 * special codes) and is a view, as MXNet 2.0's reshape; `transpose` reverses or permutes the axes
 * with NumPy's errors. Views go through NDArray's own `reshape`, so autograd and deferred compute
 * record them exactly as they record a legacy reshape.
 */
import { MXNetError, shapeSize } from '@mx/base';
import type { ndarray } from '../array.js';
import type { ArrayLike, NpContext } from '../context.js';

/** A shape as NumPy prints it in reshape errors: `(4,)`, `(4,newaxis)` for -1. */
const tuple = (dims: readonly number[]): string =>
  `(${dims.map((d) => (d === -1 ? 'newaxis' : String(d))).join(',')}${dims.length === 1 ? ',' : ''})`;

/** NumPy's target shape of a reshape (one -1 inferred), or NumPy's error. */
export function npReshapeTarget(
  from: readonly number[],
  shape: number | readonly number[],
  fn = 'reshape',
): number[] {
  const dims = typeof shape === 'number' ? [shape] : [...shape];
  const size = shapeSize(from);
  const unknown = dims.filter((d) => d === -1).length;
  const fail = (msg: string) =>
    new MXNetError(msg, {
      op: fn,
      shapes: [from],
      params: { newshape: dims },
      hint: 'give sizes whose product is the array size, at most one -1',
    });
  if (unknown > 1) throw fail('can only specify one unknown dimension');
  if (dims.some((d) => !Number.isInteger(d) || d < -1))
    throw fail(`negative dimensions not allowed: (${dims.join(', ')})`);
  if (unknown === 1) {
    const known = dims.reduce((p, d) => (d === -1 ? p : p * d), 1);
    if (known === 0 || size % known !== 0)
      throw fail(`cannot reshape array of size ${size} into shape ${tuple(dims)}`);
    return dims.map((d) => (d === -1 ? size / known : d));
  }
  if (shapeSize(dims) !== size) throw fail(`cannot reshape array of size ${size} into shape ${tuple(dims)}`);
  return dims;
}

/** The shape functions of the np namespace. */
export function shapeFunctions(c: NpContext) {
  return {
    /** NumPy `reshape(a, newshape)`: a view with the new shape (one -1 allowed). */
    reshape(a: ArrayLike, newshape: number | readonly number[]): ndarray {
      return c.withTemps((t) => {
        const x = c.operand(a, t);
        c.dense(x, 'reshape');
        const target = npReshapeTarget(x.shape, newshape);
        return c.view(x, target);
      });
    },

    /** NumPy `transpose(a, axes)`: reversed axes, or the permutation `axes`. */
    transpose(a: ArrayLike, axes?: readonly number[] | null): ndarray {
      return c.withTemps((t) => {
        const x = c.operand(a, t);
        if (axes === undefined || axes === null) return c.invoke1('transpose', [x]);
        if (axes.length !== x.ndim) {
          throw new MXNetError("axes don't match array", {
            op: 'transpose',
            shapes: [x.shape],
            params: { axes },
            hint: `give a permutation of ${x.ndim} axes`,
          });
        }
        c.axes(axes, x.ndim, 'transpose'); // range and repeats, NumPy's errors
        return c.invoke1('transpose', [x], { axes: axes.map((ax) => (ax < 0 ? ax + x.ndim : ax)) });
      });
    },
  };
}

export type ShapeFunctions = ReturnType<typeof shapeFunctions>;
