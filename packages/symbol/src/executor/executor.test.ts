/**
 * Executor behaviour on cpu-wasm with small graphs whose results follow by hand: argument lists,
 * gradient aggregation (`data + data + ...` has gradient 10), gradReq write/add/null, named forward
 * inputs, training mode (Dropout, BatchNorm's moving statistics), reshape sharing memory,
 * copyParamsFrom, and the bad paths — each refused before anything changes — plus leak checks.
 * Networks against PyTorch are in golden.test.ts.
 */
import { cpu, isMXNetError, type Shape } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { bind, simpleBind } from './index.js';
import { Builder, lenet, mlp } from './test-symbols.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 7 });
const { nd } = rt;
const b = new Builder(rt.registry);
afterAll(() => nd.waitall());

const values = async (a: NDArray | undefined): Promise<number[]> => {
  if (a === undefined) throw new Error('no array');
  return Array.from((await a.data()) as Float32Array);
};
const close = (got: readonly number[], want: readonly number[], tol = 1e-5) => {
  expect(got.length).toBe(want.length);
  got.forEach((g, i) => {
    expect(Math.abs(g - (want[i] as number))).toBeLessThanOrEqual(tol * (1 + Math.abs(want[i] as number)));
  });
};
/** The message of what `fn` throws (it must throw an MXNetError). */
const thrown = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    expect(isMXNetError(e)).toBe(true);
    return (e as Error).message;
  }
  throw new Error('expected an MXNetError');
};

/** y = data + data + ... (n terms), as a chain of elemwise_add. */
function repeatedSum(n: number) {
  const data = b.v('data');
  let y = data;
  for (let i = 1; i < n; i++) y = b.op('elemwise_add', `add${i}`, [y, data]);
  return b.sym(y);
}

/** BatchNorm (aux states moving_mean/var) + FullyConnected. */
function bnNet() {
  const x = b.op(
    'BatchNorm',
    'bn',
    [b.v('data'), b.v('bn_gamma'), b.v('bn_beta'), b.v('bn_moving_mean'), b.v('bn_moving_var')],
    {
      fix_gamma: false,
    },
  );
  return b.sym(b.layer('FullyConnected', 'fc', x, { num_hidden: 2 }));
}

describe('binding', () => {
  it('lists arguments, aux states and outputs in MXNet order', () => {
    const ex = simpleBind(rt, lenet(b), { shapes: { data: [2, 1, 28, 28] }, gradReq: 'null' });
    expect(ex.argNames).toEqual([
      'data',
      'conv1_weight',
      'conv1_bias',
      'conv2_weight',
      'conv2_bias',
      'fc1_weight',
      'fc1_bias',
      'fc2_weight',
      'fc2_bias',
      'softmax_label',
    ]);
    expect(ex.outputNames).toEqual(['softmax_output']);
    expect(ex.argDict.fc1_weight?.shape).toEqual([500, 800]);
    expect(ex.argDict.softmax_label?.shape).toEqual([2]);
    expect(ex.outputs[0]?.shape).toEqual([2, 10]);
    expect(ex.gradArrays.every((g) => g === undefined)).toBe(true);
    expect(ex.hasBackward).toBe(false);
    ex.dispose();
    const bn = simpleBind(rt, bnNet(), { shapes: { data: [4, 3] } });
    expect(bn.auxNames).toEqual(['bn_moving_mean', 'bn_moving_var']);
    expect(bn.argNames).toEqual(['data', 'bn_gamma', 'bn_beta', 'fc_weight', 'fc_bias']);
    expect(Object.keys(bn.gradDict)).toEqual(bn.argNames);
    bn.dispose();
  });

  it('sums every path: data + data + ... (10 terms) has gradient 10; gradReq add accumulates', async () => {
    for (const req of ['write', 'add'] as const) {
      const ex = simpleBind(rt, repeatedSum(10), { shapes: { data: [2, 3] }, gradReq: req });
      ex.forward({ isTrain: true, data: [1, 2, 3, 4, 5, 6] });
      expect(await values(ex.outputs[0])).toEqual([10, 20, 30, 40, 50, 60]);
      ex.backward();
      ex.backward();
      expect(await values(ex.gradDict.data)).toEqual(new Array(6).fill(req === 'add' ? 20 : 10));
      ex.dispose();
    }
  });

  it('differentiates a bare variable, repeated outputs and per-argument gradReq arrays', async () => {
    const bare = simpleBind(rt, b.sym(b.v('data')), { shapes: { data: [3] } });
    bare.forward({ isTrain: true, data: [1, 2, 3] });
    expect(bare.outputs[0]).toBe(bare.argDict.data);
    bare.backward(nd.array([4, 5, 6]));
    expect(await values(bare.gradDict.data)).toEqual([4, 5, 6]);
    bare.dispose();
    const y = b.op('_mul_scalar', 'twice', [b.v('data')], { scalar: 2 });
    const both = simpleBind(rt, b.sym(y, y, b.v('other')), {
      shapes: { data: [2], other: [2] },
      gradReq: ['add', 'null'],
    });
    expect(both.outputNames).toEqual(['twice_output', 'twice_output', 'other']);
    expect(both.gradDict.other).toBeUndefined();
    both.forward({ isTrain: true, data: [1, 1] });
    both.backward();
    expect(await values(both.gradDict.data)).toEqual([4, 4]);
    both.dispose();
  });

  it('bind writes into the caller’s arrays per gradReq, and never disposes them', async () => {
    const sym = mlp(b);
    const shapes: Record<string, Shape> = {
      data: [2, 784],
      fc1_weight: [128, 784],
      fc1_bias: [128],
      fc2_weight: [64, 128],
      fc2_bias: [64],
      fc3_weight: [10, 64],
      fc3_bias: [10],
      label: [2],
    };
    const args = Object.fromEntries(
      Object.entries(shapes).map(([k, s]) => [
        k,
        nd._random_uniform({ low: -0.5, high: 0.5, shape: s }) as NDArray,
      ]),
    );
    args.label?.set([3, 1]);
    const grads = Object.fromEntries(Object.entries(shapes).map(([k, s]) => [k, nd.ones(s)]));
    const write = bind(rt, sym, { args, argsGrad: grads, gradReq: 'write' });
    write.forward({ isTrain: true });
    write.backward();
    const once = await values(grads.fc2_weight);
    const dataOnce = await values(grads.data);
    write.dispose();
    expect(args.data?.isDisposed).toBe(false);
    // Adding twice onto the result of one write gives three times the gradient (FullyConnected's
    // backward kernels accumulate with req add). Each backward follows a forward: backward reads
    // forward values whose memory the plan reuses later in the backward pass, as in MXNet.
    const add = bind(rt, sym, {
      args,
      argsGrad: grads,
      gradReq: { fc2_weight: 'add', data: 'add', fc1_weight: 'write' },
    });
    expect(add.gradReq).toMatchObject({
      fc2_weight: 'add',
      data: 'add',
      fc1_weight: 'write',
      fc3_bias: 'null',
    });
    expect(add.gradDict.fc3_bias).toBeUndefined();
    const fc3Before = await values(grads.fc3_bias);
    for (let i = 0; i < 2; i++) {
      add.forward({ isTrain: true });
      add.backward();
    }
    close(
      await values(grads.fc2_weight),
      once.map((v) => 3 * v),
      1e-5,
    );
    close(
      await values(grads.data),
      dataOnce.map((v) => 3 * v),
      1e-5,
    );
    expect(await values(grads.fc3_bias)).toEqual(fc3Before);
    add.dispose();
    for (const a of [...Object.values(args), ...Object.values(grads)]) a.dispose();
  });

  it('copies named forward inputs (arrays, host values, other dtypes) and refuses wrong ones untouched', async () => {
    const ex = simpleBind(rt, repeatedSum(2), { shapes: { data: [3] } });
    ex.forward({ data: nd.array([1, 2, 3], { dtype: 'float64' }) });
    expect(await values(ex.outputs[0])).toEqual([2, 4, 6]);
    expect(thrown(() => ex.forward({ dta: [1, 2, 3] }))).toMatch(
      /Find name dta that is not in the arguments/,
    );
    expect(thrown(() => ex.forward({ data: nd.zeros([4]) }))).toMatch(
      /Shape not match! Argument data, need: \(3,\), received: \(4,\)/,
    );
    expect(thrown(() => ex.forward({ data: [1, 2] }))).toMatch(/2 values for an array of size 3/);
    expect(await values(ex.argDict.data)).toEqual([1, 2, 3]);
    ex.dispose();
  });

  it('passes training mode: Dropout drops only in training; BatchNorm updates its moving stats only then', async () => {
    const drop = simpleBind(rt, b.sym(b.op('Dropout', 'drop', [b.v('data')], { p: 0.5 })), {
      shapes: { data: [400] },
      gradReq: 'null',
    });
    drop.argDict.data?.set(1);
    drop.forward();
    expect(new Set(await values(drop.outputs[0]))).toEqual(new Set([1]));
    drop.forward({ isTrain: true });
    expect(new Set(await values(drop.outputs[0]))).toEqual(new Set([0, 2]));
    drop.dispose();

    const ex = simpleBind(rt, bnNet(), { shapes: { data: [2, 3] } });
    ex.argDict.data?.set([1, 2, 3, 5, 6, 7]);
    ex.argDict.bn_gamma?.set(1);
    ex.auxDict.bn_moving_var?.set(1);
    ex.forward();
    expect(await values(ex.auxDict.bn_moving_mean)).toEqual([0, 0, 0]);
    ex.forward({ isTrain: true });
    // moving = 0.9 * moving + 0.1 * batch statistic (mean 3, 4, 5; variance 4 each).
    close(await values(ex.auxDict.bn_moving_mean), [0.3, 0.4, 0.5]);
    close(await values(ex.auxDict.bn_moving_var), [0.9 + 0.4, 0.9 + 0.4, 0.9 + 0.4], 1e-4);
    ex.backward([nd.ones([2, 2])]);
    ex.dispose();
  });
});

describe('reshape', () => {
  it('shares memory with the original for smaller shapes and computes the same rows', async () => {
    const big = simpleBind(rt, mlp(b), { shapes: { data: [4, 784] }, gradReq: 'write' });
    for (const [k, a] of Object.entries(big.argDict))
      if (k !== 'label') a.set(nd._random_uniform({ low: -0.2, high: 0.2, shape: a.shape }));
    big.argDict.label?.set([1, 2, 3, 4]);
    big.forward({ isTrain: true });
    const full = await values(big.outputs[0]);
    const small = big.reshape({ data: [2, 784], label: [2] });
    expect(small.argDict.data?.shape).toEqual([2, 784]);
    small.forward({ isTrain: true });
    close(await values(small.outputs[0]), full.slice(0, 2));
    // Weights are shared: a change through one executor is seen by the other.
    small.argDict.fc3_bias?.set(0.5);
    expect(await values(big.argDict.fc3_bias)).toEqual(new Array(10).fill(0.5));
    small.backward();
    expect((await values(big.gradDict.fc3_bias)).some((v) => v !== 0)).toBe(true);
    expect(thrown(() => small.reshape({ data: [8, 784], label: [8] }))).toMatch(
      /New shape of arg:data larger than original.*allowUpSizing/,
    );
    expect(thrown(() => big.reshape({ data: [2, 784] }))).toMatch(
      /Shape of unspecified array arg:label changed/,
    );
    const partial = big.reshape({ data: [2, 784] }, { partialShaping: true });
    expect(partial.argDict.label?.shape).toEqual([2]);
    const grown = small.reshape({ data: [8, 784], label: [8] }, { allowUpSizing: true });
    expect(grown.argDict.data?.shape).toEqual([8, 784]);
    grown.forward();
    for (const e of [big, small, partial, grown]) e.dispose();
    expect(small.isDisposed).toBe(true);
    expect(thrown(() => small.forward())).toMatch(/disposed/);
  });
});

describe('copyParamsFrom', () => {
  it('copies (casting) by name; an unknown name is an error unless allowed, and nothing is copied then', async () => {
    const ex = simpleBind(rt, bnNet(), { shapes: { data: [2, 3] } });
    const w = nd.array([1, 2, 3, 4, 5, 6], { shape: [2, 3], dtype: 'float64' });
    const mm = nd.array([7, 8, 9]);
    ex.copyParamsFrom({ fc_weight: w }, { bn_moving_mean: mm });
    expect(await values(ex.argDict.fc_weight)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await values(ex.auxDict.bn_moving_mean)).toEqual([7, 8, 9]);
    const extra = nd.array([0]);
    expect(thrown(() => ex.copyParamsFrom({ fc_bias: nd.array([5, 5]), nope: extra }))).toMatch(
      /Find name "nope" that is not in the arguments/,
    );
    expect(await values(ex.argDict.fc_bias)).toEqual([0, 0]);
    expect(thrown(() => ex.copyParamsFrom({}, { bn_gamma: mm }))).toMatch(/not in the auxiliary states/);
    ex.copyParamsFrom({ fc_bias: nd.array([5, 5]), nope: extra }, {}, true);
    expect(await values(ex.argDict.fc_bias)).toEqual([5, 5]);
    ex.dispose();
  });
});

describe('bad paths', () => {
  const shapes = (n: number): Record<string, Shape> => ({
    data: [n, 4],
    fc_weight: [3, 4],
    fc_bias: [3],
  });
  const fc = () => b.sym(b.layer('FullyConnected', 'fc', b.v('data'), { num_hidden: 3 }));
  const make = (s: Record<string, Shape>) =>
    Object.fromEntries(Object.entries(s).map(([k, v]) => [k, nd.zeros(v)]));

  it('bind refuses missing, miscounted, misshapen, mistyped and misplaced arrays, naming the argument', async () => {
    const args = make(shapes(2));
    const bnArgs = make({ data: [2, 3], bn_gamma: [3], bn_beta: [3], fc_weight: [2, 3], fc_bias: [2] });
    const before = rt.memory();
    const sym = fc();
    expect(thrown(() => bind(rt, sym, { args: [args.data as NDArray] }))).toMatch(
      /Length of args \(1\) does not match the number of arguments \(3\)/,
    );
    expect(thrown(() => bind(rt, sym, { args: { data: args.data as NDArray } }))).toMatch(
      /key `fc_weight` is missing in `args`/,
    );
    const bad = nd.zeros([3, 5]);
    expect(thrown(() => bind(rt, sym, { args: { ...args, fc_weight: bad } }))).toMatch(
      /argument fc_weight: expected shape \(3, 4\), given \(3, 5\)/,
    );
    const f64 = nd.zeros([3], { dtype: 'float64' });
    expect(thrown(() => bind(rt, sym, { args: { ...args, fc_bias: f64 } }))).toMatch(
      /argument fc_bias: expected dtype float32, given float64/,
    );
    const other = nd.zeros([3], { ctx: cpu(1) });
    expect(thrown(() => bind(rt, sym, { args: { ...args, fc_bias: other } }))).toMatch(
      /argument fc_bias is on cpu\(1\); the executor runs on cpu\(0\)/,
    );
    const g = nd.zeros([3, 5]);
    expect(thrown(() => bind(rt, sym, { args, argsGrad: { fc_weight: g } }))).toMatch(
      /gradient of argument fc_weight: expected float32 \(3, 4\) \(the argument.s\), given float32 \(3, 5\)/,
    );
    expect(thrown(() => bind(rt, sym, { args, gradReq: 'sometimes' as never }))).toMatch(
      /must be 'write', 'add' or 'null'/,
    );
    expect(thrown(() => bind(rt, bnNet(), { args: bnArgs }))).toMatch(
      /auxStates is missing: the symbol has aux states bn_moving_mean, bn_moving_var/,
    );
    const disposed = nd.zeros([3]);
    disposed.dispose();
    expect(thrown(() => bind(rt, sym, { args: { ...args, fc_bias: disposed } }))).toMatch(
      /argument fc_bias \(.*\) was disposed/,
    );
    expect(rt.memory().arrays).toBe(before.arrays + 4); // bad, f64, other, g: the refused binds left nothing
    for (const a of [...Object.values(args), ...Object.values(bnArgs), bad, f64, other, g]) a.dispose();
  });

  it('simpleBind names what it cannot infer; backward needs gradients and matching head gradients', () => {
    expect(thrown(() => simpleBind(rt, fc(), { shapes: {} }))).toMatch(
      /simpleBind: cannot infer data \(shape unknown/,
    );
    expect(thrown(() => simpleBind(rt, fc(), { shapes: { data: [2, 4], label: [2] } }))).toMatch(
      /a shape given for label, which is not an argument or aux state/,
    );
    const ex = simpleBind(rt, fc(), { shapes: { data: [2, 4] }, gradReq: 'null' });
    ex.forward();
    expect(thrown(() => ex.backward())).toMatch(/bound without gradients/);
    ex.dispose();
    const withGrad = simpleBind(rt, fc(), { shapes: { data: [2, 4] } });
    const wrong = nd.ones([2, 4]);
    expect(thrown(() => withGrad.backward(wrong))).toMatch(
      /gradient of output fc_output has shape \(2, 4\), the output has \(2, 3\)/,
    );
    wrong.dispose();
    withGrad.dispose();
  });

  it('leaves no array behind: bind, run, reshape and dispose under a leak check', async () => {
    const base = rt.memory();
    await rt.leakCheck(async () => {
      const ex = simpleBind(rt, lenet(b), { shapes: { data: [2, 1, 28, 28] } });
      ex.forward({ isTrain: true });
      ex.backward();
      const small = ex.reshape({ data: [1, 1, 28, 28], softmax_label: [1] });
      small.forward({ isTrain: true });
      small.backward();
      await small.outputs[0]?.data();
      await ex.gradDict.conv1_weight?.data();
      small.dispose();
      ex.dispose();
      ex.dispose();
    });
    await nd.waitall();
    expect(rt.memory().arrays).toBe(base.arrays);
    expect(rt.memory().bytes).toBe(base.bytes);
  });
});
