/**
 * Fused reductions (reduce-module.ts / reduce-compile.ts): rows of an elementwise prologue reduced
 * in one pass, against a float64 reference written here from the definitions — sum, mean, max and
 * min, float32 and float64, row lengths around the unrolled-vector, single-vector and scalar-tail
 * boundaries, keepdims and full reductions, long rows (the blocked sum's accuracy), req add, NaN
 * and ±inf, rows split across the worker pool, and the errors for what the kernel does not take.
 */
import { E, type Expr, type FusedReduceDef, fusedReduceOp } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { createOpHarness, type HostArray } from '../test-util/run-op.js';

const h = createOpHarness();
let nOps = 0;

/** Register a fused reduction of `prologue` over `arity` inputs; returns its name. */
function define(
  prologue: Expr,
  arity: number,
  reducer: FusedReduceDef['reducer'],
  axis: number,
  keepdims = false,
) {
  const op = fusedReduceOp(`_test_fused_reduce${nOps++}`, { prologue, reducer, axis, keepdims }, arity);
  return h.registry.define(op.def).name;
}

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function rand(shape: number[], dtype: 'float32' | 'float64', seed: number, lo = -2, hi = 2): HostArray {
  const r = lcg(seed);
  const n = shape.reduce((a, b) => a * b, 1);
  const data = Array.from({ length: n }, () => lo + (hi - lo) * r());
  return { shape, dtype, data: dtype === 'float32' ? Float32Array.from(data) : Float64Array.from(data) };
}

/** sum/mean/max/min over rows of `len` of f(xs[0][i], xs[1][i]) in float64, and a rounding bound per row. */
function reference(
  f: (a: number, b: number) => number,
  xs: readonly ArrayLike<number>[],
  len: number,
  reducer: FusedReduceDef['reducer'],
  u: number,
): { value: number[]; bound: number[] } {
  const n = (xs[0] as ArrayLike<number>).length;
  const value: number[] = [];
  const bound: number[] = [];
  for (let r = 0; r * len < n || (n === 0 && r === 0); r++) {
    let acc = reducer === 'max' ? -Infinity : reducer === 'min' ? Infinity : 0;
    let mag = 0;
    for (let j = 0; j < len; j++) {
      const i = r * len + j;
      const v = f(
        (xs[0] as ArrayLike<number>)[i] as number,
        ((xs[1] ?? xs[0]) as ArrayLike<number>)[i] as number,
      );
      if (reducer === 'max') acc = Number.isNaN(v) || v > acc ? v : acc;
      else if (reducer === 'min') acc = Number.isNaN(v) || v < acc ? v : acc;
      else acc += v;
      mag += Math.abs(v);
    }
    if (reducer === 'mean') {
      acc /= len;
      mag /= len;
    }
    value.push(acc);
    // the prologue's roundings (a few u per term) plus the sum's (at most ~200 terms in sequence
    // per lane at these lengths, see reduce-module.ts)
    bound.push(
      reducer === 'max' || reducer === 'min' ? 4 * u * Math.abs(acc) : (8 + 2 * Math.sqrt(len)) * u * mag,
    );
  }
  return { value, bound };
}

function expectRows(got: ArrayLike<number>, want: { value: number[]; bound: number[] }, what: string) {
  expect(got.length, what).toBe(want.value.length);
  for (let i = 0; i < want.value.length; i++) {
    const w = want.value[i] as number;
    const g = got[i] as number;
    if (Number.isNaN(w)) expect(Number.isNaN(g), `${what}[${i}] ${g}`).toBe(true);
    else if (!Number.isFinite(w)) expect(g, `${what}[${i}]`).toBe(w);
    else
      expect(Math.abs(g - w), `${what}[${i}] got ${g} want ${w}`).toBeLessThanOrEqual(
        want.bound[i] as number,
      );
  }
}

const U = { float32: 2 ** -24, float64: 2 ** -53 } as const;
// (a - b)^2 and exp(a) * b as expressions and as float64 functions
const SQDIFF = E.mul(E.sub(E.input(0), E.input(1)), E.sub(E.input(0), E.input(1)));
const sqdiff = (a: number, b: number) => (a - b) * (a - b);
const EXPMUL = E.mul(E.exp(E.input(0)), E.input(1));
const expmul = (a: number, b: number) => Math.exp(a) * b;

describe('fused reductions on cpu-wasm', () => {
  for (const dtype of ['float32', 'float64'] as const) {
    for (const reducer of ['sum', 'mean', 'max', 'min'] as const) {
      it(`${reducer} of rows of (a-b)^2 and exp(a)*b, ${dtype}, every row length 1..41`, () => {
        for (const [expr, fn] of [
          [SQDIFF, sqdiff],
          [EXPMUL, expmul],
        ] as const) {
          const name = define(expr, 2, reducer, 1);
          for (let len = 1; len <= 41; len++) {
            const a = rand([3, len], dtype, len);
            const b = rand([3, len], dtype, 100 + len);
            const [y] = h.run(name, [a, b]);
            expect(y?.shape).toEqual([3]);
            const want = reference(
              fn,
              [a.data as Float64Array, b.data as Float64Array],
              len,
              reducer,
              U[dtype],
            );
            expectRows(y?.data as Float32Array, want, `${reducer} len=${len}`);
          }
        }
      });
    }
  }

  it('reduces trailing axes with keepdims, and everything into shape (1,)', () => {
    const a = rand([2, 3, 5, 6], 'float32', 1);
    const b = rand([2, 3, 5, 6], 'float32', 2);
    const keep = define(SQDIFF, 2, 'sum', 2, true);
    const [y] = h.run(keep, [a, b]);
    expect(y?.shape).toEqual([2, 3, 1, 1]);
    expectRows(
      y?.data as Float32Array,
      reference(sqdiff, [a.data as Float32Array, b.data as Float32Array], 30, 'sum', U.float32),
      'keepdims',
    );
    const all = define(SQDIFF, 2, 'mean', 0);
    const [z] = h.run(all, [a, b]);
    expect(z?.shape).toEqual([1]);
    expectRows(
      z?.data as Float32Array,
      reference(sqdiff, [a.data as Float32Array, b.data as Float32Array], 180, 'mean', U.float32),
      'all',
    );
  });

  it('keeps float32 sums of long rows accurate, and splits many rows across the pool alike', () => {
    // 8 rows of 300,001: the blocked accumulation; 2,048 rows of 257: rows x len over the pool's threshold
    for (const [rows, len] of [
      [8, 300_001],
      [2048, 257],
    ] as const) {
      const a = rand([rows, len], 'float32', rows, 0, 1);
      const b = rand([rows, len], 'float32', rows + 1, 0, 1);
      const name = define(SQDIFF, 2, 'sum', 1);
      const [y] = h.run(name, [a, b]);
      expectRows(
        y?.data as Float32Array,
        reference(sqdiff, [a.data as Float32Array, b.data as Float32Array], len, 'sum', U.float32),
        `${rows}x${len}`,
      );
    }
  });

  it('adds into the output with req add', () => {
    const a = rand([4, 9], 'float64', 3);
    const b = rand([4, 9], 'float64', 4);
    const name = define(SQDIFF, 2, 'sum', 1);
    const [y] = h.run(
      name,
      [a, b],
      {},
      { req: 'add', out: [{ shape: [4], dtype: 'float64', data: [1, 2, 3, 4] }] },
    );
    const want = reference(sqdiff, [a.data as Float64Array, b.data as Float64Array], 9, 'sum', U.float64);
    expectRows(
      y?.data as Float64Array,
      { value: want.value.map((v, i) => v + i + 1), bound: want.bound.map((x) => x + 1e-15) },
      'add',
    );
  });

  it('propagates NaN through max and min, and handles ±inf terms', () => {
    for (const at of [0, 5, 13, 16]) {
      const data = Array.from({ length: 17 }, (_, i) => i - 8);
      data[at] = Number.NaN;
      const a: HostArray = { shape: [1, 17], dtype: 'float32', data };
      for (const reducer of ['max', 'min', 'sum'] as const) {
        const [y] = h.run(define(E.abs(E.input(0)), 1, reducer, 1), [a]);
        expect(Number.isNaN((y as { data: Float32Array }).data[0] as number), `${reducer} NaN at ${at}`).toBe(
          true,
        );
      }
    }
    const inf: HostArray = {
      shape: [2, 6],
      dtype: 'float32',
      data: [1, 2, Infinity, 3, 4, 5, -Infinity, 1, 2, 3, 4, 5],
    };
    const [mx] = h.run(define(E.input(0), 1, 'max', 1), [inf]);
    expect(Array.from(mx?.data as Float32Array)).toEqual([Infinity, 5]);
    const [mn] = h.run(define(E.input(0), 1, 'min', 1), [inf]);
    expect(Array.from(mn?.data as Float32Array)).toEqual([1, -Infinity]);
  });

  it('refuses integer dtypes and inputs of different shapes, naming the op', () => {
    const name = define(SQDIFF, 2, 'sum', 1);
    const i32: HostArray = { shape: [2, 3], dtype: 'int32', data: [1, 2, 3, 4, 5, 6] };
    expect(() => h.run(name, [i32, i32])).toThrow(/needs float32 or float64 inputs/);
    expect(() => h.run(name, [rand([2, 3], 'float32', 1), rand([2, 4], 'float32', 2)])).toThrow(
      /must share one shape/,
    );
    const empty: HostArray = { shape: [2, 0], dtype: 'float32', data: [] };
    expect(() => h.run(define(E.input(0), 1, 'max', 1), [empty])).toThrow(
      /max of an empty axis has no identity/,
    );
    expect(Array.from(h.run(define(E.input(0), 1, 'sum', 1), [empty])[0]?.data as Float32Array)).toEqual([
      0, 0,
    ]);
  });
});
