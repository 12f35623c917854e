/**
 * cpu-wasm kernels of the reduce family: value reductions (wasm SIMD for floats, value-kernels.ts),
 * argmax/argmin, sort/argsort/topk and cumsum (TypeScript over typed views), and the backward ops
 * gradients use that sum or spread along axes (backward-kernels.ts, including dot's). One install
 * function, called by the backend.
 */
import type { OpRegistry } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import { installReduceBackward } from './backward-kernels.js';
import { installCumsum } from './cumsum-kernel.js';
import { installIndexReduces } from './index-kernels.js';
import { installOrdering } from './ordering-kernels.js';
import { installValueReduces } from './value-kernels.js';

export { planReduce, type ReduceLoops, type ReducePlan, runPlan } from './plan.js';
export { reduceInto, reduceLoops } from './value-kernels.js';

export function installReduce(registry: OpRegistry, rt: CpuWasmRuntime): void {
  installValueReduces(registry, rt);
  installIndexReduces(registry, rt);
  installOrdering(registry, rt);
  installCumsum(registry, rt);
  installReduceBackward(registry, rt);
}
