/**
 * Per-coordinate adaptive rates: RMSProp, AdaGrad, AdaDelta and FTRL, as MXNet 1.x's Python runs
 * them. RMSProp (`rmsprop_update`, centered: `rmspropalex_update`) and FTRL (`ftrl_update`) are
 * fused ops; AdaGrad (dense) and AdaDelta are composed from NDArray ops in MXNet's Python order,
 * new values computed into temporaries and copied into the state and weight last (an op failing
 * midway writes nothing).
 *
 * Row_sparse gradients (MXNet 1.x): AdaGrad updates with the fused `_sparse_adagrad_update`
 * (which, as in MXNet, refuses wd ≠ 0), FTRL passes them to `ftrl_update`; both keep their states
 * in the weight's storage type, as MXNet's `create_state` does.
 *
 * One deliberate difference: MXNet 1.x creates these states with the default dtype (float32)
 * whatever the weight's, which breaks float64 weights; here they take the weight's dtype.
 */
import type { NDArray, Nd } from '@mx/ndarray';
import { checkBool, checkNumber, optionalNumber, type ParamIndex } from './checks.js';
import {
  Optimizer,
  type OptimizerOptions,
  type OptimizerState,
  type StateTemplate,
  slot,
  type WeightInfo,
} from './optimizer.js';
import { fusedUpdate, stateStorageOf } from './sparse.js';

const decay = { min: 0, max: 1 } as const;

export interface RMSPropOptions extends OptimizerOptions {
  /** Decay of the squared-gradient average (default 0.9). */
  readonly gamma1?: number;
  /** Momentum of the centered form (default 0.9). */
  readonly gamma2?: number;
  /** Added inside the square root (default 1e-8). */
  readonly epsilon?: number;
  /** Graves's centered form (default false: Tieleman & Hinton). */
  readonly centered?: boolean;
  /** Clip weights to [-clipWeights, clipWeights] after the update (off when unset or 0). */
  readonly clipWeights?: number | null;
}

/**
 * RMSProp: `g = clip(rescaleGrad*grad + wd*w)`, `n = (1-gamma1)*g^2 + gamma1*n`,
 * `w -= lr*g/sqrt(n + epsilon)`; centered adds the mean gradient and a momentum delta. State `[n]`,
 * or `[n, g, delta]` when centered. Default learning rate 0.001.
 */
export class RMSProp extends Optimizer {
  readonly gamma1: number;
  readonly gamma2: number;
  readonly epsilon: number;
  readonly centered: boolean;
  readonly clipWeights: number | undefined;

  constructor(options: RMSPropOptions = {}) {
    super('RMSProp', options, {
      keys: ['gamma1', 'gamma2', 'epsilon', 'centered', 'clipWeights'],
      learningRate: 0.001,
    });
    this.gamma1 = checkNumber('RMSProp', 'gamma1', options.gamma1 ?? 0.9, decay);
    this.gamma2 = checkNumber('RMSProp', 'gamma2', options.gamma2 ?? 0.9, decay);
    this.epsilon = checkNumber('RMSProp', 'epsilon', options.epsilon ?? 1e-8, { min: 0 });
    this.centered = checkBool('RMSProp', 'centered', options.centered, false);
    this.clipWeights = optionalNumber('RMSProp', 'clipWeights', options.clipWeights, { min: 0 });
  }

  protected stateTemplate(w: WeightInfo): StateTemplate {
    return this.centered
      ? [slot('n', w.dtype), slot('g', w.dtype), slot('delta', w.dtype)]
      : [slot('n', w.dtype)];
  }

  protected step(index: ParamIndex, weight: NDArray, grad: NDArray, state: OptimizerState, nd: Nd): void {
    this.updateCount(index);
    const p = {
      lr: this.getLr(index),
      wd: this.getWd(index),
      gamma1: this.gamma1,
      epsilon: this.epsilon,
      rescale_grad: this.rescaleGrad,
      ...this.fusedClip(),
      ...(this.clipWeights ? { clip_weights: this.clipWeights } : {}),
      out: weight,
    };
    const s = state as readonly NDArray[];
    if (!this.centered) nd.rmsprop_update(weight, grad, s[0] as NDArray, p);
    else {
      nd.rmspropalex_update(weight, grad, s[0] as NDArray, s[1] as NDArray, s[2] as NDArray, {
        ...p,
        gamma2: this.gamma2,
      });
    }
  }
}

export interface AdaGradOptions extends OptimizerOptions {
  /** Added to the history inside the square root (default 1e-7). */
  readonly eps?: number;
}

/**
 * AdaGrad (Duchi et al.), dense form of MXNet's Python: `g = clip(rescaleGrad*grad)`,
 * `history += g^2`, `w += (g/sqrt(history + eps) + wd*w) * -lr`. State: the history array, in the
 * weight's storage type. A row_sparse gradient takes MXNet's sparse branch,
 * `_sparse_adagrad_update` on its rows only (`history += g^2; w -= lr*g/sqrt(history + eps)`),
 * which supports no weight decay: wd ≠ 0 is an MXNetError there, as in MXNet.
 */
export class AdaGrad extends Optimizer {
  readonly eps: number;

  constructor(options: AdaGradOptions = {}) {
    super('AdaGrad', options, { keys: ['eps'] });
    this.eps = checkNumber('AdaGrad', 'eps', options.eps ?? 1e-7, { min: 0 });
  }

  protected stateTemplate(w: WeightInfo): StateTemplate {
    return slot('history', w.dtype, { stype: stateStorageOf(w) });
  }

  protected step(index: ParamIndex, weight: NDArray, grad: NDArray, state: OptimizerState, nd: Nd): void {
    this.updateCount(index);
    const lr = this.getLr(index);
    const wd = this.getWd(index);
    const history = state as NDArray;
    if (grad.stype === 'row_sparse') {
      const p = { lr, wd, epsilon: this.eps, rescale_grad: this.rescaleGrad, ...this.fusedClip() };
      fusedUpdate(nd, '_sparse_adagrad_update', [weight, grad, history], p, weight);
      return;
    }
    let g = nd._mul_scalar(grad, { scalar: this.rescaleGrad });
    if (this.clipGradient !== undefined)
      g = nd.clip(g, { a_min: -this.clipGradient, a_max: this.clipGradient });
    const newHistory = nd.elemwise_add(history, nd.square(g));
    const div = nd.elemwise_div(g, nd.sqrt(nd._plus_scalar(newHistory, { scalar: this.eps })));
    const delta = nd._mul_scalar(nd.elemwise_add(div, nd._mul_scalar(weight, { scalar: wd })), {
      scalar: -lr,
    });
    const newWeight = nd.elemwise_add(weight, delta);
    nd._copyto(newHistory, { out: history });
    nd._copyto(newWeight, { out: weight });
  }
}

export interface AdaDeltaOptions extends OptimizerOptions {
  /** Decay of both accumulators (default 0.9). */
  readonly rho?: number;
  /** Added inside the square roots (default 1e-5). */
  readonly epsilon?: number;
}

/**
 * AdaDelta (Zeiler 2012) as MXNet 1.x runs it: `g = clip(rescaleGrad*grad)`, accumulators of g^2
 * and delta^2, `w -= delta + wd*w`. The learning rate (and any scheduler) is not used, as in 1.x.
 * State `[acc_g, acc_delta]`. Unlike MXNet, the caller's gradient is not scaled in place.
 */
export class AdaDelta extends Optimizer {
  readonly rho: number;
  readonly epsilon: number;

  constructor(options: AdaDeltaOptions = {}) {
    super('AdaDelta', options, { keys: ['rho', 'epsilon'] });
    this.rho = checkNumber('AdaDelta', 'rho', options.rho ?? 0.9, decay);
    this.epsilon = checkNumber('AdaDelta', 'epsilon', options.epsilon ?? 1e-5, { min: 0 });
  }

  protected stateTemplate(w: WeightInfo): StateTemplate {
    return [slot('acc_g', w.dtype), slot('acc_delta', w.dtype)];
  }

  protected step(index: ParamIndex, weight: NDArray, grad: NDArray, state: OptimizerState, nd: Nd): void {
    const wd = this.getWd(index);
    this.updateCount(index);
    const [accG, accDelta] = state as readonly [NDArray, NDArray];
    const s = (a: NDArray, scalar: number) => nd._mul_scalar(a, { scalar });
    let g = s(grad, this.rescaleGrad);
    if (this.clipGradient !== undefined)
      g = nd.clip(g, { a_min: -this.clipGradient, a_max: this.clipGradient });
    const newAccG = nd.elemwise_add(s(accG, this.rho), nd.elemwise_mul(s(g, 1 - this.rho), g));
    const root = (a: NDArray) => nd.sqrt(nd._plus_scalar(a, { scalar: this.epsilon }));
    const delta = nd.elemwise_mul(nd.elemwise_div(root(accDelta), root(newAccG)), g);
    const newAccDelta = nd.elemwise_add(
      s(accDelta, this.rho),
      nd.elemwise_mul(s(delta, 1 - this.rho), delta),
    );
    const newWeight = nd.elemwise_sub(weight, nd.elemwise_add(delta, s(weight, wd)));
    nd._copyto(newAccG, { out: accG });
    nd._copyto(newAccDelta, { out: accDelta });
    nd._copyto(newWeight, { out: weight });
  }
}

export interface FtrlOptions extends OptimizerOptions {
  /** L1 regularization (default 0.01). */
  readonly lamda1?: number;
  /** Per-coordinate rate parameter (default 1). */
  readonly beta?: number;
}

/** `learningRate` stays with Ftrl itself (MXNet does not pass it to the base class). */
function withoutLearningRate(options: FtrlOptions): FtrlOptions {
  const { learningRate: _lr, ...rest } = options;
  return rest;
}

/**
 * FTRL-Proximal (McMahan et al.), `ftrl_update`: state `[z, n]`, in the weight's storage type.
 * A row_sparse weight with a row_sparse gradient updates only the gradient's rows (MXNet's sparse
 * kernel); a dense weight takes the standard update (MXNet's dense fallback). Default learning
 * rate 0.1. As in MXNet, `learningRate` is kept by Ftrl rather than given to the base class, so it
 * never overwrites a scheduler's baseLr (with a scheduler, the scheduler's rate is used).
 */
export class Ftrl extends Optimizer {
  readonly lamda1: number;
  readonly beta: number;

  constructor(options: FtrlOptions = {}) {
    super('Ftrl', withoutLearningRate(options), { keys: ['lamda1', 'beta'] });
    this.lamda1 = checkNumber('Ftrl', 'lamda1', options.lamda1 ?? 0.01, { min: 0 });
    this.beta = checkNumber('Ftrl', 'beta', options.beta ?? 1, { min: 0 });
    const lr = checkNumber('Ftrl', 'learningRate', options.learningRate ?? 0.1);
    if (this.lrScheduler === undefined) this.setLearningRate(lr);
  }

  protected stateTemplate(w: WeightInfo): StateTemplate {
    const stype = stateStorageOf(w);
    return [slot('z', w.dtype, { stype }), slot('n', w.dtype, { stype })];
  }

  protected step(index: ParamIndex, weight: NDArray, grad: NDArray, state: OptimizerState, nd: Nd): void {
    this.updateCount(index);
    const wd = this.getWd(index);
    const lr = this.getLr(index);
    const [z, n] = state as readonly [NDArray, NDArray];
    const p = {
      lr,
      wd,
      lamda1: this.lamda1,
      beta: this.beta,
      rescale_grad: this.rescaleGrad,
      ...this.fusedClip(),
    };
    fusedUpdate(nd, 'ftrl_update', [weight, grad, z, n], p, weight);
  }
}
