/**
 * The umbrella: the default runtime appears on first use, `mx.nd`/`mx.sym`/`mx.autograd` reach it,
 * seeding reproduces draws, `mx.kv` makes stores, checkpoints need no runtime argument, and the
 * misuse of useBackend/setRuntime is an MXNetError.
 */
import { fileURLToPath } from 'node:url';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import * as mx from './index.js';

const FIX = fileURLToPath(
  new URL('../../symbol/src/__fixtures__/gluon-export/fashion-mnist', import.meta.url),
);
afterAll(() => mx.shutdown());

describe('@mx/mxnet', () => {
  it('creates the default runtime on first use and reaches it through mx.nd, mx.sym, mx.autograd', async () => {
    const a = mx.nd.ones([2, 3]);
    const x = mx.nd.array([1, 2, 3]);
    x.attachGrad();
    const y = mx.autograd.record(() => mx.nd.sum(x.mul(x)));
    y.backward();
    expect(Array.from(x.grad?.dataSync() as Float32Array)).toEqual([2, 4, 6]);
    await mx.waitall();
    expect([...(a.dataSync() as Float32Array)]).toEqual([1, 1, 1, 1, 1, 1]);
    const s = mx.sym.FullyConnected(mx.sym.var('data'), { num_hidden: 4, name: 'fc1' });
    expect(s.listArguments()).toEqual(['data', 'fc1_weight', 'fc1_bias']);
    expect(a.ctx).toBe(mx.cpu());
    for (const t of [a, x, y]) t.dispose();
  });

  it('mx.np and mx.npx work on the default runtime (MXNet 2.0 names), with the np array class', async () => {
    const x = mx.np.array([
      [1, -2],
      [3, -4],
    ]);
    expect(x).toBeInstanceOf(mx.np.ndarray);
    const { sum } = mx.np; // functions work detached from the namespace, as Python's do
    const s = sum(x, { axis: 0 });
    expect(await s.array()).toEqual([4, -6]);
    expect(s).toBeInstanceOf(mx.np.ndarray);
    expect(mx.npx.isNpArray()).toBe(false);
    const n = mx.nd.array([1, 2]).asNpArray();
    expect(n).toBeInstanceOf(mx.np.ndarray);
    for (const t of [x, s, n]) t.dispose();
  });

  it('mx.kv.create makes stores on the default runtime that sum pushes (MXNet kvstore docs example)', async () => {
    const kv = await mx.kv.create('local');
    expect(kv).toBeInstanceOf(mx.kv.LocalKVStore);
    expect(kv.type).toBe('local');
    kv.init(3, mx.nd.ones([2, 3]));
    kv.push(3, [mx.nd.ones([2, 3]), mx.nd.ones([2, 3]).mul(2)]);
    const out = mx.nd.zeros([2, 3]);
    kv.pull(3, out);
    expect([...(out.dataSync() as Float32Array)]).toEqual([3, 3, 3, 3, 3, 3]);
    await expect(mx.kv.create('dist_sync')).rejects.toThrow(/DMLC_ROLE is not set/);
    kv.dispose();
  });

  it('reproduces random draws after mx.random.seed', () => {
    mx.random.seed(128);
    const a = mx.nd._random_uniform({ shape: [5] }).dataSync();
    mx.random.seed(128);
    const b = mx.nd._random_uniform({ shape: [5] }).dataSync();
    expect(b).toEqual(a);
  });

  it('loads checkpoints and imports SymbolBlocks on the default runtime', async () => {
    const ck = await mx.model.loadCheckpoint(FIX, 39, { warn: () => {} });
    expect(ck.symbol.listOutputs()).toEqual(['hybridsequential16_dense1_tanh_fwd_output']);
    const net = await mx.gluon.SymbolBlock.imports(`${FIX}-symbol.json`, ['data'], `${FIX}-0039.params`, {
      runtime: mx.runtime(),
    });
    const out = net.forward(mx.nd.zeros([1, 1, 28, 28])) as mx.NDArray;
    expect(out.shape).toEqual([1, 10]);
  });

  it('refuses useBackend and setRuntime once the default runtime exists', async () => {
    mx.runtime();
    expect(() => mx.useBackend(new CpuWasmBackend())).toThrow(/before the first mx\.\* call/);
    const own = mx.createRuntime({ backends: [new CpuWasmBackend({ initialPages: 16 })] });
    expect(() => mx.setRuntime(own)).toThrow(/already created/);
    await mx.shutdown();
    mx.setRuntime(own);
    expect(mx.runtime()).toBe(own);
    expect(mx.nd.runtime).toBe(own);
    await mx.shutdown();
    await own.dispose();
  });
});
