/**
 * Kernel scratch space under memory pressure: cpu-wasm's GEMM workspace is taken straight from the
 * wasm memory, outside Storage. When that memory is full of dropped arrays and of blocks the pool
 * keeps cached, the allocation must still succeed: the allocator asks Storage, which reclaims the
 * unreachable arrays and returns its cache, then the allocator retries (storage's
 * `setExhaustedHandler`).
 */
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../runtime.js';

const MiB = 2 ** 20;

/** Fill the device with arrays nobody references (the pool's bytes in use stay high until a GC). */
function dropArrays(rt: Runtime, count: number, floats: number): void {
  for (let i = 0; i < count; i++) rt.nd.zeros([floats]);
}

describe('kernel scratch space when the wasm memory is full', () => {
  it('reclaims dropped arrays and the pool cache, then the GEMM workspace fits', async () => {
    const backend = new CpuWasmBackend({ initialPages: 512, maximumPages: 512, workers: 0 }); // 32 MiB
    // No high-water reclaim: only running out of memory may trigger one.
    const rt = createRuntime({ backends: [backend], memory: { highWaterMark: 2 ** 40 } });
    const { nd } = rt;
    const a = nd.ones([512, 512]);
    const b = nd.ones([512, 512]);
    await b.waitToRead();
    // An array of the output's size goes back to the pool's cache: the output will be a pool hit.
    const cached = nd.zeros([512, 512]);
    await cached.waitToRead();
    cached.dispose();
    // Fill the rest of the memory with dropped arrays, leaving less than the GEMM's packing workspace.
    const alloc = backend.runtime.memory.allocator;
    const free = () => alloc.capacity - alloc.usedBytes;
    while (free() > 2 * MiB) dropArrays(rt, 1, MiB / 4);
    while (free() > 96 * 1024) dropArrays(rt, 1, 1024); // 4 KiB pages
    expect(rt.memory().devices['cpu(0)']?.numReclaims).toBe(0);
    const c = nd.dot(a, b); // output from the cache; workspace straight from the allocator
    const v = (await c.data()) as Float32Array;
    expect(v[0]).toBe(512);
    expect(v[v.length - 1]).toBe(512);
    expect(rt.memory().devices['cpu(0)']?.numReclaims).toBeGreaterThan(0);
    for (const x of [a, b, c]) x.dispose();
    await rt.dispose();
  });
});
