/**
 * np.linalg against NumPy 1.24.2 (tools/golden/np/linalg.py, MXNet's dtype rules applied there):
 * values and dtypes of every case under the leak check; the decompositions whose factors are not
 * unique (qr, svd, eigh, eig) by invariants — reconstruction, orthonormality, triangularity and
 * NumPy's singular/eigen values; NumPy's error texts; numeric gradient checks on the float64
 * cases the generator marks; and the ops each function records.
 */
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime, type NDArray } from '../../index.js';
import golden from '../__golden__/linalg.json';
import { chainOrder } from './linalg-compose.js';
import {
  decodeArgs,
  type Enc,
  expectArray,
  gradCheck,
  productsAndLinalg,
  thrown,
  values,
} from './products-testing.js';

interface Case {
  readonly fn: string;
  readonly args: unknown[];
  readonly expect?: Enc | Enc[];
  readonly check?: 'qr' | 'svd' | 'eigh' | 'eig';
  readonly error?: string;
  readonly k?: number;
  readonly grad?: boolean;
}

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 0 });
const np = productsAndLinalg(rt);
afterAll(() => rt.dispose());

type Fn = (...args: unknown[]) => NDArray | NDArray[];
const fnOf = (name: string): Fn => {
  const f = (np.linalg as unknown as Record<string, Fn>)[name];
  if (f === undefined) throw new Error(`np.linalg.${name} is missing`);
  return f;
};
const cases = golden.cases as unknown as Case[];

/** A batch of row-major matrices: entry b, row i, column j. */
interface Mats {
  readonly batch: number;
  readonly m: number;
  readonly n: number;
  at(b: number, i: number, j: number): number;
}
async function mats(x: NDArray): Promise<Mats> {
  const v = await values(x);
  const m = x.shape[x.ndim - 2] as number;
  const n = x.shape[x.ndim - 1] as number;
  return {
    batch: m * n === 0 ? 0 : v.length / (m * n),
    m,
    n,
    at: (b, i, j) => v[b * m * n + i * n + j] as number,
  };
}
async function vecs(x: NDArray): Promise<(b: number, i: number) => number> {
  const v = await values(x);
  const n = x.shape[x.ndim - 1] as number;
  return (b, i) => v[b * n + i] as number;
}
function close(got: number, want: number, tol: number, what: string): void {
  if (!(Math.abs(got - want) <= tol * Math.max(1, Math.abs(want))))
    throw new Error(`${what}: ${got} != ${want}`);
}

/** The invariant checks of one decomposition case; `a` is the input, `outs` the function's results. */
async function checkInvariants(kind: NonNullable<Case['check']>, a: NDArray, outs: NDArray[], want: Enc[]) {
  const A = await mats(a);
  const dtype = (want[0] as Enc).dtype;
  const tol = dtype === 'float32' ? 2e-4 : 1e-9;
  for (const o of outs) expect(o.dtype).toBe(dtype);
  const ref = want[0] as Enc;
  if (kind === 'qr') {
    const Q = await mats(outs[0] as NDArray);
    const R = await mats(outs[1] as NDArray);
    const k = Math.min(A.m, A.n);
    expect([Q.m, Q.n, R.m, R.n]).toEqual([A.m, k, k, A.n]);
    for (let b = 0; b < A.batch; b++) {
      for (let i = 0; i < A.m; i++)
        for (let j = 0; j < A.n; j++) {
          let s = 0;
          for (let l = 0; l < k; l++) s += Q.at(b, i, l) * R.at(b, l, j);
          close(s, A.at(b, i, j), tol, `QR[${b},${i},${j}]`);
        }
      for (let i = 0; i < k; i++)
        for (let j = 0; j < k; j++) {
          let s = 0;
          for (let l = 0; l < A.m; l++) s += Q.at(b, l, i) * Q.at(b, l, j);
          close(s, i === j ? 1 : 0, tol, `QᵀQ[${i},${j}]`);
        }
      for (let i = 0; i < k; i++)
        for (let j = 0; j < A.n; j++) {
          if (i > j) close(R.at(b, i, j), 0, tol, `R lower [${i},${j}]`);
          const r = ref.data[b * k * A.n + i * A.n + j] as number;
          close(Math.abs(R.at(b, i, j)), Math.abs(r), tol * 10, `|R| vs NumPy [${i},${j}]`);
        }
    }
    return;
  }
  const w = await vecs(outs[kind === 'svd' ? 1 : 0] as NDArray);
  const k = kind === 'svd' ? Math.min(A.m, A.n) : A.n;
  for (let b = 0; b < A.batch; b++)
    for (let i = 0; i < k; i++) close(w(b, i), ref.data[b * k + i] as number, tol * 10, `values[${b},${i}]`);
  if (kind === 'svd') {
    const U = await mats(outs[0] as NDArray);
    const V = await mats(outs[2] as NDArray);
    expect([U.m, U.n, V.m, V.n]).toEqual([A.m, k, k, A.n]);
    for (let b = 0; b < A.batch; b++) {
      for (let i = 0; i < A.m; i++)
        for (let j = 0; j < A.n; j++) {
          let s = 0;
          for (let l = 0; l < k; l++) s += U.at(b, i, l) * w(b, l) * V.at(b, l, j);
          close(s, A.at(b, i, j), tol * 10, `U S V[${i},${j}]`);
        }
      for (let i = 0; i < k; i++)
        for (let j = 0; j < k; j++) {
          let u = 0;
          let v = 0;
          for (let l = 0; l < A.m; l++) u += U.at(b, l, i) * U.at(b, l, j);
          for (let l = 0; l < A.n; l++) v += V.at(b, i, l) * V.at(b, j, l);
          close(u, i === j ? 1 : 0, tol * 10, `UᵀU[${i},${j}]`);
          close(v, i === j ? 1 : 0, tol * 10, `VVᵀ[${i},${j}]`);
        }
    }
    return;
  }
  // eigh / eig: A v = v diag(w), columns of unit length (eigh: orthonormal).
  const Vm = await mats(outs[1] as NDArray);
  for (let b = 0; b < A.batch; b++)
    for (let j = 0; j < A.n; j++) {
      let norm = 0;
      for (let i = 0; i < A.n; i++) {
        let s = 0;
        for (let l = 0; l < A.n; l++) s += A.at(b, i, l) * Vm.at(b, l, j);
        close(s, Vm.at(b, i, j) * w(b, j), tol * 10, `A v[${i},${j}]`);
        norm += Vm.at(b, i, j) ** 2;
      }
      close(norm, 1, tol * 10, `|v${j}|`);
      if (kind === 'eigh')
        for (let j2 = 0; j2 < A.n; j2++) {
          let d = 0;
          for (let i = 0; i < A.n; i++) d += Vm.at(b, i, j) * Vm.at(b, i, j2);
          close(d, j === j2 ? 1 : 0, tol * 10, `vᵀv[${j},${j2}]`);
        }
    }
}

const fns = [...new Set(cases.map((c) => c.fn))];

describe('np.linalg vs NumPy', () => {
  for (const name of fns) {
    const mine = cases.filter((c) => c.fn === name && c.expect !== undefined);
    if (mine.length === 0) continue;
    it(`${name} (${mine.length} cases)`, async () => {
      await rt.nd.leakCheck(async () => {
        for (const c of mine) {
          const made: NDArray[] = [];
          const label = `${name}(${JSON.stringify(c.args.map((a) => (a as { $a?: Enc } | null)?.$a?.shape ?? a))})`;
          try {
            const got = fnOf(name)(...decodeArgs(rt, c.args, made));
            const outs = Array.isArray(got) ? got : [got];
            made.push(...outs);
            if (c.check !== undefined) {
              try {
                await checkInvariants(c.check, made[0] as NDArray, outs, c.expect as Enc[]);
              } catch (e) {
                throw new Error(`${label}: ${(e as Error).message}`);
              }
            } else {
              const want = Array.isArray(c.expect) ? c.expect : [c.expect as Enc];
              expect(outs.length, label).toBe(want.length);
              for (let i = 0; i < want.length; i++) {
                const w = want[i] as Enc;
                const k = w.dtype === 'float32' ? Math.max(c.k ?? 1, 10) : (c.k ?? 1) * 100;
                await expectArray(outs[i] as NDArray, w, k, `${label} output ${i}`);
              }
            }
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
    expect(new Set(marked.map((c) => c.fn))).toEqual(
      new Set([
        'det',
        'slogdet',
        'inv',
        'solve',
        'cholesky',
        'norm',
        'tensorinv',
        'tensorsolve',
        'matrixPower',
        'multiDot',
      ]),
    );
    for (const c of marked) {
      const made: NDArray[] = [];
      const args = decodeArgs(rt, c.args, made);
      const arrays = made.slice();
      const pos = (a: unknown): number => arrays.indexOf(a as NDArray);
      const swap = (a: unknown, xs: NDArray[]): unknown =>
        Array.isArray(a) ? a.map((y) => swap(y, xs)) : pos(a) >= 0 ? xs[pos(a)] : a;
      const f = (...xs: NDArray[]): NDArray => {
        const r = fnOf(c.fn)(...args.map((a) => swap(a, xs)));
        if (!Array.isArray(r)) return r;
        (r[0] as NDArray).dispose(); // slogdet: the gradient is logabsdet's
        return r[1] as NDArray;
      };
      try {
        const worst = await gradCheck(rt, f, arrays);
        expect(worst, `${c.fn} ${JSON.stringify(c.args).slice(0, 160)}`).toBeLessThan(2e-6);
      } finally {
        for (const x of made) x.dispose();
      }
    }
  }, 120_000);

  it("multiDot's chain order is NumPy's (cheapest split)", () => {
    // NumPy's docstring example: A (10x100), B (100x5), C (5x50): (AB)C costs 7500, A(BC) 75000.
    expect(chainOrder([10, 100, 5, 50])[0]?.[2]).toBe(1);
    expect(chainOrder([50, 5, 100, 10])[0]?.[2]).toBe(0);
  });

  it('functions record the ops MXNet 2.0 records', () => {
    const a = rt.nd.array([
      [4, 1],
      [1, 3],
    ]);
    const x = a.asNpArray();
    const out = rt.dc.context(() => {
      rt.dc.setVariable(x, 'a');
      return np.linalg.det(np.linalg.inv(np.linalg.cholesky(x)));
    });
    const ops = rt.dc.getSymbol(out).indexed.nodes.map((n) => n.node.op?.name ?? 'null');
    expect(ops).toEqual(['null', '_npi_cholesky', '_linalg_inverse', '_linalg_det']);
    for (const v of [a, x, out]) v.dispose();
  });
});
