/**
 * The reduce family on cuda-native (see kernels/index.ts for how families are wired): value
 * reductions (value-ops.ts on the engine in reduce-engine.ts), argmax/argmin (arg-ops.ts),
 * sort/argsort/topk (ordering.ts on the bitonic sort in sort.ts), cumsum (cumsum.ts) and the
 * backward ops gradients use (backward.ts). Shape planning shared by all is geometry.ts, CUDA C
 * conversion/store snippets cgen.ts.
 */
import type { OpRegistry } from '@mx/ops';
import type { CudaHost } from '../../kernel.js';
import { installArgOps } from './arg-ops.js';
import { installReduceBackward } from './backward.js';
import { installCumsum } from './cumsum.js';
import { installOrdering } from './ordering.js';
import { installValueOps } from './value-ops.js';

export { reduceInto } from './reduce-engine.js';

export function installReduce(registry: OpRegistry, host: CudaHost): void {
  installValueOps(registry, host);
  installArgOps(registry, host);
  installOrdering(registry, host);
  installCumsum(registry, host);
  installReduceBackward(registry, host);
}
