/**
 * Accuracy of the WGSL math library (math*.ts) against cpu(0), which computes float32 math in
 * float64 and rounds: each function over its whole useful domain (not just the golden cases'
 * points), with the golden tolerances (rtol 1e-5, atol 1e-6; 2e-5 for the special functions), plus
 * integer semantics (division/mod by zero, INT_MIN / -1, pow saturation, exact sqrt).
 */
import type { Context, DTypeName } from '@mx/base';
import type { NDArray } from '@mx/ndarray';
import { describe, expect, it } from 'vitest';
import { CPU, GPU, gpuTestEnv } from '../../test-util/gpu.js';

const env = await gpuTestEnv();
const d = typeof env === 'string' ? describe.skip : describe;
const E = env as Exclude<typeof env, string>;

/** `n` float32 values spread over [lo, hi], plus the given extras. */
function grid(lo: number, hi: number, n = 1500, extra: number[] = []): number[] {
  const out = Array.from({ length: n }, (_, i) => Math.fround(lo + ((hi - lo) * i) / (n - 1)));
  return [...out, ...extra];
}

async function run(
  ctx: Context,
  op: string,
  ins: number[][],
  dtype: DTypeName,
  params = {},
): Promise<number[]> {
  const arrays = ins.map((v) => E.runtime.nd.array(v, { dtype, ctx }));
  const [r] = E.runtime.invoke(op, arrays, params) as [NDArray];
  const got = Array.from((await r.data()) as ArrayLike<number>);
  for (const x of [...arrays, r]) x.dispose();
  return got;
}

/** Mismatches of gpu vs cpu beyond the tolerance, as readable strings. */
async function compare(op: string, ins: number[][], tol = 1e-5, dtype: DTypeName = 'float32', params = {}) {
  const cpu = await run(CPU, op, ins, dtype, params);
  const gpu = await run(GPU, op, ins, dtype, params);
  const bad: string[] = [];
  cpu.forEach((c, i) => {
    const g = gpu[i] as number;
    const ok = Number.isNaN(c) ? Number.isNaN(g) : g === c || Math.abs(g - c) <= 1e-6 + tol * Math.abs(c);
    if (!ok && bad.length < 5) bad.push(`${op}(${ins.map((v) => v[i]).join(', ')}) = ${g}, cpu ${c}`);
  });
  return bad;
}

const SPECIAL = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0, -0];

d('webgpu elementwise math accuracy', () => {
  it('elementary functions match cpu(0) over their domains', async () => {
    const cases: [string, number[]][] = [
      ['exp', grid(-100, 88, 3000, SPECIAL)],
      ['expm1', grid(-3, 3, 2000, [1e-7, -1e-7, 1e-30, ...SPECIAL])],
      ['log', grid(1e-6, 1e4, 2000, [1e-38, 1e38, -1, ...SPECIAL])],
      ['log2', grid(0.01, 1000, 2000, [8, 1024, 2 ** -20, ...SPECIAL])],
      ['log10', grid(0.01, 1000, 2000, [1000, 1e-5, ...SPECIAL])],
      ['log1p', grid(-0.999, 10, 2000, [1e-7, -1e-7, -1, -2, ...SPECIAL])],
      ['sin', grid(-100, 100, 3000, SPECIAL)],
      ['cos', grid(-100, 100, 3000, SPECIAL)],
      ['tan', grid(-1.5, 1.5, 2000, SPECIAL)],
      ['arcsin', grid(-1, 1, 2000, [1e-6, 2, ...SPECIAL])],
      ['arccos', grid(-1, 1, 2000, [2, ...SPECIAL])],
      ['arctan', grid(-50, 50, 2000, SPECIAL)],
      ['sinh', grid(-80, 80, 2000, [1e-6, ...SPECIAL])],
      ['cosh', grid(-80, 80, 2000, SPECIAL)],
      ['tanh', grid(-12, 12, 2000, [1e-6, ...SPECIAL])],
      ['arcsinh', grid(-1e4, 1e4, 2000, [1e-6, 0.5, 1e20, ...SPECIAL])],
      ['arccosh', grid(1, 1e4, 2000, [1.0001, 1e20, 0.5, ...SPECIAL])],
      ['arctanh', grid(-0.9999, 0.9999, 2000, [1, -1, 1e-6, 2, ...SPECIAL])],
      ['sqrt', grid(0, 1e6, 1000, [-1, 1e-30, ...SPECIAL])],
      ['rsqrt', grid(1e-3, 1e6, 1000, SPECIAL)],
      ['cbrt', grid(-1e6, 1e6, 2000, [1e-30, -8, 27, ...SPECIAL])],
      ['rcbrt', grid(0.001, 1e6, 1000, [-8, ...SPECIAL])],
      ['sigmoid', grid(-90, 90, 2000, SPECIAL)],
      ['rint', grid(-10, 10, 81, SPECIAL)],
      ['round', grid(-10, 10, 81, SPECIAL)],
    ];
    const bad: string[] = [];
    for (const [op, xs] of cases) bad.push(...(await compare(op, [xs])));
    expect(bad).toEqual([]);
  });

  it('special functions match cpu(0)', async () => {
    const bad: string[] = [];
    bad.push(...(await compare('erf', [grid(-6, 6, 2000, SPECIAL)], 2e-5)));
    bad.push(...(await compare('erfinv', [grid(-0.9999, 0.9999, 2000, [1e-7, 1, -1, 2, ...SPECIAL])], 2e-5)));
    bad.push(
      ...(await compare('gamma', [grid(-9.75, 34, 2000, [1, 2, 5, 10, 1e-5, -0.5, -3, ...SPECIAL])], 2e-5)),
    );
    bad.push(
      ...(await compare(
        'gammaln',
        [grid(-9.75, 1000, 2000, [1, 2, 1.5, 2.5, 1e-6, 1e30, ...SPECIAL])],
        2e-5,
      )),
    );
    expect(bad).toEqual([]);
  });

  it('digamma (through the gradients of gammaln and gamma) matches cpu(0)', async () => {
    const xs = grid(-7.75, 30, 600, [1e-4, 1.4616321, 0.5, 1, 2, 100, 1e4]);
    for (const op of ['gammaln', 'gamma']) {
      const grads: number[][] = [];
      for (const ctx of [CPU, GPU]) {
        const x = E.runtime.nd.array(op === 'gamma' ? xs.filter((v) => v < 20) : xs, { ctx });
        x.attachGrad();
        const y = E.runtime.autograd.record(() => E.runtime.invoke(op, [x], {})[0] as NDArray);
        y.backward();
        grads.push(Array.from((await (x.grad as NDArray).data()) as ArrayLike<number>));
        x.dispose();
        y.dispose();
      }
      const [c, g] = grads as [number[], number[]];
      const bad = c.filter((v, i) => !(Math.abs((g[i] as number) - v) <= 1e-5 + 1e-4 * Math.abs(v)));
      expect(bad).toEqual([]);
    }
  });

  it('binary float functions match cpu(0)', async () => {
    const a = grid(-20, 20, 1600);
    const b = grid(-3, 3, 1600).reverse();
    const pa = grid(0.01, 20, 1600);
    const bad: string[] = [];
    for (const op of ['broadcast_mod', 'broadcast_hypot', 'broadcast_maximum', 'broadcast_minimum'])
      bad.push(...(await compare(op, [a, b])));
    bad.push(...(await compare('broadcast_power', [pa, b])));
    bad.push(...(await compare('broadcast_power', [grid(-4, 4, 17), grid(-3, 3, 17).map(Math.round)])));
    bad.push(
      ...(await compare('broadcast_mod', [
        [1e7, -1e7, 3e8, 5.5, -5.5, 0],
        [3, 3, -7, 0, 2.5, -2],
      ])),
    );
    expect(bad).toEqual([]);
  });

  it('integer arithmetic has mshadow semantics', async () => {
    const a = [7, -7, 7, -7, 5, 0, -2147483648, 2147483647, 12, 100, -3, 46341];
    const b = [3, 3, -3, -3, 0, 4, -1, 2, 5, 2, 31, 2];
    const bad: string[] = [];
    for (const op of [
      'elemwise_div',
      'broadcast_mod',
      'broadcast_power',
      'broadcast_hypot',
      'elemwise_mul',
      'elemwise_sub',
    ])
      bad.push(...(await compare(op, [a, b], 0, 'int32')));
    const big = [0, 1, 15, 16, 17, 2147395600, 2147395599, 2147483647, -2147483648, -4, 1000000];
    for (const op of ['sqrt', 'reciprocal', 'abs', 'negative', 'sign', 'square'])
      bad.push(...(await compare(op, [big], 0, 'int32')));
    // Float math of integers: exact results must survive truncation. (Results above 2^23 and int32
    // inputs above 2^24 round in float32 where cpu-wasm has float64: exp(16) = 8886110.52 is
    // 8886111 in float32, so those may differ by one.)
    const small = [0, 1, 2, 8, 10, 15, 100, 1000, 1024, 65536, 1000000, -4];
    for (const op of ['exp', 'log10', 'log2', 'log', 'cbrt', 'rsqrt', 'expm1'])
      bad.push(...(await compare(op, [small], 0, 'int32')));
    expect(bad).toEqual([]);
  });
});
