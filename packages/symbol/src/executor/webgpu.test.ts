/**
 * Executors on a real WebGPU device (Dawn; SwiftShader on machines without a GPU driver, see
 * vitest.config.ts): the same bound graph — fused elementwise chains included — run on gpu(0) gives
 * cpu(0)'s outputs and gradients. Skipped, with the reason printed, where no device exists.
 */
import { cpu, gpu } from '@mx/base';
import type { NDArray, Runtime } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { SymbolApi } from '../symbol/index.js';
import { gpuRuntime, values } from '../test-util/webgpu.js';
import type { Executor } from './index.js';

const setup = gpuRuntime();
afterAll(async () => {
  const rt = await setup;
  if (typeof rt !== 'string') await rt.dispose();
});

/** A tanh MLP whose output layer is a softmax written from elementwise/broadcast/reduce ops. */
function network(sym: SymbolApi) {
  const data = sym.var('data');
  let h = sym.FullyConnected(data, { num_hidden: 16, name: 'fc1' });
  h = sym.tanh(sym.exp(sym.negative(sym.square(h)))); // an elementwise chain: one fused kernel
  const o = sym.FullyConnected(h, { num_hidden: 5, name: 'fc2' });
  const e = sym.exp(sym.broadcast_sub(o, sym.max(o, { axis: 1, keepdims: true })));
  return sym.broadcast_div(e, sym.sum(e, { axis: 1, keepdims: true }));
}

const SHAPES: Record<string, number[]> = {
  data: [6, 10],
  fc1_weight: [16, 10],
  fc1_bias: [16],
  fc2_weight: [5, 16],
  fc2_bias: [5],
};

async function runOn(rt: Runtime, dev: 'cpu' | 'gpu') {
  const sym = new SymbolApi(rt);
  const ctx = dev === 'cpu' ? cpu(0) : gpu(0);
  const exe: Executor = network(sym).simpleBind({
    ctx,
    shapes: { data: SHAPES.data as number[] },
    fusion: true,
  });
  Object.entries(SHAPES).forEach(([name, shape], k) => {
    const n = shape.reduce((a, d) => a * d, 1);
    (exe.argDict[name] as NDArray).set(values(n, 5 + k, name === 'data' ? 1.5 : 0.5));
  });
  exe.forward({ isTrain: true });
  const head = rt.nd.array(values(30, 77, 1), { shape: [6, 5], ctx });
  exe.backward([head]);
  const out: Record<string, number[]> = { probs: Array.from((await exe.outputs[0]?.data()) as Float32Array) };
  for (const name of Object.keys(SHAPES))
    out[name] = Array.from((await exe.gradDict[name]?.data()) as Float32Array);
  const fused = exe.fusedNodes;
  head.dispose();
  exe.dispose();
  return { out, fused };
}

describe('executors on WebGPU', () => {
  it("run the fused training graph on gpu(0) with cpu(0)'s results", async (t) => {
    const rt = await setup;
    if (typeof rt === 'string') {
      console.log(`skipped: ${rt}`);
      t.skip();
      return;
    }
    const c = await runOn(rt, 'cpu');
    const g = await runOn(rt, 'gpu');
    expect(g.fused).toBeGreaterThan(0);
    expect(g.fused).toBe(c.fused);
    for (const [name, want] of Object.entries(c.out)) {
      const got = g.out[name] as number[];
      const scale = Math.max(...want.map(Math.abs));
      got.forEach((v, i) => {
        expect(Math.abs(v - (want[i] as number)), `${name}[${i}]`).toBeLessThanOrEqual(1e-5 * scale + 1e-6);
      });
    }
  });
});
