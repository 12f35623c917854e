/**
 * Executors with elementwise fusion against the same executors without it: an MLP whose sigmoid
 * and softmax are written as elementwise/broadcast/reduce ops, forward and every gradient, must
 * agree within float32 rounding while running fewer nodes; fusion is turned off by the option and
 * by MXNET_USE_FUSION (the option winning). The other environment settings are checked through
 * what they change: engine ops per run (bulking), planned memory (in-place, reuse range) and the
 * gradient-sum nodes (MXNET_EXEC_INPLACE_GRAD_SUM_CAP).
 */
import { Env } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray, type Runtime } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { type Executor, simpleBind } from './index.js';
import { Builder } from './test-symbols.js';

const runtimes: Runtime[] = [];
function runtime(env: Record<string, string> = {}): Runtime {
  const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], env: new Env(env) });
  runtimes.push(rt);
  return rt;
}
const rt = runtime();
afterAll(async () => {
  for (const r of runtimes) await r.dispose();
});

/** Deterministic values in [-scale, scale). */
function values(n: number, seed: number, scale = 1): Float32Array {
  const out = new Float32Array(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    out[i] = ((x >>> 8) / 16777216 - 0.5) * 2 * scale;
  }
  return out;
}

/** Softmax of rows written from elementwise ops: exp(x - max) / sum(exp(x - max)). */
function softmaxOps(b: Builder, x: ReturnType<Builder['v']>, p: string) {
  const m = b.op('max', `${p}max`, [x], { axis: -1, keepdims: true });
  const e = b.op('exp', `${p}exp`, [b.op('broadcast_sub', `${p}sub`, [x, m])]);
  const s = b.op('sum', `${p}sum`, [e], { axis: -1, keepdims: true });
  return b.op('broadcast_div', `${p}div`, [e, s]);
}

/** 8-16-4 MLP, sigmoid(x·w + b) = 1 / (1 + exp(-(x·w + b))) as ops, softmax as ops, cross-entropy. */
function sigmoidMlp(b: Builder) {
  let h = b.op('dot', 'dot1', [b.v('data'), b.v('w1')]);
  h = b.op('broadcast_add', 'add1', [h, b.v('b1')]);
  h = b.op('negative', 'neg1', [h]);
  h = b.op('exp', 'exp1', [h]);
  h = b.op('_plus_scalar', 'plus1', [h], { scalar: 1 });
  h = b.op('reciprocal', 'sigmoid1', [h]);
  h = b.op('dot', 'dot2', [h, b.v('w2')]);
  h = b.op('broadcast_add', 'add2', [h, b.v('b2')]);
  const p = softmaxOps(b, h, 'sm_');
  const logp = b.op('log', 'log', [p]);
  const picked = b.op('elemwise_mul', 'pick', [logp, b.v('onehot')]);
  const loss = b.op('_mul_scalar', 'loss', [b.op('sum', 'lsum', [picked])], { scalar: -0.25 });
  return b.sym(p, loss);
}

const SHAPES = { data: [4, 8], w1: [8, 16], b1: [16], w2: [16, 4], b2: [4], onehot: [4, 4] };
const GRADS = ['data', 'w1', 'b1', 'w2', 'b2'];

function bindMlp(r: Runtime, fusion?: boolean): Executor {
  const ex = simpleBind(r, sigmoidMlp(new Builder(r.registry)), {
    shapes: SHAPES,
    gradReq: Object.fromEntries(GRADS.map((n) => [n, 'write'])),
    ...(fusion !== undefined ? { fusion } : {}),
  });
  Object.entries(SHAPES).forEach(([name, shape], k) => {
    const n = shape.reduce((a, d) => a * d, 1);
    if (name === 'onehot') ex.argDict.onehot?.set([0, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0]);
    else ex.argDict[name]?.set(values(n, 11 + k, name === 'data' ? 2 : 0.7));
  });
  return ex;
}

const host = async (a: NDArray | undefined) => Array.from((await (a as NDArray).data()) as Float32Array);

/** Outputs after forward + backward with a given gradient for the probabilities. */
async function run(ex: Executor, r: Runtime) {
  ex.forward({ isTrain: true });
  const head = r.nd.array(values(16, 99, 1), { shape: [4, 4] });
  ex.backward([head, null]);
  head.dispose();
  const out: Record<string, number[]> = {
    probs: await host(ex.outputs[0]),
    loss: await host(ex.outputs[1]),
  };
  for (const n of GRADS) out[n] = await host(ex.gradDict[n]);
  return out;
}

function expectClose(got: readonly number[], want: readonly number[], what: string) {
  expect(got.length, what).toBe(want.length);
  const scale = Math.max(1e-30, ...want.map(Math.abs));
  got.forEach((g, i) => {
    expect(Math.abs(g - (want[i] as number)), `${what}[${i}]`).toBeLessThanOrEqual(
      1e-5 * (Math.abs(want[i] as number) + scale),
    );
  });
}

describe('elementwise fusion in executors', () => {
  it('gives the unfused results for a sigmoid MLP with an op-built softmax, in fewer nodes', async () => {
    await rt.leakCheck(async () => {
      const fused = bindMlp(rt, true);
      const plain = bindMlp(rt, false);
      expect(fused.fusedNodes).toBeGreaterThan(0);
      expect(plain.fusedNodes).toBe(0);
      expect(fused.numNodes).toBeLessThan(plain.numNodes);
      // Forward and backward fuse: the sigmoid chain is one kernel in the forward pass.
      // Values the backward pass reads stay graph entries, so training graphs fuse the chains
      // between them, forward and backward.
      expect(fused.segments('forward').flat()).toContain('sm_exp_fused');
      expect(
        fused
          .segments('backward')
          .flat()
          .some((n) => n.endsWith('_fused')),
      ).toBe(true);
      const a = await run(fused, rt);
      const b = await run(plain, rt);
      for (const k of Object.keys(b)) expectClose(a[k] as number[], b[k] as number[], k);
      // The op-built softmax is a softmax: rows sum to 1, and it matches the softmax op.
      const probs = a.probs as number[];
      for (let i = 0; i < 4; i++)
        expect(probs.slice(4 * i, 4 * i + 4).reduce((s, v) => s + v, 0)).toBeCloseTo(1, 6);
      // Gradients are not trivially zero.
      for (const k of GRADS) expect(Math.max(...(a[k] as number[]).map(Math.abs)), k).toBeGreaterThan(1e-4);
      fused.dispose();
      plain.dispose();
    });
  });

  it('fuses a softmax written from elementwise ops, forward and gradient equal to the softmax op', async () => {
    await rt.leakCheck(async () => {
      const b = new Builder(rt.registry);
      const sym = b.sym(softmaxOps(b, b.v('x'), ''));
      const mk = (fusion: boolean) => simpleBind(rt, sym, { shapes: { x: [3, 7] }, fusion });
      const xs = values(21, 5, 3);
      const head = rt.nd.array(values(21, 6), { shape: [3, 7] });
      const results: number[][][] = [];
      for (const fusion of [true, false]) {
        const ex = mk(fusion);
        if (fusion) expect(ex.fusedNodes).toBeGreaterThan(0);
        ex.argDict.x?.set(xs);
        ex.forward({ isTrain: true });
        ex.backward(head);
        results.push([await host(ex.outputs[0]), await host(ex.gradDict.x)]);
        ex.dispose();
      }
      const [fused, plain] = results as [number[][], number[][]];
      expectClose(fused[0] as number[], plain[0] as number[], 'softmax');
      expectClose(fused[1] as number[], plain[1] as number[], 'gradient');
      // The reference: the softmax op under imperative autograd.
      const x = rt.nd.array(xs, { shape: [3, 7] }).attachGrad();
      const y = rt.autograd.record(() => rt.nd.softmax(x, { axis: -1 }));
      y.backward(head);
      expectClose(fused[0] as number[], await host(y), 'softmax vs op');
      expectClose(fused[1] as number[], await host(x.grad), 'gradient vs op');
      for (const a of [x, y, head]) a.dispose();
    });
  });

  it('turns the whole sigmoid into one kernel in a forward-only graph', async () => {
    const b = new Builder(rt.registry);
    const sym = sigmoidMlp(b);
    const shapes = SHAPES;
    const fused = simpleBind(rt, sym, { shapes, gradReq: 'null' });
    const plain = simpleBind(rt, sym, { shapes, gradReq: 'null', fusion: false });
    const fwd = fused.segments('forward').flat();
    expect(fwd).toContain('sigmoid1_fused');
    for (const n of ['add1', 'neg1', 'exp1', 'plus1']) expect(fwd).not.toContain(n);
    expect(plain.segments('forward').flat()).toContain('exp1');
    for (const ex of [fused, plain]) {
      Object.entries(SHAPES).forEach(([name, shape], k) => {
        ex.argDict[name]?.set(
          values(
            shape.reduce((a, d) => a * d, 1),
            11 + k,
            0.7,
          ),
        );
      });
      ex.forward();
    }
    expectClose(await host(fused.outputs[0]), await host(plain.outputs[0]), 'probs');
    expectClose(await host(fused.outputs[1]), await host(plain.outputs[1]), 'loss');
    fused.dispose();
    plain.dispose();
  });

  it("writes a fused gradient node's output straight into the gradient array, gradReq 'add' included", async () => {
    await rt.leakCheck(async () => {
      const b = new Builder(rt.registry);
      // y = exp(-x): the gradient -exp(-x) · dy is a chain of two backward ops, fused into one node.
      const sym = b.sym(b.op('exp', 'exp', [b.op('negative', 'neg', [b.v('x')])]));
      const ex = simpleBind(rt, sym, { shapes: { x: [6] }, gradReq: 'add' });
      expect(ex.segments('backward').flat()).toEqual(['neg_backward_fused']);
      const xs = values(6, 3);
      ex.argDict.x?.set(xs);
      ex.gradDict.x?.set(0.25);
      for (let i = 0; i < 2; i++) {
        ex.forward({ isTrain: true });
        ex.backward();
      }
      const got = await host(ex.gradDict.x);
      got.forEach((g, i) => {
        expect(g).toBeCloseTo(0.25 - 2 * Math.exp(-(xs[i] as number)), 5);
      });
      ex.dispose();
    });
  });

  it('is off with { fusion: false } and with MXNET_USE_FUSION=0, where the option still wins', () => {
    const off = runtime({ MXNET_USE_FUSION: '0' });
    const envOff = bindMlp(off);
    const optionOn = bindMlp(off, true);
    const optionOff = bindMlp(rt, false);
    const dflt = bindMlp(rt);
    expect(envOff.fusedNodes).toBe(0);
    expect(optionOff.fusedNodes).toBe(0);
    expect(optionOn.fusedNodes).toBeGreaterThan(0);
    expect(dflt.fusedNodes).toBe(optionOn.fusedNodes);
    expect(envOff.numNodes).toBe(optionOff.numNodes);
    for (const ex of [envOff, optionOn, optionOff, dflt]) ex.dispose();
  });
});

/** y = relu(relu(... relu(data))), n times (no fusion: each node is its own kernel). */
function reluChain(b: Builder, n: number) {
  let y = b.v('data');
  for (let i = 0; i < n; i++) y = b.op('relu', `relu${i}`, [y]);
  return b.sym(y);
}

describe('environment settings', () => {
  const bindChain = (r: Runtime, bulkSize?: number) =>
    simpleBind(r, reluChain(new Builder(r.registry), 6), {
      shapes: { data: [64] },
      gradReq: 'null',
      fusion: false,
      ...(bulkSize !== undefined ? { bulkSize } : {}),
    });

  it('bulk execution: MXNET_EXEC_BULK_EXEC_TRAIN/_INFERENCE and _MAX_NODE_TRAIN, the option first', () => {
    const sizes = (ex: Executor, isTrain: boolean) =>
      ex.segments('forward', { isTrain }).map((s) => s.length);
    const dflt = bindChain(rt);
    expect(sizes(dflt, false)).toEqual([6]);
    expect(sizes(dflt, true)).toEqual([6]);
    const small = bindChain(runtime({ MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN: '4' }));
    expect(sizes(small, true)).toEqual([4, 2]);
    expect(sizes(small, false)).toEqual([6]);
    const noBulk = runtime({ MXNET_EXEC_BULK_EXEC_TRAIN: '0', MXNET_EXEC_BULK_EXEC_INFERENCE: '0' });
    const off = bindChain(noBulk);
    expect(sizes(off, true)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(sizes(off, false)).toEqual([1, 1, 1, 1, 1, 1]);
    const option = bindChain(noBulk, 3);
    expect(sizes(option, true)).toEqual([3, 3]);
    for (const ex of [dflt, small, off, option]) ex.dispose();
  });

  it('memory planning: MXNET_EXEC_ENABLE_INPLACE and NNVM_EXEC_MATCH_RANGE', () => {
    const bytes = (env: Record<string, string>) => {
      const ex = bindChain(runtime(env));
      const b = ex.plannedBytes;

      ex.dispose();
      return b;
    };
    const dflt = bytes({});
    const noInplace = bytes({ MXNET_EXEC_ENABLE_INPLACE: '0' });
    const noReuse = bytes({ MXNET_EXEC_ENABLE_INPLACE: '0', NNVM_EXEC_MATCH_RANGE: '0' });
    // In place, the whole chain runs in one buffer of 64 floats; without, two buffers alternate;
    // without reuse every entry has its own.
    expect([dflt, noInplace, noReuse]).toEqual([256, 512, 6 * 256]);
    expect(dflt).toBeLessThan(noInplace);
    expect(noInplace).toBeLessThan(noReuse);
  });

  it('MXNET_EXEC_INPLACE_GRAD_SUM_CAP: add_n below the cap, a _grad_add chain from it on', () => {
    const sumNodes = (env: Record<string, string>) => {
      const r = runtime(env);
      const b = new Builder(r.registry);
      const x = b.v('data');
      let y = x;
      for (let i = 1; i < 4; i++) y = b.op('elemwise_mul', `mul${i}`, [y, x]);
      const ex = simpleBind(r, b.sym(y), { shapes: { data: [5] }, fusion: false });
      const names = ex.segments('backward').flat();
      ex.dispose();
      return names.filter((n) => n.startsWith('sum_grad'));
    };
    expect(sumNodes({})).toEqual(['sum_grad']);
    expect(sumNodes({ MXNET_EXEC_INPLACE_GRAD_SUM_CAP: '2' })).toEqual([
      'sum_grad_1',
      'sum_grad_2',
      'sum_grad_3',
      'sum_grad_final',
    ]);
  });

  it('runs a softmax written from ops as the softmax op in inference graphs, with the same values', async () => {
    const b = new Builder(rt.registry);
    const probs = softmaxOps(b, b.v('x'), 'sm_');
    const x = values(6 * 9, 3, 4);
    const run = async (fusion: boolean) => {
      const ex = simpleBind(rt, b.sym(probs), { shapes: { x: [6, 9] }, gradReq: 'null', fusion });
      ex.argDict.x?.set(x);
      const out = await host(ex.forward()[0]);
      const nodes = ex.segments('forward').flat();
      ex.dispose();
      return { out, nodes };
    };
    const fused = await run(true);
    const plain = await run(false);
    expect(fused.nodes).toEqual(['sm_div']);
    expect(plain.nodes).toEqual(['sm_max', 'sm_sub', 'sm_exp', 'sm_sum', 'sm_div']);
    expectClose(fused.out, plain.out, 'probs');
  });
});
