/**
 * GroupAdaGrad (MXNet 1.9.1 python/mxnet/optimizer/contrib.py, registered as `groupadagrad`):
 * AdaGrad with one learning rate per row, for embedding-like 2-D weights. Its state is a history
 * of shape (rows, 1) in the weight's storage type. A row_sparse gradient takes the fused
 * `_contrib_group_adagrad_update` (only the gradient's rows change); a dense one is composed from
 * NDArray ops in MXNet's Python order, new values computed into temporaries and copied into the
 * history and weight last. Weight decay is not supported: wd ≠ 0 is an MXNetError with MXNet's
 * assertion text, raised before anything changes.
 */
import { MXNetError } from '@mx/base';
import type { NDArray, Nd } from '@mx/ndarray';
import { checkNumber, describeParam, type ParamIndex } from './checks.js';
import {
  Optimizer,
  type OptimizerOptions,
  type OptimizerState,
  type StateTemplate,
  slot,
  type WeightInfo,
} from './optimizer.js';
import { fusedUpdate, stateStorageOf } from './sparse.js';

export interface GroupAdaGradOptions extends OptimizerOptions {
  /** Added to the history inside the square root (default 1e-5). */
  readonly eps?: number;
}

/**
 * `grad = clip(grad * rescaleGrad)`, `history += mean(square(grad), axis=1, keepdims=True)`,
 * `weight -= lr * grad / sqrt(history + eps)`; lazily (the gradient's rows) for row_sparse gradients.
 */
export class GroupAdaGrad extends Optimizer {
  readonly eps: number;

  constructor(options: GroupAdaGradOptions = {}) {
    super('GroupAdaGrad', options, { keys: ['eps'] });
    this.eps = checkNumber('GroupAdaGrad', 'eps', options.eps ?? 1e-5, { min: 0 });
  }

  protected stateTemplate(w: WeightInfo): StateTemplate {
    if (w.shape.length !== 2) {
      throw new MXNetError(`GroupAdaGrad updates 2-D weights, got shape (${w.shape.join(', ')})`, {
        op: 'GroupAdaGrad.createState',
        shapes: [w.shape],
        hint: 'use GroupAdaGrad for embedding-like (rows, columns) weights, AdaGrad otherwise',
      });
    }
    return slot('history', w.dtype, { shape: [w.shape[0] as number, 1], stype: stateStorageOf(w) });
  }

  protected step(index: ParamIndex, weight: NDArray, grad: NDArray, state: OptimizerState, nd: Nd): void {
    this.updateCount(index);
    const lr = this.getLr(index);
    const wd = this.getWd(index);
    if (wd !== 0) {
      throw new MXNetError('Weight decay is not supported for GroupAdaGrad', {
        op: 'GroupAdaGrad.update',
        params: { wd },
        hint: `${describeParam(index, this.idx2name.get(index))} has wd ${wd}: create GroupAdaGrad with wd 0 (and wd multipliers 0)`,
      });
    }
    const history = state as NDArray;
    if (grad.stype === 'row_sparse') {
      const p = { lr, epsilon: this.eps, rescale_grad: this.rescaleGrad, ...this.fusedClip() };
      fusedUpdate(nd, '_contrib_group_adagrad_update', [weight, grad, history], p, weight);
      return;
    }
    let g = nd._mul_scalar(grad, { scalar: this.rescaleGrad });
    if (this.clipGradient !== undefined)
      g = nd.clip(g, { a_min: -this.clipGradient, a_max: this.clipGradient });
    const newHistory = nd.elemwise_add(history, nd.mean(nd.square(g), { axis: 1, keepdims: true }));
    const root = nd.sqrt(nd._plus_scalar(newHistory, { scalar: this.eps }));
    const div = nd.broadcast_div(nd._mul_scalar(g, { scalar: lr }), root);
    const newWeight = nd.elemwise_sub(weight, div);
    nd._copyto(newHistory, { out: history });
    nd._copyto(newWeight, { out: weight });
  }
}
