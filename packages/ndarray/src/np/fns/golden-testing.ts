/**
 * Test support shared by the area tests whose golden files use the `{ fn, args, kwargs, expect |
 * error }` call encoding (reduce.test.ts, sort.test.ts; not exported by the package): decoding the
 * arrays, running every case of each function under the leak check against NumPy's values or
 * error text, and a numeric gradient check — central differences in float64 of `sum(w · f(x))`
 * against autograd's gradient.
 */
import { type DTypeName, fromHalfBits } from '@mx/base';
import { describe, expect, it } from 'vitest';
import type { NDArray } from '../../ndarray.js';
import { ndarray } from '../array.js';
import type { NpContext } from '../context.js';

/** An array as the generators write it (NaN as null, ±Infinity as strings). */
export interface Enc {
  readonly shape: number[];
  readonly dtype: string;
  readonly data: (number | boolean | string | null)[];
}
export type Val = { readonly arr: Enc } | number | boolean | null | (number | null)[] | string;
export interface GoldenCall {
  readonly fn: string;
  readonly args: Val[];
  readonly kwargs: Record<string, Val>;
  readonly expect?: Enc | Enc[];
  readonly error?: string;
}
type Out = ndarray | ndarray[];

/** A new np array holding an encoded one. */
export function makeEnc(c: NpContext, e: Enc): ndarray {
  const vals = e.data.map((v) => (v === null ? Number.NaN : typeof v === 'string' ? Number(v) : v));
  return c.adopt(c.rt.nd.array(vals as number[], { dtype: e.dtype as DTypeName, shape: e.shape }));
}

/** `got` is an np array equal to `want` (shape, dtype, values within the dtype's tolerance). */
export async function checkEnc(got: NDArray, want: Enc): Promise<void> {
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

const brief = (v: unknown) =>
  JSON.stringify(v, (k, x) => (k === 'arr' ? `${x.dtype}${JSON.stringify(x.shape)}` : x));

/**
 * One test per function: every golden case of it under the leak check. Errors thrown at the call
 * (shapes, arguments) and those a kernel finds before writing (surfacing when the result is read)
 * must contain NumPy's text. Keywords are passed only when a case has some.
 */
export function describeGolden(
  title: string,
  c: NpContext,
  cases: readonly GoldenCall[],
  fns: Readonly<Record<string, unknown>>,
): void {
  const call = (name: string, args: unknown[], kwargs: Record<string, unknown>): Out => {
    const f = fns[name] as ((...a: unknown[]) => Out) | undefined;
    if (f === undefined) throw new Error(`np.${name} is missing`);
    return Object.keys(kwargs).length === 0 ? f(...args) : f(...args, kwargs);
  };
  describe(title, () => {
    for (const name of [...new Set(cases.map((x) => x.fn))]) {
      const mine = cases.filter((x) => x.fn === name);
      it(`${name} (${mine.length} cases)`, async () => {
        await c.rt.nd.leakCheck(async () => {
          for (const k of mine) {
            const made: NDArray[] = [];
            const dec = (v: Val): unknown => {
              if (v === null || typeof v !== 'object' || !('arr' in v)) return v;
              const a = makeEnc(c, v.arr);
              made.push(a);
              return a;
            };
            const args = k.args.map(dec);
            const kwargs = Object.fromEntries(Object.entries(k.kwargs).map(([n, v]) => [n, dec(v)]));
            const label = `${name} ${brief(k.args)} ${brief(k.kwargs)}`;
            try {
              if (k.error !== undefined) {
                let message = '';
                try {
                  const got = call(name, args, kwargs);
                  const outs = Array.isArray(got) ? got : [got];
                  try {
                    for (const o of outs) await o.data();
                  } finally {
                    for (const o of outs) o.dispose();
                  }
                } catch (e) {
                  message = (e as Error).message;
                }
                expect(message, label).toContain(k.error);
                continue;
              }
              const got = call(name, args, kwargs);
              const outs = Array.isArray(got) ? got : [got];
              try {
                const want = Array.isArray(k.expect) ? k.expect : [k.expect as Enc];
                expect(outs.length).toBe(want.length);
                for (let i = 0; i < want.length; i++) await checkEnc(outs[i] as NDArray, want[i] as Enc);
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
}

/** Central-difference check of d sum(w · f(x)) / dx in float64, x of `shape` drawn from `seed`. */
export async function gradCheck(
  c: NpContext,
  f: (x: ndarray) => ndarray,
  shape: number[],
  seed: number,
): Promise<void> {
  let s = seed;
  const rnd = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648 - 0.5;
  };
  const arr = (v: number[], sh: readonly number[]) => {
    const a = c.fromValues(v, 'float64');
    const r = c.view(a, sh);
    a.dispose();
    return r;
  };
  const n = shape.reduce((p, d) => p * d, 1);
  const xs = Array.from({ length: n }, () => rnd() * 4);
  const x = arr(xs, shape);
  x.attachGrad();
  const y0 = f(x);
  const w = arr(
    Array.from({ length: y0.size }, () => rnd() + 1),
    y0.shape,
  );
  y0.dispose();
  const loss = (v: ndarray) => {
    const y = f(v);
    const p = c.invoke1('elemwise_mul', [y, w]);
    const l = c.invoke1('sum', [p]);
    y.dispose();
    p.dispose();
    return l;
  };
  c.rt.autograd.record(() => {
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
      const xv = arr(v, shape);
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
