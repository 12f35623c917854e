/**
 * What the golden cases do not cover for the norm kernels, checked against cpu-wasm in the same
 * runtime: BatchNorm in training updating the moving statistics in place (channel first and
 * channel last), LayerNorm over a long row and a middle axis, req add on backward ops (each of the
 * three gradients accumulating, one of them skipped), and bad input.
 */
import { MXNetError } from '@mx/base';
import type { NDArray } from '@mx/ndarray';
import { describe, expect, it } from 'vitest';
import { CPU, GPU, gpuTestEnv } from '../../../test-util/gpu.js';

const env = await gpuTestEnv();
const d = typeof env === 'string' ? describe.skip : describe;
const E = env as Exclude<typeof env, string>;

function rand(n: number, seed: number, scale = 4, shift = 0): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s / 2 ** 32 - 0.5) * scale + shift;
  }
  return out;
}

const nums = async (a: NDArray): Promise<number[]> => Array.from((await a.data()) as Float32Array);

function close(a: readonly number[], b: readonly number[], rtol = 1e-5, atol = 1e-5): void {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    if (!(Math.abs(x - y) <= atol + rtol * Math.abs(y))) expect.fail(`element ${i}: gpu ${x} vs cpu ${y}`);
  }
}

/** Run `op` on both devices; every visible output and every input afterwards (mutated ones). */
async function both(
  op: string,
  inputs: readonly { data: ArrayLike<number>; shape: number[] }[],
  params: Record<string, unknown>,
  isTrain = false,
): Promise<{ gpu: number[][]; cpu: number[][] }> {
  const { runtime } = E;
  const run = async (ctx: typeof GPU) => {
    const xs = inputs.map((i) =>
      runtime.nd.array(Float32Array.from(i.data) as never, { shape: i.shape, ctx }),
    );
    const outs = runtime.invoke(op, xs, params, { ctx, isTrain });
    const vals = [];
    for (const o of [...outs, ...xs]) vals.push(await nums(o));
    for (const a of [...xs, ...outs]) a.dispose();
    return vals;
  };
  return { gpu: await run(GPU), cpu: await run(CPU) };
}

d('webgpu nn norm', () => {
  it('BatchNorm in training normalises with batch stats and updates moving stats in place', async () => {
    for (const [shape, axis] of [
      [[4, 3, 5, 6], 1],
      [[4, 5, 6, 3], -1],
      [[300, 2], 1],
    ] as const) {
      const C = shape[axis < 0 ? shape.length + axis : axis] as number;
      const n = shape.reduce((a, b) => a * b, 1);
      const ins = [
        { data: rand(n, 1, 6, 2), shape: [...shape] },
        { data: rand(C, 2, 1, 1), shape: [C] },
        { data: rand(C, 3), shape: [C] },
        { data: rand(C, 4), shape: [C] },
        { data: rand(C, 5, 1, 2), shape: [C] },
      ];
      const params = { axis, fix_gamma: false, momentum: 0.8, eps: 1e-4, output_mean_var: true };
      const r = await both('BatchNorm', ins, params, true);
      // outputs (out, mean, invstd), then the inputs: moving_mean is index 3 + 3, moving_var 3 + 4.
      for (let k = 0; k < r.cpu.length; k++) close(r.gpu[k] as number[], r.cpu[k] as number[]);
      expect(r.gpu[6]).not.toEqual(Array.from(ins[3]?.data as Float32Array));
    }
  });

  it('BatchNorm outside training uses and keeps the moving stats', async () => {
    const ins = [
      { data: rand(2 * 3 * 4, 6), shape: [2, 3, 4] },
      { data: rand(3, 7), shape: [3] },
      { data: rand(3, 8), shape: [3] },
      { data: rand(3, 9), shape: [3] },
      { data: rand(3, 10, 1, 2), shape: [3] },
    ];
    const r = await both('BatchNorm', ins, { fix_gamma: true }, false);
    for (let k = 0; k < r.cpu.length; k++) close(r.gpu[k] as number[], r.cpu[k] as number[]);
    expect(r.gpu[4]).toEqual(Array.from(ins[3]?.data as Float32Array));
  });

  it('LayerNorm over a long row and a middle axis matches cpu (forward and backward)', async () => {
    for (const [shape, axis] of [
      [[2, 20_000], -1],
      [[3, 40, 5], 1],
    ] as const) {
      const C = shape[axis < 0 ? shape.length + axis : axis] as number;
      const n = shape.reduce((a, b) => a * b, 1);
      const x = { data: rand(n, 11, 8, 3), shape: [...shape] };
      const gamma = { data: rand(C, 12, 1, 1), shape: [C] };
      const beta = { data: rand(C, 13), shape: [C] };
      const f = await both('LayerNorm', [x, gamma, beta], { axis, output_mean_var: true });
      for (let k = 0; k < 3; k++) close(f.gpu[k] as number[], f.cpu[k] as number[], 1e-4, 1e-4);
      const ms = shape.map((s, i) => (i === (axis < 0 ? shape.length + axis : axis) ? 1 : s));
      const og = { data: rand(n, 14), shape: [...shape] };
      const mean = { data: f.cpu[1] as number[], shape: ms };
      const std = { data: f.cpu[2] as number[], shape: ms };
      const b = await both('_backward_LayerNorm', [og, x, gamma, mean, std], { axis });
      for (let k = 0; k < 3; k++) close(b.gpu[k] as number[], b.cpu[k] as number[], 1e-3, 1e-3);
    }
  });

  it('backward ops accumulate with req add, each gradient on its own', async () => {
    const { runtime } = E;
    const { nd } = runtime;
    const x = nd.array(rand(2 * 6 * 5, 15), { shape: [2, 6, 5], ctx: GPU });
    const gamma = nd.array(rand(6, 16, 1, 1), { ctx: GPU });
    const beta = nd.array(rand(6, 17), { ctx: GPU });
    const [, mean, std] = runtime.invoke(
      'GroupNorm',
      [x, gamma, beta],
      { num_groups: 3, output_mean_var: true },
      { ctx: GPU },
    ) as [NDArray, NDArray, NDArray];
    const og = nd.array(rand(60, 18), { shape: [2, 6, 5], ctx: GPU });
    const args = [og, x, gamma, mean as NDArray, std as NDArray];
    const p = { num_groups: 3 };
    const fresh = runtime.invoke('_backward_GroupNorm', args, p, { ctx: GPU });
    const acc = [
      nd.array(new Float32Array(60).fill(1), { shape: [2, 6, 5], ctx: GPU }),
      nd.array(new Float32Array(6).fill(2), { ctx: GPU }),
      nd.array(new Float32Array(6).fill(3), { ctx: GPU }),
    ];
    runtime.invoke('_backward_GroupNorm', args, p, { out: acc, req: 'add' });
    for (let k = 0; k < 3; k++) {
      close(
        await nums(acc[k] as NDArray),
        (await nums(fresh[k] as NDArray)).map((v) => Math.fround(v + k + 1)),
      );
    }
    // BatchNorm backward in training with add.
    const bx = nd.array(rand(2 * 3 * 4, 19), { shape: [2, 3, 4], ctx: GPU });
    const vec = (s: number, shift = 0) => nd.array(rand(3, s, 1, shift), { ctx: GPU });
    const bargs = [
      nd.array(rand(24, 20), { shape: [2, 3, 4], ctx: GPU }),
      vec(21),
      vec(22, 1),
      bx,
      vec(23, 1),
      vec(24),
      vec(25),
      vec(26, 2),
    ];
    const bp = { fix_gamma: false };
    const bfresh = runtime.invoke('_backward_BatchNorm', bargs, bp, { ctx: GPU, isTrain: true });
    const bacc = [
      nd.array(new Float32Array(24).fill(1), { shape: [2, 3, 4], ctx: GPU }),
      nd.array([2, 2, 2], { ctx: GPU }),
      nd.array([3, 3, 3], { ctx: GPU }),
    ];
    runtime.invoke('_backward_BatchNorm', bargs, bp, { out: bacc, req: 'add', isTrain: true });
    for (let k = 0; k < 3; k++) {
      close(
        await nums(bacc[k] as NDArray),
        (await nums(bfresh[k] as NDArray)).map((v) => Math.fround(v + k + 1)),
      );
    }
  });

  it('rejects bad input with MXNetError', async () => {
    const { runtime } = E;
    const { nd } = runtime;
    const xi = nd.array(new Int32Array(24), { shape: [2, 3, 4], dtype: 'int32', ctx: GPU });
    const v = nd.array([1, 1, 1], { ctx: GPU });
    expect(() => runtime.invoke('BatchNorm', [xi, v, v, v, v], {}, { ctx: GPU })).toThrow(MXNetError);
    const x = nd.array(new Float32Array(24), { shape: [2, 6, 2], ctx: GPU });
    const g = nd.array(new Float32Array(6), { ctx: GPU });
    expect(() => runtime.invoke('GroupNorm', [x, g, g], { num_groups: 4 }, { ctx: GPU })).toThrow(
      /divisible/,
    );
    expect(() => runtime.invoke('LayerNorm', [x, v, v], { axis: 5 }, { ctx: GPU })).toThrow(
      /Channel axis out of range/,
    );
  });
});
