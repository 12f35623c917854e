/**
 * The backend contract on a real WebGPU device: host writes and reads for every dtype (including
 * 1-byte bool views at odd offsets), device copies, cross-device copies with cpu-wasm in one
 * runtime, pooled buffers and emptyCache, and the bad paths — sync reads, implicit cross-device
 * use, buffers over the device limit, a kernel whose shader does not compile (fails its own op
 * only), unsupported dtypes and a lost device.
 */
import { MXNetError, type StorageArray } from '@mx/base';
import { OpRegistry, P } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { createWebGpuBackend } from './backend.js';
import { gpuKernel } from './kernel.js';
import { CPU, GPU, gpuTestEnv } from './test-util/gpu.js';
import { main1d, paramsDecl } from './wgsl.js';

const env = await gpuTestEnv();
const d = typeof env === 'string' ? describe.skip : describe;
if (typeof env === 'string') console.warn(`@mx/webgpu: skipping: ${env}`);
const E = env as Exclude<typeof env, string>;
const nums = (a: StorageArray): number[] => Array.from(a as ArrayLike<number>);

d('webgpu backend: memory', () => {
  it('round-trips every dtype through gpu(0)', async () => {
    const { nd } = E.runtime;
    for (const dtype of ['float32', 'int32', 'uint32', 'bool'] as const) {
      const values = dtype === 'bool' ? [1, 0, 1, 1, 0, 1, 0] : [1.5, -2, 3, 4e6, 0, 7, -9];
      const want =
        dtype === 'bool'
          ? values
          : dtype === 'float32'
            ? values
            : values.map((v) => (dtype === 'uint32' ? Math.trunc(v) >>> 0 : Math.trunc(v)));
      const x = nd.array(values, { dtype, ctx: GPU });
      expect(x.ctx).toBe(GPU);
      expect(nums(await x.data())).toEqual(want);
      x.dispose();
    }
  });

  it('reads and writes views at unaligned byte offsets (bool)', async () => {
    const { nd } = E.runtime;
    const x = nd.array([1, 0, 1, 0, 1, 0, 1, 0, 1], { dtype: 'bool', ctx: GPU });
    const v = x.slice(3, 8); // bytes 3..7
    expect(nums(await v.data())).toEqual([0, 1, 0, 1, 0]);
    v.set([1, 1, 1, 1, 1]);
    expect(nums(await x.data())).toEqual([1, 0, 1, 1, 1, 1, 1, 1, 1]);
    v.dispose();
    x.dispose();
  });

  it('copies within gpu(0) and across to cpu(0) and back', async () => {
    const { nd } = E.runtime;
    const host = nd.array(
      [
        [1, 2, 3],
        [4, 5, 6],
      ],
      { ctx: CPU },
    );
    const g = host.copyTo(GPU);
    const g2 = g.copyTo(GPU);
    const back = g2.copyTo(CPU);
    expect(back.ctx).toBe(CPU);
    expect(nums(await back.data())).toEqual([1, 2, 3, 4, 5, 6]);
    // overlapping views of one buffer
    const row = g.slice(1, 2);
    row.copyTo(g.slice(0, 1));
    expect(nums(await g.data())).toEqual([4, 5, 6, 4, 5, 6]);
    for (const a of [host, g, g2, back, row]) a.dispose();
  });

  it('pools buffers through @mx/storage and releases them on emptyCache', async () => {
    const { runtime } = E;
    const a = runtime.nd.array(new Float32Array(1000), { ctx: GPU });
    await a.data();
    a.dispose();
    await runtime.engine.waitForAll();
    const pooled = runtime.storage.stats(GPU);
    expect(pooled.bytesPooled).toBeGreaterThan(0);
    runtime.storage.releaseAll(GPU);
    expect(runtime.storage.stats(GPU).bytesPooled).toBe(0);
  });
});

d('webgpu backend: bad input', () => {
  it('refuses synchronous reads with a hint', () => {
    const x = E.runtime.nd.array([1, 2], { ctx: GPU });
    expect(() => x.dataSync()).toThrow(MXNetError);
    expect(() => x.dataSync()).toThrow(/data\(\)/);
    x.dispose();
  });

  it('refuses implicit cross-device use, and works after', async () => {
    const { nd } = E.runtime;
    const a = nd.array([1, 2], { ctx: GPU });
    const b = nd.array([1, 2], { ctx: CPU });
    expect(() => E.runtime.invoke('_copy', [a])).not.toThrow(/different devices/);
    expect(() => nd.broadcast_add(a, b)).toThrow(/different devices/);
    expect(nums(await a.data())).toEqual([1, 2]);
    a.dispose();
    b.dispose();
  });

  it('refuses a buffer over the device limit before allocating', () => {
    const { nd } = E.runtime;
    const limit = E.backend.capabilities.maxBufferBytes;
    const n = Math.floor(limit / 4) + 1024;
    expect(() => nd.empty([n], { ctx: GPU })).toThrow(MXNetError);
    expect(() => nd.empty([n], { ctx: GPU })).toThrow(/largest buffer|limit/);
  });

  it('refuses dtypes webgpu cannot store', () => {
    expect(() => E.runtime.nd.empty([2], { ctx: GPU, dtype: 'float64' })).toThrow(/cannot store float64/);
  });

  it('fails only the op whose shader does not compile', async () => {
    // A third-party op with a broken WGSL kernel, registered like any other.
    const registry = E.runtime.registry;
    if (!registry.has('_test_broken_wgsl')) {
      registry.define({
        name: '_test_broken_wgsl',
        params: { k: P.int({ default: 1 }) },
        numInputs: 1,
        inferShape: (_a, ins, outs) => {
          outs[0] = ins[0];
          return ins[0] !== undefined;
        },
      });
      registry.registerKernel(
        '_test_broken_wgsl',
        'webgpu',
        gpuKernel(E.backend, '_test_broken_wgsl', (_attrs, inputs, _req, outputs) => {
          const rt = E.backend.rt;
          const entry = rt.pipeline(
            'test:broken',
            () => `${paramsDecl(4)}${main1d(64, 'pu(0u)', '  let x: f32 = nope;')}`,
            4,
          );
          rt.dispatch(entry, [inputs[0]?.ptr as GPUBuffer, outputs[0]?.ptr as GPUBuffer], [1], [1]);
        }),
      );
    }
    const { nd } = E.runtime;
    const x = nd.array([1, 2, 3], { ctx: GPU });
    const y = E.runtime.invoke('_test_broken_wgsl', [x])[0];
    const z = x.copyTo(GPU);
    await expect(y?.data()).rejects.toThrow(/_test_broken_wgsl/);
    expect(nums(await z.data())).toEqual([1, 2, 3]);
    // Later calls fail at once, and the device keeps working.
    const y2 = E.runtime.invoke('_test_broken_wgsl', [x])[0];
    await expect(y2?.data()).rejects.toThrow(MXNetError);
    expect(nums(await x.data())).toEqual([1, 2, 3]);
    for (const a of [x, y, z, y2]) a?.dispose();
  });
});

d('webgpu backend: device loss', () => {
  it('turns a lost device into MXNetErrors and leaves cpu(0) working', async () => {
    const backend = await createWebGpuBackend();
    const { createRuntime } = await import('@mx/ndarray');
    const { CpuWasmBackend } = await import('@mx/cpu-wasm');
    const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 }), backend] });
    const x = rt.nd.array([1, 2, 3], { ctx: GPU });
    expect(nums(await x.data())).toEqual([1, 2, 3]);
    backend.rt.device.destroy();
    await backend.rt.device.lost;
    await expect(x.data()).rejects.toThrow(/device was lost/);
    expect(() => rt.nd.empty([4], { ctx: GPU })).toThrow(/device was lost/);
    const c = rt.nd.array([4, 5], { ctx: CPU });
    expect(nums(c.dataSync())).toEqual([4, 5]);
    c.dispose();
    x.dispose();
  });
});

d('webgpu backend: registry without a device', () => {
  it('lists kernels with no device', async () => {
    const { describeWebGpuKernels } = await import('./backend.js');
    const reg = new OpRegistry();
    expect(() => describeWebGpuKernels(reg)).not.toThrow();
  });
});

d('webgpu backend: shader warm-up', () => {
  it('replays the shaders of one runtime into a fresh one before first use', async () => {
    const { nd } = E.runtime;
    const x = nd.array([1, 1, 1, 1, 1], { dtype: 'bool', ctx: GPU });
    x.slice(1, 4).set([0, 0, 0]); // compiles the byte-copy shader
    expect(nums(await x.data())).toEqual([1, 0, 0, 0, 1]);
    const shaders = E.backend.shaders();
    expect(shaders.length).toBeGreaterThan(0);
    const fresh = await createWebGpuBackend();
    const before = fresh.rt.pipelineCount;
    expect(await fresh.warmUp(shaders)).toEqual([]);
    expect(fresh.rt.pipelineCount).toBe(before + shaders.length);
    expect(await fresh.warmUp([{ key: 'bad', source: 'fn main( {', paramWords: 4 }])).toEqual(['bad']);
    fresh.dispose();
    x.dispose();
  });
});
