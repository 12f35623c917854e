import { MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type HostArray, NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { ArrayDataset, Dataset, SimpleDataset } from './dataset.js';
import { RandomSampler, SequentialSampler } from './sampler.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd } = rt;
afterAll(() => rt.dispose());

const iota = (n: number, start = 0) => Array.from({ length: n }, (_, i) => start + i);
const sum = (xs: Iterable<number>) => [...xs].reduce((a, b) => a + b, 0);

describe('shard (test_dataset_shard)', () => {
  it('splits 9 samples into shards of 3, 2, 2, 2 covering everything once', () => {
    const a = new SimpleDataset(iota(9));
    const shards = [0, 1, 2, 3].map((i) => a.shard(4, i));
    expect(shards.map((s) => s.length)).toEqual([3, 2, 2, 2]);
    expect(shards.map((s) => [...s])).toEqual([
      [0, 1, 2],
      [3, 4],
      [5, 6],
      [7, 8],
    ]);
    expect(sum(shards.flatMap((s) => [...s]) as number[])).toBe(sum(a as Iterable<number>));
  });

  it("distributes the remainder to the first shards (MXNet's start/end formula)", () => {
    for (const n of [0, 1, 5, 10, 11, 17]) {
      for (const k of [1, 2, 3, 4, 7]) {
        const a = new SimpleDataset(iota(n));
        const parts = Array.from({ length: k }, (_, i) => [...a.shard(k, i)]);
        expect(parts.flat()).toEqual(iota(n));
        const sizes = parts.map((p) => p.length);
        expect(sizes).toEqual(sizes.map((_, i) => Math.floor(n / k) + (i < n % k ? 1 : 0)));
      }
    }
  });

  it('rejects bad shard arguments', () => {
    const a = new SimpleDataset(iota(4));
    expect(() => a.shard(4, 4)).toThrow('Shard index of out bound: 4 out of 4');
    expect(() => a.shard(0, 0)).toThrow('Number of shards must be greater than 0');
    expect(() => a.shard(2, -1)).toThrow('Index must be non-negative');
  });
});

describe('take (test_dataset_take)', () => {
  it('takes the first count samples, or all of them', () => {
    const a = new SimpleDataset(iota(100));
    expect(a.take(1000).length).toBe(100);
    expect(a.take(null).length).toBe(100);
    expect(a.take().length).toBe(100);
    const t = a.take(10);
    expect(t.length).toBe(10);
    expect(sum(t as Iterable<number>)).toBe(45);
    const xt = a.transform((x: number) => x * 10).take(10);
    expect([...xt]).toEqual(iota(10).map((x) => x * 10));
    expect(a.take(0).length).toBe(0);
    expect(() => a.take(-1)).toThrow(MXNetError);
  });
});

describe('filter (test_dataset_filter)', () => {
  it('keeps the samples fn accepts, after a transform', () => {
    const a = new SimpleDataset(iota(100));
    const f = a.filter((x: number) => x % 10 === 0);
    expect(f.length).toBe(10);
    expect([...f].every((x) => (x as number) % 10 === 0)).toBe(true);
    const xf = a.transform((x: number) => x + 1).filter((x) => (x as number) % 10 === 0);
    expect([...xf]).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
  });

  it('frees the NDArray samples it reads', async () => {
    await nd.leakCheck(() => {
      const x = nd.array(iota(12), { shape: [6, 2] });
      const f = new ArrayDataset(x).filter((row) => (row as NDArray).dataSync()[0] === 4);
      expect(f.length).toBe(1);
      const r = f.get(0) as NDArray;
      expect(Array.from(r.dataSync() as ArrayLike<number>)).toEqual([4, 5]);
      r.dispose();
      x.dispose();
    });
  });
});

describe('transform and transformFirst', () => {
  it('spreads tuples into fn, as fn(*item)', () => {
    const ds = new ArrayDataset([1, 2, 3], [10, 20, 30]);
    expect(ds.transform((x: number, y: number) => x + y).get(2)).toBe(33);
    expect(ds.transformFirst((x: number) => -x).get(1)).toEqual([-2, 20]);
    expect(new SimpleDataset([5]).transformFirst((x: number) => x + 1).get(0)).toBe(6);
    expect(ds.transform({ forward: (x: number, y: number) => [y, x] }).get(0)).toEqual([10, 1]);
  });

  it('is lazy by default, eager with lazy: false', () => {
    let calls = 0;
    const fn = (x: number) => {
      calls++;
      return x * 2;
    };
    const base = new SimpleDataset(iota(5));
    const lazy = base.transform(fn);
    expect(calls).toBe(0);
    lazy.get(1);
    lazy.get(1);
    expect(calls).toBe(2);
    const eager = base.transform(fn, { lazy: false });
    expect(calls).toBe(7);
    expect([...eager]).toEqual([0, 2, 4, 6, 8]);
    expect(calls).toBe(7);
  });

  it('frees the input rows it does not return', async () => {
    await nd.leakCheck(() => {
      const x = nd.array(iota(6), { shape: [3, 2] });
      const ds = new ArrayDataset(x, [0, 1, 2]).transformFirst((row: NDArray) => row.mul(2));
      const [r, label] = ds.get(2) as [NDArray, number];
      expect(Array.from(r.dataSync() as ArrayLike<number>)).toEqual([8, 10]);
      expect(label).toBe(2);
      r.dispose();
      x.dispose();
    });
  });

  it('lazy: false keeps the transformed NDArrays until dispose()', async () => {
    await nd.leakCheck(() => {
      const x = nd.array(iota(6), { shape: [3, 2] });
      const eager = new ArrayDataset(x).transform((row: NDArray) => row.add(1), { lazy: false });
      x.dispose();
      const r = eager.get(1) as NDArray;
      expect(Array.from(r.dataSync() as ArrayLike<number>)).toEqual([3, 4]);
      r.dispose();
      (eager as SimpleDataset).dispose();
    });
  });

  it('rejects a transform that is neither a function nor has forward', () => {
    expect(() => new SimpleDataset([1]).transform(3 as unknown as () => number)).toThrow(MXNetError);
  });
});

describe('ArrayDataset', () => {
  it('rows of NDArrays, numbers of 1-d arrays (test_array_dataset)', async () => {
    await nd.leakCheck(() => {
      const X = nd.array(
        iota(20).map((i) => i / 4),
        { shape: [10, 2] },
      );
      const Y = nd.array(iota(10).map((i) => i * 3));
      const ds = new ArrayDataset(X, Y);
      expect(ds.length).toBe(10);
      const [x, y] = ds.get(3) as [NDArray, number];
      expect(x).toBeInstanceOf(NDArray);
      expect(x.shape).toEqual([2]);
      expect(Array.from(x.dataSync() as ArrayLike<number>)).toEqual([1.5, 1.75]);
      expect(y).toBe(9);
      x.dispose();
      // The sample is a view: disposing it keeps the source alive.
      expect(X.isDisposed).toBe(false);
      X.dispose();
      Y.dispose();
    });
  });

  it('host arrays, typed arrays, lists and datasets as fields', () => {
    const img: HostArray = { data: Uint8Array.from(iota(24)), shape: [3, 2, 4], dtype: 'uint8' };
    const ds = new ArrayDataset(
      img,
      Int32Array.of(7, 8, 9),
      ['a', 'b', 'c'],
      new SimpleDataset([true, false, true]),
    );
    const [x, y, s, b] = ds.get(1) as [HostArray, number, string, boolean];
    expect(x.shape).toEqual([2, 4]);
    expect(x.dtype).toBe('uint8');
    expect(Array.from(x.data as ArrayLike<number>)).toEqual(iota(8, 8));
    expect([y, s, b]).toEqual([8, 'b', false]);
    const single = new ArrayDataset(Float32Array.of(0.5, 1.5));
    expect(single.get(1)).toBe(1.5);
    const half = new ArrayDataset({ data: Uint16Array.of(0x3c00, 0xc000), shape: [2], dtype: 'float16' });
    expect([...half]).toEqual([1, -2]);
  });

  it("length mismatch is MXNet's error", () => {
    expect(() => new ArrayDataset([1, 2, 3], [1, 2])).toThrow(
      'All arrays must have the same length; array[0] has length 3 while array[1] has 2.',
    );
    expect(() => new ArrayDataset()).toThrow('Needs at least 1 arrays');
    expect(() => new ArrayDataset({ data: new Float32Array(3), shape: [2, 2], dtype: 'float32' })).toThrow(
      /not a valid host array/,
    );
    expect(() => new ArrayDataset(3 as unknown as number[])).toThrow(/not an array, a list or a dataset/);
    expect(() => new ArrayDataset({ data: new Float32Array(1), shape: [], dtype: 'float32' })).toThrow(
      /zero-dim/,
    );
  });

  it('checks indices', () => {
    const ds = new ArrayDataset([1, 2]);
    expect(() => ds.get(2)).toThrow('index 2 is out of range for a dataset of 2 samples');
    expect(() => ds.get(-1)).toThrow(MXNetError);
    expect(() => ds.take(1).get(1)).toThrow(MXNetError);
  });
});

describe('sample and the base class', () => {
  it('sample(sampler) picks the sampled indices once', () => {
    const a = new SimpleDataset(iota(10, 100));
    expect([...a.sample(new SequentialSampler(3, 4))]).toEqual([104, 105, 106]);
    const r = a.sample(new RandomSampler(10, { seed: 0 }));
    // np.random.seed(0); np.random.shuffle(np.arange(10)) (see sampler.test.ts's golden)
    expect([...r]).toEqual([2, 8, 4, 9, 1, 6, 7, 3, 0, 5].map((i) => i + 100));
    expect(() => a.sample([1, 2] as unknown as SequentialSampler)).toThrow(
      'Invalid sampler type: Array. Expected gluon.data.Sampler instead.',
    );
  });

  it('subclasses implement length and get; workerSpec refuses by default', () => {
    class Squares extends Dataset<number> {
      get length() {
        return 4;
      }
      get(i: number) {
        return i * i;
      }
    }
    const s = new Squares();
    expect([...s.shard(2, 1)]).toEqual([4, 9]);
    expect(() => s.workerSpec()).toThrow(/a Squares cannot be sent to DataLoader worker threads/);
    expect(() => new SimpleDataset([1]).transform((x: number) => x).workerSpec()).toThrow(
      /cannot run in a worker thread[\s\S]*workerFn/,
    );
  });
});
