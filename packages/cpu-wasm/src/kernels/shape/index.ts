/** cpu-wasm kernels of the shape family (filled in by its owner). */
import type { OpRegistry } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';

export function installShape(_registry: OpRegistry, _rt: CpuWasmRuntime): void {}
