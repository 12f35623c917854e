/**
 * The nn/conv family on webgpu: Convolution and Deconvolution as implicit GEMMs on the linalg
 * tiled skeleton (convolution.ts, conv-gemm.ts), Pooling as direct window kernels (pool.ts).
 */
import type { OpRegistry } from '@mx/ops';
import type { GpuHost } from '../../../kernel.js';
import { installConvolution } from './convolution.js';
import { installPooling } from './pool.js';

export function installConv(registry: OpRegistry, gpu: GpuHost): void {
  installConvolution(registry, gpu);
  installPooling(registry, gpu);
}
