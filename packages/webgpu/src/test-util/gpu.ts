/**
 * Test access to a WebGPU device: one backend and runtime per test file (acquiring a device costs
 * ~100 ms on SwiftShader), and a clear skip when the machine has none — `pnpm test` must pass on
 * machines without a WebGPU driver, while this one (SwiftShader from Debian's chromium) runs all.
 */
import { cpu, gpu } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type Runtime } from '@mx/ndarray';
import { createWebGpuBackend, type WebGpuBackend } from '../backend.js';

export interface GpuTestEnv {
  readonly backend: WebGpuBackend;
  /** A runtime with cpu-wasm (cpu) and this backend (gpu). */
  readonly runtime: Runtime;
}

let pending: Promise<GpuTestEnv | string> | undefined;

/** The shared test device, or the reason there is none. */
export function gpuTestEnv(): Promise<GpuTestEnv | string> {
  pending ??= createWebGpuBackend().then(
    (backend) => ({
      backend,
      runtime: createRuntime({ backends: [new CpuWasmBackend({ workers: 0 }), backend], seed: 0 }),
    }),
    (e: unknown) => `no WebGPU device: ${e instanceof Error ? e.message : String(e)}`,
  );
  return pending;
}

export const CPU = cpu(0);
export const GPU = gpu(0);
