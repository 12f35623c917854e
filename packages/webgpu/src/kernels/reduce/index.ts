/**
 * webgpu kernels of the reduce family: value reductions (value-ops.ts on the engine in
 * reduce-into.ts), argmax/argmin (arg-ops.ts), sort/argsort/topk (ordering.ts on the bitonic sort in
 * sort.ts), cumsum (cumsum.ts) and the backward ops gradients use (backward.ts). Shape handling
 * shared by all is geometry.ts. One install function, called by the backend.
 */
import type { OpRegistry } from '@mx/ops';
import type { GpuHost } from '../../kernel.js';
import { installArgOps } from './arg-ops.js';
import { installReduceBackward } from './backward.js';
import { installCumsum } from './cumsum.js';
import { installOrdering } from './ordering.js';
import { installValueOps } from './value-ops.js';

export { reduceInto } from './reduce-into.js';

export function installReduce(registry: OpRegistry, gpu: GpuHost): void {
  installValueOps(registry, gpu);
  installArgOps(registry, gpu);
  installOrdering(registry, gpu);
  installCumsum(registry, gpu);
  installReduceBackward(registry, gpu);
}
