import { Env } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray, RowSparseNDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { HybridBlock } from './block/hybrid-block.js';
import { Parameter } from './block/parameter.js';
import { L2Loss } from './loss/index.js';
import { Dense } from './nn/basic.js';
import { Embedding } from './nn/misc.js';
import { batch, close, g, label, nums, RspBag, type Step, setInitial } from './test-util/sparse-bag.js';
import { Trainer } from './trainer.js';

// The optimizer's fused updates may still fall back to dense for row_sparse gradients: quiet.
const rt = createRuntime({
  backends: [new CpuWasmBackend({ workers: 0 })],
  env: new Env({ MXNET_STORAGE_FALLBACK_LOG_VERBOSE: '0' }),
});
const { nd } = rt;
afterAll(() => rt.dispose());

/** Embedding-bag with nn.Embedding (dense or row_sparse gradient). */
class Bag extends HybridBlock {
  emb: Embedding;
  out = new Dense(g.classes, { inUnits: g.dim });
  constructor(sparseGrad: boolean) {
    super();
    this.emb = new Embedding(g.vocab, g.dim, { sparseGrad });
  }
  forward(x: NDArray): NDArray {
    return this.out.forward(nd.sum(this.emb.forward(x), { axis: 1 }));
  }
}

/** Runs the golden steps; `check(step, emb)` sees the gradient before each update. */
function train(net: Bag | RspBag, emb: Parameter, check?: (s: number) => Promise<void> | void) {
  const trainer = new Trainer(net.collectParams(), 'sgd', { learningRate: g.lr });
  const loss = new L2Loss();
  return (async () => {
    for (let s = 0; s < g.steps.length; s++) {
      const x = batch(nd, s);
      const y = label(nd, s);
      rt.autograd.record(() => loss.forward(net.forward(x), y)).backward();
      await check?.(s);
      trainer.step(g.batch);
      const want = g.steps[s] as Step;
      close(nums(await (emb.stype === 'default' ? emb.data() : emb.updateArray()).data()), want.embedding);
      close(nums(await net.out.weight.data().data()), want.dense_weight);
      close(nums(await (net.out.bias as Parameter).data().data()), want.dense_bias);
      x.dispose();
      y.dispose();
    }
    return trainer;
  })();
}

describe('training an Embedding-bag with sparse gradients matches the dense PyTorch model', () => {
  it('dense gradients (the reference run)', async () => {
    const net = new Bag(false);
    net.initialize(undefined, { runtime: rt });
    setInitial(nd, net.out, net.emb.weight);
    await train(net, net.emb.weight);
  });

  it('nn.Embedding({ sparseGrad: true }): a row_sparse gradient of the batch rows, same weights', async () => {
    const net = new Bag(true);
    net.initialize(undefined, { runtime: rt });
    setInitial(nd, net.out, net.emb.weight);
    expect(net.emb.weight.gradStype).toBe('row_sparse');
    await train(net, net.emb.weight, async (s) => {
      const grad = net.emb.weight.grad();
      expect(grad).toBeInstanceOf(RowSparseNDArray);
      const p = await (grad as RowSparseNDArray).parts();
      const want = g.steps[s] as Step;
      expect(nums(p.indices)).toEqual(want.grad_rows);
      close(nums(p.data), want.emb_grad_rows, 4);
    });
  });

  it('hybridized, the sparse-gradient model trains the same', async () => {
    const net = new Bag(true);
    net.initialize(undefined, { runtime: rt });
    net.hybridize();
    setInitial(nd, net.out, net.emb.weight);
    await train(net, net.emb.weight, async (s) => {
      const grad = net.emb.weight.grad();
      expect(grad.stype).toBe('row_sparse');
      expect(nums((await (grad as RowSparseNDArray).parts()).indices)).toEqual(
        (g.steps[s] as Step).grad_rows,
      );
    });
  });

  it('a row_sparse weight read through rowSparseData, updated by the Trainer, same weights', async () => {
    const net = new RspBag();
    net.initialize(undefined, { runtime: rt });
    setInitial(nd, net.out, net.weight);
    await train(net, net.weight, async (s) => {
      const want = g.steps[s] as Step;
      const grad = await (net.weight.grad() as RowSparseNDArray).parts();
      expect(nums(grad.indices)).toEqual(want.grad_rows);
      close(nums(grad.data), want.emb_grad_rows, 4);
    });
    // rowSparseData holds exactly the requested rows (repeated, unordered ids), from the updated weight.
    const ids = nd.array([5, 1, 5, 3]);
    const rows = await (net.weight.rowSparseData(ids) as RowSparseNDArray).parts();
    expect(nums(rows.indices)).toEqual([1, 3, 5]);
    const last = (g.steps.at(-1) as Step).embedding;
    close(
      nums(rows.data),
      [1, 3, 5].flatMap((r) => last.slice(r * g.dim, (r + 1) * g.dim)),
    );
    expect(() => net.weight.data()).toThrow(
      /Cannot return a copy of Parameter 'weight' on ctx None via data\(\) because its storage type is row_sparse/,
    );
    expect(() => net.weight.listData()).toThrow(/via list_data\(\) because its storage type is row_sparse/);
  });
});

describe('sparse gradient buffers', () => {
  it("zeroGrad empties a row_sparse gradient; gradReq 'add' accumulates over batches", async () => {
    const emb = new Embedding(g.vocab, g.dim, { sparseGrad: true });
    emb.initialize(undefined, { runtime: rt });
    emb.weight.gradReq = 'add';
    expect(emb.weight.grad().stype).toBe('row_sparse');
    const ones = nd.ones([g.batch, g.bag, g.dim]);
    for (const s of [0, 1]) {
      const x = batch(nd, s);
      rt.autograd.record(() => emb.forward(x)).backward(ones);
    }
    // Each row's gradient is the number of times it was looked up (times a row of ones).
    const counts = new Array<number>(g.vocab).fill(0);
    for (const s of [0, 1]) for (const i of g.batches[s] as number[]) counts[i] = (counts[i] as number) + 1;
    const dense = nums(await emb.weight.grad().data());
    close(
      dense,
      counts.flatMap((c) => new Array(g.dim).fill(c)),
    );
    emb.weight.zeroGrad();
    const p = await (emb.weight.grad() as RowSparseNDArray).parts();
    expect([p.storageShape, nums(p.indices)]).toEqual([[0, g.dim], []]);
    expect(emb.weight.grad().stype).toBe('row_sparse');
  });

  it('the stale-gradient check covers row_sparse weights', () => {
    const net = new RspBag();
    net.initialize(undefined, { runtime: rt });
    const trainer = new Trainer(net.collectParams(), 'sgd', { learningRate: 0.1 });
    const x = batch(nd, 0);
    rt.autograd.record(() => nd.sum(net.forward(x))).backward();
    trainer.step(1);
    expect(() => trainer.step(1)).toThrow(
      /Gradient of Parameter `weight` .* has not been updated by backward/,
    );
  });
});

describe("MXNet's refusals", () => {
  it('bad storage types, and each reader refusing the other storage type', () => {
    expect(() => new Parameter('w', { gradStype: 'coo' as never })).toThrow(
      "grad_stype for Parameter 'w' must be one of 'default', 'row_sparse', or 'csr', but got 'coo'",
    );
    expect(() => new Parameter('w', { stype: 'dense' as never })).toThrow(
      /stype for Parameter 'w' must be one of/,
    );
    expect(() => new Parameter('w', { stype: 'csr' })).toThrow(/csr weights are not supported/);
    const p = new Parameter('weight', { shape: [3, 2] });
    p.initialize({ runtime: rt });
    expect(() => p.rowSparseData(nd.array([0]))).toThrow(
      'Cannot return a copy of Parameter weight via row_sparse_data() because its storage type is default. Please use data() instead.',
    );
    const r = new Parameter('weight', { shape: [3, 2], stype: 'row_sparse' });
    expect(() => r.rowSparseData(nd.array([0]))).toThrow(/has not been initialized/);
    r.initialize({ runtime: rt });
    expect(() => r.rowSparseData([0] as never)).toThrow(/row_id must have NDArray type/);
  });

  it('a row_sparse weight cannot turn updateOnKvstore off (sparse-kvstore.test.ts has the rest)', () => {
    const net = new RspBag();
    net.initialize(undefined, { runtime: rt });
    expect(() => new Trainer(net.collectParams(), 'sgd', {}, { updateOnKvstore: false })).toThrow(
      'Cannot set update_on_kvstore=False when sparse weights are present.',
    );
  });

  it('a csr gradient buffer needs a 2-D weight (attachGrad refuses at initialize)', () => {
    const p = new Parameter('weight', { shape: [2, 2, 2], gradStype: 'csr' });
    expect(() => p.initialize({ runtime: rt })).toThrow(/csr gradient needs a 2-D array/);
    expect(p.isInitialized).toBe(false);
  });
});
