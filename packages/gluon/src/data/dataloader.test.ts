import { MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { Group, Pad, Stack } from './batchify.js';
import { DataLoader } from './dataloader.js';
import { ArrayDataset, SimpleDataset } from './dataset.js';
import { BatchSampler, SequentialSampler } from './sampler.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd } = rt;
afterAll(() => rt.dispose());

const iota = (n: number, start = 0) => Array.from({ length: n }, (_, i) => start + i);

/** The values of each batch (a single NDArray per batch), disposing the batches. */
function epoch(loader: Iterable<unknown>): number[][] {
  const out: number[][] = [];
  for (const b of loader) {
    const a = b as NDArray;
    out.push(Array.from(a.dataSync() as Float32Array));
    a.dispose();
  }
  return out;
}

describe('DataLoader on the calling thread', () => {
  it("test_array_dataset: batches of 2 equal the arrays' rows", async () => {
    await nd.leakCheck(() => {
      const xs = Float32Array.from(iota(200), (i) => Math.fround(Math.sin(i)));
      const ys = Float32Array.from(iota(10), (i) => i / 7);
      const X = nd.array(xs, { shape: [10, 20] });
      const loader = new DataLoader<[NDArray, NDArray]>(rt, new ArrayDataset(X, ys), { batchSize: 2 });
      expect(loader.length).toBe(5);
      let i = 0;
      for (const [x, y] of loader) {
        expect(x.shape).toEqual([2, 20]);
        expect(Array.from(x.dataSync() as ArrayLike<number>)).toEqual(
          Array.from(xs.subarray(40 * i, 40 * (i + 1))),
        );
        expect(y.dtype).toBe('float32');
        expect(Array.from(y.dataSync() as ArrayLike<number>)).toEqual(
          Array.from(ys.subarray(2 * i, 2 * (i + 1))),
        );
        x.dispose();
        y.dispose();
        i++;
      }
      expect(i).toBe(5);
      const single = new DataLoader<NDArray>(rt, new ArrayDataset(X), { batchSize: 4 });
      expect(epoch(single).map((b) => b.length)).toEqual([80, 80, 40]);
      X.dispose();
    });
  });

  it("lastBatch 'keep', 'discard' and 'rollover' (MXNet's BatchSampler rules)", () => {
    const ds = new SimpleDataset(Float32Array.from(iota(10)));
    expect(epoch(new DataLoader(rt, ds, { batchSize: 3 }))).toEqual([[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]);
    const discard = new DataLoader(rt, ds, { batchSize: 3, lastBatch: 'discard' });
    expect(discard.length).toBe(3);
    expect(epoch(discard)).toEqual([
      [0, 1, 2],
      [3, 4, 5],
      [6, 7, 8],
    ]);
    const roll = new DataLoader(rt, ds, { batchSize: 3, lastBatch: 'rollover' });
    expect(epoch(roll)).toEqual([
      [0, 1, 2],
      [3, 4, 5],
      [6, 7, 8],
    ]);
    expect(roll.length).toBe(3);
    expect(epoch(roll)).toEqual([
      [9, 0, 1],
      [2, 3, 4],
      [5, 6, 7],
    ]);
    expect(roll.length).toBe(4);
    expect(epoch(roll)).toEqual([
      [8, 9, 0],
      [1, 2, 3],
      [4, 5, 6],
      [7, 8, 9],
    ]);
  });

  it("shuffle with a seed gives NumPy's orders, a new one per epoch", () => {
    const ds = new SimpleDataset(Float32Array.from(iota(10)));
    const loader = new DataLoader(rt, ds, { batchSize: 5, shuffle: true, seed: 0 });
    // np.random.seed(0); two epochs of np.random.shuffle(np.arange(10)) (__golden__/data.json).
    expect(epoch(loader).flat()).toEqual([2, 8, 4, 9, 1, 6, 7, 3, 0, 5]);
    expect(epoch(loader).flat()).toEqual([3, 5, 1, 2, 9, 8, 0, 6, 7, 4]);
  });

  it('takes a sampler, a batch sampler and a batchify function', () => {
    const ds = new SimpleDataset(Float32Array.from(iota(6)));
    expect(epoch(new DataLoader(rt, ds, { batchSize: 2, sampler: new SequentialSampler(4, 2) }))).toEqual([
      [2, 3],
      [4, 5],
    ]);
    const bs = new BatchSampler(new SequentialSampler(5), 4, 'discard');
    expect(epoch(new DataLoader(rt, ds, { batchSampler: bs }))).toEqual([[0, 1, 2, 3]]);
    const sums = new DataLoader(rt, ds, {
      batchSize: 3,
      batchifyFn: (s: number[]) => s.reduce((a, b) => a + b),
    });
    expect([...sums]).toEqual([3, 12]);
  });

  it('Group(Stack, Pad) on variable-length samples; records convert too', async () => {
    await nd.leakCheck(() => {
      const seqs = [[1, 2, 3], [4], [5, 6]];
      const ds = new ArrayDataset(seqs, Float32Array.of(0, 1, 2));
      const loader = new DataLoader<[NDArray, NDArray]>(rt, ds, {
        batchSize: 3,
        batchifyFn: new Group(new Pad(-1), new Stack()),
      });
      for (const [x, y] of loader) {
        expect(x.arraySync()).toEqual([
          [1, 2, 3],
          [4, -1, -1],
          [5, 6, -1],
        ]);
        expect(Array.from(y.dataSync() as ArrayLike<number>)).toEqual([0, 1, 2]);
        x.dispose();
        y.dispose();
      }
      const records = new DataLoader<{ x: NDArray; n: number }>(rt, ds, {
        batchSize: 2,
        batchifyFn: (s: [number[], number][]) => ({
          x: new Stack().batchify(s.map((t) => t[1])),
          n: s.length,
        }),
      });
      const all = [...records];
      expect(all.map((r) => r.n)).toEqual([2, 1]);
      expect(Array.from(all[0]?.x.dataSync() as Float32Array)).toEqual([0, 1]);
      for (const r of all) r.x.dispose();
    });
  });

  it('frees the temporaries of transforms; batches are the only arrays left', async () => {
    await nd.leakCheck(async () => {
      const X = nd.array(iota(12), { shape: [6, 2] });
      const ds = new ArrayDataset(X).transform((x: NDArray) => x.mul(2).add(1));
      const loader = new DataLoader<NDArray>(rt, ds, { batchSize: 4 });
      const before = nd.memory().arrays;
      const batches = [...loader];
      expect(nd.memory().arrays).toBe(before + 2);
      expect(Array.from(batches[1]?.dataSync() as Float32Array)).toEqual([17, 19, 21, 23]);
      for (const b of batches) b.dispose();
      for await (const b of loader) b.dispose();
      X.dispose();
    });
  });

  it('an error while reading a sample names the sample', () => {
    const ds = new ArrayDataset(iota(20)).transform((x: number) => {
      if (x === 13) throw new Error('label 13 is unlucky');
      return x;
    });
    const loader = new DataLoader(rt, ds, { batchSize: 4 });
    let caught: unknown;
    let n = 0;
    try {
      for (const b of loader) {
        (b as NDArray).dispose();
        n++;
      }
    } catch (e) {
      caught = e;
    }
    expect(n).toBe(3);
    expect(caught).toBeInstanceOf(MXNetError);
    expect((caught as MXNetError).message).toMatch(/DataLoader: sample 13 failed: label 13 is unlucky/);
    expect(((caught as MXNetError).cause as Error).message).toBe('label 13 is unlucky');
  });

  it("option conflicts are MXNet's errors", () => {
    const ds = new SimpleDataset(iota(4));
    const seq = new SequentialSampler(4);
    const bs = new BatchSampler(seq, 2);
    expect(() => new DataLoader(rt, ds)).toThrow(
      'batchSize must be specified unless batchSampler is specified',
    );
    expect(() => new DataLoader(rt, ds, { batchSize: 2, shuffle: true, sampler: seq })).toThrow(
      'shuffle must not be specified if sampler is specified',
    );
    for (const extra of [
      { batchSize: 2 },
      { shuffle: true },
      { sampler: seq },
      { lastBatch: 'keep' as const },
    ]) {
      expect(() => new DataLoader(rt, ds, { batchSampler: bs, ...extra })).toThrow(
        /batchSize, shuffle, sampler, lastBatch and seed must not be specified if batchSampler is specified/,
      );
    }
    expect(() => new DataLoader(rt, ds, { batchSize: 2, seed: 1 })).toThrow(/seed is only used with shuffle/);
    expect(() => new DataLoader(rt, ds, { batchSize: 2, sampler: seq, seed: 1 })).toThrow(MXNetError);
    expect(() => new DataLoader(rt, ds, { batchSize: 2, lastBatch: 'pad' as 'keep' })).toThrow(
      /last_batch must be one of 'keep', 'discard', or 'rollover'/,
    );
    expect(() => new DataLoader(rt, ds, { batchSize: 0 })).toThrow(MXNetError);
    expect(() => new DataLoader(rt, ds, { batchSize: 2, timeout: 0 })).toThrow(
      'timeout must be positive, given 0',
    );
    expect(() => new DataLoader(rt, ds, { batchSize: 2, numWorkers: 1.5 })).toThrow(MXNetError);
    expect(() => new DataLoader(rt, ds, { batchSize: 2, batchifyFn: 3 as unknown as Stack })).toThrow(
      MXNetError,
    );
  });

  it('numWorkers and prefetch defaults', () => {
    const ds = new SimpleDataset(iota(4));
    expect(new DataLoader(rt, ds, { batchSize: 2, numWorkers: -3 }).numWorkers).toBe(0);
    expect(new DataLoader(rt, ds, { batchSize: 2, numWorkers: 3 }).prefetch).toBe(6);
    expect(new DataLoader(rt, ds, { batchSize: 2, numWorkers: 3, prefetch: -1 }).prefetch).toBe(0);
    const w = new DataLoader(rt, ds, { batchSize: 2, numWorkers: 2 });
    expect(() => [...w]).toThrow(/iterated with for await/);
    expect(w.activeWorkers).toBe(0);
  });
});
