/**
 * Small pieces the np shape files share: NumPy's printing of shapes in messages, its AxisError
 * text, and the broadcast shape of several arrays with `broadcast_arrays`' error.
 */
import { MXNetError } from '@mx/base';

/** A shape as NumPy prints it in reshape errors: `(4,)`, `(4,newaxis)` for -1. */
export const tuple = (dims: readonly number[]): string =>
  `(${dims.map((d) => (d === -1 ? 'newaxis' : String(d))).join(',')}${dims.length === 1 ? ',' : ''})`;

/** A shape as NumPy prints it in most errors: `(2, 3)`, `(3,)`, `()`. */
export const pyShape = (dims: readonly number[]): string =>
  `(${dims.join(', ')}${dims.length === 1 ? ',' : ''})`;

/** A ValueError-style MXNetError of np function `fn`. */
export function npError(
  fn: string,
  message: string,
  shapes: readonly (readonly number[])[],
  hint: string,
): MXNetError {
  return new MXNetError(message, { op: fn, shapes, hint });
}

/**
 * One axis normalised against `ndim` with NumPy's AxisError text (`prefix: axis 3 is out of
 * bounds for array of dimension 2` when NumPy names the argument).
 */
export function npAxis(axis: number, ndim: number, fn: string, prefix?: string): number {
  if (!Number.isInteger(axis) || axis < -ndim || axis >= ndim) {
    throw new MXNetError(
      `${prefix === undefined ? '' : `${prefix}: `}axis ${axis} is out of bounds for array of dimension ${ndim}`,
      { op: fn, params: { axis }, hint: `use an axis in [${-ndim}, ${ndim})` },
    );
  }
  return axis < 0 ? axis + ndim : axis;
}

/** NumPy's broadcast shape of several shapes, or its `broadcast_arrays` error. */
export function broadcastShapes(shapes: readonly (readonly number[])[], fn: string): number[] {
  const nd = Math.max(0, ...shapes.map((s) => s.length));
  const out = new Array<number>(nd).fill(1);
  shapes.forEach((s, k) => {
    for (let i = 0; i < s.length; i++) {
      const j = nd - s.length + i;
      const d = s[i] as number;
      const o = out[j] as number;
      if (d === o || d === 1) continue;
      if (o === 1) {
        out[j] = d;
        continue;
      }
      const first = shapes.findIndex((t) => {
        const q = t.length - nd + j;
        return q >= 0 && t[q] !== 1 && t[q] !== d;
      });
      throw npError(
        fn,
        `shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg ${first} with shape ${pyShape(shapes[first] as number[])} and arg ${k} with shape ${pyShape(s)}.`,
        shapes,
        'give arrays whose trailing dimensions are equal or 1',
      );
    }
  });
  return out;
}
