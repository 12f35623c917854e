/**
 * GEMM kernels (dot, batch_dot, linalg_gemm2) for cpu-wasm: a packed-panel SIMD GEMM generated at
 * run time (GotoBLAS/BLIS structure: packed B panels, packed A blocks, a register-blocked
 * micro-kernel whose tile is timed per machine), split across the runtime's worker pool for large
 * problems. See engine.ts (state and dispatch), driver.ts (the wasm module), gemm.ts (blocking).
 */
import type { OpRegistry } from '@mx/ops';
import type { CpuWasmRuntime } from '../runtime.js';
import { GemmEngine, type GemmEngineOptions } from './engine.js';
import { registerGemmKernels } from './kernels.js';

export { GEMM_F32, GEMM_F64, type GemmType, gemmType, type Tile } from './dtype.js';
export { GemmEngine, type GemmEngineOptions } from './engine.js';
export { type ChunkRunner, type GemmBatch, type GemmProblem, INLINE_RUNNER } from './gemm.js';

export function installLinalg(
  registry: OpRegistry,
  rt: CpuWasmRuntime,
  options?: GemmEngineOptions,
): GemmEngine {
  const engine = new GemmEngine(rt, options);
  registerGemmKernels(registry, engine);
  return engine;
}
