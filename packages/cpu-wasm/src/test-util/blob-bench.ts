/**
 * Test setup for kernels called directly on blobs, with or without worker threads: a backend with a
 * given worker count, a registry with its kernels, blob allocation/filling in the wasm memory, and
 * a started pool. Shared by the threaded elementwise and reduction tests, which compare a
 * `workers: 0` backend with a `workers: 1` one. Test-only; not exported.
 */
import { cpu, type DTypeName, type Shape, shapeSize } from '@mx/base';
import { createOpRegistry, type OpRegistry, type TBlob } from '@mx/ops';
import { expect } from 'vitest';
import { CpuWasmBackend } from '../backend.js';
import type { CpuWasmRuntime } from '../runtime.js';
import { poolOf, type WorkerPool } from '../threads/index.js';

export interface BlobBench {
  readonly backend: CpuWasmBackend;
  readonly registry: OpRegistry;
  readonly rt: CpuWasmRuntime;
  /** A blob of `shape`/`dtype` in the wasm memory, filled with `data` (through the dtype's typed view). */
  blob(shape: Shape, dtype: DTypeName, data: ArrayLike<number>): TBlob<number>;
  /** Free every blob made so far. */
  freeAll(): void;
}

export function blobBench(workers: number): BlobBench {
  const backend = new CpuWasmBackend({ initialPages: 64, workers });
  const registry = createOpRegistry();
  backend.install(registry);
  const rt = backend.runtime;
  const alloc = backend.allocator(cpu());
  const blobs: [number, number][] = [];
  return {
    backend,
    registry,
    rt,
    blob(shape, dtype, data) {
      const size = shapeSize(shape);
      const bytes = Math.max(1, size * rt.itemSize(dtype));
      const ptr = alloc.alloc(bytes) as number;
      blobs.push([ptr, bytes]);
      const b = { ptr, byteOffset: 0, shape: [...shape], dtype, size };
      (rt.view(b) as Float64Array).set(data);
      return b;
    },
    freeAll() {
      for (const [p, n] of blobs.splice(0)) alloc.free(p, n);
    },
  };
}

/** The backend's worker pool, started and online (fails the test when threads are unavailable). */
export async function onlinePool(backend: CpuWasmBackend): Promise<WorkerPool> {
  const pool = poolOf(backend.runtime);
  if (pool === null) throw new Error('threads unavailable: the pool tests need shared memory');
  expect(await pool.online()).toBe(true);
  return pool;
}
