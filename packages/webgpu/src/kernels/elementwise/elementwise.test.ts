/**
 * The elementwise compiler on a real WebGPU device, for what the golden cases do not reach:
 * broadcasting views at element offsets, ranks beyond the shader's MAXD, req=add, out= an input,
 * bool outputs at odd byte offsets and sizes, launches over 65535 workgroups, mixed dtypes, Cast's
 * out-of-range conversions, gradients, and bad input. Results are compared with cpu(0) running the
 * same op (exactly for integers and layout, to float32 tolerance for float math).
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

const arr = (ctx: Context, shape: number[], dtype: DTypeName = 'float32', seed = 1) =>
  E.runtime.nd.array(
    data(
      shape.reduce((a, b) => a * b, 1),
      dtype,
      seed,
    ),
    { shape, dtype, ctx },
  );

type Build = (ctx: Context) => { inputs: NDArray[]; out?: NDArray; view?: NDArray };

/** `op` on cpu(0) and gpu(0) with the same inputs must agree (the `view`/out array when given). */
async function same(op: string, build: Build, params: Record<string, unknown> = {}, req?: 'add') {
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
    view?.dispose();
    return got;
  };
  const cpu = await run(CPU);
  const gpu = await run(GPU);
  expect(gpu.length).toBeGreaterThan(0);
  expect(gpu.length).toBe(cpu.length);
  gpu.forEach((g, i) => {
    const c = cpu[i] as number;
    if (Number.isNaN(c)) expect(g).toBeNaN();
    else if (Math.abs(g - c) > 1e-6 + 1e-5 * Math.abs(c)) expect([i, g]).toEqual([i, c]);
  });
}

d('webgpu elementwise compiler', () => {
  it('broadcasts views at element offsets (1-D, 2-D, 3-D layouts)', async () => {
    // Rows 1..4 of (6, 4) plus a row vector; a (3, 1, 4) view against (2, 1); a column against a row.
    await same('broadcast_add', (c) => ({ inputs: [arr(c, [6, 4]).slice(1, 4), arr(c, [4], 'float32', 2)] }));
    await same('broadcast_mul', (c) => ({
      inputs: [arr(c, [5, 4]).slice(1, 4).reshape([3, 1, 4]), arr(c, [4, 2, 1], 'float32', 3).slice(1, 4)],
    }));
    await same('broadcast_sub', (c) => ({
      inputs: [arr(c, [7, 1], 'int32').slice(2, 7), arr(c, [2, 9], 'int32', 4).slice(1, 2)],
    }));
    await same('broadcast_maximum', (c) => ({
      inputs: [arr(c, [1]), arr(c, [3, 5], 'float32', 5).slice(1, 3)],
    }));
  });

  it('handles ranks beyond the shader (8 dims that do not collapse)', async () => {
    await same('broadcast_add', (c) => ({
      inputs: [arr(c, [2, 1, 3, 1, 2, 1, 2, 1]), arr(c, [1, 3, 1, 2, 1, 3, 1, 2], 'float32', 7)],
    }));
    await same('broadcast_equal', (c) => ({
      inputs: [arr(c, [3, 1, 3, 1, 2, 1, 3], 'bool'), arr(c, [1, 2, 1, 3, 1, 2, 1], 'bool', 7)],
    }));
  });

  it('accumulates with req=add', async () => {
    const add = (op: string, ins: (c: Context) => NDArray[], shape: number[], dtype: DTypeName = 'float32') =>
      same(op, (c) => ({ inputs: ins(c), out: arr(c, shape, dtype, 9) }), {}, 'add');
    await add('elemwise_add', (c) => [arr(c, [3, 5]), arr(c, [3, 5], 'float32', 2)], [3, 5]);
    await add('broadcast_mul', (c) => [arr(c, [3, 1], 'int32'), arr(c, [4], 'int32', 2)], [3, 4], 'int32');
    await add('broadcast_greater', (c) => [arr(c, [7, 1], 'bool'), arr(c, [3], 'bool', 2)], [7, 3], 'bool');
  });

  it('writes in place (out= an input), also broadcasting and packed bool', async () => {
    const inPlace = (op: string, shapes: number[][], dtype: DTypeName = 'float32') =>
      same(op, (c) => {
        const ins = shapes.map((s, k) => arr(c, s, dtype, k + 1));
        return { inputs: ins, out: ins[0] as NDArray };
      });
    await inPlace('elemwise_mul', [
      [4, 5],
      [4, 5],
    ]);
    await inPlace('broadcast_div', [[4, 5], [5]]);
    await inPlace(
      'broadcast_sub',
      [
        [3, 7],
        [3, 1],
      ],
      'int32',
    );
    await inPlace('logical_not', [[13]], 'bool');
    await inPlace('broadcast_logical_xor', [[5, 3], [3]], 'bool');
  });

  it('writes bool outputs at odd byte offsets and sizes, leaving neighbours alone', async () => {
    for (const [rows, begin, end] of [
      [9, 1, 4],
      [9, 3, 8],
      [21, 5, 6],
    ] as const) {
      await same('broadcast_lesser', (c) => {
        const out = arr(c, [rows, 3], 'bool', 11);
        return {
          inputs: [arr(c, [end - begin, 3], 'bool'), arr(c, [1, 3], 'bool', 2)],
          out: out.slice(begin, end),
          view: out,
        };
      });
      await same('logical_not', (c) => {
        const out = arr(c, [rows, 1], 'bool', 12);
        return {
          inputs: [arr(c, [rows + 2, 1], 'bool', 3).slice(2, 2 + end - begin)],
          out: out.slice(begin, end),
          view: out,
        };
      });
    }
  });

  it('runs launches over 65535 workgroups (17M elements)', async () => {
    const n = 65535 * 256 + 1000;
    const x = E.runtime.nd.array(new Float32Array(n).fill(1.5), { shape: [n], ctx: GPU });
    const [y] = E.runtime.invoke('_mul_scalar', [x], { scalar: 2 }) as [NDArray];
    const v = (await y.data()) as Float32Array;
    expect([v[0], v[65535 * 256 - 1], v[65535 * 256], v[n - 1]]).toEqual([3, 3, 3, 3]);
    x.dispose();
    y.dispose();
  });

  it('types mixed dtypes as cpu-wasm does (where with a float or bool condition)', async () => {
    await same('where', (c) => ({
      inputs: [arr(c, [4, 3]), arr(c, [4, 3], 'int32', 2), arr(c, [4, 3], 'int32', 3)],
    }));
    await same('where', (c) => ({
      inputs: [arr(c, [4], 'bool'), arr(c, [4, 3], 'float32', 2), arr(c, [4, 3], 'float32', 3)],
    }));
    await same('_rdiv_scalar', (c) => ({ inputs: [arr(c, [9], 'int32')] }), { scalar: 50 });
  });

  it('computes uint32 (which cpu-wasm lacks) with unsigned semantics', async () => {
    const u = [0, 1, 7, 100, 4294967295, 2147483648, 65536, 4294836225];
    const gpuOnly = async (
      op: string,
      params: Record<string, unknown>,
      want: number[],
      y = [3, 0, 2, 7, 2, 1, 2, 0],
    ) => {
      const a = E.runtime.nd.array(u, { dtype: 'uint32', ctx: GPU });
      const b = E.runtime.nd.array(y, { dtype: 'uint32', ctx: GPU });
      const ins = op.startsWith('_') && op.endsWith('_scalar') ? [a] : op === 'sqrt' ? [a] : [a, b];
      const [r] = E.runtime.invoke(op, ins, params) as [NDArray];
      expect(nums(await r.data())).toEqual(want);
      for (const x of [a, b, r]) x.dispose();
    };
    await gpuOnly('sqrt', {}, [0, 1, 2, 10, 65535, 46340, 256, 65535]);
    await gpuOnly('_plus_scalar', { scalar: 7 }, [7, 8, 14, 107, 6, 2147483655, 65543, 4294836232]);
    await gpuOnly('elemwise_div', {}, [0, 0, 3, 14, 2147483647, 2147483648, 32768, 0]);
    await gpuOnly('broadcast_mod', {}, [0, 0, 1, 2, 1, 0, 0, 0]);
    await gpuOnly('broadcast_power', {}, [0, 1, 49, 4294967295, 4294967295, 2147483648, 4294967295, 1]);
    await gpuOnly('broadcast_greater', {}, [0, 1, 1, 1, 1, 1, 1, 1]);
  });

  it('casts out-of-range and special values like cpu-wasm', async () => {
    const src = [1e10, -1e10, 3e9, -3, 2147483648, -2147483649, 0.5, Number.NaN, Number.POSITIVE_INFINITY, 7];
    for (const dtype of ['int32', 'uint32', 'bool', 'float32'] as const)
      await same('Cast', (c) => ({ inputs: [E.runtime.nd.array(src, { ctx: c })] }), { dtype });
    for (const [from, to] of [
      ['int32', 'uint32'],
      ['uint32', 'int32'],
      ['bool', 'float32'],
      ['int32', 'bool'],
    ] as const)
      await same(
        'Cast',
        (c) => ({ inputs: [E.runtime.nd.array([-5, 0, 7, -2147483648], { dtype: from, ctx: c })] }),
        {
          dtype: to,
        },
      );
    await same(
      'Cast',
      (c) => ({ inputs: [arr(c, [6], 'int32')], out: arr(c, [6], 'float32', 2) }),
      { dtype: 'float32' },
      'add',
    );
  });

  it('computes gradients through the derived _backward_ ops', async () => {
    for (const op of ['sigmoid', 'gammaln', 'arctanh', 'erfinv']) {
      const grads: number[][] = [];
      for (const ctx of [CPU, GPU]) {
        const x = E.runtime.nd.array([-0.5, 0.1, 0.3, 0.7], { ctx });
        x.attachGrad();
        const y = E.runtime.autograd.record(() => E.runtime.invoke(op, [x], {})[0] as NDArray);
        y.backward();
        grads.push(nums(await (x.grad as NDArray).data()));
        x.dispose();
        y.dispose();
      }
      (grads[1] as number[]).forEach((g, i) => {
        expect(g).toBeCloseTo((grads[0] as number[])[i] as number, 4);
      });
    }
  });

  it('fails bad input with MXNetError naming the shapes', async () => {
    const a = arr(GPU, [2, 3]);
    const b = arr(GPU, [4]);
    expect(() => E.runtime.invoke('broadcast_add', [a, b], {})).toThrow(/\(2, 3\).*\(4,\)/);
    // The kernel itself (bypassing inference): mismatched shapes complete the op with the error.
    const k = E.runtime.registry.kernel(E.runtime.registry.get('broadcast_add'), 'webgpu');
    let err: unknown;
    k?.compute?.(
      {},
      { isTrain: false, onComplete: (e?: unknown) => (err = e) } as never,
      [a.blob(), b.blob()] as never,
      [1],
      [a.blob()] as never,
    );
    expect(err).toBeInstanceOf(MXNetError);
    expect(String((err as MXNetError).message)).toMatch(/\(2, 3\) \(4,\)/);
    const f = E.runtime.nd.array([1.5], { dtype: 'float32', ctx: GPU });
    expect(() => E.runtime.invoke('Cast', [f], { dtype: 'float64' })).toThrow(MXNetError);
    for (const x of [a, b, f]) x.dispose();
  });
});
