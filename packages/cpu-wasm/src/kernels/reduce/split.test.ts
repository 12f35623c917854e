/**
 * Large float reductions split across the worker pool (split.ts): with a live worker the results
 * equal a threads-off backend's exactly (the split depends on the shapes only), and stay within the
 * reduce suites' tolerances of a float64 reference and of the unsplit one-call loop, for full
 * reductions, many rows, few long rows, column reductions, non-adjacent axes, req=add, and sizes
 * around the threshold.
 */

import { cpu, type DTypeName, shapeSize } from '@mx/base';
import { OpReq } from '@mx/ops';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { blobBench, onlinePool } from '../../test-util/blob-bench.js';
import type { WorkerPool } from '../../threads/index.js';
import { planReduce, reducedFlags, runPlan } from './plan.js';
import { SEG_BYTES, SPLIT_MIN_BYTES } from './split.js';
import { reduceLoops } from './value-kernels.js';
import type { WasmReduceOp } from './wasm-loops.js';

const ctx = { isTrain: false, needGrad: false, ctx: cpu(), requested: [] };

function setup(workers: number) {
  const bench = blobBench(workers);
  const { backend, registry, rt, blob } = bench;
  return {
    backend,
    blob,
    /** Run reduce op `name` over `axis` of x (shape, dtype, data); out initialised to `init` for req=add. */
    reduce(
      name: string,
      x: { shape: number[]; dtype: DTypeName; data: ArrayLike<number> },
      axis: number[] | null,
      init?: number,
    ): number[] {
      const op = registry.get(name);
      const attrs = op.parseParams(axis === null ? {} : { axis });
      const flags = reducedFlags(x.shape.length, axis, false);
      const outShape = x.shape.filter((_, i) => !flags[i]);
      const xb = blob(x.shape, x.dtype, x.data);
      const yb = blob(outShape, x.dtype, new Float64Array(shapeSize(outShape)).fill(init ?? 0));
      const compute = registry.kernel(op, 'cpu-wasm')?.compute;
      if (!compute) throw new Error(`no kernel for ${name}`);
      compute(attrs, ctx, [xb], [init === undefined ? OpReq.write : OpReq.add], [yb]);
      const r = Array.from(rt.view(yb) as Float64Array);
      bench.freeAll();
      return r;
    },
    /** The same reduction with the plain one-call loops (no split). */
    unsplit(
      op: WasmReduceOp,
      x: { shape: number[]; dtype: DTypeName; data: ArrayLike<number> },
      axis: number[] | null,
    ): number[] {
      const flags = reducedFlags(x.shape.length, axis, false);
      const outSize = shapeSize(x.shape.filter((_, i) => !flags[i]));
      const xb = blob(x.shape, x.dtype, x.data);
      const yb = blob([outSize], x.dtype, new Float64Array(outSize));
      const sz = rt.itemSize(x.dtype);
      runPlan(
        planReduce(x.shape, flags),
        reduceLoops(rt, x.dtype, op, op),
        rt.address(xb),
        rt.address(yb),
        sz,
      );
      const r = Array.from(rt.view(yb) as Float64Array);
      bench.freeAll();
      return r;
    },
  };
}

/** Pseudo-random values in [lo, hi), with NaNs every `nanEvery` elements when given. */
function data(n: number, seed: number, lo: number, hi: number, nanEvery = 0): Float64Array {
  const a = new Float64Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    a[i] = nanEvery > 0 && i % nanEvery === 7 ? Number.NaN : lo + (s / 2 ** 32) * (hi - lo);
  }
  return a;
}

/** float64 reference of op over the reduced axes (values as stored in dtype). */
function reference(
  op: string,
  shape: number[],
  axis: number[] | null,
  v: ArrayLike<number>,
  dtype: DTypeName,
): number[] {
  const flags = reducedFlags(shape.length, axis, false);
  const round = dtype === 'float32' ? Math.fround : (x: number) => x;
  const outShape = shape.filter((_, i) => !flags[i]);
  const out = new Array<number>(shapeSize(outShape)).fill(
    op === 'max' ? -Infinity : op === 'min' ? Infinity : op === 'prod' || op === 'nanprod' ? 1 : 0,
  );
  const cnt = new Array<number>(out.length).fill(0);
  const idx = new Array<number>(shape.length).fill(0);
  for (let i = 0; i < v.length; i++) {
    let o = 0;
    for (let d = 0; d < shape.length; d++) if (!flags[d]) o = o * (shape[d] as number) + (idx[d] as number);
    const x = round(v[i] as number);
    const cur = out[o] as number;
    cnt[o] = (cnt[o] as number) + 1;
    if (op === 'sum' || op === 'mean') out[o] = cur + x;
    else if (op === 'nansum') out[o] = Number.isNaN(x) ? cur : cur + x;
    else if (op === 'prod') out[o] = cur * x;
    else if (op === 'nanprod') out[o] = Number.isNaN(x) ? cur : cur * x;
    else if (op === 'max') out[o] = Math.max(cur, x);
    else out[o] = Math.min(cur, x);
    for (let d = shape.length - 1; d >= 0; d--) {
      idx[d] = (idx[d] as number) + 1;
      if ((idx[d] as number) < (shape[d] as number)) break;
      idx[d] = 0;
    }
  }
  return op === 'mean' ? out.map((s, i) => s / (cnt[i] as number)) : out;
}

const OPS: readonly (readonly [string, WasmReduceOp, number, number, number])[] = [
  // name, loop op, value range, NaN spacing
  ['sum', 'sum', -1, 1, 0],
  ['mean', 'sum', 0, 1, 0],
  ['max', 'max', -5, 5, 0],
  ['min', 'min', -5, 5, 0],
  ['prod', 'prod', 0.9999, 1.0001, 0],
  ['nansum', 'nansum', -1, 1, 1001],
  ['nanprod', 'nanprod', 0.9999, 1.0001, 1001],
];

const f32n = SPLIT_MIN_BYTES / 4;
const CASES: readonly (readonly [string, number[], number[] | null])[] = [
  ['full, just below the threshold', [f32n - 1], null],
  ['full, at the threshold', [f32n], null],
  ['full, odd size over several segments', [3 * (SEG_BYTES / 4) + 12345], null],
  ['many rows', [300, 1237], [1]],
  ['few long rows', [3, 200_003], [1]],
  ['columns of few slabs', [2, 40_000, 9], [1]],
  ['columns of one slab, split by rows', [70_000, 7], [0]],
  ['columns of many slabs', [40, 300, 33], [1]],
  ['non-adjacent axes', [4, 100_001, 3], [0, 2]],
];

describe('reductions split across the worker pool', () => {
  const off = setup(0);
  const on = setup(1);
  let pool: WorkerPool;

  beforeAll(async () => {
    pool = await onlinePool(on.backend);
  });
  afterAll(() => pool.dispose());

  for (const dtype of ['float32', 'float64'] as const) {
    const eps = dtype === 'float32' ? 2 ** -24 : 2 ** -53;
    for (const [what, shape, axis] of CASES) {
      it(`${dtype} ${what} ${JSON.stringify(shape)} over ${JSON.stringify(axis)}`, () => {
        const spy = vi.spyOn(pool, 'parallelFor');
        for (const [name, op, lo, hi, nanEvery] of OPS) {
          const x = { shape, dtype, data: data(shapeSize(shape), 5, lo, hi, nanEvery) };
          const a = off.reduce(name, x, axis);
          const b = on.reduce(name, x, axis);
          expect(b, name).toEqual(a);
          const want = reference(name, shape, axis, x.data, dtype);
          const plain = on.unsplit(op, x, axis);
          const count = shapeSize(shape) / want.length;
          // Every multiply rounds, in any order: a product's error bound grows with the count.
          const rtol = op === 'prod' || op === 'nanprod' ? count * eps : dtype === 'float32' ? 1e-5 : 1e-12;
          // sum/nansum of values in [-1, 1): the error scales with the sum of |x|, not the sum.
          const atol = name === 'sum' || name === 'nansum' ? rtol * count : 0;
          b.forEach((v, i) => {
            const w = want[i] as number;
            expect(Math.abs(v - w), `${name}[${i}] = ${v}, want ${w}`).toBeLessThanOrEqual(
              atol + rtol * Math.abs(w),
            );
            if (name !== 'mean') {
              const p = plain[i] as number;
              expect(Math.abs(v - p), `${name}[${i}] vs unsplit`).toBeLessThanOrEqual(
                2 * atol + 2 * rtol * Math.abs(p),
              );
            }
          });
        }
        const big = shapeSize(shape) * (dtype === 'float32' ? 4 : 8) >= SPLIT_MIN_BYTES;
        expect(spy.mock.calls.length > 0).toBe(big);
        spy.mockRestore();
      });
    }
  }

  it('req=add combines a split result into the output', () => {
    const shape = [5, 100_003];
    const x = { shape, dtype: 'float32' as const, data: data(shapeSize(shape), 9, -1, 1) };
    const a = off.reduce('sum', x, [1], 2.5);
    const b = on.reduce('sum', x, [1], 2.5);
    expect(b).toEqual(a);
    const want = reference('sum', shape, [1], x.data, 'float32');
    b.forEach((v, i) => {
      expect(Math.abs(v - ((want[i] as number) + 2.5))).toBeLessThan(1e-5 * 100_003);
    });
  });
});
