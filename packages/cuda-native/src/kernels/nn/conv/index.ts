/**
 * The nn/conv family on cuda-native: Convolution and Deconvolution as im2col/col2im kernels plus
 * cuBLAS GEMMs (convolution.ts, conv-gemm.ts), Pooling as direct window kernels (pool.ts), and the
 * normalisation layers BatchNorm, LayerNorm, GroupNorm and InstanceNorm (norm.ts), each with its
 * backward op, in float32 and float64 as cpu-wasm runs them.
 */
import type { OpRegistry } from '@mx/ops';
import type { CudaHost } from '../../../kernel.js';
import { installConvolution } from './convolution.js';
import { installNorm } from './norm.js';
import { installPooling } from './pool.js';

export function installNnConv(registry: OpRegistry, host: CudaHost): void {
  installConvolution(registry, host);
  installPooling(registry, host);
  installNorm(registry, host);
}
