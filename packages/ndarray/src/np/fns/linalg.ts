/**
 * `np.linalg` (MXNet 2.0 python/mxnet/ndarray/numpy/linalg.py): the decompositions and solvers
 * call the `_npi_*` ops MXNet 2.0's Python calls (det, slogdet and inv under their la_op aliases);
 * `norm`, `lstsq`, `matrixPower`, `multiDot` compose (linalg-norm.ts, linalg-compose.ts).
 *
 * Dtypes are the ops': det, slogdet, inv, cholesky and svd take float32/float64 only (la_op's rule),
 * so integer and bool inputs are cast to the default float first (MXNet's default-float rule for
 * int → float results); the numpy linalg ops (solve, qr, eig*, pinv, tensor*) compute float32 in
 * float32 and anything else in float64, as MXNet 2.0 does. `svd` returns MXNet 2.0's (ut, s, v) —
 * NumPy's reduced (u, s, vh), A = ut · diag(s) · v — and takes M > N too, through the transpose.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import type { NDArray } from '../../ndarray.js';
import type { ndarray } from '../array.js';
import type { ArrayLike, NpContext } from '../context.js';
import { arrayApiLinalg } from './linalg-api.js';
import { composedLinalg, FINFO_EPS32, FINFO_EPS64 } from './linalg-compose.js';
import { normFunction } from './linalg-norm.js';

const isFloat = (d: DTypeName) => d === 'float16' || d === 'bfloat16' || d === 'float32' || d === 'float64';

/** The linalg functions' shared pieces (also used by the composed ones). */
export function linalgCore(c: NpContext) {
  /** `a` as an array of a float dtype la_op takes (ints/bool → the default float). */
  const laInput = (a: ArrayLike, t: NDArray[]): NDArray => {
    const x = c.operand(a, t);
    return isFloat(x.dtype) ? x : c.cast(x, c.defaultFloat(), t);
  };
  const notImplemented = (what: string, fn: string) =>
    new MXNetError(what, { op: fn, hint: 'MXNet 2.0 does not implement this option' });

  /** MXNet's svd for any (..., M, N): (ut, s, v), ut (..., M, K), v (..., K, N), K = min(M, N). */
  const svd3 = (a: ArrayLike, t: NDArray[]): [ndarray, ndarray, ndarray] => {
    const x = laInput(a, t);
    const m = x.shape[x.ndim - 2];
    const n = x.shape[x.ndim - 1];
    if (x.ndim < 2 || (m as number) <= (n as number))
      return c.invoke('_npi_svd', [x]) as [ndarray, ndarray, ndarray];
    // Aᵀ = U S V  ⇒  A = Vᵀ S Uᵀ.
    const swap = (y: NDArray) =>
      c.invoke1('transpose', [y], {
        axes: [...Array.from({ length: y.ndim - 2 }, (_, i) => i), y.ndim - 1, y.ndim - 2],
      });
    const xt = swap(x);
    t.push(xt);
    const [u, s, v] = c.invoke('_npi_svd', [xt]) as [ndarray, ndarray, ndarray];
    t.push(u, v);
    return [swap(v), s, swap(u)];
  };
  return { laInput, notImplemented, svd3 };
}

/** The linalg functions of the np namespace (`np.linalg`). */
export function linalgFunctions(c: NpContext) {
  const { laInput, notImplemented, svd3 } = linalgCore(c);
  const one = (op: string, a: ArrayLike, params?: Record<string, unknown>, la = false): ndarray =>
    c.withTemps((t) => c.invoke1(op, [la ? laInput(a, t) : c.operand(a, t)], params));

  return {
    /** Determinant of (..., N, N). */
    det: (a: ArrayLike): ndarray => one('_npi_det', a, undefined, true),

    /** Sign and natural log of |det| of (..., N, N): `[sign, logabsdet]`. */
    slogdet(a: ArrayLike): [ndarray, ndarray] {
      return c.withTemps((t) => c.invoke('_npi_slogdet', [laInput(a, t)]) as [ndarray, ndarray]);
    },

    /** Inverse of (..., N, N); singular input: "Singular matrix". */
    inv: (a: ArrayLike): ndarray => one('_npi_inv', a, undefined, true),

    /** Solve a x = b for x; b is (..., N) or (..., N, K) (batch dims equal, as MXNet: no broadcast). */
    solve(a: ArrayLike, b: ArrayLike): ndarray {
      return c.withTemps((t) => c.invoke1('_npi_solve', [c.operand(a, t), c.operand(b, t)]));
    },

    /** Inverse of an N-d array with respect to tensordot (`ind` leading axes). */
    tensorinv(a: ArrayLike, ind = 2): ndarray {
      return c.withTemps((t) => {
        const x = c.operand(a, t);
        const prod = (s: readonly number[]) => s.reduce((p, q) => p * q, 1);
        if (ind > 0 && ind < x.ndim && prod(x.shape.slice(0, ind)) !== prod(x.shape.slice(ind))) {
          // NumPy reshapes to (prod(front), prod(back)) and inverts: inv's message.
          throw new MXNetError('Last 2 dimensions of the array must be square', {
            op: 'tensorinv',
            shapes: [x.shape],
            params: { ind },
            hint: 'prod(a.shape[:ind]) must equal prod(a.shape[ind:])',
          });
        }
        return c.invoke1('_npi_tensorinv', [x], { ind });
      });
    },

    /** Solve tensordot(a, x, x.ndim) = b; `axes` of a are moved to the end first. */
    tensorsolve(a: ArrayLike, b: ArrayLike, axes: readonly number[] | null = null): ndarray {
      return c.withTemps((t) =>
        c.invoke1('_npi_tensorsolve', [c.operand(a, t), c.operand(b, t)], { a_axes: axes ?? [] }),
      );
    },

    /** Cholesky factor: lower L with A = L Lᵀ, or upper U (A = Uᵀ U) with `{ upper: true }` (MXNet's option). */
    cholesky: (a: ArrayLike, options: { readonly upper?: boolean } = {}): ndarray =>
      one('_npi_cholesky', a, { lower: !(options.upper ?? false) }, true),

    /** QR factorisation `[q, r]`; only mode 'reduced' (MXNet 2.0's only mode). */
    qr(a: ArrayLike, mode: 'reduced' | 'complete' | 'r' | 'raw' = 'reduced'): [ndarray, ndarray] {
      if (mode !== 'reduced') throw notImplemented("Only default mode='reduced' is implemented.", 'qr');
      return c.withTemps((t) => c.invoke('_npi_qr', [c.operand(a, t)]) as [ndarray, ndarray]);
    },

    /**
     * Singular value decomposition, MXNet 2.0's `(ut, s, v)`: A = ut · diag(s) · v, s descending —
     * NumPy's `svd(a, full_matrices=False)`. `{ computeUv: false }` returns s alone.
     * `fullMatrices: true` (NumPy's default) is refused for non-square inputs: MXNet has no complete
     * bases.
     */
    svd(
      a: ArrayLike,
      options: { readonly fullMatrices?: boolean; readonly computeUv?: boolean } = {},
    ): [ndarray, ndarray, ndarray] | ndarray {
      return c.withTemps((t) => {
        const x = c.operand(a, t);
        const m = x.shape[x.ndim - 2];
        if (options.fullMatrices === true && x.ndim >= 2 && m !== x.shape[x.ndim - 1]) {
          throw notImplemented(
            'svd: full_matrices=True is not supported for non-square matrices (MXNet 2.0 returns the reduced factors)',
            'svd',
          );
        }
        const [ut, s, v] = svd3(x, t);
        if (options.computeUv === false) {
          t.push(ut, v);
          return s;
        }
        return [ut, s, v];
      });
    },

    /** Eigenvalues (ascending) and eigenvectors (columns) of symmetric matrices: `[w, v]`. */
    eigh(a: ArrayLike, UPLO: 'L' | 'U' = 'L'): [ndarray, ndarray] {
      return c.withTemps((t) => c.invoke('_npi_eigh', [c.operand(a, t)], { UPLO }) as [ndarray, ndarray]);
    },

    /** Eigenvalues (ascending) of symmetric matrices. */
    eigvalsh: (a: ArrayLike, UPLO: 'L' | 'U' = 'L'): ndarray => one('_npi_eigvalsh', a, { UPLO }),

    /** Eigenvalues and right eigenvectors of real matrices with real eigenvalues: `[w, v]`. */
    eig(a: ArrayLike): [ndarray, ndarray] {
      return c.withTemps((t) => c.invoke('_npi_eig', [c.operand(a, t)]) as [ndarray, ndarray]);
    },

    /** Eigenvalues of real matrices with real eigenvalues (a complex one is an error). */
    eigvals: (a: ArrayLike): ndarray => one('_npi_eigvals', a),

    /** Moore–Penrose pseudo-inverse; `rcond` a number or an array broadcast over the batch. */
    pinv(a: ArrayLike, rcond: number | NDArray = 1e-15, hermitian = false): ndarray {
      if (hermitian) throw notImplemented('hermitian is not supported yet...', 'pinv');
      return c.withTemps((t) => {
        const x = c.operand(a, t);
        if (typeof rcond === 'number') return c.invoke1('_npi_pinv_scalar_rcond', [x], { rcond, hermitian });
        return c.invoke1('_npi_pinv', [x, rcond], { hermitian });
      });
    },

    /** Rank by SVD: singular values > tol (default max(s) · max(M, N) · eps). int64. */
    matrixRank(M: ArrayLike, tol: number | NDArray | null = null, hermitian = false): ndarray {
      if (hermitian) throw notImplemented('hermitian is not supported yet...', 'matrix_rank');
      return c.withTemps((t) => {
        let x = c.operand(M, t);
        if (!isFloat(x.dtype)) x = c.cast(x, 'float64', t); // the op takes floats; NumPy computes ints in float64
        if (tol === null) {
          return c.invoke1('_npi_matrix_rank_none_tol', [x], {
            finfoEps32: FINFO_EPS32,
            finfoEps64: FINFO_EPS64,
            hermitian,
          });
        }
        const tl = typeof tol === 'number' ? c.operand(tol, t, 'float64') : tol;
        return c.invoke1('_npi_matrix_rank', [x, tl], { hermitian });
      });
    },

    ...normFunction(c, svd3),
    ...composedLinalg(c, svd3),
    ...arrayApiLinalg(c, svd3),
  };
}

export type LinalgFunctions = ReturnType<typeof linalgFunctions>;
