/**
 * Shape inference of Concat and SliceChannel in both directions (MXNet `ConcatShape` in
 * src/operator/nn/concat.cc and `SliceChannelProp::InferShape` in slice_channel-inl.h): partially
 * known shapes (-1 dims) flow from inputs to outputs and back, so a graph whose only known shape
 * sits after the op still gets its inputs inferred. Kept apart from concat.ts, which declares the
 * ops, because these two functions are where the partial-shape rules live.
 */
import { type Shape, shapeToString } from '@mx/base';
import { mergeShape } from '../../infer.js';
import type { ShapeSlots } from '../../op-def.js';
import { assignShape, checkAxis, known, shapeError } from './common.js';

type ConcatAttrs = { readonly num_args: number; readonly dim: number };

type SliceChannelAttrs = {
  readonly num_outputs: number;
  readonly axis: number;
  readonly squeeze_axis: boolean;
};

/** `s` with its `axis` dim made unknown. */
function withoutAxis(s: Shape, axis: number): number[] {
  const t = [...s];
  t[axis] = -1;
  return t;
}

/**
 * Concat: every input and the output agree on all dims but `dim`; the output's `dim` is the sum
 * of the inputs' when all of them are known. As in MXNet, an input's `dim` is not recovered from
 * the output's (only RNN's parameter concat does that). Unlike MXNet, an input of unknown rank
 * counts as an unknown size, so the output's `dim` is not summed without it.
 */
export function concatShape(attrs: ConcatAttrs, inShapes: ShapeSlots, outShapes: ShapeSlots): boolean {
  let common: number[] | undefined;
  let axis = -1;
  let size = 0;
  let sizeKnown = true;
  inShapes.forEach((s, i) => {
    if (s === undefined) {
      sizeKnown = false;
      return;
    }
    axis = checkAxis('Concat', attrs.dim, s.length, attrs, inShapes, 'dim');
    const d = s[axis] as number;
    if (d < 0) sizeKnown = false;
    else size += d;
    const t = withoutAxis(s, axis);
    const merged = common === undefined ? t : mergeShape(common, t);
    if (merged === null) {
      const expected = [...(common as number[])];
      if (expected.length === s.length) expected[axis] = d;
      throw shapeError(
        'Concat',
        `Incompatible input shape: expected ${shapeToString(expected)}, got ${shapeToString(s)} for input ${i}`,
        attrs,
        inShapes,
        `all inputs must have the same shape except on axis ${axis}`,
      );
    }
    common = merged;
  });
  const out = outShapes[0];
  if (out !== undefined) {
    axis = checkAxis('Concat', attrs.dim, out.length, attrs, inShapes, 'dim');
    const t = withoutAxis(out, axis);
    const merged = common === undefined ? t : mergeShape(common, t);
    if (merged === null) {
      throw shapeError(
        'Concat',
        `Incompatible output shape: expected ${shapeToString(common as number[])} (any size on axis ${axis}), got ${shapeToString(out)}`,
        attrs,
        inShapes,
        `the output must have the inputs' shape except on axis ${axis}`,
      );
    }
    common = merged;
  }
  if (common === undefined) return false;
  for (let i = 0; i < inShapes.length; i++) {
    const s = inShapes[i];
    const t = [...common];
    if (s !== undefined) t[axis] = s[axis] as number;
    inShapes[i] = t;
  }
  if (sizeKnown) common[axis] = size;
  const merged = out === undefined ? common : mergeShape(out, common);
  if (merged === null)
    throw shapeError(
      'Concat',
      `Incompatible output shape: expected ${shapeToString(common)}, got ${shapeToString(out as Shape)}`,
      attrs,
      inShapes,
      `the output's axis ${axis} is the sum of the inputs'`,
    );
  outShapes[0] = merged;
  return inShapes.every(known) && known(outShapes[0]);
}

/**
 * SliceChannel: the input's rank must be known (as in MXNet). Each output is the input with
 * `axis` divided by `num_outputs` (or dropped with `squeeze_axis`); back from the outputs, the
 * input is an output with `axis` multiplied (or re-inserted as `num_outputs`). All outputs have
 * one shape, so what any of them knows is merged first and reaches the others in the same call.
 */
export function sliceChannelShape(
  attrs: SliceChannelAttrs,
  inShapes: ShapeSlots,
  outShapes: ShapeSlots,
): boolean {
  const op = 'SliceChannel';
  const d0 = inShapes[0];
  if (d0 === undefined) return false;
  const axis = checkAxis(op, attrs.axis, d0.length, attrs, inShapes);
  const n = attrs.num_outputs;
  const forward = (d: Shape): number[] => {
    const len = d[axis] as number;
    if (len >= 0 && len % n !== 0)
      throw shapeError(
        op,
        `You are trying to split the ${axis}-th axis of input tensor with shape ${shapeToString(d)} into num_outputs=${n} evenly sized chunks, but this is not possible because ${n} does not evenly divide ${len}`,
        attrs,
        inShapes,
      );
    if (attrs.squeeze_axis && len >= 0 && len !== n)
      throw shapeError(
        op,
        `If squeeze axis is True, the size of the sliced axis must be the same as num_outputs. Input shape=${shapeToString(d)}, axis=${axis}, num_outputs=${n}.`,
        attrs,
        inShapes,
      );
    const part = [...d];
    if (attrs.squeeze_axis) part.splice(axis, 1);
    else part[axis] = len >= 0 ? len / n : -1;
    return part;
  };
  // Every output must have the forward shape: merge them all into it.
  let part = forward(d0);
  for (let i = 0; i < n; i++) assignShape(op, outShapes, i, part, attrs);
  part = outShapes[0] as number[];
  for (let i = 1; i < n; i++) {
    const merged = mergeShape(part, outShapes[i] as Shape);
    if (merged === null)
      throw shapeError(
        op,
        `all outputs have one shape, but output ${i} is ${shapeToString(outShapes[i] as Shape)} and output 0 is ${shapeToString(part)}`,
        attrs,
        inShapes,
        `give every output the shape ${shapeToString(part)}`,
      );
    part = merged;
  }
  // Back-calculate the input from the outputs' shape.
  const back = [...part];
  if (attrs.squeeze_axis) back.splice(axis, 0, n);
  else back[axis] = (part[axis] as number) >= 0 ? (part[axis] as number) * n : -1;
  assignShape(op, inShapes, 0, back, attrs, 'input');
  // What the outputs gave the input goes back to all of them.
  part = forward(inShapes[0] as Shape);
  for (let i = 0; i < n; i++) assignShape(op, outShapes, i, part, attrs);
  return known(inShapes[0]) && outShapes.every(known);
}
