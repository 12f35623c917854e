/**
 * webgpu kernels of the np creation area (docs/design/np.md): the generators (sequences.ts) and
 * tril/triu with gradients (triangle.ts). The fills, eye, arange and the diag ops run the legacy
 * webgpu kernels through their op definitions' `via`, so they need nothing here.
 */
import type { OpRegistry } from '@mx/ops';
import type { GpuHost } from '../../../kernel.js';
import { installSequences } from './sequences.js';
import { installTriangle } from './triangle.js';

export function installNpCreation(registry: OpRegistry, gpu: GpuHost): void {
  installSequences(registry, gpu);
  installTriangle(registry, gpu);
}
