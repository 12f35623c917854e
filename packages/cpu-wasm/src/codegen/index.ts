/** The SimpleOp expression compiler for cpu-wasm (filled in by its owner). */
import type { OpRegistry } from '@mx/ops';
import type { CpuWasmRuntime } from '../runtime.js';

export function installElementwise(_registry: OpRegistry, _rt: CpuWasmRuntime): void {}
