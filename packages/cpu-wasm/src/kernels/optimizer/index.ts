/** (being written) */
import type { OpRegistry } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';

export function installOptimizer(_registry: OpRegistry, _rt: CpuWasmRuntime): void {}
