/**
 * np's reductions and statistics against NumPy 1.24.2 (tools/golden/np/reduce.py, MXNet 2.0's
 * dtype rules applied there): every case under the leak check, errors with NumPy's wording, and
 * numeric gradients (central differences in float64) of the differentiable functions.
 */
import { type DTypeName, fromHalfBits } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime, type NDArray } from '../../index.js';
import golden from '../__golden__/reduce.json';
import { ndarray } from '../array.js';
import { NpContext } from '../context.js';
import { NpFlags } from '../flags.js';
import { reduceFunctions } from './reduce.js';

interface Enc {
  readonly shape: number[];
  readonly dtype: string;
  readonly data: (number | boolean | string | null)[];
}
type Val = { readonly arr: Enc } | number | boolean | null | (number | null)[] | string;
interface Case {
  readonly fn: string;
  readonly args: Val[];
  readonly kwargs: Record<string, Val>;
  readonly expect?: Enc | Enc[];
  readonly error?: string;
}

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 0 });
// The area's functions on their own context (the namespace file pulls in every area; this test
// needs only its own plus array creation and a product, written here on the ops).
const c = new NpContext(rt, new NpFlags());
const np = {
  ...reduceFunctions(c),
  array: (v: number[], o: { dtype: DTypeName }) => c.fromValues(v, o.dtype),
  multiply: (a: NDArray, b: NDArray) => c.invoke1('elemwise_mul', [a, b]),
  reshape: (a: ndarray, shape: readonly number[]) => {
    const v = c.view(a, shape);
    a.dispose();
    return v;
  },
};
afterAll(() => rt.dispose());

const make = (e: Enc): ndarray => {
  const vals = e.data.map((v) => (v === null ? Number.NaN : typeof v === 'string' ? Number(v) : v));
  const a = rt.nd.array(vals as number[], { dtype: e.dtype as DTypeName, shape: e.shape });
  return c.adopt(a);
};

async function check(got: NDArray, want: Enc): Promise<void> {
  expect(got).toBeInstanceOf(ndarray);
  expect([...got.shape]).toEqual(want.shape);
  expect(got.dtype).toBe(want.dtype);
  const raw = Array.from((await got.data()) as ArrayLike<number | bigint>);
  const data = raw.map((v) =>
    typeof v === 'bigint' ? Number(v) : got.dtype === 'float16' ? fromHalfBits(v) : v,
  );
  const tol = want.dtype === 'float16' ? 2e-3 : want.dtype === 'float32' ? 2e-5 : 1e-10;
  want.data.forEach((w, i) => {
    const g = data[i] as number;
    if (w === null) expect(Number.isNaN(g), `element ${i}: ${g} is not NaN`).toBe(true);
    else if (typeof w === 'string') expect(g).toBe(Number(w));
    else if (typeof w === 'boolean') expect(g).toBe(w ? 1 : 0);
    else
      expect(Math.abs(g - w), `element ${i}: ${g} vs ${w}`).toBeLessThanOrEqual(
        tol * Math.max(1, Math.abs(w)),
      );
  });
}

type Fn = (...args: unknown[]) => ndarray | ndarray[];
const cases = golden.cases as unknown as Case[];
const fnOf = (name: string): Fn => {
  const f = (np as unknown as Record<string, Fn>)[name];
  if (f === undefined) throw new Error(`np.${name} is missing`);
  return f;
};

const groups = [...new Set(cases.map((c) => c.fn))];

describe('np reductions and statistics vs NumPy', () => {
  for (const name of groups) {
    const mine = cases.filter((c) => c.fn === name);
    it(`${name} (${mine.length} cases)`, async () => {
      await rt.nd.leakCheck(async () => {
        for (const c of mine) {
          const made: NDArray[] = [];
          const dec = (v: Val): unknown => {
            if (v !== null && typeof v === 'object' && 'arr' in v) {
              const a = make(v.arr);
              made.push(a);
              return a;
            }
            return v;
          };
          const args = c.args.map(dec);
          const kwargs = Object.fromEntries(Object.entries(c.kwargs).map(([k, v]) => [k, dec(v)]));
          const label = `${name} ${JSON.stringify(c.args.map((a) => (typeof a === 'object' && a !== null && 'arr' in a ? `${a.arr.dtype}${JSON.stringify(a.arr.shape)}` : a)))} ${JSON.stringify(c.kwargs, (k, v) => (k === 'arr' ? `${v.dtype}${JSON.stringify(v.shape)}` : v))}`;
          try {
            if (c.error !== undefined) {
              // Shape/argument errors throw at the call; data-dependent ones (found by the kernel
              // before it writes) when the result is read.
              let message = '';
              try {
                const got = fnOf(name)(...args, kwargs);
                const outs = Array.isArray(got) ? got : [got];
                try {
                  for (const o of outs) await o.data();
                } finally {
                  for (const o of outs) o.dispose();
                }
              } catch (e) {
                message = (e as Error).message;
              }
              expect(message, label).toContain(c.error);
              continue;
            }
            const got = fnOf(name)(...args, kwargs);
            const outs = Array.isArray(got) ? got : [got];
            try {
              const want = Array.isArray(c.expect) ? c.expect : [c.expect as Enc];
              expect(outs.length).toBe(want.length);
              for (let i = 0; i < want.length; i++) await check(outs[i] as NDArray, want[i] as Enc);
            } finally {
              for (const o of outs) o.dispose();
            }
          } catch (e) {
            throw new Error(`${label}: ${(e as Error).message}`);
          } finally {
            for (const a of made) a.dispose();
          }
        }
      });
    });
  }
});

/** Central-difference check of d sum(w · f(x)) / dx in float64. */
async function gradCheck(f: (x: ndarray) => ndarray, shape: number[], seed: number): Promise<void> {
  let s = seed;
  const rnd = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648 - 0.5;
  };
  const n = shape.reduce((p, d) => p * d, 1);
  const xs = Array.from({ length: n }, () => rnd() * 4);
  const x = np.reshape(np.array(xs, { dtype: 'float64' }), shape);
  x.attachGrad();
  const y0 = f(x);
  const w = np.reshape(
    np.array(
      Array.from({ length: y0.size }, () => rnd() + 1),
      { dtype: 'float64' },
    ),
    [...y0.shape],
  );
  y0.dispose();
  const loss = (v: ndarray) => {
    const y = f(v);
    const p = np.multiply(y, w);
    const l = np.sum(p);
    y.dispose();
    p.dispose();
    return l;
  };
  rt.autograd.record(() => {
    const l = loss(x);
    l.backward();
    l.dispose();
  });
  const grad = Array.from((await (x.grad as NDArray).data()) as Float64Array);
  const eps = 1e-6;
  for (let i = 0; i < n; i++) {
    const val = (d: number) => {
      const v = xs.slice();
      v[i] = (v[i] as number) + d;
      const xv = np.reshape(np.array(v, { dtype: 'float64' }), shape);
      const l = loss(xv);
      const r = Number(l.itemSync());
      l.dispose();
      xv.dispose();
      return r;
    };
    const num = (val(eps) - val(-eps)) / (2 * eps);
    expect(Math.abs((grad[i] as number) - num), `d/dx[${i}]: ${grad[i]} vs ${num}`).toBeLessThan(
      1e-5 * Math.max(1, Math.abs(num)),
    );
  }
  x.dispose();
  w.dispose();
}

describe('np reductions: gradients match central differences', () => {
  const fns: [string, (x: ndarray) => ndarray, number[]][] = [
    ['sum axis 1', (x) => np.sum(x, { axis: 1 }), [3, 4]],
    ['sum all', (x) => np.sum(x), [2, 3]],
    ['mean keepdims', (x) => np.mean(x, { axis: [0, 2], keepdims: true }), [2, 3, 2]],
    ['prod', (x) => np.prod(x, { axis: 0 }), [3, 2]],
    ['max', (x) => np.max(x, { axis: -1 }), [3, 4]],
    ['min all', (x) => np.min(x), [5]],
    ['std', (x) => np.std(x, { axis: 1 }), [3, 4]],
    ['std ddof all', (x) => np.std(x, { ddof: 1 }), [2, 3]],
    ['var keepdims', (x) => np.var(x, { axis: 0, keepdims: true, ddof: 1 }), [4, 3]],
    ['average', (x) => np.average(x, { axis: 1 }) as ndarray, [3, 4]],
    ['cumsum', (x) => np.cumsum(x, { axis: 0 }), [3, 4]],
    ['cumsum flat', (x) => np.cumsum(x), [2, 3]],
    ['diff n=2', (x) => np.diff(x, { n: 2, axis: 1 }), [2, 5]],
    ['nanmean', (x) => np.nanmean(x, { axis: 0 }), [3, 2]],
    ['nanvar', (x) => np.nanvar(x, { axis: 1 }), [2, 4]],
    ['ptp', (x) => np.ptp(x, { axis: 1 }), [2, 4]],
  ];
  for (const [name, f, shape] of fns) {
    it(name, async () => {
      await rt.nd.leakCheck(() => gradCheck(f, shape, 7 + shape.length));
    });
  }

  it('average: gradients of a and of the weights (1-D along the axis)', async () => {
    const wv = [0.5, 1.5, 2, 1];
    const w = np.array(wv, { dtype: 'float64' });
    await gradCheck((x) => np.average(x, { axis: 1, weights: w }) as ndarray, [3, 4], 3);
    // The weights' gradient: d/dw of sum(average(a, w)), checked against central differences.
    const a = np.reshape(np.array([1, 2, 3, 4, 2, -1, 0, 5], { dtype: 'float64' }), [2, 4]);
    await gradCheck((v) => np.average(a, { axis: 1, weights: v }) as ndarray, [4], 5);
    a.dispose();
    w.dispose();
  });
});

describe('np reductions: ops recorded', () => {
  it('std/var/sum run MXNet 2.0 ops (_npi_std, _npi_sum…) and return np arrays', () => {
    const x = np.reshape(np.array([1, 2, 3, 4, 5, 7], { dtype: 'float32' }), [2, 3]);
    const s = np.std(x, { axis: 0 });
    expect(s.shape).toEqual([3]);
    expect(s.dtype).toBe('float32');
    const t = np.sum(x);
    expect(t.shape).toEqual([]);
    for (const name of [
      '_npi_std',
      '_npi_sum',
      '_npi_percentile',
      '_npi_cumsum',
      '_histogram',
      '_npi_bincount',
    ]) {
      expect(
        rt.registry.get(name).kernels.has('cpu-wasm') ||
          rt.registry.kernel(rt.registry.get(name), 'cpu-wasm') !== undefined,
      ).toBe(true);
    }
    for (const a of [x, s, t]) a.dispose();
  });
});
