import { MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type HostArray, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { Group, Pad, Stack } from './batchify.js';
import { DataLoader, type DataLoaderOptions } from './dataloader.js';
import { ArrayDataset, Dataset, SimpleDataset } from './dataset.js';
import { ModuleDataset } from './module-dataset.js';
import { MNIST } from './vision/datasets.js';
import { Compose, Normalize, ToTensor } from './vision/transforms.js';
import { importWorkerFn, workerFn } from './worker-spec.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd } = rt;
afterAll(() => rt.dispose());

/** Loaders made here: their kept-alive workers are terminated at the end. */
const loaders: DataLoader[] = [];
afterAll(() => Promise.all(loaders.map((l) => l.dispose())));
function makeLoader(...args: ConstructorParameters<typeof DataLoader>): DataLoader {
  const l = new DataLoader(...args);
  loaders.push(l);
  return l;
}

const PIPELINE = new URL('./__fixtures__/pipeline.mjs', import.meta.url);
const fixture = (name: string) => importWorkerFn<(...args: never[]) => unknown>(PIPELINE, name);
const iota = (n: number, start = 0) => Array.from({ length: n }, (_, i) => start + i);

interface Flat {
  readonly shape: readonly number[];
  readonly dtype: string;
  readonly values: number[];
}

/** A batch as plain values (NDArrays read and disposed). */
function flatten(batch: unknown): unknown {
  if (Array.isArray(batch)) return batch.map(flatten);
  const a = batch as NDArray;
  if (typeof a?.dataSync === 'function') {
    const f: Flat = {
      shape: [...a.shape],
      dtype: a.dtype,
      values: Array.from(a.dataSync() as ArrayLike<number>),
    };
    a.dispose();
    return f;
  }
  return batch;
}

async function collect(loader: DataLoader): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const b of loader) out.push(flatten(b));
  return out;
}

async function expectError(loader: DataLoader): Promise<{ error: MXNetError; delivered: number }> {
  let delivered = 0;
  try {
    for await (const b of loader) {
      flatten(b);
      delivered++;
    }
  } catch (e) {
    expect(e).toBeInstanceOf(MXNetError);
    expect(loader.activeWorkers).toBe(0);
    return { error: e as MXNetError, delivered };
  }
  throw new Error('expected the iteration to fail');
}

describe('DataLoader with worker threads', () => {
  it('numWorkers 2 gives the batches of numWorkers 0: MNIST, seeded shuffle, built-in transforms', async () => {
    const ds = new MNIST({ train: false })
      .take(150)
      .transformFirst(new Compose([new ToTensor(), new Normalize(0.1307, 0.3081)]));
    const options: DataLoaderOptions = { batchSize: 32, shuffle: true, seed: 3, lastBatch: 'rollover' };
    await nd.leakCheck(async () => {
      const main = makeLoader(rt, ds, options);
      const workers = makeLoader(rt, ds, { ...options, numWorkers: 2 });
      for (let epoch = 0; epoch < 2; epoch++) {
        const a = await collect(main);
        const b = await collect(workers);
        expect(b.length).toBe(epoch === 0 ? 4 : 5);
        expect(b).toEqual(a);
        expect((b[0] as Flat[])[0]?.shape).toEqual([32, 1, 28, 28]);
        // Kept alive for the next epoch.
        expect(workers.activeWorkers).toBe(2);
      }
      await workers.dispose();
      expect(workers.activeWorkers).toBe(0);
    });
  });

  it('user modules (importWorkerFn / workerFn), Group(Pad, Stack) and ModuleDataset run in workers', async () => {
    const double = await fixture('double');
    const rows: HostArray = { data: Float32Array.from(iota(40)), shape: [20, 2], dtype: 'float32' };
    const ds = new ArrayDataset(rows, Int32Array.from(iota(20, 100))).transformFirst(double);
    const main = await collect(makeLoader(rt, ds, { batchSize: 6, shuffle: true, seed: 11 }));
    const threads = await collect(
      makeLoader(rt, ds, { batchSize: 6, shuffle: true, seed: 11, numWorkers: 3 }),
    );
    expect(threads).toEqual(main);
    expect((main[0] as Flat[])[0]?.values.every((v) => v % 2 === 0)).toBe(true);

    const seqs = new ArrayDataset([[1, 2, 3], [4], [5, 6], [7, 8, 9, 10]], [0, 1, 2, 3]);
    const padded = { batchSize: 2, batchifyFn: new Group(new Pad(-1, { retLength: true }), new Stack()) };
    expect(await collect(makeLoader(rt, seqs, { ...padded, numWorkers: 2 }))).toEqual(
      await collect(makeLoader(rt, seqs, padded)),
    );

    const squares = await ModuleDataset.load(PIPELINE, 'squares', { n: 7 });
    const sumFirst = await fixture('sumFirst');
    const summed = await collect(
      makeLoader(rt, squares, { batchSize: 3, batchifyFn: sumFirst, numWorkers: 2 }),
    );
    expect(summed).toEqual([
      { shape: [1], dtype: 'float64', values: [3] },
      { shape: [1], dtype: 'float64', values: [12] },
      { shape: [1], dtype: 'float64', values: [6] },
    ]);
    const tagged = workerFn((x: number) => x, { module: PIPELINE, name: 'slow' });
    expect(tagged(4)).toBe(4);
  });

  it('NDArray fields are sent as host snapshots', async () => {
    await nd.leakCheck(async () => {
      const X = nd.array(
        iota(30).map((i) => i / 3),
        { shape: [10, 3] },
      );
      const Y = nd.array(iota(10));
      const ds = new ArrayDataset(X, Y);
      const opts = { batchSize: 4, shuffle: true, seed: 5 };
      expect(await collect(makeLoader(rt, ds, { ...opts, numWorkers: 2, prefetch: 0 }))).toEqual(
        await collect(makeLoader(rt, ds, opts)),
      );
      X.dispose();
      Y.dispose();
    });
  });

  it('break ends the iteration and terminates the workers', async () => {
    const ds = new SimpleDataset(Float32Array.from(iota(100)));
    const loader = makeLoader(rt, ds, { batchSize: 5, numWorkers: 2 });
    let seen = 0;
    for await (const b of loader) {
      expect(loader.activeWorkers).toBe(2);
      (b as NDArray).dispose();
      if (++seen === 2) break;
    }
    expect(seen).toBe(2);
    expect(loader.activeWorkers).toBe(0);
    // A fresh epoch starts new workers.
    expect((await collect(loader)).length).toBe(20);
    expect(loader.activeWorkers).toBe(2);
    await loader.dispose();
    expect(loader.activeWorkers).toBe(0);
  });

  it('keepAlive: 0 ends the workers with the epoch; otherwise they leave after keepAlive seconds', async () => {
    const ds = new SimpleDataset(Float32Array.from(iota(8)));
    const now = makeLoader(rt, ds, { batchSize: 4, numWorkers: 2, keepAlive: 0 });
    expect((await collect(now)).length).toBe(2);
    expect(now.activeWorkers).toBe(0);
    const soon = makeLoader(rt, ds, { batchSize: 4, numWorkers: 2, keepAlive: 0.05 });
    await collect(soon);
    expect(soon.activeWorkers).toBe(2);
    await collect(soon);
    expect(soon.activeWorkers).toBe(2);
    await new Promise((r) => setTimeout(r, 300));
    expect(soon.activeWorkers).toBe(0);
    expect(() => makeLoader(rt, ds, { batchSize: 4, keepAlive: -1 })).toThrow(/keepAlive must be/);
  });

  it('dispose() during an epoch fails the batches still awaited', async () => {
    const slow = await fixture('slow');
    const l = makeLoader(rt, new SimpleDataset([1, 2, 3, 4]).transform(slow), {
      batchSize: 1,
      numWorkers: 1,
    });
    const it = l[Symbol.asyncIterator]();
    const first = it.next();
    await new Promise((r) => setTimeout(r, 50));
    await l.dispose();
    await expect(first).rejects.toThrow(/the DataLoader was disposed while batches were still awaited/);
    expect(l.activeWorkers).toBe(0);
  });

  it('a throwing transform gives an MXNetError naming the sample, after the batches before it', async () => {
    const failOn13 = await fixture('failOn13');
    const ds = new ArrayDataset(Float32Array.from(iota(20)), iota(20)).transform(failOn13);
    const { error, delivered } = await expectError(makeLoader(rt, ds, { batchSize: 4, numWorkers: 2 }));
    expect(delivered).toBe(3);
    expect(error.message).toMatch(
      /^DataLoader: sample 13 failed \(worker \d, batch 3\): label 13 is unlucky/,
    );
    expect((error.cause as Error).message).toBe('label 13 is unlucky');
    expect((error.cause as Error).stack).toMatch(/failOn13/);
    // Errors of kernels keep their MXNet message.
    const ragged = new SimpleDataset([
      { data: new Float32Array(2), shape: [2], dtype: 'float32' },
      { data: new Float32Array(3), shape: [3], dtype: 'float32' },
    ]);
    const stack = await expectError(makeLoader(rt, ragged, { batchSize: 2, numWorkers: 1 }));
    expect(stack.error.message).toMatch(/batchify failed on samples \[0, 1\].*use batchify.Pad/s);
  });

  it('pipelines that cannot be sent fail before any worker starts', async () => {
    class Custom extends Dataset<number> {
      get length() {
        return 3;
      }
      get(i: number) {
        return i;
      }
    }
    const custom = makeLoader(rt, new Custom(), { batchSize: 2, numWorkers: 2 });
    expect((await expectError(custom)).error.message).toMatch(
      /a Custom cannot be sent to DataLoader worker threads/,
    );
    const closure = new SimpleDataset([1, 2]).transform((x: number) => x + 1);
    expect(
      (await expectError(makeLoader(rt, closure, { batchSize: 2, numWorkers: 1 }))).error.message,
    ).toMatch(/the transform an anonymous function cannot run in a worker thread/);
    const batchify = makeLoader(rt, new SimpleDataset([1, 2]), {
      batchSize: 2,
      numWorkers: 1,
      batchifyFn: function mine(s: number[]) {
        return s;
      },
    });
    expect((await expectError(batchify)).error.message).toMatch(
      /batchify function function 'mine' cannot run/,
    );
    const x = nd.zeros([2]);
    const list = makeLoader(rt, new SimpleDataset([x, x]), { batchSize: 2, numWorkers: 1 });
    expect((await expectError(list)).error.message).toMatch(/a list holding NDArrays/);
    x.dispose();
    expect(() => workerFn(() => 0, { module: './relative.js', name: 'f' })).toThrow(
      /not a URL or an absolute path/,
    );
    await expect(importWorkerFn(PIPELINE, 'notAFunction')).rejects.toThrow(
      /no exported function 'notAFunction'/,
    );
  });

  it('a module that fails in the worker is an init error', async () => {
    const ghost = workerFn((x: number) => x, { module: PIPELINE, name: 'missing' });
    const loader = makeLoader(rt, new SimpleDataset([1, 2, 3]).transform(ghost), {
      batchSize: 2,
      numWorkers: 2,
    });
    const { error, delivered } = await expectError(loader);
    expect(delivered).toBe(0);
    expect(error.message).toMatch(
      /could not build the data pipeline: module .*pipeline.mjs has no exported function 'missing'/,
    );
  });

  it('a worker that dies, a batch that cannot be cloned, and a timeout are errors', async () => {
    const exitWorker = await fixture('exitWorker');
    const dies = makeLoader(rt, new SimpleDataset([1, 2, 3, 4]).transform(exitWorker), {
      batchSize: 2,
      numWorkers: 1,
    });
    expect((await expectError(dies)).error.message).toMatch(
      /worker 0 stopped: the worker exited with code 3/,
    );

    const uncloneable = await fixture('uncloneable');
    const clone = makeLoader(rt, new SimpleDataset([1, 2]), {
      batchSize: 2,
      numWorkers: 1,
      batchifyFn: uncloneable,
    });
    expect((await expectError(clone)).error.message).toMatch(/batch 0 could not be sent back from worker 0/);

    const slow = await fixture('slow');
    const late = makeLoader(rt, new SimpleDataset([1, 2]).transform(slow), {
      batchSize: 1,
      numWorkers: 1,
      timeout: 0.05,
    });
    expect((await expectError(late)).error.message).toMatch(
      /worker 0 timed out after 0.05 seconds on batch 0 \(samples \[0\]\)/,
    );
  });

  it('more workers than batches, and an empty dataset', async () => {
    const few = await collect(
      makeLoader(rt, new SimpleDataset(Float32Array.of(1, 2, 3)), { batchSize: 2, numWorkers: 4 }),
    );
    expect(few).toEqual([
      { shape: [2], dtype: 'float32', values: [1, 2] },
      { shape: [1], dtype: 'float32', values: [3] },
    ]);
    expect(await collect(makeLoader(rt, new SimpleDataset([]), { batchSize: 2, numWorkers: 2 }))).toEqual([]);
  });
});
