/**
 * `softmax`, `log_softmax`, `masked_softmax` and `masked_log_softmax` (MXNet 2.0
 * src/operator/nn/softmax{-inl.h,.cc}, log_softmax.cc, masked_softmax.cc) and their backward ops.
 *
 * softmax(x)_j = exp((x_j - max x) / T) / Σ_k exp((x_k - max x) / T) along `axis` (default -1);
 * log_softmax is its log, (x_j - max)/T - log Σ. `dtype` picks the output dtype (float16/32/64,
 * default the input's). `use_length=True` adds an int `length` input (the data shape without
 * `axis`): only the first length[i] entries of row i take part and the rest of the output is 0.
 *
 * masked_softmax(data, mask) takes a bool mask broadcastable to data (same ndim, dims equal or 1):
 * masked-out entries are left out of the normalisation and output 0 (MXNet replaces them by the
 * lowest finite value before a plain softmax, then zeroes them; a fully masked row gives zeros).
 * `normalize` is accepted for MXNet compatibility; the CPU result is the same either way.
 * masked_log_softmax is its log twin: the same replacement, a log_softmax, and -inf where masked
 * (a fully masked row is all -inf).
 *
 * Gradients follow MXNet's `SoftmaxFGradient`: `_backward_softmax(ograd, output)` normally, and
 * `(ograd, data[, length], output)` when a dtype override or use_length needs the input's dtype or
 * the lengths; length gets a zero gradient. `_backward_masked_{softmax,log_softmax}(ograd, mask,
 * output)`. dx = y (g - Σ g y) / T for softmax and (g - e^y Σ g) / T for log_softmax, the sums
 * over the row's unmasked entries within its length; rows beyond a length or masked entries 0.
 */
import { type DTypeName, MXNetError, type Shape, shapeToString } from '@mx/base';
import type { ShapeSlots, TypeSlots } from '../../../op-def.js';
import { P, type ParamsOf } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assignShape, assignType, checkAxis, known, sameShapes, shapesOf } from './common.js';

export const SOFTMAX_PARAMS = Object.freeze({
  axis: P.int({ default: -1, doc: 'The axis along which to compute softmax.' }),
  temperature: P.optional(P.double(), { default: null, doc: 'Temperature parameter in softmax' }),
  dtype: P.optional(P.enum(['float16', 'float32', 'float64'] as const), {
    default: null,
    doc: "DType of the output in case this can't be inferred. Defaults to the same as input's dtype if not defined (dtype=None).",
  }),
  use_length: P.optional(P.bool(), {
    default: false,
    doc: 'Whether to use the length input as a mask over the data input.',
  }),
});
export type SoftmaxAttrs = ParamsOf<typeof SOFTMAX_PARAMS>;

export const MASKED_SOFTMAX_PARAMS = Object.freeze({
  axis: P.int({ default: -1, doc: 'The axis along which to compute softmax.' }),
  temperature: P.optional(P.double(), { default: null, doc: 'Temperature parameter in softmax' }),
  normalize: P.optional(P.bool(), {
    default: true,
    doc: 'Whether to normalize input data x: x = x - max(x)',
  }),
});
type MaskedAttrs = ParamsOf<typeof MASKED_SOFTMAX_PARAMS>;

/** True when MXNet's backward node takes the data (and length) too. */
export function softmaxGradUsesInputs(p: SoftmaxAttrs): boolean {
  return p.dtype !== null || p.use_length === true;
}

const LENGTH_DTYPES: ReadonlySet<DTypeName> = new Set(['int32', 'int64']);

/** The shape of `length`: data's shape without `axis` ((1,) for 1-d data). */
function lengthShape(data: Shape, axis: number): number[] {
  if (data.length === 1) return [1];
  return data.filter((_, i) => i !== axis);
}

function softmaxShape(op: string, p: SoftmaxAttrs, inS: ShapeSlots, outS: ShapeSlots): boolean {
  const data = inS[0] ?? outS[0];
  if (data === undefined) return false;
  const ax = checkAxis(op, p, p.axis, data.length, inS);
  if (p.use_length) {
    assignShape(
      op,
      p,
      inS,
      inS,
      1,
      lengthShape(data, ax),
      'input 1 (length)',
      'length has the data shape without axis',
    );
  }
  const ok = sameShapes(op, p, inS, outS, [0], [0], ['data', 'output']);
  return ok && inS.every(known);
}

function softmaxType(op: string, p: SoftmaxAttrs, inT: TypeSlots, outT: TypeSlots): boolean {
  if (p.use_length) {
    const l = inT[1];
    if (l !== undefined && !LENGTH_DTYPES.has(l)) {
      throw new MXNetError(`length must be int32 or int64, got ${l}`, {
        op,
        dtypes: inT.map((d) => d ?? 'unknown'),
        hint: "cast the lengths to int32 (astype('int32'))",
      });
    }
  }
  if (p.dtype !== null) {
    assignType(op, outT, 0, p.dtype, 'output 0', outT);
    return inT[0] !== undefined && (!p.use_length || inT[1] !== undefined);
  }
  const t = inT[0] ?? outT[0];
  if (t === undefined) return false;
  assignType(op, inT, 0, t, 'input 0 (data)', inT);
  assignType(op, outT, 0, t, 'output 0', inT);
  return !p.use_length || inT[1] !== undefined;
}

function softmaxGradShape(op: string, p: SoftmaxAttrs, inS: ShapeSlots, outS: ShapeSlots): boolean {
  if (!softmaxGradUsesInputs(p)) return sameShapes(op, p, inS, outS, [0, 1], [0], ['ograd', 'output']);
  const outIdx = p.use_length ? 3 : 2;
  const ok = sameShapes(op, p, inS, outS, [0, 1, outIdx], [0], ['ograd', 'data', 'output']);
  if (!p.use_length) return ok;
  const data = inS[1];
  if (data === undefined) return false;
  const ax = checkAxis(op, p, p.axis, data.length, inS);
  assignShape(op, p, inS, inS, 2, lengthShape(data, ax), 'input 2 (length)');
  outS[1] = [...(inS[2] as Shape)];
  return ok && known(inS[2]);
}

function softmaxGradType(op: string, p: SoftmaxAttrs, inT: TypeSlots, outT: TypeSlots): boolean {
  if (!softmaxGradUsesInputs(p)) {
    const t = inT[1] ?? inT[0] ?? outT[0];
    if (t === undefined) return false;
    assignType(op, inT, 0, t, 'input 0 (ograd)', inT);
    assignType(op, inT, 1, t, 'input 1 (output)', inT);
    assignType(op, outT, 0, t, 'output 0', inT);
    return true;
  }
  const outIdx = p.use_length ? 3 : 2;
  const yT = inT[outIdx] ?? inT[0];
  const xT = inT[1] ?? outT[0];
  if (yT === undefined || xT === undefined) return false;
  assignType(op, inT, 0, yT, 'input 0 (ograd)', inT);
  assignType(op, inT, outIdx, yT, `input ${outIdx} (output)`, inT);
  assignType(op, inT, 1, xT, 'input 1 (data)', inT);
  assignType(op, outT, 0, xT, 'output 0', inT);
  if (p.use_length) {
    const l = inT[2];
    if (l === undefined) return false;
    assignType(op, outT, 1, l, 'output 1', inT);
  }
  return true;
}

function defineSoftmax(registry: OpRegistry, name: string, alias: string, doc: string): void {
  const back = `_backward_${name}`;
  registry.define({
    name,
    aliases: [alias],
    doc,
    params: SOFTMAX_PARAMS,
    numInputs: (p) => (p.use_length ? 2 : 1),
    listInputNames: (p) => (p.use_length ? ['data', 'length'] : ['data']),
    inferShape: (p, i, o) => softmaxShape(name, p, i, o),
    inferType: (p, i, o) => softmaxType(name, p, i, o),
    inplaceOption: (p) => (p.dtype === null ? [[0, 0]] : []),
    gradient: {
      inputs: (p) => (!softmaxGradUsesInputs(p) ? [] : p.use_length ? [0, 1] : [0]),
      outputs: [0],
      build: (g, p) => {
        const params = {
          axis: p.axis,
          temperature: p.temperature,
          dtype: p.dtype,
          use_length: p.use_length,
        };
        if (!softmaxGradUsesInputs(p)) return [g.op1(back, [g.ograd(0), g.output(0)], params)];
        const ins = [g.ograd(0), g.input(0)];
        if (p.use_length) ins.push(g.input(1));
        ins.push(g.output(0));
        const grads = g.op(back, ins, params);
        return p.use_length ? [grads[0] ?? null, null] : [grads[0] ?? null];
      },
    },
  });
  registry.define({
    name: back,
    doc: `Gradient of ${name}: (ograd, output) or (ograd, data[, length], output) → data grad[, length grad].`,
    params: SOFTMAX_PARAMS,
    numInputs: (p) => (!softmaxGradUsesInputs(p) ? 2 : p.use_length ? 4 : 3),
    numOutputs: (p) => (p.use_length ? 2 : 1),
    listInputNames: (p) =>
      !softmaxGradUsesInputs(p)
        ? ['ograd', 'output']
        : p.use_length
          ? ['ograd', 'data', 'length', 'output']
          : ['ograd', 'data', 'output'],
    isBackward: true,
    inplaceOption: (p) =>
      !softmaxGradUsesInputs(p)
        ? [
            [0, 0],
            [1, 0],
          ]
        : [],
    inferShape: (p, i, o) => softmaxGradShape(back, p, i, o),
    inferType: (p, i, o) => softmaxGradType(back, p, i, o),
  });
}

/** MXNet `MaskedSoftmaxOpShape`: mask has data's ndim and each dim equal or 1. */
function checkMask(op: string, p: MaskedAttrs, data: Shape, mask: Shape, inS: ShapeSlots): void {
  if (data.length !== mask.length) {
    throw new MXNetError(
      `Number of dimensions in data and mask does not match: data ${shapeToString(data)}, mask ${shapeToString(mask)}`,
      {
        op,
        params: p,
        shapes: shapesOf(inS),
        hint: 'give the mask the same number of axes as data (size 1 to broadcast)',
      },
    );
  }
  if (data.length === 0) {
    throw new MXNetError('Empty tuple is not allowed', {
      op,
      params: p,
      shapes: shapesOf(inS),
      hint: `${op} needs at least one axis`,
    });
  }
  for (let i = 0; i < data.length; i++) {
    const m = mask[i] as number;
    const d = data[i] as number;
    if (m >= 0 && d >= 0 && m !== d && m !== 1) {
      throw new MXNetError(
        `Mask cannot be broadcasted from ${shapeToString(mask)} to ${shapeToString(data)}`,
        {
          op,
          params: p,
          shapes: shapesOf(inS),
          hint: 'each mask dim must equal the data dim or be 1',
        },
      );
    }
  }
}

function maskedType(op: string, inT: TypeSlots, outT: TypeSlots, data: number, mask: number): boolean {
  const m = inT[mask];
  if (m !== undefined && m !== 'bool') {
    throw new MXNetError(`mask must be bool, got ${m}`, {
      op,
      dtypes: inT.map((d) => d ?? 'unknown'),
      hint: "cast the mask with astype('bool')",
    });
  }
  inT[mask] = 'bool';
  const t = inT[data] ?? outT[0];
  if (t === undefined) return false;
  assignType(op, inT, data, t, `input ${data}`, inT);
  assignType(op, outT, 0, t, 'output 0', inT);
  return true;
}

/**
 * masked_softmax or masked_log_softmax (MXNet's masked_softmax.cc / log_softmax.cc) and its
 * `_backward_<name>(ograd, mask, output)`: one shape/type inference for both, the mask's gradient
 * none (MXNet builds zeros_like(mask)).
 */
function defineMaskedSoftmax(registry: OpRegistry, name: string, alias: string, doc: string): void {
  const back = `_backward_${name}`;
  registry.define({
    name,
    aliases: [alias],
    doc,
    params: MASKED_SOFTMAX_PARAMS,
    numInputs: 2,
    listInputNames: ['data', 'mask'],
    inferShape: (p, inS, outS) => {
      const data = inS[0];
      const mask = inS[1];
      if (data === undefined || mask === undefined) return false;
      checkMask(name, p, data, mask, inS);
      checkAxis(name, p, p.axis, data.length, inS);
      assignShape(name, p, inS, outS, 0, data, 'output 0');
      return known(data) && known(mask);
    },
    inferType: (_p, i, o) => maskedType(name, i, o, 0, 1),
    gradient: {
      inputs: [1],
      outputs: [0],
      build: (g, p) => [
        g.op1(back, [g.ograd(0), g.input(1), g.output(0)], {
          axis: p.axis,
          temperature: p.temperature,
          normalize: p.normalize,
        }),
        null,
      ],
    },
  });
  registry.define({
    name: back,
    doc: `Gradient of ${name}: (ograd, mask, output) → data grad.`,
    params: MASKED_SOFTMAX_PARAMS,
    numInputs: 3,
    listInputNames: ['ograd', 'mask', 'output'],
    isBackward: true,
    inferShape: (p, inS, outS) => {
      const ok = sameShapes(back, p, inS, outS, [0, 2], [0], ['ograd', 'output']);
      const og = inS[0];
      const mask = inS[1];
      if (og === undefined || mask === undefined) return false;
      checkMask(back, p, og, mask, inS);
      checkAxis(back, p, p.axis, og.length, inS);
      return ok && known(mask);
    },
    inferType: (_p, i, o) => {
      const ok = maskedType(back, i, o, 0, 1);
      const t = i[0];
      if (t !== undefined) assignType(back, i, 2, t, 'input 2 (output)', i);
      return ok && i[2] !== undefined;
    },
  });
}

export function registerSoftmax(registry: OpRegistry): void {
  defineSoftmax(
    registry,
    'softmax',
    '_npx_softmax',
    'Softmax along `axis`: exp((x - max) / T) / sum(exp((x - max) / T)); optional lengths and output dtype.',
  );
  defineSoftmax(
    registry,
    'log_softmax',
    '_npx_log_softmax',
    'Log of softmax along `axis`: (x - max) / T - log(sum(exp((x - max) / T))).',
  );
  defineMaskedSoftmax(
    registry,
    'masked_softmax',
    '_npx_masked_softmax',
    'Softmax over `axis` leaving out the entries where the bool mask (broadcast to data) is false; those output 0.',
  );
  defineMaskedSoftmax(
    registry,
    'masked_log_softmax',
    '_npx_masked_log_softmax',
    'Log-softmax over `axis` leaving out the entries where the bool mask (broadcast to data) is false; those output -inf.',
  );
}
