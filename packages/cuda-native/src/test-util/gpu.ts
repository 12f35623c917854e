/**
 * Test access to a CUDA device: one backend and runtime per test file, and a clear skip with the
 * reason (what createCudaBackend reported) where the machine has none — `pnpm test` passes on the
 * CI machines, which have no GPU, and runs everything on a machine that has one.
 */
import { cpu, gpu } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type Runtime } from '@mx/ndarray';
import { type CudaBackend, createCudaBackend } from '../backend.js';

export interface CudaTestEnv {
  readonly backend: CudaBackend;
  /** A runtime with cpu-wasm (cpu) and this backend (gpu). */
  readonly runtime: Runtime;
}

let pending: Promise<CudaTestEnv | string> | undefined;

/** The shared test device, or the reason there is none. */
export function cudaTestEnv(): Promise<CudaTestEnv | string> {
  pending ??= createCudaBackend().then(
    (backend) => ({
      backend,
      runtime: createRuntime({ backends: [new CpuWasmBackend({ workers: 0 }), backend], seed: 0 }),
    }),
    (e: unknown) => `no CUDA device: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`,
  );
  return pending;
}

export const CPU = cpu(0);
export const GPU = gpu(0);
