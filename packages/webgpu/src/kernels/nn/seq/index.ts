/**
 * The nn/seq family on webgpu (placeholder: no kernels yet; see left-out.ts).
 */
import type { OpRegistry } from '@mx/ops';
import type { GpuHost } from '../../../kernel.js';

export function installSeq(registry: OpRegistry, gpu: GpuHost): void {
  void registry;
  void gpu;
}
