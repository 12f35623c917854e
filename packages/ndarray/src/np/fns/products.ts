/**
 * np's products (MXNet 2.0 `mx.np`): each calls the op MXNet 2.0's Python calls — `_npi_dot`,
 * `_npi_matmul`, `_npi_tensordot` / `_npi_tensordot_int_axes`, `_npi_einsum`, `_npi_kron`,
 * `_npi_trace` — and composes where MXNet composes (`vdot`, `inner`, `outer` are tensordots of
 * views, as in MXNet's `_op.py`; `cross` is in products-cross.ts). Operands of two dtypes are
 * promoted first (NumPy's rule, JS numbers weak), so the ops see one dtype as MXNet's do; the ops
 * and their gradients are einsums on cpu-wasm (@mx/ops `lowerProduct`), so every product is
 * differentiable through `rt.autograd`.
 */
import { MXNetError } from '@mx/base';
import { NDArray } from '../../ndarray.js';
import type { ndarray } from '../array.js';
import type { ArrayLike, NpContext } from '../context.js';
import { crossFunction } from './products-cross.js';

/** `tensordot`'s axes: a count, or the two lists (or single axes) to sum over. */
export type TensordotAxes = number | readonly [number | readonly number[], number | readonly number[]];

/** `einsum`'s options (NumPy's keywords). */
export interface EinsumOptions {
  /** Contraction order: false (one pass, NumPy's default), true / 'greedy', or 'optimal'. */
  readonly optimize?: boolean | 'greedy' | 'optimal';
}

const fmt = (s: readonly number[]) => `(${s.join(',')}${s.length === 1 ? ',' : ''})`;

/** The products of the np namespace. */
export function productFunctions(c: NpContext) {
  /** Both operands as arrays of their NumPy result dtype (temporaries into `t`). */
  const promote = (a: ArrayLike, b: ArrayLike, t: NDArray[]): [NDArray, NDArray] => {
    const r = c.resultType(a, b);
    return [c.cast(c.operand(a, t), r, t), c.cast(c.operand(b, t), r, t)];
  };
  const flat = (x: NDArray, t: NDArray[]): NDArray => {
    const v = c.view(x, [x.size]);
    t.push(v);
    return v;
  };

  const tensordot = (a: ArrayLike, b: ArrayLike, axes: TensordotAxes = 2): ndarray =>
    c.withTemps((t) => {
      const [x, y] = promote(a, b, t);
      if (typeof axes === 'number') {
        if (!Number.isInteger(axes)) {
          throw new MXNetError(`tensordot: axes must be an integer or a pair of axis lists, got ${axes}`, {
            op: 'tensordot',
            params: { axes },
            hint: 'pass axes as an int or [aAxes, bAxes]',
          });
        }
        return c.invoke1('_npi_tensordot_int_axes', [x, y], { axes });
      }
      const list = (v: number | readonly number[]) => (typeof v === 'number' ? [v] : [...v]);
      return c.invoke1('_npi_tensordot', [x, y], {
        a_axes_summed: list(axes[0]),
        b_axes_summed: list(axes[1]),
      });
    });

  return {
    /** NumPy `dot(a, b)`: scalars multiply; else the sum product over a's last axis and b's second-to-last. */
    dot(a: ArrayLike, b: ArrayLike): ndarray {
      return c.withTemps((t) => c.invoke1('_npi_dot', promote(a, b, t)));
    },

    /** NumPy `vdot(a, b)`: the dot product of the flattened arrays (a 0-d array). */
    vdot(a: ArrayLike, b: ArrayLike): ndarray {
      return c.withTemps((t) => {
        const [x, y] = promote(a, b, t);
        if (x.size !== y.size) {
          throw new MXNetError(`cannot reshape array of size ${y.size} into shape ${fmt([x.size])}`, {
            op: 'vdot',
            shapes: [x.shape, y.shape],
            hint: 'vdot needs operands of the same size',
          });
        }
        return c.invoke1('_npi_tensordot_int_axes', [flat(x, t), flat(y, t)], { axes: 1 });
      });
    },

    /** NumPy `inner(a, b)`: the sum product over the last axes (scalars multiply). */
    inner(a: ArrayLike, b: ArrayLike): ndarray {
      return c.withTemps((t) => {
        const [x, y] = promote(a, b, t);
        if (x.ndim === 0 || y.ndim === 0) return c.invoke1('_npi_dot', [x, y]);
        const k = x.shape[x.ndim - 1] as number;
        const kb = y.shape[y.ndim - 1] as number;
        if (k !== kb) {
          throw new MXNetError(
            `shapes ${fmt(x.shape)} and ${fmt(y.shape)} not aligned: ${k} (dim ${x.ndim - 1}) != ${kb} (dim ${y.ndim - 1})`,
            {
              op: 'inner',
              shapes: [x.shape, y.shape],
              hint: 'the last axes of a and b must have equal lengths',
            },
          );
        }
        return c.invoke1('_npi_tensordot', [x, y], { a_axes_summed: [-1], b_axes_summed: [-1] });
      });
    },

    /** NumPy `outer(a, b)`: every product of a's and b's elements (both flattened), shape (a.size, b.size). */
    outer(a: ArrayLike, b: ArrayLike): ndarray {
      return c.withTemps((t) => {
        const [x, y] = promote(a, b, t);
        return c.invoke1('_npi_tensordot_int_axes', [flat(x, t), flat(y, t)], { axes: 0 });
      });
    },

    /** NumPy `matmul(a, b)`: matrix products of the last two axes, batch axes broadcast, 1-D promoted. */
    matmul(a: ArrayLike, b: ArrayLike): ndarray {
      return c.withTemps((t) => c.invoke1('_npi_matmul', promote(a, b, t)));
    },

    /** NumPy `tensordot(a, b, axes=2)`. */
    tensordot,

    /**
     * NumPy `einsum(subscripts, ...operands, { optimize })`: the last argument may be the options.
     * Operands of several dtypes are promoted (NumPy's rule).
     */
    einsum(subscripts: string, ...args: readonly (ArrayLike | EinsumOptions)[]): ndarray {
      const last = args[args.length - 1];
      const isOptions =
        last !== undefined && typeof last === 'object' && !Array.isArray(last) && !(last instanceof NDArray);
      const opts = (isOptions ? last : {}) as EinsumOptions;
      const operands = (isOptions ? args.slice(0, -1) : args) as readonly ArrayLike[];
      if (typeof subscripts !== 'string') {
        throw new MXNetError('einsum: the first argument must be the subscripts string', {
          op: 'einsum',
          hint: "call np.einsum('ij,jk->ik', a, b)",
        });
      }
      const o = opts.optimize ?? false;
      const optimize = o === false ? 0 : o === 'optimal' ? 2 : 1;
      return c.withTemps((t) => {
        const xs = operands.map((x) => c.operand(x, t));
        return c.invoke1('_npi_einsum', xs, { num_args: xs.length, subscripts, optimize });
      });
    },

    /** NumPy `kron(a, b)`: the Kronecker product. */
    kron(a: ArrayLike, b: ArrayLike): ndarray {
      return c.withTemps((t) => c.invoke1('_npi_kron', promote(a, b, t)));
    },

    /**
     * NumPy `trace(a, offset=0, axis1=0, axis2=1)`: sums along diagonals. Integer inputs keep their
     * dtype (MXNet 2.0's `_npi_trace`); bool sums are int64, as `sum`'s.
     */
    trace(a: ArrayLike, offset = 0, axis1 = 0, axis2 = 1): ndarray {
      return c.withTemps((t) => {
        let x = c.operand(a, t);
        if (x.dtype === 'bool') x = c.cast(x, 'int64', t);
        return c.invoke1('_npi_trace', [x], { offset, axis1, axis2 });
      });
    },

    ...crossFunction(c),
  };
}

export type ProductFunctions = ReturnType<typeof productFunctions>;
