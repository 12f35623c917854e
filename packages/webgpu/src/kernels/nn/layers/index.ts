/**
 * The nn/layers family on webgpu: activations and LeakyReLU, Dropout, the softmax family and the
 * loss output layers. Each topic is its own file; they share the map kernel (map.ts), the softmax
 * row kernel (softmax.ts) and the WGSL math library (math.ts). FullyConnected is another helper's.
 */
import type { OpRegistry } from '@mx/ops';
import type { GpuHost } from '../../../kernel.js';
import { installActivations } from './activation.js';
import { installDropout } from './dropout.js';
import { installOutputs } from './outputs.js';
import { installSoftmax } from './softmax-ops.js';

export function installLayers(registry: OpRegistry, gpu: GpuHost): void {
  installActivations(registry, gpu);
  installSoftmax(registry, gpu);
  installOutputs(registry, gpu);
  installDropout(registry, gpu);
}
