/**
 * np's creation functions against NumPy 1.24.2 (tools/golden/np/creation.py, with MXNet 2.0's
 * default-float and arange rules applied there): every call's shape, dtype and values, NumPy's
 * error messages, no leaks; numeric gradients (central differences in float64 through autograd)
 * of the differentiable ones (tril, triu, diag, diagflat); the ops each function invokes, the
 * default-dtype flag and devices.
 */
import { type DTypeName, fromHalfBits } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime, type NDArray } from '../../index.js';
import golden from '../__golden__/creation.json';
import { ndarray } from '../array.js';
import { createNp } from '../namespace.js';

interface Enc {
  readonly shape: number[];
  readonly dtype: string;
  readonly data: (number | boolean | string | null)[];
}
type Arg = number | boolean | null | number[] | { nd: Enc } | unknown;
interface Case {
  readonly fn: string;
  readonly args: Arg[];
  readonly kwargs: Record<string, unknown>;
  readonly expect?: Enc | (Enc | number | null)[];
  readonly error?: string;
}

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 0 });
const { np, npx } = createNp(rt);
afterAll(() => rt.dispose());

const camel = (s: string) => s.replace(/_([a-z])/g, (_, ch: string) => ch.toUpperCase());
const isEnc = (x: unknown): x is { nd: Enc } => typeof x === 'object' && x !== null && 'nd' in x;

const make = (e: Enc): ndarray => {
  const vals = e.data.map((v) => (v === null ? Number.NaN : typeof v === 'string' ? Number(v) : v));
  const a = rt.nd.array(vals as number[], { dtype: e.dtype as DTypeName, shape: e.shape });
  const b = a.asNpArray();
  a.dispose();
  return b;
};

async function check(got: NDArray, want: Enc): Promise<void> {
  expect(got).toBeInstanceOf(ndarray);
  expect([...got.shape]).toEqual(want.shape);
  expect(got.dtype).toBe(want.dtype);
  const raw = Array.from((await got.data()) as ArrayLike<number | bigint>);
  const data = raw.map((v) =>
    typeof v === 'bigint' ? Number(v) : got.dtype === 'float16' ? fromHalfBits(v) : v,
  );
  const tol = want.dtype === 'float32' ? 1e-6 : 1e-12;
  want.data.forEach((w, i) => {
    const g = data[i] as number;
    if (w === null) expect(Number.isNaN(g)).toBe(true);
    else if (typeof w === 'string') expect(g).toBe(Number(w));
    else if (typeof w === 'boolean') expect(g).toBe(w ? 1 : 0);
    else expect(Math.abs(g - w)).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(w)));
  });
}

type Fn = (...args: unknown[]) => unknown;
const cases = golden.cases as unknown as Case[];

/** Call np's function for a case: arrays decoded, NumPy's keywords camelCased as the last argument. */
function call(c: Case, temps: NDArray[]): unknown {
  const args = c.args.map((a) => {
    if (!isEnc(a)) return a;
    const x = make(a.nd);
    temps.push(x);
    return x;
  });
  const kw = Object.fromEntries(Object.entries(c.kwargs).map(([k, v]) => [camel(k), v]));
  const f = (np as unknown as Record<string, Fn>)[camel(c.fn)] as Fn;
  expect(f, c.fn).toBeTypeOf('function');
  return f(...args, kw);
}

describe('np creation functions vs NumPy', () => {
  const fns = [...new Set(cases.map((c) => c.fn))];
  it('covers the area', () => {
    expect(fns.sort()).toEqual(
      [
        'arange',
        'array',
        'asarray',
        'copy',
        'diag',
        'diagflat',
        'eye',
        'full',
        'full_like',
        'identity',
        'indices',
        'linspace',
        'logspace',
        'meshgrid',
        'ones',
        'ones_like',
        'tri',
        'tril',
        'triu',
        'zeros',
        'zeros_like',
      ].sort(),
    );
  });

  for (const name of fns) {
    const mine = cases.filter((c) => c.fn === name);
    it(`${name} (${mine.length} cases)`, async () => {
      await rt.nd.leakCheck(async () => {
        for (const c of mine) {
          const label = `${c.fn}(${JSON.stringify(c.args.map((a) => (isEnc(a) ? a.nd.shape : a)))}, ${JSON.stringify(c.kwargs)})`;
          const temps: NDArray[] = [];
          try {
            if (c.error !== undefined) {
              expect(() => call(c, temps), label).toThrow(c.error);
              continue;
            }
            const got = call(c, temps);
            const want = c.expect as Enc | (Enc | number | null)[];
            if (Array.isArray(want)) {
              const list = got as unknown[];
              expect(list.length, label).toBe(want.length);
              for (const g of list) if (g instanceof ndarray) temps.push(g);
              for (let i = 0; i < want.length; i++) {
                const w = want[i];
                if (typeof w === 'object' && w !== null) await check(list[i] as NDArray, w);
                else if (w === null) expect(Number.isNaN(list[i]), label).toBe(true);
                else expect(list[i] as number, label).toBeCloseTo(w as number, 12);
              }
            } else {
              temps.push(got as NDArray);
              await check(got as NDArray, want);
            }
          } catch (e) {
            throw new Error(`${label}: ${(e as Error).message}`);
          } finally {
            for (const t of temps) t.dispose();
          }
        }
      });
    });
  }
});

describe('np creation functions: gradients, ops, flags, devices', () => {
  /** Central differences in float64 of sum(w * f(x)) against autograd's gradient. */
  async function gradCheck(f: (x: ndarray) => ndarray, shape: number[]): Promise<void> {
    const n = shape.reduce((p, d) => p * d, 1);
    const vals = Array.from({ length: n }, (_, i) => Math.sin(i + 1) * 2);
    const f64 = (v: number[], s: readonly number[]) => make({ shape: [...s], dtype: 'float64', data: v });
    const x = f64(vals, shape);
    const probe = f(x);
    const w = f64(
      Array.from({ length: probe.size }, (_, i) => Math.cos(i) + 1.5),
      probe.shape,
    );
    probe.dispose();
    x.attachGrad();
    const loss = rt.autograd.record(() => {
      const y = f(x);
      const yw = np.multiply(y, w);
      const s = np.sum(yw);
      y.dispose();
      yw.dispose();
      return s;
    });
    loss.backward();
    const grad = Array.from((await (x.grad as NDArray).data()) as Float64Array);
    const h = 1e-6;
    const value = (v: number[]) => {
      const xv = f64(v, shape);
      const y = f(xv);
      const yw = np.multiply(y, w);
      const s = np.sum(yw);
      const r = s.itemSync() as number;
      for (const a of [xv, y, yw, s]) a.dispose();
      return r;
    };
    for (let i = 0; i < n; i++) {
      const up = [...vals];
      const down = [...vals];
      up[i] = (up[i] as number) + h;
      down[i] = (down[i] as number) - h;
      expect(grad[i]).toBeCloseTo((value(up) - value(down)) / (2 * h), 6);
    }
    for (const a of [x, w, loss]) a.dispose();
  }

  it('tril, triu, diag, diagflat have numeric gradients', async () => {
    await rt.nd.leakCheck(async () => {
      await gradCheck((x) => np.tril(x, 1), [3, 4]);
      await gradCheck((x) => np.triu(x, -1), [2, 3, 3]);
      await gradCheck((x) => np.tril(x, 0), [4]);
      await gradCheck((x) => np.triu(x, 1), [3]);
      await gradCheck((x) => np.diag(x, 1), [3]);
      await gradCheck((x) => np.diag(x, -1), [4, 3]);
      await gradCheck((x) => np.diagflat(x, 2), [2, 2]);
    });
  });

  it("calls MXNet 2.0's ops (symbol JSON names)", () => {
    const seen: string[] = [];
    const invoke = rt.invoke.bind(rt);
    const spy = ((op: string, ...rest: unknown[]) => {
      seen.push(op);
      return (invoke as (...a: unknown[]) => NDArray[])(op, ...rest);
    }) as typeof rt.invoke;
    (rt as { invoke: typeof rt.invoke }).invoke = spy;
    try {
      const made = [
        np.zeros(2),
        np.ones(2),
        np.full(2, 1.5),
        np.arange(3),
        np.linspace(0, 1, 3),
        np.logspace(0, 1, 3),
        np.eye(2),
        np.identity(2),
        np.tri(2),
        np.indices([2]),
      ];
      const z = made[0] as ndarray;
      made.push(np.zerosLike(z), np.tril(made[6] as ndarray), np.triu(made[6] as ndarray));
      made.push(np.diag(z), np.diagflat(z));
      for (const m of made) m.dispose();
    } finally {
      (rt as { invoke: typeof rt.invoke }).invoke = invoke;
    }
    expect(seen).toEqual([
      '_npi_zeros',
      '_npi_ones',
      '_npi_full',
      '_npi_arange',
      '_npi_linspace',
      '_npi_logspace',
      '_npi_eye',
      '_npi_identity',
      '_npi_tri',
      '_npi_indices',
      '_npi_full_like',
      '_npi_tril',
      '_npi_triu',
      '_npi_diag',
      '_npi_diagflat',
    ]);
  });

  it('setNp({ dtype: true }): float64 defaults, arange as NumPy', () => {
    npx.setNp({ dtype: true });
    try {
      const made = [
        np.zeros(2),
        np.linspace(0, 1, 2),
        np.eye(2),
        np.arange(3),
        np.arange(0, 1, 0.5),
        np.full(2, 0.5),
      ];
      expect(made.map((m) => m.dtype)).toEqual([
        'float64',
        'float64',
        'float64',
        'int64',
        'float64',
        'float64',
      ]);
      for (const m of made) m.dispose();
    } finally {
      npx.resetNp();
    }
  });

  it('dtype and shape overrides; out=; retstep typing', async () => {
    const a = np.array([[1, 2, 3]], { dtype: 'int32' });
    const b = np.zerosLike(a, { dtype: 'float64', shape: [2] });
    expect([b.dtype, ...b.shape]).toEqual(['float64', 2]);
    const out = np.zeros([1, 3]);
    const r = np.fullLike(a, 4, { out, dtype: 'float32' });
    expect(r).toBe(out);
    expect(await out.array()).toEqual([[4, 4, 4]]);
    const [y, step] = np.linspace(0, 1, 5, { retstep: true });
    expect(step).toBe(0.25);
    expect(np.asarray(a)).toBe(a);
    const e = np.emptyLike(a);
    expect([e.dtype, ...e.shape]).toEqual(['int32', 1, 3]);
    for (const x of [a, b, out, y, e]) x.dispose();
  });
});
