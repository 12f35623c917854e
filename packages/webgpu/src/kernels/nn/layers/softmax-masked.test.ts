/**
 * masked_log_softmax on webgpu where the golden cases (rows ≤ 32, one invocation per row) do not
 * reach: rows of 300 along the last axis and along axis 0 (the workgroup's strided loops and tree
 * reductions), a broadcast mask with fully masked rows (all -inf, gradient 0), the backward op
 * with req add, and bad input. Checked against cpu(0), whose kernel the golden cases pin down.
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

/** A bool mask of `n` entries, about 30% off, with the given entries forced off. */
function maskOf(n: number, seed: number, off: (i: number) => boolean): Uint8Array {
  const r = rand(n, seed, 1);
  return Uint8Array.from(r, (v, i) => (off(i) || v < -0.2 ? 0 : 1));
}

const nums = async (a: NDArray): Promise<number[]> => Array.from((await a.data()) as Float32Array);

/** Equal infinities, otherwise |a - b| ≤ atol + rtol |b|. */
function close(a: readonly number[], b: readonly number[], rtol = 1e-5, atol = 1e-5): void {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    if (x === y) continue;
    if (!(Math.abs(x - y) <= atol + rtol * Math.abs(y))) expect.fail(`element ${i}: gpu ${x} vs cpu ${y}`);
  }
}

d('masked_log_softmax on webgpu', () => {
  /** Forward and backward on one device: [y, dx]. */
  async function run(
    ctx: typeof GPU,
    x: Float32Array,
    mask: Uint8Array,
    og: Float32Array,
    shape: number[],
    maskShape: number[],
    params: Record<string, unknown>,
  ): Promise<number[][]> {
    const { runtime } = E;
    const { nd } = runtime;
    const xs = nd.array(x, { shape, ctx });
    const ms = nd.array(mask, { shape: maskShape, dtype: 'bool', ctx });
    const g = nd.array(og, { shape, ctx });
    const y = runtime.invoke('masked_log_softmax', [xs, ms], params, { ctx })[0] as NDArray;
    const dx = runtime.invoke('_backward_masked_log_softmax', [g, ms, y], params, { ctx })[0] as NDArray;
    const out = [await nums(y), await nums(dx)];
    for (const a of [xs, ms, g, y, dx]) a.dispose();
    return out;
  }

  it('matches cpu over 300-long rows on the last axis, fully masked rows included', async () => {
    const shape = [4, 300];
    const maskShape = [4, 300];
    const mask = maskOf(1200, 3, (i) => i >= 600 && i < 900); // row 2 fully masked
    const x = rand(1200, 1);
    const og = rand(1200, 2);
    const params = { temperature: 1.5 };
    const [gy, gdx] = await run(GPU, x, mask, og, shape, maskShape, params);
    const [cy, cdx] = await run(CPU, x, mask, og, shape, maskShape, params);
    close(gy as number[], cy as number[]);
    close(gdx as number[], cdx as number[]);
    const y = gy as number[];
    for (let i = 600; i < 900; i++) expect(y[i]).toBe(Number.NEGATIVE_INFINITY);
    for (let i = 600; i < 900; i++) expect((gdx as number[])[i]).toBe(0);
    for (let i = 0; i < 1200; i++) if (!mask[i]) expect(y[i]).toBe(Number.NEGATIVE_INFINITY);
  });

  it('matches cpu over axis 0 of length 300 with a mask broadcast along the other axes', async () => {
    const shape = [300, 2, 3];
    const maskShape = [300, 1, 3];
    const mask = maskOf(900, 5, (i) => i % 3 === 1); // column 1 fully masked
    const x = rand(1800, 6);
    const og = rand(1800, 7);
    const params = { axis: 0 };
    const [gy, gdx] = await run(GPU, x, mask, og, shape, maskShape, params);
    const [cy, cdx] = await run(CPU, x, mask, og, shape, maskShape, params);
    close(gy as number[], cy as number[]);
    close(gdx as number[], cdx as number[]);
    expect((gy as number[]).filter((v) => v === Number.NEGATIVE_INFINITY).length).toBeGreaterThanOrEqual(600);
  });

  it('accumulates the backward op into out= with req add', async () => {
    const { runtime } = E;
    const { nd } = runtime;
    const x = nd.array(rand(12, 8), { shape: [3, 4], ctx: GPU });
    const m = nd.array(Uint8Array.from([1, 0, 1, 1, 0, 0, 0, 0, 1, 1, 0, 1]), {
      shape: [3, 4],
      dtype: 'bool',
      ctx: GPU,
    });
    const g = nd.array(rand(12, 9), { shape: [3, 4], ctx: GPU });
    const y = runtime.invoke('masked_log_softmax', [x, m], {}, { ctx: GPU })[0] as NDArray;
    const fresh = runtime.invoke('_backward_masked_log_softmax', [g, m, y], {}, { ctx: GPU })[0] as NDArray;
    const dx = nd.array(new Float32Array(12).fill(10), { shape: [3, 4], ctx: GPU });
    runtime.invoke('_backward_masked_log_softmax', [g, m, y], {}, { out: dx, req: 'add' });
    close(
      await nums(dx),
      (await nums(fresh)).map((v) => Math.fround(v + 10)),
    );
    for (const a of [x, m, g, y, fresh, dx]) a.dispose();
  });

  it('rejects bad input with MXNetError', async () => {
    const { runtime } = E;
    const { nd } = runtime;
    const x = nd.array(rand(12, 10), { shape: [3, 4], ctx: GPU });
    const m = nd.array(new Uint8Array(12).fill(1), { shape: [3, 4], dtype: 'bool', ctx: GPU });
    const bad = nd.array(new Uint8Array(6).fill(1), { shape: [3, 2], dtype: 'bool', ctx: GPU });
    expect(() => runtime.invoke('masked_log_softmax', [x, m], { axis: 2 }, { ctx: GPU })).toThrow(
      /axis 2 exceeds/,
    );
    expect(() => runtime.invoke('masked_log_softmax', [x, bad], {}, { ctx: GPU })).toThrow(MXNetError);
    expect(() => runtime.invoke('masked_log_softmax', [x, bad], {}, { ctx: GPU })).toThrow(
      /Mask cannot be broadcasted from \(3, 2\) to \(3, 4\)/,
    );
    for (const a of [x, m, bad]) a.dispose();
  });
});
