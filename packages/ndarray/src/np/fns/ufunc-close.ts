/**
 * NumPy's closeness tests composed from the `_npi_` ufunc ops, as NumPy composes them in Python:
 * `isclose` (|a - b| <= atol + rtol * |b| where b is finite, equal values — infinities included —
 * always close, NaNs close to each other only with `equalNan`), `allclose` (all of `isclose`) and
 * `arrayEqual` (same shape and all equal). Integer operands are compared in the default float, as
 * NumPy's `result_type(y, 1.)`. `allclose`/`arrayEqual` give a 0-d bool array (`item()` reads it).
 */
import type { NDArray } from '../../ndarray.js';
import type { ndarray } from '../array.js';
import type { ArrayLike, NpContext } from '../context.js';
import { computeDtype, isFloat } from './ufunc-dtypes.js';

/** NumPy `isclose`/`allclose` keywords. */
export interface CloseOptions {
  /** Relative tolerance (default 1e-5). */
  readonly rtol?: number;
  /** Absolute tolerance (default 1e-8). */
  readonly atol?: number;
  /** NaNs compare equal (default false). */
  readonly equalNan?: boolean;
}

interface BinaryLike {
  readonly equal: (a: ArrayLike, b: ArrayLike) => ndarray;
}

export function closeFunctions(c: NpContext, binary: BinaryLike) {
  /** All elements of a bool array as a 0-d bool array (no reduce op of another area needed). */
  const all = (m: NDArray, t: NDArray[]): ndarray => {
    const bad = c.invoke1('_npi_logical_not', [m]);
    t.push(bad);
    const n = c.invoke1('sum', [c.cast(bad, 'int32', t)]);
    t.push(n);
    const flat = n.shape.length === 0 ? n : c.view(n, []);
    if (flat !== n) t.push(flat);
    return c.invoke1('_npi_equal_scalar', [flat], { scalar: 0, is_int: true });
  };

  const isclose = (a: ArrayLike, b: ArrayLike, options: CloseOptions = {}): ndarray =>
    c.withTemps((t) => {
      const rtol = options.rtol ?? 1e-5;
      const atol = options.atol ?? 1e-8;
      const x0 = c.operand(a, t);
      const y0 = c.operand(b, t);
      const r = c.resultType(x0, y0);
      const f = computeDtype(isFloat(r) ? r : c.defaultFloat());
      const x = c.cast(x0, f, t);
      const y = c.cast(y0, f, t);
      const k = (op: string, ins: NDArray[], p?: Record<string, unknown>): ndarray => {
        const o = c.invoke1(op, ins, p);
        t.push(o);
        return o;
      };
      const diff = k('_npi_absolute', [k('_npi_subtract', [x, y])]);
      const tol = k(
        '_npi_add_scalar',
        [k('_npi_multiply_scalar', [k('_npi_absolute', [y])], { scalar: rtol, is_int: false })],
        {
          scalar: atol,
          is_int: false,
        },
      );
      const near = k('_npi_logical_and', [k('_npi_less_equal', [diff, tol]), k('_npi_isfinite', [y])]);
      const eq = k('_npi_equal', [x, y]);
      if (options.equalNan !== true) return c.invoke1('_npi_logical_or', [near, eq]);
      const both = k('_npi_logical_and', [k('_npi_isnan', [x]), k('_npi_isnan', [y])]);
      return c.invoke1('_npi_logical_or', [k('_npi_logical_or', [near, eq]), both]);
    });

  return {
    isclose,
    /** NumPy `allclose`: every element `isclose` (a 0-d bool array). */
    allclose: (a: ArrayLike, b: ArrayLike, options: CloseOptions = {}): ndarray =>
      c.withTemps((t) => {
        const m = isclose(a, b, options);
        t.push(m);
        return all(m, t);
      }),
    /** NumPy `array_equal`: same shape and equal elements (NaN equal to NaN with `equalNan`); 0-d bool. */
    arrayEqual: (a1: ArrayLike, a2: ArrayLike, options: { readonly equalNan?: boolean } = {}): ndarray =>
      c.withTemps((t) => {
        const x = c.operand(a1, t);
        const y = c.operand(a2, t);
        if (x.shape.length !== y.shape.length || x.shape.some((d, i) => d !== y.shape[i])) {
          return c.fromValues(false, 'bool');
        }
        let m = binary.equal(x, y);
        t.push(m);
        if (options.equalNan === true && isFloat(x.dtype) && isFloat(y.dtype)) {
          const nx = c.invoke1('_npi_isnan', [x]);
          const ny = c.invoke1('_npi_isnan', [y]);
          const both = c.invoke1('_npi_logical_and', [nx, ny]);
          t.push(nx, ny, both);
          m = c.invoke1('_npi_logical_or', [m, both]);
          t.push(m);
        }
        return all(m, t);
      }),
  };
}
