/**
 * `Activation` and `LeakyReLU` (MXNet src/operator/nn/activation{-inl.h,.cc},
 * src/operator/leaky_relu{-inl.h,.cc}) and their backward ops.
 *
 * Both are one op whose formula depends on `act_type`, so they are not SimpleOps (an expression
 * cannot depend on a string param); a backend compiles one expression per act_type instead.
 *
 * Backward inputs follow MXNet's `ActivationGrad` / `LeakyReLUGrad`:
 * - `_backward_Activation(ograd, output[, data])`: relu reads the output only (which lets the
 *   forward run in place); the others also get the data. relu, sigmoid, tanh, softrelu and
 *   log_sigmoid differentiate from the output (relu: y > 0; sigmoid: y(1-y); tanh: 1-y²;
 *   softrelu: 1-e^-y; log_sigmoid: 1-e^y), softsign and mish from the data.
 * - `_backward_LeakyReLU(ograd, data[, gamma], output[, mask])` → data grad (+ gamma grad for
 *   prelu, summed over the axes gamma is broadcast along). leaky/elu/selu/rrelu differentiate from
 *   the output, prelu and the GELUs from the data.
 *
 * LeakyReLU's `rrelu` draws one slope per element in U(lower_bound, upper_bound) in training (the
 * hidden `mask` output keeps them for the backward pass) and uses (lower + upper) / 2 otherwise.
 * `prelu` takes a learned `gamma` broadcast along axis 1 (or one shared value), MXNet's
 * `expand_shape`. `gelu` (MXNet 1.x, erf based) is accepted next to 2.0's `gelu_erf`/`gelu_tanh`.
 */
import { MXNetError, type Shape, shapeToString } from '@mx/base';
import type { ShapeSlots } from '../../../op-def.js';
import { P, type ParamsOf } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { known, sameShapes } from './common.js';

export const ACT_TYPES = ['relu', 'sigmoid', 'log_sigmoid', 'mish', 'tanh', 'softrelu', 'softsign'] as const;
export type ActType = (typeof ACT_TYPES)[number];

const ACT_PARAMS = Object.freeze({
  act_type: P.enum(ACT_TYPES, { doc: 'Activation function to be applied.' }),
});

/** Whether `_backward_Activation` also takes the forward data (all but relu, as MXNet). */
export function activationGradUsesData(act: ActType): boolean {
  return act !== 'relu';
}

export const LEAKY_TYPES = [
  'rrelu',
  'leaky',
  'prelu',
  'elu',
  'selu',
  'gelu',
  'gelu_erf',
  'gelu_tanh',
] as const;
export type LeakyType = (typeof LEAKY_TYPES)[number];

const LEAKY_PARAMS = Object.freeze({
  act_type: P.enum(LEAKY_TYPES, { default: 'leaky', doc: 'Activation function to be applied.' }),
  slope: P.float({ default: 0.25, doc: 'Init slope for the activation. (For leaky and elu only)' }),
  lower_bound: P.float({ default: 0.125, doc: 'Lower bound of random slope. (For rrelu only)' }),
  upper_bound: P.float({ default: 0.334, doc: 'Upper bound of random slope. (For rrelu only)' }),
});
type LeakyAttrs = ParamsOf<typeof LEAKY_PARAMS>;

/**
 * MXNet's `expand_shape` of prelu's gamma against data: gamma's dims line up from the right with
 * data axes 0 and 1 only (equal or 1); the others are 1. Throws when gamma cannot broadcast.
 */
export function preluGammaShape(
  gamma: Shape,
  data: Shape,
  attrs?: Readonly<Record<string, unknown>>,
): number[] {
  const out = new Array<number>(data.length).fill(1);
  let s = gamma.length - 1;
  for (let i = data.length - 1; i >= 0; i--) {
    const g = gamma[s];
    if (s >= 0 && i <= 1 && (data[i] === g || g === 1)) {
      out[i] = g as number;
      s--;
    }
  }
  if (s !== -1) {
    throw new MXNetError(
      `Cannot broadcast gamma to data. gamma: ${shapeToString(gamma)}, data: ${shapeToString(data)}`,
      {
        op: 'LeakyReLU',
        params: attrs,
        shapes: [data, gamma],
        hint: `prelu's gamma needs one value per channel (data axis 1, here ${data.length > 1 ? data[1] : data[0]}) or a single shared value`,
      },
    );
  }
  return out;
}

function leakyShape(p: LeakyAttrs, inS: ShapeSlots, outS: ShapeSlots): boolean {
  const op = 'LeakyReLU';
  const data = inS[0] ?? outS[0];
  if (data === undefined) return false;
  if (p.act_type === 'prelu') {
    const g = inS[1];
    if (g === undefined) inS[1] = [data.length > 1 ? (data[1] as number) : 1];
    else if (known(g) && known(data)) preluGammaShape(g, data, p);
  }
  const outs = p.act_type === 'rrelu' ? [0, 1] : [0];
  const ok = sameShapes(op, p, inS, outS, [0], outs, ['data', 'output']);
  return ok && inS.every(known);
}

export function registerActivations(registry: OpRegistry): void {
  registry.define({
    name: 'Activation',
    aliases: ['_npx_activation'],
    doc: 'Elementwise activation: relu, sigmoid, log_sigmoid, mish, tanh, softrelu (softplus) or softsign.',
    params: ACT_PARAMS,
    inferShape: (p, inS, outS) => sameShapes('Activation', p, inS, outS, [0], [0], ['data', 'output']),
    inplaceOption: () => [[0, 0]],
    gradient: {
      inputs: (p) => (activationGradUsesData(p.act_type) ? [0] : []),
      outputs: [0],
      build: (g, p) => {
        const ins = [g.ograd(0), g.output(0)];
        if (activationGradUsesData(p.act_type)) ins.push(g.input(0));
        return [g.op1('_backward_Activation', ins, { act_type: p.act_type })];
      },
    },
  });

  registry.define({
    name: '_backward_Activation',
    doc: 'Gradient of Activation: (ograd, output[, data]) → data grad.',
    params: ACT_PARAMS,
    numInputs: (p) => (activationGradUsesData(p.act_type) ? 3 : 2),
    listInputNames: (p) =>
      activationGradUsesData(p.act_type) ? ['ograd', 'output', 'data'] : ['ograd', 'output'],
    isBackward: true,
    inplaceOption: () => [[0, 0]],
    inferShape: (p, inS, outS) =>
      sameShapes(
        '_backward_Activation',
        p,
        inS,
        outS,
        inS.map((_, i) => i),
        [0],
        ['ograd', 'output', 'data'],
      ),
  });

  registry.define({
    name: 'LeakyReLU',
    inputVarInit: { 1: '["Constant", {"value": 0.25}]' },
    aliases: ['_npx_leaky_relu'],
    doc: 'Leaky ReLU family: leaky, prelu (learned gamma), rrelu (random slope), elu, selu, gelu_erf, gelu_tanh.',
    params: LEAKY_PARAMS,
    numInputs: (p) => (p.act_type === 'prelu' ? 2 : 1),
    numOutputs: (p) => (p.act_type === 'rrelu' ? 2 : 1),
    numVisibleOutputs: 1,
    listInputNames: (p) => (p.act_type === 'prelu' ? ['data', 'gamma'] : ['data']),
    listOutputNames: (p) => (p.act_type === 'rrelu' ? ['output', 'mask'] : ['output']),
    resourceRequest: (p) => (p.act_type === 'rrelu' ? ['parallelRandom', 'tempSpace'] : []),
    inferShape: leakyShape,
    gradient: {
      inputs: (p) => (p.act_type === 'prelu' ? [0, 1] : [0]),
      outputs: (p) => (p.act_type === 'rrelu' ? [0, 1] : [0]),
      build: (g, p) => {
        const ins = [g.ograd(0), g.input(0)];
        if (p.act_type === 'prelu') ins.push(g.input(1));
        ins.push(g.output(0));
        if (p.act_type === 'rrelu') ins.push(g.output(1));
        const grads = g.op('_backward_LeakyReLU', ins, {
          act_type: p.act_type,
          slope: p.slope,
          lower_bound: p.lower_bound,
          upper_bound: p.upper_bound,
        });
        return p.act_type === 'prelu' ? [grads[0] ?? null, grads[1] ?? null] : [grads[0] ?? null];
      },
    },
  });

  registry.define({
    name: '_backward_LeakyReLU',
    doc: 'Gradient of LeakyReLU: (ograd, data[, gamma], output[, mask]) → data grad[, gamma grad].',
    params: LEAKY_PARAMS,
    numInputs: (p) => 3 + (p.act_type === 'prelu' ? 1 : 0) + (p.act_type === 'rrelu' ? 1 : 0),
    numOutputs: (p) => (p.act_type === 'prelu' ? 2 : 1),
    listInputNames: (p) => [
      'ograd',
      'data',
      ...(p.act_type === 'prelu' ? ['gamma'] : []),
      'output',
      ...(p.act_type === 'rrelu' ? ['mask'] : []),
    ],
    isBackward: true,
    inferShape: (p, inS, outS) => {
      const op = '_backward_LeakyReLU';
      const prelu = p.act_type === 'prelu';
      const outIdx = prelu ? 3 : 2;
      const same = [0, 1, outIdx, ...(p.act_type === 'rrelu' ? [3] : [])];
      const ok = sameShapes(op, p, inS, outS, same, [0], ['ograd', 'data', 'output']);
      if (!prelu) return ok;
      const g = inS[2];
      const data = inS[1];
      if (g === undefined || data === undefined) return false;
      if (known(g) && known(data)) preluGammaShape(g, data, p);
      outS[1] = [...g];
      return ok && known(g);
    },
  });
}
