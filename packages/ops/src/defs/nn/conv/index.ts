/**
 * Convolution-family operator definitions (MXNet src/operator/nn/{convolution,deconvolution,
 * pooling}*): each forward op with its explicit `_backward_*` op, as MXNet registers them, so the
 * gradient is one kernel call per layer. One file per op; common.ts holds the parameter
 * normalisation and slot merging they share.
 */
import type { OpRegistry } from '../../../registry.js';
import { registerConvolution } from './convolution.js';
import { registerDeconvolution } from './deconvolution.js';
import { registerPooling } from './pooling.js';

export function registerConvPool(registry: OpRegistry): void {
  registerConvolution(registry);
  registerDeconvolution(registry);
  registerPooling(registry);
}
