/**
 * Shape helpers with NumPy semantics, which MXNet 2.x uses everywhere (`is_np_shape`):
 * `[]` is a zero-dim scalar (size 1), a 0 dimension is a zero-size axis, and -1 marks an unknown
 * dimension during shape inference. MXNet 1.x ("legacy") shapes used 0 for unknown and ndim 0 for
 * an unknown shape; {@link fromLegacyShape} converts when reading old files and JSON.
 */
import { MXNetError } from './error.js';

/** A shape: dimension sizes, outermost first. -1 = unknown (during inference only). */
export type Shape = readonly number[];

/** The marker for an unknown dimension. */
export const UNKNOWN_DIM = -1;

/** `(2, 3)`, `(5,)`, `()`: Python tuple spelling, as MXNet and NumPy print shapes. */
export function shapeToString(shape: Shape): string {
  return shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
}

/** Throws unless every dim is an integer >= -1 (or >= 0 when `allowUnknown` is false). */
export function checkShape(shape: Shape, what = 'shape', allowUnknown = true): void {
  for (let i = 0; i < shape.length; i++) {
    const d = shape[i] as number;
    if (!Number.isInteger(d) || d < (allowUnknown ? UNKNOWN_DIM : 0)) {
      throw new MXNetError(`${what} ${shapeToString(shape)} has invalid dimension ${d} at axis ${i}`, {
        op: 'checkShape',
        hint: allowUnknown
          ? 'dimensions are integers >= 0, or -1 for unknown'
          : 'dimensions are integers >= 0',
      });
    }
  }
}

/** True when no dimension is unknown. */
export function isShapeKnown(shape: Shape): boolean {
  for (const d of shape) if (d < 0) return false;
  return true;
}

/** Number of elements: product of dims; `()` → 1, any 0 dim → 0. Throws on an unknown dim. */
export function shapeSize(shape: Shape): number {
  let n = 1;
  for (const d of shape) {
    if (d < 0) {
      throw new MXNetError(`size of shape ${shapeToString(shape)} is unknown`, {
        op: 'shapeSize',
        hint: 'infer the shape fully before asking for its size',
      });
    }
    n *= d;
  }
  return n;
}

export function shapesEqual(a: Shape, b: Shape): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** C-contiguous strides in elements. */
export function stridesOf(shape: Shape): number[] {
  const strides = new Array<number>(shape.length);
  let s = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    strides[i] = s;
    s *= shape[i] as number;
  }
  return strides;
}

/** Normalise a possibly negative axis into [0, ndim); throws MXNetError when out of range. */
export function normalizeAxis(axis: number, ndim: number, op = 'normalizeAxis'): number {
  if (!Number.isInteger(axis) || axis < -ndim || axis >= ndim) {
    throw new MXNetError(`axis ${axis} is out of bounds for array of dimension ${ndim}`, {
      op,
      hint: `use an axis in [${-ndim}, ${ndim - 1}]`,
    });
  }
  return axis < 0 ? axis + ndim : axis;
}

/**
 * NumPy broadcasting of any number of shapes. Unknown dims (-1) broadcast against 1 and equal
 * dims, staying unknown where nothing pins them. Throws MXNetError naming the shapes on mismatch.
 */
export function broadcastShapes(...shapes: Shape[]): number[] {
  let ndim = 0;
  for (const s of shapes) ndim = Math.max(ndim, s.length);
  const out = new Array<number>(ndim).fill(1);
  for (const s of shapes) {
    const off = ndim - s.length;
    for (let i = 0; i < s.length; i++) {
      const d = s[i] as number;
      const o = out[off + i] as number;
      if (d === 1 || d === o) continue;
      if (o === 1) out[off + i] = d;
      else if (d === UNKNOWN_DIM) continue;
      else if (o === UNKNOWN_DIM) out[off + i] = d;
      else {
        throw new MXNetError(
          `operands could not be broadcast together with shapes ${shapes.map(shapeToString).join(' ')}`,
          { op: 'broadcast', shapes, hint: 'dimensions must be equal or 1, aligned from the right' },
        );
      }
    }
  }
  return out;
}

/**
 * Parse MXNet's string form of a shape/tuple: `(2, 3)`, `[2,3]`, `(5,)`, `()`, `2`.
 * `None` inside a tuple becomes -1 (unknown), as MXNet's optional dims do.
 */
export function parseShape(text: string): number[] {
  const t = text.trim();
  const body = /^[([](.*)[)\]]$/s.exec(t)?.[1] ?? t;
  if (body.trim() === '') return [];
  const parts = body.split(',').map((p) => p.trim());
  if (parts[parts.length - 1] === '') parts.pop();
  return parts.map((p) => {
    if (p === 'None') return UNKNOWN_DIM;
    if (!/^-?\d+$/.test(p)) {
      throw new MXNetError(`cannot parse shape "${text}": "${p}" is not an integer`, {
        op: 'parseShape',
        hint: 'write shapes as (2, 3), (5,) or ()',
      });
    }
    return Number(p);
  });
}

/**
 * Convert an MXNet 1.x (legacy) shape, where 0 meant unknown and ndim 0 meant "unknown shape",
 * to NumPy semantics. Returns `undefined` for an unknown shape.
 */
export function fromLegacyShape(shape: Shape): number[] | undefined {
  if (shape.length === 0) return undefined;
  return shape.map((d) => (d === 0 ? UNKNOWN_DIM : d));
}

/** Convert a NumPy-semantics shape to MXNet 1.x legacy semantics (unknown → 0). */
export function toLegacyShape(shape: Shape | undefined): number[] {
  if (shape === undefined) return [];
  return shape.map((d) => (d === UNKNOWN_DIM ? 0 : d));
}
