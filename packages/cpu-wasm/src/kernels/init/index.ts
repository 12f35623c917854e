/** cpu-wasm kernels of the init family (filled in by its owner). */
import type { OpRegistry } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';

export function installInit(_registry: OpRegistry, _rt: CpuWasmRuntime): void {}
