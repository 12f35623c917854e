/**
 * Pieces the normalisation ops share: MXNet's `SHAPE_ASSIGN_CHECK` with the slot named (users get
 * "gamma is (4,) but ... (3,)" rather than an index), the channel-axis check ("Channel axis out of
 * range", MXNet's text) and the float-only type rule. Every error names the op, its params and the
 * input shapes, with a hint of what to change.
 */
import { type DTypeName, MXNetError, type Shape, shapeToString } from '@mx/base';
import type { GradientDef } from '../../../gradient.js';
import { mergeShape } from '../../../infer.js';
import type { ShapeSlots, TypeSlots } from '../../../op-def.js';

type Attrs = Readonly<Record<string, unknown>>;

export function normError(op: string, message: string, attrs: Attrs, shapes: ShapeSlots, hint: string) {
  return new MXNetError(message, { op, params: attrs, shapes: shapes.map((s) => s ?? []), hint });
}

/** Fill `slots[i]` with `shape`, or check what is there agrees (unknown dims match anything). */
export function assignSlot(
  op: string,
  attrs: Attrs,
  slots: ShapeSlots,
  i: number,
  shape: Shape,
  what: string,
  inShapes: ShapeSlots,
): void {
  const cur = slots[i];
  if (cur === undefined) {
    slots[i] = [...shape];
    return;
  }
  const merged = mergeShape(cur, shape);
  if (merged === null) {
    throw normError(
      op,
      `Shape inconsistent, Provided = ${shapeToString(cur)}, inferred shape=${shapeToString(shape)} for ${what}`,
      attrs,
      inShapes,
      `${what} must have shape ${shapeToString(shape)} for data of shape ${shapeToString(inShapes[0] ?? [])}`,
    );
  }
  slots[i] = merged;
}

/** The channel axis normalised to [0, ndim) (MXNet: "Channel axis out of range: <axis>"). */
export function channelAxis(
  op: string,
  attrs: Attrs,
  axis: number,
  inShapes: ShapeSlots,
  data: Shape,
): number {
  const nd = data.length;
  const a = axis < 0 ? axis + nd : axis;
  if (a < 0 || a >= nd) {
    throw normError(
      op,
      `Channel axis out of range: axis=${axis}`,
      attrs,
      inShapes,
      nd === 0
        ? 'a zero-dim input has no channel axis; reshape it to at least 1-d'
        : `axis must lie in [-${nd}, ${nd - 1}] for data of shape ${shapeToString(data)}`,
    );
  }
  return a;
}

/** True when every dim is known. */
export function known(s: Shape | undefined): s is Shape {
  return s?.every((d) => d >= 0) === true;
}

const FLOATS: readonly DTypeName[] = ['float16', 'bfloat16', 'float32', 'float64'];

/** Data must be a float type (MXNet `MSHADOW_REAL_TYPE_SWITCH`). */
export function checkFloat(op: string, attrs: Attrs, t: DTypeName): void {
  if (!FLOATS.includes(t)) {
    throw new MXNetError(`${op} only supports floating point data, got ${t}`, {
      op,
      params: attrs,
      dtypes: [t],
      hint: 'cast the input to float32 or float64 first (astype / Cast)',
    });
  }
}

/** Every slot has the dtype of the first known one, which must be a float (MXNet `ElemwiseType`). */
export function floatElemwiseType(
  op: string,
  attrs: Attrs,
  inTypes: TypeSlots,
  outTypes: TypeSlots,
): boolean {
  let t: DTypeName | undefined;
  for (const x of [...inTypes, ...outTypes]) {
    if (x === undefined) continue;
    if (t === undefined) t = x;
    else if (x !== t) {
      throw new MXNetError(`type inconsistent: expected all inputs and outputs to be ${t}, got ${x}`, {
        op,
        params: attrs,
        dtypes: inTypes.map((d) => d ?? 'unknown'),
        hint: 'cast data, gamma and beta to one float dtype',
      });
    }
  }
  if (t === undefined) return false;
  checkFloat(op, attrs, t);
  inTypes.fill(t);
  outTypes.fill(t);
  return true;
}

/** Product of dims. */
export function prod(dims: readonly number[]): number {
  let n = 1;
  for (const d of dims) n *= d;
  return n;
}

/**
 * The gradient of a norm whose hidden outputs 1 and 2 are its statistics (LayerNorm, GroupNorm):
 * `backward(ograd, data, gamma, mean, std)` → gradients of data, gamma and beta.
 */
export function statsGradient(backward: string): GradientDef {
  return {
    inputs: [0, 1],
    outputs: [1, 2],
    build(g, attrs) {
      const [dData, dGamma, dBeta] = g.op(
        backward,
        [g.ograd(0), g.input(0), g.input(1), g.output(1), g.output(2)],
        attrs,
      );
      return [dData ?? null, dGamma ?? null, dBeta ?? null];
    },
  };
}
