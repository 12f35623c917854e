/**
 * Large elementwise kernels split across the worker pool: results with a live worker are
 * bit-identical to a threads-off backend (workers: 0) around the size threshold, at odd sizes, with
 * scalar params, scalar-broadcast inputs and req=add, for contiguous outputs (element chunks) and
 * broadcast ones (row chunks: per-row scalars, row vectors, odd widths, outer dims), and spot values
 * match a float32 reference; small outputs and modules needing JavaScript math stay on the caller.
 */
import { cpu, type DTypeName, type Shape, shapeSize } from '@mx/base';
import { E, type Expr, OpReq, type OpReqType, type TBlob } from '@mx/ops';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { blobBench, onlinePool } from '../test-util/blob-bench.js';
import { poolOf, type WorkerPool } from '../threads/index.js';
import { CHUNK_ELEMS, PARALLEL_MIN } from './compile.js';
import { defineExprOp } from './test-cases.js';

const ctx = { isTrain: false, needGrad: false, ctx: cpu(), requested: [] };

function setup(workers: number) {
  const bench = blobBench(workers);
  let nOps = 0;
  return {
    ...bench,
    read: (b: TBlob<number>) => Array.from(bench.rt.view(b) as Float32Array),
    kernel(e: Expr, nIn: number, dtype: DTypeName, broadcast = false) {
      const name = defineExprOp(bench.registry, `_par${nOps++}`, e, nIn, dtype, broadcast);
      const compute = bench.registry.kernel(bench.registry.get(name), 'cpu-wasm')?.compute;
      if (!compute) throw new Error('no kernel');
      return (ins: TBlob<number>[], out: TBlob<number>, req: OpReqType = OpReq.write, attrs = {}) =>
        compute(attrs, ctx, ins, [req], [out]);
    },
  };
}

/** Deterministic pseudo-random values in [-8, 8) with a fractional part. */
function data(n: number, seed: number): Float64Array {
  const a = new Float64Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    a[i] = (s / 2 ** 32) * 16 - 8;
  }
  return a;
}

describe('elementwise kernels on the worker pool', () => {
  const off = setup(0);
  const on = setup(1);
  let pool: WorkerPool;

  beforeAll(async () => {
    pool = await onlinePool(on.backend);
    expect(pool.size).toBe(2);
  });
  afterAll(() => {
    off.freeAll();
    on.freeAll();
    pool.dispose();
  });

  /** Run `e` on both backends (fresh kernels) and return both outputs. */
  function both(
    e: Expr,
    shapes: Shape[],
    outShape: Shape,
    dtype: DTypeName,
    opts: { req?: OpReqType; attrs?: Record<string, number>; broadcast?: boolean } = {},
  ): [number[], number[]] {
    return [off, on].map((s) => {
      const ins = shapes.map((sh, k) => s.blob(sh, dtype, data(shapeSize(sh), 11 + k)));
      const out = s.blob(outShape, dtype, data(shapeSize(outShape), 99));
      s.kernel(e, shapes.length, dtype, opts.broadcast)(ins, out, opts.req, opts.attrs);
      const r = s.read(out);
      s.freeAll();
      return r;
    }) as [number[], number[]];
  }

  const sizes = [
    PARALLEL_MIN - 1,
    PARALLEL_MIN,
    PARALLEL_MIN + 1,
    PARALLEL_MIN + CHUNK_ELEMS - 3,
    5 * CHUNK_ELEMS + 17,
  ];

  for (const dtype of ['float32', 'float64'] as const) {
    it(`add of ${dtype} is bit-identical with and without threads around the threshold`, () => {
      const spy = vi.spyOn(pool, 'parallelFor');
      for (const n of sizes) {
        const [a, b] = both(E.add(E.x, E.y), [[n], [n]], [n], dtype);
        expect(b).toEqual(a);
        const x = data(n, 11);
        const y = data(n, 12);
        const round = dtype === 'float32' ? Math.fround : (v: number) => v;
        for (const i of [0, 1, n >> 1, n - 2, n - 1])
          expect(b[i]).toBe(round(round(x[i] as number) + round(y[i] as number)));
      }
      expect(spy.mock.calls.length).toBe(sizes.filter((n) => n >= PARALLEL_MIN).length);
      spy.mockRestore();
    });
  }

  it('honours req=add, scalar params and scalar-broadcast inputs', () => {
    const n = 3 * CHUNK_ELEMS + PARALLEL_MIN + 5;
    const e = E.add(E.mul(E.x, E.param('scalar')), E.y);
    const spy = vi.spyOn(pool, 'parallelFor');
    const [a, b] = both(e, [[n], [n]], [n], 'float32', { req: OpReq.add, attrs: { scalar: 1.7 } });
    expect(b).toEqual(a);
    const x = data(n, 11);
    const y = data(n, 12);
    const o = data(n, 99);
    const f = Math.fround;
    expect(b[n - 1]).toBe(
      f(f(o[n - 1] as number) + f(f(f(x[n - 1] as number) * f(1.7)) + f(y[n - 1] as number))),
    );
    // x (n,) minus a one-element y: the 's' input mode, still contiguous.
    const [c, d] = both(E.sub(E.x, E.y), [[n], [1]], [n], 'float64', { broadcast: true });
    expect(d).toEqual(c);
    expect(spy).toHaveBeenCalledTimes(2);
    spy.mockRestore();
  });

  /** Per element of a broadcast: the flat index of each input's element for output index `i`. */
  function bcastIndex(shape: Shape, outShape: Shape, i: number): number {
    let idx = 0;
    let stride = 1;
    let rest = i;
    for (let d = outShape.length - 1; d >= 0; d--) {
      const od = outShape[d] as number;
      const k = rest % od;
      rest = Math.floor(rest / od);
      const dim = shape[d - (outShape.length - shape.length)] ?? 1;
      if (dim !== 1) idx += k * stride;
      stride *= dim;
    }
    return idx;
  }

  const f32 = Math.fround;
  const broadcastCases: {
    name: string;
    e: Expr;
    shapes: Shape[];
    out: Shape;
    /** Per output element from the inputs' float32 values (checked within 2 ulp where inexact). */
    ref: (v: number[]) => number;
    /** Pool jobs: one per run2d call (per outer index). */
    jobs: number;
  }[] = [
    {
      name: 'exp(x - per-row max) (the fused softmax kernel)',
      e: E.exp(E.sub(E.x, E.y)),
      shapes: [
        [1024, 1000],
        [1024, 1],
      ],
      out: [1024, 1000],
      ref: ([x, y]) => Math.exp(f32((x as number) - (y as number))),
      jobs: 1,
    },
    {
      name: 'x + row vector',
      e: E.add(E.x, E.y),
      shapes: [[600, 1000], [1000]],
      out: [600, 1000],
      ref: ([x, y]) => f32((x as number) + (y as number)),
      jobs: 1,
    },
    {
      name: 'odd columns (scalar tails per row), a row vector and a column',
      e: E.div(E.mul(E.x, E.y), E.z),
      shapes: [
        [701, 397],
        [1, 397],
        [701, 1],
      ],
      out: [701, 397],
      ref: ([x, y, z]) => f32(f32((x as number) * (y as number)) / (z as number)),
      jobs: 1,
    },
    {
      name: 'outer dims: one split run2d call per outer index',
      e: E.sub(E.x, E.y),
      shapes: [
        [3, 400, 700],
        [3, 1, 700],
      ],
      out: [3, 400, 700],
      ref: ([x, y]) => f32((x as number) - (y as number)),
      jobs: 3,
    },
  ];

  for (const c of broadcastCases) {
    it(`splits a large broadcast across rows on the pool, bit-identical to threads off: ${c.name}`, () => {
      const spy = vi.spyOn(pool, 'parallelFor');
      const [a, b] = both(c.e, c.shapes, c.out, 'float32', { broadcast: true });
      expect(spy).toHaveBeenCalledTimes(c.jobs);
      expect(spy.mock.calls[0]?.[1]).toBe('run2dChunk');
      spy.mockRestore();
      expect(b).toEqual(a);
      const ins = c.shapes.map((sh, k) => data(shapeSize(sh), 11 + k));
      const n = shapeSize(c.out);
      for (const i of [0, 1, 396, 397, 1000, n >> 1, n - 2, n - 1]) {
        const want = c.ref(
          c.shapes.map((sh, k) => f32((ins[k] as Float64Array)[bcastIndex(sh, c.out, i)] as number)),
        );
        const ulp = 2 ** (Math.floor(Math.log2(Math.abs(want) || 1)) - 23);
        expect(Math.abs((b[i] as number) - want), `element ${i}`).toBeLessThanOrEqual(2 * ulp);
      }
    });
  }

  it('splits float64 broadcasts with params and req=add the same way', () => {
    const e = E.add(E.mul(E.x, E.param('scalar')), E.tanh(E.y));
    const spy = vi.spyOn(pool, 'parallelFor');
    const [a, b] = both(
      e,
      [
        [513, 1001],
        [513, 1],
      ],
      [513, 1001],
      'float64',
      {
        broadcast: true,
        req: OpReq.add,
        attrs: { scalar: -0.75 },
      },
    );
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
    expect(b).toEqual(a);
    const x = data(513 * 1001, 11);
    const y = data(513, 12);
    const o = data(513 * 1001, 99);
    const i = 513 * 1001 - 1;
    expect(
      Math.abs(
        (b[i] as number) - ((o[i] as number) + (x[i] as number) * -0.75 + Math.tanh(y[512] as number)),
      ),
    ).toBeLessThan(1e-14);
  });

  it('keeps small broadcasts and kernels needing JavaScript math on the caller, with equal results', () => {
    const spy = vi.spyOn(pool, 'parallelFor');
    // 250 x 1000 is below PARALLEL_MIN.
    const [a, b] = both(E.add(E.x, E.y), [[250, 1000], [1000]], [250, 1000], 'float32', { broadcast: true });
    expect(b).toEqual(a);
    // sin calls Math.sin (a JS import) in its scalar code: workers cannot instantiate the module.
    const n = PARALLEL_MIN + 3;
    const [c, d] = both(E.sin(E.x), [[n]], [n], 'float64');
    expect(d).toEqual(c);
    expect(d[7]).toBe(Math.sin(data(n, 11)[7] as number));
    const [g, h] = both(
      E.sin(E.sub(E.x, E.y)),
      [
        [600, 1000],
        [600, 1],
      ],
      [600, 1000],
      'float32',
      {
        broadcast: true,
      },
    );
    expect(h).toEqual(g);
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
  });

  it('runs exp, log, tanh and erf on the pool (SIMD tails need no JavaScript import), bit-identical', () => {
    const n = PARALLEL_MIN + 5;
    for (const dtype of ['float32', 'float64'] as const) {
      for (const fn of ['exp', 'tanh', 'erf'] as const) {
        const spy = vi.spyOn(pool, 'parallelFor');
        const [a, b] = both(E[fn](E.x), [[n]], [n], dtype);
        expect(spy, `${fn} ${dtype}`).toHaveBeenCalledTimes(1);
        spy.mockRestore();
        expect(b).toEqual(a);
      }
      const [a, b] = both(E.log(E.abs(E.x)), [[n]], [n], dtype);
      expect(b).toEqual(a);
    }
  });

  it('threads-off backends have no pool and compute large kernels inline', () => {
    expect(poolOf(off.backend.runtime)).toBe(null);
    const n = PARALLEL_MIN * 2 + 1;
    const x = off.blob([n], 'float32', data(n, 1));
    const out = off.blob([n], 'float32', new Float32Array(n));
    off.kernel(E.mul(E.x, 2), 1, 'float32')([x], out);
    const r = off.read(out);
    expect(r[n - 1]).toBe(Math.fround(data(n, 1)[n - 1] as number) * 2);
    off.freeAll();
  });
});
