/**
 * Neural-network operator definitions (MXNet `src/operator/nn/*`), one folder per kind so each can
 * be read alone: layers/ (FullyConnected, activations, softmax family, output layers, Dropout,
 * Embedding, sequence ops, UpSampling, CTCLoss), conv/ (Convolution, Deconvolution, Pooling) and
 * norm/ (BatchNorm, LayerNorm, InstanceNorm, GroupNorm) and seq/ (Embedding, Sequence*, UpSampling, CTCLoss).
 */

import type { OpRegistry } from '../../registry.js';
import { registerConvPool } from './conv/index.js';
import { registerLayers } from './layers/index.js';
import { registerNorm } from './norm/index.js';
import { registerSeq } from './seq/index.js';

export function registerNN(registry: OpRegistry): void {
  registerLayers(registry);
  registerConvPool(registry);
  registerNorm(registry);
  registerSeq(registry);
}
