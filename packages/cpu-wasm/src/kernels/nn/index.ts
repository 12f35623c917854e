/**
 * cpu-wasm kernels of the neural-network ops, one folder per kind (matching @mx/ops defs/nn):
 * layers/, conv/ (on the GEMM engine's packed micro-kernels) and norm/.
 */
import type { OpRegistry } from '@mx/ops';
import type { GemmEngine } from '../../gemm/engine.js';
import type { CpuWasmRuntime } from '../../runtime.js';
import { installConvPool } from './conv/index.js';
import { installLayers } from './layers/index.js';
import { installNorm } from './norm/index.js';
import { installSeq } from './seq/index.js';

export function installNN(registry: OpRegistry, rt: CpuWasmRuntime, gemm: GemmEngine): void {
  installLayers(registry, rt, gemm);
  installConvPool(registry, rt, gemm);
  installNorm(registry, rt, gemm);
  installSeq(registry, rt, gemm);
}
