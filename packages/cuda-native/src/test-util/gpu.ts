/**
 * Test access to a CUDA device: one backend and runtime per test file, and a clear skip with the
 * reason (what createCudaBackend reported) where the machine has none — `pnpm test` passes on the
 * CI machines, which have no GPU, and runs everything on a machine that has one.
 */
import { cpu, gpu } from '@mx/base';
import { type ConformanceTarget, ndarrayTarget } from '@mx/conformance';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type Runtime } from '@mx/ndarray';
import { type CudaBackend, createCudaBackend } from '../backend.js';
import { CUDA_LEFT_OUT } from '../kernels/index.js';

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

/** The conformance target of gpu(0) on `runtime`: ops left out on CUDA skip with their reason. */
export function cudaTarget(runtime: Runtime): ConformanceTarget {
  const base = ndarrayTarget(runtime, GPU);
  return {
    ...base,
    skip: (c) => {
      const name = runtime.registry.has(c.op) ? runtime.registry.get(c.op).name : c.op;
      const why = CUDA_LEFT_OUT[name];
      return why !== undefined ? `not on cuda: ${why}` : base.skip?.(c);
    },
  };
}
