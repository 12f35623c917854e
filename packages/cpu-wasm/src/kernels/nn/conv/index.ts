/** (being written) */
import type { OpRegistry } from '@mx/ops';
import type { GemmEngine } from '../../../gemm/engine.js';
import type { CpuWasmRuntime } from '../../../runtime.js';

export function installConvPool(_registry: OpRegistry, _rt: CpuWasmRuntime, _gemm: GemmEngine): void {}
