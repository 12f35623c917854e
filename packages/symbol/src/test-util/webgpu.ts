/**
 * Test access to a WebGPU device for the symbol package's executor and CachedOp tests: one runtime
 * with cpu-wasm (cpu) and WebGPU (gpu) per test file, or the reason there is none (tests skip with
 * it printed, so `pnpm test` passes on machines without a WebGPU driver), plus deterministic
 * values to fill parameters with.
 */
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type Runtime } from '@mx/ndarray';
import { createWebGpuBackend } from '@mx/webgpu';

/** A runtime with cpu(0) and gpu(0), or why there is no device. Dispose it in afterAll. */
export function gpuRuntime(): Promise<Runtime | string> {
  return createWebGpuBackend().then(
    (backend) => createRuntime({ backends: [new CpuWasmBackend({ workers: 0 }), backend], seed: 0 }),
    (e: unknown) => `no WebGPU device: ${e instanceof Error ? e.message : String(e)}`,
  );
}

/** Deterministic values in [-scale, scale). */
export function values(n: number, seed: number, scale: number): number[] {
  let x = seed >>> 0;
  return Array.from({ length: n }, () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return ((x >>> 8) / 16777216 - 0.5) * 2 * scale;
  });
}
