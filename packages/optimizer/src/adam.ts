/**
 * The Adam family: Adam, AdamW, Adamax, Nadam and LAMB, each following MXNet's Python exactly.
 *
 * Adam, AdamW and LAMB call MXNet's fused ops (`adam_update` with the bias correction folded into
 * lr; 2.0's AdamW fused step `_adamw_update(..., lr=1, eta=lr)` with rescale_grad as a one-element
 * array; `lamb_update_phase1` + the two norms + `lamb_update_phase2`). Adamax and Nadam have no
 * fused op in MXNet, whose Python composes NDArray ops; so do we, in the same operation order. A
 * composed update computes every new value into temporaries first and copies them into the state
 * and weight last, so an op that fails midway has written nothing.
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
import { fusedUpdate, LAZY_UPDATE_NOTE, type StateStorage, stateStorageOf } from './sparse.js';

const beta = { min: 0, max: 1, maxExclusive: true } as const;

/** Mean and variance in the weight's dtype (and storage type, for Adam's lazy updates). */
function meanVar(w: WeightInfo, stype: StateStorage = 'default'): StateTemplate {
  return [slot('mean', w.dtype, { stype }), slot('var', w.dtype, { stype })];
}

function pair(state: OptimizerState): [NDArray, NDArray] {
  const s = state as readonly NDArray[];
  return [s[0] as NDArray, s[1] as NDArray];
}

export interface AdamOptions extends OptimizerOptions {
  /** Decay of the first moment (default 0.9). */
  readonly beta1?: number;
  /** Decay of the second moment (default 0.999). */
  readonly beta2?: number;
  /** Added to the square root of the second moment (default 1e-8). */
  readonly epsilon?: number;
  /**
   * Lazy updates for row_sparse gradients (default true): only the gradient's rows of the weight,
   * mean and var change. Dense gradients always get the standard update.
   */
  readonly lazyUpdate?: boolean;
}

/**
 * Adam (`adam_update`): `g = clip(rescaleGrad*grad + wd*w)`, moments, and
 * `w -= lr*sqrt(1-beta2^t)/(1-beta1^t) * m/(sqrt(v) + epsilon)` with t the parameter's update count.
 * Default learning rate 0.001 (as in MXNet, it overrides a scheduler's baseLr unless given).
 */
export class Adam extends Optimizer {
  readonly beta1: number;
  readonly beta2: number;
  readonly epsilon: number;
  readonly lazyUpdate: boolean;

  constructor(options: AdamOptions = {}) {
    super('Adam', options, { keys: ['beta1', 'beta2', 'epsilon', 'lazyUpdate'], learningRate: 0.001 });
    this.beta1 = checkNumber('Adam', 'beta1', options.beta1 ?? 0.9, beta);
    this.beta2 = checkNumber('Adam', 'beta2', options.beta2 ?? 0.999, beta);
    this.epsilon = checkNumber('Adam', 'epsilon', options.epsilon ?? 1e-8, { min: 0 });
    this.lazyUpdate = checkBool('Adam', 'lazyUpdate', options.lazyUpdate, true);
  }

  protected stateTemplate(w: WeightInfo): StateTemplate {
    return meanVar(w, this.lazyUpdate ? stateStorageOf(w) : 'default');
  }

  protected step(index: ParamIndex, weight: NDArray, grad: NDArray, state: OptimizerState, nd: Nd): void {
    const t = this.updateCount(index);
    const lr = (this.getLr(index) * Math.sqrt(1 - this.beta2 ** t)) / (1 - this.beta1 ** t);
    const [mean, variance] = pair(state);
    const p = {
      lr,
      wd: this.getWd(index),
      beta1: this.beta1,
      beta2: this.beta2,
      epsilon: this.epsilon,
      rescale_grad: this.rescaleGrad,
      ...this.fusedClip(),
      lazy_update: this.lazyUpdate,
    };
    if (grad.stype === 'row_sparse') {
      // MXNet's storage inference notes every lazy update (mean and var of the weight's storage type).
      if (this.lazyUpdate && mean.stype === weight.stype && weight.stype !== 'csr')
        this.logOnce(LAZY_UPDATE_NOTE);
      fusedUpdate(nd, 'adam_update', [weight, grad, mean, variance], p, weight);
    } else nd.adam_update(weight, grad, mean, variance, { ...p, out: weight });
  }
}

export interface AdamWOptions extends OptimizerOptions {
  readonly beta1?: number;
  readonly beta2?: number;
  /** Default 1e-6 (MXNet 2.0's AdamW). */
  readonly epsilon?: number;
  /** Fold Adam's bias correction into the rate (default true). */
  readonly correctBias?: boolean;
}

/**
 * AdamW, decoupled weight decay (MXNet 2.0 `AdamW` fused step over `_adamw_update`):
 * `g = clip(rescaleGrad*grad)`, moments, `w -= eta*(m/(sqrt(v) + epsilon) + wd*w)` with
 * `eta = lr*sqrt(1-beta2^t)/(1-beta1^t)` (or lr without `correctBias`). rescaleGrad goes to the op
 * as a one-element float32 array. Multi-precision uses `_mp_adamw_update` on `[weight32, [mean, var]]`.
 */
export class AdamW extends Optimizer {
  readonly beta1: number;
  readonly beta2: number;
  readonly epsilon: number;
  readonly correctBias: boolean;

  constructor(options: AdamWOptions = {}) {
    super('AdamW', options, { keys: ['beta1', 'beta2', 'epsilon', 'correctBias'], learningRate: 0.001 });
    this.beta1 = checkNumber('AdamW', 'beta1', options.beta1 ?? 0.9, beta);
    this.beta2 = checkNumber('AdamW', 'beta2', options.beta2 ?? 0.999, beta);
    this.epsilon = checkNumber('AdamW', 'epsilon', options.epsilon ?? 1e-6, { min: 0 });
    this.correctBias = checkBool('AdamW', 'correctBias', options.correctBias, true);
  }

  protected stateTemplate(w: WeightInfo): StateTemplate {
    return meanVar(w);
  }

  #params(index: ParamIndex, weight: NDArray, nd: Nd) {
    const t = this.updateCount(index);
    let eta = this.getLr(index);
    if (this.correctBias) eta = (eta * Math.sqrt(1 - this.beta2 ** t)) / (1 - this.beta1 ** t);
    const rescale = nd.full([1], this.rescaleGrad, { ctx: weight.ctx });
    const params = {
      lr: 1,
      wd: this.getWd(index),
      eta,
      beta1: this.beta1,
      beta2: this.beta2,
      epsilon: this.epsilon,
      ...this.fusedClip(),
      out: weight,
    };
    return { rescale, params };
  }

  protected step(index: ParamIndex, weight: NDArray, grad: NDArray, state: OptimizerState, nd: Nd): void {
    const [mean, variance] = pair(state);
    const { rescale, params } = this.#params(index, weight, nd);
    nd._adamw_update(weight, grad, mean, variance, rescale, params);
  }

  protected override stepMultiPrecision(
    index: ParamIndex,
    weight: NDArray,
    grad: NDArray,
    state: OptimizerState,
    nd: Nd,
  ): void {
    const [master, inner] = this.splitMasterCopy(state);
    const [mean, variance] = pair(inner);
    const { rescale, params } = this.#params(index, weight, nd);
    nd._mp_adamw_update(weight, grad, mean, variance, master, rescale, params);
  }
}

export interface AdamaxOptions extends OptimizerOptions {
  readonly beta1?: number;
  readonly beta2?: number;
}

/**
 * Adamax (Kingma & Ba §7), composed as MXNet's Python does: `g = clip(rescaleGrad*grad + wd*w)`,
 * `m = beta1*m + (1-beta1)*g`, `u = max(beta2*u, |g|)`, `w -= lr/(1-beta1^t) * m/u`. Default rate 0.002.
 */
export class Adamax extends Optimizer {
  readonly beta1: number;
  readonly beta2: number;

  constructor(options: AdamaxOptions = {}) {
    super('Adamax', options, { keys: ['beta1', 'beta2'], learningRate: 0.002 });
    this.beta1 = checkNumber('Adamax', 'beta1', options.beta1 ?? 0.9, beta);
    this.beta2 = checkNumber('Adamax', 'beta2', options.beta2 ?? 0.999, beta);
  }

  protected stateTemplate(w: WeightInfo): StateTemplate {
    return meanVar(w);
  }

  protected step(index: ParamIndex, weight: NDArray, grad: NDArray, state: OptimizerState, nd: Nd): void {
    const t = this.updateCount(index);
    const lr = this.getLr(index) / (1 - this.beta1 ** t);
    const wd = this.getWd(index);
    const [m, u] = pair(state);
    let g = nd.elemwise_add(
      nd._mul_scalar(grad, { scalar: this.rescaleGrad }),
      nd._mul_scalar(weight, { scalar: wd }),
    );
    if (this.clipGradient !== undefined)
      g = nd.clip(g, { a_min: -this.clipGradient, a_max: this.clipGradient });
    const newM = nd.elemwise_add(
      nd._mul_scalar(m, { scalar: this.beta1 }),
      nd._mul_scalar(g, { scalar: 1 - this.beta1 }),
    );
    const newU = nd._maximum(nd._mul_scalar(u, { scalar: this.beta2 }), nd.abs(g));
    const newW = nd.elemwise_sub(weight, nd.elemwise_div(nd._mul_scalar(newM, { scalar: lr }), newU));
    nd._copyto(newM, { out: m });
    nd._copyto(newU, { out: u });
    nd._copyto(newW, { out: weight });
  }
}

export interface NadamOptions extends OptimizerOptions {
  readonly beta1?: number;
  readonly beta2?: number;
  /** Default 1e-8. */
  readonly epsilon?: number;
  /** Decay of the momentum schedule (default 0.004). */
  readonly scheduleDecay?: number;
}

/**
 * Nadam (Dozat 2016), composed as MXNet 1.x's Python does (weight decay added to the rescaled
 * gradient before clipping). As in MXNet, the momentum schedule product is one value for the whole
 * optimizer, advanced by every update of every parameter. Default learning rate 0.001.
 */
export class Nadam extends Optimizer {
  readonly beta1: number;
  readonly beta2: number;
  readonly epsilon: number;
  readonly scheduleDecay: number;
  #mSchedule = 1;

  constructor(options: NadamOptions = {}) {
    super('Nadam', options, { keys: ['beta1', 'beta2', 'epsilon', 'scheduleDecay'], learningRate: 0.001 });
    this.beta1 = checkNumber('Nadam', 'beta1', options.beta1 ?? 0.9, beta);
    this.beta2 = checkNumber('Nadam', 'beta2', options.beta2 ?? 0.999, beta);
    this.epsilon = checkNumber('Nadam', 'epsilon', options.epsilon ?? 1e-8, { min: 0 });
    this.scheduleDecay = checkNumber('Nadam', 'scheduleDecay', options.scheduleDecay ?? 0.004, { min: 0 });
  }

  /** The product of the momentum schedule so far (MXNet `m_schedule`). */
  get mSchedule(): number {
    return this.#mSchedule;
  }

  protected override getExtraProgress(): Record<string, number | null> {
    return { mSchedule: this.#mSchedule };
  }

  protected override setExtraProgress(extra: Readonly<Record<string, number | null>>): void {
    this.#mSchedule = extra.mSchedule ?? 1;
  }

  protected stateTemplate(w: WeightInfo): StateTemplate {
    return meanVar(w);
  }

  protected step(index: ParamIndex, weight: NDArray, grad: NDArray, state: OptimizerState, nd: Nd): void {
    const t = this.updateCount(index);
    const lr = this.getLr(index);
    const wd = this.getWd(index);
    const { beta1: b1, beta2: b2 } = this;
    const [m, v] = pair(state);
    const s = (a: NDArray, scalar: number) => nd._mul_scalar(a, { scalar });
    let g = nd.elemwise_add(s(grad, this.rescaleGrad), s(weight, wd));
    if (this.clipGradient !== undefined)
      g = nd.clip(g, { a_min: -this.clipGradient, a_max: this.clipGradient });
    const momT = b1 * (1 - 0.5 * 0.96 ** (t * this.scheduleDecay));
    const momT1 = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * this.scheduleDecay));
    this.#mSchedule *= momT;
    const mScheduleNext = this.#mSchedule * momT1;
    const newM = nd.elemwise_add(s(m, b1), s(g, 1 - b1));
    const newV = nd.elemwise_add(s(v, b2), nd.elemwise_mul(s(g, 1 - b2), g));
    const gPrime = nd._div_scalar(g, { scalar: 1 - this.#mSchedule });
    const mPrime = nd._div_scalar(newM, { scalar: 1 - mScheduleNext });
    const vPrime = nd._div_scalar(newV, { scalar: 1 - b2 ** t });
    const mBar = nd.elemwise_add(s(gPrime, 1 - momT), s(mPrime, momT1));
    const denom = nd._plus_scalar(nd.sqrt(vPrime), { scalar: this.epsilon });
    const newW = nd.elemwise_sub(weight, nd.elemwise_div(s(mBar, lr), denom));
    nd._copyto(newM, { out: m });
    nd._copyto(newV, { out: v });
    nd._copyto(newW, { out: weight });
  }
}

export interface LAMBOptions extends OptimizerOptions {
  readonly beta1?: number;
  readonly beta2?: number;
  /** Default 1e-6. */
  readonly epsilon?: number;
  /** Lower clamp of the weight norm (off when unset or 0, as MXNet passes it only when truthy). */
  readonly lowerBound?: number | null;
  /** Upper clamp of the weight norm (off when unset or 0). */
  readonly upperBound?: number | null;
  /** Divide the moments by 1 - beta^t (default true). */
  readonly biasCorrection?: boolean;
}

/**
 * LAMB (You et al. 2019): `lamb_update_phase1` gives the Adam direction plus `wd*w`, and
 * `lamb_update_phase2` steps by `lr * |w|/|direction|` (the weight norm clamped to the bounds; ratio
 * 1 when a norm is 0). Both norms stay on the device. Default learning rate 0.001.
 */
export class LAMB extends Optimizer {
  readonly beta1: number;
  readonly beta2: number;
  readonly epsilon: number;
  readonly lowerBound: number | undefined;
  readonly upperBound: number | undefined;
  readonly biasCorrection: boolean;

  constructor(options: LAMBOptions = {}) {
    super('LAMB', options, {
      keys: ['beta1', 'beta2', 'epsilon', 'lowerBound', 'upperBound', 'biasCorrection'],
      learningRate: 0.001,
    });
    this.beta1 = checkNumber('LAMB', 'beta1', options.beta1 ?? 0.9, beta);
    this.beta2 = checkNumber('LAMB', 'beta2', options.beta2 ?? 0.999, beta);
    this.epsilon = checkNumber('LAMB', 'epsilon', options.epsilon ?? 1e-6, { min: 0 });
    this.lowerBound = optionalNumber('LAMB', 'lowerBound', options.lowerBound, { min: 0 });
    this.upperBound = optionalNumber('LAMB', 'upperBound', options.upperBound, { min: 0 });
    this.biasCorrection = checkBool('LAMB', 'biasCorrection', options.biasCorrection, true);
  }

  protected stateTemplate(w: WeightInfo): StateTemplate {
    return meanVar(w);
  }

  protected step(index: ParamIndex, weight: NDArray, grad: NDArray, state: OptimizerState, nd: Nd): void {
    const t = this.updateCount(index);
    const lr = this.getLr(index);
    const wd = this.getWd(index);
    const [mean, variance] = pair(state);
    const g = nd.lamb_update_phase1(weight, grad, mean, variance, {
      beta1: this.beta1,
      beta2: this.beta2,
      epsilon: this.epsilon,
      bias_correction: this.biasCorrection,
      rescale_grad: this.rescaleGrad,
      t,
      wd,
      ...this.fusedClip(),
    });
    nd.lamb_update_phase2(weight, g, nd.norm(weight), nd.norm(g), {
      lr,
      ...(this.lowerBound ? { lower_bound: this.lowerBound } : {}),
      ...(this.upperBound ? { upper_bound: this.upperBound } : {}),
      out: weight,
    });
  }
}
