/**
 * Metrics on predicted probabilities (MXNet 2.0 `gluon.metric`): CrossEntropy, Perplexity, and 1.x's
 * NegativeLogLikelihood (dropped in 2.0, kept here for 1.x code: `'nll_loss'`).
 *
 * CrossEntropy/Perplexity pick the label's probability along `axis` (MXNet `pick`, indices clipped),
 * optionally after a softmax (`fromLogits`), skip labels equal to `ignoreLabel`, and sum
 * -log(max(eps, p)). NegativeLogLikelihood keeps 1.x's -log(p + eps) on (batch, classes) predictions.
 */
import { MXNetError, shapeToString } from '@mx/base';
import { type HostTensor, type MetricOptions, SumMetric } from './base.js';
import { normAxis, pick, softmax } from './host-math.js';

export interface CrossEntropyOptions extends MetricOptions {
  /** Floor of the picked probability (default 1e-12). */
  readonly eps?: number;
  /** Label value excluded from the sum and the count (default none). */
  readonly ignoreLabel?: number | null;
  /** Axis of the classes in the predictions (default -1). */
  readonly axis?: number;
  /** Predictions are logits: take their softmax first (default false). */
  readonly fromLogits?: boolean;
}

/** Cross-entropy: mean over samples of -log p(label). */
export class CrossEntropy extends SumMetric {
  static override readonly mxnetName: string = 'CrossEntropy';
  readonly eps: number;
  readonly ignoreLabel: number | null;
  readonly axis: number;
  readonly fromLogits: boolean;

  constructor(options: CrossEntropyOptions = {}, defaultName = 'cross-entropy') {
    const {
      eps = 1e-12,
      ignoreLabel = null,
      axis = -1,
      fromLogits = false,
      name = defaultName,
      ...rest
    } = options;
    super(name, rest, { eps, ignore_label: ignoreLabel, axis, from_logits: fromLogits });
    if (typeof eps !== 'number' || !(eps >= 0)) {
      throw new MXNetError(`eps must be a number >= 0, got ${String(eps)}`, { op: `metric.${name}` });
    }
    if (!Number.isInteger(axis))
      throw new MXNetError(`axis must be an integer, got ${String(axis)}`, { op: `metric.${name}` });
    this.eps = eps;
    this.ignoreLabel = ignoreLabel;
    this.axis = axis;
    this.fromLogits = fromLogits;
  }

  protected evaluate(label: HostTensor, pred: HostTensor): readonly [number, number] {
    const op = `metric.${this.name}`;
    const a = normAxis(op, this.axis, pred.shape);
    const classes = pred.shape[a] as number;
    if (classes === 0 || label.data.length !== pred.data.length / classes) {
      throw new MXNetError(`shape mismatch: ${shapeToString(label.shape)} vs. ${shapeToString(pred.shape)}`, {
        op,
        shapes: [label.shape, pred.shape],
        hint: `give one label per prediction (predictions have ${classes} classes on axis ${this.axis})`,
      });
    }
    const probs = this.fromLogits ? softmax(op, pred, a) : pred;
    const picked = pick(op, probs, label.data, a);
    let loss = 0;
    let count = 0;
    for (let i = 0; i < picked.length; i++) {
      if (this.ignoreLabel !== null && label.data[i] === this.ignoreLabel) continue;
      loss -= Math.log(Math.max(this.eps, picked[i] as number));
      count++;
    }
    return [loss, count];
  }
}

/** Perplexity: exp of the mean cross-entropy. */
export class Perplexity extends CrossEntropy {
  static override readonly mxnetName = 'Perplexity';

  constructor(options: CrossEntropyOptions = {}) {
    super(options, 'perplexity');
  }

  override get(): [string, number] {
    const [name, ce] = super.get();
    return [name, Math.exp(ce)];
  }

  override getGlobal(): [string, number] {
    const [name, ce] = super.getGlobal();
    return [name, Math.exp(ce)];
  }
}

/** 1.x negative log-likelihood: mean of -log(p[label] + eps) over (batch, classes) predictions. */
export class NegativeLogLikelihood extends SumMetric {
  static override readonly mxnetName = 'NegativeLogLikelihood';
  readonly eps: number;

  constructor(options: MetricOptions & { readonly eps?: number } = {}) {
    const { eps = 1e-12, name = 'nll-loss', ...rest } = options;
    super(name, rest, { eps });
    this.eps = eps;
  }

  protected evaluate(label: HostTensor, pred: HostTensor): readonly [number, number] {
    const op = 'metric.NegativeLogLikelihood';
    const rows = pred.shape[0] ?? 0;
    const classes = rows === 0 ? 0 : pred.data.length / rows;
    if (label.data.length !== rows) {
      throw new MXNetError(`${label.data.length} labels for ${rows} predictions`, {
        op,
        shapes: [label.shape, pred.shape],
        hint: 'give one label per prediction row',
      });
    }
    let nll = 0;
    for (let r = 0; r < rows; r++) {
      const k = Math.trunc(label.data[r] as number);
      if (k < 0 || k >= classes) {
        throw new MXNetError(`label ${k} is out of range for ${classes} classes`, {
          op,
          shapes: [label.shape, pred.shape],
        });
      }
      nll -= Math.log((pred.data[r * classes + k] as number) + this.eps);
    }
    return [nll, rows];
  }
}
