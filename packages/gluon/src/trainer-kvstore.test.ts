/**
 * Trainer with a KVStore (MXNet's `_create_kvstore` / `_init_kvstore` rules): a store name on one
 * device makes no store; a store object is used, weights are broadcast into it on the first step,
 * and the store's optimizer (updateOnKvstore) or the Trainer's (false) gives the same weights as
 * the Trainer without a store, whose steps trainer.test.ts checks against SGD's formula. States
 * save and load through the store; MXNet's refusals (update()/allreduceGrads() with
 * updateOnKvstore, async without it) and MXNET_UPDATE_ON_KVSTORE.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Env } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { LocalKVStore } from '@mx/kvstore';
import { createRuntime, type NDArray, type Runtime } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { Dense } from './nn/basic.js';
import { Trainer, type TrainerOptions } from './trainer.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })], seed: 3 });
const dir = mkdtempSync(join(tmpdir(), 'mx-gluon-trainer-kv-'));
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await rt.dispose();
});

const host = (a: NDArray) => Array.from(a.dataSync() as Float32Array);

/** A Dense layer from fixed weights, trained `steps` times with SGD + momentum; its final weights. */
function train(runtime: Runtime, options: TrainerOptions, steps = 3): { weight: number[]; trainer: Trainer } {
  const { nd } = runtime;
  const net = new Dense(3, { inUnits: 4 });
  net.initialize(undefined, { runtime });
  net.weight.setData(
    nd.array(
      Float32Array.from({ length: 12 }, (_, i) => (i - 5) / 7),
      { shape: [3, 4] },
    ),
  );
  const trainer = new Trainer(
    net.collectParams(),
    'sgd',
    { learningRate: 0.1, momentum: 0.9, wd: 0.01 },
    options,
  );
  const input = nd.array(
    Float32Array.from({ length: 8 }, (_, i) => (i - 3) / 5),
    { shape: [2, 4] },
  );
  for (let s = 0; s < steps; s++) {
    runtime.autograd.record(() => nd.sum(nd.square(net.forward(input)))).backward();
    trainer.step(2);
  }
  input.dispose();
  return { weight: host(net.weight.data()), trainer };
}

describe('Trainer with a KVStore', () => {
  it("makes no store from a name on one device (MXNet's rule), and uses a store object", () => {
    const none = train(rt, { kvstore: 'device' });
    expect(none.trainer.kvstore).toBeNull();
    expect(none.trainer.updateOnKvstore).toBe(false);
    const kv = new LocalKVStore(rt, 'local');
    const on = train(rt, { kvstore: kv });
    expect(on.trainer.kvstore).toBe(kv);
    expect(on.trainer.updateOnKvstore).toBe(true);
    expect(kv.keys()).toEqual([0, 1]);
    expect(on.weight).toEqual(none.weight);
    kv.dispose();
  });

  it('updateOnKvstore false: gradients go through the store, the Trainer updates', () => {
    const none = train(rt, { kvstore: null });
    const kv = new LocalKVStore(rt, 'device');
    const off = train(rt, { kvstore: kv, updateOnKvstore: false });
    expect(off.trainer.updateOnKvstore).toBe(false);
    expect(off.weight).toEqual(none.weight);
    kv.dispose();
  });

  it('MXNET_UPDATE_ON_KVSTORE=0 keeps the updates on the worker', () => {
    const rt0 = createRuntime({
      backends: [new CpuWasmBackend({ initialPages: 64 })],
      env: new Env({ MXNET_UPDATE_ON_KVSTORE: '0' }),
    });
    const kv = new LocalKVStore(rt0, 'local');
    const t = train(rt0, { kvstore: kv }, 1);
    expect(t.trainer.updateOnKvstore).toBe(false);
    kv.dispose();
    return rt0.dispose();
  });

  it("refuses update()/allreduceGrads() when the store updates, and MXNet's other conflicts", () => {
    const kv = new LocalKVStore(rt, 'local');
    const { trainer } = train(rt, { kvstore: kv }, 1);
    expect(() => trainer.update(2)).toThrow(
      /update\(\) when parameters are updated on kvstore is not supported/,
    );
    expect(() => trainer.allreduceGrads()).toThrow(
      /allreduce_grads\(\) when parameters are updated on kvstore/,
    );
    kv.dispose();
    const net = new Dense(2, { inUnits: 2 });
    net.initialize(undefined, { runtime: rt });
    expect(
      () => new Trainer(net.collectParams(), 'sgd', {}, { kvstore: 'local', updateOnKvstore: true }),
    ).toThrow(/updateOnKvstore=true needs a kvstore, and 'local' makes none/);
    expect(() => new Trainer(net.collectParams(), 'sgd', {}, { kvstore: 3 as never })).toThrow(
      /kvstore must be a KVStore, a store name or null/,
    );
    const t = new Trainer(
      net.collectParams(),
      'sgd',
      {},
      { kvstore: null, compressionParams: { type: '2bit' } },
    );
    expect(() => t.step(1, { ignoreStaleGrad: true })).toThrow(/compressionParams need a kvstore/);
  });

  it('allreduceGrads + update by hand equal step (updateOnKvstore false)', () => {
    const { nd } = rt;
    const kv = new LocalKVStore(rt, 'local');
    const net = new Dense(2, { inUnits: 2 });
    net.initialize(undefined, { runtime: rt });
    net.weight.setData(nd.full([2, 2], 0.5));
    const trainer = new Trainer(
      net.collectParams(),
      'sgd',
      { learningRate: 0.5 },
      { kvstore: kv, updateOnKvstore: false },
    );
    const input = nd.array([[1, 2]]);
    rt.autograd.record(() => nd.sum(net.forward(input))).backward();
    trainer.allreduceGrads();
    trainer.update(1);
    // d(sum(W x + b))/dW = x for each row: 0.5 - 0.5 * [1, 2]
    expect(host(net.weight.data())).toEqual([0, -0.5, 0, -0.5]);
    input.dispose();
    kv.dispose();
  });

  it('saves and loads the optimizer states through the store', async () => {
    const kv = new LocalKVStore(rt, 'local');
    const a = train(rt, { kvstore: kv }, 2);
    const path = join(dir, 'kv.states');
    await a.trainer.saveStates(path);
    const kv2 = new LocalKVStore(rt, 'local');
    const net = new Dense(3, { inUnits: 4 });
    net.initialize(undefined, { runtime: rt });
    const t2 = new Trainer(
      net.collectParams(),
      'sgd',
      { learningRate: 0.1, momentum: 0.9 },
      { kvstore: kv2 },
    );
    await t2.loadStates(path);
    expect(t2.updateOnKvstore).toBe(true);
    const saved = await kv.saveOptimizerStates();
    expect(await kv2.saveOptimizerStates()).toEqual(saved);
    kv.dispose();
    kv2.dispose();
  });
});
