/**
 * BatchNorm (MXNet src/operator/nn/batch_norm.cc, alias `_npx_batch_norm`) and its backward op.
 *
 * Inputs data, gamma, beta, moving_mean, moving_var: MXNet's two auxiliary states are plain
 * inputs 3 and 4 here, declared in `mutateInputs` because training mode updates them in place.
 * Outputs out, mean, var, of which only `out` is visible unless `output_mean_var`; as in MXNet the
 * hidden `var` holds the *inverse* standard deviation 1/sqrt(var + eps) that backward reads (the
 * batch statistics in training mode, the moving ones otherwise). mean/var/gamma/beta and the moving
 * stats are float32 for float16 data (MXNet's AccReal), the data dtype otherwise.
 *
 * One deliberate difference: MXNet's CPU kernels fold the batch statistics into the moving ones in
 * `_backward_BatchNorm` (so a training-mode forward without backward leaves them unchanged), while
 * cuDNN does it in the forward. Here the forward does it, like cuDNN, so the tape never has to write
 * a forward input: moving = moving * momentum + batch * (1 - momentum) with the *biased* batch
 * variance (MXNet's CPU formula; cuDNN uses the unbiased one). `_backward_BatchNorm` keeps MXNet's
 * eight inputs and reads the moving stats only outside training mode.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import type { ShapeSlots, TypeSlots } from '../../../op-def.js';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assignSlot, channelAxis, checkFloat } from './common.js';

/** MXNet's BatchNormParam (field order, defaults and docs as MXNet declares them). */
export const BATCH_NORM_PARAMS = {
  eps: P.double({
    default: 1e-3,
    doc:
      'Epsilon to prevent div 0. Must be no less than CUDNN_BN_MIN_EPSILON defined in cudnn.h when ' +
      'using cudnn (usually 1e-5)',
  }),
  momentum: P.float({ default: 0.9, doc: 'Momentum for moving average' }),
  fix_gamma: P.bool({ default: true, doc: 'Fix gamma while training' }),
  use_global_stats: P.bool({
    default: false,
    doc:
      'Whether use global moving statistics instead of local batch-norm. This will force change ' +
      'batch-norm into a scale shift operator.',
  }),
  output_mean_var: P.bool({ default: false, doc: 'Output the mean and inverse std ' }),
  axis: P.int({ default: 1, doc: 'Specify which shape axis the channel is specified' }),
  cudnn_off: P.bool({ default: false, doc: 'Do not select CUDNN operator, if available' }),
  min_calib_range: P.optional(P.float(), {
    doc:
      'The minimum scalar value in the form of float32 obtained through calibration. If present, it ' +
      'will be used to by quantized batch norm op to calculate primitive scale.Note: this calib_range ' +
      'is to calib bn output.',
  }),
  max_calib_range: P.optional(P.float(), {
    doc:
      'The maximum scalar value in the form of float32 obtained through calibration. If present, it ' +
      'will be used to by quantized batch norm op to calculate primitive scale.Note: this calib_range ' +
      'is to calib bn output.',
  }),
};

const PARAM_INPUTS = ['gamma', 'beta', 'moving_mean', 'moving_var'] as const;

/** The dtype of gamma/beta/moving stats/mean/var for data of dtype `t` (MXNet's AccReal). */
export function bnParamType(t: DTypeName): DTypeName {
  return t === 'float16' || t === 'bfloat16' ? 'float32' : t;
}

/**
 * Shapes of BatchNorm-style slots: the data shape from `dataSlots` (or output 0), the per-channel
 * vectors in `vecSlots`; outputs [data, (C,), (C,)] named `outNames`.
 */
function bnShapes(
  op: string,
  attrs: { readonly axis: number },
  inShapes: ShapeSlots,
  outShapes: ShapeSlots,
  dataSlots: readonly (readonly [number, string])[],
  vecSlots: readonly (readonly [number, string])[],
  outNames: readonly string[],
): boolean {
  let data = outShapes[0];
  for (const [i] of dataSlots) data = data ?? inShapes[i];
  if (data === undefined) return false;
  const a = channelAxis(op, attrs, attrs.axis, inShapes, data);
  const c = data[a] as number;
  for (const [i, name] of dataSlots) assignSlot(op, attrs, inShapes, i, data, name, inShapes);
  for (const [i, name] of vecSlots) assignSlot(op, attrs, inShapes, i, [c], name, inShapes);
  outNames.forEach((name, i) => {
    assignSlot(op, attrs, outShapes, i, i === 0 ? data : [c], name, inShapes);
  });
  return [...inShapes, ...outShapes].every((s) => s?.every((d) => d >= 0) === true);
}

/** Types: data slots get `t`, the others the param type; mismatches name the slot. */
function bnTypes(
  op: string,
  attrs: Readonly<Record<string, unknown>>,
  inTypes: TypeSlots,
  outTypes: TypeSlots,
  dataSlots: readonly number[],
  names: readonly string[],
): boolean {
  let t = outTypes[0];
  for (const i of dataSlots) t = t ?? inTypes[i];
  if (t === undefined) return false;
  checkFloat(op, attrs, t);
  const p = bnParamType(t);
  for (let i = 0; i < inTypes.length; i++) {
    const want = dataSlots.includes(i) ? t : p;
    const have = inTypes[i];
    if (have !== undefined && have !== want) {
      throw new MXNetError(`${names[i]} must have dtype ${want} for ${t} data, got ${have}`, {
        op,
        params: attrs,
        dtypes: inTypes.map((d) => d ?? 'unknown'),
        hint: `cast ${names[i]} to ${want} (float16 data keeps its BatchNorm parameters in float32)`,
      });
    }
    inTypes[i] = want;
  }
  const outs = [t, p, p];
  for (let i = 0; i < outTypes.length; i++) {
    const have = outTypes[i];
    if (have !== undefined && have !== outs[i]) {
      throw new MXNetError(`output ${i} must have dtype ${outs[i]}, got ${have}`, {
        op,
        params: attrs,
        dtypes: outTypes.map((d) => d ?? 'unknown'),
        hint: `pass an output of dtype ${outs[i]}`,
      });
    }
    outTypes[i] = outs[i];
  }
  return true;
}

const BN_INPUTS = ['data', ...PARAM_INPUTS];
const BN_BACKWARD_INPUTS = ['ograd', 'mean', 'var', 'data', 'gamma', 'beta', 'moving_mean', 'moving_var'];

export function registerBatchNorm(registry: OpRegistry): void {
  registry.define({
    name: 'BatchNorm',
    inputVarInit: { 3: '["zero", {}]', 4: '["one", {}]' },
    aliases: ['_npx_batch_norm'],
    doc:
      'Batch normalization. Normalizes a data batch by mean and variance, and applies a scale gamma as ' +
      'well as offset beta: out[:,i,...] = (data[:,i,...] - mean[i]) / sqrt(var[i] + eps) * gamma[i] + ' +
      'beta[i], with the batch statistics in training mode and moving_mean/moving_var otherwise (or ' +
      'with use_global_stats). Training mode updates moving_mean = moving_mean * momentum + mean * (1 - ' +
      'momentum) and likewise moving_var. fix_gamma uses gamma = 1 and gives it a zero gradient. ' +
      'output_mean_var also returns the mean and the inverse std.',
    params: BATCH_NORM_PARAMS,
    numInputs: 5,
    numOutputs: 3,
    numVisibleOutputs: (attrs) => (attrs.output_mean_var ? 3 : 1),
    listInputNames: BN_INPUTS,
    listOutputNames: ['output', 'mean', 'var'],
    mutateInputs: () => [3, 4],
    inferShape: (attrs, inShapes, outShapes) =>
      bnShapes(
        'BatchNorm',
        attrs,
        inShapes,
        outShapes,
        [[0, 'data']],
        PARAM_INPUTS.map((n, i) => [i + 1, n] as const),
        ['output', 'mean', 'var'],
      ),
    inferType: (attrs, inTypes, outTypes) => bnTypes('BatchNorm', attrs, inTypes, outTypes, [0], BN_INPUTS),
    gradient: {
      inputs: [0, 1, 2, 3, 4],
      outputs: [1, 2],
      build(g, attrs) {
        const [dData, dGamma, dBeta] = g.op(
          '_backward_BatchNorm',
          [g.ograd(0), g.output(1), g.output(2), g.input(0), g.input(1), g.input(2), g.input(3), g.input(4)],
          attrs,
        );
        return [dData ?? null, dGamma ?? null, dBeta ?? null, null, null];
      },
    },
  });

  registry.define({
    name: '_backward_BatchNorm',
    doc:
      'Gradient of BatchNorm: inputs (ograd, mean, var = inverse std, data, gamma, beta, moving_mean, ' +
      'moving_var), outputs the gradients of data, gamma and beta. In training mode (without ' +
      'use_global_stats) it differentiates through the batch statistics given as mean/var; otherwise ' +
      'it uses the moving statistics, as MXNet does. It does not update the moving statistics (the ' +
      'forward op did).',
    params: BATCH_NORM_PARAMS,
    numInputs: 8,
    numOutputs: 3,
    listInputNames: BN_BACKWARD_INPUTS,
    isBackward: true,
    inferShape: (attrs, inShapes, outShapes) =>
      bnShapes(
        '_backward_BatchNorm',
        attrs,
        inShapes,
        outShapes,
        [
          [3, 'data'],
          [0, 'ograd'],
        ],
        [
          [1, 'mean'],
          [2, 'var'],
          [4, 'gamma'],
          [5, 'beta'],
          [6, 'moving_mean'],
          [7, 'moving_var'],
        ],
        ['data gradient', 'gamma gradient', 'beta gradient'],
      ),
    inferType: (attrs, inTypes, outTypes) =>
      bnTypes('_backward_BatchNorm', attrs, inTypes, outTypes, [3, 0], BN_BACKWARD_INPUTS),
  });
}
