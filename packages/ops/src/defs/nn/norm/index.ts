/**
 * Normalisation layers (MXNet src/operator/nn/{batch_norm,layer_norm,group_norm}.cc and the legacy
 * instance_norm-inl.h): BatchNorm, LayerNorm, GroupNorm, InstanceNorm and their `_backward_*` ops.
 * One file per op kind; common.ts holds the shape/type checks they share.
 */
import type { OpRegistry } from '../../../registry.js';
import { registerBatchNorm } from './batch-norm.js';
import { registerGroupNorm } from './group-norm.js';
import { registerLayerNorm } from './layer-norm.js';

export { BATCH_NORM_PARAMS, bnParamType } from './batch-norm.js';
export { GROUP_NORM_PARAMS, INSTANCE_NORM_PARAMS } from './group-norm.js';
export { LAYER_NORM_PARAMS } from './layer-norm.js';

export function registerNorm(registry: OpRegistry): void {
  registerBatchNorm(registry);
  registerLayerNorm(registry);
  registerGroupNorm(registry);
}
