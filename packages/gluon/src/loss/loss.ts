/**
 * The base of Gluon's losses (MXNet 2.0 python/mxnet/gluon/loss.py `Loss`) and the three steps
 * every loss shares: reshaping a label to the prediction's shape (`npx.reshape_like`), weighting
 * (`_apply_weighting`: times the broadcast `sample_weight`, then times the scalar `weight`) and the
 * mean (or sum) over every axis but the batch axis (`_batch_mean` / `_batch_sum`).
 *
 * Losses are HybridBlocks without parameters: `forward` only calls operators on its inputs, reads
 * nothing back from the device and writes into no input, so the same code runs eagerly, under
 * autograd and when traced by `hybridize()`. Shapes are checked before any op runs, so a mismatch
 * is an MXNetError naming the loss and both shapes rather than an operator's message.
 */
import { broadcastShapes, MXNetError, shapeToString } from '@mx/base';
import type { NDArray } from '@mx/ndarray';
import { HybridBlock } from '../block/hybrid-block.js';

/** Options every loss takes (MXNet `weight`, `batch_axis`). */
export interface LossOptions {
  /** Global scalar weight multiplied into the loss (MXNet `weight`); none by default. */
  readonly weight?: number;
  /** The axis that indexes the samples of a mini-batch (MXNet `batch_axis`, default 0). */
  readonly batchAxis?: number;
}

/** Python's `repr` of a number or None, as MXNet prints a loss's weight. */
function pyNumber(v: number | undefined): string {
  if (v === undefined) return 'None';
  return Number.isInteger(v) ? v.toFixed(1) : String(v);
}

/**
 * The base class of losses (MXNet `gluon.loss.Loss`). Subclasses implement `forward(pred, label,
 * ...)` and return one value per sample: an array of shape (batch_size,).
 */
export abstract class Loss extends HybridBlock {
  /** The global scalar weight, or undefined for none. */
  readonly weight: number | undefined;
  /** The axis that indexes samples. */
  readonly batchAxis: number;

  constructor(options: LossOptions = {}) {
    super();
    const { weight, batchAxis = 0 } = options;
    if (weight !== undefined && (typeof weight !== 'number' || Number.isNaN(weight))) {
      throw new MXNetError(`weight must be a number, got ${String(weight)}`, {
        op: new.target.name,
        params: { weight },
        hint: 'pass a number, or leave weight out for no weighting',
      });
    }
    if (!Number.isInteger(batchAxis)) {
      throw new MXNetError(`batchAxis must be an integer, got ${String(batchAxis)}`, {
        op: new.target.name,
        params: { batch_axis: batchAxis },
      });
    }
    this.weight = weight;
    this.batchAxis = batchAxis;
  }

  /** MXNet's repr: `L2Loss(batch_axis=0, w=1.0)`. */
  override toString(): string {
    return `${this.blockName}(batch_axis=${this.batchAxis}, w=${pyNumber(this.weight)})`;
  }

  /**
   * `x` with the shape of `like` (MXNet `npx.reshape_like`); the element counts must agree.
   * `names` say which arguments these are, for the error.
   */
  protected reshapeLike(
    x: NDArray,
    like: NDArray,
    names: readonly [string, string] = ['label', 'pred'],
  ): NDArray {
    if (sameShape(x.shape, like.shape)) return x;
    if (x.size !== like.size) {
      throw new MXNetError(
        `${names[0]} of shape ${shapeToString(x.shape)} cannot be reshaped to the shape of ${names[1]} ${shapeToString(like.shape)}: ${x.size} vs ${like.size} elements`,
        {
          op: this.blockName,
          shapes: [like.shape, x.shape],
          hint: `${names[0]} must have as many elements as ${names[1]}`,
        },
      );
    }
    return x.runtime.nd.reshape_like(x, like);
  }

  /** Checks that `b` broadcasts against `a`, naming the loss and both shapes otherwise. */
  protected checkBroadcast(a: NDArray, b: NDArray, names: readonly [string, string]): void {
    try {
      broadcastShapes(a.shape, b.shape);
    } catch {
      throw new MXNetError(
        `${names[1]} of shape ${shapeToString(b.shape)} does not broadcast to the shape of ${names[0]} ${shapeToString(a.shape)}`,
        {
          op: this.blockName,
          shapes: [a.shape, b.shape],
          hint: 'dimensions must be equal or 1, aligned from the right; for one weight per sample use shape (batch_size, 1)',
        },
      );
    }
  }

  /**
   * MXNet `_apply_weighting`: `loss * sampleWeight` (broadcast), then `* weight`. `weight` defaults
   * to this loss's.
   */
  protected applyWeighting(
    loss: NDArray,
    sampleWeight?: NDArray,
    weight: number | undefined = this.weight,
  ): NDArray {
    let out = loss;
    if (sampleWeight !== undefined) {
      this.checkBroadcast(loss, sampleWeight, ['the loss', 'sampleWeight']);
      out = out.mul(sampleWeight);
    }
    if (weight !== undefined) out = out.mul(weight);
    return out;
  }

  /** MXNet `_batch_mean`: the mean over every axis but the batch axis. */
  protected batchMean(loss: NDArray): NDArray {
    const axes = this.#otherAxes(loss);
    return axes.length === 0 ? loss : loss.runtime.nd.mean(loss, { axis: axes });
  }

  /** MXNet `_batch_sum`: the sum over every axis but the batch axis. */
  protected batchSum(loss: NDArray): NDArray {
    const axes = this.#otherAxes(loss);
    return axes.length === 0 ? loss : loss.runtime.nd.sum(loss, { axis: axes });
  }

  #otherAxes(loss: NDArray): number[] {
    const n = loss.ndim;
    const b = this.batchAxis < 0 ? this.batchAxis + n : this.batchAxis;
    if (b < 0 || b >= n) {
      throw new MXNetError(
        `batchAxis ${this.batchAxis} is out of range for a loss of shape ${shapeToString(loss.shape)}`,
        { op: this.blockName, shapes: [loss.shape], params: { batch_axis: this.batchAxis } },
      );
    }
    const axes: number[] = [];
    for (let d = 0; d < n; d++) if (d !== b) axes.push(d);
    return axes;
  }
}

export function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/** Throws MXNet's assertion for an option outside its allowed values. */
export function checkChoice<T extends string>(
  loss: string,
  name: string,
  value: T,
  allowed: readonly T[],
): void {
  if (!allowed.includes(value)) {
    throw new MXNetError(
      `${name} can only be ${allowed.map((a) => `'${a}'`).join(' or ')}, got '${String(value)}'`,
      { op: loss, params: { [name]: value } },
    );
  }
}
