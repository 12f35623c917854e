/**
 * np's small numerics with MXNet 2.0's ops (python/mxnet/ndarray/numpy/_op.py): the windows
 * `hanning`, `hamming`, `blackman` (`_npi_*`, MXNet's default-float dtype), `interp`
 * (`_npi_interp`; every input cast to float64 first, as MXNet's `astype(float)`, so the result is
 * float64), `polyval` (`_npi_polyval`, differentiable; both operands cast to their NumPy result
 * dtype — MXNet's op needs one dtype), and `ediff1d` (`_npi_ediff1d`, differentiable; array
 * `toBegin`/`toEnd` become extra inputs cast to the data's dtype, numbers the op's scalar params).
 */
import { type Context, type DTypeName, MXNetError } from '@mx/base';
import type { NDArray } from '../../ndarray.js';
import type { ndarray } from '../array.js';
import type { ArrayLike, NpContext } from '../context.js';

/** The windows' options (MXNet's `dtype` and device keywords). */
export interface WindowOptions {
  readonly dtype?: DTypeName;
  readonly ctx?: Context;
}

/** `interp`'s keywords. */
export interface InterpOptions {
  readonly left?: number | null;
  readonly right?: number | null;
  readonly period?: number | null;
}

export function miscNumericFunctions(c: NpContext) {
  const window =
    (op: string, fn: string) =>
    (M: number, o: WindowOptions = {}): ndarray => {
      if (!Number.isInteger(M)) {
        throw new MXNetError("'float' object cannot be interpreted as an integer", {
          op: fn,
          params: { M },
          hint: 'M is the number of points, an integer',
        });
      }
      return c.invoke1(
        op,
        [],
        { M, dtype: o.dtype ?? c.defaultFloat() },
        o.ctx !== undefined ? { ctx: o.ctx } : {},
      );
    };

  return {
    /** NumPy `hanning(M)`: 0.5 - 0.5 cos(2πn/(M-1)), n in [0, M). */
    hanning: window('_npi_hanning', 'hanning'),
    /** NumPy `hamming(M)`: 0.54 - 0.46 cos(2πn/(M-1)). */
    hamming: window('_npi_hamming', 'hamming'),
    /** NumPy `blackman(M)`: 0.42 - 0.5 cos(2πn/(M-1)) + 0.08 cos(4πn/(M-1)). */
    blackman: window('_npi_blackman', 'blackman'),

    /**
     * NumPy `interp(x, xp, fp, left, right, period)`: piecewise-linear interpolation of increasing
     * `xp` → `fp` at `x` (float64; a number `x` gives a 0-d array).
     */
    interp(x: number | ArrayLike, xp: ArrayLike, fp: ArrayLike, o: InterpOptions = {}): ndarray {
      return c.withTemps((t) => {
        const f64 = (a: ArrayLike) => c.cast(c.operand(a, t, 'float64'), 'float64', t);
        const params = {
          left: o.left ?? null,
          right: o.right ?? null,
          period: o.period ?? null,
        };
        if (typeof x === 'number') {
          return c.invoke1('_npi_interp', [f64(xp), f64(fp)], { ...params, x_scalar: x, x_is_scalar: true });
        }
        return c.invoke1('_npi_interp', [f64(xp), f64(fp), f64(x)], { ...params, x_is_scalar: false });
      });
    },

    /** NumPy `polyval(p, x)`: p[0]·x^(N-1) + … + p[N-1] at every element of x (numbers give a number). */
    polyval(p: ArrayLike, x: number | ArrayLike): ndarray | number {
      if (Array.isArray(p) && typeof x === 'number' && p.every((v) => typeof v === 'number')) {
        return (p as number[]).reduce((s, v) => s * x + v, 0);
      }
      return c.withTemps((t) => {
        const dt = c.resultType(p, x as ArrayLike);
        const pa = c.cast(c.operand(p, t), dt, t);
        const xa = c.cast(c.operand(x as ArrayLike, t), dt, t);
        return c.invoke1('_npi_polyval', [pa, xa]);
      });
    },

    /**
     * NumPy `ediff1d(ary, to_end=None, to_begin=None)`: differences of the flattened array with
     * `toBegin` before and `toEnd` after (numbers or arrays, flattened).
     */
    ediff1d(
      ary: ArrayLike,
      toEnd: number | ArrayLike | null = null,
      toBegin: number | ArrayLike | null = null,
    ): ndarray {
      return c.withTemps((t) => {
        const a = c.operand(ary, t);
        const ins: NDArray[] = [a];
        const part = (v: number | ArrayLike | null) => {
          if (v === null || typeof v === 'number') return { arr: false, scalar: v };
          ins.push(c.cast(c.operand(v, t, a.dtype), a.dtype, t));
          return { arr: true, scalar: null };
        };
        // MXNet's inputs: ary, then to_begin, then to_end (the op's order).
        const b = part(toBegin);
        const e = part(toEnd);
        return c.invoke1('_npi_ediff1d', ins, {
          to_begin_arr_given: b.arr,
          to_end_arr_given: e.arr,
          to_begin_scalar: b.scalar,
          to_end_scalar: e.scalar,
        });
      });
    },
  };
}
