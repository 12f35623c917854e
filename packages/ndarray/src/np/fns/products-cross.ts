/**
 * NumPy `cross(a, b, axisa, axisb, axisc, axis)`, composed from slices, products and a concat the
 * way NumPy's own Python composes it (vectors moved to the last axis, 2-vectors read with z = 0,
 * the result's vector axis moved to `axisc`). MXNet 2.0 has a fused `_npi_cross` op; composing
 * keeps every backend and the gradient free, at the cost of a few more nodes in a recorded graph.
 */
import { MXNetError } from '@mx/base';
import type { NDArray } from '../../ndarray.js';
import type { ndarray } from '../array.js';
import type { ArrayLike, NpContext } from '../context.js';

/** `cross`'s keyword options (NumPy's). */
export interface CrossOptions {
  readonly axisa?: number;
  readonly axisb?: number;
  readonly axisc?: number;
  /** When given, overrides axisa, axisb and axisc. */
  readonly axis?: number | null;
}

function normalize(ax: number, nd: number, prefix: string): number {
  if (!Number.isInteger(ax) || ax < -nd || ax >= nd) {
    throw new MXNetError(`${prefix}: axis ${ax} is out of bounds for array of dimension ${nd}`, {
      op: 'cross',
      params: { [prefix]: ax },
      hint: `use an axis in [${-nd}, ${nd})`,
    });
  }
  return ax < 0 ? ax + nd : ax;
}

export function crossFunction(c: NpContext) {
  const keep = <T extends NDArray>(t: NDArray[], x: T): T => {
    t.push(x);
    return x;
  };
  /** `x` with axis `from` moved to position `to` (a copy when it moves). */
  const moveaxis = (x: NDArray, from: number, to: number, t: NDArray[]): NDArray => {
    if (from === to) return x;
    const axes = Array.from({ length: x.ndim }, (_, i) => i).filter((i) => i !== from);
    axes.splice(to, 0, from);
    return keep(t, c.invoke1('transpose', [x], { axes }));
  };

  return {
    /**
     * NumPy `cross(a, b, { axisa, axisb, axisc, axis })`: cross products of 2- or 3-vectors along
     * the given axes (last by default), broadcast over the others. Two 2-vectors give the z
     * component only.
     */
    cross(a: ArrayLike, b: ArrayLike, options: CrossOptions = {}): ndarray {
      const ax = options.axis;
      const axisa = ax ?? options.axisa ?? -1;
      const axisb = ax ?? options.axisb ?? -1;
      const axisc = ax ?? options.axisc ?? -1;
      return c.withTemps((t) => {
        const r = c.resultType(a, b);
        let x = c.cast(c.operand(a, t), r, t);
        let y = c.cast(c.operand(b, t), r, t);
        x = moveaxis(x, normalize(axisa, x.ndim, 'axisa'), x.ndim - 1, t);
        y = moveaxis(y, normalize(axisb, y.ndim, 'axisb'), y.ndim - 1, t);
        const na = x.shape[x.ndim - 1] as number;
        const nb = y.shape[y.ndim - 1] as number;
        if ((na !== 2 && na !== 3) || (nb !== 2 && nb !== 3)) {
          throw new MXNetError('incompatible dimensions for cross product\n(dimension must be 2 or 3)', {
            op: 'cross',
            shapes: [x.shape, y.shape],
            hint: 'the vector axes (axisa, axisb) must have length 2 or 3',
          });
        }
        const ba = x.shape.slice(0, -1);
        const bb = y.shape.slice(0, -1);
        const nd = Math.max(ba.length, bb.length);
        const shape: number[] = [];
        for (let i = 0; i < nd; i++) {
          const p = ba[ba.length - nd + i] ?? 1;
          const q = bb[bb.length - nd + i] ?? 1;
          if (p !== q && p !== 1 && q !== 1) {
            const f = (v: readonly number[]) => `(${v.join(',')}${v.length === 1 ? ',' : ''})`;
            const msg = `shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg 0 with shape ${f(ba)} and arg 1 with shape ${f(bb)}.`;
            throw new MXNetError(msg, {
              op: 'cross',
              shapes: [x.shape, y.shape],
              hint: 'the axes other than the vector axes must broadcast',
            });
          }
          shape.push(p === 1 ? q : p);
        }
        const vec3 = na === 3 || nb === 3;
        const cAxis = vec3 ? normalize(axisc, nd + 1, 'axisc') : 0;
        // Components keep a length-1 vector axis, so the result is their concat on it.
        const comp = (v: NDArray, i: number) =>
          keep(t, c.invoke1('slice_axis', [v], { axis: -1, begin: i, end: i + 1 }));
        const xs = Array.from({ length: na }, (_, i) => comp(x, i));
        const ys = Array.from({ length: nb }, (_, i) => comp(y, i));
        const mul = (p: NDArray, q: NDArray) => keep(t, c.invoke1('broadcast_mul', [p, q]));
        const sub = (p: NDArray, q: NDArray) => keep(t, c.invoke1('broadcast_sub', [p, q]));
        const a0 = xs[0] as NDArray;
        const a1 = xs[1] as NDArray;
        const b0 = ys[0] as NDArray;
        const b1 = ys[1] as NDArray;
        const z = sub(mul(a0, b1), mul(a1, b0));
        if (!vec3) return c.view(z, shape);
        const a2 = xs[2];
        const b2 = ys[2];
        const neg = (p: NDArray) => keep(t, c.invoke1('negative', [p]));
        let cx: NDArray;
        let cy: NDArray;
        if (a2 !== undefined && b2 !== undefined) {
          cx = sub(mul(a1, b2), mul(a2, b1));
          cy = sub(mul(a2, b0), mul(a0, b2));
        } else if (b2 !== undefined) {
          cx = mul(a1, b2);
          cy = neg(mul(a0, b2));
        } else {
          cx = neg(mul(a2 as NDArray, b1));
          cy = mul(a2 as NDArray, b0);
        }
        const cp = c.invoke1('Concat', [cx, cy, z], { num_args: 3, dim: -1 });
        if (cAxis === nd) return cp;
        t.push(cp);
        return c.asNp(moveaxis(cp, nd, cAxis, []));
      });
    },
  };
}
