/**
 * np's products against NumPy 1.24.2 (tools/golden/np/products.py, MXNet's trace dtype rule
 * applied there): values, dtypes and shapes of every case under the leak check, NumPy's error
 * texts, numeric gradient checks on the float64 cases the generator marks, and the products'
 * ops recorded by deferred compute.
 */
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime, type NDArray } from '../../index.js';
import golden from '../__golden__/products.json';
import {
  decodeArgs,
  type Enc,
  expectArray,
  gradCheck,
  productsAndLinalg,
  thrown,
} from './products-testing.js';

interface Case {
  readonly fn: string;
  readonly args: unknown[];
  readonly expect?: Enc;
  readonly error?: string;
  readonly k?: number;
  readonly grad?: boolean;
}

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 0 });
const np = productsAndLinalg(rt);
const arr = (v: number[] | number[][], dtype: 'float64' | 'float32' = 'float64') => {
  const a = rt.nd.array(v, { dtype });
  const b = a.asNpArray();
  a.dispose();
  return b;
};
afterAll(() => rt.dispose());

type Fn = (...args: unknown[]) => NDArray;
const fnOf = (name: string): Fn => {
  const f = (np as unknown as Record<string, Fn>)[name];
  if (f === undefined) throw new Error(`np.${name} is missing`);
  return f;
};
const cases = golden.cases as unknown as Case[];
const fns = [...new Set(cases.map((c) => c.fn))];

describe('np products vs NumPy', () => {
  for (const name of fns) {
    const mine = cases.filter((c) => c.fn === name && c.expect !== undefined);
    it(`${name} (${mine.length} cases)`, async () => {
      await rt.nd.leakCheck(async () => {
        for (const c of mine) {
          const made: NDArray[] = [];
          const label = `${name}(${JSON.stringify(c.args.map((a) => (a as { $a?: Enc } | null)?.$a?.shape ?? a))})`;
          try {
            const got = fnOf(name)(...decodeArgs(rt, c.args, made));
            made.push(got);
            await expectArray(got, c.expect as Enc, c.k ?? 1, label);
          } finally {
            for (const x of made) x.dispose();
          }
        }
      });
    });
  }

  it(`errors carry NumPy's message (${cases.filter((c) => c.error).length} cases)`, async () => {
    await rt.nd.leakCheck(async () => {
      for (const c of cases.filter((x) => x.error !== undefined)) {
        const made: NDArray[] = [];
        const msg = thrown(() => fnOf(c.fn)(...decodeArgs(rt, c.args, made)));
        for (const x of made) x.dispose();
        expect(msg, `${c.fn} ${JSON.stringify(c.args)}`).toContain(c.error as string);
      }
    });
  });

  it('gradients match central differences (float64 cases)', async () => {
    const marked = cases.filter((c) => c.grad);
    expect(new Set(marked.map((c) => c.fn))).toEqual(
      new Set(['dot', 'vdot', 'inner', 'outer', 'matmul', 'kron', 'tensordot', 'einsum', 'cross', 'trace']),
    );
    for (const c of marked) {
      const made: NDArray[] = [];
      const args = decodeArgs(rt, c.args, made);
      const arrays = made.slice();
      const positions = args.map((a) => arrays.indexOf(a as NDArray));
      const f = (...xs: NDArray[]) =>
        fnOf(c.fn)(...args.map((a, i) => ((positions[i] as number) >= 0 ? xs[positions[i] as number] : a)));
      try {
        const worst = await gradCheck(rt, f, arrays);
        expect(worst, `${c.fn} ${JSON.stringify(c.args).slice(0, 120)}`).toBeLessThan(1e-6);
      } finally {
        for (const x of made) x.dispose();
      }
    }
  }, 60_000);

  it('vdot, inner, outer and kron are differentiable too', async () => {
    const a = arr([1.5, -2, 0.25]);
    const b = arr([0.5, 3, -1]);
    const m = arr([
      [1, 2],
      [3, 4.5],
    ]);
    for (const f of [
      (x: NDArray, y: NDArray) => np.vdot(x, y),
      (x: NDArray, y: NDArray) => np.inner(x, y),
      (x: NDArray, y: NDArray) => np.outer(x, y),
      (x: NDArray, y: NDArray) => np.kron(x, y),
    ])
      expect(await gradCheck(rt, f, [a, b])).toBeLessThan(1e-6);
    expect(await gradCheck(rt, (x, y) => np.kron(x, y), [m, a])).toBeLessThan(1e-6);
    for (const x of [a, b, m]) x.dispose();
  });

  it('JS values are operands; einsum takes options last; products record their MXNet 2.0 ops', async () => {
    const x = np.matmul(
      [
        [1, 2],
        [3, 4],
      ],
      [1, 1],
    );
    expect(x.dtype).toBe('int64');
    expect(await x.array()).toEqual([3n, 7n]);
    const e = np.einsum('i,i', [1.5, 2], [2, 2], { optimize: 'optimal' });
    expect(e.shape).toEqual([]);
    expect(await e.item()).toBe(7);
    const a = rt.nd.ones([2, 3]).asNpArray();
    const b = rt.nd.ones([3, 4]).asNpArray();
    const bt = rt.nd.ones([4, 3]).asNpArray();
    const out = rt.dc.context(() => {
      rt.dc.setVariable(a, 'a');
      rt.dc.setVariable(b, 'b');
      rt.dc.setVariable(bt, 'bt');
      return np.trace(np.kron(np.tensordot(np.matmul(a, b), bt, 1), a), 1);
    });
    const ops = rt.dc.getSymbol(out).indexed.nodes.map((n) => n.node.op?.name ?? 'null');
    expect(ops.filter((o) => o.startsWith('_npi'))).toEqual([
      '_npi_matmul',
      '_npi_tensordot_int_axes',
      '_npi_kron',
      '_npi_trace',
    ]);
    // matmul(a, b) is all 3s (2x4); times bᵀ all 12s (2x3); kron with ones(2,3) is 12s (4x9);
    // the diagonal above the main one has 4 elements.
    expect(await out.item()).toBe(48);
    for (const v of [x, e, a, b, bt, out]) v.dispose();
  });
});
