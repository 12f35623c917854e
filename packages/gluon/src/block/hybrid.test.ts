/**
 * Hybridization: a traced forward equals the imperative one (outputs and gradients), the graph is
 * traced once per input structure, export writes MXNet's files with structural names that
 * SymbolBlock.imports reads back, and the misuse cases give MXNet's errors.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { Activation, Dense, Dropout, HybridSequential } from '../nn/basic.js';
import { HybridBlock } from './hybrid-block.js';
import { SymbolBlock } from './symbol-block.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })], seed: 11 });
const { nd } = rt;
const dir = mkdtempSync(join(tmpdir(), 'mx-gluon-hybrid-'));
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await rt.dispose();
});

class Mlp extends HybridBlock {
  fc1 = new Dense(32, { activation: 'relu' });
  drop = new Dropout(0.5);
  fc2 = new Dense(8);
  forward(x: NDArray): NDArray {
    return this.fc2.forward(this.drop.forward(this.fc1.forward(x)));
  }
}

const input = (rows: number, cols: number, phase = 0) =>
  nd.array(
    Float32Array.from({ length: rows * cols }, (_, i) => Math.cos(i * 0.11 + phase)),
    { shape: [rows, cols] },
  );

/** Two nets with equal parameters: b loads a's file. */
async function twins(): Promise<[Mlp, Mlp]> {
  const a = new Mlp();
  a.initialize(undefined, { runtime: rt });
  const x = input(2, 12);
  a.forward(x).dispose();
  x.dispose();
  const path = join(dir, `twin-${Math.random().toString(36).slice(2)}.params`);
  await a.saveParameters(path);
  const b = new Mlp();
  await b.loadParameters(path, { runtime: rt });
  return [a, b];
}

describe('HybridBlock.hybridize', () => {
  it('gives the imperative outputs and gradients, tracing once per structure', async () => {
    const [plain, hybrid] = await twins();
    hybrid.hybridize();
    const x = input(6, 12, 0.5);
    // Predict mode: Dropout is the identity, so both must agree.
    const want = plain.forward(x).dataSync() as Float32Array;
    const got = hybrid.forward(x).dataSync() as Float32Array;
    for (let i = 0; i < want.length; i++) expect(got[i]).toBeCloseTo(want[i] as number, 6);
    expect(hybrid.cachedOp?.stats.compiles).toBe(1);

    // Gradients with dropout off (rate applies only in training mode: record in predict mode).
    const lossOf = (net: Mlp) =>
      rt.autograd.record(() => nd.sum(nd.square(net.forward(x))), { trainMode: false });
    lossOf(plain).backward();
    lossOf(hybrid).backward();
    for (const [name, p] of [...plain.collectParams()].reverse()) {
      const g1 = p.grad().dataSync() as Float32Array;
      const g2 = hybrid.collectParams().get(name)?.grad().dataSync() as Float32Array;
      let worst = 0;
      let scale = 0;
      for (let i = 0; i < g1.length; i++) {
        worst = Math.max(worst, Math.abs((g1[i] as number) - (g2[i] as number)));
        scale = Math.max(scale, Math.abs(g1[i] as number));
      }
      expect(worst / scale, name).toBeLessThan(1e-5);
    }
    const x2 = input(3, 12);
    expect(hybrid.forward(x2).shape).toEqual([3, 8]);
    expect(hybrid.forward(x).shape).toEqual([6, 8]);
    x.dispose();
    x2.dispose();
  });

  it('exports MXNet files that SymbolBlock.imports runs to the same outputs', async () => {
    const net = new HybridSequential(
      new Dense(16, { activation: 'tanh' }),
      new Activation('relu'),
      new Dense(3),
    );
    net.initialize(undefined, { runtime: rt });
    net.hybridize();
    const x = input(4, 7);
    const want = Float32Array.from((net.forward(x) as NDArray).dataSync() as Float32Array);
    const { symbolFile, paramsFile } = await net.export(join(dir, 'seq'), 2);
    expect(paramsFile.endsWith('seq-0002.params')).toBe(true);
    const json = JSON.parse(readFileSync(symbolFile, 'utf8')) as { nodes: { op: string; name: string }[] };
    expect(json.nodes.filter((n) => n.op === 'null').map((n) => n.name)).toEqual([
      'data',
      '0.weight',
      '0.bias',
      '2.weight',
      '2.bias',
    ]);
    const keys = Object.keys((await nd.load(paramsFile)) as Record<string, NDArray>).sort();
    expect(keys).toEqual(['arg:0.bias', 'arg:0.weight', 'arg:2.bias', 'arg:2.weight']);
    const back = await SymbolBlock.imports(symbolFile, ['data'], paramsFile, { runtime: rt });
    expect((back.forward(x) as NDArray).dataSync()).toEqual(want);
    x.dispose();
  });

  it('refuses export before a forward, and a different argument structure', async () => {
    const net = new Mlp();
    net.initialize(undefined, { runtime: rt });
    net.hybridize();
    expect(() => net.exportSymbol()).toThrow(/Please first call block.hybridize\(\) and then run forward/);
    const x = input(2, 5);
    net.forward(x).dispose();
    expect(() => (net.forward as (...a: NDArray[]) => NDArray)(x, x)).toThrow(
      /argument structure of HybridBlock does not match/,
    );
    x.dispose();
  });

  it('trains in a loop without dispose() and without leaks', async () => {
    const net = new HybridSequential(new Dense(16, { activation: 'relu' }), new Dense(4));
    net.initialize(undefined, { runtime: rt });
    net.hybridize();
    const x = input(8, 6);
    const step = () =>
      nd.scopeSync(() => {
        const loss = rt.autograd.record(() => nd.mean(nd.square(net.forward(x) as NDArray)));
        loss.backward();
        for (const p of net.collectParams().values())
          nd.sgd_update(p.data(), p.grad(), { lr: 0.1, out: p.data() });
      });
    // The first recorded call compiles the CachedOp's training graph and keeps its buffers: a cache.
    step();
    await nd.leakCheck(() => {
      for (let i = 0; i < 5; i++) step();
    });
    x.dispose();
  });
});

describe('what cannot be hybridized', () => {
  it("refuses in-place writes (MXNet's message) and reads of values, and stays usable", () => {
    class Inplace extends HybridBlock {
      fc = new Dense(3, { inUnits: 2 });
      forward(x: NDArray): NDArray {
        const y = this.fc.forward(x);
        nd.relu(y, { out: y });
        return y;
      }
    }
    class Branchy extends HybridBlock {
      fc = new Dense(3, { inUnits: 2 });
      forward(x: NDArray): NDArray {
        const y = this.fc.forward(x);
        return (y.dataSync()[0] as number) > 0 ? y : nd.negative(y);
      }
    }
    const x = input(2, 2);
    const a = new Inplace();
    a.initialize(undefined, { runtime: rt });
    const eager = Float32Array.from((a.forward(x) as NDArray).dataSync() as Float32Array);
    a.hybridize();
    expect(() => a.forward(x)).toThrow(
      /Inplace operations \(\+=, -=, x\[:\]=, etc\) are not supported when recording/,
    );
    a.hybridize(false);
    expect((a.forward(x) as NDArray).dataSync()).toEqual(eager);

    const b = new Branchy();
    b.initialize(undefined, { runtime: rt });
    b.forward(x).dispose();
    b.hybridize();
    expect(() => b.forward(x)).toThrow(
      /hybridize\(\) of Branchy: the traced forward reads the value of a deferred array \(node_\d+, shape \(2, 3\)\)/,
    );
    expect(rt.dc.isDeferredCompute()).toBe(false);
    b.hybridize(false);
    expect(b.forward(x).shape).toEqual([2, 3]);
    x.dispose();
  });
});
