/**
 * The fused single-weight optimizer updates (MXNet src/operator/optimizer_op-inl.h, optimizer_op.cc,
 * contrib/adamw.cc): sgd, sgd_mom, mp_sgd, mp_sgd_mom, nag_mom, adam, adamw (+ mixed precision),
 * rmsprop, rmspropalex, ftrl, signsgd, signum and the two LAMB phases.
 *
 * Every op takes `(weight, grad, states...)` and returns the updated weight as its one output; the
 * states (mom, mean, var, n, z, delta, the float32 master copy `weight32`) are written in place and
 * listed in `mutateInputs` (MXNet FMutateInputs). Optimizers call them with `out=weight`, and
 * kernels must give the same result when the output is the weight's own memory: every op declares
 * (weight, output) in place, so such a call writes the weight directly instead of staging a copy.
 *
 * The formulas, including where clipping applies (to rescale_grad*grad only for sgd/nag/signum, to
 * the gradient plus wd*weight for adam/rmsprop) and epsilon placement, are MXNet's kernels'. Like
 * MXNet, clipping is on when clip_gradient >= 0 (its docs say > 0; its kernels test >= 0). The
 * parameters are MXNet `float` fields, so kernels round them to float32 before use, also for
 * float64 arrays. `_adamw_update` (MXNet 1.x `_contrib_adamw_update`) takes rescale_grad as a
 * one-element float32 array input and skips the update when it is NaN.
 *
 * Row_sparse gradients: sgd, sgd_mom, adam and ftrl carry MXNet's storage inference (storage.ts)
 * and its `_sparse_*` aliases (MXNET_ADD_SPARSE_OP_ALIAS); the kernels choose lazy or standard.
 */
import { MXNetError, type Shape, shapeSize, shapeToString } from '@mx/base';
import type { ShapeSlots, StorageType } from '../../op-def.js';
import { P, type ParamSchema } from '../../params.js';
import type { OpRegistry } from '../../registry.js';
import {
  clipParam,
  clipWeightsParam,
  lazyParam,
  lrParam,
  momentumParam,
  optimizerTypes,
  range,
  rescaleParam,
  sameShapes,
  wdParam,
} from './common.js';
import { allRspStorage, sgdStorage, stdOptStorage } from './storage.js';

interface UpdateSpec<S extends ParamSchema> {
  readonly name: string;
  readonly aliases?: readonly string[];
  readonly doc: string;
  readonly params: S;
  /** Input names in order (MXNet add_argument). */
  readonly inputs: readonly string[];
  /** Inputs written in place. */
  readonly mutate: readonly number[];
  /** Inputs fixed to float32 (mixed-precision states). */
  readonly f32?: readonly number[];
  /** Inputs sharing the weight's shape (default all). */
  readonly sameShape?: readonly number[];
  /** Inputs sharing the weight's dtype (default all but `f32`). */
  readonly sameType?: readonly number[];
  /** Storage inference for row_sparse gradients (storage.ts); default: dense only. */
  readonly storage?: (
    attrs: Readonly<Record<string, unknown>>,
    inTypes: StorageType[],
    outTypes: StorageType[],
  ) => boolean;
}

/** The updated weight may be written over the weight (`out=weight`). */
const WEIGHT_INPLACE: readonly (readonly [number, number])[] = Object.freeze([[0, 0] as const]);

function defineUpdate<S extends ParamSchema>(registry: OpRegistry, spec: UpdateSpec<S>): void {
  const { name, inputs, mutate } = spec;
  const f32 = spec.f32 ?? [];
  const shapeIdx = spec.sameShape ?? range(inputs.length);
  const typeIdx = spec.sameType ?? range(inputs.length).filter((i) => !f32.includes(i));
  const mutated = Object.freeze([...mutate]);
  registry.define({
    name,
    aliases: spec.aliases,
    doc: spec.doc,
    params: spec.params,
    numInputs: inputs.length,
    listInputNames: inputs,
    mutateInputs: () => mutated,
    inplaceOption: () => WEIGHT_INPLACE,
    inferShape: (attrs, inShapes, outShapes) =>
      sameShapes(name, inputs, attrs, inShapes, outShapes, shapeIdx),
    inferType: (_attrs, inTypes, outTypes) => optimizerTypes(name, inputs, inTypes, outTypes, typeIdx, f32),
    inferStorageType: spec.storage,
  });
}

const sgdParams = () => ({
  lr: lrParam(),
  wd: wdParam(),
  rescale_grad: rescaleParam(),
  clip_gradient: clipParam(),
  lazy_update: lazyParam(),
});

const sgdMomParams = () => ({
  lr: lrParam(),
  momentum: momentumParam(),
  wd: wdParam(),
  rescale_grad: rescaleParam(),
  clip_gradient: clipParam(),
  lazy_update: lazyParam(),
});

const adamWParams = () => ({
  lr: lrParam(),
  beta1: P.float({ default: 0.9, doc: 'The decay rate for the 1st moment estimates.' }),
  beta2: P.float({ default: 0.999, doc: 'The decay rate for the 2nd moment estimates.' }),
  epsilon: P.float({ default: 1e-8, doc: 'A small constant for numerical stability.' }),
  wd: wdParam(),
  eta: P.float({ doc: 'Learning rate schedule multiplier' }),
  clip_gradient: clipParam(),
});

/** adamw: weight..var share a shape; rescale_grad is a one-element array (MXNet reads its first value). */
function adamWShape(name: string, names: readonly string[], nState: number) {
  return (attrs: Record<string, unknown>, inShapes: ShapeSlots, outShapes: ShapeSlots): boolean => {
    const r = inShapes[nState];
    if (r?.every((d) => d >= 0) && shapeSize(r) !== 1) {
      throw new MXNetError(
        `rescale_grad must hold exactly one value, got an array of shape ${shapeToString(r)}`,
        {
          op: name,
          params: attrs,
          shapes: inShapes.map((x) => x ?? []),
          hint: 'pass rescale_grad as a one-element float32 array, e.g. nd.array([1 / batch_size])',
        },
      );
    }
    return sameShapes(name, names, attrs, inShapes, outShapes, range(nState));
  };
}

function defineAdamW(registry: OpRegistry, mp: boolean): void {
  const name = mp ? '_mp_adamw_update' : '_adamw_update';
  const inputs = mp
    ? ['weight', 'grad', 'mean', 'var', 'weight32', 'rescale_grad']
    : ['weight', 'grad', 'mean', 'var', 'rescale_grad'];
  const n = inputs.length - 1;
  const mutated = Object.freeze(mp ? [2, 3, 4] : [2, 3]);
  // MXNet MPUpdateInferType<n_in, 1, total>: the first n_in inputs and the output share a dtype,
  // every later input (states of the mp form, rescale_grad) is float32.
  const nIn = mp ? 2 : 4;
  registry.define({
    name,
    aliases: [mp ? '_contrib_mp_adamw_update' : '_contrib_adamw_update'],
    doc:
      'AdamW update (Adam with decoupled weight decay): m = beta1*m + (1-beta1)*g, ' +
      'v = beta2*v + (1-beta2)*g^2, w -= eta*(lr*m/(sqrt(v)+epsilon) + wd*w), g = rescale_grad*grad ' +
      '(clipped). rescale_grad is an array; the update is skipped when it is NaN.' +
      (mp ? ' Mixed precision: mean, var and weight32 are float32.' : ''),
    params: adamWParams(),
    numInputs: inputs.length,
    listInputNames: inputs,
    mutateInputs: () => mutated,
    inplaceOption: () => WEIGHT_INPLACE,
    inferShape: adamWShape(name, inputs, n),
    inferType: (_a, inTypes, outTypes) =>
      optimizerTypes(name, inputs, inTypes, outTypes, range(nIn), range(inputs.length).slice(nIn)),
  });
}

export function registerSingleUpdates(registry: OpRegistry): void {
  defineUpdate(registry, {
    name: 'sgd_update',
    aliases: ['_sparse_sgd_update'],
    doc:
      'SGD update: weight = (1 - lr*wd)*weight - lr*clip(rescale_grad*grad). With a row_sparse grad ' +
      'and lazy_update, only the rows in grad.indices are updated (weight decay included).',
    params: sgdParams(),
    inputs: ['weight', 'grad'],
    mutate: [],
    storage: sgdStorage,
  });
  defineUpdate(registry, {
    name: 'sgd_mom_update',
    aliases: ['_sparse_sgd_mom_update'],
    doc:
      'SGD with momentum: mom = momentum*mom - lr*wd*weight - lr*clip(rescale_grad*grad); ' +
      "weight += mom. With a row_sparse grad, lazy_update and mom of the weight's storage type, " +
      'only the rows in grad.indices are updated (weight and mom).',
    params: sgdMomParams(),
    inputs: ['weight', 'grad', 'mom'],
    mutate: [2],
    storage: stdOptStorage('sgd_mom_update', ['weight', 'grad', 'mom'], 1),
  });
  defineUpdate(registry, {
    name: 'mp_sgd_update',
    doc: 'Multi-precision SGD: the update is computed on the float32 master copy weight32, then cast.',
    params: sgdParams(),
    inputs: ['weight', 'grad', 'weight32'],
    mutate: [2],
    f32: [2],
  });
  defineUpdate(registry, {
    name: 'mp_sgd_mom_update',
    doc: 'Multi-precision SGD with momentum: mom and weight32 are float32; the weight gets the cast result.',
    params: sgdMomParams(),
    inputs: ['weight', 'grad', 'mom', 'weight32'],
    mutate: [2, 3],
    f32: [2, 3],
  });
  defineUpdate(registry, {
    name: 'nag_mom_update',
    doc:
      'Nesterov momentum: g = clip(rescale_grad*grad) + wd*weight, mom = momentum*mom, ' +
      'weight += -mom + (1+momentum)*(mom - lr*g), mom -= lr*g.',
    params: {
      lr: lrParam(),
      momentum: momentumParam(),
      wd: wdParam(),
      rescale_grad: rescaleParam(),
      clip_gradient: clipParam(),
    },
    inputs: ['weight', 'grad', 'mom'],
    mutate: [2],
  });
  defineUpdate(registry, {
    name: 'adam_update',
    aliases: ['_sparse_adam_update'],
    doc:
      'Adam update: g = clip(rescale_grad*grad + wd*weight), mean = beta1*mean + (1-beta1)*g, ' +
      'var = beta2*var + (1-beta2)*g^2, weight -= lr*mean/(sqrt(var) + epsilon). Bias correction ' +
      'is left to the caller (folded into lr). With a row_sparse grad, lazy_update and mean/var of ' +
      "the weight's storage type, only the rows in grad.indices are updated (w, mean and var).",
    params: {
      lr: lrParam(),
      beta1: P.float({ default: 0.9, doc: 'The decay rate for the 1st moment estimates.' }),
      beta2: P.float({ default: 0.999, doc: 'The decay rate for the 2nd moment estimates.' }),
      epsilon: P.float({ default: 1e-8, doc: 'A small constant for numerical stability.' }),
      wd: wdParam(),
      rescale_grad: rescaleParam(),
      clip_gradient: clipParam(),
      lazy_update: lazyParam(),
    },
    inputs: ['weight', 'grad', 'mean', 'var'],
    mutate: [2, 3],
    storage: stdOptStorage('adam_update', ['weight', 'grad', 'mean', 'var'], 2),
  });
  defineAdamW(registry, false);
  defineAdamW(registry, true);
  defineUpdate(registry, {
    name: 'rmsprop_update',
    doc:
      'RMSProp (Tieleman & Hinton): g = clip(rescale_grad*grad + wd*weight), ' +
      'n = (1-gamma1)*g^2 + gamma1*n, weight -= lr*g/sqrt(n + epsilon), then clip_weights.',
    params: {
      lr: lrParam(),
      gamma1: P.float({ default: 0.95, doc: 'The decay rate of momentum estimates.' }),
      epsilon: P.float({ default: 1e-8, doc: 'A small constant for numerical stability.' }),
      wd: wdParam(),
      rescale_grad: rescaleParam(),
      clip_gradient: clipParam(),
      clip_weights: clipWeightsParam(),
    },
    inputs: ['weight', 'grad', 'n'],
    mutate: [2],
  });
  defineUpdate(registry, {
    name: 'rmspropalex_update',
    doc:
      'RMSProp as in Graves (2013): g = clip(rescale_grad*grad + wd*weight), ' +
      'n = (1-gamma1)*g^2 + gamma1*n, g_avg = (1-gamma1)*g + gamma1*g_avg, ' +
      'delta = gamma2*delta - lr*g/sqrt(n - g_avg^2 + epsilon), weight += delta, then clip_weights.',
    params: {
      lr: lrParam(),
      gamma1: P.float({ default: 0.95, doc: 'Decay rate.' }),
      gamma2: P.float({ default: 0.9, doc: 'Decay rate.' }),
      epsilon: P.float({ default: 1e-8, doc: 'A small constant for numerical stability.' }),
      wd: wdParam(),
      rescale_grad: rescaleParam(),
      clip_gradient: clipParam(),
      clip_weights: clipWeightsParam(),
    },
    inputs: ['weight', 'grad', 'n', 'g', 'delta'],
    mutate: [2, 3, 4],
  });
  defineUpdate(registry, {
    name: 'ftrl_update',
    aliases: ['_sparse_ftrl_update'],
    doc:
      'FTRL-Proximal: g = clip(rescale_grad*grad), z += g - (sqrt(n + g^2) - sqrt(n))*weight/lr, ' +
      'n += g^2, weight = (sign(z)*lamda1 - z) / ((beta + sqrt(n))/lr + wd) * (|z| > lamda1). ' +
      'When weight, grad, z and n are all row_sparse, only the rows in grad.indices are updated.',
    params: {
      lr: lrParam(),
      lamda1: P.float({ default: 0.01, doc: 'The L1 regularization coefficient.' }),
      beta: P.float({ default: 1, doc: 'Per-Coordinate Learning Rate beta.' }),
      wd: wdParam(),
      rescale_grad: rescaleParam(),
      clip_gradient: clipParam(),
    },
    inputs: ['weight', 'grad', 'z', 'n'],
    mutate: [2, 3],
    storage: allRspStorage,
  });
  defineUpdate(registry, {
    name: 'signsgd_update',
    doc: 'SignSGD: weight = (1 - lr*wd)*weight - lr*sign(grad) (clip_gradient has no effect).',
    params: {
      lr: lrParam(),
      wd: wdParam(),
      rescale_grad: rescaleParam(),
      clip_gradient: clipParam(),
    },
    inputs: ['weight', 'grad'],
    mutate: [],
  });
  defineUpdate(registry, {
    name: 'signum_update',
    doc:
      'Signum: mom = momentum*mom - (1-momentum)*(wd*weight + clip(rescale_grad*grad)), ' +
      'weight = (1 - lr*wd_lh)*weight + lr*sign(mom).',
    params: {
      lr: lrParam(),
      momentum: momentumParam(),
      wd: wdParam(),
      rescale_grad: rescaleParam(),
      clip_gradient: clipParam(),
      wd_lh: P.float({
        default: 0,
        doc:
          'The amount of weight decay that does not go into gradient/momentum calculations' +
          'otherwise do weight decay algorithmically only.',
      }),
    },
    inputs: ['weight', 'grad', 'mom'],
    mutate: [2],
  });
  defineUpdate(registry, {
    name: 'lamb_update_phase1',
    doc:
      'LAMB phase 1: g = clip(rescale_grad*grad), mean and var as Adam, output ' +
      'mean_hat/(sqrt(var_hat) + epsilon) + wd*weight (hats divide by 1 - beta^t when bias_correction).',
    params: {
      beta1: P.float({ default: 0.9, doc: 'The decay rate for the 1st moment estimates.' }),
      beta2: P.float({ default: 0.999, doc: 'The decay rate for the 2nd moment estimates.' }),
      epsilon: P.float({ default: 1e-6, doc: 'A small constant for numerical stability.' }),
      t: P.int({ doc: 'Index update count.' }),
      bias_correction: P.bool({ default: true, doc: 'Whether to use bias correction.' }),
      wd: P.float({
        doc:
          'Weight decay augments the objective function with a regularization term that penalizes ' +
          'large weights. The penalty scales with the square of the magnitude of each weight.',
      }),
      rescale_grad: rescaleParam(),
      clip_gradient: clipParam(),
    },
    inputs: ['weight', 'grad', 'mean', 'var'],
    mutate: [2, 3],
  });
  registerLambPhase2(registry);
}

function registerLambPhase2(registry: OpRegistry): void {
  const name = 'lamb_update_phase2';
  const inputs = ['weight', 'g', 'r1', 'r2'];
  registry.define({
    name,
    doc:
      'LAMB phase 2: weight -= lr * r1/r2 * g, where r1 (the weight norm, clamped to ' +
      '[lower_bound, upper_bound] when those are >= 0) and r2 (the norm of g) are one-element arrays; ' +
      'the ratio is 1 when either is 0.',
    params: {
      lr: lrParam(),
      lower_bound: P.float({
        default: -1,
        doc: 'Lower limit of norm of weight. If lower_bound <= 0, Lower limit is not set',
      }),
      upper_bound: P.float({
        default: -1,
        doc: 'Upper limit of norm of weight. If upper_bound <= 0, Upper limit is not set',
      }),
    },
    numInputs: 4,
    listInputNames: inputs,
    inplaceOption: () => WEIGHT_INPLACE,
    inferShape(attrs, inShapes, outShapes) {
      for (const i of [2, 3]) {
        const s = inShapes[i];
        // MXNet checks r_shape[0] == 1 (a norm is (1,)) and reads element 0: one value is needed.
        if (s?.every((d) => d >= 0) && shapeSize(s as Shape) !== 1) {
          throw new MXNetError(`${inputs[i]} shape incorrect: expected (1,), got ${shapeToString(s)}`, {
            op: name,
            params: attrs,
            shapes: inShapes.map((x) => x ?? []),
            hint: `${inputs[i]} is a norm: pass a one-element array (e.g. norm(weight) reshaped to (1,))`,
          });
        }
      }
      return sameShapes(name, inputs, attrs, inShapes, outShapes, [0, 1]);
    },
    inferType: (_a, inTypes, outTypes) => optimizerTypes(name, inputs, inTypes, outTypes, range(4)),
  });
}
