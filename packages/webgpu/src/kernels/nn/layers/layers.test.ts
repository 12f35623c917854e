/**
 * What the golden cases do not cover for the layer kernels, checked against cpu-wasm in the same
 * runtime: softmax over a non-last axis and over a 50k-element row (strided loops past the
 * workgroup), more than 65535 rows (grid folded into y), req add on backward ops (softmax and
 * prelu's two gradients), in-place forward, Dropout/rrelu masks drawn from the random resource,
 * and bad input.
 */
import { MXNetError } from '@mx/base';
import type { NDArray } from '@mx/ndarray';
import { describe, expect, it } from 'vitest';
import { CPU, GPU, gpuTestEnv } from '../../../test-util/gpu.js';

const env = await gpuTestEnv();
const d = typeof env === 'string' ? describe.skip : describe;
const E = env as Exclude<typeof env, string>;

function rand(n: number, seed: number, scale = 4): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s / 2 ** 32 - 0.5) * scale;
  }
  return out;
}

const nums = async (a: NDArray): Promise<number[]> => Array.from((await a.data()) as Float32Array);

/** Run `op` on gpu(0) and cpu(0) with the same inputs; both outputs' values. */
async function both(
  op: string,
  inputs: readonly { data: ArrayLike<number>; shape: number[]; dtype?: 'float32' | 'int32' | 'bool' }[],
  params: Record<string, unknown>,
  isTrain = false,
): Promise<{ gpu: number[][]; cpu: number[][] }> {
  const { runtime } = E;
  const run = async (ctx: typeof GPU) => {
    const xs = inputs.map((i) =>
      runtime.nd.array((i.dtype === 'int32' ? Int32Array.from(i.data) : Float32Array.from(i.data)) as never, {
        shape: i.shape,
        dtype: i.dtype ?? 'float32',
        ctx,
      }),
    );
    const outs = runtime.invoke(op, xs, params, { ctx, isTrain });
    const vals = [];
    for (const o of outs) vals.push(await nums(o));
    for (const a of [...xs, ...outs]) a.dispose();
    return vals;
  };
  return { gpu: await run(GPU), cpu: await run(CPU) };
}

function close(a: readonly number[], b: readonly number[], rtol = 1e-5, atol = 1e-6): void {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    if (!(Math.abs(x - y) <= atol + rtol * Math.abs(y))) expect.fail(`element ${i}: gpu ${x} vs cpu ${y}`);
  }
}

d('webgpu nn layers', () => {
  it('softmax and log_softmax over a non-last axis match cpu', async () => {
    const x = { data: rand(3 * 5 * 4, 1), shape: [3, 5, 4] };
    for (const op of ['softmax', 'log_softmax']) {
      for (const axis of [0, 1, -2]) {
        const r = await both(op, [x], { axis, temperature: 1.5 });
        close(r.gpu[0] as number[], r.cpu[0] as number[]);
      }
    }
  });

  it('softmax over a 50k-element row (and its gradient) matches cpu', async () => {
    const n = 50_000;
    const x = { data: rand(2 * n, 2, 20), shape: [2, n] };
    const r = await both('softmax', [x], {});
    close(r.gpu[0] as number[], r.cpu[0] as number[], 1e-4, 1e-9);
    const sum = (r.gpu[0] as number[]).slice(0, n).reduce((a, b) => a + b, 0);
    expect(sum).toBeCloseTo(1, 4);
    const y = { data: r.cpu[0] as number[], shape: [2, n] };
    const g = { data: rand(2 * n, 3), shape: [2, n] };
    const b = await both('_backward_softmax', [g, y], {});
    close(b.gpu[0] as number[], b.cpu[0] as number[], 1e-4, 1e-8);
  });

  it('runs more than 65535 rows (grid folded into y)', async () => {
    const rows = 70_000;
    const x = { data: rand(rows * 3, 4), shape: [rows, 3] };
    const r = await both('log_softmax', [x], {});
    close(r.gpu[0] as number[], r.cpu[0] as number[]);
  });

  it('accumulates into out= with req add (softmax backward, prelu data and gamma gradients)', async () => {
    const { runtime } = E;
    const { nd } = runtime;
    const g = nd.array(rand(12, 5), { shape: [3, 4], ctx: GPU });
    const y = runtime.invoke(
      'softmax',
      [nd.array(rand(12, 6), { shape: [3, 4], ctx: GPU })],
      {},
      { ctx: GPU },
    )[0] as NDArray;
    const fresh = runtime.invoke('_backward_softmax', [g, y], {}, { ctx: GPU })[0] as NDArray;
    const dx = nd.array(new Float32Array(12).fill(10), { shape: [3, 4], ctx: GPU });
    runtime.invoke('_backward_softmax', [g, y], {}, { out: dx, req: 'add' });
    close(
      await nums(dx),
      (await nums(fresh)).map((v) => Math.fround(v + 10)),
    );

    const data = nd.array(rand(24, 7), { shape: [2, 3, 4], ctx: GPU });
    const og = nd.array(rand(24, 8), { shape: [2, 3, 4], ctx: GPU });
    const gamma = nd.array([0.1, 0.2, 0.3], { ctx: GPU });
    const out = nd.array(new Float32Array(24), { shape: [2, 3, 4], ctx: GPU });
    const p = { act_type: 'prelu' };
    const [d0, g0] = runtime.invoke('_backward_LeakyReLU', [og, data, gamma, out], p, { ctx: GPU }) as [
      NDArray,
      NDArray,
    ];
    const dAcc = nd.array(new Float32Array(24).fill(1), { shape: [2, 3, 4], ctx: GPU });
    const gAcc = nd.array([1, 2, 3], { ctx: GPU });
    runtime.invoke('_backward_LeakyReLU', [og, data, gamma, out], p, { out: [dAcc, gAcc], req: 'add' });
    close(
      await nums(dAcc),
      (await nums(d0)).map((v) => Math.fround(v + 1)),
    );
    close(
      await nums(gAcc),
      (await nums(g0)).map((v, i) => Math.fround(v + i + 1)),
    );
    for (const a of [g, y, fresh, dx, data, og, gamma, out, d0, g0, dAcc, gAcc]) a.dispose();
  });

  it('computes softmax in place (out= the input)', async () => {
    const { runtime } = E;
    const x = runtime.nd.array(rand(40, 9), { shape: [4, 10], ctx: GPU });
    const want = await nums(runtime.invoke('softmax', [x], { axis: 0 }, { ctx: GPU })[0] as NDArray);
    runtime.invoke('softmax', [x], { axis: 0 }, { out: x });
    close(await nums(x), want);
    x.dispose();
  });

  it('draws Dropout and rrelu masks from the random resource', async () => {
    const x = { data: rand(4 * 300, 10), shape: [4, 300] };
    const out = (await both('Dropout', [x], { p: 0.3, axes: [0] }, true)).gpu[0] as number[];
    // axes=[0]: one draw per column, shared by the 4 rows; kept entries scaled by 1/(1-p).
    const scale = Math.fround(1 / Math.fround(0.7));
    let kept = 0;
    for (let j = 0; j < 300; j++) {
      const on = out[j] !== 0;
      if (on) kept++;
      for (let r = 0; r < 4; r++) {
        const v = x.data[r * 300 + j] as number;
        expect((out[r * 300 + j] as number) + 0).toBe(on ? Math.fround(v * scale) : 0);
      }
    }
    expect(kept / 300).toBeGreaterThan(0.55);
    expect(kept / 300).toBeLessThan(0.85);
    const y = (await both('LeakyReLU', [x], { act_type: 'rrelu' }, true)).gpu[0] as number[];
    for (let i = 0; i < y.length; i++) {
      const v = x.data[i] as number;
      if (v > 0) expect(y[i]).toBe(v);
      else if (v < 0) {
        const slope = (y[i] as number) / v;
        expect(slope).toBeGreaterThanOrEqual(0.125 - 1e-6);
        expect(slope).toBeLessThan(0.334 + 1e-6);
      }
    }
  });

  it('rejects bad input with MXNetError', async () => {
    const { runtime } = E;
    const xi = runtime.nd.array([1, 2, 3, 4], { shape: [2, 2], dtype: 'int32', ctx: GPU });
    expect(() => runtime.invoke('Activation', [xi], { act_type: 'relu' }, { ctx: GPU })).toThrow(MXNetError);
    expect(() => runtime.invoke('softmax', [xi], { axis: 2 }, { ctx: GPU })).toThrow(/axis 2 exceeds/);
    // int32 data passes the dtype list (lengths are int32) but not the per-slot rule: refused at the call.
    expect(() => runtime.invoke('softmax', [xi], {}, { ctx: GPU })).toThrow(
      /data and outputs must be float32/,
    );
    xi.dispose();
  });
});
