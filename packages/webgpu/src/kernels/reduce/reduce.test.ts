/**
 * The reduce family on gpu(0) beyond the golden cases, against cpu(0) in the same runtime: req=add
 * and views at element offsets, long rows (multi-pass reductions, global bitonic stages, block
 * scans), more than 65535 rows, in-place cumsum, ties in long sorts, and bad calls.
 */
import type { DTypeName, StorageArray } from '@mx/base';
import type { NDArray } from '@mx/ndarray';
import { describe, expect, it } from 'vitest';
import { CPU, GPU, gpuTestEnv } from '../../test-util/gpu.js';

const env = await gpuTestEnv();
const d = typeof env === 'string' ? describe.skip : describe;
const E = env as Exclude<typeof env, string>;
const nums = (a: StorageArray): number[] => Array.from(a as ArrayLike<number>);

/** Deterministic pseudo-random values (integers when `ints`, to force ties). */
function values(n: number, seed: number, ints = false): number[] {
  let s = seed >>> 0;
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = ints ? (s >>> 8) % 17 : (s / 2 ** 32) * 4 - 2;
  }
  return out;
}

/** Run `op` on gpu(0) and cpu(0) and compare every output (relative tolerance `rtol`). */
async function same(
  op: string,
  data: number[],
  shape: number[],
  params: Record<string, unknown>,
  rtol = 1e-5,
  dtype: DTypeName = 'float32',
): Promise<void> {
  const rt = E.runtime;
  const run = async (ctx: typeof GPU) => {
    const x = rt.nd.array(data, { shape, dtype, ctx });
    const outs = rt.invoke(op, [x], params, { ctx });
    const r = await Promise.all(outs.map(async (o: NDArray) => nums(await o.data())));
    for (const o of [x, ...outs]) o.dispose();
    return r;
  };
  const g = await run(GPU);
  const c = await run(CPU);
  expect(g.length).toBe(c.length);
  g.forEach((gv, k) => {
    const cv = c[k] as number[];
    expect(gv.length).toBe(cv.length);
    let worst = 0;
    for (let i = 0; i < gv.length; i++) {
      const a = gv[i] as number;
      const b = cv[i] as number;
      if (Number.isNaN(a) && Number.isNaN(b)) continue;
      worst = Math.max(worst, Math.abs(a - b) / Math.max(1, Math.abs(b)));
    }
    expect(worst, `${op} ${JSON.stringify(params)} output ${k}`).toBeLessThanOrEqual(rtol);
  });
}

d('webgpu reduce kernels', () => {
  it('accumulates into views at offsets (req=add) and reads input views', async () => {
    const rt = E.runtime;
    const big = rt.nd.array([...Array(20).keys()], { shape: [4, 5], ctx: GPU });
    const x = big.slice(1, 3); // rows 1..2: elements 5..14
    const y = rt.nd.array([100, 100, 100, 100, 100, 100, 100], { ctx: GPU });
    const yv = y.slice(2, 7);
    rt.invoke('sum', [x], { axis: 0 }, { out: yv, req: 'add' });
    expect(nums(await y.data())).toEqual([100, 100, 115, 117, 119, 121, 123]);
    const m = y.slice(0, 2);
    rt.invoke('argmax', [x], { axis: 1 }, { out: m, req: 'add' });
    rt.invoke('_np_cumsum', [yv], { axis: 0 }, { out: yv });
    expect(nums(await y.data())).toEqual([104, 104, 115, 232, 351, 472, 595]);
    for (const a of [m, yv, y, x, big]) a.dispose();
  });

  it('reduces long rows in several passes (100k elements)', async () => {
    const n = 100_003;
    const data = values(n, 1);
    for (const op of ['sum', 'mean', 'max', 'min', 'nansum']) await same(op, data, [n], {}, 2e-5);
    await same('norm', data, [n], { ord: 2 }, 2e-5);
    await same('sum', data.slice(0, 14_285 * 7), [14_285, 7], { axis: 0 }, 2e-5);
    await same('argmax', data, [n], { axis: null });
    await same('argmin', data, [n], { axis: 0 });
    await same('_np_cumsum', data.slice(0, 20_000), [20_000], { axis: 0 }, 1e-4);
  });

  it('handles more than 65535 rows', async () => {
    const rows = 70_001;
    const data = values(rows * 3, 2);
    await same('sum', data, [rows, 3], { axis: 1 });
    await same('prod', data, [rows, 3], { axis: -1 });
    await same('argmin', data, [rows, 3], { axis: 1 });
    await same('sort', data, [rows, 3], { axis: 1 });
    await same('argsort', values(rows * 3, 3, true), [rows, 3], { axis: -1, is_ascend: false });
    await same('_np_cumsum', data, [rows, 3], { axis: 1 });
    await same('mean', data, [rows, 3], { axis: 1, keepdims: true });
  });

  it('sorts long rows stably through global bitonic stages', async () => {
    const n = 10_007;
    const ties = values(n, 4, true);
    await same('argsort', ties, [n], {});
    await same('argsort', ties, [n], { is_ascend: false });
    await same('topk', ties, [n], { k: 9, ret_typ: 'both' });
    await same('topk', ties.slice(0, 10_000), [2, 5000], { k: 3, ret_typ: 'mask', axis: 1 });
    await same('sort', values(3 * 4100, 5), [3, 4100], { axis: 1, is_ascend: false });
    await same('_np_cumsum', values(3 * 4100, 6, true), [3, 4100], { axis: 1 }, 0, 'int32');
  });

  it('runs cumsum in place and scans column lanes', async () => {
    const rt = E.runtime;
    const x = rt.nd.array(values(600, 7, true), { shape: [200, 3], dtype: 'int32', ctx: GPU });
    const want = rt.invoke('_np_cumsum', [x.copyTo(CPU)], { axis: 0 }, { ctx: CPU })[0] as NDArray;
    rt.invoke('_np_cumsum', [x], { axis: 0 }, { out: x });
    expect(nums(await x.data())).toEqual(nums(await want.data()));
    x.dispose();
    want.dispose();
  });

  it('computes in uint32 (no cpu-wasm reference: checked by hand)', async () => {
    const rt = E.runtime;
    const x = rt.nd.array([5, 4_000_000_000, 7, 1, 3, 4_000_000_000], {
      shape: [2, 3],
      dtype: 'uint32',
      ctx: GPU,
    });
    const run = async (op: string, p: Record<string, unknown>) => {
      const outs = rt.invoke(op, [x], p, { ctx: GPU });
      const r = nums((await outs[0]?.data()) as StorageArray);
      for (const o of outs) o.dispose();
      return r;
    };
    expect(await run('max', { axis: 1 })).toEqual([4_000_000_000, 4_000_000_000]);
    expect(await run('min', { axis: 0 })).toEqual([1, 3, 7]);
    expect(await run('argmax', { axis: 1 })).toEqual([1, 2]);
    expect(await run('sort', { axis: 1 })).toEqual([5, 7, 4_000_000_000, 1, 3, 4_000_000_000]);
    expect(await run('_np_cumsum', { axis: 0 })).toEqual([
      5, 4_000_000_000, 7, 6, 4_000_000_003, 4_000_000_007,
    ]);
    expect(await run('mean', { axis: 0 })).toEqual([3, 2_000_000_001, 2_000_000_003]);
    x.dispose();
  });

  it('rejects bad calls and skips out-of-range topk indices', async () => {
    const rt = E.runtime;
    const xi = rt.nd.array([1, 2, 3], { dtype: 'int32', ctx: GPU });
    const [nrm] = rt.invoke('norm', [xi], {}, { ctx: GPU });
    await expect(nrm?.data()).rejects.toThrow(/norm does not support dtype int32 on webgpu/);
    const deep = rt.nd.array(new Array(2 ** 13).fill(1), { shape: new Array(13).fill(2), ctx: GPU });
    const [s] = rt.invoke('sum', [deep], { axis: [0, 2, 4, 6, 8, 10, 12] }, { ctx: GPU });
    await expect(s?.data()).rejects.toThrow(/at most 6 separate/);
    const og = rt.nd.array([1, 2, 3, 4], { shape: [2, 2], ctx: GPU });
    const ind = rt.nd.array([0, 7, -1, 2], { shape: [2, 2], ctx: GPU });
    const like = rt.nd.array(new Array(6).fill(0), { shape: [2, 3], ctx: GPU });
    const [g] = rt.invoke('_backward_topk', [og, ind, like], { k: 2, ret_typ: 'value' }, { ctx: GPU });
    expect(nums((await g?.data()) as StorageArray)).toEqual([1, 0, 0, 0, 0, 4]);
    for (const a of [xi, nrm, deep, s, og, ind, like, g]) a?.dispose();
  });
});
