/**
 * The NN layer operators (MXNet src/operator/nn/{fully_connected,activation,softmax,dropout}*,
 * leaky_relu*, softmax_output*, regression_output*): one file per kind, each with its backward op.
 */
import type { OpRegistry } from '../../../registry.js';
import { registerActivations } from './activation.js';
import { registerDropout } from './dropout.js';
import { registerFullyConnected } from './fully-connected.js';
import { registerOutputs } from './output.js';
import { registerSoftmax } from './softmax.js';

export function registerLayers(registry: OpRegistry): void {
  registerFullyConnected(registry);
  registerActivations(registry);
  registerSoftmax(registry);
  registerOutputs(registry);
  registerDropout(registry);
}
