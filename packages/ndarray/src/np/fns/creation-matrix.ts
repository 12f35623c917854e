/**
 * np's matrix and grid builders with MXNet 2.0's ops: `eye` (`_npi_eye`), `identity`
 * (`_npi_identity`), `tri` (`_npi_tri`), `tril`/`triu` (`_npi_tril`/`_npi_triu`, differentiable),
 * `diag`/`diagflat` (`_npi_diag`/`_npi_diagflat`, differentiable), `indices` (`_npi_indices`,
 * int64 by default) and `meshgrid`, which MXNet 2.0 composes in Python (reshape + broadcast) and
 * so is composed here: views of the inputs broadcast with `broadcast_to` (copies, NumPy's
 * `copy=True`), or with `sparse` the reshaped copies. Positional arguments are NumPy's (`eye(N, M,
 * k)`); keywords are the options object. Spread into `creationFunctions` (creation.ts).
 */
import { type Context, type DTypeName, MXNetError } from '@mx/base';
import { NDArray } from '../../ndarray.js';
import type { ndarray } from '../array.js';
import type { ArrayLike, NpContext } from '../context.js';

/** `dtype` and device of the matrix builders. */
export interface MatrixOptions<D extends DTypeName = DTypeName> {
  readonly dtype?: D;
  readonly ctx?: Context;
}

/** `meshgrid`'s keywords. */
export interface MeshgridOptions {
  /** 'xy' (default: the first two output axes swapped, Cartesian) or 'ij' (matrix indexing). */
  readonly indexing?: 'xy' | 'ij';
  /** Return the reshaped inputs (length 1 on every other axis) instead of full grids. */
  readonly sparse?: boolean;
}

function checkInt(v: number, name: string, fn: string): void {
  if (!Number.isInteger(v)) {
    throw new MXNetError(`'float' object cannot be interpreted as an integer`, {
      op: fn,
      params: { [name]: v },
      hint: `${name} is an integer`,
    });
  }
}

const isOptions = (x: unknown): x is MeshgridOptions =>
  typeof x === 'object' && x !== null && !(x instanceof NDArray) && !Array.isArray(x);

/** The matrix and grid builders of the np namespace. */
export function matrixCreationFunctions(c: NpContext) {
  const ctxOf = (o?: MatrixOptions) => ({ ctx: o?.ctx ?? c.rt.defaultContext });
  const k2 = (N: number, M: number | null | undefined, k: number, fn: string) => {
    checkInt(N, 'N', fn);
    if (M !== null && M !== undefined) checkInt(M, 'M', fn);
    checkInt(k, 'k', fn);
  };
  const unary = (op: string, fn: string, m: ArrayLike, k: number): ndarray => {
    checkInt(k, 'k', fn);
    return c.withTemps((t) => c.invoke1(op, [c.operand(m, t)], { k }));
  };

  return {
    /**
     * NumPy `eye(N, M=N, k=0, dtype)`: ones on diagonal k of an N×M matrix (MXNet `_npi_eye`), the
     * default float unless `dtype`.
     */
    eye<D extends DTypeName = DTypeName>(
      N: number,
      M?: number | null,
      k = 0,
      o: MatrixOptions<D> = {},
    ): ndarray<D> {
      k2(N, M, k, 'eye');
      return c.invoke1(
        '_npi_eye',
        [],
        { N, M: M ?? null, k, dtype: o.dtype ?? c.defaultFloat() },
        ctxOf(o),
      ) as ndarray<D>;
    },

    /** NumPy `identity(n, dtype)`: the n×n identity (MXNet `_npi_identity`). */
    identity<D extends DTypeName = DTypeName>(n: number, o: MatrixOptions<D> = {}): ndarray<D> {
      checkInt(n, 'n', 'identity');
      if (n < 0) {
        throw new MXNetError('negative dimensions are not allowed', {
          op: 'identity',
          params: { n },
          hint: 'n >= 0',
        });
      }
      return c.invoke1(
        '_npi_identity',
        [],
        { shape: [n, n], dtype: o.dtype ?? c.defaultFloat() },
        ctxOf(o),
      ) as ndarray<D>;
    },

    /**
     * NumPy `tri(N, M=N, k=0, dtype)`: ones at and below diagonal k (MXNet `_npi_tri`); the default
     * float unless `dtype` (MXNet 2.0 always float32 by default). A negative N or M gives an empty
     * axis, as NumPy's.
     */
    tri<D extends DTypeName = DTypeName>(
      N: number,
      M?: number | null,
      k = 0,
      o: MatrixOptions<D> = {},
    ): ndarray<D> {
      k2(N, M, k, 'tri');
      // NumPy's tri builds from aranges: a negative N or M is an empty axis, not an error.
      const rows = Math.max(N, 0);
      return c.invoke1(
        '_npi_tri',
        [],
        {
          N: rows,
          M: M === null || M === undefined ? rows : Math.max(M, 0),
          k,
          dtype: o.dtype ?? c.defaultFloat(),
        },
        ctxOf(o),
      ) as ndarray<D>;
    },

    /** NumPy `tril(m, k=0)`: elements above diagonal k of the last two axes zeroed (1-D: rows of a square). */
    tril: (m: ArrayLike, k = 0): ndarray => unary('_npi_tril', 'tril', m, k),

    /** NumPy `triu(m, k=0)`: elements below diagonal k of the last two axes zeroed. */
    triu: (m: ArrayLike, k = 0): ndarray => unary('_npi_triu', 'triu', m, k),

    /** NumPy `diag(v, k=0)`: a 1-D `v` on diagonal k of a square matrix, or diagonal k of a 2-D `v`. */
    diag: (v: ArrayLike, k = 0): ndarray => unary('_npi_diag', 'diag', v, k),

    /** NumPy `diagflat(v, k=0)`: the flattened `v` on diagonal k of a square matrix. */
    diagflat: (v: ArrayLike, k = 0): ndarray => unary('_npi_diagflat', 'diagflat', v, k),

    /**
     * NumPy `indices(dimensions, dtype=int)`: the grid's index arrays stacked, shape
     * `(dimensions.length, ...dimensions)` (MXNet `_npi_indices`).
     */
    indices<D extends DTypeName = 'int64'>(
      dimensions: readonly number[],
      o: MatrixOptions<D> = {},
    ): ndarray<D> {
      for (const d of dimensions) checkInt(d, 'dimensions', 'indices');
      return c.invoke1(
        '_npi_indices',
        [],
        { dimensions: [...dimensions], dtype: o.dtype ?? 'int64' },
        ctxOf(o),
      ) as ndarray<D>;
    },

    /**
     * NumPy `meshgrid(*xi, indexing='xy', sparse=False)`: coordinate grids from 1-D coordinate
     * vectors (inputs are flattened), as new arrays. The options object may come last.
     */
    meshgrid(...args: readonly (ArrayLike | MeshgridOptions)[]): ndarray[] {
      const last = args[args.length - 1];
      const o: MeshgridOptions = isOptions(last) ? last : {};
      const xi = (isOptions(last) ? args.slice(0, -1) : args) as ArrayLike[];
      const indexing = o.indexing ?? 'xy';
      if (indexing !== 'xy' && indexing !== 'ij') {
        throw new MXNetError("Valid values for `indexing` are 'xy' and 'ij'.", {
          op: 'meshgrid',
          params: { indexing },
          hint: "pass indexing: 'xy' or 'ij'",
        });
      }
      const nd = xi.length;
      return c.withTemps((t) => {
        const xs = xi.map((x) => c.operand(x, t));
        const lens = xs.map((x) => x.size);
        const axisOf = (i: number) => (indexing === 'xy' && nd > 1 && i < 2 ? 1 - i : i);
        const full = lens.map((_, a) => lens[xs.findIndex((_x, i) => axisOf(i) === a)] as number);
        const made: ndarray[] = [];
        try {
          xs.forEach((x, i) => {
            const shape = new Array<number>(nd).fill(1);
            shape[axisOf(i)] = x.size;
            const v = c.view(x, shape);
            t.push(v);
            if (o.sparse === true)
              made.push(c.invoke1(c.rt.registry.has('_npi_copy') ? '_npi_copy' : '_copy', [v]));
            else if (full.includes(0))
              made.push(c.invoke1('_npi_zeros', [], { shape: full, dtype: x.dtype }, { ctx: x.ctx }));
            else made.push(c.invoke1('broadcast_to', [v], { shape: full }));
          });
        } catch (e) {
          for (const m of made) m.dispose();
          throw e;
        }
        return made;
      });
    },
  };
}
