import { MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import golden from './__golden__/shuffles.json' with { type: 'json' };
import type { DataBatch } from './data-iter.js';
import { type IterInput, type LastBatchHandle, NDArrayIter } from './ndarray-iter.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd } = rt;
afterAll(async () => {
  await rt.dispose();
});

const HANDLES: readonly LastBatchHandle[] = ['pad', 'discard', 'roll_over'];

/** test_io.py's data: 1000 samples, row i of (1000, 2, 2) and label (1000, 1) all i/100. */
function sampleData(): { data: NDArray; labels: NDArray } {
  const data = new Float32Array(4000);
  const labels = new Float32Array(1000);
  for (let i = 0; i < 1000; i++) {
    data.fill(i / 100, 4 * i, 4 * i + 4);
    labels[i] = i / 100;
  }
  return { data: nd.array(data, { shape: [1000, 2, 2] }), labels: nd.array(labels, { shape: [1000, 1] }) };
}

/** Float32 column 0 of every row: `batch.data[0].asnumpy()[:, 0, 0]`. */
function firstColumn(a: NDArray): number[] {
  const values = a.dataSync() as Float32Array;
  const row = a.size / (a.shape[0] as number);
  return Array.from({ length: a.shape[0] as number }, (_, r) => values[r * row] as number);
}

function drain(iter: NDArrayIter, each: (b: DataBatch) => void = () => {}): number {
  let count = 0;
  for (const batch of iter) {
    each(batch);
    batch.dispose();
    count++;
  }
  return count;
}

/** MXNet's _test_last_batch_handle (test_io.py) on one way of passing the inputs. */
function lastBatchHandle(data: IterInput, labels: IterInput | null, dataCount: number): void {
  const expectedCounts = { pad: [124, 100], discard: [100, 96], roll_over: [100, 96] };
  const batchCounts = { pad: 8, discard: 7, roll_over: 7 };
  let cache: number[] = [];
  let last: NDArrayIter | undefined;
  const hasLabels = labels !== null && !(Array.isArray(labels) && labels.length === 0);
  for (const handle of HANDLES) {
    const iter = new NDArrayIter(rt, { data, label: labels, batch_size: 128, last_batch_handle: handle });
    const labelCount = new Array(10).fill(0);
    const count = drain(iter, (batch) => {
      expect(batch.data).toHaveLength(dataCount);
      if (!hasLabels) {
        expect(batch.label).toEqual([]);
      } else {
        const label = Array.from(batch.label[0]?.dataSync() as Float32Array);
        expect(firstColumn(batch.data[0] as NDArray)).toEqual(label);
        for (const l of label) labelCount[Math.trunc(l)]++;
      }
      if (handle === 'pad' && batch.pad > 0) cache = Array.from(batch.data[0]?.dataSync() as Float32Array);
    });
    if (hasLabels) expect([labelCount[0], labelCount[8]]).toEqual(expectedCounts[handle]);
    expect(count).toBe(batchCounts[handle]);
    last?.dispose();
    last = iter;
  }
  // After reset, roll_over's first batch (the 104 rolled-over rows, then 24 from the start) is pad's last batch.
  const iter = last as NDArrayIter;
  iter.reset();
  const batch = iter.next() as DataBatch;
  expect(Array.from(batch.data[0]?.dataSync() as Float32Array)).toEqual(cache);
  expect(batch.pad).toBe(104);
  batch.dispose();
  iter.dispose();
}

describe('NDArrayIter: test_io.py::test_NDArrayIter', () => {
  it('gives 8 / 7 / 7 batches and label counts (124,100) / (100,96) / (100,96) for every way to pass inputs', async () => {
    const { data, labels } = sampleData();
    await nd.leakCheck(() => {
      lastBatchHandle(data, labels, 1);
      lastBatchHandle([data, data], labels, 2);
      lastBatchHandle([data, data], null, 2);
      lastBatchHandle({ data1: data, data2: data }, labels, 2);
      lastBatchHandle({ data1: data, data2: data }, null, 2);
      lastBatchHandle(data, [], 1);
      lastBatchHandle(data, null, 1);
    });
    data.dispose();
    labels.dispose();
  });

  it('accepts host data (float32 like mx.nd.array): nested arrays and typed arrays', async () => {
    await nd.leakCheck(() => {
      const rows = Array.from({ length: 1000 }, (_, i) => [
        [i / 100, i / 100],
        [i / 100, i / 100],
      ]);
      const labels = Float32Array.from({ length: 1000 }, (_, i) => i / 100);
      lastBatchHandle(rows, labels, 1);
      const iter = new NDArrayIter(rt, { data: rows, label: Float64Array.from(labels), batch_size: 10 });
      expect(iter.provideData.map(String)).toEqual(['DataDesc[data,(10, 2, 2),float32,NCHW]']);
      expect(iter.provideLabel.map(String)).toEqual(['DataDesc[softmax_label,(10,),float32,NCHW]']);
      iter.dispose();
    });
  });

  it('image-sized data (5000, 1, 28, 28) gives 40 / 39 / 39 batches', async () => {
    const data = nd.zeros([5000, 1, 28, 28]);
    const labels = nd.ones([5000, 1]);
    await nd.leakCheck(() => {
      for (const [handle, expected] of [
        ['pad', 40],
        ['discard', 39],
        ['roll_over', 39],
      ] as const) {
        const iter = new NDArrayIter(rt, { data, label: labels, batch_size: 128, last_batch_handle: handle });
        expect(drain(iter, (b) => expect(b.data[0]?.shape).toEqual([128, 1, 28, 28]))).toBe(expected);
        iter.dispose();
      }
    });
    data.dispose();
    labels.dispose();
  });

  it('_test_shuffle: batch i of a shuffled iterator is row idx[i]', async () => {
    const { data, labels } = sampleData();
    await nd.leakCheck(() => {
      for (const input of [data, [data, data], { data1: data, data2: data }] as IterInput[]) {
        const iter = new NDArrayIter(rt, {
          data: input,
          label: labels,
          batch_size: 1,
          shuffle: true,
          seed: 3,
        });
        const idx = iter.idx;
        expect([...idx].sort((a, b) => a - b)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
        let i = 0;
        drain(iter, (b) => {
          const want = Math.fround((idx[i++] as number) / 100);
          for (const d of b.data)
            expect(Array.from(d.dataSync() as Float32Array)).toEqual([want, want, want, want]);
          expect(Array.from(b.label[0]?.dataSync() as Float32Array)).toEqual([want]);
        });
        expect(i).toBe(1000);
        iter.dispose();
      }
    });
    data.dispose();
    labels.dispose();
  });
});

describe('NDArrayIter: shuffle order', () => {
  it.each(golden.numpy_shuffle.cases.filter((c) => c.n <= 1000).map((c) => [c.n, c.seed, c] as const))(
    'n=%i seed=%i gives MXNet order after np.random.seed(seed), epoch after epoch',
    async (n, seed, c) => {
      const data = nd.arange(0, n);
      await nd.leakCheck(() => {
        const iter = new NDArrayIter(rt, {
          data,
          batch_size: n,
          shuffle: true,
          seed,
          last_batch_handle: 'discard',
        });
        c.epochs.forEach((epoch, e) => {
          if (e > 0) iter.reset();
          expect(iter.idx).toEqual((epoch.idx as { perm: number[] }).perm);
          const batch = iter.next() as DataBatch;
          expect(Array.from(batch.data[0]?.dataSync() as Float32Array)).toEqual(
            (epoch.order as { perm: number[] }).perm,
          );
          batch.dispose();
          expect(iter.next()).toBeNull();
        });
        iter.dispose();
      });
      data.dispose();
    },
  );

  it('is deterministic with a seed and leaves the caller arrays untouched', async () => {
    const data = nd.arange(0, 50);
    await nd.leakCheck(() => {
      const take = (seed: number) => {
        const iter = new NDArrayIter(rt, { data, batch_size: 50, shuffle: true, seed });
        const batch = iter.next() as DataBatch;
        const values = Array.from(batch.data[0]?.dataSync() as Float32Array);
        batch.dispose();
        iter.dispose();
        return values;
      };
      expect(take(5)).toEqual(take(5));
      expect(take(5)).not.toEqual(take(6));
    });
    expect(Array.from(data.dataSync() as Float32Array)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    data.dispose();
  });
});

describe('NDArrayIter: batching rules', () => {
  const values = async (b: DataBatch) => Array.from((await (b.data[0] as NDArray).data()) as Float32Array);

  it('pads by tiling the data when the batch is larger than it', async () => {
    const data = nd.arange(0, 3);
    await nd.leakCheck(async () => {
      const iter = new NDArrayIter(rt, { data, batch_size: 8 });
      const b = iter.next() as DataBatch;
      expect(await values(b)).toEqual([0, 1, 2, 0, 1, 2, 0, 1]);
      expect(b.pad).toBe(5);
      b.dispose();
      expect(iter.next()).toBeNull();
      const discard = new NDArrayIter(rt, { data, batch_size: 8, last_batch_handle: 'discard' });
      expect(discard.next()).toBeNull();
      discard.dispose();
      iter.dispose();
    });
    data.dispose();
  });

  it('rolls the incomplete batch over into the next epoch (MXNet cursor arithmetic)', async () => {
    const data = nd.arange(0, 10);
    await nd.leakCheck(async () => {
      const iter = new NDArrayIter(rt, { data, batch_size: 4, last_batch_handle: 'roll_over' });
      const epoch = async () => {
        const out: [number[], number][] = [];
        for (let b = iter.next(); b !== null; b = iter.next()) {
          out.push([await values(b), b.pad]);
          b.dispose();
        }
        return out;
      };
      expect(await epoch()).toEqual([
        [[0, 1, 2, 3], 0],
        [[4, 5, 6, 7], 0],
      ]);
      iter.reset();
      expect(iter.cursor).toBe(-6);
      expect(await epoch()).toEqual([
        [[8, 9, 0, 1], 2],
        [[2, 3, 4, 5], 0],
        [[6, 7, 8, 9], 0],
      ]);
      iter.reset();
      expect(await epoch()).toEqual([
        [[0, 1, 2, 3], 0],
        [[4, 5, 6, 7], 0],
      ]);
      iter.hardReset();
      expect(await epoch()).toEqual([
        [[0, 1, 2, 3], 0],
        [[4, 5, 6, 7], 0],
      ]);
      iter.dispose(); // drops the rows it still holds for the next epoch
    });
    data.dispose();
  });

  it('exposes MXNet getters, async iteration and DataBatch printing', async () => {
    const data = nd.arange(0, 12).reshape([6, 2]);
    const label = nd.arange(0, 6);
    await nd.leakCheck(async () => {
      const iter = new NDArrayIter(nd, { data, label: [label, label], batch_size: 4 }); // `nd` works as well as the runtime
      expect(iter.provideLabel.map((d) => d.name)).toEqual(['_0_softmax_label', '_1_softmax_label']);
      let n = 0;
      for await (const b of iter) {
        expect(String(b)).toBe('DataBatch: data shapes: [(4, 2)] label shapes: [(4,), (4,)]');
        expect(b.index).toBeNull();
        b.dispose();
        n++;
      }
      expect(n).toBe(2);
      expect([...iter]).toEqual([]); // like a Python for loop: no implicit reset
      iter.reset();
      expect(iter.iterNext()).toBe(true);
      const [x] = iter.getData();
      expect(await x?.array()).toEqual([
        [0, 1],
        [2, 3],
        [4, 5],
        [6, 7],
      ]);
      x?.dispose();
      for (const a of iter.getLabel()) a.dispose();
      expect(iter.getPad()).toBe(0);
      iter.dispose();
    });
    data.dispose();
    label.dispose();
  });

  it('keeps working when batches are read inside nd.scope (its own arrays survive the scope)', async () => {
    const data = nd.arange(0, 10);
    await nd.leakCheck(async () => {
      const iter = new NDArrayIter(rt, {
        data,
        batch_size: 4,
        shuffle: true,
        seed: 1,
        last_batch_handle: 'roll_over',
      });
      const seen: number[] = [];
      for (let epoch = 0; epoch < 3; epoch++) {
        await nd.scope(async () => {
          for (let b = iter.next(); b !== null; b = iter.next()) seen.push(...(await values(b)));
          iter.reset();
        });
      }
      expect(seen).toHaveLength(8 + 12 + 8);
      expect(new Set(seen.slice(0, 8)).size).toBe(8);
      iter.dispose();
    });
    data.dispose();
  });

  it('reports bad arguments with MXNetError and leaves nothing behind', async () => {
    const data = nd.arange(0, 10);
    const short = nd.arange(0, 5);
    const scalar = nd.array(3);
    await nd.leakCheck(() => {
      const bad = (options: Record<string, unknown>, text: string) => {
        expect(() => new NDArrayIter(rt, options as never)).toThrow(MXNetError);
        expect(() => new NDArrayIter(rt, options as never)).toThrow(text);
      };
      bad({ data, batch_size: 0 }, 'batch_size must be a positive integer');
      bad({ data, last_batch_handle: 'keep' }, "unknown last_batch_handle 'keep'");
      bad({ data: [] }, 'data is empty');
      bad({ data, label: short }, "'softmax_label' has 5 rows, fewer than the 10 of 'data'");
      bad(
        {
          data: [
            [1, 2],
            [3, 4],
          ],
          label: [[1]],
        },
        "'softmax_label' has 1 rows",
      );
      bad({ data: scalar }, 'zero-dim');
      const iter = new NDArrayIter(rt, { data });
      iter.dispose();
      expect(() => iter.next()).toThrow('the NDArrayIter was disposed');
    });
    data.dispose();
    short.dispose();
    scalar.dispose();
  });
});
