/**
 * np's elementwise functions against NumPy 1.24.2 (tools/golden/np/ufunc.py, MXNet's default-float
 * and weak-scalar rules applied there): every ufunc over bool/int8/int32/int64/uint8/float16/
 * float32/float64, broadcasting, 0-d and zero-size shapes, NaN/inf, JS scalars on either side,
 * `out=`, and errors with NumPy's wording — all under the leak check. Then: the ops a call records
 * are MXNet 2.0's `_npi_*` (no Cast for mixed dtypes), and gradients of differentiable ufuncs match
 * central differences in float64.
 */
import { type DTypeName, fromHalfBits } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime, type NDArray } from '../../index.js';
import golden from '../__golden__/ufunc.json';
import { ndarray } from '../array.js';
import { createNp } from '../namespace.js';

interface Enc {
  readonly shape: number[];
  readonly dtype: string;
  readonly data: (number | boolean | string | null)[];
}
interface Case {
  readonly kind: string;
  readonly sub?: string;
  readonly fn?: string;
  readonly a: Enc;
  readonly b?: Enc | null;
  readonly scalar?: number;
  readonly reverse?: boolean;
  readonly decimals?: number;
  readonly min?: number | string | null;
  readonly max?: number | string | null;
  readonly kwargs?: Record<string, number | boolean>;
  readonly outDtype?: string;
  readonly outShape?: number[];
  readonly error?: string;
  readonly expect?: Enc;
}

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 0 });
const { np } = createNp(rt);
afterAll(() => rt.dispose());

const num = (v: number | boolean | string | null): number =>
  v === null ? Number.NaN : typeof v === 'string' ? Number(v) : typeof v === 'boolean' ? (v ? 1 : 0) : v;
const make = (e: Enc): ndarray => {
  const a = rt.nd.array(e.data.map(num), { dtype: e.dtype as DTypeName, shape: e.shape });
  const b = a.asNpArray();
  a.dispose();
  return b;
};

const TOL: Record<string, number> = { float16: 2e-3, float32: 4e-6, float64: 1e-12 };

async function check(got: NDArray, want: Enc): Promise<void> {
  expect(got).toBeInstanceOf(ndarray);
  expect([...got.shape]).toEqual(want.shape);
  expect(got.dtype).toBe(want.dtype);
  const raw = Array.from((await got.data()) as ArrayLike<number | bigint>);
  const data = raw.map((v) =>
    typeof v === 'bigint' ? Number(v) : got.dtype === 'float16' ? fromHalfBits(v) : v,
  );
  const tol = TOL[want.dtype] ?? 0;
  want.data.forEach((w, i) => {
    const g = data[i] as number;
    const x = num(w);
    if (Number.isNaN(x)) expect(Number.isNaN(g), `[${i}] NaN, got ${g}`).toBe(true);
    else if (!Number.isFinite(x)) expect(g, `[${i}]`).toBe(x);
    else
      expect(Math.abs(g - x), `[${i}] want ${x} got ${g}`).toBeLessThanOrEqual(
        tol * Math.max(1, Math.abs(x)),
      );
  });
}

type Fn = (...args: unknown[]) => ndarray;
const camel = (name: string): string => name.replace(/_([a-z])/g, (_, ch: string) => ch.toUpperCase());
const fn = (name: string): Fn => {
  const f = (np as unknown as Record<string, Fn>)[camel(name)];
  if (f === undefined) throw new Error(`np.${camel(name)} is missing`);
  return f;
};
const kw = (k: Record<string, number | boolean> | undefined) =>
  Object.fromEntries(Object.entries(k ?? {}).map(([key, v]) => [camel(key), v]));

function run(c: Case, arrays: NDArray[]): ndarray {
  const a = make(c.a);
  arrays.push(a);
  const b = c.b ? make(c.b) : undefined;
  if (b) arrays.push(b);
  switch (c.kind) {
    case 'binary':
      return fn(c.fn as string)(a, b);
    case 'scalar':
      return c.reverse ? fn(c.fn as string)(c.scalar, a) : fn(c.fn as string)(a, c.scalar);
    case 'unary':
      return fn(c.fn as string)(a);
    case 'around':
      return np.around(a, c.decimals);
    case 'clip':
      return np.clip(a, c.min == null ? null : num(c.min), c.max == null ? null : num(c.max));
    case 'nan_to_num':
      return np.nanToNum(a, kw(c.kwargs));
    case 'isclose':
    case 'allclose':
    case 'array_equal':
      return fn(c.kind)(a, b, kw(c.kwargs));
    case 'out': {
      const shape = c.outShape ?? c.expect?.shape ?? [];
      const out = np.zeros(shape, { dtype: c.outDtype as DTypeName });
      arrays.push(out);
      const r = b ? fn(c.fn as string)(a, b, { out }) : fn(c.fn as string)(a, { out });
      expect(r).toBe(out); // written in place and returned, as NumPy's out=
      return r;
    }
    case 'error':
      if (c.sub === 'out') {
        const out = np.zeros(c.outShape as number[], { dtype: c.outDtype as DTypeName });
        arrays.push(out);
        return fn(c.fn as string)(a, b, { out });
      }
      if (c.sub === 'clip') return np.clip(a, null, null);
      return b ? fn(c.fn as string)(a, b) : fn(c.fn as string)(a);
    default:
      throw new Error(`unknown case kind ${c.kind}`);
  }
}

const cases = golden.cases as unknown as Case[];

describe('np ufuncs vs NumPy 1.24.2', () => {
  const kinds = [...new Set(cases.map((c) => c.kind))];
  for (const kind of kinds) {
    it(`${kind} (${cases.filter((c) => c.kind === kind).length} cases)`, async () => {
      const failures: string[] = [];
      await rt.nd.leakCheck(async () => {
        for (const c of cases.filter((x) => x.kind === kind)) {
          const label = `${c.fn ?? kind} ${c.a.dtype}${JSON.stringify(c.a.shape)} ${c.b ? `${c.b.dtype}${JSON.stringify(c.b.shape)}` : ''} ${c.scalar ?? ''}${c.reverse ? ' rev' : ''}`;
          const arrays: NDArray[] = [];
          try {
            if (c.kind === 'error') {
              expect(() => run(c, arrays)).toThrow((c.error as string).trim());
            } else {
              const got = run(c, arrays);
              if (c.kind !== 'out') arrays.push(got);
              await check(got, c.expect as Enc);
            }
          } catch (e) {
            failures.push(`${label}: ${(e as Error).message.split('\n')[0]}`);
          } finally {
            for (const x of arrays) x.dispose();
          }
        }
      });
      expect(failures).toEqual([]);
    });
  }
});

describe('np ufuncs record MXNet 2.0 ops', () => {
  function opsOf(body: () => NDArray): string[] {
    const seen: string[] = [];
    const target = rt as unknown as { invoke: (op: string, ...rest: unknown[]) => unknown };
    const orig = target.invoke;
    target.invoke = function (this: unknown, op: string, ...rest: unknown[]) {
      seen.push(op);
      return orig.call(this, op, ...rest);
    };
    try {
      body().dispose();
    } finally {
      target.invoke = orig;
    }
    return seen;
  }

  it('mixed dtypes promote inside _npi_add (no Cast); scalars use _npi_*_scalar; float rules cast ints', () => {
    const i = np.array([1, 2, 3], { dtype: 'int32' });
    const f = np.array([0.5, 1.5, 2.5], { dtype: 'float32' });
    expect(opsOf(() => np.add(i, f))).toEqual(['_npi_add']);
    expect(opsOf(() => np.subtract(2, f))).toEqual(['_npi_rsubtract_scalar']);
    expect(opsOf(() => np.less(2, i))).toEqual(['_npi_greater_scalar']);
    expect(opsOf(() => np.sqrt(i))).toEqual(['Cast', '_npi_sqrt']);
    expect(opsOf(() => np.bitwiseAnd(i, 6))).toEqual(['_npi_bitwise_and_scalar']);
    const sum = np.add(i, f);
    expect(sum.dtype).toBe('float64');
    for (const x of [i, f, sum]) x.dispose();
  });
});

describe('np ufunc gradients match central differences (float64)', () => {
  type G = (x: ndarray, y: ndarray) => ndarray;
  const grads: [string, G, number[], number[]][] = [
    ['add (broadcast)', (x, y) => np.add(x, y), [0.3, -1.2, 2.0, 0.7], [0.5, 1.5]],
    ['multiply', (x, y) => np.multiply(x, y), [0.3, -1.2], [0.5, 1.5]],
    ['trueDivide', (x, y) => np.trueDivide(x, y), [0.3, -1.2], [0.5, 1.5]],
    ['power', (x, y) => np.power(x, y), [0.3, 1.2], [0.5, 2.5]],
    ['maximum', (x, y) => np.maximum(x, y), [0.3, -1.2], [0.5, -1.5]],
    ['arctan2', (x, y) => np.arctan2(x, y), [0.3, -1.2], [0.5, 1.5]],
    ['hypot', (x, y) => np.hypot(x, y), [0.3, -1.2], [0.5, 1.5]],
    ['logaddexp', (x, y) => np.logaddexp(x, y), [0.3, -1.2], [0.5, 1.5]],
    ['fmod', (x, y) => np.fmod(x, y), [2.3, -1.2], [0.5, 1.5]],
    ['remainder', (x, y) => np.remainder(x, y), [2.3, -1.2], [0.5, 1.5]],
    ['ldexp', (x, y) => np.ldexp(x, y), [0.3, -1.2], [1, 2]],
    ['sqrt ∘ sin ∘ tanh', (x, y) => np.add(np.sqrt(x), np.sin(np.tanh(y))), [0.3, 1.2], [0.5, 1.5]],
    [
      'log1p · expm1 · cbrt · arcsinh',
      (x, y) => np.multiply(np.log1p(x), np.cbrt(np.arcsinh(np.expm1(y)))),
      [0.3, 1.2],
      [0.5, 1.5],
    ],
  ];
  for (const [name, f, xv, yv] of grads) {
    it(name, async () => {
      // x is (2, 2) where it has 4 values, so y (2,) broadcasts against it.
      const mk = (v: number[]): ndarray =>
        make({ shape: v.length === 4 ? [2, 2] : [v.length], dtype: 'float64', data: v });
      const x = mk(xv);
      const y = mk(yv);
      x.attachGrad();
      y.attachGrad();
      const out = rt.autograd.record(() => f(x, y).sum());
      out.backward();
      const value = async (xs: number[], ys: number[]): Promise<number> => {
        const a = mk(xs);
        const b = mk(ys);
        const r = f(a, b).sum();
        const v = Number(r.itemSync());
        for (const z of [a, b, r]) z.dispose();
        return v;
      };
      const h = 1e-6;
      for (const [arr, vals, other, first] of [
        [x, xv, yv, true],
        [y, yv, xv, false],
      ] as const) {
        const g = Array.from((await (arr.grad as NDArray).data()) as Float64Array);
        for (let i = 0; i < vals.length; i++) {
          const up = [...vals];
          const dn = [...vals];
          up[i] = (up[i] as number) + h;
          dn[i] = (dn[i] as number) - h;
          const fu = first ? await value(up, [...other]) : await value([...other], up);
          const fd = first ? await value(dn, [...other]) : await value([...other], dn);
          expect(g[i], `${name} d/d${first ? 'x' : 'y'}[${i}]`).toBeCloseTo((fu - fd) / (2 * h), 5);
        }
      }
      for (const z of [x, y, out]) z.dispose();
    });
  }
});
