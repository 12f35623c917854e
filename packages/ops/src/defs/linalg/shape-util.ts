/**
 * Small helpers the linalg shape functions share: MXNet's `SHAPE_ASSIGN_CHECK` (fill an output slot
 * or check it against what inference found) and the error text for mismatched operands, which
 * names the op, both shapes and the transpose flags so a user sees which flag to flip.
 */
import { MXNetError, type Shape, shapeToString } from '@mx/base';
import type { ShapeSlots } from '../../op-def.js';

/** Product of dims; -1 when some dim is unknown. */
export function sizeOrUnknown(dims: readonly number[]): number {
  let n = 1;
  for (const d of dims) {
    if (d < 0) return -1;
    n *= d;
  }
  return n;
}

/** Fill `slots[i]` with `shape`, or check an existing shape agrees (unknown dims match anything). */
export function assignShape(op: string, slots: ShapeSlots, i: number, shape: Shape, what: string): void {
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
      { op, shapes: [have, shape], hint: `pass an ${what} of shape ${shapeToString(shape)}` },
    );
  }
  slots[i] = have.map((d, j) => (d < 0 ? (shape[j] as number) : d));
}

/** True when the shape and every dim are known. */
export function known(s: Shape | undefined): s is Shape {
  return s?.every((d) => d >= 0) === true;
}

/** MXNetError for operands whose shapes do not multiply. */
export function shapeError(
  op: string,
  reason: string,
  lhs: Shape,
  rhs: Shape,
  flags: Readonly<Record<string, unknown>>,
  hint: string,
): MXNetError {
  const f = Object.entries(flags)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  return new MXNetError(
    `${op} shape error (${reason}): ${shapeToString(lhs)} X ${shapeToString(rhs)} with ${f}`,
    {
      op,
      params: flags,
      shapes: [lhs, rhs],
      hint,
    },
  );
}
