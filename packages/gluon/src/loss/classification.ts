/**
 * Gluon's classification losses (MXNet 2.0 gluon.loss): sigmoid binary cross-entropy, softmax
 * cross-entropy, KL divergence and CTC. The formulas and their operators are MXNet's — the stable
 * log-sum-exp form of BCE, `log_softmax` + `pick` for sparse labels, `log(label + 1e-12)` in the KL
 * divergence, the `CTCLoss` operator with the last channel as blank — so values and gradients match
 * MXNet's, including under `hybridize()`.
 */
import { MXNetError, shapeToString } from '@mx/base';
import type { NDArray } from '@mx/ndarray';
import { checkChoice, Loss, type LossOptions, sameShape } from './loss.js';
import { stableLogistic } from './regression.js';

export interface SigmoidBCELossOptions extends LossOptions {
  /** `pred` already went through a sigmoid (MXNet `from_sigmoid`, default false: logits). */
  readonly fromSigmoid?: boolean;
}

/**
 * Binary cross-entropy of sigmoid outputs (MXNet `SigmoidBinaryCrossEntropyLoss`, alias
 * `SigmoidBCELoss`): `-Σ label · log(p) · posWeight + (1 - label) · log(1 - p)`. From logits it is
 * computed in the stable form `max(x, 0) - x · z + log(1 + exp(-|x|))`; from probabilities with
 * 1e-12 added inside each log.
 */
export class SigmoidBinaryCrossEntropyLoss extends Loss {
  readonly fromSigmoid: boolean;

  constructor(options: SigmoidBCELossOptions = {}) {
    super(options);
    this.fromSigmoid = options.fromSigmoid ?? false;
  }

  /**
   * @param sampleWeight element-wise weight, broadcast to the loss (for one weight per sample of a
   *   (64, 10) prediction, shape (64, 1)).
   * @param posWeight weight of the positive term, broadcast against the label (for 10 classes,
   *   shape (1, 10)).
   */
  forward(pred: NDArray, label: NDArray, sampleWeight?: NDArray, posWeight?: NDArray): NDArray {
    const nd = pred.runtime.nd;
    const z = this.reshapeLike(label, pred);
    if (posWeight !== undefined) this.checkBroadcast(z, posWeight, ['label', 'posWeight']);
    let loss: NDArray;
    if (!this.fromSigmoid) {
      if (posWeight === undefined) {
        loss = stableLogistic(pred, z);
      } else {
        // x - x·z + (1 + (posWeight - 1)·z) · (log(1 + exp(-|x|)) + max(-x, 0))
        const logWeight = posWeight.sub(1).mul(z).add(1);
        const soft = nd.Activation(pred.abs().neg(), { act_type: 'softrelu' }).add(nd.relu(pred.neg()));
        loss = pred.sub(pred.mul(z)).add(logWeight.mul(soft));
      }
    } else {
      const eps = 1e-12;
      let pos = pred.add(eps).log().mul(z);
      if (posWeight !== undefined) pos = pos.mul(posWeight);
      const neg = nd
        ._rminus_scalar(pred, { scalar: 1 })
        .add(eps)
        .log()
        .mul(nd._rminus_scalar(z, { scalar: 1 }));
      loss = pos.add(neg).neg();
    }
    return this.batchMean(this.applyWeighting(loss, sampleWeight));
  }
}

/** MXNet's alias of {@link SigmoidBinaryCrossEntropyLoss}. */
export const SigmoidBCELoss = SigmoidBinaryCrossEntropyLoss;

export interface SoftmaxCELossOptions extends LossOptions {
  /** The class axis of `pred` (MXNet `axis`, default -1). */
  readonly axis?: number;
  /** Labels are class indices (default) rather than distributions (MXNet `sparse_label`). */
  readonly sparseLabel?: boolean;
  /** `pred` is already log-probabilities (MXNet `from_logits`, default false). */
  readonly fromLogits?: boolean;
}

/**
 * Softmax cross-entropy (MXNet `SoftmaxCrossEntropyLoss`, alias `SoftmaxCELoss`):
 * `-log softmax(pred)[label]` for class-index labels (the shape of `pred` without `axis`), or
 * `-Σ label · log softmax(pred)` for distributions (the shape of `pred`). Indices outside the class
 * range are clipped to it, as MXNet's `pick` does.
 */
export class SoftmaxCrossEntropyLoss extends Loss {
  readonly axis: number;
  readonly sparseLabel: boolean;
  readonly fromLogits: boolean;

  constructor(options: SoftmaxCELossOptions = {}) {
    super(options);
    this.axis = options.axis ?? -1;
    this.sparseLabel = options.sparseLabel ?? true;
    this.fromLogits = options.fromLogits ?? false;
    if (!Number.isInteger(this.axis)) {
      throw new MXNetError(`axis must be an integer, got ${this.axis}`, {
        op: this.blockName,
        params: { axis: this.axis },
      });
    }
  }

  forward(pred: NDArray, label: NDArray, sampleWeight?: NDArray): NDArray {
    const nd = pred.runtime.nd;
    const axis = this.#classAxis(pred);
    const logp = this.fromLogits ? pred : nd.log_softmax(pred, { axis });
    let loss: NDArray;
    if (this.sparseLabel) {
      this.#checkSparseLabel(pred, label, axis);
      loss = nd.pick(logp, label, { axis, keepdims: true }).neg();
    } else {
      const y = this.reshapeLike(label, pred);
      loss = nd.sum(logp.mul(y), { axis, keepdims: true }).neg();
    }
    return this.batchMean(this.applyWeighting(loss, sampleWeight));
  }

  #classAxis(pred: NDArray): number {
    const n = pred.ndim;
    const a = this.axis < 0 ? this.axis + n : this.axis;
    if (a < 0 || a >= n) {
      throw new MXNetError(
        `axis ${this.axis} is out of range for pred of shape ${shapeToString(pred.shape)}`,
        {
          op: this.blockName,
          shapes: [pred.shape],
          params: { axis: this.axis },
        },
      );
    }
    return a;
  }

  #checkSparseLabel(pred: NDArray, label: NDArray, axis: number): void {
    const reduced = pred.shape.filter((_, i) => i !== axis);
    const kept = pred.shape.map((d, i) => (i === axis ? 1 : d));
    if (sameShape(label.shape, reduced) || sameShape(label.shape, kept)) return;
    throw new MXNetError(
      `with sparse labels, label must have the shape of pred without axis ${this.axis}: expected ${shapeToString(reduced)} for pred of shape ${shapeToString(pred.shape)}, got label of shape ${shapeToString(label.shape)}`,
      {
        op: this.blockName,
        shapes: [pred.shape, label.shape],
        params: { axis: this.axis, sparse_label: true },
        hint: 'pass class indices, or set sparseLabel: false for label distributions of the shape of pred',
      },
    );
  }
}

/** MXNet's alias of {@link SoftmaxCrossEntropyLoss}. */
export const SoftmaxCELoss = SoftmaxCrossEntropyLoss;

export interface KLDivLossOptions extends LossOptions {
  /** `pred` is already log-probabilities (MXNet `from_logits`, default true). */
  readonly fromLogits?: boolean;
  /** The axis of the softmax when `fromLogits` is false (MXNet `axis`, default -1). */
  readonly axis?: number;
}

/**
 * Kullback-Leibler divergence `L = Σ label · (log(label) - log p)` (MXNet `KLDivLoss`), p the
 * softmax of `pred` along `axis`, or `pred` itself as log-probabilities when `fromLogits`. As in
 * MXNet, `label` is not reshaped: it must broadcast against `pred`.
 */
export class KLDivLoss extends Loss {
  readonly fromLogits: boolean;
  readonly axis: number;

  constructor(options: KLDivLossOptions = {}) {
    super(options);
    this.fromLogits = options.fromLogits ?? true;
    this.axis = options.axis ?? -1;
  }

  forward(pred: NDArray, label: NDArray, sampleWeight?: NDArray): NDArray {
    const nd = pred.runtime.nd;
    this.checkBroadcast(pred, label, ['pred', 'label']);
    const logp = this.fromLogits ? pred : nd.log_softmax(pred, { axis: this.axis });
    const loss = label.mul(label.add(1e-12).log().sub(logp));
    return this.batchMean(this.applyWeighting(loss, sampleWeight));
  }
}

export interface CTCLossOptions {
  /** Layout of `pred`: batch N, time T, alphabet C (MXNet `layout`, default 'NTC'). */
  readonly layout?: 'NTC' | 'TNC';
  /** Layout of `label` (MXNet `label_layout`, default 'NT'); the batch axis is where N is. */
  readonly labelLayout?: 'NT' | 'TN';
  /** Global scalar weight (MXNet `weight`). */
  readonly weight?: number;
}

/**
 * Connectionist Temporal Classification loss (MXNet `CTCLoss`), one value per sequence. `pred`
 * holds unnormalised activations whose last channel (alphabet_size - 1) is the blank; `label`
 * holds zero-based labels padded with -1. Optional `predLengths` / `labelLengths` (batch_size,)
 * give each sequence's length.
 */
export class CTCLoss extends Loss {
  readonly layout: 'NTC' | 'TNC';
  readonly labelLayout: 'NT' | 'TN';

  constructor(options: CTCLossOptions = {}) {
    const layout = options.layout ?? 'NTC';
    const labelLayout = options.labelLayout ?? 'NT';
    checkChoice('CTCLoss', 'layout', layout, ['NTC', 'TNC']);
    checkChoice('CTCLoss', 'labelLayout', labelLayout, ['NT', 'TN']);
    super({ weight: options.weight, batchAxis: labelLayout.indexOf('N') });
    this.layout = layout;
    this.labelLayout = labelLayout;
  }

  forward(
    pred: NDArray,
    label: NDArray,
    predLengths?: NDArray,
    labelLengths?: NDArray,
    sampleWeight?: NDArray,
  ): NDArray {
    const nd = pred.runtime.nd;
    this.#checkShapes(pred, label);
    const data = this.layout === 'NTC' ? nd.swapaxes(pred, { dim1: 0, dim2: 1 }) : pred;
    const labels = this.batchAxis === 1 ? nd.swapaxes(label, { dim1: 0, dim2: 1 }) : label;
    const inputs = [data, labels];
    if (predLengths !== undefined) inputs.push(predLengths);
    if (labelLengths !== undefined) inputs.push(labelLengths);
    const ctc = nd.CTCLoss as unknown as (...args: unknown[]) => NDArray;
    const loss = ctc(...inputs, {
      use_data_lengths: predLengths !== undefined,
      use_label_lengths: labelLengths !== undefined,
      blank_label: 'last',
    });
    return this.applyWeighting(loss, sampleWeight);
  }

  #checkShapes(pred: NDArray, label: NDArray): void {
    const fail = (what: string) =>
      new MXNetError(
        `${what} (pred ${shapeToString(pred.shape)} in layout ${this.layout}, label ${shapeToString(label.shape)} in layout ${this.labelLayout})`,
        {
          op: 'CTCLoss',
          shapes: [pred.shape, label.shape],
          params: { layout: this.layout, label_layout: this.labelLayout },
        },
      );
    if (pred.ndim !== 3) throw fail('pred must have 3 dimensions');
    if (label.ndim !== 2) throw fail('label must have 2 dimensions');
    const n = pred.shape[this.layout.indexOf('N')];
    if (label.shape[this.batchAxis] !== n) throw fail('pred and label have different batch sizes');
  }
}
