/**
 * GroupNorm (MXNet src/operator/nn/group_norm.cc) and InstanceNorm (src/operator/instance_norm-inl.h,
 * a legacy OperatorProperty op), with their backward ops. Both take data (N, C, ...) of rank >= 3
 * and per-channel gamma/beta of shape (C,):
 *
 * - GroupNorm splits the channels into `num_groups` groups and normalises each (sample, group):
 *   hidden outputs mean and std = sqrt(var + eps) of shape (N, num_groups); output 0 may share
 *   data's memory. (MXNet 1.x had gamma/beta of shape (num_groups,); 2.0 made them per channel.)
 * - InstanceNorm normalises each (sample, channel): hidden outputs mean and the *variance* (not the
 *   std; MXNet's legacy op saves var) of shape (N, C).
 *
 * Backward ops keep MXNet's input orders: `_backward_GroupNorm` (ograd, data, gamma, mean, std) and
 * `_backward_InstanceNorm` (ograd, mean, var, data, gamma) — the legacy op's
 * DeclareBackwardDependency order.
 */
import type { Shape } from '@mx/base';
import type { ShapeSlots } from '../../../op-def.js';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assignSlot, floatElemwiseType, normError, statsGradient } from './common.js';

export const GROUP_NORM_PARAMS = {
  num_groups: P.int({ default: 1, doc: 'Total number of groups.' }),
  eps: P.float({ default: 1e-5, doc: 'An `epsilon` parameter to prevent division by 0.' }),
  output_mean_var: P.bool({
    default: false,
    doc: 'Output the mean and std calculated along the given axis.',
  }),
};

export const INSTANCE_NORM_PARAMS = {
  eps: P.float({ default: 1e-3, doc: 'An `epsilon` parameter to prevent division by 0.' }),
};

type Slots = readonly (readonly [number, string])[];

/**
 * Shapes for both ops: data (N, C, ...) from `dataSlots`; gamma-like (C,) in `vecSlots`; moments
 * (N, G) in `momentSlots`; outputs [data, moments, moments] or the gradients [data, (C,), (C,)].
 */
function groupShapes(
  op: string,
  attrs: Readonly<Record<string, unknown>>,
  groups: (c: number) => number,
  inShapes: ShapeSlots,
  outShapes: ShapeSlots,
  dataSlots: Slots,
  vecSlots: Slots,
  momentSlots: Slots,
  outNames: readonly string[] | null,
): boolean {
  let data: Shape | undefined = outShapes[0];
  for (const [i] of dataSlots) data = data ?? inShapes[i];
  if (data === undefined) return false;
  if (data.length < 3) {
    throw normError(
      op,
      op.includes('InstanceNorm')
        ? 'InstanceNorm only supports input tensors of rank >= 3.'
        : 'input should have at least 3 dims and the first 2 dims should be batch and channel respectively',
      attrs,
      inShapes,
      'pass data of shape (N, C, ...) with at least one spatial axis',
    );
  }
  const c = data[1] as number;
  const g = groups(c);
  const moments = [data[0] as number, g];
  for (const [i, name] of dataSlots) assignSlot(op, attrs, inShapes, i, data, name, inShapes);
  for (const [i, name] of vecSlots) assignSlot(op, attrs, inShapes, i, [c], name, inShapes);
  for (const [i, name] of momentSlots) assignSlot(op, attrs, inShapes, i, moments, name, inShapes);
  if (outNames === null) {
    assignSlot(op, attrs, outShapes, 0, data, 'data gradient', inShapes);
    assignSlot(op, attrs, outShapes, 1, [c], 'gamma gradient', inShapes);
    assignSlot(op, attrs, outShapes, 2, [c], 'beta gradient', inShapes);
  } else {
    outNames.forEach((name, i) => {
      assignSlot(op, attrs, outShapes, i, i === 0 ? data : moments, name, inShapes);
    });
  }
  return [...inShapes, ...outShapes].every((s) => s?.every((d) => d >= 0) === true);
}

/** GroupNorm's group count for C channels, checked (MXNet: "# of channels must be divisible..."). */
function groupCount(op: string, attrs: { readonly num_groups: number }, inShapes: ShapeSlots) {
  return (c: number): number => {
    const g = attrs.num_groups;
    if (g <= 0) {
      throw normError(op, `num_groups must be positive, got ${g}`, attrs, inShapes, 'pass num_groups >= 1');
    }
    if (c >= 0 && c % g !== 0) {
      throw normError(
        op,
        `# of channels must be divisible by # of groups: ${c} channels, num_groups=${g}`,
        attrs,
        inShapes,
        `pick num_groups dividing the channel count ${c} (data axis 1)`,
      );
    }
    return g;
  };
}

export function registerGroupNorm(registry: OpRegistry): void {
  registry.define({
    name: 'GroupNorm',
    aliases: ['_npx_group_norm'],
    doc:
      'Group normalization. The input channels are separated into num_groups groups, each containing ' +
      'num_channels / num_groups channels; the mean and standard deviation are calculated separately ' +
      'over each group: data = data.reshape((N, num_groups, C // num_groups, ...)), out = (data - ' +
      'mean(data, axis)) / sqrt(var(data, axis) + eps) * gamma + beta, with per-channel gamma and beta.',
    params: GROUP_NORM_PARAMS,
    numInputs: 3,
    numOutputs: 3,
    numVisibleOutputs: (attrs) => (attrs.output_mean_var ? 3 : 1),
    listInputNames: ['data', 'gamma', 'beta'],
    listOutputNames: ['output', 'mean', 'std'],
    inplaceOption: () => [[0, 0]],
    inferShape: (attrs, inShapes, outShapes) =>
      groupShapes(
        'GroupNorm',
        attrs,
        groupCount('GroupNorm', attrs, inShapes),
        inShapes,
        outShapes,
        [[0, 'data']],
        [
          [1, 'gamma'],
          [2, 'beta'],
        ],
        [],
        ['output', 'mean', 'std'],
      ),
    inferType: (attrs, inTypes, outTypes) => floatElemwiseType('GroupNorm', attrs, inTypes, outTypes),
    gradient: statsGradient('_backward_GroupNorm'),
  });

  registry.define({
    name: '_backward_GroupNorm',
    doc:
      'Gradient of GroupNorm: inputs (ograd, data, gamma, mean, std), outputs the gradients of data, ' +
      'gamma and beta.',
    params: GROUP_NORM_PARAMS,
    numInputs: 5,
    numOutputs: 3,
    listInputNames: ['ograd', 'data', 'gamma', 'mean', 'std'],
    isBackward: true,
    inferShape: (attrs, inShapes, outShapes) =>
      groupShapes(
        '_backward_GroupNorm',
        attrs,
        groupCount('_backward_GroupNorm', attrs, inShapes),
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
        null,
      ),
    inferType: (attrs, inTypes, outTypes) =>
      floatElemwiseType('_backward_GroupNorm', attrs, inTypes, outTypes),
  });

  registry.define({
    name: 'InstanceNorm',
    aliases: ['_npx_instance_norm'],
    doc:
      'Applies instance normalization to the n-dimensional input array: out = (x - mean[x]) / sqrt(var[x] ' +
      '+ eps) * gamma + beta, where mean and var are taken over the spatial axes of each sample and ' +
      'channel; gamma and beta have shape (C,). Data must have rank >= 3 with the channel on axis 1.',
    params: INSTANCE_NORM_PARAMS,
    numInputs: 3,
    numOutputs: 3,
    numVisibleOutputs: 1,
    listInputNames: ['data', 'gamma', 'beta'],
    listOutputNames: ['output', 'mean', 'var'],
    inferShape: (attrs, inShapes, outShapes) =>
      groupShapes(
        'InstanceNorm',
        attrs,
        (c) => c,
        inShapes,
        outShapes,
        [[0, 'data']],
        [
          [1, 'gamma'],
          [2, 'beta'],
        ],
        [],
        ['output', 'mean', 'var'],
      ),
    inferType: (attrs, inTypes, outTypes) => floatElemwiseType('InstanceNorm', attrs, inTypes, outTypes),
    gradient: {
      inputs: [0, 1],
      outputs: [1, 2],
      build(g, attrs) {
        const [dData, dGamma, dBeta] = g.op(
          '_backward_InstanceNorm',
          [g.ograd(0), g.output(1), g.output(2), g.input(0), g.input(1)],
          attrs,
        );
        return [dData ?? null, dGamma ?? null, dBeta ?? null];
      },
    },
  });

  registry.define({
    name: '_backward_InstanceNorm',
    doc:
      'Gradient of InstanceNorm: inputs (ograd, mean, var, data, gamma), outputs the gradients of data, ' +
      'gamma and beta.',
    params: INSTANCE_NORM_PARAMS,
    numInputs: 5,
    numOutputs: 3,
    listInputNames: ['ograd', 'mean', 'var', 'data', 'gamma'],
    isBackward: true,
    inferShape: (attrs, inShapes, outShapes) =>
      groupShapes(
        '_backward_InstanceNorm',
        attrs,
        (c) => c,
        inShapes,
        outShapes,
        [
          [3, 'data'],
          [0, 'ograd'],
        ],
        [[4, 'gamma']],
        [
          [1, 'mean'],
          [2, 'var'],
        ],
        null,
      ),
    inferType: (attrs, inTypes, outTypes) =>
      floatElemwiseType('_backward_InstanceNorm', attrs, inTypes, outTypes),
  });
}
