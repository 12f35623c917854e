/**
 * Shape kernels on a real WebGPU device, for what the golden cases do not reach: large transposes,
 * views at element (and odd byte) offsets, req=add, out= aliasing an input, bool at odd sizes,
 * duplicate indices in the summing gradients, launches over 65535 workgroups, and bad input.
 * Each result is compared with cpu(0) running the same op (data movement must match exactly).
 */
import type { Context, DTypeName, StorageArray } from '@mx/base';
import { MXNetError } from '@mx/base';
import type { NDArray } from '@mx/ndarray';
import { describe, expect, it } from 'vitest';
import { CPU, GPU, gpuTestEnv } from '../../test-util/gpu.js';

const env = await gpuTestEnv();
const d = typeof env === 'string' ? describe.skip : describe;
const E = env as Exclude<typeof env, string>;
const nums = (a: StorageArray): number[] => Array.from(a as ArrayLike<number>);

/** Deterministic test data of `n` values for `dtype`. */
function data(n: number, dtype: DTypeName, seed = 1): number[] {
  const out: number[] = [];
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const r = s / 2147483648;
    out.push(
      dtype === 'bool'
        ? r < 0.5
          ? 1
          : 0
        : dtype === 'float32'
          ? Math.round(r * 2000 - 1000) / 8
          : Math.floor(r * 200 - 100),
    );
  }
  return dtype === 'uint32' ? out.map((v) => Math.abs(v)) : out;
}

type Build = (ctx: Context) => { inputs: NDArray[]; out?: NDArray; view?: NDArray };

/** Run `op` on cpu(0) and gpu(0) with the same inputs; returns both results (the out array when given). */
async function both(op: string, build: Build, params: Record<string, unknown> = {}, req?: 'add') {
  const run = async (ctx: Context) => {
    const { inputs, out, view } = build(ctx);
    const res = E.runtime.invoke(
      op,
      inputs,
      params,
      out === undefined ? {} : { out, ...(req ? { req } : {}) },
    );
    const got = nums(await (view ?? out ?? (res[0] as NDArray)).data());
    for (const x of [...inputs, ...res]) x.dispose();
    out?.dispose();
    return got;
  };
  return { cpu: await run(CPU), gpu: await run(GPU) };
}

async function same(op: string, build: Build, params: Record<string, unknown> = {}, req?: 'add') {
  const r = await both(op, build, params, req);
  expect(r.gpu.length).toBeGreaterThan(0);
  expect(r.gpu).toEqual(r.cpu);
}

const arr = (ctx: Context, shape: number[], dtype: DTypeName = 'float32', seed = 1) =>
  E.runtime.nd.array(
    data(
      shape.reduce((a, b) => a * b, 1),
      dtype,
      seed,
    ),
    { shape, dtype, ctx },
  );

d('webgpu shape kernels', () => {
  it('transposes 1000x3000 and a 4-d permutation exactly', async () => {
    await same('transpose', (ctx) => ({ inputs: [arr(ctx, [1000, 3000])] }));
    await same('transpose', (ctx) => ({ inputs: [arr(ctx, [6, 70, 33, 5], 'int32')] }), {
      axes: [2, 0, 3, 1],
    });
  });

  it('runs launches over 65535 workgroups (broadcast to 17M elements)', async () => {
    const { nd } = E.runtime;
    const x = nd.array(data(4200, 'int32'), { shape: [1, 4200], dtype: 'int32', ctx: GPU });
    const y = E.runtime.invoke('broadcast_to', [x], { shape: [4100, 4200] })[0] as NDArray;
    const v = (await y.data()) as Int32Array;
    const want = data(4200, 'int32');
    for (const row of [0, 2049, 4099])
      expect(Array.from(v.subarray(row * 4200, row * 4200 + 4200))).toEqual(want);
    x.dispose();
    y.dispose();
  });

  it('reads inputs and writes outputs that are views at element offsets', async () => {
    for (const dtype of ['float32', 'int32', 'bool'] as const) {
      // Input: rows 1..3 of a (5, 7, 3) array; output: rows 2..4 of a (6, 3, 7) array (out=).
      await same(
        'transpose',
        (ctx) => {
          const out = arr(ctx, [6, 3, 7], dtype, 9);
          return { inputs: [arr(ctx, [5, 7, 3], dtype).slice(1, 3)], out: out.slice(2, 4), view: out };
        },
        { axes: [0, 2, 1] },
      );
      await same(
        'Concat',
        (ctx) => ({ inputs: [arr(ctx, [3, 5], dtype).slice(1, 3), arr(ctx, [4, 2], dtype, 3).slice(1, 3)] }),
        { num_args: 2, dim: 1 },
      );
    }
  });

  it('accumulates with req=add', async () => {
    const add = (
      op: string,
      inputs: (ctx: Context) => NDArray[],
      outShape: number[],
      params = {},
      dtype: DTypeName = 'float32',
    ) => same(op, (ctx) => ({ inputs: inputs(ctx), out: arr(ctx, outShape, dtype, 5) }), params, 'add');
    await add('transpose', (c) => [arr(c, [7, 9])], [9, 7]);
    await add('transpose', (c) => [arr(c, [7, 9], 'bool')], [9, 7], {}, 'bool');
    await add('Concat', (c) => [arr(c, [2, 3]), arr(c, [2, 5], 'float32', 2)], [2, 8], {
      num_args: 2,
      dim: 1,
    });
    await add('Pad', (c) => [arr(c, [1, 2, 3, 4])], [1, 2, 5, 7], {
      mode: 'reflect',
      pad_width: [0, 0, 0, 0, 1, 1, 2, 1],
    });
    await add(
      'Pad',
      (c) => [arr(c, [1, 2, 3, 4], 'int32')],
      [1, 2, 5, 7],
      { mode: 'constant', pad_width: [0, 0, 0, 0, 1, 1, 2, 1], constant_value: 2 },
      'int32',
    );
    await add(
      'take',
      (c) => [arr(c, [5, 4]), E.runtime.nd.array([4, 0, 9, -1], { dtype: 'int32', ctx: c })],
      [4, 4],
    );
    await add('one_hot', (c) => [E.runtime.nd.array([1, 0, 3], { dtype: 'int32', ctx: c })], [3, 4], {
      depth: 4,
    });
    await add('_backward_tile', (c) => [arr(c, [4, 6]), arr(c, [2, 3])], [2, 3], { reps: [2, 2] });
    await add(
      '_backward_pick',
      (c) => [arr(c, [3]), E.runtime.nd.array([1, 0, 1], { dtype: 'int32', ctx: c }), arr(c, [3, 2])],
      [3, 2],
      { axis: 1 },
    );
    await add('_backward_slice', (c) => [arr(c, [2, 2]), arr(c, [4, 5])], [4, 5], {
      begin: [1, 4],
      end: [null, 0],
      step: [2, -2],
    });
    await add('_backward_Pad', (c) => [arr(c, [1, 1, 5, 7])], [1, 1, 3, 4], {
      mode: 'edge',
      pad_width: [0, 0, 0, 0, 1, 1, 2, 1],
    });
  });

  it('keeps bool words intact at odd sizes and offsets', async () => {
    for (const shape of [
      [7, 5],
      [3, 5, 7],
      [1, 13],
      [13, 1],
    ]) {
      await same('transpose', (ctx) => ({ inputs: [arr(ctx, shape, 'bool')] }));
    }
    await same('transpose', (ctx) => ({ inputs: [arr(ctx, [9, 5], 'bool').slice(3, 8)] }));
    await same('stack', (ctx) => ({ inputs: [arr(ctx, [3, 5], 'bool'), arr(ctx, [3, 5], 'bool', 4)] }), {
      num_args: 2,
      axis: 1,
    });
    await same('Pad', (ctx) => ({ inputs: [arr(ctx, [1, 1, 3, 3], 'bool')] }), {
      mode: 'edge',
      pad_width: [0, 0, 0, 0, 1, 2, 0, 1],
    });
    await same('one_hot', (ctx) => ({ inputs: [E.runtime.nd.array([2, 0, 1], { dtype: 'int32', ctx })] }), {
      depth: 3,
      dtype: 'bool',
    });
  });

  it('sums duplicate indices and wraps/clips like cpu(0)', async () => {
    const idx = [3, 3, 0, 3, -2, 7, 1, 3, 3, 0, 12];
    for (const mode of ['clip', 'wrap']) {
      for (const dtype of ['float32', 'int32'] as const) {
        await same(
          '_backward_take',
          (ctx) => ({
            inputs: [
              arr(ctx, [2, idx.length, 3], dtype),
              E.runtime.nd.array(idx, { dtype: 'int32', ctx }),
              arr(ctx, [2, 5, 3], dtype),
            ],
          }),
          { axis: 1, mode },
        );
      }
      await same(
        'take',
        (ctx) => ({ inputs: [arr(ctx, [5, 3]), E.runtime.nd.array(idx, { dtype: 'float32', ctx })] }),
        { mode },
      );
    }
    await same(
      '_backward_repeat',
      (ctx) => ({ inputs: [arr(ctx, [2, 9], 'int32'), arr(ctx, [2, 3], 'int32')] }),
      { repeats: 3, axis: 1 },
    );
  });

  it('sorts many duplicate indices for _backward_take (deterministic, matches cpu)', async () => {
    const idx = data(3000, 'int32', 7).map((v) => Math.trunc(v / 9)); // -11..11: heavy duplicates, some clipped
    for (const mode of ['clip', 'wrap']) {
      await same(
        '_backward_take',
        (ctx) => ({
          inputs: [
            arr(ctx, [2, idx.length, 3], 'int32'),
            E.runtime.nd.array(idx, { dtype: 'int32', ctx }),
            arr(ctx, [2, 9, 3], 'int32'),
          ],
        }),
        { axis: 1, mode },
      );
      const f = await both(
        '_backward_take',
        (ctx) => ({
          inputs: [
            arr(ctx, [idx.length, 4]),
            E.runtime.nd.array(idx, { dtype: 'float32', ctx }),
            arr(ctx, [9, 4]),
          ],
        }),
        { mode },
      );
      for (const [i, v] of f.gpu.entries()) expect(v).toBeCloseTo(f.cpu[i] as number, 2);
    }
    // Empty index list: the gradient is all zeros.
    await same('_backward_take', (ctx) => ({
      inputs: [arr(ctx, [0, 3]), E.runtime.nd.array([], { dtype: 'int32', ctx }), arr(ctx, [4, 3])],
    }));
  });

  it('handles out= aliasing its input (reverse, transpose in place)', async () => {
    // Compared with cpu(0) out of place: cpu-wasm's strided copy assumes no overlap.
    for (const [op, params] of [
      ['reverse', { axis: [1] }],
      ['transpose', {}],
    ] as const) {
      const inPlace = await both(
        op,
        (ctx) => {
          const x = arr(ctx, [5, 5]);
          return { inputs: [x], out: x };
        },
        params,
      );
      const fresh = await both(op, (ctx) => ({ inputs: [arr(ctx, [5, 5])] }), params);
      expect(inPlace.gpu).toEqual(fresh.cpu);
    }
  });

  it('fails bad input with MXNetError', async () => {
    const { nd } = E.runtime;
    const x = nd.array(data(12, 'float32'), { shape: [3, 4], ctx: GPU });
    const bad = nd.array([0, 5], { dtype: 'int32', ctx: GPU });
    const y = E.runtime.invoke('take', [x, bad], { mode: 'raise' })[0] as NDArray;
    await expect(y.data()).rejects.toThrow(/out of bound/);
    // Later ops still work.
    const ok = E.runtime.invoke('take', [x, nd.array([2, 0], { dtype: 'int32', ctx: GPU })], {
      mode: 'raise',
    })[0] as NDArray;
    expect(nums(await ok.data())).toEqual(
      data(12, 'float32').slice(8, 12).concat(data(12, 'float32').slice(0, 4)),
    );
    expect(() => E.runtime.invoke('transpose', [x], { axes: [0, 0] })).toThrow(MXNetError);
    const b = nd.array([1, 0, 1], { dtype: 'bool', ctx: GPU });
    expect(() => E.runtime.invoke('_backward_tile', [b, b], { reps: [1] })).toThrow(/dtype bool/);
    for (const a of [x, bad, y, ok, b]) a.dispose();
  });
});
