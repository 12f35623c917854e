/**
 * LayerNorm (MXNet src/operator/nn/layer_norm.cc, alias `_npx_layer_norm`) and `_backward_LayerNorm`.
 *
 * Normalises over one axis (default -1, the last): out = (data - mean) / std * gamma + beta with
 * mean and std = sqrt(var + eps) taken along `axis`, gamma/beta of shape (data.shape[axis],).
 * Hidden outputs mean and std have data's shape with `axis` set to 1 (visible with
 * output_mean_var; their gradients are blocked, as in MXNet). The backward op takes MXNet's five
 * inputs (ograd, data, gamma, mean, std) and returns the gradients of data, gamma and beta. Output 0
 * may share data's memory (MXNet's FInplaceOption {0, 0}).
 */
import type { ShapeSlots } from '../../../op-def.js';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assignSlot, channelAxis, floatElemwiseType, statsGradient } from './common.js';

export const LAYER_NORM_PARAMS = {
  axis: P.int({
    default: -1,
    doc:
      'The axis to perform layer normalization. Usually, this should be be axis of the channel ' +
      'dimension. Negative values means indexing from right to left.',
  }),
  eps: P.float({ default: 1e-5, doc: 'An `epsilon` parameter to prevent division by 0.' }),
  output_mean_var: P.bool({
    default: false,
    doc: 'Output the mean and std calculated along the given axis.',
  }),
};

/** Shapes of (data-like slots, gamma-like slots) → outputs (data, moments, moments) or grads. */
function lnShapes(
  op: string,
  attrs: { readonly axis: number },
  inShapes: ShapeSlots,
  outShapes: ShapeSlots,
  dataSlots: readonly (readonly [number, string])[],
  vecSlots: readonly (readonly [number, string])[],
  momentSlots: readonly (readonly [number, string])[],
  backward: boolean,
): boolean {
  let data = outShapes[0];
  for (const [i] of dataSlots) data = data ?? inShapes[i];
  if (data === undefined) return false;
  const a = channelAxis(op, attrs, attrs.axis, inShapes, data);
  const c = data[a] as number;
  const moments = data.map((d, i) => (i === a ? 1 : d));
  for (const [i, name] of dataSlots) assignSlot(op, attrs, inShapes, i, data, name, inShapes);
  for (const [i, name] of vecSlots) assignSlot(op, attrs, inShapes, i, [c], name, inShapes);
  for (const [i, name] of momentSlots) assignSlot(op, attrs, inShapes, i, moments, name, inShapes);
  assignSlot(op, attrs, outShapes, 0, data, backward ? 'data gradient' : 'output', inShapes);
  assignSlot(
    op,
    attrs,
    outShapes,
    1,
    backward ? [c] : moments,
    backward ? 'gamma gradient' : 'mean',
    inShapes,
  );
  assignSlot(op, attrs, outShapes, 2, backward ? [c] : moments, backward ? 'beta gradient' : 'std', inShapes);
  return [...inShapes, ...outShapes].every((s) => s?.every((d) => d >= 0) === true);
}

export function registerLayerNorm(registry: OpRegistry): void {
  registry.define({
    name: 'LayerNorm',
    aliases: ['_npx_layer_norm'],
    doc:
      'Layer normalization. Normalizes the channels of the input tensor by mean and variance, and ' +
      'applies a scale gamma as well as offset beta: out = (data - mean(data, axis)) / sqrt(var(data, ' +
      'axis) + eps) * gamma + beta. Unlike BatchNorm and InstanceNorm, the mean and var are computed ' +
      'along the channel dimension. output_mean_var also returns the mean and std (no gradient flows ' +
      'through them).',
    params: LAYER_NORM_PARAMS,
    numInputs: 3,
    numOutputs: 3,
    numVisibleOutputs: (attrs) => (attrs.output_mean_var ? 3 : 1),
    listInputNames: ['data', 'gamma', 'beta'],
    listOutputNames: ['output', 'mean', 'std'],
    inplaceOption: () => [[0, 0]],
    inferShape: (attrs, inShapes, outShapes) =>
      lnShapes(
        'LayerNorm',
        attrs,
        inShapes,
        outShapes,
        [[0, 'data']],
        [
          [1, 'gamma'],
          [2, 'beta'],
        ],
        [],
        false,
      ),
    inferType: (attrs, inTypes, outTypes) => floatElemwiseType('LayerNorm', attrs, inTypes, outTypes),
    gradient: statsGradient('_backward_LayerNorm'),
  });

  registry.define({
    name: '_backward_LayerNorm',
    doc:
      'Gradient of LayerNorm: inputs (ograd, data, gamma, mean, std), outputs the gradients of data, ' +
      'gamma and beta. With x̂ = (data - mean) / std and w = ograd * gamma / std: grad_gamma = ' +
      'sum(ograd * x̂), grad_beta = sum(ograd) over the other axes, grad_data = w - mean(w, axis) - x̂ * ' +
      'mean(w * x̂, axis).',
    params: LAYER_NORM_PARAMS,
    numInputs: 5,
    numOutputs: 3,
    listInputNames: ['ograd', 'data', 'gamma', 'mean', 'std'],
    isBackward: true,
    inferShape: (attrs, inShapes, outShapes) =>
      lnShapes(
        '_backward_LayerNorm',
        attrs,
        inShapes,
        outShapes,
        [
          [1, 'data'],
          [0, 'ograd'],
        ],
        [[2, 'gamma']],
        [
          [3, 'mean'],
          [4, 'std'],
        ],
        true,
      ),
    inferType: (attrs, inTypes, outTypes) =>
      floatElemwiseType('_backward_LayerNorm', attrs, inTypes, outTypes),
  });
}
