/**
 * Gluon's metric-learning losses (MXNet 2.0 gluon.loss): triplet, cosine embedding and SDML. They
 * compare embeddings rather than a prediction with a label, so their inputs are two or three
 * arrays of embeddings; each still returns one value per sample.
 */
import { MXNetError, shapeToString } from '@mx/base';
import type { NDArray } from '@mx/ndarray';
import { KLDivLoss } from './classification.js';
import { Loss, type LossOptions } from './loss.js';
import type { MarginLossOptions } from './regression.js';

/**
 * The triplet loss `L = max(‖positive - pred‖² - ‖negative - pred‖² + margin, 0)`, the squared
 * distances summed over every axis but the batch axis (MXNet `TripletLoss`, default margin 1).
 * `sampleWeight` multiplies the per-sample loss, so it has shape (batch_size,).
 */
export class TripletLoss extends Loss {
  readonly margin: number;

  constructor(options: MarginLossOptions = {}) {
    super(options);
    this.margin = options.margin ?? 1;
  }

  forward(pred: NDArray, positive: NDArray, negative: NDArray, sampleWeight?: NDArray): NDArray {
    const nd = pred.runtime.nd;
    const pos = this.reshapeLike(positive, pred, ['positive', 'pred']);
    const neg = this.reshapeLike(negative, pred, ['negative', 'pred']);
    const dist = this.batchSum(pos.sub(pred).square().sub(neg.sub(pred).square()));
    return this.applyWeighting(nd.relu(dist.add(this.margin)), sampleWeight);
  }
}

/**
 * The cosine embedding loss (MXNet `CosineEmbeddingLoss`): `1 - cos(input1, input2)` where the
 * label is 1, `clip(cos - margin, 0, 1 - margin)` otherwise (labels are 1 or -1), the cosine taken
 * along the last axis with the norms' product floored at 1e-12.
 */
export class CosineEmbeddingLoss extends Loss {
  readonly margin: number;

  /** The margin defaults to 0. */
  constructor(options: MarginLossOptions = {}) {
    super(options);
    this.margin = options.margin ?? 0;
  }

  forward(input1: NDArray, input2: NDArray, label: NDArray, sampleWeight?: NDArray): NDArray {
    const nd = input1.runtime.nd;
    const x = this.reshapeLike(input1, input2, ['input1', 'input2']);
    const cos = cosineSimilarity(x, input2);
    const y = this.reshapeLike(label, cos, ['label', 'one cosine per row of input2']);
    const unlike = nd.clip(cos.sub(this.margin), { a_min: 0, a_max: 1 - this.margin });
    const loss = nd.where(y.equal(1), nd._rminus_scalar(cos, { scalar: 1 }), unlike);
    return this.batchMean(this.applyWeighting(loss, sampleWeight));
  }
}

/** `x·y / max(‖x‖‖y‖, 1e-12)` along the last axis, as a column (rows, 1). */
function cosineSimilarity(x: NDArray, y: NDArray): NDArray {
  const nd = x.runtime.nd;
  const xNorm = nd.norm(x, { axis: -1 }).reshape([-1, 1]);
  const yNorm = nd.norm(y, { axis: -1 }).reshape([-1, 1]);
  const dot = nd.sum(x.mul(y), { axis: -1 }).reshape([-1, 1]);
  return dot.div(xNorm.mul(yNorm).maximum(1e-12));
}

export interface SDMLLossOptions extends LossOptions {
  /** Probability mass spread over the other samples of the batch (MXNet `smoothing_parameter`, 0.3). */
  readonly smoothingParameter?: number;
}

/**
 * Batch-wise Smoothed Deep Metric Learning loss (MXNet `SDMLLoss`; Bonadiman et al., 2019): the
 * KL divergence between the softmax of minus the squared distances from each `x1[i]` to every
 * `x2[j]` and the identity smoothed by `smoothingParameter`. Row i of x1 and x2 form a positive
 * pair; the other rows are its negatives. As in MXNet, `weight` is accepted but not applied.
 */
export class SDMLLoss extends Loss {
  readonly smoothingParameter: number;
  readonly klLoss = new KLDivLoss({ fromLogits: true });

  constructor(options: SDMLLossOptions = {}) {
    super({ weight: 1, ...options });
    this.smoothingParameter = options.smoothingParameter ?? 0.3;
    if (!(this.smoothingParameter >= 0 && this.smoothingParameter < 1)) {
      throw new MXNetError(`smoothingParameter must be in [0, 1), got ${this.smoothingParameter}`, {
        op: 'SDMLLoss',
        params: { smoothing_parameter: this.smoothingParameter },
      });
    }
  }

  forward(x1: NDArray, x2: NDArray): NDArray {
    const nd = x1.runtime.nd;
    if (
      x1.ndim !== 2 ||
      !(x1.shape.length === x2.shape.length && x1.shape.every((d, i) => d === x2.shape[i]))
    ) {
      throw new MXNetError(
        `x1 and x2 must be batches of vectors of one shape (batch_size, dim), got ${shapeToString(x1.shape)} and ${shapeToString(x2.shape)}`,
        { op: 'SDMLLoss', shapes: [x1.shape, x2.shape] },
      );
    }
    const n = x1.shape[0] as number;
    if (n < 2) {
      throw new MXNetError(`needs at least 2 samples per batch (the others are the negatives), got ${n}`, {
        op: 'SDMLLoss',
        shapes: [x1.shape, x2.shape],
      });
    }
    // Smoothed identity: 1 - s on the diagonal, s / (n - 1) elsewhere.
    const s = this.smoothingParameter;
    const gold = nd._eye({ N: n, dtype: x1.dtype, ctx: x1.ctx });
    const labels = gold.mul(1 - s).add(
      nd
        ._rminus_scalar(gold, { scalar: 1 })
        .mul(s)
        .div(n - 1),
    );
    const diff = nd.expand_dims(x1, { axis: 1 }).sub(nd.expand_dims(x2, { axis: 0 }));
    const distances = nd.sum(diff.square(), { axis: 2 });
    const logp = nd.log_softmax(distances.neg(), { axis: 1 });
    return this.klLoss.forward(logp, labels);
  }
}
