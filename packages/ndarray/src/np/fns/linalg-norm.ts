/**
 * `np.linalg.norm`, composed from reductions as NumPy 1.24's Python composes it (MXNet 2.0 routes
 * the vector and Frobenius cases through a fused `_npi_norm`; the values are the same and the
 * composition is differentiable on every backend). Matrix 2-norms and the nuclear norm come from
 * the singular values (MXNet's svd, through the transpose when M > N). Integer and bool inputs are
 * cast to the default float first (NumPy: float64; MXNet's default-float rule).
 */
import { MXNetError } from '@mx/base';
import type { NDArray } from '../../ndarray.js';
import type { ndarray } from '../array.js';
import type { ArrayLike, NpContext } from '../context.js';

/** NumPy's `ord`: a number (Infinity, -Infinity allowed), or 'fro' / 'f' / 'nuc' / 'inf' / '-inf'. */
export type NormOrder = number | 'fro' | 'f' | 'nuc' | 'inf' | '-inf' | null;

/** `norm`'s options (NumPy's keywords). */
export interface NormOptions {
  readonly ord?: NormOrder;
  readonly axis?: number | readonly number[] | null;
  readonly keepdims?: boolean;
}

type Svd3 = (a: ArrayLike, t: NDArray[]) => [ndarray, ndarray, ndarray];

export function normFunction(c: NpContext, svd3: Svd3) {
  return {
    /** NumPy `linalg.norm(x, ord, axis, keepdims)`: vector norms over one axis, matrix norms over two. */
    norm(x: ArrayLike, options: NormOptions = {}): ndarray {
      const ordIn = options.ord ?? null;
      const ord: number | string | null =
        ordIn === 'inf' ? Number.POSITIVE_INFINITY : ordIn === '-inf' ? Number.NEGATIVE_INFINITY : ordIn;
      const keepdims = options.keepdims ?? false;
      return c.withTemps((t) => {
        let a = c.operand(x, t);
        const isFloat = ['float16', 'bfloat16', 'float32', 'float64'].includes(a.dtype);
        if (!isFloat) a = c.cast(a, c.defaultFloat(), t);
        const nd = a.ndim;
        const keep = <T extends NDArray>(y: T): T => {
          t.push(y);
          return y;
        };
        const op = (name: string, ins: NDArray[], p?: Record<string, unknown>) =>
          keep(c.invoke1(name, ins, p));
        const reduce = (name: string, y: NDArray, axes: number[], kd = keepdims) =>
          op(name, [y], { axis: axes, keepdims: kd });
        /** The result `y` viewed as `shape` (the legacy reductions give (1,) for a full reduction). */
        const finish = (y: NDArray, shape: number[]): ndarray => {
          if (y.shape.length === shape.length && y.shape.every((d, i) => d === shape[i])) {
            t.splice(t.indexOf(y), 1);
            return c.asNp(y);
          }
          return c.view(y, shape);
        };
        const reducedShape = (axes: readonly number[]) =>
          keepdims
            ? a.shape.map((d, i) => (axes.includes(i) ? 1 : d))
            : a.shape.filter((_, i) => !axes.includes(i));
        const allAxes = Array.from({ length: nd }, (_, i) => i);
        const axis = options.axis;
        if (axis !== undefined && axis !== null && typeof axis !== 'number' && !Array.isArray(axis)) {
          throw new MXNetError("'axis' must be None, an integer or a tuple of integers", {
            op: 'norm',
            params: { axis: String(axis) },
            hint: 'pass a number or an array of numbers',
          });
        }
        // The fast path NumPy takes: 2-norm of everything.
        if (
          (axis === null || axis === undefined) &&
          (ord === null || ((ord === 'fro' || ord === 'f') && nd === 2) || (ord === 2 && nd === 1))
        ) {
          const r = op('sqrt', [reduce('sum', op('square', [a]), allAxes, false)]);
          return finish(r, keepdims ? allAxes.map(() => 1) : []);
        }
        const list =
          axis === null || axis === undefined ? allAxes : typeof axis === 'number' ? [axis] : [...axis];
        if (list.length === 1) {
          const ax = c.axes(list, nd, 'norm') as number[];
          if (typeof ord === 'string') {
            throw new MXNetError(`Invalid norm order '${ord}' for vectors`, {
              op: 'norm',
              params: { ord },
              hint: 'vector norms take a number (or inf, -inf)',
            });
          }
          const abs = op('abs', [a]);
          const done = (y: NDArray) => finish(y, reducedShape(ax));
          if (ord === Number.POSITIVE_INFINITY) return done(reduce('max', abs, ax));
          if (ord === Number.NEGATIVE_INFINITY) return done(reduce('min', abs, ax));
          if (ord === 0) return done(reduce('sum', op('_not_equal_scalar', [a], { scalar: 0 }), ax));
          if (ord === 1) return done(reduce('sum', abs, ax));
          if (ord === null || ord === 2) return done(op('sqrt', [reduce('sum', op('square', [a]), ax)]));
          const p = op('_power_scalar', [abs], { scalar: ord });
          return done(op('_power_scalar', [reduce('sum', p, ax)], { scalar: 1 / ord }));
        }
        if (list.length === 2) {
          const [row, col] = list.map((v) => c.axes(v, nd, 'norm')?.[0] as number) as [number, number];
          if (row === col) {
            throw new MXNetError('Duplicate axes given.', {
              op: 'norm',
              params: { axis: list },
              hint: 'a matrix norm needs two different axes',
            });
          }
          const out = (y: NDArray) => finish(y, reducedShape([row, col]));
          const abs = () => op('abs', [a]);
          if (ord === 2 || ord === -2 || ord === 'nuc') {
            const rest = allAxes.filter((i) => i !== row && i !== col);
            const moved = op('transpose', [a], { axes: [...rest, row, col] });
            const [u, s, v] = svd3(moved, t);
            t.push(u, s, v);
            const name = ord === 2 ? 'max' : ord === -2 ? 'min' : 'sum';
            return out(reduce(name, s, [s.ndim - 1], false));
          }
          if (ord === 1 || ord === -1) {
            const cAx = col > row ? col - 1 : col;
            return out(reduce(ord === 1 ? 'max' : 'min', reduce('sum', abs(), [row], false), [cAx], false));
          }
          if (ord === Number.POSITIVE_INFINITY || ord === Number.NEGATIVE_INFINITY) {
            const rAx = row > col ? row - 1 : row;
            const name = ord > 0 ? 'max' : 'min';
            return out(reduce(name, reduce('sum', abs(), [col], false), [rAx], false));
          }
          if (ord === null || ord === 'fro' || ord === 'f') {
            return out(op('sqrt', [reduce('sum', op('square', [a]), [row, col].sort(), false)]));
          }
          throw new MXNetError('Invalid norm order for matrices.', {
            op: 'norm',
            params: { ord: String(ord) },
            hint: "matrix norms take 'fro', 'nuc', inf, -inf, 1, -1, 2, -2",
          });
        }
        throw new MXNetError('Improper number of dimensions to norm.', {
          op: 'norm',
          shapes: [a.shape],
          params: { axis: list, ord: String(ord) },
          hint: 'give axis as one axis (vector norm) or two (matrix norm)',
        });
      });
    },
  };
}
