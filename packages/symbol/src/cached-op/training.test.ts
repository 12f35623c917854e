/**
 * Training through a CachedOp: a small MLP (FullyConnected, tanh, log_softmax cross-entropy) on a
 * toy problem, a few SGD steps with autograd + sgd_update, against the same steps with imperative
 * ops on a runtime with the same seed (parameters drawn with `_random_uniform`). The losses and the
 * final parameters must agree within float32 rounding, and the loss must fall. Parameters are
 * updated in place, so a CachedOp with staticAlloc keeps them bound and must see every update.
 */
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray, type Runtime } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { Builder } from '../executor/test-symbols.js';
import { CachedOp } from './index.js';

const SEED = 42;
const runtimes: Runtime[] = [];
afterAll(async () => {
  for (const r of runtimes) await r.dispose();
});
function runtime(): Runtime {
  const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: SEED });
  runtimes.push(rt);
  return rt;
}

const SHAPES: Record<string, number[]> = { w1: [16, 6], b1: [16], w2: [3, 16], b2: [3] };
const PARAMS = Object.keys(SHAPES);
const BATCH = 12;

/** Points of three classes around three centres (deterministic). */
function dataset(rt: Runtime): { data: NDArray; label: NDArray } {
  const x: number[] = [];
  const y: number[] = [];
  for (let i = 0; i < BATCH; i++) {
    const c = i % 3;
    y.push(c);
    for (let j = 0; j < 6; j++) x.push((j % 3 === c ? 1 : -0.5) + 0.3 * Math.sin(i * 3.1 + j * 1.3));
  }
  return { data: rt.nd.array(x, { shape: [BATCH, 6] }), label: rt.nd.array(y) };
}

/** Parameters from the runtime's seeded generator, in a fixed order. */
function initParams(rt: Runtime): Record<string, NDArray> {
  const out: Record<string, NDArray> = {};
  for (const k of PARAMS) {
    out[k] = rt.nd._random_uniform({ low: -0.5, high: 0.5, shape: SHAPES[k] as number[] }).attachGrad();
  }
  return out;
}

function symbol(b: Builder) {
  let h = b.op('FullyConnected', 'fc1', [b.v('data'), b.v('w1'), b.v('b1')], { num_hidden: 16 });
  h = b.op('Activation', 'act', [h], { act_type: 'tanh' });
  h = b.op('FullyConnected', 'fc2', [h, b.v('w2'), b.v('b2')], { num_hidden: 3 });
  h = b.op('log_softmax', 'logp', [h], { axis: -1 });
  h = b.op('pick', 'pick', [h, b.v('label')], { axis: -1 });
  return b.sym(b.op('mean', 'loss', [b.op('negative', 'nll', [h])]));
}

function imperativeLoss(rt: Runtime, p: Record<string, NDArray>, data: NDArray, label: NDArray): NDArray {
  const { nd } = rt;
  return rt.scopeSync(() => {
    let h = nd.FullyConnected(data, p.w1 as NDArray, p.b1 as NDArray, { num_hidden: 16 });
    h = nd.Activation(h, { act_type: 'tanh' });
    h = nd.FullyConnected(h, p.w2 as NDArray, p.b2 as NDArray, { num_hidden: 3 });
    h = nd.log_softmax(h, { axis: -1 });
    return nd.mean(nd.negative(nd.pick(h, label, { axis: -1 })));
  });
}

interface Run {
  readonly losses: number[];
  readonly params: Record<string, number[]>;
}

/** `steps` SGD steps; `loss` computes the recorded loss from the parameters. */
async function train(
  rt: Runtime,
  steps: number,
  loss: (p: Record<string, NDArray>, data: NDArray, label: NDArray) => NDArray,
): Promise<Run> {
  const p = initParams(rt);
  const { data, label } = dataset(rt);
  const losses: number[] = [];
  for (let s = 0; s < steps; s++) {
    const l = rt.autograd.record(() => loss(p, data, label));
    l.backward();
    losses.push((await l.data())[0] as number);
    l.dispose();
    for (const k of PARAMS) {
      const w = p[k] as NDArray;
      rt.nd.sgd_update(w, w.grad as NDArray, { lr: 0.5, wd: 1e-4, out: w });
    }
  }
  const params: Record<string, number[]> = {};
  for (const k of PARAMS) params[k] = Array.from((await p[k]?.data()) as Float32Array);
  for (const a of [...Object.values(p), data, label]) a.dispose();
  return { losses, params };
}

const close = (got: readonly number[], want: readonly number[], what: string) => {
  expect(got.length, what).toBe(want.length);
  got.forEach((g, i) => {
    expect(Math.abs(g - (want[i] as number)), `${what}[${i}]`).toBeLessThanOrEqual(
      2e-5 * (1 + Math.abs(want[i] as number)),
    );
  });
};

describe('training through a CachedOp', () => {
  it('follows the imperative SGD trajectory step by step, with and without staticAlloc', async () => {
    const steps = 8;
    const ref = runtime();
    const want = await train(ref, steps, (p, data, label) => imperativeLoss(ref, p, data, label));
    expect(want.losses[steps - 1]).toBeLessThan((want.losses[0] as number) * 0.8);
    for (const staticAlloc of [false, true]) {
      const rt = runtime();
      await rt.leakCheck(async () => {
        const op = new CachedOp(rt, symbol(new Builder(rt.registry)), { staticAlloc });
        expect(op.inputNames).toEqual(['data', 'w1', 'b1', 'w2', 'b2', 'label']);
        const got = await train(rt, steps, (p, data, label) => {
          const [l] = op.call(
            data,
            p.w1 as NDArray,
            p.b1 as NDArray,
            p.w2 as NDArray,
            p.b2 as NDArray,
            label,
          );
          return l as NDArray;
        });
        close(got.losses, want.losses, `losses (staticAlloc ${staticAlloc})`);
        for (const k of PARAMS) close(got.params[k] as number[], want.params[k] as number[], k);
        // One graph and one run state for all steps, its inputs bound in place.
        expect(op.stats).toMatchObject({ compiles: 1, runners: 1 });
        op.dispose();
      });
    }
  });
});
