/**
 * The device store on a real WebGPU device (Dawn; SwiftShader where no GPU driver is installed):
 * sums made on gpu(0) from values on the GPU and the CPU, MXNet's 2-bit and 1-bit compression with
 * the GPU as merge device (the quantize/dequantize kernels read GPU buffers asynchronously), and
 * SGD running on the GPU where the stored weight moved — against NumPy
 * (tools/golden/kvstore/{store,compression}.py). Skipped, with the reason printed, without WebGPU.
 */
import { type Context, cpu, gpu } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray, type Runtime } from '@mx/ndarray';
import { createOptimizer } from '@mx/optimizer';
import { createWebGpuBackend } from '@mx/webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import compression from './__golden__/compression.json' with { type: 'json' };
import store from './__golden__/store.json' with { type: 'json' };
import type { CompressionType } from './compression/quantize.js';
import { LocalKVStore } from './local.js';

let rt: Runtime | undefined;
let why = '';
beforeAll(async () => {
  try {
    rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 }), await createWebGpuBackend()] });
  } catch (e) {
    why = `no WebGPU device: ${e instanceof Error ? e.message : String(e)}`;
    console.log(`skipping the WebGPU kvstore tests (${why})`);
  }
});
afterAll(async () => {
  await rt?.dispose();
});

async function values(a: NDArray): Promise<number[]> {
  return Array.from((await a.data()) as Float32Array);
}

function bits(a: ArrayLike<number>): number[] {
  return Array.from(new Uint32Array(Float32Array.from(a).buffer));
}

async function withStore(body: (kv: LocalKVStore, r: Runtime) => Promise<void>): Promise<void> {
  const r = rt as Runtime;
  await r.nd.leakCheck(async () => {
    const kv = new LocalKVStore(r, 'device');
    try {
      await r.nd.scope(() => body(kv, r));
    } finally {
      kv.dispose();
    }
  });
}

describe('device store on WebGPU', () => {
  it('sums values from gpu(0) and cpu(0) on the GPU (NumPy float32 sums)', async (t) => {
    if (rt === undefined) return t.skip(why);
    const s = store.sums[1] as { shape: number[]; values: number[][]; sequential: number[] };
    await withStore(async (kv, { nd }) => {
      const devs: Context[] = [gpu(0), cpu(0), cpu(1)];
      kv.init('w', nd.zeros(s.shape));
      kv.push(
        'w',
        s.values.map((v, i) => nd.array(Float32Array.from(v), { shape: s.shape, ctx: devs[i] })),
      );
      expect(kv.mergeContext('w')).toBe(gpu(0));
      const outs = [nd.zeros(s.shape), nd.zeros(s.shape, { ctx: gpu(0) })];
      kv.pull('w', outs);
      for (const o of outs) expect(bits(await values(o))).toEqual(bits(s.sequential));
      expect(kv.storedContext('w')).toBe(gpu(0));
    });
  });

  const scenarios = compression.store as unknown as {
    type: CompressionType;
    threshold: number;
    shape: number[];
    pushes: { grads: number[][]; merged: number[] }[];
  }[];
  for (const s of scenarios) {
    it(`${s.type} compression with the GPU as merge device equals the golden sums`, async (t) => {
      if (rt === undefined) return t.skip(why);
      await withStore(async (kv, { nd }) => {
        const devs: Context[] = [gpu(0), cpu(0), cpu(1)];
        kv.setGradientCompression({ type: s.type, threshold: s.threshold });
        kv.init(7, nd.zeros(s.shape));
        for (const [k, p] of s.pushes.entries()) {
          kv.push(
            7,
            p.grads.map((g, d) => nd.array(Float32Array.from(g), { shape: s.shape, ctx: devs[d] })),
          );
          const out = nd.zeros(s.shape, { ctx: cpu(1) });
          kv.pull(7, out);
          expect(bits(await values(out)), `push ${k}`).toEqual(bits(p.merged));
        }
        expect(kv.mergeContext(7)).toBe(gpu(0));
      });
    });
  }

  it('runs SGD with momentum on the GPU, where the stored weight moved (NumPy)', async (t) => {
    if (rt === undefined) return t.skip(why);
    const g = store.sgd;
    await withStore(async (kv, { nd }) => {
      kv.init(3, nd.array(Float32Array.from(g.weight), { shape: g.shape }));
      kv.setOptimizer(createOptimizer('sgd', g.options));
      const w = nd.zeros(g.shape);
      for (const [k, step] of g.steps.entries()) {
        const devs = [gpu(0), cpu(0)];
        kv.push(
          3,
          step.grads.map((x, d) => nd.array(Float32Array.from(x), { shape: g.shape, ctx: devs[d] })),
        );
        kv.pull(3, w);
        const got = await values(w);
        for (const [i, x] of got.entries()) {
          const want = step.weight[i] as number;
          expect(Math.abs(x - want), `step ${k + 1}, element ${i}`).toBeLessThanOrEqual(
            1e-6 + 1e-5 * Math.abs(want),
          );
        }
      }
      expect(kv.storedContext(3)).toBe(gpu(0));
    });
  });
});
