/**
 * SIMD math (vmath.ts) as compiled kernels use it: exp's one-multiply fast path and its clamped
 * two-half path give the same bits (a vector with one out-of-range lane changes nothing in the
 * others), exp's special and near-limit values against Math.exp, scalar tails and 1-element calls
 * giving the vector body's bits, and which modules import JavaScript math (the pool can only run
 * modules that import nothing but memory). Accuracy sweeps live in codegen.test.ts.
 */
import { cpu, type DTypeName } from '@mx/base';
import { E, type Expr, OpReq, type TBlob } from '@mx/ops';
import { afterAll, describe, expect, it } from 'vitest';
import { blobBench } from '../test-util/blob-bench.js';
import type { Kind } from './kinds.js';
import { buildKernelModule } from './module.js';
import { defineExprOp } from './test-cases.js';
import { typeExpr } from './typing.js';

const ctx = { isTrain: false, needGrad: false, ctx: cpu(), requested: [] };
const bench = blobBench(0);
let nOps = 0;
afterAll(() => bench.freeAll());

/** Run `e` (one input) over `xs` and return the output values. */
function run(e: Expr, dtype: 'float32' | 'float64', xs: ArrayLike<number>): number[] {
  const name = defineExprOp(bench.registry, `_vm${nOps++}`, e, 1, dtype);
  const compute = bench.registry.kernel(bench.registry.get(name), 'cpu-wasm')?.compute;
  if (!compute) throw new Error('no kernel');
  const x = bench.blob([xs.length], dtype, xs);
  const o = bench.blob([xs.length], dtype, new Float64Array(xs.length));
  compute({}, ctx, [x], [OpReq.write], [o as TBlob<number>]);
  return Array.from(bench.rt.view(o) as Float64Array);
}

/** Units in the last place of `v` in float32 / float64 (subnormal spacing at the bottom). */
function ulp(v: number, dtype: DTypeName): number {
  const a = Math.abs(v);
  const [mant, min] = dtype === 'float32' ? [23, -149] : [52, -1074];
  return a === 0 ? 2 ** min : 2 ** Math.max(Math.floor(Math.log2(a)) - mant, min);
}

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('SIMD exp', () => {
  for (const dtype of ['float32', 'float64'] as const) {
    const lanes = dtype === 'float32' ? 4 : 2;
    const far = dtype === 'float32' ? [100, -95, 88.5, Number.NaN, Number.POSITIVE_INFINITY] : [709.5, -720];

    it(`gives the same bits on the fast and the clamped path (${dtype})`, () => {
      // Vector pairs: [a, b, c, d] all in range, then [a, b, c, far] (lane lanes-1 out of range).
      const rnd = lcg(7);
      const groups = 256;
      const xs: number[] = [];
      for (let g = 0; g < groups; g++) {
        const v = Array.from({ length: lanes }, () => (rnd() - 0.5) * 170);
        xs.push(...v, ...v.slice(0, lanes - 1), far[g % far.length] as number);
      }
      const out = run(E.exp(E.x), dtype, xs);
      for (let g = 0; g < groups; g++) {
        const base = 2 * lanes * g;
        for (let l = 0; l < lanes - 1; l++) {
          expect(Object.is(out[base + lanes + l], out[base + l]), `group ${g} lane ${l}`).toBe(true);
        }
      }
    });

    it(`is right at special values and the ends of the range (${dtype})`, () => {
      const xs =
        dtype === 'float32'
          ? [0, -0, 1, 87, -87, 87.5, -87.5, 88.72, 88.73, 89, 1e4, -100, -103.5, -104, -1e4]
          : [0, -0, 1, 708, -708, 708.5, -708.5, 709.7, 709.8, 710, 1e5, -740, -745, -746, -1e5];
      const specials = [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN];
      // 4 copies: vector body (with neighbours in and out of range) and scalar tail.
      const all = [...xs, ...specials, ...xs, ...specials, 0];
      const out = run(E.exp(E.x), dtype, all);
      const round = dtype === 'float32' ? Math.fround : (v: number) => v;
      all.forEach((x, i) => {
        const want = round(Math.exp(round(x)));
        const got = out[i] as number;
        if (!Number.isFinite(want) || want === 0 || Number.isNaN(want)) {
          expect(Object.is(got, want) || (want === 0 && Math.abs(got) <= ulp(0, dtype)), `exp(${x})`).toBe(
            true,
          );
        } else {
          expect(Math.abs(got - Math.exp(round(x))) / ulp(want, dtype), `exp(${x})`).toBeLessThanOrEqual(1.5);
        }
      });
    });
  }
});

describe('scalar tails of SIMD math', () => {
  const fns: [string, Expr][] = [
    ['exp', E.exp(E.x)],
    ['log', E.log(E.x)],
    ['tanh', E.tanh(E.x)],
    ['erf', E.erf(E.x)],
    ['sigmoid', E.div(1, E.add(1, E.exp(E.neg(E.x))))],
  ];
  for (const dtype of ['float32', 'float64'] as const) {
    it(`give the vector body's bits, as do 1-element calls (${dtype})`, () => {
      const rnd = lcg(3);
      const body = Array.from({ length: 64 }, () => rnd() * 6 + 0.01);
      // 64 body elements, then a 3-element tail repeating body values 5, 17 and 63.
      const xs = [...body, body[5] as number, body[17] as number, body[63] as number];
      for (const [fn, e] of fns) {
        const out = run(e, dtype, xs);
        expect([out[64], out[65], out[66]], fn).toEqual([out[5], out[17], out[63]]);
        expect(run(e, dtype, [body[17] as number]), fn).toEqual([out[17]]);
      }
    });
  }
});

describe('JavaScript math imports of compiled modules', () => {
  const importsOf = (e: Expr, kind: Kind, simd: boolean): string[] => {
    const mb = buildKernelModule(
      {
        tree: typeExpr(e, [kind], kind),
        inKinds: [kind],
        outKind: kind,
        modes: ['f'],
        add: false,
        params: [],
        simd,
      },
      bench.rt.memoryImport(),
    );
    return WebAssembly.Module.imports(new WebAssembly.Module(mb.toBytes() as BufferSource)).map(
      (i) => `${i.module}.${i.name}`,
    );
  };

  it('are none but memory for float exp/log/tanh/erf with SIMD (so the pool can run them)', () => {
    for (const kind of ['f32', 'f64'] as const) {
      for (const e of [E.exp(E.x), E.log(E.x), E.tanh(E.x), E.erf(E.x), E.exp(E.sub(E.x, 1))]) {
        expect(importsOf(e, kind, true)).toEqual(['env.memory']);
      }
    }
  });

  it('remain for functions without SIMD code, mixed kinds and the scalar-only build', () => {
    expect(importsOf(E.sin(E.x), 'f32', true)).toContain('m.sin');
    expect(importsOf(E.exp(E.x), 'f32', false)).toContain('m.exp');
    // int32 exp computes in float64 through Math.exp and truncates.
    expect(importsOf(E.exp(E.x), 'i32', true)).toContain('m.exp');
  });
});
