/**
 * What the golden optimizer cases do not cover: training loops (several steps with a changing lr,
 * out aliasing the weight, states carried across calls), every update checked against cpu(0) on
 * random data with clipping on, req=add, views at element offsets, multi_* ops with more weights
 * than a dispatch can bind, long multi_sum_sq reductions, and bad input.
 */
import type { Context } from '@mx/base';
import type { NDArray, OpParams, Runtime } from '@mx/ndarray';
import { describe, expect, it } from 'vitest';
import { CPU, GPU, gpuTestEnv } from '../../test-util/gpu.js';

const env = await gpuTestEnv();
const suite = typeof env === 'string' ? describe.skip : describe;
const rt = (typeof env === 'string' ? undefined : env.runtime) as Runtime;

let seed = 7;
function rand(n: number, lo = -1, hi = 1): Float32Array {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    a[i] = lo + ((seed >>> 8) / 16777216) * (hi - lo);
  }
  return a;
}

const arr = (data: Float32Array, ctx: Context, shape = [data.length]) =>
  rt.nd.array(data, { shape, dtype: 'float32', ctx });

function expectClose(got: Float32Array, want: Float32Array, rtol = 1e-5, atol = 1e-6): void {
  expect(got.length).toBe(want.length);
  for (let i = 0; i < got.length; i++) {
    const g = got[i] as number;
    const w = want[i] as number;
    if (!(Math.abs(g - w) <= atol + rtol * Math.abs(w)) && !(Number.isNaN(g) && Number.isNaN(w)))
      expect.fail(`at ${i}: ${g} vs ${w}`);
  }
}

/** Run `op` with out=weight on both devices; compare the weight and every input afterwards. */
async function compareUpdate(op: string, data: Float32Array[], params: OpParams, scalars: number[] = []) {
  const results: Float32Array[][] = [];
  for (const ctx of [CPU, GPU]) {
    const xs = data.map((d, i) => arr(d, ctx, scalars.includes(i) ? [1] : [d.length]));
    rt.invoke(op, xs, params, { out: xs[0] as NDArray });
    results.push(await Promise.all(xs.map((x) => x.data() as Promise<Float32Array>)));
    for (const x of xs) x.dispose();
  }
  const [cpu, gpu] = results as [Float32Array[], Float32Array[]];
  cpu.forEach((c, i) => {
    expectClose(gpu[i] as Float32Array, c);
  });
}

suite('webgpu optimizer kernels', () => {
  it('sgd_mom_update: a 6-step loop with a changing lr and out=weight matches cpu(0)', async () => {
    const n = 1000;
    const w0 = rand(n);
    const state: Record<string, NDArray[]> = {};
    for (const [name, ctx] of [
      ['cpu', CPU],
      ['gpu', GPU],
    ] as const) {
      state[name] = [arr(w0, ctx), arr(new Float32Array(n), ctx)];
    }
    const gpuRt = (env as Exclude<typeof env, string>).backend.rt;
    const before = gpuRt.pipelineCount;
    for (let step = 0; step < 6; step++) {
      const g = rand(n, -2, 2);
      const params = {
        lr: 0.1 / (step + 1),
        momentum: 0.9,
        wd: 1e-3,
        rescale_grad: 0.5,
        clip_gradient: step % 2 ? 0.4 : -1,
      };
      for (const [name, ctx] of [
        ['cpu', CPU],
        ['gpu', GPU],
      ] as const) {
        const [w, m] = state[name] as [NDArray, NDArray];
        const grad = arr(g, ctx);
        rt.invoke('sgd_mom_update', [w, grad, m], params, { out: w });
        grad.dispose();
      }
    }
    const [cw, cm] = state.cpu as [NDArray, NDArray];
    const [gw, gm] = state.gpu as [NDArray, NDArray];
    expectClose((await gw.data()) as Float32Array, (await cw.data()) as Float32Array);
    expectClose((await gm.data()) as Float32Array, (await cm.data()) as Float32Array);
    // The lr is a uniform: the loop compiled at most one pipeline per clipping variant.
    expect(gpuRt.pipelineCount - before).toBeLessThanOrEqual(2);
    for (const a of [cw, cm, gw, gm]) a.dispose();
  });

  it('every single-weight update matches cpu(0) with out=weight and clipping', async () => {
    const n = 777;
    const p = (x: OpParams) => ({ rescale_grad: 0.7, clip_gradient: 0.3, ...x });
    const q = (x: OpParams) => ({ clip_gradient: 0.3, ...x });
    await compareUpdate('sgd_update', [rand(n), rand(n)], p({ lr: 0.2, wd: 0.01 }));
    await compareUpdate(
      'sgd_mom_update',
      [rand(n), rand(n), rand(n)],
      p({ lr: 0.2, momentum: 0.8, wd: 0.01 }),
    );
    await compareUpdate(
      'nag_mom_update',
      [rand(n), rand(n), rand(n)],
      p({ lr: 0.2, momentum: 0.8, wd: 0.01 }),
    );
    await compareUpdate('adam_update', [rand(n), rand(n), rand(n), rand(n, 0, 1)], p({ lr: 0.01, wd: 0.01 }));
    await compareUpdate(
      '_adamw_update',
      [rand(n), rand(n), rand(n), rand(n, 0, 1), new Float32Array([0.5])],
      q({ lr: 0.01, eta: 0.5, wd: 0.1 }),
      [4],
    );
    await compareUpdate(
      'rmsprop_update',
      [rand(n), rand(n), rand(n, 0, 1)],
      p({ lr: 0.01, clip_weights: 0.5 }),
    );
    await compareUpdate(
      'rmspropalex_update',
      [rand(n), rand(n), rand(n, 1, 2), rand(n, 0, 0.1), rand(n)],
      p({ lr: 0.01, clip_weights: 0.5 }),
    );
    await compareUpdate(
      'ftrl_update',
      [rand(n), rand(n), rand(n), rand(n, 0, 1)],
      p({ lr: 0.1, lamda1: 0.05, wd: 0.01 }),
    );
    await compareUpdate('signsgd_update', [rand(n), rand(n)], p({ lr: 0.1, wd: 0.01 }));
    await compareUpdate(
      'signum_update',
      [rand(n), rand(n), rand(n)],
      p({ lr: 0.1, momentum: 0.9, wd: 0.01, wd_lh: 0.02 }),
    );
    await compareUpdate(
      'lamb_update_phase1',
      [rand(n), rand(n), rand(n), rand(n, 0, 1)],
      p({ t: 3, wd: 0.01 }),
    );
    await compareUpdate(
      'lamb_update_phase2',
      [rand(n), rand(n), new Float32Array([2]), new Float32Array([3])],
      { lr: 0.1, lower_bound: 2.5, upper_bound: 10 },
      [2, 3],
    );
    await compareUpdate(
      'mp_sgd_mom_update',
      [rand(n), rand(n), rand(n), rand(n)],
      p({ lr: 0.2, momentum: 0.8, wd: 0.01 }),
    );
    await compareUpdate(
      '_mp_adamw_update',
      [rand(n), rand(n), rand(n), rand(n, 0, 1), rand(n), new Float32Array([0.5])],
      q({ lr: 0.01, eta: 0.5 }),
      [5],
    );
  });

  it('_adamw_update with a NaN rescale_grad keeps the states and copies the weight', async () => {
    const w = arr(new Float32Array([1, 2]), GPU);
    const g = arr(new Float32Array([1, 1]), GPU);
    const m = arr(new Float32Array([0.5, 0.5]), GPU);
    const v = arr(new Float32Array([0.25, 0.25]), GPU);
    const r = arr(new Float32Array([Number.NaN]), GPU, [1]);
    const out = rt.invoke('_adamw_update', [w, g, m, v, r], { lr: 0.1, eta: 1 })[0] as NDArray;
    expect([...((await out.data()) as Float32Array)]).toEqual([1, 2]);
    expect([...((await m.data()) as Float32Array)]).toEqual([0.5, 0.5]);
    for (const a of [w, g, m, v, r, out]) a.dispose();
  });

  it('req=add accumulates and views at element offsets update in place', async () => {
    const w = arr(new Float32Array([1, 2, 3, 4, 5, 6]), GPU, [3, 2]);
    const g = arr(new Float32Array([1, 1, 1, 1, 1, 1]), GPU, [3, 2]);
    const acc = arr(new Float32Array([10, 10, 10, 10, 10, 10]), GPU, [3, 2]);
    rt.invoke('sgd_update', [w, g], { lr: 0.5 }, { out: acc, req: 'add' });
    expect([...((await acc.data()) as Float32Array)]).toEqual([10.5, 11.5, 12.5, 13.5, 14.5, 15.5]);
    const wv = w.slice(1, 3);
    const gv = g.slice(1, 3);
    rt.invoke('sgd_update', [wv, gv], { lr: 0.5 }, { out: wv });
    expect([...((await w.data()) as Float32Array)]).toEqual([1, 2, 2.5, 3.5, 4.5, 5.5]);
    for (const a of [w, g, acc]) a.dispose();
  });

  it('multi_sgd_mom_update with 6 weights (18 arrays) and multi_sum_sq over long arrays match cpu(0)', async () => {
    const sizes = [5, 300, 1, 4097, 64, 70000];
    const data = sizes.flatMap((s) => [rand(s), rand(s), rand(s)]);
    const params = {
      lrs: sizes.map((_, i) => 0.1 * (i + 1)),
      wds: sizes.map(() => 0.01),
      momentum: 0.9,
      num_weights: sizes.length,
      clip_gradient: 0.5,
    };
    const got: Float32Array[][] = [];
    for (const ctx of [CPU, GPU]) {
      const xs = data.map((d) => arr(d, ctx));
      const ws = xs.filter((_, i) => i % 3 === 0);
      rt.invoke('multi_sgd_mom_update', xs, params, { out: ws });
      const [ss] = rt.invoke('multi_sum_sq', ws, { num_arrays: ws.length });
      got.push(await Promise.all([...xs, ss as NDArray].map((x) => x.data() as Promise<Float32Array>)));
      for (const x of [...xs, ss as NDArray]) x.dispose();
    }
    const [c, g] = got as [Float32Array[], Float32Array[]];
    c.forEach((v, i) => {
      expectClose(g[i] as Float32Array, v);
    });
  });

  it('refuses bad input with MXNetErrors naming the op', async () => {
    const w = rt.nd.array([1, 2], { dtype: 'int32', ctx: GPU });
    expect(() => rt.invoke('sgd_update', [w, w], { lr: 0.1 })).toThrow(/only support floating point types/);
    const a = arr(new Float32Array(3), GPU);
    const b = arr(new Float32Array(4), GPU);
    expect(() => rt.invoke('sgd_mom_update', [a, a, b], { lr: 0.1 })).toThrow(/sgd_mom_update.*mom/s);
    expect(() => rt.invoke('multi_sum_sq', [a, w], { num_arrays: 2 })).toThrow(/multi_sum_sq/);
    for (const x of [w, a, b]) x.dispose();
  });
});
