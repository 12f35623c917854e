/**
 * np's misc functions and np.linalg's array-API names against NumPy 1.24.2
 * (tools/golden/np/misc.py, MXNet's dtype rules applied there): values and dtypes under the leak
 * check, NumPy's error texts, numeric gradient checks on the float64 cases the generator marks;
 * plus what golden data cannot show: fillDiagonal writes in place, sharesMemory follows storage
 * (views, asNpArray, copies), multivariateNormal's samples are mean + z·Lᵀ of the runtime's normal
 * stream with the right moments, and the ops each function records.
 */
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime, type NDArray } from '../../index.js';
import golden from '../__golden__/misc.json';
import { createNp } from '../namespace.js';
import { decodeArgs, type Enc, expectArray, gradCheck, thrown, values } from './products-testing.js';

interface Case {
  readonly fn: string;
  readonly args: unknown[];
  readonly expect?: Enc | Enc[];
  readonly value?: unknown;
  readonly error?: string;
  readonly grad?: boolean;
}

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 0 });
const { np } = createNp(rt);
afterAll(() => rt.dispose());

type Fn = (...args: unknown[]) => unknown;
const fnOf = (name: string): Fn => {
  const [space, fn] = name.startsWith('linalg.') ? [np.linalg, name.slice(7)] : [np, name];
  const f = (space as unknown as Record<string, Fn>)[fn];
  if (f === undefined) throw new Error(`np.${name} is missing`);
  return f;
};
const cases = golden.cases as unknown as Case[];
const fns = [...new Set(cases.map((c) => c.fn))];

describe('np misc functions vs NumPy', () => {
  for (const name of fns) {
    const mine = cases.filter((c) => c.fn === name && c.error === undefined);
    if (mine.length === 0) continue;
    it(`${name} (${mine.length} cases)`, async () => {
      await rt.nd.leakCheck(async () => {
        for (const c of mine) {
          const made: NDArray[] = [];
          const label = `${name}(${JSON.stringify(c.args.map((a) => (a as { $a?: Enc } | null)?.$a?.shape ?? a))})`;
          try {
            const got = fnOf(name)(...decodeArgs(rt, c.args, made));
            if (c.value !== undefined) {
              expect(got, label).toEqual(c.value);
              continue;
            }
            const outs = (Array.isArray(got) ? got : [got]) as NDArray[];
            made.push(...outs);
            const want = Array.isArray(c.expect) ? c.expect : [c.expect as Enc];
            expect(outs.length, label).toBe(want.length);
            for (let i = 0; i < want.length; i++)
              await expectArray(outs[i] as NDArray, want[i] as Enc, 4, `${label} output ${i}`);
          } finally {
            for (const x of made) x.dispose();
          }
        }
      });
    }, 60_000);
  }

  it(`errors carry NumPy's message (${cases.filter((c) => c.error).length} cases)`, async () => {
    await rt.nd.leakCheck(async () => {
      for (const c of cases.filter((x) => x.error !== undefined)) {
        const made: NDArray[] = [];
        const msg = thrown(() => fnOf(c.fn)(...decodeArgs(rt, c.args, made)));
        for (const x of made) x.dispose();
        expect(msg, `${c.fn} ${JSON.stringify(c.args).slice(0, 200)}`).toContain(c.error as string);
      }
    });
  });

  it('gradients match central differences (float64 cases)', async () => {
    const marked = cases.filter((c) => c.grad);
    expect(new Set(marked.map((c) => c.fn)).size).toBeGreaterThanOrEqual(12);
    for (const c of marked) {
      const made: NDArray[] = [];
      const args = decodeArgs(rt, c.args, made);
      const arrays = made.slice();
      const swap = (a: unknown, xs: NDArray[]): unknown => {
        const i = arrays.indexOf(a as NDArray);
        return i >= 0 ? xs[i] : a;
      };
      const f = (...xs: NDArray[]): NDArray => fnOf(c.fn)(...args.map((a) => swap(a, xs))) as NDArray;
      try {
        const worst = await gradCheck(rt, f, arrays);
        expect(worst, `${c.fn} ${JSON.stringify(c.args).slice(0, 160)}`).toBeLessThan(2e-6);
      } finally {
        for (const x of made) x.dispose();
      }
    }
  }, 120_000);
});

describe('np misc: storage and sampling', () => {
  it('fillDiagonal writes into the array (values cycled, ints truncated) and returns nothing', async () => {
    await rt.nd.leakCheck(async () => {
      const a = np.zeros([3, 3], { dtype: 'int32' });
      expect(np.fillDiagonal(a, [1.9, -2.5])).toBeUndefined();
      expect(await values(a)).toEqual([1, 0, 0, 0, -2, 0, 0, 0, 1]);
      const tall = np.zeros([5, 2]);
      np.fillDiagonal(tall, 7, true);
      expect(await values(tall)).toEqual([7, 0, 0, 7, 0, 0, 7, 0, 0, 7]);
      a.dispose();
      tall.dispose();
    });
  });

  it('sharesMemory / mayShareMemory follow the storage chunk and byte ranges', async () => {
    await rt.nd.leakCheck(async () => {
      const base = np.arange(12);
      const x = base.reshape([3, 4]);
      const row0 = x.get(0);
      const row1 = x.get(1);
      const flat = x.reshape([12]);
      const copy = x.copy();
      const legacy = x.asNdArray();
      const empty = np.zeros([0]);
      expect(np.sharesMemory(x, x)).toBe(true);
      expect(np.sharesMemory(x, flat)).toBe(true);
      expect(np.sharesMemory(x, row1)).toBe(true);
      expect(np.sharesMemory(row0, row1)).toBe(false);
      expect(np.mayShareMemory(row0, row1)).toBe(false);
      expect(np.sharesMemory(x, copy)).toBe(false);
      expect(np.mayShareMemory(x, legacy)).toBe(true);
      expect(np.sharesMemory(empty, empty)).toBe(false);
      for (const v of [base, x, row0, row1, flat, copy, legacy, empty]) v.dispose();
    });
  });

  it('multivariateNormal is mean + z·Lᵀ of the normal stream, with the right shape, dtype and moments', async () => {
    await rt.nd.leakCheck(async () => {
      const mean = np.array([1, -2], { dtype: 'float64' });
      const cov = np.array(
        [
          [2, 0.6],
          [0.6, 1],
        ],
        { dtype: 'float64' },
      );
      np.random.seed(7);
      const s = np.random.multivariateNormal(mean, cov, [4000]);
      expect(s.shape).toEqual([4000, 2]);
      expect(s.dtype).toBe('float64');
      np.random.seed(7);
      const z = np.random.normal(0, 1, [4000, 2], { dtype: 'float64' });
      const sv = await values(s);
      const zv = await values(z);
      const l11 = Math.sqrt(2);
      const l21 = 0.6 / l11;
      const l22 = Math.sqrt(1 - l21 * l21);
      for (let i = 0; i < 4000; i++) {
        expect(sv[2 * i]).toBeCloseTo(1 + l11 * (zv[2 * i] as number), 10);
        expect(sv[2 * i + 1]).toBeCloseTo(
          -2 + l21 * (zv[2 * i] as number) + l22 * (zv[2 * i + 1] as number),
          10,
        );
      }
      const m = [0, 1].map((j) => sv.filter((_, i) => i % 2 === j).reduce((p, q) => p + q, 0) / 4000);
      expect(m[0]).toBeCloseTo(1, 1);
      expect(m[1]).toBeCloseTo(-2, 1);
      let c01 = 0;
      for (let i = 0; i < 4000; i++)
        c01 += ((sv[2 * i] as number) - (m[0] as number)) * ((sv[2 * i + 1] as number) - (m[1] as number));
      expect(c01 / 3999).toBeGreaterThan(0.45);
      expect(c01 / 3999).toBeLessThan(0.75);
      const eye = np.eye(3);
      const one = np.random.multivariateNormal([0, 0, 0], eye);
      expect(one.shape).toEqual([3]);
      expect(one.dtype).toBe('float32');
      for (const v of [mean, cov, s, z, eye, one]) v.dispose();
    });
  });

  it("multivariateNormal refuses NumPy's bad shapes and MXNet's unsupported options", async () => {
    await rt.nd.leakCheck(async () => {
      const f = np.random.multivariateNormal;
      expect(
        thrown(() =>
          f(
            [[0, 0]],
            [
              [1, 0],
              [0, 1],
            ],
          ),
        ),
      ).toContain('mean must be 1 dimensional');
      expect(
        thrown(() =>
          f(
            [0, 0],
            [
              [1, 0, 0],
              [0, 1, 0],
            ],
          ),
        ),
      ).toContain('cov must be 2 dimensional and square');
      expect(
        thrown(() =>
          f(
            [0, 0, 0],
            [
              [1, 0],
              [0, 1],
            ],
          ),
        ),
      ).toContain('mean and cov must have same length');
      expect(thrown(() => f([0], [[1]], null, { tol: 1e-8 }))).toContain('Parameter `tol` is not supported');
      expect(
        thrown(() =>
          f(
            [0, 0],
            [
              [1, 2],
              [2, 1],
            ],
          ),
        ),
      ).toContain('not positive definite');
    });
  });

  it('functions record the ops MXNet 2.0 records', () => {
    const a = rt.nd.array([
      [4, 1, 2],
      [1, 3, 0],
      [2, 0, 5],
    ]);
    const x = a.asNpArray();
    const out = rt.dc.context(() => {
      rt.dc.setVariable(x, 'a');
      return np.ediff1d(np.polyval(np.diagonal(x, 1), np.linalg.diagonal(x)), 1);
    });
    const ops = rt.dc.getSymbol(out).indexed.nodes.map((n) => n.node.op?.name ?? 'null');
    expect(ops).toEqual(['null', '_npi_diagonal', '_npi_diag', '_npi_polyval', '_npi_ediff1d']);
    expect(np.acos).toBeTypeOf('function');
    for (const v of [a, x, out]) v.dispose();
  });
});
