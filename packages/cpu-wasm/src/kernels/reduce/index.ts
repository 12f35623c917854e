/** cpu-wasm kernels of the reduce family (filled in by its owner). */
import type { OpRegistry } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';

export function installReduce(_registry: OpRegistry, _rt: CpuWasmRuntime): void {}
