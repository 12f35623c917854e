/**
 * The np.linalg functions composed from other ops: `matrixPower` (square-and-multiply over
 * `_npi_matmul`, the inverse first for negative powers), `multiDot` (NumPy's optimal chain order,
 * then `_npi_matmul`s), and `lstsq` from the SVD (MXNet 2.0 has a fused `_npi_lstsq`, not built
 * here): x = pinv(a) · b with NumPy's rcond cutoff, the rank and singular values, and the residuals
 * NumPy reports only for full-rank over-determined systems — which makes the residuals' shape
 * depend on the data, so lstsq reads the rank on the host (eager only).
 */
import { MXNetError } from '@mx/base';
import type { NDArray } from '../../ndarray.js';
import type { ndarray } from '../array.js';
import type { ArrayLike, NpContext } from '../context.js';

/** The machine epsilons MXNet's Python passes to the rank ops (`np.finfo(...).eps`). */
export const FINFO_EPS32 = 1.1920928955078125e-7;
export const FINFO_EPS64 = 2.220446049250313e-16;

type Svd3 = (a: ArrayLike, t: NDArray[]) => [ndarray, ndarray, ndarray];

/** NumPy's `_multi_dot_matrix_chain_order`: the split table of the cheapest parenthesisation. */
export function chainOrder(dims: readonly number[]): number[][] {
  const n = dims.length - 1;
  const cost = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  const split = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let len = 1; len < n; len++) {
    for (let i = 0; i < n - len; i++) {
      const j = i + len;
      (cost[i] as number[])[j] = Number.POSITIVE_INFINITY;
      for (let k = i; k < j; k++) {
        const q =
          ((cost[i] as number[])[k] as number) +
          ((cost[k + 1] as number[])[j] as number) +
          (dims[i] as number) * (dims[k + 1] as number) * (dims[j + 1] as number);
        if (q < ((cost[i] as number[])[j] as number)) {
          (cost[i] as number[])[j] = q;
          (split[i] as number[])[j] = k;
        }
      }
    }
  }
  return split;
}

export function composedLinalg(c: NpContext, svd3: Svd3) {
  const matmul = (x: NDArray, y: NDArray): ndarray => c.invoke1('_npi_matmul', [x, y]);

  return {
    /** `a` (..., M, M) to the integer power `n` (n < 0: of the inverse; n = 0: identity of a's dtype). */
    matrixPower(a: ArrayLike, n: number): ndarray {
      if (!Number.isInteger(n)) {
        throw new MXNetError('exponent must be an integer', {
          op: 'matrix_power',
          params: { n },
          hint: 'pass an integer power',
        });
      }
      return c.withTemps((t) => {
        let x = c.operand(a, t);
        if (x.ndim < 2) {
          throw new MXNetError(`${x.ndim}-dimensional array given. Array must be at least two-dimensional`, {
            op: 'matrix_power',
            shapes: [x.shape],
            hint: 'pass (..., M, M)',
          });
        }
        const m = x.shape[x.ndim - 1] as number;
        if (x.shape[x.ndim - 2] !== m) {
          throw new MXNetError('Last 2 dimensions of the array must be square', {
            op: 'matrix_power',
            shapes: [x.shape],
            hint: 'pass square matrices (..., M, M)',
          });
        }
        if (n === 0) {
          const eye = c.invoke1('_eye', [], { N: m, dtype: x.dtype }, { ctx: x.ctx });
          t.push(eye);
          const lifted = c.view(eye, [...x.shape.slice(0, -2).map(() => 1), m, m]);
          t.push(lifted);
          return c.invoke1('broadcast_to', [lifted], { shape: [...x.shape] });
        }
        if (n < 0) {
          const isFloat = x.dtype === 'float32' || x.dtype === 'float64';
          x = c.invoke1('_npi_inv', [isFloat ? x : c.cast(x, c.defaultFloat(), t)]);
          t.push(x);
        }
        let k = Math.abs(n);
        if (k === 1) return c.invoke1('_copy', [x]);
        // Square-and-multiply: `z` runs through x^(2^i), `result` collects the set bits.
        let result: NDArray | undefined;
        let z: NDArray = x;
        for (;;) {
          if (k & 1) {
            const r = result === undefined ? z : matmul(result, z);
            if (result !== undefined) t.push(r);
            result = r;
          }
          k >>= 1;
          if (k === 0) break;
          z = matmul(z, z);
          t.push(z);
        }
        const out = result as NDArray;
        t.splice(t.indexOf(out), 1);
        return c.asNp(out === x ? c.invoke1('_copy', [x]) : out);
      });
    },

    /** NumPy `linalg.multi_dot(arrays)`: a chain of dot products in the cheapest order. */
    multiDot(arrays: readonly ArrayLike[]): ndarray {
      if (arrays.length < 2) {
        throw new MXNetError('Expecting at least two arrays.', {
          op: 'multi_dot',
          hint: 'pass two or more arrays',
        });
      }
      return c.withTemps((t) => {
        const r = c.resultType(...arrays);
        let xs = arrays.map((a) => c.cast(c.operand(a, t), r, t));
        const n = xs.length;
        if (n === 2) return c.invoke1('_npi_dot', xs); // NumPy: two arrays are a dot
        const first = xs[0] as NDArray;
        const last = xs[n - 1] as NDArray;
        const firstVec = first.ndim === 1;
        const lastVec = last.ndim === 1;
        xs = xs.map((x, i) => {
          if (i === 0 && firstVec) return c.view(x, [1, x.shape[0] as number]);
          if (i === n - 1 && lastVec) return c.view(x, [x.shape[0] as number, 1]);
          return x;
        });
        if (firstVec) t.push(xs[0] as NDArray);
        if (lastVec) t.push(xs[n - 1] as NDArray);
        xs.forEach((x) => {
          if (x.ndim !== 2) {
            throw new MXNetError(`${x.ndim}-dimensional array given. Array must be two-dimensional`, {
              op: 'multi_dot',
              shapes: xs.map((y) => y.shape),
              hint: 'inner arrays must be 2-D; the first and last may be 1-D',
            });
          }
        });
        const dims = [...xs.map((x) => x.shape[0] as number), (xs[n - 1] as NDArray).shape[1] as number];
        for (let i = 0; i + 1 < n; i++) {
          const k = (xs[i] as NDArray).shape[1] as number;
          const kb = (xs[i + 1] as NDArray).shape[0] as number;
          if (k !== kb) {
            throw new MXNetError(
              `shapes (${(xs[i] as NDArray).shape.join(',')}) and (${(xs[i + 1] as NDArray).shape.join(',')}) not aligned: ${k} (dim 1) != ${kb} (dim 0)`,
              { op: 'multi_dot', shapes: xs.map((y) => y.shape), hint: 'neighbouring arrays must chain' },
            );
          }
        }
        const split = n === 2 ? [] : chainOrder(dims);
        const run = (i: number, j: number): NDArray => {
          if (i === j) return xs[i] as NDArray;
          const k = n === 2 ? 0 : ((split[i] as number[])[j] as number);
          const p = run(i, k);
          const q = run(k + 1, j);
          const y = matmul(p, q);
          t.push(y);
          return y;
        };
        const out = run(0, n - 1);
        const shape = [
          ...(firstVec ? [] : [out.shape[0] as number]),
          ...(lastVec ? [] : [out.shape[1] as number]),
        ];
        return c.view(out, shape);
      });
    },

    /**
     * NumPy `linalg.lstsq(a, b, rcond)`: `[x, residuals, rank, s]`. rcond: a number, null (eps ·
     * max(M, N)) or omitted (eps, NumPy's 'warn' default). Eager only (the residuals' shape depends
     * on the rank).
     */
    lstsq(
      a: ArrayLike,
      b: ArrayLike,
      rcond: number | null | 'warn' = 'warn',
    ): [ndarray, ndarray, ndarray, ndarray] {
      return c.withTemps((t) => {
        let x = c.operand(a, t);
        let y = c.operand(b, t);
        const dt = x.dtype === 'float32' && y.dtype === 'float32' ? 'float32' : 'float64';
        x = c.cast(x, dt, t);
        y = c.cast(y, dt, t);
        if (x.ndim !== 2) {
          throw new MXNetError(`${x.ndim}-dimensional array given. Array must be two-dimensional`, {
            op: 'lstsq',
            shapes: [x.shape, y.shape],
            hint: 'a must be (M, N)',
          });
        }
        const [m, n] = x.shape as [number, number];
        const vec = y.ndim === 1;
        if (y.ndim > 2 || y.shape[0] !== m) {
          throw new MXNetError('Incompatible dimensions', {
            op: 'lstsq',
            shapes: [x.shape, y.shape],
            hint: 'b must be (M,) or (M, K) for a (M, N)',
          });
        }
        const eps = dt === 'float32' ? FINFO_EPS32 : FINFO_EPS64;
        const rc = rcond === 'warn' ? eps : rcond === null ? eps * Math.max(m, n) : rcond;
        const keep = <T extends NDArray>(v: T): T => {
          t.push(v);
          return v;
        };
        const b2 = vec ? keep(c.view(y, [m, 1])) : y;
        const zeros = (shape: number[]) => c.adopt(c.rt.nd.zeros(shape, { dtype: dt, ctx: x.ctx }));
        // The singular values (none for an empty a) and NumPy's rank: those above rc · max(s).
        let s: ndarray;
        if (m * n === 0) s = zeros([0]);
        else {
          const [u, sv, v] = svd3(x, t);
          t.push(u, v);
          s = sv;
        }
        const values = Array.from(s.dataSync() as unknown as number[]);
        const smax = values.reduce((p, q) => Math.max(p, q), 0);
        const rank = values.filter((q) => q > rc * smax).length;
        const sol =
          m * n === 0
            ? keep(zeros([n, b2.shape[1] as number]))
            : keep(matmul(keep(c.invoke1('_npi_pinv_scalar_rcond', [x], { rcond: rc })), b2));
        const xs = c.view(sol, vec ? [n] : [...sol.shape]);
        let res: ndarray;
        if (rank === n && m > n) {
          const r = keep(c.invoke1('broadcast_sub', [b2, keep(matmul(x, sol))]));
          res = c.invoke1('sum', [keep(c.invoke1('square', [r]))], { axis: [0], keepdims: false });
        } else res = zeros([0]);
        const rk = c.fromValues(rank, 'int64');
        return [xs, res, rk, s];
      });
    },
  };
}
