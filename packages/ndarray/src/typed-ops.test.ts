/**
 * The typed operator surface, checked twice: by the compiler (`pnpm typecheck` runs tsc on this
 * file: `expectTypeOf` assertions and `@ts-expect-error` lines fail the typecheck when the generated
 * types get looser or stricter than intended) and at run time (each call the types reject also
 * fails at run time, so the types are not stricter than the ops).
 */
import type { DTypeName } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createOpRegistry } from '@mx/ops';
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  createRuntime,
  type DotParams,
  type NDArray,
  type OpFunctionMulti,
  type SliceChannelParams,
} from './index.js';

const rt = createRuntime({ backends: [new CpuWasmBackend()] });
const { nd } = rt;
afterAll(() => rt.dispose());

describe('typed op params', () => {
  it('rejects misspelt params at compile time and at run time', async () => {
    await nd.leakCheck(() =>
      nd.scope(async () => {
        const a = nd.array([[1, 2]]);
        const b = nd.array([[3, 4]]);
        // @ts-expect-error transposeB is not a param of dot (MXNet's name is transpose_b)
        expect(() => nd.dot(a, b, { transposeB: true })).toThrow(/Cannot find argument 'transposeB'/);
        const c = nd.dot(a, b, { transpose_b: true });
        expectTypeOf(c).toEqualTypeOf<NDArray<'float32'>>();
        expect(await c.array()).toEqual([[11]]);
        // @ts-expect-error act_type is an enum: a string union
        expect(() => nd.Activation(a, { act_type: 'rleu' })).toThrow(/Invalid Input: 'rleu'/);
        // @ts-expect-error a required param cannot be left out (FullyConnected needs num_hidden)
        expect(() => nd.FullyConnected(a, b, nd.array([1]))).toThrow(/Required parameter num_hidden/);
        for (const x of [a, b, c]) x.dispose();
      }),
    );
  });

  it('types params from their schemas: enums, tuples (or a bare int), optional and nullable fields', () => {
    expectTypeOf<DotParams['transpose_b']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<SliceChannelParams['num_outputs']>().toEqualTypeOf<number>();
    type SumAxis = Parameters<NDArray['sum']>[0];
    expectTypeOf<NonNullable<SumAxis>['axis']>().toEqualTypeOf<
      number | readonly number[] | null | undefined
    >();
    type Act = NonNullable<Parameters<typeof nd.Activation>[1]>['act_type'];
    expectTypeOf<Act>().toEqualTypeOf<
      'relu' | 'sigmoid' | 'log_sigmoid' | 'mish' | 'tanh' | 'softrelu' | 'softsign'
    >();
    type CastTo = Parameters<typeof nd.Cast>[1]['dtype'];
    expectTypeOf<CastTo>().toEqualTypeOf<DTypeName>();
  });

  it('keeps the invoke options (out, ctx, req) next to the params', async () => {
    await nd.leakCheck(() =>
      nd.scope(async () => {
        const x = nd.array([1, -2, 3]);
        const out = nd.zeros([3]);
        nd.relu(x, { out });
        nd.relu(x, { out, req: 'add' });
        expect(await out.array()).toEqual([2, 0, 6]);
        const z = nd._zeros({ shape: [2], ctx: 'cpu(0)' });
        expect(await z.array()).toEqual([0, 0]);
        for (const a of [x, out, z]) a.dispose();
      }),
    );
  });

  it('variadic ops take their arrays as arguments and fill in num_args', async () => {
    await nd.leakCheck(() =>
      nd.scope(async () => {
        const a = nd.array([[1, 2]]);
        const b = nd.array([[3, 4]]);
        const c = nd.Concat(a, b, a, { dim: 0 });
        const s = nd.stack(a, b);
        expectTypeOf(c).toEqualTypeOf<NDArray<'float32'>>();
        expect(c.shape).toEqual([3, 2]);
        expect(s.shape).toEqual([2, 1, 2]);
        for (const x of [a, b, c, s]) x.dispose();
      }),
    );
  });

  it('ops with optional inputs have one overload per input list, keyed on the literal param', async () => {
    await nd.leakCheck(() =>
      nd.scope(async () => {
        const x = nd.ones([2, 3]);
        const w = nd.ones([4, 3]);
        const b = nd.zeros([4]);
        const y1 = nd.FullyConnected(x, w, b, { num_hidden: 4 });
        const y2 = nd.FullyConnected(x, w, { num_hidden: 4, no_bias: true });
        // @ts-expect-error without no_bias: true the bias input is required
        expect(() => nd.FullyConnected(x, w, { num_hidden: 4 })).toThrow();
        expect(await y1.array()).toEqual(await y2.array());
        for (const a of [x, w, b, y1, y2]) a.dispose();
      }),
    );
  });
});

describe('ops registered after the core ones', () => {
  it('are reached through the index signature, untyped', async () => {
    rt.registry.define({ ...createOpRegistry().get('relu').def, name: 'my_relu', aliases: [] });
    const f = nd.my_relu;
    expectTypeOf(f).toEqualTypeOf<OpFunctionMulti | undefined>();
    await nd.leakCheck(() =>
      nd.scope(async () => {
        const y = f?.(nd.array([-1, 2]), {}) as NDArray;
        expect(await y.array()).toEqual([0, 2]);
      }),
    );
  });
});

describe('typed outputs', () => {
  it('single-output ops return NDArray; fixed multi-output ops a tuple; literal params pick the overload', async () => {
    await nd.leakCheck(() =>
      nd.scope(async () => {
        const x = nd.array([
          [1, 5, 3],
          [4, 2, 6],
        ]);
        const idx = nd.topk(x, { k: 2 });
        expectTypeOf(idx).toEqualTypeOf<NDArray>();
        const both = nd.topk(x, { k: 1, ret_typ: 'both' });
        expectTypeOf(both).toEqualTypeOf<[NDArray, NDArray]>();
        expect(both).toHaveLength(2);
        const [values, indices] = both;
        expect(await values.array()).toEqual([[5], [6]]);
        expect(await indices.array()).toEqual([[1], [2]]);

        const parts = nd.split(x, { num_outputs: 3, axis: 1 });
        expectTypeOf(parts).toEqualTypeOf<[NDArray<'float32'>, NDArray<'float32'>, NDArray<'float32'>]>();
        expect(parts.map((p) => p.shape)).toEqual([
          [2, 1],
          [2, 1],
          [2, 1],
        ]);
        const one = nd.SliceChannel(x, { num_outputs: 1 });
        expectTypeOf(one).toEqualTypeOf<NDArray<'float32'>>();
        expect(one.shape).toEqual([2, 3]);
        const n: number = 3;
        const dynamic = nd.split(x, { num_outputs: n, axis: 1 });
        expectTypeOf(dynamic).toEqualTypeOf<NDArray<'float32'> | NDArray<'float32'>[]>();

        const retTyp = 'both' as 'both' | 'value';
        const either = nd.topk(x, { ret_typ: retTyp });
        expectTypeOf(either).toEqualTypeOf<NDArray | [NDArray, NDArray]>();
        for (const a of [x, idx, values, indices, ...parts, one, ...(dynamic as NDArray[])]) a.dispose();
        for (const a of either as NDArray[]) a.dispose();
      }),
    );
  });
});

describe('dtype-typed arrays', () => {
  it('item() is typed by the dtype where it is known', async () => {
    await nd.leakCheck(() =>
      nd.scope(async () => {
        const i64 = nd.array([1], { dtype: 'int64' });
        const f32 = nd.array([1.5]);
        const b = nd.array([true], { dtype: 'bool' });
        const i32 = nd.array(new Int32Array([7]));
        const anyType = nd.relu(nd.array([1]).astype('float64') as NDArray);
        expectTypeOf(i64.item()).toEqualTypeOf<Promise<bigint>>();
        expectTypeOf(f32.item()).toEqualTypeOf<Promise<number>>();
        expectTypeOf(b.item()).toEqualTypeOf<Promise<boolean>>();
        expectTypeOf(i32).toEqualTypeOf<NDArray<'int32'>>();
        expectTypeOf(anyType.item()).toEqualTypeOf<Promise<number | bigint | boolean>>();
        expect(await i64.item()).toBe(1n);
        expect(await f32.item()).toBe(1.5);
        expect(await b.item()).toBe(true);
        expect(await i32.item()).toBe(7);
        // Same-dtype ops and float arithmetic keep the dtype. Reductions are typed with any dtype:
        // on np arrays (a subclass) they follow NumPy (a bool sum is int64, `dtype` picks it).
        const m = f32.mul(2).add(f32);
        expectTypeOf(m).toEqualTypeOf<NDArray<'float32'>>();
        const s = m.sum();
        expectTypeOf(s).toEqualTypeOf<NDArray>();
        expect(await s.item()).toBe(4.5);
        // An integer array with a number may widen (MXNet's scalar rule): the dtype is not assumed.
        expectTypeOf(i32.mul(0.5)).toEqualTypeOf<NDArray>();
        await nd.waitall();
      }),
    );
  });

  it('a loop variable reassigned with op results keeps one type', async () => {
    await nd.leakCheck(() =>
      nd.scope(async () => {
        let x = nd.zeros([2]);
        for (let i = 0; i < 3; i++) {
          const y = nd.relu(x.add(1));
          x.dispose();
          x = y;
        }
        expect(await x.array()).toEqual([3, 3]);
        x.dispose();
      }),
    );
  });

  it('ops whose outputs keep the input dtype are the ones the generator says so (default type inference)', () => {
    // NDArray methods typed as keeping D call these ops; the registry must agree.
    const registry = createOpRegistry();
    const kept = ['negative', 'abs', 'exp', 'log', 'sqrt', 'square', 'relu', 'sigmoid', 'tanh', 'clip'];
    kept.push('sum', 'mean', 'max', 'min', 'prod', 'argmax', 'argmin', 'dot', 'transpose');
    kept.push('expand_dims', 'squeeze', 'broadcast_add', 'broadcast_equal');
    for (const name of kept) expect(registry.get(name).def.inferType, name).toBeUndefined();
  });
});
