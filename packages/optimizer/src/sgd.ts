/**
 * The SGD family (MXNet 1.x optimizer.py): SGD, NAG, Signum and LARS. Each update is one fused op
 * (`sgd_update`, `sgd_mom_update`, their `mp_` forms, `nag_mom_update`, `signsgd_update`,
 * `signum_update`) called with `out: weight`, exactly as MXNet's Python calls them, including which
 * keyword arguments it leaves out (momentum when 0, clip_gradient when 0 or unset).
 *
 * Row_sparse gradients (MXNet 1.x): SGD passes them to the fused ops with `lazy_update`; its
 * momentum is row_sparse for a row_sparse weight when `lazyUpdate` (else dense, which makes the
 * update standard), and MXNet's lazy-update note is logged when the op would log it.
 *
 * LARS has no fused single-weight op in MXNet: its 1.x code reads the weight and gradient norms back
 * to the host. Here the layer-wise rate `lr * eta * |w| / (|g| * rescale + wd * |w| + eps)` (MXNet's
 * `multi_lars` kernel) is a one-element array computed on the device, and the momentum update is
 * composed from NDArray ops with that array as the rate, so the update stays asynchronous.
 */
import type { NDArray, Nd } from '@mx/ndarray';
import { checkBool, checkNumber, type ParamIndex } from './checks.js';
import {
  Optimizer,
  type OptimizerOptions,
  type OptimizerState,
  type StateTemplate,
  slot,
  type WeightInfo,
} from './optimizer.js';
import { fusedUpdate, LAZY_UPDATE_NOTE, stateStorageOf } from './sparse.js';

const unit = { min: 0, max: 1 } as const;

export interface SGDOptions extends OptimizerOptions {
  /** Momentum (default 0: no state). */
  readonly momentum?: number;
  /**
   * Lazy updates for row_sparse gradients (default true): only the gradient's rows of the weight
   * and momentum change, weight decay included. Dense gradients always get the standard update.
   */
  readonly lazyUpdate?: boolean;
}

/**
 * SGD with momentum and weight decay: `mom = momentum*mom - lr*(clip(rescaleGrad*grad) + wd*w);
 * w += mom` (without momentum `w = (1 - lr*wd)*w - lr*clip(rescaleGrad*grad)`). With
 * `multiPrecision`, float16 weights use `mp_sgd[_mom]_update` and a state `[mom, weight32]`.
 */
export class SGD extends Optimizer {
  readonly momentum: number;
  readonly lazyUpdate: boolean;

  constructor(options: SGDOptions = {}) {
    super('SGD', options, { keys: ['momentum', 'lazyUpdate'] });
    this.momentum = checkNumber('SGD', 'momentum', options.momentum ?? 0, unit);
    this.lazyUpdate = checkBool('SGD', 'lazyUpdate', options.lazyUpdate, true);
  }

  protected override get masterCopyLast(): boolean {
    return true;
  }

  protected stateTemplate(w: WeightInfo): StateTemplate {
    if (this.momentum === 0) return null;
    return slot('momentum', w.dtype, { stype: this.lazyUpdate ? stateStorageOf(w) : 'default' });
  }

  #params(index: ParamIndex) {
    this.updateCount(index);
    return {
      lr: this.getLr(index),
      wd: this.getWd(index),
      rescale_grad: this.rescaleGrad,
      ...(this.momentum > 0 ? { momentum: this.momentum } : {}),
      ...this.fusedClip(),
    };
  }

  protected step(index: ParamIndex, weight: NDArray, grad: NDArray, state: OptimizerState, nd: Nd): void {
    const p = { ...this.#params(index), lazy_update: this.lazyUpdate };
    if (grad.stype === 'row_sparse') {
      // MXNet's storage inference: sgd_update notes a lazy update with wd != 0, sgd_mom_update
      // any lazy update (the momentum has the weight's storage type).
      const lazy = state === null ? p.wd !== 0 : (state as NDArray).stype === weight.stype;
      if (this.lazyUpdate && lazy && weight.stype !== 'csr') this.logOnce(LAZY_UPDATE_NOTE);
      const inputs = state === null ? [weight, grad] : [weight, grad, state as NDArray];
      fusedUpdate(nd, state === null ? 'sgd_update' : 'sgd_mom_update', inputs, p, weight);
      return;
    }
    if (state !== null) nd.sgd_mom_update(weight, grad, state as NDArray, { ...p, out: weight });
    else nd.sgd_update(weight, grad, { ...p, out: weight });
  }

  protected override stepMultiPrecision(
    index: ParamIndex,
    weight: NDArray,
    grad: NDArray,
    state: OptimizerState,
    nd: Nd,
  ): void {
    const [master, mom] = this.splitMasterCopy(state);
    const p = { ...this.#params(index), out: weight };
    if (mom !== null) nd.mp_sgd_mom_update(weight, grad, mom as NDArray, master, p);
    else nd.mp_sgd_update(weight, grad, master, p);
  }
}

export interface NAGOptions extends OptimizerOptions {
  /** Momentum (default 0: plain SGD, no state). */
  readonly momentum?: number;
}

/**
 * Nesterov accelerated gradient (`nag_mom_update`): `g = clip(rescaleGrad*grad) + wd*w;
 * mom' = momentum*mom - lr*g; w += momentum*mom' - lr*g` in MXNet's kernel's arrangement. Without
 * momentum it is SGD. Multi-precision: the generic float32 update of `[mom, weight32]`.
 */
export class NAG extends Optimizer {
  readonly momentum: number;

  constructor(options: NAGOptions = {}) {
    super('NAG', options, { keys: ['momentum'] });
    this.momentum = checkNumber('NAG', 'momentum', options.momentum ?? 0, unit);
  }

  protected override get masterCopyLast(): boolean {
    return true;
  }

  protected stateTemplate(w: WeightInfo): StateTemplate {
    return this.momentum !== 0 ? slot('momentum', w.dtype) : null;
  }

  protected step(index: ParamIndex, weight: NDArray, grad: NDArray, state: OptimizerState, nd: Nd): void {
    this.updateCount(index);
    const p = {
      lr: this.getLr(index),
      wd: this.getWd(index),
      rescale_grad: this.rescaleGrad,
      ...this.fusedClip(),
      out: weight,
    };
    if (state !== null) nd.nag_mom_update(weight, grad, state as NDArray, { ...p, momentum: this.momentum });
    else nd.sgd_update(weight, grad, p);
  }
}

export interface SignumOptions extends OptimizerOptions {
  /** Momentum (default 0.9; 0 gives signSGD, no state). */
  readonly momentum?: number;
  /** Decoupled weight decay applied outside the sign (default 0). */
  readonly wdLh?: number;
}

/**
 * Signum (`signum_update`): `mom = momentum*mom - (1-momentum)*(wd*w + clip(rescaleGrad*grad));
 * w = (1 - lr*wdLh)*w + lr*sign(mom)`; with momentum 0, signSGD (`signsgd_update`, which ignores
 * rescaleGrad and clipGradient). Default learning rate 0.01.
 */
export class Signum extends Optimizer {
  readonly momentum: number;
  readonly wdLh: number;

  constructor(options: SignumOptions = {}) {
    super('Signum', options, { keys: ['momentum', 'wdLh'], learningRate: 0.01 });
    this.momentum = checkNumber('Signum', 'momentum', options.momentum ?? 0.9, unit);
    this.wdLh = checkNumber('Signum', 'wdLh', options.wdLh ?? 0, { min: 0 });
  }

  protected stateTemplate(w: WeightInfo): StateTemplate {
    return this.momentum !== 0 ? slot('momentum', w.dtype) : null;
  }

  protected step(index: ParamIndex, weight: NDArray, grad: NDArray, state: OptimizerState, nd: Nd): void {
    this.updateCount(index);
    const p = {
      lr: this.getLr(index),
      wd: this.getWd(index),
      rescale_grad: this.rescaleGrad,
      ...(this.momentum > 0 ? { momentum: this.momentum } : {}),
      ...this.fusedClip(),
      out: weight,
    };
    if (state !== null)
      nd.signum_update(weight, grad, state as NDArray, this.wdLh ? { ...p, wd_lh: this.wdLh } : p);
    else nd.signsgd_update(weight, grad, p);
  }
}

export interface LARSOptions extends OptimizerOptions {
  /** Momentum (default 0). */
  readonly momentum?: number;
  /** Kept for MXNet compatibility (default true); dense gradients always get the standard update. */
  readonly lazyUpdate?: boolean;
  /** The LARS coefficient (default 0.001). */
  readonly eta?: number;
  /** Added to the denominator of the layer-wise rate (default 0). */
  readonly eps?: number;
  /** Scale momentum by the rate change between updates (Goyal et al.; default true). */
  readonly momentumCorrection?: boolean;
}

/**
 * LARS (You et al. 2017): SGD whose rate, for every parameter whose name does not end in `gamma`,
 * `beta` or `bias`, is scaled by `eta*|w| / (|rescaleGrad*g| + wd*|w| + eps)` (1 when a norm is 0).
 * Only `*_weight` names keep weight decay (LARS's own `set_wd_mult`). Multi-precision states are
 * `[mom, weight32]`, updated in float32.
 */
export class LARS extends Optimizer {
  readonly momentum: number;
  readonly lazyUpdate: boolean;
  readonly eta: number;
  readonly eps: number;
  readonly momentumCorrection: boolean;
  #curLr: number | null = null;
  #lastLr: number | null = null;

  constructor(options: LARSOptions = {}) {
    super('LARS', options, { keys: ['momentum', 'lazyUpdate', 'eta', 'eps', 'momentumCorrection'] });
    this.momentum = checkNumber('LARS', 'momentum', options.momentum ?? 0, unit);
    this.lazyUpdate = checkBool('LARS', 'lazyUpdate', options.lazyUpdate, true);
    this.eta = checkNumber('LARS', 'eta', options.eta ?? 0.001, { min: 0 });
    this.eps = checkNumber('LARS', 'eps', options.eps ?? 0, { min: 0 });
    this.momentumCorrection = checkBool('LARS', 'momentumCorrection', options.momentumCorrection, true);
  }

  protected override get masterCopyLast(): boolean {
    return true;
  }

  protected override keepsWeightDecay(name: string): boolean {
    return name.endsWith('_weight');
  }

  protected override getExtraProgress(): Record<string, number | null> {
    return { curLr: this.#curLr, lastLr: this.#lastLr };
  }

  protected override setExtraProgress(extra: Readonly<Record<string, number | null>>): void {
    this.#curLr = extra.curLr ?? null;
    this.#lastLr = extra.lastLr ?? null;
  }

  protected stateTemplate(w: WeightInfo): StateTemplate {
    if (this.momentum === 0) return null;
    return slot('momentum', w.dtype, { stype: this.lazyUpdate ? stateStorageOf(w) : 'default' });
  }

  protected step(index: ParamIndex, weight: NDArray, grad: NDArray, state: OptimizerState, nd: Nd): void {
    this.updateCount(index);
    // MXNet's LARS._get_lrs: remember the previous and current base rate for momentum correction.
    const base = this.baseLearningRate();
    this.#lastLr = this.#curLr ?? base;
    this.#curLr = base;
    const lr = this.getLrs([index], base)[0] as number;
    const wd = this.getWd(index);
    let momentum = this.momentum;
    if (momentum > 0 && this.momentumCorrection && this.#lastLr !== 0) momentum *= this.#curLr / this.#lastLr;
    const name = this.idx2name.get(index) ?? String(index);
    if (/(gamma|beta|bias)$/.test(name)) {
      const p = {
        lr,
        wd,
        rescale_grad: this.rescaleGrad,
        ...(momentum > 0 ? { momentum } : {}),
        ...this.fusedClip(),
        lazy_update: this.lazyUpdate,
      };
      const inputs = state !== null ? [weight, grad, state as NDArray] : [weight, grad];
      fusedUpdate(nd, state !== null ? 'sgd_mom_update' : 'sgd_update', inputs, p, weight);
      return;
    }
    // The layer-wise rate as a (1,) float32 array (multi_lars), broadcast over the weight.
    const f32 = (a: NDArray) => (a.dtype === 'float32' ? a : nd.Cast(a, { dtype: 'float32' }));
    const wNorm = nd.norm(f32(weight));
    const gNorm = nd._mul_scalar(nd.norm(f32(grad)), { scalar: this.rescaleGrad });
    const denom = nd._plus_scalar(nd.elemwise_add(gNorm, nd._mul_scalar(wNorm, { scalar: wd })), {
      scalar: this.eps,
    });
    const ratio = nd.elemwise_div(nd._mul_scalar(wNorm, { scalar: this.eta }), denom);
    const valid = nd.elemwise_mul(
      nd._greater_scalar(wNorm, { scalar: 0 }),
      nd._greater_scalar(gNorm, { scalar: 0 }),
    );
    let rate = nd._mul_scalar(nd.where(valid, ratio, nd.onesLike(ratio)), { scalar: lr });
    if (weight.dtype !== 'float32') rate = nd.Cast(rate, { dtype: weight.dtype });
    rate = rate.reshape(weight.shape.map(() => 1));
    // sgd(_mom)_update with that rate: step = rate * (wd*w + clip(rescaleGrad*grad)).
    let g = nd._mul_scalar(grad, { scalar: this.rescaleGrad });
    if (this.clipGradient) g = nd.clip(g, { a_min: -this.clipGradient, a_max: this.clipGradient });
    const stepArr = nd.broadcast_mul(nd.elemwise_add(nd._mul_scalar(weight, { scalar: wd }), g), rate);
    if (state !== null) {
      const mom = state as NDArray;
      const newMom = nd.elemwise_sub(nd._mul_scalar(mom, { scalar: momentum }), stepArr);
      const newWeight = nd.elemwise_add(weight, newMom);
      nd._copyto(newMom, { out: mom });
      nd._copyto(newWeight, { out: weight });
    } else {
      nd._copyto(nd.elemwise_sub(weight, stepArr), { out: weight });
    }
  }
}
