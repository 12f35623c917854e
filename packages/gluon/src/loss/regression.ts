/**
 * Element-wise losses of MXNet 2.0's gluon.loss: L2, L1, Huber, (squared) hinge, logistic and
 * Poisson negative log-likelihood. Each reshapes the label to the prediction's shape, computes one
 * value per element with MXNet's formula (its operators, in its order, so float32 results round as
 * MXNet's do), weights it and averages every axis but the batch axis.
 */
import { MXNetError } from '@mx/base';
import type { NDArray } from '@mx/ndarray';
import { checkChoice, Loss, type LossOptions } from './loss.js';

/**
 * Half the squared error: `L = 1/2 Σ (label - pred)²`, averaged over non-batch axes (MXNet
 * `L2Loss`). Its weight defaults to 1 and is applied as `weight / 2`.
 */
export class L2Loss extends Loss {
  constructor(options: LossOptions = {}) {
    super({ weight: 1, ...options });
  }

  forward(pred: NDArray, label: NDArray, sampleWeight?: NDArray): NDArray {
    const y = this.reshapeLike(label, pred);
    const loss = y.sub(pred).square();
    return this.batchMean(this.applyWeighting(loss, sampleWeight, (this.weight ?? 1) / 2));
  }
}

/** The absolute error `L = Σ |label - pred|`, averaged over non-batch axes (MXNet `L1Loss`). */
export class L1Loss extends Loss {
  forward(pred: NDArray, label: NDArray, sampleWeight?: NDArray): NDArray {
    const y = this.reshapeLike(label, pred);
    return this.batchMean(this.applyWeighting(y.sub(pred).abs(), sampleWeight));
  }
}

export interface HuberLossOptions extends LossOptions {
  /** Where the quadratic part ends (MXNet `rho`, default 1). */
  readonly rho?: number;
}

/**
 * Smoothed L1: `(label - pred)² / (2 rho)` where `|label - pred| <= rho`, else
 * `|label - pred| - rho / 2` (MXNet `HuberLoss`).
 */
export class HuberLoss extends Loss {
  readonly rho: number;

  constructor(options: HuberLossOptions = {}) {
    super(options);
    this.rho = options.rho ?? 1;
    if (!(this.rho > 0)) {
      throw new MXNetError(`rho must be positive, got ${this.rho}`, {
        op: 'HuberLoss',
        params: { rho: this.rho },
      });
    }
  }

  forward(pred: NDArray, label: NDArray, sampleWeight?: NDArray): NDArray {
    const nd = pred.runtime.nd;
    const d = this.reshapeLike(label, pred).sub(pred).abs();
    const loss = nd.where(d.greater(this.rho), d.sub(0.5 * this.rho), d.square().mul(0.5 / this.rho));
    return this.batchMean(this.applyWeighting(loss, sampleWeight));
  }
}

export interface MarginLossOptions extends LossOptions {
  /** The margin (MXNet `margin`, default 1). */
  readonly margin?: number;
}

/** The SVM hinge loss `L = Σ max(0, margin - pred · label)` for labels ±1 (MXNet `HingeLoss`). */
export class HingeLoss extends Loss {
  readonly margin: number;

  constructor(options: MarginLossOptions = {}) {
    super(options);
    this.margin = options.margin ?? 1;
  }

  forward(pred: NDArray, label: NDArray, sampleWeight?: NDArray): NDArray {
    const nd = pred.runtime.nd;
    const y = this.reshapeLike(label, pred);
    const loss = nd.relu(nd._rminus_scalar(pred.mul(y), { scalar: this.margin }));
    return this.batchMean(this.applyWeighting(loss, sampleWeight));
  }
}

/** The soft-margin SVM loss `L = Σ max(0, margin - pred · label)²` (MXNet `SquaredHingeLoss`). */
export class SquaredHingeLoss extends Loss {
  readonly margin: number;

  constructor(options: MarginLossOptions = {}) {
    super(options);
    this.margin = options.margin ?? 1;
  }

  forward(pred: NDArray, label: NDArray, sampleWeight?: NDArray): NDArray {
    const nd = pred.runtime.nd;
    const y = this.reshapeLike(label, pred);
    const loss = nd.relu(nd._rminus_scalar(pred.mul(y), { scalar: this.margin })).square();
    return this.batchMean(this.applyWeighting(loss, sampleWeight));
  }
}

export interface LogisticLossOptions extends LossOptions {
  /** Labels are -1/1 (`'signed'`, default) or 0/1 (`'binary'`) (MXNet `label_format`). */
  readonly labelFormat?: 'signed' | 'binary';
}

/**
 * The logistic loss `L = Σ log(1 + exp(-pred · label))` (MXNet `LogisticLoss`), computed with the
 * stable `max(pred, 0) - pred · z + log(1 + exp(-|pred|))`, z the label as 0/1.
 */
export class LogisticLoss extends Loss {
  readonly labelFormat: 'signed' | 'binary';

  constructor(options: LogisticLossOptions = {}) {
    super(options);
    this.labelFormat = options.labelFormat ?? 'signed';
    checkChoice('LogisticLoss', 'labelFormat', this.labelFormat, ['signed', 'binary']);
  }

  forward(pred: NDArray, label: NDArray, sampleWeight?: NDArray): NDArray {
    let z = this.reshapeLike(label, pred);
    if (this.labelFormat === 'signed') z = z.add(1).div(2);
    return this.batchMean(this.applyWeighting(stableLogistic(pred, z), sampleWeight));
  }
}

/** `relu(x) - x · z + softrelu(-|x|)`: -log σ(x)·z - log(1 - σ(x))·(1 - z) without overflow. */
export function stableLogistic(x: NDArray, z: NDArray): NDArray {
  const nd = x.runtime.nd;
  const soft = nd.Activation(x.abs().neg(), { act_type: 'softrelu' });
  return nd.relu(x).sub(x.mul(z)).add(soft);
}

export interface PoissonNLLLossOptions extends LossOptions {
  /** `pred` is the log of the rate (default true): `exp(pred) - target · pred` (MXNet `from_logits`). */
  readonly fromLogits?: boolean;
  /** Add Stirling's approximation of `log(target!)` where target > 1 (MXNet `compute_full`). */
  readonly computeFull?: boolean;
  /** Added to the rate inside the log when `fromLogits` is false (MXNet's forward `epsilon`, 1e-8). */
  readonly epsilon?: number;
}

/**
 * The negative log-likelihood of a Poisson target (MXNet `PoissonNLLLoss`): per sample, as MXNet
 * 2.0 returns it (1.x returned the mean over the batch).
 */
export class PoissonNLLLoss extends Loss {
  readonly fromLogits: boolean;
  readonly computeFull: boolean;
  readonly epsilon: number;

  constructor(options: PoissonNLLLossOptions = {}) {
    super(options);
    this.fromLogits = options.fromLogits ?? true;
    this.computeFull = options.computeFull ?? false;
    this.epsilon = options.epsilon ?? 1e-8;
  }

  forward(pred: NDArray, target: NDArray, sampleWeight?: NDArray): NDArray {
    const nd = pred.runtime.nd;
    const t = this.reshapeLike(target, pred, ['target', 'pred']);
    let loss = this.fromLogits ? pred.exp().sub(t.mul(pred)) : pred.sub(t.mul(pred.add(this.epsilon).log()));
    if (this.computeFull) {
      // target·log(target) - target + ½·log(2·target·π), only where target > 1. MXNet multiplies
      // by the mask, which leaves NaN (0 · -inf) where target is 0; selecting keeps it 0.
      const stirling = t.mul(t.log()).sub(t).add(t.mul(2).mul(Math.PI).log().mul(0.5));
      loss = loss.add(nd.where(t.greater(1), stirling, nd.zeros_like(stirling)));
    }
    return this.batchMean(this.applyWeighting(loss, sampleWeight));
  }
}
