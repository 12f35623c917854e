/**
 * Worker threads for cpu-wasm kernels: a pool over Node worker_threads or browser Workers sharing
 * the runtime's WebAssembly.Memory. Kernel families call `poolOf(rt)` and `parallelFor`.
 */
import type { CpuWasmRuntime } from '../runtime.js';
import { WorkerPool, type WorkerPoolOptions } from './pool.js';

export { WorkerPool, type WorkerPoolOptions } from './pool.js';
export { defaultWorkerFactory, type WorkerFactory, type WorkerHandle } from './spawn.js';

/**
 * The runtime's pool, created on first use when the engine supports shared-memory threads. Workers
 * start in the background; until they are up the pool runs everything on the caller.
 */
export function poolOf(rt: CpuWasmRuntime, options?: WorkerPoolOptions): WorkerPool | null {
  if (rt.threads instanceof WorkerPool) return rt.threads.disposed ? null : rt.threads;
  if (rt.threads !== null || !rt.features.threads || !rt.memory.shared || rt.workers === 0) return null;
  const pool = new WorkerPool(rt.memory, { workers: rt.workers, ...options });
  rt.threads = pool;
  return pool;
}
