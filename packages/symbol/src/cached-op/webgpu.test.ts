/**
 * CachedOp on a real WebGPU device (Dawn; SwiftShader without a GPU driver, see vitest.config.ts),
 * an asynchronous backend: recorded calls with new data every step, pushed without waiting, so the
 * next call rebinds its run state while the previous call's kernels are still queued. Outputs and
 * per-step gradients on gpu(0) must be cpu(0)'s. Skipped, with the reason printed, where no device
 * exists.
 */
import { cpu, gpu } from '@mx/base';
import type { NDArray, Runtime } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { SymbolApi } from '../symbol/index.js';
import { gpuRuntime, values } from '../test-util/webgpu.js';
import { CachedOp } from './index.js';

const setup = gpuRuntime();
afterAll(async () => {
  const rt = await setup;
  if (typeof rt !== 'string') await rt.dispose();
});

const SHAPES: Record<string, number[]> = {
  fc1_weight: [16, 10],
  fc1_bias: [16],
  fc2_weight: [5, 16],
  fc2_bias: [5],
};
const STEPS = 3;

/** Per step: the output and each parameter's gradient, as host values. */
async function runOn(rt: Runtime, dev: 'cpu' | 'gpu'): Promise<Record<string, number[]>[]> {
  const { nd, autograd } = rt;
  const sym = new SymbolApi(rt);
  const ctx = dev === 'cpu' ? cpu(0) : gpu(0);
  let h = sym.FullyConnected(sym.var('data'), { num_hidden: 16, name: 'fc1' });
  h = sym.tanh(sym.exp(sym.negative(sym.square(h)))); // a fused elementwise chain
  const op = new CachedOp(rt, sym.softmax(sym.FullyConnected(h, { num_hidden: 5, name: 'fc2' })));
  const p: Record<string, NDArray> = {};
  Object.entries(SHAPES).forEach(([name, shape], k) => {
    const n = shape.reduce((a, d) => a * d, 1);
    p[name] = nd.array(values(n, 5 + k, 0.5), { shape, ctx }).attachGrad();
  });
  const kept: Record<string, NDArray>[] = [];
  for (let s = 0; s < STEPS; s++) {
    const data = nd.array(values(60, 100 + s, 1.5), { shape: [6, 10], ctx });
    const head = nd.array(values(30, 77 + s, 1), { shape: [6, 5], ctx });
    const [y] = autograd.record(() =>
      op.call(...op.inputNames.map((n) => (n === 'data' ? data : p[n]) as NDArray)),
    );
    (y as NDArray).backward(head);
    const step: Record<string, NDArray> = { y: y as NDArray };
    for (const name of Object.keys(SHAPES)) step[name] = ((p[name] as NDArray).grad as NDArray).copy();
    kept.push(step);
    data.dispose(); // its reads are queued: the engine keeps its memory until they ran
    head.dispose();
  }
  const out: Record<string, number[]>[] = [];
  for (const step of kept) {
    const host: Record<string, number[]> = {};
    for (const [k, a] of Object.entries(step)) {
      host[k] = Array.from((await a.data()) as Float32Array);
      a.dispose();
    }
    out.push(host);
  }
  expect(op.stats).toMatchObject({ compiles: 1, runners: 1 });
  op.dispose();
  for (const a of Object.values(p)) a.dispose();
  return out;
}

describe('CachedOp on WebGPU', () => {
  it("gives cpu(0)'s outputs and gradients, call after call, without waiting between calls", async (t) => {
    const rt = await setup;
    if (typeof rt === 'string') {
      console.log(`skipped: ${rt}`);
      t.skip();
      return;
    }
    const c = await runOn(rt, 'cpu');
    const g = await runOn(rt, 'gpu');
    for (let s = 0; s < STEPS; s++) {
      for (const [name, want] of Object.entries(c[s] as Record<string, number[]>)) {
        const got = (g[s] as Record<string, number[]>)[name] as number[];
        const scale = Math.max(...want.map(Math.abs));
        expect(scale, `${name} step ${s}`).toBeGreaterThan(0);
        got.forEach((v, i) => {
          expect(Math.abs(v - (want[i] as number)), `${name}[${i}] step ${s}`).toBeLessThanOrEqual(
            1e-5 * scale + 1e-6,
          );
        });
      }
    }
    // Steps differ (new data each call): a stale binding would repeat a step's values.
    expect(c[1]?.fc1_weight).not.toEqual(c[0]?.fc1_weight);
  });
});
