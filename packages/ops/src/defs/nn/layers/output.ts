/**
 * Loss "output" layers (MXNet src/operator/softmax_output{-inl.h,.cc},
 * regression_output{-inl.h,.cc}) and `smooth_l1` (elemwise_binary_scalar_op_extended.cc).
 *
 * Output layers compute a forward value and define their gradient *without* the head gradient:
 * the backward pass of `SoftmaxOutput(data, label)` is (softmax - one_hot(label)) · scale, of the
 * regression outputs (out - label) · grad_scale / num_output (MAE: sign(out - label) · ...), with
 * num_output = label.size / label.shape[0]. The label gets no gradient. `SoftmaxOutput`'s
 * `out_grad=True` multiplies by the head gradient after all, which is why its backward op takes it.
 *
 * SoftmaxOutput's softmax runs over MXNet's views: (n, size/n) by default, the last axis with
 * `preserve_shape`, axis 1 of (n, k, rest) with `multi_output`. Labels are class indices of the
 * data shape without that axis (with multi_output also (n, rest) or data with axis 1 of size 1), or
 * probabilities of the data shape. `use_ignore` zeroes rows whose label is `ignore_label`;
 * `normalization` divides by 1 ('null'), the batch size ('batch') or the count of labels that are
 * not `ignore_label` ('valid'); multi_output also divides by the spatial size unless 'valid'.
 * `smooth_alpha` smooths the one-hot target: the label class gets 1 - alpha, the others
 * alpha / (k - 1). Backward ops take (ograd, label, output) and give (data grad, label grad = 0).
 */
import { MXNetError, type Shape, shapeSize, shapeToString } from '@mx/base';
import { E } from '../../../expr.js';
import type { ShapeSlots, TypeSlots } from '../../../op-def.js';
import { P, type ParamsOf } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { elemwiseShape, scalarType } from '../../elementwise/common.js';
import { SCALAR_PARAMS } from '../../elementwise/scalar.js';
import { assignShape, assignType, known, sameShapes, shapesOf } from './common.js';

export const SOFTMAX_OUTPUT_PARAMS = Object.freeze({
  grad_scale: P.float({ default: 1, doc: 'Scales the gradient by a float factor.' }),
  ignore_label: P.float({
    default: -1,
    doc: 'The instances whose `labels` == `ignore_label` will be ignored during backward, if `use_ignore` is set to ``true``).',
  }),
  multi_output: P.bool({
    default: false,
    doc: 'If set to ``true``, the softmax function will be computed along axis ``1``. This is applied when the shape of input array differs from the shape of label array.',
  }),
  use_ignore: P.bool({
    default: false,
    doc: 'If set to ``true``, the `ignore_label` value will not contribute to the backward gradient.',
  }),
  preserve_shape: P.bool({
    default: false,
    doc: 'If set to ``true``, the softmax function will be computed along the last axis (``-1``).',
  }),
  normalization: P.enum(['null', 'batch', 'valid'] as const, {
    default: 'null',
    doc: 'Normalizes the gradient.',
  }),
  out_grad: P.bool({ default: false, doc: 'Multiplies gradient with output gradient element-wise.' }),
  smooth_alpha: P.float({
    default: 0,
    range: [0, 1],
    doc: 'Constant for computing a label smoothed version of cross-entropy for the backwards pass. This constant gets subtracted from the one-hot encoding of the gold label and distributed uniformly to all other labels.',
  }),
});
export type SoftmaxOutputAttrs = ParamsOf<typeof SOFTMAX_OUTPUT_PARAMS>;

/**
 * MXNet's view of SoftmaxOutput's data for kernels: (outer, m, inner) with the softmax over m —
 * axis 1 of (n, k, rest) with `multi_output`, the last axis with `preserve_shape`, else (n, rest).
 */
export function softmaxOutputGeometry(
  p: SoftmaxOutputAttrs,
  shape: readonly number[],
): { outer: number; m: number; inner: number } {
  let size = 1;
  for (const d of shape) size *= d;
  if (shape.length === 0) return { outer: 1, m: 1, inner: 1 };
  if (p.multi_output) {
    const n = shape[0] as number;
    const k = (shape[1] ?? 1) as number;
    return { outer: n, m: k, inner: n * k === 0 ? 0 : size / n / k };
  }
  if (p.preserve_shape) {
    const k = shape[shape.length - 1] as number;
    return { outer: k === 0 ? 0 : size / k, m: k, inner: 1 };
  }
  const n = shape[0] as number;
  return { outer: n, m: n === 0 ? 0 : size / n, inner: 1 };
}

function sameShape(a: Shape, b: Shape): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/** MXNet `SoftmaxOutputShape`: the label shape for `data`, or an error naming both shapes. */
function softmaxOutputLabel(
  p: SoftmaxOutputAttrs,
  data: Shape,
  label: Shape | undefined,
  inS: ShapeSlots,
): Shape {
  const op = 'SoftmaxOutput';
  if (label !== undefined && sameShape(data, label)) return label;
  if (p.multi_output) {
    if (data.length < 2) {
      throw new MXNetError(`multi_output needs data with at least 2 axes, got ${shapeToString(data)}`, {
        op,
        params: p,
        shapes: shapesOf(inS),
        hint: 'pass data shaped (batch, classes, ...) or drop multi_output',
      });
    }
    const n = data[0] as number;
    const l1 = [n, shapeSize(data) / n / (data[1] as number)];
    const l2 = [n, ...data.slice(2)];
    const l3 = [...data];
    l3[1] = 1;
    if (label === undefined) return l1;
    if (sameShape(label, l1) || sameShape(label, l2) || sameShape(label, l3)) return label;
    throw new MXNetError(
      `Expecting ${shapeToString(l1)} or ${shapeToString(l2)}. But got ${shapeToString(label)} (label of data ${shapeToString(data)})`,
      {
        op,
        params: p,
        shapes: shapesOf(inS),
        hint: 'with multi_output the label holds one class per (batch, position): data without axis 1',
      },
    );
  }
  const want = data.slice(0, -1);
  if (label === undefined) return want;
  if (label.length === want.length && label.every((d, i) => d < 0 || d === want[i])) return want;
  throw new MXNetError(
    `Shape inconsistent, Provided = ${shapeToString(label)}, inferred shape=${shapeToString(want)} for input 1 (label) of data ${shapeToString(data)}`,
    {
      op,
      params: p,
      shapes: shapesOf(inS),
      hint: `the label holds one class index per row: shape ${shapeToString(want)} (or data's shape for probabilities)`,
    },
  );
}

function uniformType(op: string, inT: TypeSlots, outT: TypeSlots, nOut: number): boolean {
  const t = inT[0];
  if (t === undefined) return false;
  for (let i = 1; i < inT.length; i++) assignType(op, inT, i, t, `input ${i}`, inT);
  for (let i = 0; i < nOut; i++) assignType(op, outT, i, t, `output ${i}`, inT);
  return true;
}

function registerSoftmaxOutput(registry: OpRegistry): void {
  registry.define({
    name: 'SoftmaxOutput',
    aliases: ['Softmax'],
    doc: 'Softmax forward; backward gives the cross-entropy gradient (softmax - one_hot(label)) · grad_scale.',
    params: SOFTMAX_OUTPUT_PARAMS,
    numInputs: 2,
    listInputNames: ['data', 'label'],
    inferShape: (p, inS, outS) => {
      const data = inS[0];
      if (data === undefined) return false;
      inS[1] = [...softmaxOutputLabel(p, data, inS[1], inS)];
      assignShape('SoftmaxOutput', p, inS, outS, 0, data, 'output 0');
      return known(data) && known(inS[1]);
    },
    inferType: (_p, i, o) => uniformType('SoftmaxOutput', i, o, 1),
    inplaceOption: () => [[0, 0]],
    gradient: {
      inputs: [1],
      outputs: [0],
      build: (g, p) => [g.op1('_backward_SoftmaxOutput', [g.ograd(0), g.input(1), g.output(0)], p), null],
    },
  });
  registry.define({
    name: '_backward_SoftmaxOutput',
    doc: 'Gradient of SoftmaxOutput: (ograd, label, output) → (data grad, label grad = 0).',
    params: SOFTMAX_OUTPUT_PARAMS,
    numInputs: 3,
    numOutputs: 2,
    listInputNames: ['ograd', 'label', 'output'],
    isBackward: true,
    inferShape: (p, inS, outS) => {
      const ok = sameShapes('_backward_SoftmaxOutput', p, inS, outS, [0, 2], [0], ['ograd', 'output']);
      const data = inS[2];
      if (data === undefined) return false;
      inS[1] = [...softmaxOutputLabel(p, data, inS[1], inS)];
      outS[1] = [...inS[1]];
      return ok && known(inS[1]);
    },
    inferType: (_p, i, o) => uniformType('_backward_SoftmaxOutput', i, o, 2),
  });
}

const REGRESSION_PARAMS = Object.freeze({
  grad_scale: P.float({ default: 1, doc: 'Scale the gradient by a float factor' }),
});

/** MXNet `RegressionOpShape`: label defaults to data ((n,) for (n, 1) data); same first dim and size. */
function regressionLabel(
  op: string,
  p: object,
  data: Shape,
  label: Shape | undefined,
  inS: ShapeSlots,
): Shape {
  if (label === undefined) return data.length === 2 && data[1] === 1 ? [data[0] as number] : [...data];
  if (!known(label) || !known(data)) return label;
  if (label[0] !== data[0] || shapeSize(label) !== shapeSize(data)) {
    throw new MXNetError(
      `Shape inconsistent, Provided=${shapeToString(label)}, inferred shape=${shapeToString(data)}`,
      {
        op,
        params: p as Readonly<Record<string, unknown>>,
        shapes: shapesOf(inS),
        hint: 'the label needs the data shape (same first dim and number of elements)',
      },
    );
  }
  return label;
}

function registerRegression(registry: OpRegistry, name: string, back: string, doc: string): void {
  registry.define({
    name,
    doc,
    params: REGRESSION_PARAMS,
    numInputs: 2,
    listInputNames: ['data', 'label'],
    inferShape: (p, inS, outS) => {
      const data = inS[0];
      if (data === undefined) return false;
      inS[1] = [...regressionLabel(name, p, data, inS[1], inS)];
      assignShape(name, p, inS, outS, 0, data, 'output 0');
      return known(data) && known(inS[1]);
    },
    inferType: (_p, i, o) => uniformType(name, i, o, 1),
    inplaceOption: () => [[0, 0]],
    gradient: {
      inputs: [1],
      outputs: [0],
      build: (g, p) => [g.op1(back, [g.input(1), g.output(0)], p), null],
    },
  });
  registry.define({
    name: back,
    doc: `Gradient of ${name}: (label, output) → (data grad, label grad = 0).`,
    params: REGRESSION_PARAMS,
    numInputs: 2,
    numOutputs: 2,
    listInputNames: ['label', 'output'],
    isBackward: true,
    inferShape: (p, inS, outS) => {
      const out = inS[1];
      if (out === undefined) return false;
      inS[0] = [...regressionLabel(back, p, out, inS[0], inS)];
      assignShape(back, p, inS, outS, 0, out, 'output 0');
      assignShape(back, p, inS, outS, 1, inS[0], 'output 1');
      return known(out) && known(inS[0]);
    },
    inferType: (_p, i, o) => {
      const t = i[1] ?? i[0];
      if (t === undefined) return false;
      for (let k = 0; k < 2; k++) assignType(back, i, k, t, `input ${k}`, i);
      for (let k = 0; k < 2; k++) assignType(back, o, k, t, `output ${k}`, i);
      return true;
    },
  });
}

function registerSmoothL1(registry: OpRegistry): void {
  // MXNet mshadow_op::smooth_l1_loss / smooth_l1_gradient, with `scalar` = sigma.
  const x = E.x;
  const s = E.param('scalar');
  const bsq = E.mul(s, s);
  const ibsq = E.div(1, bsq);
  const forward = E.select(
    E.gt(x, ibsq),
    E.sub(x, E.mul(0.5, ibsq)),
    E.select(E.lt(x, E.neg(ibsq)), E.sub(E.neg(x), E.mul(0.5, ibsq)), E.mul(E.mul(E.mul(0.5, x), x), bsq)),
  );
  const slope = E.select(E.gt(x, ibsq), 1, E.select(E.lt(x, E.neg(ibsq)), -1, E.mul(bsq, x)));
  registry.define({
    name: 'smooth_l1',
    doc: 'Smooth L1 (Huber-like) loss with sigma = scalar: 0.5 (σx)² for |x| < 1/σ², else |x| - 0.5/σ².',
    params: SCALAR_PARAMS,
    inferShape: (attrs, inS, outS) => elemwiseShape('smooth_l1', attrs, inS, outS),
    inferType: (attrs, inT, outT) => scalarType('smooth_l1', attrs, inT, outT),
    inplaceOption: () => [[0, 0]],
    elementwise: { forward, gradient: [E.mul(E.ograd, slope)] },
  });
}

export function registerOutputs(registry: OpRegistry): void {
  registerSoftmaxOutput(registry);
  registerRegression(
    registry,
    'LinearRegressionOutput',
    '_backward_linear_reg_out',
    'Identity forward; backward gives (out - label) · grad_scale / num_output (squared loss).',
  );
  registerRegression(
    registry,
    'LogisticRegressionOutput',
    '_backward_logistic_reg_out',
    'Sigmoid forward; backward gives (out - label) · grad_scale / num_output (logistic loss).',
  );
  registerRegression(
    registry,
    'MAERegressionOutput',
    '_backward_mae_reg_out',
    'Identity forward; backward gives sign(out - label) · grad_scale / num_output (absolute loss).',
  );
  registerSmoothL1(registry);
}
