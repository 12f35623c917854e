/**
 * CachedOp on cpu-wasm: the MLP of the golden generator (tools/golden/graph/executor.py) gives the
 * Executor's and the imperative ops' outputs, and under autograd the PyTorch gradients (and those
 * of @mx/ndarray's imperative autograd); then the flags — signatures and re-planning, staticAlloc
 * keeping run states (outputs still the caller's), staticShape, the inlined path — recorded calls
 * that overlap, aux states updated in place, every refusal, and leak checks.
 */
import { isMXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { expand, inputsOf, loadGolden, worst } from '../executor/golden-util.js';
import { simpleBind } from '../executor/index.js';
import { Builder, mlp } from '../executor/test-symbols.js';
import { SymbolApi } from '../symbol/index.js';
import { CachedOp } from './index.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 3 });
const { nd, autograd } = rt;
const b = new Builder(rt.registry);
afterAll(() => rt.dispose());

const golden = loadGolden().mlp;
const RTOL = 1e-5;
const host = async (a: NDArray | undefined) => Array.from((await (a as NDArray).data()) as Float32Array);
const thrown = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    expect(isMXNetError(e)).toBe(true);
    return (e as Error).message;
  }
  throw new Error('expected an MXNetError');
};

/** The golden MLP's inputs as arrays, by name (label included). */
function mlpInputs(): Record<string, NDArray> {
  const vals = inputsOf(golden.inputs);
  const out: Record<string, NDArray> = {};
  for (const s of golden.inputs) out[s.name] = nd.array(vals[s.name] as Float32Array, { shape: s.shape });
  out.label = nd.array(golden.label);
  return out;
}

/** The same MLP with imperative ops. */
function mlpImperative(p: Record<string, NDArray>, data: NDArray, label: NDArray): NDArray {
  return rt.scopeSync(() => {
    const fc = (x: NDArray, l: string, n: number) =>
      nd.FullyConnected(x, p[`${l}_weight`] as NDArray, p[`${l}_bias`] as NDArray, { num_hidden: n });
    let x = nd.Activation(fc(data, 'fc1', 128), { act_type: 'relu' });
    x = nd.Activation(fc(x, 'fc2', 64), { act_type: 'relu' });
    x = nd.log_softmax(fc(x, 'fc3', 10), { axis: -1 });
    return nd.negative(nd.pick(x, label, { axis: -1 }));
  });
}

/** Dispose arrays, lists and records of arrays. */
const dispose = (...xs: unknown[]) => {
  for (const x of xs) {
    if (x === undefined || x === null) continue;
    if (Array.isArray(x)) dispose(...x);
    else if (typeof (x as NDArray).dispose === 'function') (x as NDArray).dispose();
    else dispose(...Object.values(x as Record<string, unknown>));
  }
};

describe('CachedOp of an MLP', () => {
  it('gives the outputs of an Executor, of imperative ops and of PyTorch', async () => {
    await rt.leakCheck(async () => {
      const p = mlpInputs();
      const sym = mlp(b);
      for (const staticAlloc of [false, true]) {
        const op = new CachedOp(rt, sym, { staticAlloc });
        expect(op.inputNames).toEqual([
          'data',
          'fc1_weight',
          'fc1_bias',
          'fc2_weight',
          'fc2_bias',
          'fc3_weight',
          'fc3_bias',
          'label',
        ]);
        expect(op.outputNames).toEqual(['loss_output']);
        const [out] = op.call(...op.inputNames.map((n) => p[n] as NDArray));
        const ex = simpleBind(rt, sym, { shapes: { data: [4, 784] }, gradReq: 'null' });
        ex.copyParamsFrom(p);
        ex.forward();
        const imp = mlpImperative(p, p.data as NDArray, p.label as NDArray);
        const got = await host(out);
        expect(worst(got, await host(ex.outputs[0]))).toBeLessThanOrEqual(RTOL);
        expect(worst(got, await host(imp))).toBeLessThanOrEqual(RTOL);
        expect(worst(got, expand(golden.ones.output))).toBeLessThanOrEqual(RTOL);
        dispose(out, imp);
        ex.dispose();
        op.dispose();
      }
      dispose(p);
    });
  });

  it('recorded as one autograd node: PyTorch gradients, the imperative tape gradients', async () => {
    await rt.leakCheck(async () => {
      const names = golden.inputs.map((s) => s.name);
      for (const [key, staticAlloc, fusion] of [
        ['ones', false, true],
        ['given', true, true],
        ['given', false, false],
      ] as const) {
        const p = mlpInputs();
        for (const n of names) p[n]?.attachGrad();
        const op = new CachedOp(rt, mlp(b), { staticAlloc, fusion });
        const loss = autograd.record(
          () => op.call(...op.inputNames.map((n) => p[n] as NDArray))[0] as NDArray,
        );
        // One tape node for the whole graph: its inputs are the CachedOp's inputs.
        expect(loss.agEntry?.node.custom?.name).toBe('_CachedOp');
        expect(loss.agEntry?.node.inputs.length).toBe(8);
        const head = key === 'given' ? nd.array(golden.given.headGrad) : undefined;
        loss.backward(head);
        const errors: Record<string, number> = {};
        for (const [k, want] of Object.entries(golden[key].grads))
          errors[k] = worst(await host(p[k]?.grad), expand(want));
        for (const [k, e] of Object.entries(errors)) expect(e, `${key} ${k}`).toBeLessThanOrEqual(RTOL);

        const q = mlpInputs();
        for (const n of names) q[n]?.attachGrad();
        const ref = autograd.record(() => mlpImperative(q, q.data as NDArray, q.label as NDArray));
        ref.backward(head);
        for (const n of names)
          expect(worst(await host(p[n]?.grad), await host(q[n]?.grad)), n).toBeLessThanOrEqual(RTOL);
        expect(op.stats.liveRunners).toBe(1); // idle, kept for the next call
        dispose(p, q, loss, ref, head);
        op.dispose();
        expect(op.stats.liveRunners).toBe(0);
      }
    });
  });
});

/** y = exp(x) * w + b: two elementwise ops feeding a third (enough to compile, not to inline). */
function small() {
  const y = b.op('elemwise_mul', 'mul', [b.op('exp', 'exp', [b.v('x')]), b.v('w')]);
  return b.sym(b.op('broadcast_add', 'add', [y, b.v('b')]));
}
const smallRef = async (x: NDArray, w: NDArray, bias: NDArray) => {
  const [xs, ws, bs] = [await host(x), await host(w), await host(bias)];
  const cols = bs.length;
  return xs.map((v, i) => Math.exp(v) * (ws[i] as number) + (bs[i % cols] as number));
};
const arr = (shape: number[], seed: number) => {
  const n = shape.reduce((a, d) => a * d, 1);
  return nd.array(
    Array.from({ length: n }, (_, i) => Math.sin(seed * 7.3 + i * 1.7) * 0.8),
    { shape },
  );
};
const close = (got: readonly number[], want: readonly number[]) => {
  expect(got.length).toBe(want.length);
  got.forEach((g, i) => {
    expect(Math.abs(g - (want[i] as number))).toBeLessThanOrEqual(1e-5 * (1 + Math.abs(want[i] as number)));
  });
};

describe('signatures, static allocation, static shapes', () => {
  it('re-plans for a new batch size and keeps both plans', async () => {
    await rt.leakCheck(async () => {
      const op = new CachedOp(rt, small());
      const [w4, w2, bias] = [arr([4, 3], 2), arr([2, 3], 3), arr([3], 4)];
      const [x4, x2] = [arr([4, 3], 5), arr([2, 3], 6)];
      const [y4] = op.call(x4, w4, bias);
      expect(op.stats.compiles).toBe(1);
      const [y2] = op.call(x2, w2, bias);
      expect(op.stats.compiles).toBe(2);
      const [y4b] = op.call(x4, w4, bias);
      expect(op.stats).toMatchObject({ compiles: 2, signatures: 2 });
      // One run state per signature, kept idle between calls (also without staticAlloc).
      expect(op.stats).toMatchObject({ runners: 2, liveRunners: 2 });
      close(await host(y4), await smallRef(x4, w4, bias));
      close(await host(y2), await smallRef(x2, w2, bias));
      close(await host(y4b), await smallRef(x4, w4, bias));
      dispose([y4, y2, y4b, w4, w2, bias, x4, x2]);
      op.dispose();
    });
  });

  it('staticAlloc keeps one run state; each call still returns arrays of its own', async () => {
    await rt.leakCheck(async () => {
      const [w, bias] = [arr([4, 3], 2), arr([3], 4)];
      const xs = [1, 2, 3, 4].map((s) => arr([4, 3], 10 + s));
      // Data and parameters declared: one runner for every call.
      const op = new CachedOp(rt, small(), { staticAlloc: true, dataIndices: [0], paramIndices: [1, 2] });
      const outs = xs.map((x) => op.call(x, w, bias)[0] as NDArray);
      expect(op.stats).toMatchObject({ compiles: 1, runners: 1, liveRunners: 1 });
      for (let i = 0; i < xs.length; i++)
        close(await host(outs[i]), await smallRef(xs[i] as NDArray, w, bias));
      // Undeclared: the same, each call rebinding the input that changed.
      const auto = new CachedOp(rt, small(), { staticAlloc: true });
      const autoOuts = xs.map((x) => auto.call(x, w, bias)[0] as NDArray);
      expect(auto.stats).toMatchObject({ compiles: 1, runners: 1, liveRunners: 1 });
      for (let i = 0; i < xs.length; i++)
        close(await host(autoOuts[i]), await smallRef(xs[i] as NDArray, w, bias));
      // A parameter bound in place: a new array for it is rebound, and its values are used.
      const w2 = arr([4, 3], 9);
      const [y] = op.call(xs[0] as NDArray, w2, bias);
      expect(op.stats.runners).toBe(1);
      close(await host(y), await smallRef(xs[0] as NDArray, w2, bias));
      // In-place changes of a bound parameter are seen by the next call.
      w2.set(0.5);
      const [z] = op.call(xs[0] as NDArray, w2, bias);
      close(await host(z), await smallRef(xs[0] as NDArray, w2, bias));
      dispose([...outs, ...autoOuts, ...xs, y, z, w, w2, bias]);
      op.dispose();
      auto.dispose();
      expect(op.stats.liveRunners).toBe(0);
    });
  });

  it('staticShape keeps one plan and re-plans only when the shapes change', async () => {
    await rt.leakCheck(async () => {
      const op = new CachedOp(rt, small(), { staticAlloc: true, staticShape: true });
      const bias = arr([3], 4);
      const [x4, w4, x2, w2] = [arr([4, 3], 1), arr([4, 3], 2), arr([2, 3], 3), arr([2, 3], 4)];
      const ys = [
        op.call(x4, w4, bias),
        op.call(x4, w4, bias),
        op.call(x2, w2, bias),
        op.call(x2, w2, bias),
        op.call(x4, w4, bias),
      ].map((o) => o[0] as NDArray);
      expect(op.stats).toMatchObject({ compiles: 3, signatures: 1, liveRunners: 1 });
      close(await host(ys[4]), await smallRef(x4, w4, bias));
      close(await host(ys[3]), await smallRef(x2, w2, bias));
      dispose([...ys, bias, x4, w4, x2, w2]);
      op.dispose();
    });
  });

  it('recorded calls that overlap keep their forward values apart (staticAlloc)', async () => {
    await rt.leakCheck(async () => {
      const op = new CachedOp(rt, small(), { staticAlloc: true });
      const [w, bias] = [arr([4, 3], 2).attachGrad(), arr([3], 4).attachGrad()];
      const [x1, x2] = [arr([4, 3], 7).attachGrad(), arr([4, 3], 8).attachGrad()];
      const total = autograd.record(() => {
        const [y1] = op.call(x1, w, bias) as [NDArray];
        const [y2] = op.call(x2, w, bias) as [NDArray];
        const prod = nd.elemwise_mul(y1, y2);
        const t = nd.sum(prod);
        dispose([y1, y2, prod]);
        return t;
      });
      expect(op.stats.liveRunners).toBe(2);
      total.backward();
      expect(op.stats.liveRunners).toBe(2); // back in the pool
      // d/dx1 sum(y1*y2) = y2 * exp(x1) * w, etc. — from host values.
      const [v1, v2, vw] = [await host(x1), await host(x2), await host(w)];
      const y1 = await smallRef(x1, w, bias);
      const y2 = await smallRef(x2, w, bias);
      close(
        await host(x1.grad),
        v1.map((v, i) => (y2[i] as number) * Math.exp(v) * (vw[i] as number)),
      );
      close(
        await host(x2.grad),
        v2.map((v, i) => (y1[i] as number) * Math.exp(v) * (vw[i] as number)),
      );
      close(
        await host(w.grad),
        v1.map((v, i) => (y2[i] as number) * Math.exp(v) + (y1[i] as number) * Math.exp(v2[i] as number)),
      );
      const gb = [0, 0, 0];
      for (let i = 0; i < 12; i++) gb[i % 3] = (gb[i % 3] as number) + (y1[i] as number) + (y2[i] as number);
      close(await host(bias.grad), gb);
      dispose([w, bias, x1, x2, total]);
      op.dispose();
    });
  });

  it('updates aux states in place (BatchNorm moving statistics), like the Executor', async () => {
    await rt.leakCheck(async () => {
      const bn = b.op(
        'BatchNorm',
        'bn',
        [b.v('data'), b.v('bn_gamma'), b.v('bn_beta'), b.v('bn_moving_mean'), b.v('bn_moving_var')],
        { fix_gamma: false },
      );
      const sym = b.sym(b.op('relu', 'relu', [bn]));
      const op = new CachedOp(rt, sym, { staticAlloc: true });
      const vals = { data: arr([4, 3], 1), bn_gamma: arr([3], 2), bn_beta: arr([3], 3) };
      const mean = nd.zeros([3]);
      const vr = nd.ones([3]);
      const ex = simpleBind(rt, sym, { shapes: { data: [4, 3] }, gradReq: 'null' });
      ex.copyParamsFrom(vals, { bn_moving_mean: mean, bn_moving_var: vr });
      const outs = autograd.trainMode(() => [
        op.call(vals.data, vals.bn_gamma, vals.bn_beta, mean, vr)[0] as NDArray,
      ]);
      ex.forward({ isTrain: true });
      close(await host(outs[0]), await host(ex.outputs[0]));
      close(await host(mean), await host(ex.auxDict.bn_moving_mean));
      close(await host(vr), await host(ex.auxDict.bn_moving_var));
      expect(Math.max(...(await host(mean)).map(Math.abs))).toBeGreaterThan(1e-3);
      dispose(outs, vals, mean, vr);
      ex.dispose();
      op.dispose();
    });
  });
});

describe('a Symbol from the symbol API', () => {
  it('takes its inputs in listInputs() order; a loss output (SoftmaxOutput) ignores head gradients', async () => {
    await rt.leakCheck(async () => {
      const sym = new SymbolApi(rt.registry, { warn: () => {} });
      const data = sym.var('data');
      let net = sym.FullyConnected(data, { num_hidden: 5, name: 'fc1' });
      net = sym.Activation(net, { act_type: 'tanh' });
      net = sym.SoftmaxOutput(sym.FullyConnected(net, { num_hidden: 3, name: 'fc2' }), { name: 'softmax' });
      const op = new CachedOp(rt, net);
      expect(op.inputNames).toEqual(net.listInputs());
      expect(op.outputNames).toEqual(net.listOutputs());
      const shapes: Record<string, number[]> = {
        data: [4, 6],
        fc1_weight: [5, 6],
        fc1_bias: [5],
        fc2_weight: [3, 5],
        fc2_bias: [3],
      };
      const mk = () => {
        const p: Record<string, NDArray> = {};
        Object.entries(shapes).forEach(([k, s], i) => {
          p[k] = arr(s, i + 1).attachGrad();
        });
        p.softmax_label = nd.array([0, 2, 1, 2]);
        return p;
      };
      const p = mk();
      const out = autograd.record(() => op.call(...op.inputNames.map((n) => p[n] as NDArray))[0] as NDArray);
      const zeros = nd.zeros([4, 3]);
      out.backward(zeros); // ignored by SoftmaxOutput, as in MXNet
      const q = mk();
      const ref = autograd.record(() =>
        rt.scopeSync(() => {
          const fc = (x: NDArray, l: string, n: number) =>
            nd.FullyConnected(x, q[`${l}_weight`] as NDArray, q[`${l}_bias`] as NDArray, { num_hidden: n });
          const h = nd.Activation(fc(q.data as NDArray, 'fc1', 5), { act_type: 'tanh' });
          return nd.SoftmaxOutput(fc(h, 'fc2', 3), q.softmax_label as NDArray);
        }),
      );
      ref.backward();
      close(await host(out), await host(ref));
      for (const k of Object.keys(shapes)) {
        const g = await host(p[k]?.grad);
        close(g, await host(q[k]?.grad));
        expect(Math.max(...g.map(Math.abs)), k).toBeGreaterThan(1e-4);
      }
      dispose(p, q, out, ref, zeros);
      op.dispose();
    });
  });
});

describe('the inlined path', () => {
  it('runs graphs of at most inlineLimit ops op by op, each op on the tape', async () => {
    await rt.leakCheck(async () => {
      const sym = b.sym(b.op('elemwise_mul', 'mul', [b.op('exp', 'exp', [b.v('x')]), b.v('w')]));
      const op = new CachedOp(rt, sym);
      expect(op.isInlined).toBe(true);
      expect(new CachedOp(rt, sym, { staticAlloc: true }).isInlined).toBe(false);
      expect(new CachedOp(rt, sym, { inlineLimit: 1 }).isInlined).toBe(false);
      const [x, w] = [arr([2, 3], 1).attachGrad(), arr([2, 3], 2).attachGrad()];
      const y = autograd.record(() => op.call(x, w)[0] as NDArray);
      expect(y.agEntry?.node.op?.name).toBe('elemwise_mul'); // the op itself, not a CachedOp node
      y.backward();
      expect(op.stats.compiles).toBe(0);
      const [vx, vw] = [await host(x), await host(w)];
      close(
        await host(y),
        vx.map((v, i) => Math.exp(v) * (vw[i] as number)),
      );
      close(
        await host(x.grad),
        vx.map((v, i) => Math.exp(v) * (vw[i] as number)),
      );
      close(
        await host(w.grad),
        vx.map((v) => Math.exp(v)),
      );
      // An output that is an input comes back as a copy.
      const xv = b.v('x');
      const id = new CachedOp(rt, b.sym(xv, b.op('exp', 'e', [xv])));
      const [c, e] = id.call(x) as [NDArray, NDArray];
      expect(c).not.toBe(x);
      close(await host(c), vx);
      dispose([x, w, y, c, e]);
      op.dispose();
      id.dispose();
    });
  });
});

describe('refusals', () => {
  it('refuses bad flags and bad inputs, naming what is wrong', async () => {
    await rt.leakCheck(async () => {
      expect(thrown(() => new CachedOp(rt, small(), { staticShape: true }))).toContain(
        'static_alloc must be True when static_shape is True',
      );
      expect(thrown(() => new CachedOp(rt, small(), { dataIndices: [0, 1] }))).toContain('name each once');
      expect(
        thrown(() => new CachedOp(rt, small(), { dataIndices: [0, 3], paramIndices: [1, 2] })),
      ).toContain('invalid index 3');
      expect(thrown(() => new CachedOp(rt, small(), { inlineLimit: -1 }))).toContain('inlineLimit');
      expect(thrown(() => new CachedOp(rt, { outputs: [] }))).toContain('at least one output');
      const op = new CachedOp(rt, small(), { staticAlloc: true });
      const [x, w, bias] = [arr([4, 3], 1), arr([4, 3], 2), arr([3], 3)];
      expect(thrown(() => op.call(x, w))).toContain('expected 3 inputs, got 2');
      const wrong = arr([4, 4], 5);
      expect(thrown(() => op.call(x, w, wrong))).toContain('(4, 4) from variable `b`');
      // A parameter whose shape the others determine is named with the expected shape.
      const p = mlpInputs();
      const net = new CachedOp(rt, mlp(b));
      const badW = nd.zeros([128, 700]);
      const msg = thrown(() =>
        net.call(...net.inputNames.map((n) => (n === 'fc1_weight' ? badW : p[n]) as NDArray)),
      );
      expect(msg).toContain('argument fc1_weight: expected shape (128, 784), given (128, 700)');
      dispose(p, badW);
      net.dispose();
      const ints = nd.array([1, 2, 3], { dtype: 'int32' });
      expect(thrown(() => op.call(x, w, ints))).toContain('dtype');
      const gone = arr([4, 3], 6);
      gone.dispose();
      expect(thrown(() => op.call(gone, w, bias))).toContain('input x');
      expect(op.stats.compiles).toBe(0);
      op.dispose();
      expect(thrown(() => op.call(x, w, bias))).toContain('disposed');
      dispose([x, w, bias, wrong, ints]);
    });
  });

  // Outside the leak check: a refused backward leaves the tape's saved arrays to the collector.
  it('differentiates a recorded call once, refuses higher order and backward after dispose', () => {
    const op = new CachedOp(rt, small(), { staticAlloc: true });
    const [x, w, bias] = [arr([4, 3], 1).attachGrad(), arr([4, 3], 2), arr([3], 3)];
    const outs: NDArray[] = [];
    const run = () =>
      autograd.record(() => {
        const [o] = op.call(x, w, bias) as [NDArray];
        outs.push(o);
        return nd.sum(o);
      });
    const y = run();
    y.backward(undefined, { retainGraph: true });
    expect(thrown(() => y.backward())).toContain('already differentiated');
    const y2 = run();
    expect(thrown(() => autograd.grad(y2, x, { createGraph: true }))).toContain('higher-order');
    const y3 = run();
    op.dispose();
    expect(thrown(() => y3.backward())).toContain('disposed before the backward');
    dispose([x, w, bias, y, y2, y3, outs]);
  });
});
