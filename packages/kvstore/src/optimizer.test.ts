/**
 * An optimizer on the store (MXNet `set_optimizer`): MXNet's docstring example, an SGD-with-momentum
 * trajectory over pushes from two devices against NumPy (tools/golden/kvstore/store.py), saving and
 * restoring the optimizer states (bytes and files) mid-trajectory, and the refusals.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpu, MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { createOptimizer } from '@mx/optimizer';
import { afterAll, describe, expect, it } from 'vitest';
import golden from './__golden__/store.json' with { type: 'json' };
import { LocalKVStore } from './local.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd } = rt;
afterAll(async () => {
  await rt.dispose();
});

async function values(a: NDArray): Promise<number[]> {
  return Array.from((await a.data()) as Float32Array);
}

const sgd = golden.sgd as {
  shape: number[];
  options: { learningRate: number; momentum: number; wd: number; rescaleGrad: number };
  weight: number[];
  steps: { grads: number[][]; weight: number[] }[];
};
const devs = [cpu(0), cpu(1)];

/** Push steps [from, to) of the golden SGD run and check the pulled weight after each. */
async function run(kv: LocalKVStore, from: number, to: number): Promise<void> {
  const w = nd.zeros(sgd.shape);
  for (let k = from; k < to; k++) {
    const step = sgd.steps[k] as { grads: number[][]; weight: number[] };
    await nd.scope(async () => {
      kv.push(
        3,
        step.grads.map((g, d) => nd.array(Float32Array.from(g), { shape: sgd.shape, ctx: devs[d] })),
      );
    });
    kv.pull(3, w);
    const got = await values(w);
    got.forEach((x, i) => {
      const want = step.weight[i] as number;
      expect(Math.abs(x - want), `step ${k + 1}, element ${i}: ${x} vs ${want}`).toBeLessThanOrEqual(
        1e-6 + 1e-5 * Math.abs(want),
      );
    });
  }
  w.dispose();
}

describe('setOptimizer', () => {
  it("gives MXNet's docstring result: SGD() after pushing ones to zeros is -0.01", async () => {
    await nd.leakCheck(async () => {
      const kv = new LocalKVStore(rt);
      const weight = nd.zeros([2, 2]);
      kv.init(3, weight);
      kv.setOptimizer(createOptimizer('sgd'));
      const grad = nd.ones([2, 2]);
      kv.push(3, grad);
      kv.pull(3, weight);
      expect(await values(weight)).toEqual(Array(4).fill(Math.fround(-0.01)));
      kv.dispose();
      for (const a of [weight, grad]) a.dispose();
    });
  });

  it.each(['local', 'device'])('%s store: SGD with momentum over two devices follows NumPy', async (type) => {
    await nd.leakCheck(async () => {
      const kv = new LocalKVStore(rt, type);
      const w0 = nd.array(Float32Array.from(sgd.weight), { shape: sgd.shape });
      kv.init(3, w0);
      kv.setOptimizer(createOptimizer('sgd', sgd.options));
      await run(kv, 0, sgd.steps.length);
      expect(kv.storedContext(3)).toBe(cpu(0));
      kv.dispose();
      w0.dispose();
    });
  });

  it('saves and restores the states mid-run (bytes and a file), landing on the same trajectory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mx-kvstore-'));
    try {
      await nd.leakCheck(async () => {
        const first = new LocalKVStore(rt, 'device');
        const w0 = nd.array(Float32Array.from(sgd.weight), { shape: sgd.shape });
        first.init(3, w0);
        first.setOptimizer(createOptimizer('sgd', sgd.options));
        await run(first, 0, 2);
        const file = join(dir, 'states.bin');
        const bytes = await first.saveOptimizerStates(file, { dumpOptimizer: true });
        first.pull(3, w0);
        first.dispose();

        for (const source of [bytes, file]) {
          const second = new LocalKVStore(rt, 'device');
          second.init(3, w0);
          second.setOptimizer(createOptimizer('sgd', sgd.options));
          second.loadOptimizerStates(source);
          await run(second, 2, sgd.steps.length);
          second.dispose();
        }
        w0.dispose();
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('replacing the optimizer frees the old states; a function updater is not owned', async () => {
    await nd.leakCheck(async () => {
      const kv = new LocalKVStore(rt);
      nd.scopeSync(() => kv.init(0, nd.zeros([3])));
      kv.setOptimizer(createOptimizer('sgd', { momentum: 0.5 }));
      nd.scopeSync(() => kv.push(0, nd.ones([3])));
      kv.setOptimizer(createOptimizer('adam'));
      nd.scopeSync(() => kv.push(0, nd.ones([3])));
      let calls = 0;
      kv.setUpdater(() => {
        calls++;
      });
      nd.scopeSync(() => kv.push(0, nd.ones([3])));
      expect(calls).toBe(1);
      kv.dispose();
    });
  });

  it('refuses non-optimizers, and saving or loading without an optimizer', async () => {
    await nd.leakCheck(async () => {
      const kv = new LocalKVStore(rt);
      expect(() => kv.setOptimizer({} as never)).toThrow(/setOptimizer needs an Optimizer/);
      expect(() => kv.setUpdater(3 as never)).toThrow(MXNetError);
      await expect(kv.saveOptimizerStates()).rejects.toThrow(/no optimizer was set on this store/);
      kv.setUpdater(() => undefined);
      expect(() => kv.loadOptimizerStates(new Uint8Array(4))).toThrow(/no optimizer was set/);
      kv.setOptimizer(createOptimizer('sgd', { momentum: 0.9 }));
      const adam = new LocalKVStore(rt);
      adam.setOptimizer(createOptimizer('adam'));
      const bytes = await adam.saveOptimizerStates(undefined, { dumpOptimizer: true });
      expect(() => kv.loadOptimizerStates(bytes)).toThrow(/saved by Adam, not SGD/);
      adam.dispose();
      kv.dispose();
    });
  });
});
