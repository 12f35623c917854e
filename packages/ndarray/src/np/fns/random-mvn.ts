/**
 * `np.random.multivariateNormal(mean, cov, size)`. MXNet 2.0 runs it through host NumPy
 * (`_npi.mvn_fallback`), which @mx cannot do; it is composed here instead: the lower Cholesky
 * factor L of `cov` (`_npi_cholesky`), standard normal samples z of shape size + (N,) from the
 * runtime's generator (`_npi_normal`), and mean + z·Lᵀ (`_npi_matmul`, `_npi_add`). The samples
 * have NumPy's distribution, not NumPy's stream. Deviation: NumPy factors `cov` by SVD and accepts
 * positive semi-definite matrices; Cholesky needs a positive definite one (a singular `cov` is
 * refused with "Matrix is not positive definite"). `checkValid`/`tol` are MXNet's NotImplemented.
 */
import { MXNetError } from '@mx/base';
import type { NDArray } from '../../ndarray.js';
import type { ndarray } from '../array.js';
import type { ArrayLike, NpContext } from '../context.js';

type Normal = (
  loc: number,
  scale: number,
  size: readonly number[],
  o: { readonly dtype: 'float32' | 'float64' },
) => ndarray;

/** `multivariateNormal`'s options: MXNet 2.0 accepts neither (NotImplementedError). */
export interface MvnOptions {
  readonly checkValid?: string;
  readonly tol?: number;
}

export function multivariateNormalFunction(c: NpContext, normal: Normal) {
  return {
    /** Samples of N(mean, cov): shape size + (N,) for mean (N,) and cov (N, N). */
    multivariateNormal(
      mean: ArrayLike,
      cov: ArrayLike,
      size: number | readonly number[] | null = null,
      o: MvnOptions = {},
    ): ndarray {
      const fail = (msg: string, hint: string, shapes: readonly (readonly number[])[] = []) =>
        new MXNetError(msg, { op: 'np.random.multivariate_normal', shapes, hint });
      if (o.checkValid !== undefined)
        throw fail('Parameter `check_valid` is not supported', 'leave checkValid out');
      if (o.tol !== undefined) throw fail('Parameter `tol` is not supported', 'leave tol out');
      return c.withTemps((t) => {
        const m0 = c.operand(mean, t);
        const s0 = c.operand(cov, t);
        if (m0.ndim !== 1) throw fail('mean must be 1 dimensional', 'pass mean as a 1-D array', [m0.shape]);
        if (s0.ndim !== 2 || s0.shape[0] !== s0.shape[1])
          throw fail('cov must be 2 dimensional and square', 'pass cov as an (N, N) array', [s0.shape]);
        if (m0.shape[0] !== s0.shape[0])
          throw fail('mean and cov must have same length', 'mean is (N,) and cov (N, N)', [
            m0.shape,
            s0.shape,
          ]);
        const dtype = m0.dtype === 'float64' || s0.dtype === 'float64' ? 'float64' : c.defaultFloat();
        const m = c.cast(m0, dtype, t);
        const s = c.cast(s0, dtype, t);
        const dims = size === null ? [] : typeof size === 'number' ? [size] : [...size];
        const keep = <T extends NDArray>(x: T): T => {
          t.push(x);
          return x;
        };
        const L = keep(c.invoke1('_npi_cholesky', [s], { lower: true }));
        const Lt = keep(c.invoke1('transpose', [L]));
        const z = keep(normal(0, 1, [...dims, m.shape[0] as number], { dtype }));
        const zl = keep(c.invoke1('_npi_matmul', [z, Lt]));
        return c.invoke1('_npi_add', [zl, m]);
      });
    },
  };
}
