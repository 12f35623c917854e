/**
 * The init family on gpu(0) beyond the golden cases: req=add and views at element offsets (bool
 * words shared with neighbours), sizes over 65535 workgroups, cpu(0) agreement for sequences and
 * eye, sampler statistics and seeding, the device-side `_copyto` kernel, and bad calls.
 */
import type { StorageArray } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime } from '@mx/ndarray';
import { type OpContext, OpReq, type TBlob } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { CPU, GPU, gpuTestEnv } from '../../test-util/gpu.js';

const env = await gpuTestEnv();
const d = typeof env === 'string' ? describe.skip : describe;
const E = env as Exclude<typeof env, string>;
const nums = (a: StorageArray): number[] => Array.from(a as ArrayLike<number>);

d('webgpu init kernels', () => {
  it('fills views at offsets, with write and add, keeping neighbours (bool and float32)', async () => {
    const rt = E.runtime;
    const b = rt.nd.array([0, 0, 0, 0, 0, 0, 0, 0, 0, 0], { dtype: 'bool', ctx: GPU });
    const bv = b.slice(3, 8);
    rt.invoke('_full', [], { shape: [5], value: 2, dtype: 'bool' }, { out: bv, ctx: GPU });
    expect(nums(await b.data())).toEqual([0, 0, 0, 1, 1, 1, 1, 1, 0, 0]);
    rt.invoke('_zeros', [], { shape: [5], dtype: 'bool' }, { out: bv, req: 'add', ctx: GPU });
    expect(nums(await b.data())).toEqual([0, 0, 0, 1, 1, 1, 1, 1, 0, 0]);
    const f = rt.nd.array([1, 1, 1, 1, 1, 1], { ctx: GPU });
    const fv = f.slice(2, 5);
    rt.invoke('_full', [], { shape: [3], value: 2.5 }, { out: fv, req: 'add', ctx: GPU });
    rt.invoke('ones_like', [fv], {}, { out: fv, req: 'add' });
    expect(nums(await f.data())).toEqual([1, 1, 4.5, 4.5, 4.5, 1]);
    for (const x of [bv, b, fv, f]) x.dispose();
  });

  it('matches cpu(0) for eye, arange and linspace', async () => {
    const rt = E.runtime;
    const cases: [string, Record<string, unknown>][] = [
      ['_eye', { N: 5, M: 7, k: 2, dtype: 'int32' }],
      ['_eye', { N: 6, k: -1, dtype: 'bool' }],
      ['_arange', { start: 3, stop: 5000, step: 7, dtype: 'int32' }],
      ['_arange', { start: -1.5, stop: 40, step: 0.25, repeat: 3 }],
      ['_linspace', { start: -3, stop: 7, num: 1001, endpoint: false }],
    ];
    for (const [op, p] of cases) {
      const [g] = rt.invoke(op, [], p, { ctx: GPU });
      const [c] = rt.invoke(op, [], p, { ctx: CPU });
      const gv = nums((await g?.data()) as StorageArray);
      const cv = nums((await c?.data()) as StorageArray);
      expect(gv.length).toBe(cv.length);
      // linspace evaluates start + step * i in float32 (no f64 in WGSL): within an ulp.
      if (op === '_linspace') {
        for (let i = 0; i < gv.length; i++) expect(gv[i]).toBeCloseTo(cv[i] as number, 5);
      } else expect(gv).toEqual(cv);
      g?.dispose();
      c?.dispose();
    }
  });

  it('generates over 65535 workgroups (grid folded into y)', async () => {
    const n = 65536 * 256 + 777;
    const [a] = E.runtime.invoke('_arange', [], { start: 0, stop: n, dtype: 'int32' }, { ctx: GPU });
    const v = (await a?.data()) as Int32Array;
    expect(v.length).toBe(n);
    let bad = 0;
    for (let i = 0; i < n; i++) if (v[i] !== i) bad++;
    expect(bad).toBe(0);
    a?.dispose();
  });

  it('writes arange into a view with req=add', async () => {
    const rt = E.runtime;
    const x = rt.nd.array([10, 10, 10, 10, 10, 10], { dtype: 'int32', ctx: GPU });
    const v = x.slice(1, 5);
    rt.invoke(
      '_arange',
      [],
      { start: 0, stop: 8, step: 2, dtype: 'int32' },
      { out: v, req: 'add', ctx: GPU },
    );
    expect(nums(await x.data())).toEqual([10, 10, 12, 14, 16, 10]);
    v.dispose();
    x.dispose();
  });

  it('samples with the right statistics and ranges', async () => {
    const rt = E.runtime;
    const n = 200_003;
    const [u] = rt.invoke('_random_uniform', [], { low: -2, high: 3, shape: [n] }, { ctx: GPU });
    const uv = nums((await u?.data()) as StorageArray);
    expect(uv.length).toBe(n);
    expect(uv.reduce((m, x) => Math.min(m, x), 0)).toBeGreaterThanOrEqual(-2);
    expect(uv.reduce((m, x) => Math.max(m, x), 0)).toBeLessThan(3);
    expect(uv.reduce((s, x) => s + x, 0) / n).toBeCloseTo(0.5, 1);
    const [g] = rt.invoke('_random_normal', [], { loc: 1, scale: 2, shape: [n] }, { ctx: GPU });
    const gv = nums((await g?.data()) as StorageArray);
    const mean = gv.reduce((s, x) => s + x, 0) / n;
    const sd = Math.sqrt(gv.reduce((s, x) => s + (x - mean) ** 2, 0) / n);
    expect(mean).toBeCloseTo(1, 1);
    expect(sd).toBeCloseTo(2, 1);
    expect(gv.every(Number.isFinite)).toBe(true);
    const [r] = rt.invoke('_random_randint', [], { low: -3, high: 4, shape: [n] }, { ctx: GPU });
    const rv = nums((await r?.data()) as StorageArray);
    expect(new Set(rv)).toEqual(new Set([-3, -2, -1, 0, 1, 2, 3]));
    const [u2] = rt.invoke('_random_uniform', [], { shape: [8] }, { ctx: GPU });
    const [u3] = rt.invoke('_random_uniform', [], { shape: [8] }, { ctx: GPU });
    expect(nums((await u2?.data()) as StorageArray)).not.toEqual(nums((await u3?.data()) as StorageArray));
    for (const x of [u, g, r, u2, u3]) x?.dispose();
  });

  it('reproduces a sequence from a seed, and accumulates with req=add', async () => {
    const draw = async () => {
      const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 }), E.backend], seed: 7 });
      const [a] = rt.invoke('_random_normal', [], { shape: [5] }, { ctx: GPU });
      const v = nums((await a?.data()) as StorageArray);
      a?.dispose();
      return v;
    };
    expect(await draw()).toEqual(await draw());
    const rt = E.runtime;
    const x = rt.nd.array([100, 100, 100, 100, 100], { ctx: GPU });
    rt.invoke('_random_uniform', [], { low: 0, high: 1, shape: [5] }, { out: x, req: 'add', ctx: GPU });
    for (const v of nums(await x.data())) expect(v >= 100 && v < 101).toBe(true);
    x.dispose();
  });

  it('runs the _copyto kernel on the device, overlapping views included', async () => {
    const rt = E.runtime;
    const kernel = rt.registry.kernel(rt.registry.get('_copyto'), 'webgpu');
    const x = rt.nd.array([1, 0, 1, 1, 0, 0, 1, 0, 1], { dtype: 'bool', ctx: GPU });
    await x.data();
    const src = x.slice(0, 6).blob() as TBlob;
    const dst = x.slice(3, 9).blob() as TBlob;
    const done = new Promise<unknown>((resolve) => {
      const ctx = {
        isTrain: false,
        needGrad: false,
        ctx: GPU,
        requested: [],
        onComplete: resolve,
      } as OpContext;
      kernel?.compute?.({}, ctx, [src], [OpReq.write], [dst]);
    });
    expect(await done).toBeUndefined();
    expect(nums(await x.data())).toEqual([1, 0, 1, 1, 0, 1, 1, 0, 0]);
    x.dispose();
  });

  it('rejects bad calls with MXNetErrors naming the op', async () => {
    const rt = E.runtime;
    expect(() => rt.invoke('_arange', [], { start: 0, stop: 4, dtype: 'int64' }, { ctx: GPU })).toThrow(
      /int64/,
    );
    expect(() => rt.invoke('_random_uniform', [], { shape: [3], dtype: 'float64' }, { ctx: GPU })).toThrow(
      /float64/,
    );
    const [bad] = rt.invoke('_random_normal', [], { scale: -1, shape: [3] }, { ctx: GPU });
    await expect(bad?.data()).rejects.toThrow(/scale parameter in gaussian has to be positive/);
    const [big] = rt.invoke(
      '_random_randint',
      [],
      { low: -(2 ** 31), high: 2 ** 31, shape: [3] },
      { ctx: GPU },
    );
    await expect(big?.data()).rejects.toThrow(/exceeds 2\^32 - 1/);
    bad?.dispose();
    big?.dispose();
  });
});
