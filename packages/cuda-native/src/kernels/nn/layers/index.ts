/**
 * The nn/layers family on cuda-native: activations and LeakyReLU, the softmax family, the loss
 * output layers, Dropout (webgpu's nn/layers) and Embedding, the Sequence* ops, UpSampling and
 * CTCLoss (webgpu's nn/seq). Each topic is its own file; they share the map kernel (map.ts), the
 * softmax row kernel and block reductions (softmax.ts), the Philox sampler (random.ts) and the
 * plumbing of util.ts. FullyConnected belongs to the linalg family (cuBLAS), as on webgpu.
 */
import type { OpRegistry } from '@mx/ops';
import type { CudaHost } from '../../../kernel.js';
import { installActivations } from './activation.js';
import { installCTC } from './ctc.js';
import { installDropout } from './dropout.js';
import { installEmbedding } from './embedding.js';
import { installOutputs } from './outputs.js';
import { installSequence } from './sequence.js';
import { installSoftmax } from './softmax-ops.js';
import { installUpSampling } from './upsampling.js';

export function installNnLayers(registry: OpRegistry, host: CudaHost): void {
  installActivations(registry, host);
  installSoftmax(registry, host);
  installOutputs(registry, host);
  installDropout(registry, host);
  installEmbedding(registry, host);
  installSequence(registry, host);
  installUpSampling(registry, host);
  installCTC(registry, host);
}
