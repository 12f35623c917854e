/**
 * What the optimizer ops share: MXNet's common parameter fields (lr, wd, rescale_grad,
 * clip_gradient, lazy_update with their defaults and texts) and the shape/type inference of
 * MXNet's `ElemwiseShape` / `ElemwiseType` / `MP_InferType` applied to a subset of the slots, with
 * messages that name the input (weight, grad, mom, ...) as well as both shapes.
 *
 * MXNet only computes these ops in real types (MSHADOW_REAL_TYPE_SWITCH): an integer weight fails
 * there at run time; here type inference refuses it up front, so nothing runs and no state changes.
 */
import { type DTypeName, isShapeKnown, MXNetError, type Shape, shapeToString } from '@mx/base';
import { mergeShape } from '../../infer.js';
import type { ShapeSlots, TypeSlots } from '../../op-def.js';
import { P } from '../../params.js';

type AttrsLike = Readonly<Record<string, unknown>>;

export const lrParam = () => P.float({ doc: 'Learning rate' });
export const wdParam = () =>
  P.float({
    default: 0,
    doc:
      'Weight decay augments the objective function with a regularization term that penalizes large ' +
      'weights. The penalty scales with the square of the magnitude of each weight.',
  });
export const rescaleParam = () =>
  P.float({ default: 1, doc: 'Rescale gradient to grad = rescale_grad*grad.' });
export const clipParam = () =>
  P.float({
    default: -1,
    doc:
      'Clip gradient to the range of [-clip_gradient, clip_gradient] If clip_gradient <= 0, gradient ' +
      'clipping is turned off. grad = max(min(grad, clip_gradient), -clip_gradient).',
  });
export const clipWeightsParam = () =>
  P.float({
    default: -1,
    doc:
      'Clip weights to the range of [-clip_weights, clip_weights] If clip_weights <= 0, weight clipping ' +
      'is turned off. weights = max(min(weights, clip_weights), -clip_weights).',
  });
export const momentumParam = () =>
  P.float({ default: 0, doc: 'The decay rate of momentum estimates at each epoch.' });
export const lazyParam = () =>
  P.bool({
    default: true,
    doc:
      "If true, lazy updates are applied if gradient's stype is row_sparse (dense arrays always get " +
      'the standard update).',
  });

/** The dtypes MXNet's optimizer kernels compute in (MSHADOW_REAL_TYPE_SWITCH). */
export const REAL_TYPES: readonly DTypeName[] = Object.freeze(['float32', 'float64', 'float16']);

/**
 * MXNet `ElemwiseShape` over the input slots `idx` and every output slot: one shape for all, merged
 * dim by dim; a contradiction names the input, e.g. `Incompatible attr in node sgd_mom_update at
 * 2-th input (mom): expected (2, 3), got (3, 2)`.
 */
export function sameShapes(
  op: string,
  names: readonly string[],
  attrs: AttrsLike,
  inShapes: ShapeSlots,
  outShapes: ShapeSlots,
  idx: readonly number[],
  outIdx: readonly number[] = outShapes.map((_, i) => i),
): boolean {
  let ref: number[] | undefined;
  let refName = '';
  const visit = (s: Shape | undefined, label: string, name: string): void => {
    if (s === undefined) return;
    if (ref === undefined) {
      ref = [...s];
      refName = name;
      return;
    }
    const merged = mergeShape(ref, s);
    if (merged === null) {
      throw new MXNetError(
        `Incompatible attr in node ${op} at ${label} (${name}): expected ${shapeToString(ref)}, got ${shapeToString(s)}`,
        {
          op,
          params: attrs,
          shapes: inShapes.map((x) => x ?? []),
          hint: `${name} must have the shape of ${refName}: the weight, its gradient and the optimizer states are updated element by element`,
        },
      );
    }
    ref = merged;
  };
  for (const i of idx) visit(inShapes[i], `${i}-th input`, names[i] ?? `input ${i}`);
  for (const i of outIdx) visit(outShapes[i], `${i}-th output`, 'out');
  if (ref === undefined) return false;
  const shape: number[] = ref;
  for (const i of idx) inShapes[i] = [...shape];
  for (const i of outIdx) outShapes[i] = [...shape];
  return isShapeKnown(shape);
}

function realCheck(op: string, t: DTypeName, name: string, inTypes: TypeSlots): void {
  if (!REAL_TYPES.includes(t)) {
    throw new MXNetError(`This operation only support floating point types not ${t}`, {
      op,
      dtypes: inTypes.map((d) => d ?? 'unknown'),
      hint: `${name} is ${t}; optimizer updates need float32/float64 arrays: cast with astype('float32')`,
    });
  }
}

/**
 * MXNet `ElemwiseType` over the input slots `idx` and the output slots `outIdx` (one real dtype),
 * plus `TYPE_ASSIGN_CHECK(float32)` on the slots `f32Idx` (mixed-precision master weights and states).
 */
export function optimizerTypes(
  op: string,
  names: readonly string[],
  inTypes: TypeSlots,
  outTypes: TypeSlots,
  idx: readonly number[],
  f32Idx: readonly number[] = [],
  outIdx: readonly number[] = outTypes.map((_, i) => i),
): boolean {
  for (const i of f32Idx) {
    const t = inTypes[i];
    if (t !== undefined && t !== 'float32') {
      throw new MXNetError(`Type inconsistent, Provided = ${t}, inferred type = float32`, {
        op,
        dtypes: inTypes.map((d) => d ?? 'unknown'),
        hint: `${names[i] ?? `input ${i}`} is the float32 master copy/state of a mixed-precision update: pass it as float32`,
      });
    }
    inTypes[i] = 'float32';
  }
  let ref: DTypeName | undefined;
  let refName = '';
  const visit = (t: DTypeName | undefined, label: string, name: string): void => {
    if (t === undefined) return;
    realCheck(op, t, name, inTypes);
    if (ref === undefined) {
      ref = t;
      refName = name;
    } else if (t !== ref) {
      throw new MXNetError(
        `Incompatible attr in node ${op} at ${label} (${name}): expected ${ref}, got ${t}`,
        {
          op,
          dtypes: inTypes.map((d) => d ?? 'unknown'),
          hint: `${name} must have the dtype of ${refName}; cast with astype('${ref}')`,
        },
      );
    }
  };
  for (const i of idx) visit(inTypes[i], `${i}-th input`, names[i] ?? `input ${i}`);
  for (const i of outIdx) visit(outTypes[i], `${i}-th output`, 'out');
  if (ref === undefined) return false;
  for (const i of idx) inTypes[i] = ref;
  for (const i of outIdx) outTypes[i] = ref;
  return true;
}

/** 0..n-1. */
export function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
