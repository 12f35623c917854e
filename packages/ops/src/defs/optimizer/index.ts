/**
 * The optimizer family: MXNet's fused update operators (sgd, momentum, nag, adam, adamw, rmsprop,
 * ftrl, sign, lamb; single-weight, mixed-precision and aggregated `multi_*` forms), multi_sum_sq,
 * and the row_sparse-only AdaGrad updates. They are not differentiable (no gradient) and write
 * their optimizer states in place (`mutateInputs`); the output is the updated weight. single.ts
 * holds the one-weight ops, multi.ts the aggregated ones, adagrad.ts `_sparse_adagrad_update` and
 * `_contrib_group_adagrad_update`, storage.ts the storage inference for row_sparse gradients, and
 * common.ts the shared parameters and inference.
 */
import type { OpRegistry } from '../../registry.js';
import { registerAdagradUpdates } from './adagrad.js';
import { registerMultiUpdates } from './multi.js';
import { registerSingleUpdates } from './single.js';

export function registerOptimizer(registry: OpRegistry): void {
  registerSingleUpdates(registry);
  registerMultiUpdates(registry);
  registerAdagradUpdates(registry);
}
