/**
 * Inference helpers the layer definitions share: MXNet's `SHAPE_ASSIGN_CHECK` / `TYPE_ASSIGN_CHECK`
 * with MXNet's message text ("Shape inconsistent, Provided = ..., inferred shape=...") plus the op,
 * the input shapes and a hint naming the input to change, and `CheckAxis`.
 *
 * Every error sets `shapes`, so the NDArray layer reports it as written instead of re-wrapping it.
 */
import { type DTypeName, MXNetError, type Shape, shapeToString } from '@mx/base';
import { mergeShape } from '../../../infer.js';
import type { ShapeSlots, TypeSlots } from '../../../op-def.js';

type AttrsLike = Readonly<Record<string, unknown>>;

export function shapesOf(slots: ShapeSlots): number[][] {
  return slots.map((s) => (s === undefined ? [] : [...s]));
}

/** True when the shape and every dim are known. */
export function known(s: Shape | undefined): s is Shape {
  return s?.every((d) => d >= 0) === true;
}

/**
 * MXNet `SHAPE_ASSIGN_CHECK`: fill `slots[i]` with `shape` or check the shape it holds agrees
 * (unknown dims, -1, match anything). `what` names the slot in the message, e.g. `input 1 (weight)`.
 */
export function assignShape(
  op: string,
  attrs: AttrsLike,
  inShapes: ShapeSlots,
  slots: ShapeSlots,
  i: number,
  shape: Shape,
  what: string,
  hint?: string,
): void {
  const have = slots[i];
  if (have === undefined) {
    slots[i] = [...shape];
    return;
  }
  const merged = mergeShape(have, shape);
  if (merged === null) {
    throw new MXNetError(
      `Shape inconsistent, Provided = ${shapeToString(have)}, inferred shape=${shapeToString(shape)} for ${what}`,
      {
        op,
        params: attrs,
        shapes: shapesOf(inShapes),
        hint: hint ?? `give ${what} the shape ${shapeToString(shape)}`,
      },
    );
  }
  slots[i] = merged;
}

/** MXNet `CheckAxis`: a valid axis of an `ndim`-d array, made non-negative. */
export function checkAxis(
  op: string,
  attrs: AttrsLike,
  axis: number,
  ndim: number,
  shapes: ShapeSlots,
): number {
  if (!(axis < ndim && axis >= -ndim)) {
    throw new MXNetError(`axis ${axis} exceeds the input dimension of ${ndim}`, {
      op,
      params: attrs,
      shapes: shapesOf(shapes),
      hint: `pass an axis in [${-ndim}, ${ndim - 1}]`,
    });
  }
  return axis < 0 ? axis + ndim : axis;
}

/** MXNet `TYPE_ASSIGN_CHECK`. */
export function assignType(
  op: string,
  slots: TypeSlots,
  i: number,
  t: DTypeName,
  what: string,
  all: TypeSlots,
): void {
  const cur = slots[i];
  if (cur === undefined) {
    slots[i] = t;
    return;
  }
  if (cur !== t) {
    throw new MXNetError(`type inconsistent for ${what}: expected ${t}, got ${cur}`, {
      op,
      dtypes: all.map((d) => d ?? 'unknown'),
      hint: `cast ${what} to ${t} first (astype / Cast)`,
    });
  }
}

/** Every slot of `slots` (unknowns filled) has one shape, taken from the first known slot. */
export function sameShapes(
  op: string,
  attrs: AttrsLike,
  inShapes: ShapeSlots,
  outShapes: ShapeSlots,
  inputs: readonly number[],
  outputs: readonly number[],
  names: readonly string[],
): boolean {
  let ref: number[] | undefined;
  const check = (slots: ShapeSlots, i: number, what: string) => {
    const s = slots[i];
    if (s === undefined) return;
    if (ref === undefined) {
      ref = [...s];
      return;
    }
    const m = mergeShape(ref, s);
    if (m === null) {
      throw new MXNetError(
        `Incompatible attr in node ${op} at ${what}: expected ${shapeToString(ref)}, got ${shapeToString(s)}`,
        {
          op,
          params: attrs,
          shapes: shapesOf(inShapes),
          hint: `${op} needs ${names.join(', ')} of one shape`,
        },
      );
    }
    ref = m;
  };
  for (const i of inputs) check(inShapes, i, `${i}-th input`);
  for (const i of outputs) check(outShapes, i, `${i}-th output`);
  if (ref === undefined) return false;
  const r = ref;
  for (const i of inputs) inShapes[i] = [...r];
  for (const i of outputs) outShapes[i] = [...r];
  return known(r);
}

/** The floating-point dtypes the NN layers compute in (MXNet `MSHADOW_REAL_TYPE_SWITCH`). */
export const REAL_DTYPES: ReadonlySet<DTypeName> = new Set(['float16', 'float32', 'float64', 'bfloat16']);

/** Reject a non-floating dtype for a layer's data input. */
export function requireReal(op: string, t: DTypeName | undefined, what: string, all: TypeSlots): void {
  if (t !== undefined && !REAL_DTYPES.has(t)) {
    throw new MXNetError(`${op} computes in floating point; ${what} is ${t}`, {
      op,
      dtypes: all.map((d) => d ?? 'unknown'),
      hint: `cast ${what} to float32 first (astype / Cast)`,
    });
  }
}
