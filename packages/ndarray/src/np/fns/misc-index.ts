/**
 * np's index helpers with MXNet 2.0's ops (python/mxnet/ndarray/numpy/_op.py): `diagonal`
 * (`_npi_diagonal`), `trilIndices` (`_npi_tril_indices`), `triuIndices` (MXNet's
 * `nonzero(~tri(n, m, k - 1, bool))`), `diagIndicesFrom` (`_npi_diag_indices_from`),
 * `unravelIndex` (`_npi_unravel_index`; JS numbers are answered in JS, as MXNet asks host NumPy),
 * `fillDiagonal` (`_npi_fill_diagonal` written into `a`, as MXNet's out=a), and
 * `sharesMemory` / `mayShareMemory` (same storage chunk and overlapping byte ranges; MXNet's
 * `_npi_share_memory` compares the same pointer ranges, but its answer is needed synchronously, so
 * it is read from the arrays here rather than run as an op).
 *
 * Index results are tuples (JS arrays) of int64 arrays; where MXNet splits one (ndim, n) output
 * with `tuple(x)`, the rows are `x.get(i)` (integer indexing, a view).
 */
import { DType, MXNetError } from '@mx/base';
import type { NDArray } from '../../ndarray.js';
import type { ndarray } from '../array.js';
import type { ArrayLike, NpContext } from '../context.js';

/** The rows of `x` (first axis) as a tuple; `x` is disposed (the rows keep its storage). */
function rows(x: ndarray): ndarray[] {
  try {
    return Array.from({ length: x.shape[0] as number }, (_, i) => x.get(i) as ndarray);
  } finally {
    x.dispose();
  }
}

export function miscIndexFunctions(c: NpContext) {
  const check2d = (x: NDArray, fn: string) => {
    if (x.ndim !== 2) {
      throw new MXNetError('input array must be 2-d', {
        op: fn,
        shapes: [x.shape],
        hint: `${fn} takes a 2-d array`,
      });
    }
  };
  const nonNegInt = (v: number, name: string, fn: string) => {
    if (!Number.isInteger(v)) {
      throw new MXNetError(`'float' object cannot be interpreted as an integer`, {
        op: fn,
        params: { [name]: v },
        hint: `${name} is an integer`,
      });
    }
  };

  const trilIndices = (n: number, k = 0, m: number | null = null): [ndarray, ndarray] => {
    nonNegInt(n, 'n', 'tril_indices');
    nonNegInt(k, 'k', 'tril_indices');
    return c.invoke('_npi_tril_indices', [], { n, k, m: m ?? n }) as [ndarray, ndarray];
  };

  const triuIndices = (n: number, k = 0, m: number | null = null): [ndarray, ndarray] => {
    nonNegInt(n, 'n', 'triu_indices');
    nonNegInt(k, 'k', 'triu_indices');
    return c.withTemps((t) => {
      const tri = c.invoke1('_npi_tri', [], { N: n, M: m ?? n, k: k - 1, dtype: 'bool' });
      t.push(tri);
      const upper = c.invoke1('_npi_bitwise_not', [tri]);
      t.push(upper);
      const nz = c.invoke1('_npi_nonzero', [upper]);
      t.push(nz);
      return rows(c.invoke1('transpose', [nz])) as [ndarray, ndarray];
    });
  };

  return {
    /** NumPy `diagonal(a, offset=0, axis1=0, axis2=1)`: the diagonal appended as the last axis (`_npi_diagonal`). */
    diagonal(a: ArrayLike, offset = 0, axis1 = 0, axis2 = 1): ndarray {
      return c.withTemps((t) => c.invoke1('_npi_diagonal', [c.operand(a, t)], { offset, axis1, axis2 }));
    },

    /** NumPy `tril_indices(n, k=0, m=n)`: row and column indices of the lower triangle. */
    trilIndices,

    /** NumPy `triu_indices(n, k=0, m=n)`: row and column indices of the upper triangle. */
    triuIndices,

    /** NumPy `triu_indices_from(arr, k=0)`: `triuIndices` for a 2-d array's shape. */
    triuIndicesFrom(arr: NDArray, k = 0): [ndarray, ndarray] {
      check2d(arr, 'triu_indices_from');
      return triuIndices(arr.shape[0] as number, k, arr.shape[1] as number);
    },

    /** NumPy `diag_indices_from(arr)`: one index array per axis for the main diagonal (axes of one length). */
    diagIndicesFrom(arr: NDArray): ndarray[] {
      return rows(c.invoke1('_npi_diag_indices_from', [arr]));
    },

    /**
     * NumPy `unravel_index(indices, shape, order='C')`: one coordinate array per axis of `shape`
     * (the indices' dtype, as MXNet's op); a JS number gives JS numbers.
     */
    unravelIndex(
      indices: number | NDArray,
      shape: number | readonly number[],
      order: 'C' | 'F' = 'C',
    ): number[] | ndarray[] {
      if (order !== 'C') {
        throw new MXNetError('Do not support column-major (Fortran-style) order at this moment', {
          op: 'unravel_index',
          params: { order },
          hint: "use order='C'",
        });
      }
      const dims = typeof shape === 'number' ? [shape] : [...shape];
      if (typeof indices === 'number') {
        const total = dims.reduce((p, d) => p * d, 1);
        if (!Number.isInteger(indices) || indices < 0 || indices >= total) {
          throw new MXNetError(`index ${indices} is out of bounds for array with size ${total}`, {
            op: 'unravel_index',
            params: { shape: dims },
            hint: `flat indices must be in [0, ${total})`,
          });
        }
        const out = new Array<number>(dims.length);
        let v = indices;
        for (let d = dims.length - 1; d >= 0; d--) {
          out[d] = v % (dims[d] as number);
          v = Math.floor(v / (dims[d] as number));
        }
        return out;
      }
      return rows(c.invoke1('_npi_unravel_index', [indices], { shape: dims }));
    },

    /**
     * NumPy `fill_diagonal(a, val, wrap=False)`: writes `val` (cycled) on a's main diagonal, in
     * place (MXNet's `_npi_fill_diagonal` with out=a).
     */
    fillDiagonal(a: NDArray, val: number | readonly number[], wrap = false): void {
      a.checkLive('fill_diagonal');
      const v = typeof val === 'number' ? [val] : [...val];
      c.invoke('_npi_fill_diagonal', [a], { val: v, wrap }, { out: a });
    },

    /** NumPy `shares_memory(a, b)`: whether a and b use overlapping bytes of the same storage. */
    sharesMemory(a: NDArray, b: NDArray): boolean {
      if (a.size === 0 || b.size === 0 || a.heldChunk !== b.heldChunk) return false;
      const endA = a.byteOffset + a.size * DType[a.dtype].bytes;
      const endB = b.byteOffset + b.size * DType[b.dtype].bytes;
      return a.byteOffset < endB && b.byteOffset < endA;
    },
  };
}
