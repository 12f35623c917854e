import { Env } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { type KVStore, LocalKVStore } from '@mx/kvstore';
import { createRuntime, type RowSparseNDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import type { Parameter } from './block/parameter.js';
import { Constant } from './init/fixed-inits.js';
import { L2Loss } from './loss/index.js';
import { batch, close, g, label, nums, RspBag, type Step, setInitial } from './test-util/sparse-bag.js';
import { Trainer, type TrainerOptions } from './trainer.js';

const rt = createRuntime({
  backends: [new CpuWasmBackend({ workers: 0 })],
  env: new Env({ MXNET_STORAGE_FALLBACK_LOG_VERBOSE: '0' }),
});
const { nd } = rt;
afterAll(() => rt.dispose());

const rowsOf = (full: readonly number[], rows: readonly number[]) =>
  rows.flatMap((r) => full.slice(r * g.dim, (r + 1) * g.dim));

function goldenNet(): RspBag {
  const net = new RspBag();
  net.initialize(undefined, { runtime: rt });
  setInitial(nd, net.out, net.weight);
  return net;
}

/** One forward/backward/step on golden batch `s`. */
function trainStep(net: RspBag, trainer: Trainer, s: number): void {
  const x = batch(nd, s);
  const y = label(nd, s);
  rt.autograd.record(() => new L2Loss().forward(net.forward(x), y)).backward();
  trainer.step(g.batch);
  x.dispose();
  y.dispose();
}

/** The weight as the store holds it (a dense pull of the key, not through the Parameter). */
async function stored(kv: KVStore, key: number): Promise<number[]> {
  const out = nd.zeros([g.vocab, g.dim]);
  kv.pull(key, out, { ignoreSparse: false });
  return nums(await out.data());
}

describe('a row_sparse weight held and updated by the KVStore reaches the PyTorch weights', () => {
  const stores: [string, () => TrainerOptions][] = [
    ["kvstore: 'local'", () => ({ kvstore: 'local' })],
    ["kvstore: 'device'", () => ({ kvstore: 'device' })],
    ["a LocalKVStore('device') object", () => ({ kvstore: new LocalKVStore(rt, 'device') })],
  ];
  it.each(stores)('%s', async (_name, options) => {
    const net = goldenNet();
    const opts = options();
    const trainer = new Trainer(net.collectParams(), 'sgd', { learningRate: g.lr }, opts);
    const key = trainer.params.indexOf(net.weight);
    for (let s = 0; s < g.steps.length; s++) {
      trainStep(net, trainer, s);
      const kv = trainer.kvstore as KVStore;
      expect(kv.type).toBe(typeof opts.kvstore === 'string' ? opts.kvstore : 'device');
      expect(trainer.updateOnKvstore).toBe(true);
      const want = g.steps[s] as Step;
      close(await stored(kv, key), want.embedding);
      close(nums(await net.out.weight.data().data()), want.dense_weight);
      close(nums(await (net.out.bias as Parameter).data().data()), want.dense_bias);
    }
    // Rows pulled through the store: each requested row once, sorted (repeated, unordered ids).
    const last = (g.steps.at(-1) as Step).embedding;
    const rows = await (net.weight.rowSparseData(nd.array([5, 1, 5, 3])) as RowSparseNDArray).parts();
    expect(nums(rows.indices)).toEqual([1, 3, 5]);
    close(nums(rows.data), rowsOf(last, [1, 3, 5]));
    // The full weight read through the Parameter (as saveParameters does) is the store's.
    close(nums(await net.weight.updateArray().data()), last);
    trainer.dispose();
    if (typeof opts.kvstore !== 'string') (opts.kvstore as KVStore).dispose();
  });

  it('kvstore: null keeps the weight in the Parameter and reaches the same weights', async () => {
    const net = goldenNet();
    const trainer = new Trainer(net.collectParams(), 'sgd', { learningRate: g.lr }, { kvstore: null });
    for (let s = 0; s < g.steps.length; s++) {
      trainStep(net, trainer, s);
      expect(trainer.kvstore).toBeNull();
      close(nums(await net.weight.updateArray().data()), (g.steps[s] as Step).embedding);
    }
    const rows = await (net.weight.rowSparseData(nd.array([7, 0])) as RowSparseNDArray).parts();
    expect(nums(rows.indices)).toEqual([0, 7]);
    close(nums(rows.data), rowsOf((g.steps.at(-1) as Step).embedding, [0, 7]));
  });

  it('the first rowSparseData makes the store and pulls the initial rows; zero rows are stored and updated', async () => {
    const net = goldenNet();
    // Row 4 all zero: the store must still hold it (lazy updates need every row).
    const init = g.embedding0.slice();
    init.splice(4 * g.dim, g.dim, ...new Array<number>(g.dim).fill(0));
    net.weight.setData(nd.array(init, { shape: [g.vocab, g.dim] }));
    const trainer = new Trainer(
      net.collectParams(),
      'sgd',
      { learningRate: 0.5, wd: 0.1 },
      { kvstore: 'local' },
    );
    expect(trainer.kvstore).toBeUndefined();
    const rows = await (net.weight.rowSparseData(nd.array([4, 2])) as RowSparseNDArray).parts();
    expect(trainer.kvstore?.type).toBe('local');
    expect(nums(rows.indices)).toEqual([2, 4]);
    close(nums(rows.data), rowsOf(init, [2, 4]));
    // A gradient on rows 4 and 9 only: a lazy SGD step w -= lr * (g + wd * w) on those rows alone.
    const x = nd.array([4, 9, 4], { shape: [1, 3] });
    rt.autograd.record(() => nd.sum(net.forward(x))).backward();
    const grad = await (net.weight.grad() as RowSparseNDArray).parts();
    expect(nums(grad.indices)).toEqual([4, 9]);
    const gRows = nums(grad.data);
    trainer.step(1);
    const want = init.slice();
    [4, 9].forEach((r, j) => {
      for (let k = 0; k < g.dim; k++) {
        const w = init[r * g.dim + k] as number;
        want[r * g.dim + k] = w - 0.5 * ((gRows[j * g.dim + k] as number) + 0.1 * w);
      }
    });
    close(await stored(trainer.kvstore as KVStore, trainer.params.indexOf(net.weight)), want);
    trainer.dispose();
  });

  it('a deferred parameter joins the store once initialized (same weights as kvstore: null)', async () => {
    const run = async (kvstore: 'local' | null) => {
      const net = new RspBag(undefined);
      net.initialize(new Constant(0.25), { runtime: rt });
      const trainer = new Trainer(net.collectParams(), 'sgd', { learningRate: 0.1 }, { kvstore });
      for (const s of [0, 1]) trainStep(net, trainer, s);
      const out = [
        nums(await net.weight.updateArray().data()),
        nums(await net.out.weight.data().data()),
        nums(await (net.out.bias as Parameter).data().data()),
      ];
      trainer.dispose();
      return out;
    };
    const [a, b] = [await run('local'), await run(null)];
    for (const [i, v] of a.entries()) close(v, b[i] as number[]);
    // The Dense weight moved: the step really updated it through the store.
    expect((a[1] as number[]).some((v) => Math.abs(v - 0.25) > 1e-3)).toBe(true);
  });
});

describe("MXNet's rules for row_sparse weights with a store", () => {
  it('updateOnKvstore false, compression, a second Trainer: refused', () => {
    const net = goldenNet();
    expect(
      () => new Trainer(net.collectParams(), 'sgd', {}, { kvstore: 'local', updateOnKvstore: false }),
    ).toThrow('Cannot set update_on_kvstore=False when sparse weights are present.');
    expect(
      () =>
        new Trainer(
          net.collectParams(),
          'sgd',
          {},
          { kvstore: 'device', compressionParams: { type: '2bit', threshold: 0.5 } },
        ),
    ).toThrow(/gradient compression is not supported with row_sparse weights/);
    const first = new Trainer(net.collectParams(), 'sgd', {}, { kvstore: 'local' });
    expect(() => new Trainer(net.collectParams(), 'sgd', {}, { kvstore: 'local' })).toThrow(
      "Failed to set the trainer for Parameter 'weight' because it was already set. More than one trainers for a row_sparse Parameter is not supported.",
    );
    first.dispose();
    // Once the first Trainer let go, another may take the parameter.
    new Trainer(net.collectParams(), 'sgd', {}, { kvstore: 'local' }).dispose();
  });

  it('a store that cannot run optimizers is refused (MXNet: sparse weights need optimizer support)', () => {
    class NoOptimizer extends LocalKVStore {
      override isCapable(): boolean {
        return false;
      }
    }
    const kv = new NoOptimizer(rt, 'local');
    const net = goldenNet();
    const trainer = new Trainer(net.collectParams(), 'sgd', {}, { kvstore: kv });
    expect(() => net.weight.rowSparseData(nd.array([0]))).toThrow(
      /KVStore with sparse weight requires optimizer support/,
    );
    expect(kv.keys()).toEqual([]);
    trainer.dispose();
    kv.dispose();
  });

  it('allreduceGrads / update, setData on a held weight, bad row ids: refused, nothing changed', async () => {
    const net = goldenNet();
    const trainer = new Trainer(net.collectParams(), 'sgd', { learningRate: g.lr }, { kvstore: 'local' });
    trainStep(net, trainer, 0);
    expect(() => trainer.allreduceGrads()).toThrow(
      /allreduce_grads\(\) when parameters are updated on kvstore is not supported/,
    );
    expect(() => trainer.update(1)).toThrow(
      /update\(\) when parameters are updated on kvstore is not supported/,
    );
    expect(() => net.weight.setData(nd.zeros([g.vocab, g.dim]))).toThrow(
      /cannot set_data on a row_sparse weight that the Trainer's KVStore holds already/,
    );
    expect(() => net.weight.rowSparseData(nd.array([1, g.vocab]))).toThrow(/which is not a row of the key/);
    const want = (g.steps[0] as Step).embedding;
    close(await stored(trainer.kvstore as KVStore, trainer.params.indexOf(net.weight)), want);
    close(nums(await net.weight.updateArray().data()), want);
    trainer.dispose();
  });
});
