/**
 * The array-API names of `np.linalg` in MXNet 2.0 (python/mxnet/numpy/linalg.py): thin wrappers
 * over functions np already has, composed as MXNet's Python composes them — `tensordot`, `outer`,
 * `trace` (MXNet keeps axes 0 and 1), `cross(axis)`, `matrixTranspose` (swapaxes of the last two),
 * `diagonal` (MXNet's `diag(a, k=offset)`, so 2-D inputs record `_npi_diag`), `svdvals` (svd's s),
 * `matrixNorm` / `vectorNorm` (norm with the array API's axes). Two deliberate deviations: `vecdot`
 * is the array API's `sum(a * b, axis)` (MXNet 2.0's flattens both and calls tensordot with `axis`
 * as its `axes`, which fails for its own default axis=None), and `diagonal` of a > 2-D input takes
 * the last two axes (`_npi_diagonal`), where MXNet's diag refuses it.
 */
import { MXNetError } from '@mx/base';
import type { NDArray } from '../../ndarray.js';
import type { ndarray } from '../array.js';
import type { ArrayLike, NpContext } from '../context.js';
import { type NormOrder, normFunction } from './linalg-norm.js';
import { productFunctions, type TensordotAxes } from './products.js';
import { reduceFunctions } from './reduce.js';
import { shapeFunctions } from './shape.js';
import { ufuncFunctions } from './ufunc.js';

type Svd3 = (a: ArrayLike, t: NDArray[]) => [ndarray, ndarray, ndarray];

/** `vectorNorm`'s / `matrixNorm`'s options. */
export interface ApiNormOptions {
  readonly ord?: NormOrder;
  readonly axis?: number | readonly number[] | null;
  readonly keepdims?: boolean;
}

export function arrayApiLinalg(c: NpContext, svd3: Svd3) {
  const products = productFunctions(c);
  const { norm } = normFunction(c, svd3);
  const shape = shapeFunctions(c);
  const { multiply } = ufuncFunctions(c);
  const { sum } = reduceFunctions(c);
  const err = (fn: string, msg: string, x: NDArray, hint: string) =>
    new MXNetError(msg, { op: `linalg.${fn}`, shapes: [x.shape], hint });

  return {
    /** `tensordot(a, b, axes=2)` (np.tensordot). */
    tensordot: (a: ArrayLike, b: ArrayLike, axes: TensordotAxes = 2): ndarray =>
      products.tensordot(a, b, axes),

    /** The outer product of the flattened arrays (np.outer). */
    outer: (a: ArrayLike, b: ArrayLike): ndarray => products.outer(a, b),

    /** `trace(a, offset=0)`: sums along diagonal `offset` of axes 0 and 1 (MXNet 2.0's axes). */
    trace: (a: ArrayLike, offset = 0): ndarray => products.trace(a, offset, 0, 1),

    /** `cross(a, b, axis=-1)`: np.cross with axisa = axisb = axisc = axis. */
    cross: (a: ArrayLike, b: ArrayLike, axis = -1): ndarray =>
      products.cross(a, b, { axisa: axis, axisb: axis, axisc: axis, axis }),

    /** The last two axes swapped; at least 2-D. */
    matrixTranspose(a: ArrayLike): ndarray {
      return c.withTemps((t) => {
        const x = c.operand(a, t);
        if (x.ndim < 2) {
          throw err(
            'matrix_transpose',
            'x must be at least 2-dimensional for matrix_transpose',
            x,
            'pass an array of at least 2 dimensions',
          );
        }
        return shape.swapaxes(x, -1, -2);
      });
    },

    /** Diagonal `offset` of the last two axes (2-D: MXNet's `_npi_diag`). */
    diagonal(a: ArrayLike, offset = 0): ndarray {
      return c.withTemps((t) => {
        const x = c.operand(a, t);
        if (x.ndim < 2) {
          throw err(
            'diagonal',
            'diag requires an array of at least two dimensions',
            x,
            'pass an array of at least 2 dimensions',
          );
        }
        if (x.ndim === 2) return c.invoke1('_npi_diag', [x], { k: offset });
        return c.invoke1('_npi_diagonal', [x], { offset, axis1: -2, axis2: -1 });
      });
    },

    /** The singular values, descending (svd's s). */
    svdvals(a: ArrayLike): ndarray {
      return c.withTemps((t) => {
        const [u, s, v] = svd3(a, t);
        t.push(u, v);
        return s;
      });
    },

    /**
     * `vecdot(a, b, axis=-1)`: the array API's vector dot product, `sum(a * b, axis)` with a and b
     * broadcast (NumPy's promotion of the product and the sum).
     */
    vecdot(a: ArrayLike, b: ArrayLike, axis = -1): ndarray {
      return c.withTemps((t) => {
        const p = multiply(a, b);
        t.push(p);
        if (p.ndim === 0)
          throw err('vecdot', 'vecdot requires at least 1-dimensional inputs', p, 'pass vectors');
        return sum(p, { axis });
      });
    },

    /**
     * The vector norm over `axis` (an int, several axes taken as one vector, or null for all),
     * `ord` as `norm`'s vector orders (default 2); `keepdims` keeps every reduced axis as 1.
     */
    vectorNorm(x: ArrayLike, options: ApiNormOptions = {}): ndarray {
      const { ord = null, axis = null, keepdims = false } = options;
      if (typeof axis === 'number') return norm(x, { ord, axis, keepdims });
      return c.withTemps((t) => {
        const a = c.operand(x, t);
        const axes =
          c.axes(axis, a.ndim, 'linalg.vector_norm') ?? Array.from({ length: a.ndim }, (_, i) => i);
        const rest = Array.from({ length: a.ndim }, (_, i) => i).filter((i) => !axes.includes(i));
        const front = shape.transpose(a, [...axes, ...rest]);
        t.push(front);
        const n = axes.reduce((p, i) => p * (a.shape[i] as number), 1);
        const flat = c.view(front, [n, ...rest.map((i) => a.shape[i] as number)]);
        t.push(flat);
        const r = norm(flat, { ord, axis: 0 });
        if (!keepdims) return r;
        t.push(r);
        return c.view(
          r,
          a.shape.map((d, i) => (axes.includes(i) ? 1 : d)),
        );
      });
    },

    /** The matrix norm over the 2-tuple `axis` (default the last two), `ord` default 'fro'. */
    matrixNorm(x: ArrayLike, options: ApiNormOptions = {}): ndarray {
      const { ord = 'fro', axis = [-2, -1], keepdims = false } = options;
      if (!Array.isArray(axis) || axis.length !== 2) {
        throw new MXNetError('The axis of matrix_norm must be a 2-tuple of ints', {
          op: 'linalg.matrix_norm',
          params: { axis },
          hint: 'pass axis as [axis1, axis2]',
        });
      }
      return norm(x, { ord, axis, keepdims });
    },
  };
}
