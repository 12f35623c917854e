/**
 * np's products. `dot` has NumPy's meaning: vector·vector is a 0-d array, and for an N-d `b` the
 * contraction is over `a`'s last axis and `b`'s second-to-last — MXNet's `dot` contracts `b`'s
 * first axis, so an N-d `b` (N > 2) is transposed to put that axis first. Operands of two dtypes
 * are promoted first (NumPy's rule).
 */
import { MXNetError } from '@mx/base';
import type { ndarray } from '../array.js';
import type { ArrayLike, NpContext } from '../context.js';

/** The products of the np namespace. */
export function productFunctions(c: NpContext) {
  return {
    /** NumPy `dot(a, b)`. */
    dot(a: ArrayLike, b: ArrayLike): ndarray {
      return c.withTemps((t) => {
        const r = c.resultType(a, b);
        let x = c.cast(c.operand(a, t), r, t);
        let y = c.cast(c.operand(b, t), r, t);
        if (x.ndim === 0 || y.ndim === 0) return c.invoke1('broadcast_mul', [x, y]);
        const k = x.shape[x.ndim - 1] as number;
        const kb = (y.ndim === 1 ? y.shape[0] : y.shape[y.ndim - 2]) as number;
        if (k !== kb) {
          throw new MXNetError(
            `shapes (${x.shape.join(',')}) and (${y.shape.join(',')}) not aligned: ${k} (dim ${x.ndim - 1}) != ${kb} (dim ${Math.max(0, y.ndim - 2)})`,
            { op: 'dot', shapes: [x.shape, y.shape], hint: "make a's last axis match b's second-to-last" },
          );
        }
        const shape = [
          ...x.shape.slice(0, -1),
          ...y.shape.slice(0, -2),
          ...(y.ndim >= 2 ? y.shape.slice(-1) : []),
        ];
        if (y.ndim > 2) {
          const axes = [
            y.ndim - 2,
            ...Array.from({ length: y.ndim }, (_, i) => i).filter((i) => i !== y.ndim - 2),
          ];
          y = c.invoke1('transpose', [y], { axes });
          t.push(y);
        }
        if (x.ndim === 1 && y.ndim === 1) {
          x = c.invoke1('dot', [x, y]);
          t.push(x);
          return c.view(x, []);
        }
        const out = c.invoke1('dot', [x, y]);
        if (out.shape.length === shape.length) return out;
        t.push(out);
        return c.view(out, shape);
      });
    },
  };
}

export type ProductFunctions = ReturnType<typeof productFunctions>;
