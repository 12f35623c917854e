/**
 * np's shape functions with NumPy's rules and errors, on MXNet 2.0's ops (`_npi_moveaxis`,
 * `_npi_swapaxes`, `_npi_rollaxis`, `_npi_expand_dims`, `_npi_squeeze`, `_npi_broadcast_to`,
 * `_npi_atleast_Nd`), so traces record what MXNet 2.0 writes. `reshape` takes one unknown
 * dimension as -1 (no MXNet special codes) and, like `ravel`, is a view, as MXNet 2.0's reshape;
 * `transpose` reverses or permutes the axes. Views go through NDArray's own `reshape`, so autograd
 * and deferred compute record them exactly as they record a legacy reshape. Checks run here, before
 * any op is pushed, so errors carry NumPy's wording.
 *
 * Joining and splitting live in shape-join.ts, element rearrangements (tile, repeat, flip, roll,
 * rot90, pad, insert, delete, append, resize) in shape-edit.ts; both are spread into this object.
 */
import { MXNetError, shapeSize } from '@mx/base';
import type { NDArray } from '../../ndarray.js';
import type { ndarray } from '../array.js';
import type { ArrayLike, NpContext } from '../context.js';
import { editFunctions } from './shape-edit.js';
import { joinFunctions } from './shape-join.js';
import { broadcastShapes, npAxis, npError, tuple } from './shape-util.js';

export { broadcastShapes, npAxis, npError, pyShape } from './shape-util.js';

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
  const withOne = (a: ArrayLike, fn: string, body: (x: NDArray, t: NDArray[]) => ndarray): ndarray =>
    c.withTemps((t) => {
      const x = c.operand(a, t);
      c.dense(x, fn);
      return body(x, t);
    });

  /** NumPy `broadcast_to`'s checks; returns the target. */
  const broadcastTarget = (from: readonly number[], shape: number | readonly number[]): number[] => {
    const to = typeof shape === 'number' ? [shape] : [...shape];
    const hint = 'each input dimension must equal the target one or be 1 (new axes go in front)';
    if (to.some((d) => d < 0))
      throw npError('broadcast_to', 'all elements of broadcast shape must be non-negative', [from], hint);
    if (to.length === 0 && from.length > 0)
      throw npError('broadcast_to', 'cannot broadcast a non-scalar to a scalar array', [from], hint);
    const pad = to.length - from.length;
    if (pad < 0 || from.some((d, i) => d !== 1 && d !== to[i + pad]))
      throw npError(
        'broadcast_to',
        `operands could not be broadcast together with remapped shapes [original->remapped]: ${tuple(from)}  and requested shape ${tuple(to)}`,
        [from],
        hint,
      );
    return to;
  };

  const atleast = (n: 1 | 2 | 3, arys: readonly ArrayLike[]): ndarray | ndarray[] =>
    c.withTemps((t) => {
      const xs = arys.map((a) => c.operand(a, t));
      const outs = c.invoke(`_npi_atleast_${n}d`, xs, { num_args: xs.length });
      return outs.length === 1 ? (outs[0] as ndarray) : outs;
    });

  const transpose = (a: ArrayLike, axes?: readonly number[] | null): ndarray => {
    return withOne(a, 'transpose', (x) => {
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
  };

  return {
    /** NumPy `reshape(a, newshape)`: a view with the new shape (one -1 allowed). */
    reshape(a: ArrayLike, newshape: number | readonly number[]): ndarray {
      return withOne(a, 'reshape', (x) => c.view(x, npReshapeTarget(x.shape, newshape)));
    },

    /** NumPy `ravel(a)`: the flattened array, a view (arrays are contiguous). */
    ravel(a: ArrayLike): ndarray {
      return withOne(a, 'ravel', (x) => c.view(x, [x.size]));
    },

    /** NumPy `transpose(a, axes)`: reversed axes, or the permutation `axes`. */
    transpose,

    /** Array API `permute_dims(x, axes)`: `transpose` with the axes given. */
    permuteDims(a: ArrayLike, axes: readonly number[]): ndarray {
      return transpose(a, axes);
    },

    /** NumPy `moveaxis(a, source, destination)`: axes moved, the others in their order. */
    moveaxis(
      a: ArrayLike,
      source: number | readonly number[],
      destination: number | readonly number[],
    ): ndarray {
      return withOne(a, 'moveaxis', (x) => {
        const norm = (v: number | readonly number[], name: string) => {
          const list = (typeof v === 'number' ? [v] : [...v]).map((ax) =>
            npAxis(ax, x.ndim, 'moveaxis', name),
          );
          if (new Set(list).size !== list.length)
            throw npError(
              'moveaxis',
              `repeated axis in \`${name}\` argument`,
              [x.shape],
              'name each axis once',
            );
          return list;
        };
        const src = norm(source, 'source');
        const dst = norm(destination, 'destination');
        if (src.length !== dst.length)
          throw npError(
            'moveaxis',
            '`source` and `destination` arguments must have the same number of elements',
            [x.shape],
            'give one destination per source axis',
          );
        return c.invoke1('_npi_moveaxis', [x], { source: src, destination: dst });
      });
    },

    /** NumPy `swapaxes(a, axis1, axis2)`. */
    swapaxes(a: ArrayLike, axis1: number, axis2: number): ndarray {
      return withOne(a, 'swapaxes', (x) => {
        const d1 = npAxis(axis1, x.ndim, 'swapaxes', 'axis1');
        const d2 = npAxis(axis2, x.ndim, 'swapaxes', 'axis2');
        return c.invoke1('_npi_swapaxes', [x], { dim1: d1, dim2: d2 });
      });
    },

    /** NumPy `rollaxis(a, axis, start=0)`: `axis` rolled back until it lies before `start`. */
    rollaxis(a: ArrayLike, axis: number, options: { readonly start?: number } = {}): ndarray {
      return withOne(a, 'rollaxis', (x) => {
        const n = x.ndim;
        const ax = npAxis(axis, n, 'rollaxis');
        const start = options.start ?? 0;
        if (!(start >= -n && start < n + 1))
          throw new MXNetError(`'start' arg requires ${-n} <= start < ${n + 1}, but ${start} was passed in`, {
            op: 'rollaxis',
            shapes: [x.shape],
            hint: `use a start in [${-n}, ${n}]`,
          });
        return c.invoke1('_npi_rollaxis', [x], { axis: ax, start: start < 0 ? start + n : start });
      });
    },

    /** NumPy `expand_dims(a, axis)`: new length-1 axes at the positions of the result in `axis`. */
    expandDims(a: ArrayLike, axis: number | readonly number[]): ndarray {
      return withOne(a, 'expand_dims', (x, t) => {
        const list = typeof axis === 'number' ? [axis] : [...axis];
        const nd = x.ndim + list.length;
        const axes = list.map((ax) => npAxis(ax, nd, 'expand_dims'));
        if (new Set(axes).size !== axes.length)
          throw npError('expand_dims', 'repeated axis', [x.shape], 'name each new axis once');
        if (axes.length === 1) return c.invoke1('_npi_expand_dims', [x], { axis: axes[0] });
        // Several axes: one insertion at a time, in increasing order (positions of the result).
        let y: NDArray = x;
        for (const ax of axes.sort((p, q) => p - q)) {
          y = c.invoke1('_npi_expand_dims', [y], { axis: ax });
          t.push(y);
        }
        t.pop();
        return y as ndarray;
      });
    },

    /** NumPy `squeeze(a, axis=None)`: length-1 axes removed (all, or those in `axis`). */
    squeeze(a: ArrayLike, options: { readonly axis?: number | readonly number[] | null } = {}): ndarray {
      return withOne(a, 'squeeze', (x) => {
        const axes = c.axes(options.axis, x.ndim, 'squeeze');
        if (axes?.some((ax) => x.shape[ax] !== 1))
          throw npError(
            'squeeze',
            'cannot select an axis to squeeze out which has size not equal to one',
            [x.shape],
            'name only axes of length 1',
          );
        return c.invoke1('_npi_squeeze', [x], { axis: axes ?? null });
      });
    },

    /** NumPy `broadcast_to(array, shape)`: the array repeated along new or length-1 axes. */
    broadcastTo(a: ArrayLike, shape: number | readonly number[]): ndarray {
      return withOne(a, 'broadcast_to', (x) =>
        c.invoke1('_npi_broadcast_to', [x], { shape: broadcastTarget(x.shape, shape) }),
      );
    },

    /** NumPy `broadcast_arrays(*args)`: every argument broadcast to their common shape. */
    broadcastArrays(...args: readonly ArrayLike[]): ndarray[] {
      return c.withTemps((t) => {
        const xs = args.map((a) => c.operand(a, t));
        const to = broadcastShapes(
          xs.map((x) => x.shape),
          'broadcast_arrays',
        );
        return xs.map((x) => c.invoke1('_npi_broadcast_to', [x], { shape: to }));
      });
    },

    /** NumPy `atleast_1d(*arys)`: one array (one argument) or a list. */
    atleast1d(...arys: readonly ArrayLike[]): ndarray | ndarray[] {
      return atleast(1, arys);
    },
    /** NumPy `atleast_2d(*arys)`: 0-d → (1, 1), 1-d (N) → (1, N). */
    atleast2d(...arys: readonly ArrayLike[]): ndarray | ndarray[] {
      return atleast(2, arys);
    },
    /** NumPy `atleast_3d(*arys)`: 0-d → (1, 1, 1), (N) → (1, N, 1), (M, N) → (M, N, 1). */
    atleast3d(...arys: readonly ArrayLike[]): ndarray | ndarray[] {
      return atleast(3, arys);
    },

    /** NumPy `shape(a)`. */
    shape(a: ArrayLike): number[] {
      return c.withTemps((t) => [...c.operand(a, t).shape]);
    },
    /** NumPy `ndim(a)`. */
    ndim(a: ArrayLike): number {
      return c.withTemps((t) => c.operand(a, t).ndim);
    },
    /** NumPy `size(a, axis=None)`. */
    size(a: ArrayLike, options: { readonly axis?: number | null } = {}): number {
      return c.withTemps((t) => {
        const x = c.operand(a, t);
        if (options.axis === undefined || options.axis === null) return x.size;
        return x.shape[npAxis(options.axis, x.ndim, 'size')] as number;
      });
    },

    ...joinFunctions(c),
    ...editFunctions(c),
  };
}

export type ShapeFunctions = ReturnType<typeof shapeFunctions>;
