/**
 * Shared pieces of the shape family's definitions: MXNet's `SHAPE_ASSIGN_CHECK`, axis checks and
 * one error constructor, so every op in the family fails the same way — an MXNetError that names
 * the op, its params and the input shapes, with MXNet's wording where users search for it.
 */
import { MXNetError, type Shape, shapeToString } from '@mx/base';
import { mergeShape } from '../../infer.js';
import type { ShapeSlots, TypeSlots } from '../../op-def.js';

/** An MXNetError for a shape-family op, carrying its params and the input shapes. */
export function shapeError(
  op: string,
  message: string,
  attrs: Readonly<Record<string, unknown>>,
  inShapes: ShapeSlots,
  hint?: string,
): MXNetError {
  return new MXNetError(message, {
    op,
    params: attrs,
    shapes: inShapes.map((s) => s ?? []),
    ...(hint === undefined ? {} : { hint }),
  });
}

/**
 * inferType of ops whose output has the dtype of input 0 and whose input 1 (indices, a shape
 * donor) may have any dtype: take, pick, slice_like.
 */
export function dataTypeAnyIndex(_attrs: unknown, inTypes: TypeSlots, outTypes: TypeSlots): boolean {
  if (inTypes[0] === undefined) return false;
  outTypes[0] = inTypes[0];
  return inTypes[1] !== undefined;
}

/** True when the slot holds a shape with every dim known. */
export function known(s: Shape | undefined): s is Shape {
  return s?.every((d) => d >= 0) === true;
}

/** MXNet `SHAPE_ASSIGN_CHECK`: fill slot `i`, merging unknown dims; throw when a known slot disagrees. */
export function assignShape(
  op: string,
  slots: ShapeSlots,
  i: number,
  shape: Shape,
  attrs: Readonly<Record<string, unknown>>,
  what = 'output',
): void {
  const cur = slots[i];
  if (cur === undefined) {
    slots[i] = [...shape];
    return;
  }
  const merged = mergeShape(cur, shape);
  if (merged === null) {
    throw new MXNetError(
      `Shape inconsistent, Provided = ${shapeToString(cur)}, inferred shape=${shapeToString(shape)} for ${what} ${i}`,
      {
        op,
        params: attrs,
        shapes: [cur, shape],
        hint: `give ${op} an ${what} of shape ${shapeToString(shape)}`,
      },
    );
  }
  slots[i] = merged;
}

/**
 * Normalise `axis` into [0, ndim) (negative counts from the end); throws MXNetError naming the op
 * when it is out of range. `ndim` may be ndim+1 for ops that insert an axis.
 */
export function checkAxis(
  op: string,
  axis: number,
  ndim: number,
  attrs: Readonly<Record<string, unknown>>,
  inShapes: ShapeSlots,
  name = 'axis',
): number {
  if (axis < -ndim || axis >= ndim) {
    throw shapeError(
      op,
      `${name} ${axis} is out of bounds for array of dimension ${ndim}`,
      attrs,
      inShapes,
      ndim === 0
        ? `${op} needs an input with at least one dimension`
        : `use ${name} in [${-ndim}, ${ndim - 1}]`,
    );
  }
  return axis < 0 ? axis + ndim : axis;
}

/** Product of dims. */
export function prod(shape: Shape, from = 0, to = shape.length): number {
  let n = 1;
  for (let i = from; i < to; i++) n *= shape[i] as number;
  return n;
}

/** `arg0..argN-1`: MXNet's input names for variadic ops (Concat, stack). */
export function argNames(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `arg${i}`);
}

/** `output0..outputN-1`: MXNet's output names for multi-output ops (SliceChannel), even for one. */
export function outputNames(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `output${i}`);
}
