/**
 * Trainer: `step(batchSize)` applies the optimizer with rescaleGrad = 1/batchSize (checked against
 * SGD's formula on read-back values), refuses stale gradients without changing anything, skips
 * them on request, and saves/loads optimizer states.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { HybridBlock } from './block/hybrid-block.js';
import { Dense } from './nn/basic.js';
import { Trainer } from './trainer.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })], seed: 3 });
const { nd } = rt;
const dir = mkdtempSync(join(tmpdir(), 'mx-gluon-trainer-'));
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await rt.dispose();
});

class Two extends HybridBlock {
  a = new Dense(3, { inUnits: 4 });
  b = new Dense(2, { inUnits: 4 });
  useB = true;
  forward(x: NDArray): NDArray {
    const ya = this.a.forward(x);
    return this.useB ? nd.concat(ya, this.b.forward(x), { dim: 1 }) : ya;
  }
}

const host = (a: NDArray) => Float64Array.from(a.dataSync() as Float32Array);
const x = () =>
  nd.array(
    Float32Array.from({ length: 8 }, (_, i) => (i - 3) / 5),
    { shape: [2, 4] },
  );

describe('Trainer', () => {
  it('steps with rescaleGrad = 1/batchSize: w - lr * (g/batch + wd * w)', () => {
    const net = new Two();
    net.initialize(undefined, { runtime: rt });
    const trainer = new Trainer(net.collectParams(), 'sgd', { learningRate: 0.5, wd: 0.1 });
    const input = x();
    rt.autograd.record(() => nd.sum(net.forward(input))).backward();
    const w0 = host(net.a.weight.data());
    const g = host(net.a.weight.grad());
    trainer.step(2);
    const w1 = host(net.a.weight.data());
    for (let i = 0; i < w0.length; i++) {
      const want = (w0[i] as number) - 0.5 * ((g[i] as number) / 2 + 0.1 * (w0[i] as number));
      expect(w1[i]).toBeCloseTo(want, 6);
    }
    expect(trainer.learningRate).toBe(0.5);
    trainer.setLearningRate(0.25);
    expect(trainer.learningRate).toBe(0.25);
    input.dispose();
  });

  it('refuses stale gradients and changes nothing; ignoreStaleGrad skips them', () => {
    const net = new Two();
    net.initialize(undefined, { runtime: rt });
    const trainer = new Trainer(net.collectParams(), 'sgd', { learningRate: 0.1 });
    const input = x();
    rt.autograd.record(() => nd.sum(net.forward(input))).backward();
    trainer.step(1);
    net.useB = false;
    rt.autograd.record(() => nd.sum(net.forward(input))).backward();
    const a0 = host(net.a.weight.data());
    const b0 = host(net.b.weight.data());
    expect(() => trainer.step(1)).toThrow(
      /Gradient of Parameter `b.weight` on device cpu\(0\) has not been updated by backward since last `step`/,
    );
    expect(host(net.a.weight.data())).toEqual(a0);
    trainer.step(1, { ignoreStaleGrad: true });
    expect(host(net.a.weight.data())).not.toEqual(a0);
    expect(host(net.b.weight.data())).toEqual(b0);
    input.dispose();
  });

  it('saves and loads optimizer states (momentum) so training resumes identically', async () => {
    const input = x();
    const setup = () => {
      const net = new Dense(2, { inUnits: 4 });
      net.initialize(undefined, { runtime: rt });
      net.weight.setData(nd.full([2, 4], 0.5));
      const trainer = new Trainer(net.collectParams(), 'sgd', { learningRate: 0.1, momentum: 0.9 });
      const step = () => {
        rt.autograd.record(() => nd.sum(nd.square(net.forward(input)))).backward();
        trainer.step(2);
      };
      return { net, trainer, step };
    };
    // Run A: two steps, saving the states (momentum, counters) after the first.
    const a = setup();
    a.step();
    const path = join(dir, 'sgd.states');
    await a.trainer.saveStates(path);
    const w1 = nd.array(a.net.weight.data().dataSync() as Float32Array, { shape: [2, 4] });
    const b1 = nd.array(a.net.bias?.data().dataSync() as Float32Array);
    a.step();
    // Run B starts from A's weights after one step and A's saved states: its step is A's second.
    const b = setup();
    b.net.weight.setData(w1);
    b.net.bias?.setData(b1);
    await b.trainer.loadStates(path);
    b.step();
    expect(host(b.net.weight.data())).toEqual(host(a.net.weight.data()));
    // Without the states (zero momentum) the same step lands elsewhere.
    const c = setup();
    c.net.weight.setData(w1);
    c.net.bias?.setData(b1);
    c.step();
    expect(host(c.net.weight.data())).not.toEqual(host(a.net.weight.data()));
    w1.dispose();
    b1.dispose();
    input.dispose();
  });

  it('checks its arguments', () => {
    const net = new Dense(2, { inUnits: 2 });
    net.initialize(undefined, { runtime: rt });
    expect(() => new Trainer(net.collectParams(), 'nosuch')).toThrow(/nosuch/);
    const t = new Trainer(net.collectParams(), 'adam');
    expect(() => t.step(0)).toThrow(/batchSize must be a positive number/);
    expect(() => new Trainer(net.collectParams(), 'sgd', {}, { kvstore: 'dist_sync' })).toThrow(
      /kvstore 'dist_sync' must be created \(and connected\) first/,
    );
  });
});
