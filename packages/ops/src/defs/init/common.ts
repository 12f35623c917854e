/**
 * Shared pieces of the init family's definitions: the params every creation op has (`shape`, `ctx`,
 * `dtype`), MXNet's `InitShape` / `InitType` inference, and the `SHAPE_ASSIGN_CHECK` /
 * `TYPE_ASSIGN_CHECK` helpers those use. Kept in one file so `_zeros`, `_full`, `_eye`, `_arange` and
 * the samplers infer (and fail) identically.
 */
import { type DTypeName, MXNetError, type Shape, shapeToString } from '@mx/base';
import { mergeShape } from '../../infer.js';
import type { ShapeSlots, TypeSlots } from '../../op-def.js';
import { P } from '../../params.js';

/** The `ctx` field of every creation op (MXNet: only used for imperative calls). */
export const ctxParam = (): ReturnType<typeof P.string> =>
  P.string({
    default: '',
    doc: 'Context of output, in format [cpu|gpu|cpu_pinned](n).Only used for imperative calls.',
  });

/** The `shape` field of creation ops: `()` by default. */
export const shapeParam = (doc = 'The shape of the output'): ReturnType<typeof P.shape> =>
  P.shape({ default: Object.freeze([]) as readonly number[], doc });

/** The `dtype` field of `_zeros`/`_ones`/`_full`/`_arange`/`_eye`/`_linspace` (MXNet 1.x: default float32). */
export const dtypeParam = (): ReturnType<typeof P.dtype> =>
  P.dtype({ default: 'float32', doc: 'Target data type.' });

/**
 * MXNet `SHAPE_ASSIGN_CHECK`: fill slot `i` with `shape`, merging unknown (-1) dims, and throw
 * when a known slot disagrees.
 */
export function assignShape(op: string, slots: ShapeSlots, i: number, shape: Shape, what = 'output'): void {
  const cur = slots[i];
  if (cur === undefined) {
    slots[i] = [...shape];
    return;
  }
  const merged = mergeShape(cur, shape);
  if (merged === null) {
    throw new MXNetError(
      `Shape inconsistent, Provided = ${shapeToString(cur)}, inferred shape=${shapeToString(shape)} for ${what} ${i}`,
      { op, shapes: [cur, shape], hint: `give ${op} an ${what} of shape ${shapeToString(shape)}` },
    );
  }
  slots[i] = merged;
}

/** True when the slot holds a shape with every dim known. */
export function known(s: Shape | undefined): s is Shape {
  return s?.every((d) => d >= 0) ?? false;
}

/** Check a `shape` param: dims are integers >= 0, or -1 for a dim left to inference. */
export function checkShapeParam(op: string, shape: Shape, key = 'shape'): void {
  for (let i = 0; i < shape.length; i++) {
    const d = shape[i] as number;
    if (d < -1) {
      throw new MXNetError(`${key} ${shapeToString(shape)} has negative dimension ${d} at axis ${i}`, {
        op,
        params: { [key]: shapeToString(shape) },
        hint: 'dimensions of a new array are integers >= 0 (-1 only where the output shape is given)',
      });
    }
  }
}

/**
 * MXNet `InitShape`: the output takes the `shape` param. An output whose shape is already known
 * (an `out=` array, or a graph that fixed it) wins over the default `()`, as in MXNet's legacy
 * shape mode where `()` means "not given".
 */
export function initShape(op: string, shape: Shape, outShapes: ShapeSlots): boolean {
  checkShapeParam(op, shape);
  if (known(outShapes[0]) && shape.length === 0) return true;
  assignShape(op, outShapes, 0, shape);
  return known(outShapes[0]);
}

/** MXNet `TYPE_ASSIGN_CHECK`: set slot `i` to `dtype`, or throw when a known slot disagrees. */
export function assignType(op: string, slots: TypeSlots, i: number, dtype: DTypeName): void {
  const cur = slots[i];
  if (cur !== undefined && cur !== dtype) {
    throw new MXNetError(`Type inconsistent, Provided = ${cur}, inferred type = ${dtype}`, {
      op,
      dtypes: [cur],
      hint: `the ${op} output must be ${dtype}; pass dtype='${cur}' or an output of dtype ${dtype}`,
    });
  }
  slots[i] = dtype;
}

/** MXNet `InitType`: the output takes the `dtype` param. */
export function initType(op: string, dtype: DTypeName, outTypes: TypeSlots): boolean {
  assignType(op, outTypes, 0, dtype);
  return true;
}
