/**
 * The shape family on webgpu. Nearly everything is one output-indexed strided-view kernel
 * (view.ts) parameterised through uniforms; files split by how the view is built: one view per op
 * (layout.ts), one per input/output (join.ts), masked views for Pad and the slice/diag gradients
 * plus Cast's gradient (backward.ts), index-driven gathers (gather.ts, take.ts) and summing gradients
 * (sum.ts). See left-out.ts for what is not here.
 */
import type { OpRegistry } from '@mx/ops';
import type { GpuHost } from '../../kernel.js';
import { installBackward } from './backward.js';
import { installGather } from './gather.js';
import { installJoin } from './join.js';
import { installLayout } from './layout.js';
import { installSum } from './sum.js';
import { installTake } from './take.js';

export function installShape(registry: OpRegistry, gpu: GpuHost): void {
  installLayout(registry, gpu);
  installJoin(registry, gpu);
  installGather(registry, gpu);
  installTake(registry, gpu);
  installBackward(registry, gpu);
  installSum(registry, gpu);
}
