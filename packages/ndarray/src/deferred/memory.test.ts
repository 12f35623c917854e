/**
 * Deferred compute and memory: deferred arrays hold no storage; computing one output allocates its
 * storage and frees every temporary it made (intermediates the program still holds get theirs, as
 * in MXNet); the usual Gluon-like cycle (bind, trace, export, compute, clear, dispose) passes
 * `nd.leakCheck`; the stand-in chunk forwards a release to the computed chunk; and a loop that
 * traces and reads without disposing anything stays bounded by the safety net.
 */
import { type Context, cpu, type StorageArray } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { saveJSON } from '@mx/graph';
import { afterAll, describe, expect, it } from 'vitest';
import { Chunk } from '../chunk.js';
import { createRuntime, type NDArray } from '../index.js';
import { PendingChunk } from './pending-chunk.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd, dc } = rt;
afterAll(() => rt.dispose());

/** The values of a float array as numbers. */
const nums = (v: StorageArray | undefined): number[] => Array.from((v ?? []) as ArrayLike<number>);

describe('storage', () => {
  it('a read allocates the output only; temporaries are freed, held intermediates keep theirs', () => {
    const x = nd.ones([64, 64]);
    dc.setVariable(x, 'x');
    const base = nd.memory();
    // Intermediates disposed by the scope: computed as temporaries and freed.
    const y = dc.context(() => nd.scopeSync(() => x.mul(2).add(1).exp().sqrt()));
    expect(nd.memory().chunks).toBe(base.chunks);
    expect(nd.memory().arrays).toBe(base.arrays + 1);
    y.waitToReadSync();
    expect(nd.memory().chunks).toBe(base.chunks + 1);
    expect(nd.memory().bytes).toBe(base.bytes + 64 * 64 * 4);
    // Intermediates the program holds get their values (MXNet: the arrays it still references).
    const [a, b, c] = dc.context(() => {
      const t = x.mul(2);
      const u = t.add(1);
      return [t, u, u.exp()];
    });
    (c as NDArray).waitToReadSync();
    expect(nd.memory().chunks).toBe(base.chunks + 4);
    expect(a?.isDeferred).toBe(false);
    expect(nums((b as NDArray).dataSync().slice(0, 2))).toEqual([3, 3]);
    for (const t of [y, a, b, c]) t?.dispose();
    expect(nd.memory().chunks).toBe(base.chunks);
    expect(nd.memory().arrays).toBe(base.arrays);
    x.dispose();
  });

  it('disposing a deferred array that was never computed frees nothing and counts right', () => {
    const x = nd.ones([4]);
    dc.setVariable(x, 'x');
    const base = nd.memory();
    const y = dc.context(() => x.add(1));
    y.dispose();
    expect(nd.memory()).toMatchObject({
      arrays: base.arrays - 0 - 0,
      chunks: base.chunks,
      bytes: base.bytes,
    });
    x.dispose();
  });

  it('the typical cycle passes leakCheck', async () => {
    await nd.leakCheck(async () => {
      const w = nd.ones([3, 4]);
      const b = nd.zeros([3]);
      const data = nd.array([1, 2, 3, 4, 5, 6, 7, 8], { shape: [2, 4] });
      const input = data.detach(); // Gluon binds a detached view of each input
      dc.setVariable([input, w, b], ['data', 'weight', 'bias']);
      const out = dc.context(() =>
        nd.scopeSync(() =>
          nd.Activation(nd.FullyConnected(input, w, b, { num_hidden: 3 }), { act_type: 'relu' }),
        ),
      );
      expect(saveJSON(dc.getSymbol(out, { inputs: [input, w, b] }))).toContain('"FullyConnected"');
      expect(nums(await out.data())).toEqual([10, 10, 10, 26, 26, 26]);
      dc.clear(out);
      for (const a of [w, b, data, input, out]) a.dispose();
    });
  });
});

describe('the stand-in chunk', () => {
  const backend = rt.backendFor(cpu(0));
  const counted = (ctx: Context) => {
    const released: number[] = [];
    const chunk = new Chunk(
      { releaseChunk: () => released.push(1) },
      null,
      rt.engine.newVariable(),
      ctx,
      backend,
      0,
    );
    return { chunk, released };
  };

  it('releases nothing before its array is computed, then forwards one release', () => {
    const p1 = new PendingChunk(rt.engine.newVariable(), cpu(0), backend);
    expect(p1.handle).toBeNull();
    expect(p1.bytes).toBe(0);
    p1.release(); // never computed: nothing to free
    const p2 = new PendingChunk(rt.engine.newVariable(), cpu(0), backend);
    const { chunk, released } = counted(cpu(0));
    p2.forwardTo(chunk);
    p2.release();
    expect(released).toEqual([1]);
    p2.release(); // a second release of the stand-in is a no-op
    expect(released).toEqual([1]);
  });
});

describe('a loop that traces and reads without disposing anything', () => {
  it('stays bounded by the safety net', () => {
    const MiB = 2 ** 20;
    const small = createRuntime({
      backends: [new CpuWasmBackend({ workers: 0 })],
      memory: { highWaterMark: 2 * MiB },
    });
    const x = small.nd.ones([64, 64]); // 16 KiB per array
    small.dc.setVariable(x, 'x');
    const steps = 2000;
    let last = 0;
    for (let i = 0; i < steps; i++) {
      const y = small.dc.context(() => x.mul(i).add(1).relu()); // three 16 KiB results per step
      last = y.dataSync()[0] as number;
    }
    expect(last).toBe(steps);
    // Deferred arrays that join the safety net before they are computed (the runtime registers
    // each batch of 256 new arrays): their release must reach the chunk computed later.
    for (let batch = 0; batch < 20; batch++) {
      const ys = Array.from({ length: 300 }, (_, j) => small.dc.context(() => x.mul(j)));
      for (const y of ys) y.waitToReadSync();
    }
    const cpu0 = small.memory().devices['cpu(0)'];
    // Without the releases reaching the computed chunks this would hold ~96 MiB twice over.
    expect(cpu0?.peakBytesReserved).toBeLessThan(16 * MiB);
    expect(small.memory().arrays).toBeLessThan(steps);
    x.dispose();
    void small.dispose();
  }, 120_000);
});
