/**
 * np's foundation against NumPy 1.24.2 (tools/golden/np/foundation.py, with MXNet's default-float
 * and integer-sum rules applied there): the class's methods and the first functions, dtypes and
 * shapes included; conversions without copies; autograd through conversions; flags; errors with
 * NumPy's wording.
 */
import { type DTypeName, fromHalfBits } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime, NDArray } from '../index.js';
import golden from './__golden__/foundation.json';
import { ndarray } from './array.js';
import { createNp } from './namespace.js';

interface Enc {
  readonly shape: number[];
  readonly dtype: string;
  readonly data: (number | boolean | string | null)[];
}
interface Case {
  readonly kind: string;
  readonly fn?: string;
  readonly a: Enc;
  readonly b?: Enc;
  readonly scalar?: number;
  readonly reverse?: boolean;
  readonly axis?: number | number[] | null;
  readonly keepdims?: boolean;
  readonly newshape?: number[];
  readonly axes?: number[] | null;
  readonly expect: Enc;
}

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 0 });
const { np, npx } = createNp(rt);
afterAll(() => rt.dispose());

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
  const tol = want.dtype === 'float16' ? 2e-3 : want.dtype === 'float32' ? 1e-6 : 1e-12;
  want.data.forEach((w, i) => {
    const g = data[i] as number;
    if (w === null) expect(Number.isNaN(g)).toBe(true);
    else if (typeof w === 'string') expect(g).toBe(Number(w));
    else if (typeof w === 'boolean') expect(g).toBe(w ? 1 : 0);
    else expect(Math.abs(g - w)).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(w)));
  });
}

const cases = golden.cases as unknown as Case[];
type Fn = (...args: unknown[]) => ndarray;
// NumPy's snake_case names are camelCase in TypeScript (true_divide → trueDivide).
const fn = (name: string): Fn =>
  (np as unknown as Record<string, Fn>)[name.replace(/_([a-z])/g, (_, ch: string) => ch.toUpperCase())] as Fn;

describe('np functions and methods vs NumPy', () => {
  for (const kind of ['binary', 'scalar', 'reduce', 'reshape', 'transpose', 'dot']) {
    it(`${kind} (${cases.filter((c) => c.kind === kind).length} cases)`, async () => {
      await rt.nd.leakCheck(async () => {
        for (const c of cases.filter((x) => x.kind === kind)) {
          const label = `${c.fn ?? kind} ${c.a.dtype}${JSON.stringify(c.a.shape)} ${JSON.stringify(c.b?.shape ?? c.scalar ?? c.axis ?? c.newshape ?? c.axes)}`;
          const a = make(c.a);
          const b = c.b === undefined ? undefined : make(c.b);
          let got: ndarray;
          if (kind === 'binary') got = fn(c.fn as string)(a, b);
          else if (kind === 'scalar')
            got = c.reverse ? fn(c.fn as string)(c.scalar, a) : fn(c.fn as string)(a, c.scalar);
          else if (kind === 'reduce') got = fn(c.fn as string)(a, { axis: c.axis, keepdims: c.keepdims });
          else if (kind === 'reshape') got = a.reshape(c.newshape as number[]);
          else if (kind === 'transpose') got = a.transpose(c.axes);
          else got = np.dot(a, b as ndarray);
          try {
            await check(got, c.expect);
          } catch (e) {
            throw new Error(`${label}: ${(e as Error).message}`);
          } finally {
            for (const x of [a, b, got]) x?.dispose();
          }
        }
      });
    });
  }

  it('methods call the functions: x.add, x.lt, x.sum, x.argmax, x.T, x.flatten', async () => {
    const x = np.array([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    expect(x.dtype).toBe('float32');
    expect(await x.add(1).array()).toEqual([
      [2, 3, 4],
      [5, 6, 7],
    ]);
    const m = x.lt(3);
    expect(m.dtype).toBe('bool');
    expect(await m.array()).toEqual([
      [true, true, false],
      [false, false, false],
    ]);
    const s = x.sum({ axis: 0 });
    expect(await s.array()).toEqual([5, 7, 9]);
    const am = x.argmax();
    expect(am.dtype).toBe('int64');
    expect(am.shape).toEqual([]);
    expect(am.itemSync()).toBe(5n);
    expect(x.T.shape).toEqual([3, 2]);
    const f = x.flatten();
    expect(f.shape).toEqual([6]);
    for (const a of [x, m, s, am, f]) a.dispose();
  });
});

describe('conversions, autograd and flags', () => {
  it('asNpArray / asNdArray share storage, no copy', async () => {
    const a = rt.nd.array([1, 2, 3]);
    const b = a.asNpArray();
    expect(b).toBeInstanceOf(ndarray);
    expect(b.asNpArray()).toBe(b);
    b.set(7);
    expect(await a.array()).toEqual([7, 7, 7]);
    const c = b.asNdArray();
    expect(c).not.toBeInstanceOf(ndarray);
    expect(c).toBeInstanceOf(NDArray);
    for (const x of [a, b, c]) x.dispose();
  });

  it('outputs of np arrays are np arrays: views, copies, astype, legacy methods, gradients', async () => {
    const x = np.ones([2, 3]);
    const derived = [x.copy(), x.astype('float64'), x.exp(), x.slice(0, 1), x.reshape([3, 2]), x.detach()];
    for (const d of derived) expect(d).toBeInstanceOf(ndarray);
    x.attachGrad();
    expect(x.grad).toBeInstanceOf(ndarray);
    for (const d of [x, ...derived]) d.dispose();
  });

  it('gradients flow through a conversion to the original variable', async () => {
    const w = rt.nd.array([1, 2, 3]).attachGrad();
    const y = rt.autograd.record(() => w.asNpArray().mul(w.asNpArray()).sum());
    y.backward();
    expect(await (w.grad as NDArray).array()).toEqual([2, 4, 6]);
    const v = w.asNpArray();
    expect(v.grad).toBe(w.grad);
    for (const a of [w, y, v]) a.dispose();
  });

  it('np arrays trace under deferred compute and compute on read', async () => {
    const x = np.array([1, 2, 3]);
    const out = rt.dc.context(() => {
      rt.dc.setVariable(x, 'x');
      return x.mul(2).add(1).sum();
    });
    expect(out).toBeInstanceOf(ndarray);
    const alias = out.asNdArray();
    expect(await alias.item()).toBe(15);
    expect(await out.item()).toBe(15);
    for (const a of [x, out, alias]) a.dispose();
  });

  it('setNp: array semantics need shape semantics; dtype switches the default float', () => {
    expect(npx.isNpArray()).toBe(false);
    expect(() => npx.setNp({ shape: false, array: true })).toThrow(
      'NumPy Shape semantics is required in using NumPy array semantics.',
    );
    npx.setNp({ dtype: true });
    expect([npx.isNpShape(), npx.isNpArray(), npx.isNpDefaultDtype()]).toEqual([true, true, true]);
    const z = np.zeros(2);
    expect(z.dtype).toBe('float64');
    npx.resetNp();
    expect(npx.isNpShape()).toBe(false);
    const z2 = np.zeros(2);
    expect(z2.dtype).toBe('float32');
    z.dispose();
    z2.dispose();
  });

  it('sparse arrays are refused with the conversion to make', () => {
    const s = rt.nd.sparse.zeros('csr', [2, 2]);
    expect(() => s.asNpArray()).toThrow("x.tostype('default')");
    expect(() => np.sum(s)).toThrow('csr');
    s.dispose();
  });

  it('errors carry NumPy wording', () => {
    const byKind = (k: string) =>
      (golden.errors as { kind: string; message: string }[]).find((e) => e.kind === k)?.message as string;
    const x = np.zeros([2, 3]);
    expect(() => x.reshape([4])).toThrow(byKind('reshape'));
    expect(() => x.reshape([4, -1])).toThrow('cannot reshape array of size 6 into shape (4,newaxis)');
    expect(() => x.reshape([-1, -1])).toThrow('can only specify one unknown dimension');
    expect(() => x.transpose([1])).toThrow(byKind('transpose'));
    expect(() => x.sum({ axis: 2 })).toThrow(byKind('sum'));
    expect(() => np.max(np.zeros([0, 3]))).toThrow(byKind('max'));
    expect(() => np.dot(x, np.zeros([4, 2]))).toThrow(byKind('dot'));
    expect(() => np.add(x, np.zeros([4]))).toThrow(byKind('binary').trim());
    expect(() => np.clip(x, null, null)).toThrow('One of max or min must be given');
    x.dispose();
  });
});
