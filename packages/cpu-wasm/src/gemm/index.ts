/** GEMM kernels (dot, batch_dot, linalg_gemm2) for cpu-wasm (filled in by its owner). */
import type { OpRegistry } from '@mx/ops';
import type { CpuWasmRuntime } from '../runtime.js';

export function installLinalg(_registry: OpRegistry, _rt: CpuWasmRuntime): void {}
