/**
 * The linalg family on webgpu: dot, batch_dot, _linalg_gemm2, _backward_dot and FullyConnected
 * (+ its backward), all on one tiled GEMM shader skeleton (tiled-gemm.ts) that the convolutions
 * (nn/conv) reuse as implicit GEMMs.
 */
import type { OpRegistry } from '@mx/ops';
import type { GpuHost } from '../../kernel.js';
import { installDot } from './dot.js';
import { installFullyConnected } from './fully-connected.js';

export function installLinalg(registry: OpRegistry, gpu: GpuHost): void {
  installDot(registry, gpu);
  installFullyConnected(registry, gpu);
}
