/**
 * The two AdaGrad updates MXNet has only for row_sparse gradients (FComputeEx, no dense FCompute):
 * `_sparse_adagrad_update` (optimizer_op.cc; Python's `mx.nd.sparse.adagrad_update`, used by the
 * AdaGrad optimizer for row_sparse gradients) and `_contrib_group_adagrad_update`
 * (contrib/optimizer_op.cc, the GroupAdaGrad optimizer's op: one history value per row).
 *
 * Both write the history in place (FMutateInputs {2}) and return the updated weight; like the other
 * updates here they declare (weight, output) in place so optimizers can pass `out=weight`. Their
 * storage inference (storage.ts) refuses what MXNet cannot dispatch, so a bad call fails before any
 * kernel runs. Group adagrad's history must hold one value per weight row (MXNet reads it by row
 * index without checking its shape beyond the first axis; a larger history is refused here).
 */
import { MXNetError, shapeSize, shapeToString } from '@mx/base';
import type { ShapeSlots } from '../../op-def.js';
import { P } from '../../params.js';
import type { OpRegistry } from '../../registry.js';
import { clipParam, lrParam, optimizerTypes, rescaleParam, sameShapes } from './common.js';
import { adagradStorage } from './storage.js';

const INPUTS = ['weight', 'grad', 'history'] as const;
const MUTATED = Object.freeze([2]);
const WEIGHT_INPLACE: readonly (readonly [number, number])[] = Object.freeze([[0, 0] as const]);

/** Group adagrad: weight, grad and output share a shape; the history has the weight's rows, one value each. */
function groupShape(
  attrs: Readonly<Record<string, unknown>>,
  inShapes: ShapeSlots,
  outShapes: ShapeSlots,
): boolean {
  const op = '_contrib_group_adagrad_update';
  const known = sameShapes(op, INPUTS, attrs, inShapes, outShapes, [0, 1]);
  const w = inShapes[0];
  const h = inShapes[2];
  if (w === undefined || h === undefined || !known || h.some((d) => d < 0)) return false;
  if (w.length === 0 || h.length === 0 || h[0] !== w[0] || shapeSize(h) !== w[0]) {
    throw new MXNetError(
      `history must hold one value per weight row: weight ${shapeToString(w)}, history ${shapeToString(h)}`,
      {
        op,
        params: attrs,
        shapes: inShapes.map((x) => x ?? []),
        hint: `create the history with shape (${w[0] ?? 0}, 1), as MXNet's GroupAdaGrad optimizer does`,
      },
    );
  }
  return true;
}

export function registerAdagradUpdates(registry: OpRegistry): void {
  registry.define({
    name: '_sparse_adagrad_update',
    doc:
      'AdaGrad update for row_sparse gradients: g = clip(rescale_grad*grad), history += g^2, ' +
      'weight -= lr*g/sqrt(history + epsilon), on the rows in grad.indices only. Non-zero values ' +
      'for the weight decay option are not supported.',
    params: {
      lr: lrParam(),
      epsilon: P.float({ default: 1e-7, doc: 'epsilon' }),
      wd: P.float({ default: 0, doc: 'weight decay' }),
      rescale_grad: rescaleParam(),
      clip_gradient: clipParam(),
    },
    numInputs: 3,
    listInputNames: INPUTS,
    mutateInputs: () => MUTATED,
    inplaceOption: () => WEIGHT_INPLACE,
    inferShape: (attrs, inShapes, outShapes) =>
      sameShapes('_sparse_adagrad_update', INPUTS, attrs, inShapes, outShapes, [0, 1, 2]),
    inferType: (_attrs, inTypes, outTypes) =>
      optimizerTypes('_sparse_adagrad_update', INPUTS, inTypes, outTypes, [0, 1, 2]),
    inferStorageType: adagradStorage('_sparse_adagrad_update', false),
    // Sparse kernels only (MXNet registers FComputeEx alone): dense calls reach the refusal.
    sparseFromDense: () => true,
  });
  registry.define({
    name: '_contrib_group_adagrad_update',
    doc:
      'Group AdaGrad update (one learning rate per row): g = clip(rescale_grad*grad), ' +
      'history += mean(g^2, axis=1, keepdims=True), weight -= lr*g/sqrt(history + epsilon). ' +
      'Weights are updated lazily (the rows in grad.indices) with a row_sparse gradient. Non-zero ' +
      'values for the weight decay option are not supported.',
    params: {
      lr: lrParam(),
      rescale_grad: rescaleParam(),
      clip_gradient: clipParam(),
      epsilon: P.float({ default: 1e-5, doc: 'Epsilon for numerical stability' }),
    },
    numInputs: 3,
    listInputNames: INPUTS,
    mutateInputs: () => MUTATED,
    inplaceOption: () => WEIGHT_INPLACE,
    inferShape: groupShape,
    inferType: (_attrs, inTypes, outTypes) =>
      optimizerTypes('_contrib_group_adagrad_update', INPUTS, inTypes, outTypes, [0, 1, 2]),
    inferStorageType: adagradStorage('_contrib_group_adagrad_update', true),
    sparseFromDense: () => true,
  });
}
