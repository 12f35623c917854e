/**
 * Executors against independent references (src/__golden__/executor.json, written by
 * tools/golden/graph/executor.py): LeNet with SoftmaxOutput and an MLP with Gluon's softmax
 * cross-entropy, forward outputs and every argument gradient against PyTorch (float64), plus the
 * same gradients from @mx/ndarray's imperative autograd; and the real Gluon export of
 * src/__fixtures__ loaded as a checkpoint, its logits against a NumPy forward pass.
 *
 * Tolerance: float32 results against float64 references, |got - want| <= 1e-5 · (|want| + max|want|)
 * per array — relative to each element, with the array's scale as the floor for elements near zero
 * (a gradient entry that cancels to ~0 cannot be relative-exact in float32).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCheckpoint } from '../model/index.js';
import { decode, expand, inputsOf, loadGolden, worst } from './golden-util.js';
import { bind, simpleBind } from './index.js';
import { Builder, lenet, mlp } from './test-symbols.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const FASHION = join(ROOT, 'packages/symbol/src/__fixtures__/gluon-export/fashion-mnist');

const golden = loadGolden();

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })] });
const { nd, autograd } = rt;
const b = new Builder(rt.registry);
afterAll(() => nd.waitall());

const RTOL = 1e-5;

const host = async (a: NDArray | undefined) => (await (a as NDArray).data()) as Float32Array;

describe('LeNet (SoftmaxOutput) against PyTorch', () => {
  it('forward output and every argument gradient, and the same gradients from imperative autograd', async () => {
    const g = golden.lenet;
    const inputs = inputsOf(g.inputs);
    const ex = simpleBind(rt, lenet(b), {
      shapes: { data: [4, 1, 28, 28] },
      gradReq: Object.fromEntries(g.inputs.map((s) => [s.name, 'write'])),
    });
    for (const [k, v] of Object.entries(inputs)) ex.argDict[k]?.set(v);
    ex.argDict.softmax_label?.set(g.label);
    ex.forward({ isTrain: true });
    ex.backward();
    const errors: Record<string, number> = { output: worst(await host(ex.outputs[0]), decode(g.output)) };
    for (const [k, want] of Object.entries(g.grads))
      errors[k] = worst(await host(ex.gradDict[k]), expand(want));
    for (const [k, e] of Object.entries(errors)) expect(e, k).toBeLessThanOrEqual(RTOL);

    // The imperative path (autograd tape) on the same values gives the same gradients.
    const p = Object.fromEntries(
      Object.entries(inputs).map(([k, v]) => [k, nd.array(v, { shape: ex.argDict[k]?.shape }).attachGrad()]),
    ) as Record<string, NDArray>;
    const label = nd.array(g.label);
    const out = autograd.record(() => {
      const conv = (x: NDArray, l: string) =>
        nd.Convolution(x, p[`${l}_weight`] as NDArray, p[`${l}_bias`] as NDArray, {
          kernel: [5, 5],
          num_filter: l === 'conv1' ? 20 : 50,
        });
      const pool = (x: NDArray) => nd.Pooling(x, { kernel: [2, 2], stride: [2, 2], pool_type: 'max' });
      let x = pool(nd.Activation(conv(p.data as NDArray, 'conv1'), { act_type: 'tanh' }));
      x = pool(nd.Activation(conv(x, 'conv2'), { act_type: 'tanh' }));
      x = nd.FullyConnected(nd.Flatten(x), p.fc1_weight as NDArray, p.fc1_bias as NDArray, {
        num_hidden: 500,
      });
      x = nd.FullyConnected(
        nd.Activation(x, { act_type: 'tanh' }),
        p.fc2_weight as NDArray,
        p.fc2_bias as NDArray,
        { num_hidden: 10 },
      );
      return nd.SoftmaxOutput(x, label);
    });
    out.backward();
    for (const k of Object.keys(inputs)) {
      expect(worst(await host(p[k]?.grad), await host(ex.gradDict[k])), `autograd ${k}`).toBeLessThanOrEqual(
        RTOL,
      );
    }
    console.log('LeNet worst relative errors vs PyTorch:', errors);
    for (const a of [...Object.values(p), label, out]) a.dispose();
    ex.dispose();
  });
});

describe('MLP (softmax cross-entropy as graph ops) against PyTorch', () => {
  it('losses and gradients for default (ones) and given head gradients', async () => {
    const g = golden.mlp;
    const inputs = inputsOf(g.inputs);
    const ex = simpleBind(rt, mlp(b), {
      shapes: { data: [4, 784] },
      gradReq: Object.fromEntries(g.inputs.map((s) => [s.name, 'write'])),
    });
    expect(ex.gradArrays[ex.argNames.indexOf('label')]).toBeUndefined();
    for (const [k, v] of Object.entries(inputs)) ex.argDict[k]?.set(v);
    ex.argDict.label?.set(g.label);
    const errors: Record<string, number> = {};
    for (const key of ['ones', 'given', 'ones'] as const) {
      const c = g[key];
      ex.forward({ isTrain: true });
      const head = key === 'given' ? nd.array(g.given.headGrad) : undefined;
      ex.backward(head);
      head?.dispose();
      errors[`${key}:output`] = worst(await host(ex.outputs[0]), decode(c.output));
      for (const [k, want] of Object.entries(c.grads))
        errors[`${key}:${k}`] = worst(await host(ex.gradDict[k]), expand(want));
    }
    for (const [k, e] of Object.entries(errors)) expect(e, k).toBeLessThanOrEqual(RTOL);
    console.log('MLP worst relative errors vs PyTorch:', errors);
    ex.dispose();
  });
});

describe('the Gluon export (MXNet 1.6) as a checkpoint', () => {
  it('gives the logits of a NumPy forward pass, through simpleBind and through bind', async () => {
    const warnings: string[] = [];
    const ck = await loadCheckpoint(rt, FASHION, 39, { warn: (m) => warnings.push(m) });
    expect(warnings).toEqual(['Loading symbol saved by previous version v1.6.0. Attempting to upgrade...']);
    const data = nd.array(Float32Array.from(decode(golden.fashion.data)), {
      shape: golden.fashion.data.shape,
    });
    const want = decode(golden.fashion.logits);
    const ex = simpleBind(rt, ck.symbol, { shapes: { data: [4, 1, 28, 28] }, gradReq: 'null' });
    ex.copyParamsFrom(ck.argParams, ck.auxParams);
    ex.forward({ data });
    expect(worst(await host(ex.outputs[0]), want)).toBeLessThanOrEqual(RTOL);
    const bound = bind(rt, ck.symbol, { args: { data, ...ck.argParams } });
    expect(bound.outputNames).toEqual(['hybridsequential16_dense1_tanh_fwd_output']);
    bound.forward();
    expect(worst(await host(bound.outputs[0]), want)).toBeLessThanOrEqual(RTOL);
    bound.dispose();
    ex.dispose();
    for (const a of [data, ...Object.values(ck.argParams)]) a.dispose();
  });
});
