/**
 * Shape rules shared by the reduce family: MXNet's `ReduceAxesShapeImpl` (sum/mean/max/...: an
 * optional axis tuple, keepdims, exclude), `ReduceAxisShapeImpl` (argmax/argmin: one optional int
 * axis) and the slot-assignment check (`SHAPE_ASSIGN_CHECK`). They live apart from the op
 * declarations because every reduce op, norm and the ordering ops use them, and because their
 * error texts are MXNet's ("Reduction axis 3 Exceeds input dimensions (2, 3)"), which users search.
 */
import { MXNetError, type Shape, shapeToString } from '@mx/base';
import type { ShapeSlots } from '../../op-def.js';

/** Context for errors: the op and its parsed params. */
export interface ReduceErrorContext {
  readonly op: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly shape: Shape;
}

export function reduceError(ctx: ReduceErrorContext, message: string, hint: string): MXNetError {
  return new MXNetError(message, { op: ctx.op, params: ctx.params, shapes: [ctx.shape], hint });
}

/** Put `shape` into output slot `i`, or check it agrees with what is there (MXNet SHAPE_ASSIGN_CHECK). */
export function assignShape(op: string, slots: ShapeSlots, i: number, shape: Shape): void {
  const have = slots[i];
  if (have === undefined) {
    slots[i] = [...shape];
    return;
  }
  const ok =
    have.length === shape.length && have.every((d, k) => d === -1 || shape[k] === -1 || d === shape[k]);
  if (!ok) {
    throw new MXNetError(
      `shape inconsistent: output ${i} is ${shapeToString(have)} but the op computes ${shapeToString(shape)}`,
      { op, shapes: [shape], hint: 'pass an output of the computed shape' },
    );
  }
  slots[i] = have.map((d, k) => (d === -1 ? (shape[k] as number) : d));
}

/**
 * The reduced axes (sorted, non-negative) of an input of rank `ndim`, or null for "all axes"
 * (axis None or the empty tuple). Throws MXNet's errors for duplicates and out-of-range axes.
 */
export function normalizeReduceAxes(
  ctx: ReduceErrorContext,
  axis: readonly number[] | null,
): number[] | null {
  if (axis === null || axis.length === 0) return null;
  const ndim = ctx.shape.length;
  const axes = axis.map((a) => (a < 0 ? a + ndim : a)).sort((a, b) => a - b);
  for (let i = 1; i < axes.length; i++) {
    if ((axes[i - 1] as number) >= (axes[i] as number)) {
      throw reduceError(
        ctx,
        `Reduction axes have duplicates ${shapeToString(axes)}`,
        'list each axis once (a negative axis counts from the end: -1 is the last)',
      );
    }
  }
  const last = axes[axes.length - 1] as number;
  if (last >= ndim) {
    throw reduceError(
      ctx,
      `Reduction axis ${last} Exceeds input dimensions ${shapeToString(ctx.shape)}`,
      `axes must lie in [-${ndim}, ${ndim - 1}] for a ${ndim}-d input`,
    );
  }
  if ((axes[0] as number) < 0) {
    throw reduceError(
      ctx,
      `Reduction axis ${shapeToString(axis)} Exceeds input dimensions ${shapeToString(ctx.shape)}`,
      `axes must lie in [-${ndim}, ${ndim - 1}] for a ${ndim}-d input`,
    );
  }
  return axes;
}

/** Flags per input axis: true where the axis is reduced (after `exclude`). */
export function reducedAxisFlags(ndim: number, axes: readonly number[] | null, exclude: boolean): boolean[] {
  if (axes === null) return new Array<boolean>(ndim).fill(true);
  const flags = new Array<boolean>(ndim).fill(exclude);
  for (const a of axes) flags[a] = !exclude;
  return flags;
}

/** MXNet's `ReduceAxesShapeImpl`: the output shape of a reduction over `axis`. */
export function reduceAxesShape(
  ctx: ReduceErrorContext,
  axis: readonly number[] | null,
  keepdims: boolean,
  exclude: boolean,
): number[] {
  const ishape = ctx.shape;
  const axes = normalizeReduceAxes(ctx, axis);
  if (axes === null) return keepdims ? new Array<number>(ishape.length).fill(1) : [1];
  const flags = reducedAxisFlags(ishape.length, axes, exclude);
  if (keepdims) return ishape.map((d, i) => (flags[i] ? 1 : d));
  const kept = ishape.filter((_, i) => !flags[i]);
  // MXNet never returns a zero-dim result here: reducing every axis leaves shape (1,).
  return kept.length === 0 ? [1] : kept;
}

/** `CheckAxis`: one axis normalized to [0, ndim), with MXNet's message. */
export function checkAxis(ctx: ReduceErrorContext, axis: number): number {
  const ndim = ctx.shape.length;
  if (ndim === 0) {
    if (axis === 0 || axis === -1) return 0;
    throw reduceError(
      ctx,
      `axis ${axis} is out of bounds for array of dimension 1`,
      'a zero-dim input takes axis 0, -1 or None',
    );
  }
  if (axis >= ndim || axis < -ndim) {
    throw reduceError(
      ctx,
      `axis ${axis} exceeds the input dimension of ${ndim}`,
      `axis must lie in [-${ndim}, ${ndim - 1}]; input shape ${shapeToString(ctx.shape)}`,
    );
  }
  return (axis + ndim) % ndim;
}

/** MXNet's `ReduceAxisShapeImpl` (argmax/argmin), with a zero-dim input kept zero-dim as NumPy does. */
export function reduceAxisShape(ctx: ReduceErrorContext, axis: number | null, keepdims: boolean): number[] {
  const ishape = ctx.shape;
  if (axis === null || ishape.length === 1) {
    if (axis !== null) checkAxis(ctx, axis);
    return keepdims ? new Array<number>(ishape.length).fill(1) : [1];
  }
  const a = checkAxis(ctx, axis);
  if (ishape.length === 0) return [];
  if (keepdims) return ishape.map((d, i) => (i === a ? 1 : d));
  return ishape.filter((_, i) => i !== a);
}
