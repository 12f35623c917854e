/**
 * The memory safety net end to end (memory/safety-net.ts): a training loop that disposes nothing
 * runs 20,000 MLP steps with the device pool bounded — synchronously (`dataSync()`, never yields,
 * so only the synchronous finalizers can help) and asynchronously (`await loss.item()`); the
 * out-of-memory error names the allocation sites holding the memory; options are validated.
 *
 * The leaking loops cannot run under `nd.leakCheck`: it holds every array it watches, which is
 * exactly what would stop the collector from freeing them. They check the stronger property
 * instead — the live array count at the end is back to the handful the loop keeps.
 */
import { MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { describe, expect, it } from 'vitest';
import type { NDArray } from '../ndarray.js';
import { createRuntime, type Runtime } from '../runtime.js';

const MiB = 2 ** 20;
const STEPS = 20_000;
// ~6 s each alone; `pnpm test` runs every package's tests at once on CI's 2 cores, where they took
// up to 60 s: a generous per-test limit (speed is measured in bench/memory.ts, not here).
const LONG = 300_000;

/** A small MLP (32-32-10, batch 16) and one SGD step: forward, backward, sgd_update on every parameter. */
function mlp(rt: Runtime): { step: () => NDArray; params: NDArray[] } {
  const { nd, autograd } = rt;
  const p = {
    w1: nd._random_normal({ shape: [32, 32], loc: 0, scale: 0.2 }),
    b1: nd.zeros([32]),
    w2: nd._random_normal({ shape: [10, 32], loc: 0, scale: 0.2 }),
    b2: nd.zeros([10]),
  };
  for (const w of Object.values(p)) w.attachGrad();
  const x = nd._random_uniform({ shape: [16, 32], low: -1, high: 1 });
  const y = nd.array(
    Float32Array.from({ length: 16 }, (_, i) => i % 10),
    { shape: [16] },
  );
  const step = (): NDArray => {
    const loss = autograd.record(() => {
      const h = nd.Activation(nd.FullyConnected(x, p.w1, p.b1, { num_hidden: 32 }), { act_type: 'relu' });
      const logits = nd.FullyConnected(h, p.w2, p.b2, { num_hidden: 10 });
      return nd.negative(nd.mean(nd.pick(nd.log_softmax(logits), y)));
    });
    loss.backward();
    for (const w of Object.values(p)) nd.sgd_update(w, w.grad as NDArray, { lr: 0.1, out: w });
    return loss;
  };
  return { step, params: [...Object.values(p), x, y] };
}

const leakyRuntime = () =>
  createRuntime({
    backends: [new CpuWasmBackend({ workers: 0 })],
    seed: 1,
    memory: { highWaterMark: 4 * MiB },
  });

describe('a training loop that disposes nothing', () => {
  it(
    'runs 20,000 synchronous steps (dataSync, never yields) with the pool bounded',
    () => {
      const rt = leakyRuntime();
      expect(rt.memory().gc).not.toBe('none'); // Node: a forced GC is available without flags
      const { step, params } = mlp(rt);
      const first = step().dataSync()[0] as number;
      let last = first;
      for (let i = 1; i < STEPS; i++) last = step().dataSync()[0] as number;
      expect(last).toBeLessThan(first); // it trained
      const cpu = rt.memory().devices['cpu(0)'];
      // A leak of ~10 arrays per step would need 20,000 × 10 × 1 KiB ≈ 200 MiB; the pool stays near the mark.
      expect(cpu?.peakBytesReserved).toBeLessThan(12 * MiB);
      expect(cpu?.numReclaims).toBeGreaterThan(0);
      // Reclaims follow the mark, not the allocations: far fewer than one per step.
      expect(cpu?.numReclaims).toBeLessThan(STEPS / 100);
      expect(rt.memory().arrays).toBeLessThan(STEPS / 4);
      for (const a of params) a.dispose();
    },
    LONG,
  );

  it(
    'runs 20,000 asynchronous steps (await loss.item()) with the pool bounded',
    async () => {
      const rt = leakyRuntime();
      const { step, params } = mlp(rt);
      const first = (await step().item()) as number;
      let last = first;
      for (let i = 1; i < STEPS; i++) last = (await step().item()) as number;
      expect(last).toBeLessThan(first);
      const cpu = rt.memory().devices['cpu(0)'];
      expect(cpu?.peakBytesReserved).toBeLessThan(12 * MiB);
      expect(cpu?.numReclaims).toBeGreaterThan(0);
      // The arrays themselves were collected (a leak would leave ~10 per step, 200,000).
      expect(rt.memory().arrays).toBeLessThan(STEPS / 4);
      await rt.waitall();
      for (const a of params) a.dispose();
    },
    LONG,
  );
});

describe('out of memory', () => {
  it('reports the live arrays by allocation site, with sampled creation stacks', async () => {
    // 1 MiB of wasm memory growable to 2 MiB, arrays kept reachable on purpose: nothing to reclaim.
    const rt = createRuntime({
      backends: [new CpuWasmBackend({ initialPages: 16, maximumPages: 32, workers: 0 })],
      memory: { highWaterMark: 256 * 1024, stackSampleEvery: 1 },
    });
    const { nd } = rt;
    await nd.leakCheck(async () => {
      const kept: NDArray[] = [];
      let err: unknown;
      try {
        for (let i = 0; i < 1000; i++) kept.push(nd.zeros([64, 64]));
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(MXNetError);
      const m = (err as MXNetError).message;
      expect(m).toMatch(
        /Memory allocation failed after releasing the pool cache and reclaiming unreachable arrays/,
      );
      expect(m).toMatch(/live arrays on cpu\(0\) by allocation site/);
      // Itemized from the first reclaim (at 256 KiB) on, 16 KiB each: e.g. "111 × ndarray float32
      // (64, 64) = 1.7 MiB"; the 16 made before are counted on their own line.
      const item = /\n {2}(\d+) × \S+ float32 \(64, 64\) = ([\d.]+) MiB\n/.exec(m);
      const older = /\((\d+) older live chunk\(s\) on all devices predate the first reclaim/.exec(m);
      const itemized = Number(item?.[1]);
      expect(itemized + Number(older?.[1])).toBe(kept.length);
      expect(Number(older?.[1])).toBe(16);
      expect(item?.[2]).toBe(((itemized * 16) / 1024).toFixed(1));
      expect(m).toContain('safety-net.test.ts'); // the creation stack points here
      expect(rt.memory().devices['cpu(0)']?.numReclaims).toBeGreaterThan(0);
      for (const a of kept) a.dispose();
      // Works again once the arrays are gone.
      const after = nd.zeros([64, 64]);
      expect(after.dataSync()[0]).toBe(0);
      after.dispose();
    });
  });

  it('validates the memory options', () => {
    const make = (memory: object) => () =>
      createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], memory });
    expect(make({ highWaterMark: -1 })).toThrow(/memory.highWaterMark must be a finite number >= 0/);
    expect(make({ growth: 0.5 })).toThrow(/memory.growth must be a finite number >= 1/);
    expect(make({ stackSampleEvery: Number.NaN })).toThrow(MXNetError);
    const off = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], memory: { forceGc: false } });
    expect(off.memory().gc).toBe('none');
  });
});
