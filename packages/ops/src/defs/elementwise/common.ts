/**
 * Shape and type inference shared by the elementwise family, mirroring MXNet's helpers:
 * `ElemwiseShape<n, 1>` (every input and the output have one shape, merged slot by slot with
 * MXNet's "Incompatible attr in node ..." message), `BinaryBroadcastShape` (NumPy broadcasting of
 * two inputs) and `NumpyBinaryScalarType` (MXNet 2.0's `_*_scalar` ops: an integer array with a
 * non-integer scalar computes in float64, a bool array in int64/float64).
 *
 * Unknown shapes are `undefined` slots; unknown dims are -1 and are filled from any slot that
 * knows them. Failures are MXNetErrors naming the op, its params and the input shapes.
 */
import {
  broadcastShapes,
  DType,
  type DTypeName,
  isMXNetError,
  isShapeKnown,
  MXNetError,
  type Shape,
  shapeToString,
} from '@mx/base';
import type { ShapeSlots, TypeSlots } from '../../op-def.js';

type AttrsLike = Readonly<Record<string, unknown>>;

import { mergeShape } from '../../infer.js';

export { mergeShape };

function shapesOf(inShapes: ShapeSlots): (readonly number[])[] {
  return inShapes.map((s) => s ?? []);
}

/**
 * MXNet `ElemwiseShape<n, 1>`: all inputs and the output share one shape. Known slots are merged
 * in order (inputs, then the output); the first contradiction throws MXNet's message, e.g.
 * `Incompatible attr in node elemwise_add at 1-th input: expected (2, 3), got (3, 2)`.
 * Inputs before `first` take no part (`where`'s condition).
 */
export function elemwiseShape(
  op: string,
  attrs: AttrsLike,
  inShapes: ShapeSlots,
  outShapes: ShapeSlots,
  first = 0,
): boolean {
  let ref: number[] | undefined;
  const visit = (s: Shape | undefined, i: number, what: 'input' | 'output'): void => {
    if (s === undefined) return;
    if (ref === undefined) {
      ref = [...s];
      return;
    }
    const merged = mergeShape(ref, s);
    if (merged === null) {
      throw new MXNetError(
        `Incompatible attr in node ${op} at ${i}-th ${what}: expected ${shapeToString(ref)}, got ${shapeToString(s)}`,
        {
          op,
          params: attrs,
          shapes: shapesOf(inShapes),
          hint: `${op} needs inputs of identical shapes; use the broadcast_* op to broadcast`,
        },
      );
    }
    ref = merged;
  };
  for (let i = first; i < inShapes.length; i++) visit(inShapes[i], i, 'input');
  for (let i = 0; i < outShapes.length; i++) visit(outShapes[i], i, 'output');
  if (ref === undefined) return false;
  const shape = ref;
  for (let i = first; i < inShapes.length; i++) inShapes[i] = [...shape];
  for (let i = 0; i < outShapes.length; i++) outShapes[i] = [...shape];
  return isShapeKnown(shape);
}

/** MXNet `SHAPE_ASSIGN_CHECK` on the output slot. */
function assignOutput(
  op: string,
  attrs: AttrsLike,
  inShapes: ShapeSlots,
  outShapes: ShapeSlots,
  shape: Shape,
): void {
  const cur = outShapes[0];
  if (cur === undefined) {
    outShapes[0] = [...shape];
    return;
  }
  const merged = mergeShape(cur, shape);
  if (merged === null) {
    throw new MXNetError(
      `Shape inconsistent, Provided = ${shapeToString(cur)}, inferred shape=${shapeToString(shape)} for output 0`,
      {
        op,
        params: attrs,
        shapes: shapesOf(inShapes),
        hint: `give ${op} an output of shape ${shapeToString(shape)}`,
      },
    );
  }
  outShapes[0] = merged;
}

/**
 * MXNet `BinaryBroadcastShape`: the output is the NumPy broadcast of `lhs` and `rhs`. Both inputs
 * must be known (as in MXNet, the output cannot pin the inputs down).
 */
export function broadcastShape(
  op: string,
  attrs: AttrsLike,
  inShapes: ShapeSlots,
  outShapes: ShapeSlots,
): boolean {
  const lhs = inShapes[0];
  const rhs = inShapes[1];
  if (lhs === undefined || rhs === undefined) return false;
  let out: number[];
  try {
    out = broadcastShapes(lhs, rhs);
  } catch (e) {
    if (!isMXNetError(e)) throw e;
    throw new MXNetError(
      `operands could not be broadcast together with shapes ${shapeToString(lhs)} ${shapeToString(rhs)}`,
      {
        op,
        params: attrs,
        shapes: [lhs, rhs],
        hint: 'dimensions must be equal or 1, aligned from the right',
        cause: e,
      },
    );
  }
  assignOutput(op, attrs, inShapes, outShapes, out);
  return isShapeKnown(outShapes[0] as Shape);
}

function isIntegral(t: DTypeName): boolean {
  const k = DType[t].kind;
  return k === 'i' || k === 'u';
}

/** MXNet `TYPE_ASSIGN_CHECK`. */
export function assignType(op: string, slots: TypeSlots, i: number, t: DTypeName, what: string): void {
  const cur = slots[i];
  if (cur === undefined) {
    slots[i] = t;
    return;
  }
  if (cur !== t) {
    throw new MXNetError(`type inconsistent for ${what} ${i}: expected ${t}, got ${cur}`, {
      op,
      dtypes: [cur],
      hint: 'cast the input first (astype / Cast)',
    });
  }
}

/**
 * MXNet 2.0 `NumpyBinaryScalarType`: an integer input with a non-integer scalar (`is_int=False`)
 * gives float64; a bool input gives int64 (integer scalar) or float64; otherwise the output has the
 * input's dtype (and the input may be inferred from the output).
 */
export function scalarType(
  op: string,
  attrs: { readonly is_int: boolean },
  inTypes: TypeSlots,
  outTypes: TypeSlots,
): boolean {
  const t = inTypes[0];
  if (t !== undefined && isIntegral(t) && !attrs.is_int) {
    assignType(op, outTypes, 0, 'float64', 'output');
  } else if (t === 'bool') {
    assignType(op, outTypes, 0, attrs.is_int ? 'int64' : 'float64', 'output');
  } else {
    if (t !== undefined) assignType(op, outTypes, 0, t, 'output');
    const o = outTypes[0];
    if (o !== undefined) assignType(op, inTypes, 0, o, 'input');
  }
  return outTypes[0] !== undefined;
}
