/**
 * Shape and dtype rules the np.linalg ops share (MXNet 2.0 src/operator/numpy/linalg/ and
 * tensor/la_op.h): square trailing matrices, the `(..., M, N)` batch convention, and the two dtype
 * rules MXNet uses — la_op's (float32/float64 only, every output the input's dtype) and the numpy
 * ops' (float32 stays float32, anything else computes in float64; float16 refused).
 */
import { type DTypeName, MXNetError, type Shape, shapeToString } from '@mx/base';
import type { ShapeSlots, TypeSlots } from '../../../op-def.js';

/** True when the shape and every dim are known. */
export function known(s: Shape | undefined): s is Shape {
  return s?.every((d) => d >= 0) === true;
}

/** MXNet's SHAPE_ASSIGN_CHECK: fill slot `i` or check that what is there agrees. */
export function assign(op: string, slots: ShapeSlots, i: number, shape: Shape, what = `output ${i}`): void {
  const have = slots[i];
  if (have === undefined) {
    slots[i] = [...shape];
    return;
  }
  const ok =
    have.length === shape.length && have.every((d, j) => d < 0 || (shape[j] as number) < 0 || d === shape[j]);
  if (!ok) {
    throw new MXNetError(
      `shape inconsistent: ${what} is ${shapeToString(have)} but inferred ${shapeToString(shape)}`,
      {
        op,
        shapes: [have, shape],
        hint: `pass an ${what} of shape ${shapeToString(shape)}`,
      },
    );
  }
  slots[i] = have.map((d, j) => (d < 0 ? (shape[j] as number) : d));
}

/** A shape error naming the op and the operand shapes. */
export function shapeError(op: string, message: string, shapes: readonly Shape[], hint: string): MXNetError {
  return new MXNetError(`${op}: ${message}`, { op, shapes: [...shapes], hint });
}

/** Check `a` is (..., N, N) (MXNet: "Input A's last two dimension must be equal"). Returns N. */
export function checkSquare(op: string, a: Shape): number {
  checkMatrix(op, a);
  const m = a[a.length - 2] as number;
  const n = a[a.length - 1] as number;
  if (m !== n) {
    throw shapeError(
      op,
      `Last 2 dimensions of the array must be square (Input A's last two dimension must be equal), got ${shapeToString(a)}`,
      [a],
      'pass square matrices of shape (..., N, N)',
    );
  }
  return n;
}

/** Check `a` has ndim >= 2 (NumPy: "dimensional array given. Array must be at least two-dimensional"). */
export function checkMatrix(op: string, a: Shape): void {
  if (a.length < 2) {
    throw shapeError(
      op,
      `${a.length}-dimensional array given. Array must be at least two-dimensional`,
      [a],
      'pass an array of shape (..., M, N)',
    );
  }
}

const FLOATS: readonly DTypeName[] = ['float32', 'float64'];

/**
 * la_op's rule (`_linalg_*`, `_npi_cholesky`, `_npi_svd`): inputs float32 or float64, every output
 * of the input's dtype, except `intOutputs` (LU pivots), which are int32 (LAPACK's index type).
 */
export function laType(
  op: string,
  inTypes: TypeSlots,
  outTypes: TypeSlots,
  intOutputs: readonly number[] = [],
): boolean {
  const t = inTypes[0] ?? outTypes.find((x, i) => x !== undefined && !intOutputs.includes(i));
  if (t === undefined) return false;
  if (!FLOATS.includes(t)) {
    throw new MXNetError(`${op}: This operation only supports 32-bit and 64-bit floating point, got ${t}`, {
      op,
      dtypes: [t],
      hint: 'cast the input to float32 or float64 first (astype)',
    });
  }
  inTypes[0] = t;
  for (let i = 0; i < outTypes.length; i++) outTypes[i] = intOutputs.includes(i) ? 'int32' : t;
  return true;
}

/**
 * The numpy linalg ops' rule (np_solve, np_qr, np_eig, np_tensorinv…): float32 inputs (all of
 * them) give float32, any other dtype float64; float16 is refused as MXNet does.
 */
export function npType(
  op: string,
  inTypes: TypeSlots,
  outTypes: TypeSlots,
  options: {
    readonly floatInputs?: readonly number[];
    readonly outs?: Readonly<Record<number, DTypeName>>;
  } = {},
): boolean {
  const n = options.floatInputs === undefined ? inTypes.length : options.floatInputs.length;
  const idx = options.floatInputs ?? Array.from({ length: n }, (_, i) => i);
  if (idx.some((i) => inTypes[i] === undefined)) return false;
  for (const i of idx) {
    const t = inTypes[i] as DTypeName;
    if (t === 'float16' || t === 'bfloat16') {
      throw new MXNetError(`${op}: array type ${t} is unsupported in linalg`, {
        op,
        dtypes: inTypes.map((d) => d ?? 'unknown'),
        hint: 'cast the input to float32 or float64 first (astype)',
      });
    }
  }
  const out: DTypeName = idx.every((i) => inTypes[i] === 'float32') ? 'float32' : 'float64';
  for (let i = 0; i < outTypes.length; i++) outTypes[i] = options.outs?.[i] ?? out;
  return inTypes.every((t) => t !== undefined);
}

/** The batch dims of a (..., M, N) shape. */
export function batchOf(a: Shape): number[] {
  return a.slice(0, -2);
}

/** NumPy broadcasting of two shapes, or null when they do not broadcast. */
export function broadcastShapes(a: Shape, b: Shape): number[] | null {
  const n = Math.max(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = i - (n - a.length) >= 0 ? (a[i - (n - a.length)] as number) : 1;
    const y = i - (n - b.length) >= 0 ? (b[i - (n - b.length)] as number) : 1;
    if (x !== y && x !== 1 && y !== 1) return null;
    out.push(x === 1 ? y : x);
  }
  return out;
}
