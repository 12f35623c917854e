/**
 * Block, Parameter and Dense without hybridization: registration by assignment, structural names,
 * deferred initialization, the checks of loadParameters, hooks, and forward values against an
 * independent float64 computation from the read-back weights.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpu, isMXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Normal } from '../init/index.js';
import { Dense, HybridSequential, Sequential } from '../nn/basic.js';
import { Block } from './block.js';
import { HybridBlock } from './hybrid-block.js';
import { DeferredInitializationError, Parameter } from './parameter.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })], seed: 7 });
const { nd } = rt;
const dir = mkdtempSync(join(tmpdir(), 'mx-gluon-block-'));
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await rt.dispose();
});

class Mlp extends HybridBlock {
  fc1 = new Dense(16, { activation: 'relu' });
  fc2 = new Dense(4);
  forward(x: NDArray): NDArray {
    return this.fc2.forward(this.fc1.forward(x)) as NDArray;
  }
}

const input = (rows: number, cols: number) =>
  nd.array(
    Float32Array.from({ length: rows * cols }, (_, i) => Math.sin(i * 0.37)),
    { shape: [rows, cols] },
  );

/** relu?(x · Wᵀ + b) in float64 from host copies. */
function denseRef(x: Float64Array, rows: number, w: NDArray, b: NDArray, relu: boolean): Float64Array {
  const [units, k] = w.shape as [number, number];
  const wv = w.dataSync() as Float32Array;
  const bv = b.dataSync() as Float32Array;
  const out = new Float64Array(rows * units);
  for (let r = 0; r < rows; r++) {
    for (let u = 0; u < units; u++) {
      let s = bv[u] as number;
      for (let q = 0; q < k; q++) s += (x[r * k + q] as number) * (wv[u * k + q] as number);
      out[r * units + u] = relu ? Math.max(0, s) : s;
    }
  }
  return out;
}

describe('Block and Parameter', () => {
  it('registers children and parameters by assignment, with structural names', () => {
    const net = new Mlp();
    expect([...net.collectParams().keys()]).toEqual(['fc1.weight', 'fc1.bias', 'fc2.weight', 'fc2.bias']);
    expect([...net.collectParams('.*weight').keys()]).toEqual(['fc1.weight', 'fc2.weight']);
    expect([...net.collectParams(/bias$/).keys()]).toEqual(['fc1.bias', 'fc2.bias']);
    const seq = new Sequential(new Dense(3), new Dense(2, { useBias: false }));
    expect([...seq.collectParams().keys()]).toEqual(['0.weight', '0.bias', '1.weight']);
    expect(String(net)).toBe('Mlp(\n  (fc1): Dense(None -> 16, relu)\n  (fc2): Dense(None -> 4, linear)\n)');
  });

  it('defers initialization to the first forward and computes what a float64 reference computes', async () => {
    await nd.leakCheck(() => {
      const net = new Mlp();
      net.initialize();
      expect(() => net.fc1.weight.data()).toThrow(DeferredInitializationError);
      const x = input(3, 5);
      const y = net.forward(x);
      expect(net.fc1.weight.shape).toEqual([16, 5]);
      expect(net.fc2.weight.shape).toEqual([4, 16]);
      expect(y.shape).toEqual([3, 4]);
      // MXNet's default Uniform(0.07) for weights, zeros for biases.
      const w = net.fc1.weight.data().dataSync() as Float32Array;
      expect(Math.max(...w.map(Math.abs))).toBeLessThanOrEqual(0.07);
      expect(new Set(w).size).toBeGreaterThan(70);
      expect(Array.from(net.fc1.bias?.data().dataSync() as Float32Array).every((v) => v === 0)).toBe(true);
      const h = denseRef(
        Float64Array.from(x.dataSync() as Float32Array),
        3,
        net.fc1.weight.data(),
        net.fc1.bias?.data() as NDArray,
        true,
      );
      const want = denseRef(h, 3, net.fc2.weight.data(), net.fc2.bias?.data() as NDArray, false);
      const got = y.dataSync() as Float32Array;
      for (let i = 0; i < want.length; i++) expect(got[i]).toBeCloseTo(want[i] as number, 6);
      x.dispose();
      y.dispose();
      for (const p of net.collectParams().values()) p.dispose();
    });
  });

  it('uses a parameter initializer of its own, and initializes only once without forceReinit', () => {
    const d = new Dense(3, { inUnits: 2, biasInitializer: 'ones' });
    d.initialize(new Normal(0.01), { runtime: rt });
    expect(Array.from(d.bias?.data().dataSync() as Float32Array)).toEqual([1, 1, 1]);
    const before = Float32Array.from(d.weight.data().dataSync() as Float32Array);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    d.initialize(undefined, { runtime: rt });
    expect(warn).toHaveBeenCalledWith(expect.stringContaining("Parameter 'weight' is already initialized"));
    warn.mockRestore();
    expect(d.weight.data().dataSync()).toEqual(before);
    d.initialize(new Normal(1), { runtime: rt, forceReinit: true });
    expect(d.weight.data().dataSync()).not.toEqual(before);
    for (const p of d.collectParams().values()) p.dispose();
  });

  it('names the layer and both shapes when the input does not fit', () => {
    const d = new Dense(4, { inUnits: 6 });
    d.initialize(undefined, { runtime: rt });
    const x = input(2, 5);
    try {
      d.forward(x);
      expect.unreachable();
    } catch (e) {
      expect(isMXNetError(e)).toBe(true);
      expect(String(e)).toContain('Dense(4) expects 6 input features but got input of shape (2, 5)');
    }
    expect(d.weight.shape).toEqual([4, 6]);
    x.dispose();
    for (const p of d.collectParams().values()) p.dispose();
  });

  it('refuses a parameter that was never initialized, and unknown shapes without deferral', () => {
    const p = new Parameter('weight', { shape: [2, 2] });
    expect(() => p.data()).toThrow(/Parameter 'weight' has not been initialized/);
    const q = new Parameter('weight', { shape: [2, -1] });
    expect(() => q.initialize({ runtime: rt })).toThrow(/invalid shape/);
    expect(() => (q.shape = [3, 4])).toThrow(/incompatible/);
    q.shape = [2, 4];
    expect(q.shape).toEqual([2, 4]);
  });

  it('runs hooks around forward until detached', () => {
    const seen: string[] = [];
    const d = new Dense(2, { inUnits: 3 });
    d.initialize(undefined, { runtime: rt });
    const pre = d.registerForwardPreHook((b, ins) =>
      seen.push(`pre ${b.blockName} ${(ins[0] as NDArray).shape}`),
    );
    const post = d.registerForwardHook((_b, _ins, out) => seen.push(`post ${(out as NDArray).shape}`));
    const x = input(1, 3);
    d.forward(x).dispose();
    pre.detach();
    post.detach();
    d.forward(x).dispose();
    expect(seen).toEqual(['pre Dense 1,3', 'post 1,2']);
    x.dispose();
    for (const p of d.collectParams().values()) p.dispose();
  });

  it('trains through autograd: gradients reach every parameter', () => {
    const net = new HybridSequential(new Dense(8, { activation: 'tanh' }), new Dense(1));
    net.initialize(undefined, { runtime: rt });
    const x = input(4, 3);
    const loss = rt.autograd.record(() => nd.sum(nd.square(net.forward(x) as NDArray)));
    loss.backward();
    for (const [name, p] of net.collectParams()) {
      const g = p.grad().dataSync() as Float32Array;
      expect(
        g.some((v) => v !== 0),
        name,
      ).toBe(true);
    }
    net.zeroGrad();
    expect(
      Array.from(net.collectParams().get('0.weight')?.grad().dataSync() as Float32Array).every(
        (v) => v === 0,
      ),
    ).toBe(true);
    x.dispose();
    loss.dispose();
    for (const p of net.collectParams().values()) p.dispose();
  });
});

describe('saveParameters / loadParameters', () => {
  const trained = () => {
    const net = new Mlp();
    net.initialize(undefined, { runtime: rt });
    const x = input(2, 5);
    net.forward(x).dispose();
    x.dispose();
    return net;
  };

  it('round-trips through a file into a fresh block', async () => {
    const a = trained();
    const path = join(dir, 'mlp.params');
    await a.saveParameters(path);
    const b = new Mlp();
    await b.loadParameters(path, { runtime: rt });
    const x = input(2, 5);
    expect(b.forward(x).dataSync()).toEqual(a.forward(x).dataSync());
    x.dispose();
  });

  it('creates parameters on ctx, as MXNet load_parameters(ctx=...) does (found on a GPU)', async () => {
    const a = trained();
    const path = join(dir, 'mlp-ctx.params');
    await a.saveParameters(path);
    const b = new Mlp();
    await b.loadParameters(path, { runtime: rt, ctx: cpu(1) });
    for (const p of b.collectParams().values()) expect(String(p.data().ctx)).toBe('cpu(1)');
    const x = input(2, 5);
    const x1 = x.copyTo(cpu(1));
    expect(b.forward(x1).dataSync()).toEqual(a.forward(x).dataSync());
    x.dispose();
    x1.dispose();
  });

  it('lists missing and extra names, refuses other dtypes, and changes nothing when it fails', async () => {
    const a = trained();
    const path = join(dir, 'mlp2.params');
    await a.saveParameters(path);
    class Wider extends Mlp {
      fc3 = new Dense(2);
    }
    const w = new Wider();
    await expect(w.loadParameters(path, { runtime: rt })).rejects.toThrow(
      /Parameter 'fc3.weight' is missing in 'file: .*mlp2.params', which contains parameters: fc1.weight, fc1.bias, fc2.weight, fc2.bias. Set allowMissing=true/,
    );
    await w.loadParameters(path, { runtime: rt, allowMissing: true });
    expect(w.fc1.weight.data().dataSync()).toEqual(a.fc1.weight.data().dataSync());

    class Narrow extends Block {
      fc1 = new Dense(16, { activation: 'relu' });
      forward(x: NDArray): NDArray {
        return this.fc1.forward(x);
      }
    }
    const n = new Narrow();
    n.initialize(undefined, { runtime: rt });
    n.forward(input(1, 5)).dispose();
    const before = Float32Array.from(n.fc1.weight.data().dataSync() as Float32Array);
    await expect(n.loadParameters(path)).rejects.toThrow(
      /Parameter 'fc2.weight' loaded from .* is not present in Dict/,
    );
    expect(n.fc1.weight.data().dataSync()).toEqual(before);
    await n.loadParameters(path, { ignoreExtra: true });
    expect(n.fc1.weight.data().dataSync()).toEqual(a.fc1.weight.data().dataSync());

    const h = new Mlp();
    h.initialize(undefined, { runtime: rt });
    h.cast('float64');
    await expect(h.loadParameters(path, { runtime: rt })).rejects.toThrow(
      /dtype incompatible expected float64 vs saved float32. Set castDtype=true/,
    );
    await h.loadParameters(path, { runtime: rt, castDtype: true });
    expect(h.fc2.bias?.data().dtype).toBe('float64');
  });
});

describe('summary', () => {
  it("prints MXNet's table: one row per layer, containers skipped, totals", () => {
    const net = new HybridSequential(new Dense(32, { activation: 'relu', inUnits: 64 }), new Dense(10));
    net.initialize(undefined, { runtime: rt });
    const x = input(1, 64);
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const text = net.summary(x);
    log.mockRestore();
    // Python: '{:>20}  {:>42} {:>15}'.format(...) for each row (MXNet 2.0 Block.summary).
    const row = (a: string, b: string, c: string) =>
      `${' '.repeat(20 - a.length)}${a}  ${' '.repeat(42 - b.length)}${b} ${' '.repeat(15 - c.length)}${c}`;
    expect(text.split('\n')).toEqual([
      '-'.repeat(80),
      row('Layer (type)', 'Output Shape', 'Param #'),
      '='.repeat(80),
      row('Input', '(1, 64)', '0'),
      row('Dense-1', '(1, 32)', '2080'),
      row('Dense-2', '(1, 10)', '330'),
      '='.repeat(80),
      'Parameters in forward computation graph, duplicate included',
      '   Total params: 2410',
      '   Trainable params: 2410',
      '   Non-trainable params: 0',
      'Shared params in forward computation graph: 0',
      'Unique parameters in model: 2410',
      '-'.repeat(80),
    ]);
    net.hybridize();
    expect(() => net.summary(x)).toThrow(/"Dense" must not be hybridized to print summary/);
    x.dispose();
  });
});
