/**
 * The sparse reduce-and-select family through the runtime (`createSparseOps`, `nd._square_sum`,
 * `nd._contrib_getnnz`) against SciPy/NumPy golden data (tools/golden/sparse/reduce.py): result
 * values and OUTPUT STORAGE TYPES, int32 and int64 aux blocks, nnz = 0, fully dense and zero-size
 * inputs, which calls run a sparse kernel and which take the logged dense fallback (same values),
 * gradients through autograd, and the refusals (at the call, or when the kernel reads device
 * indices) — with no array leaked.
 */
import { type DTypeName, Env, isMXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { CSRNDArray, createRuntime, type NDArray, RowSparseNDArray } from '../index.js';
import { createSparseOps } from './namespace.js';
import { sparseGolden } from './test-util.js';

type V = number | string;
interface Parts {
  data: V[];
  indices: number[];
  indptr: number[];
}
interface CsrCase extends Parts {
  name: string;
  dtype: 'float32' | 'float64' | 'int32';
  shape: number[];
  dense: V[];
  sum0: V[];
  sum1: V[];
  sumAll: V[];
  mean0: V[] | null;
  mean1: V[] | null;
  normAll?: V[];
  norm0?: V[];
  norm1?: V[];
  getnnz: number[];
  getnnz0: number[];
  getnnz1: number[];
}
interface RetainCase {
  name: string;
  dtype: 'float32' | 'int32';
  shape: number[];
  dense: V[];
  data: V[];
  indices: number[];
  retain: number[];
  outIndices: number[];
  outData: V[];
  outDense: V[];
  ograd: V[];
  gradIndices: number[];
  gradData: V[];
}
interface SquareCase {
  name: string;
  dtype: 'float32' | 'float64';
  shape: number[];
  dense: V[];
  data: V[];
  indices: number[];
  axis0: V[];
  axis1: V[];
  keepIndices: number[];
  keepData: V[];
  ograd1: V[];
  grad1Data: V[];
}
interface SliceCase extends CsrCase {
  begin: (number | null)[];
  end: (number | null)[];
  outShape: number[];
  outDense: V[];
  out: Parts;
}
interface WhereCase {
  name: string;
  dtype: 'float32' | 'float64';
  shape: number[];
  cond: Parts & { dense: V[] };
  x: V[];
  y: V[];
  expected: V[];
}
const golden = sparseGolden<{
  csr: CsrCase[];
  getnnz: CsrCase[];
  rsp_norm: (CsrCase & { normAll: V[] })[];
  retain: RetainCase[];
  square_sum: SquareCase[];
  slice: SliceCase[];
  where: WhereCase[];
}>('sparse-reduce.json');

// Fallback logging on (the default), so the tests see which calls take it.
const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], env: new Env({}) });
const nd = rt.nd;
const sparse = createSparseOps(rt);
afterAll(() => rt.dispose());

const num = (v: V): number => (v === 'nan' ? Number.NaN : (v as number));
const nums = (a: readonly V[] | ArrayLike<number | bigint>): number[] =>
  Array.from(a as ArrayLike<V | bigint>, (v) => (typeof v === 'bigint' ? Number(v) : num(v)));
const HOST = { float32: Float32Array, float64: Float64Array, int32: Int32Array } as const;
const hostOf = (dtype: keyof typeof HOST, values: readonly V[]) => HOST[dtype].from(values.map(num));
/** int64 aux (BigInt64Array, the default) or int32 aux (Int32Array). */
const aux = (values: number[], int32: boolean) =>
  int32 ? Int32Array.from(values) : BigInt64Array.from(values, (v) => BigInt(v));

const csrOf = (c: { dtype: keyof typeof HOST; shape: number[] } & Parts, int32 = false) =>
  nd.sparse.csrMatrix(
    { data: hostOf(c.dtype, c.data), indices: aux(c.indices, int32), indptr: aux(c.indptr, int32) },
    { shape: c.shape, dtype: c.dtype },
  );
const rspOf = (
  c: { dtype: keyof typeof HOST; shape: number[]; data: V[]; indices: number[] },
  int32 = false,
) =>
  nd.sparse.rowSparseArray(
    { data: hostOf(c.dtype, c.data), indices: aux(c.indices, int32) },
    { shape: c.shape, dtype: c.dtype },
  );
const denseOf = (dtype: keyof typeof HOST, values: readonly V[], shape: number[]) =>
  nd.array(hostOf(dtype, values), { shape });

/** Ops without typed `nd.<op>` functions yet (the generated core-ops list predates them). */
const op1 = (name: string, inputs: NDArray[], params?: Record<string, unknown>) =>
  nd.invoke(name, inputs, params)[0] as NDArray;
const getnnz = (x: NDArray, params?: { axis?: number }) => op1('_contrib_getnnz', [x], params);
const squareSum = (x: NDArray, params?: { axis?: number; keepdims?: boolean }) =>
  op1('_square_sum', [x], params);

/** Fallback log texts emitted while running `body`, by operator name. */
function fallbacks(body: () => void): string[] {
  const spy = vi.spyOn(console, 'warn').mockImplementation(() => {});
  rt.fallbackLogged.clear();
  try {
    body();
    return spy.mock.calls.map((c) => /operator = (\S+)/.exec(String(c[0]))?.[1] ?? '?');
  } finally {
    spy.mockRestore();
  }
}

function errorOf(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    expect(isMXNetError(e)).toBe(true);
    return e as Error;
  }
  throw new Error('expected an MXNetError');
}

describe('sum / mean / norm / getnnz of CSR', () => {
  it.each(golden.csr.map((c, i) => [c.name, c, i] as const))('%s', async (_n, c, i) => {
    await nd.leakCheck(() =>
      nd.scopeSync(() => {
        const x = csrOf(c, i % 2 === 1);
        const logged = fallbacks(() => {
          for (const [axis, sum, mean] of [
            [0, c.sum0, c.mean0],
            [1, c.sum1, c.mean1],
          ] as const) {
            const s = sparse.sum(x, { axis });
            expect([s.stype, s.dtype, s.shape]).toEqual(['default', c.dtype, [c.shape[1 - axis]]]);
            expect(nums(s.dataSync())).toEqual(nums(sum));
            if (mean !== null) expect(nums(sparse.mean(x, { axis }).dataSync())).toEqual(nums(mean));
            if (c.norm0 !== undefined) {
              const r = sparse.norm(x, { axis });
              expect([r.stype, nums(r.dataSync())]).toEqual([
                'default',
                nums(axis === 0 ? c.norm0 : (c.norm1 as V[])),
              ]);
            }
            const n = getnnz(x, { axis });
            expect([n.dtype, nums(n.dataSync())]).toEqual(['int64', axis === 0 ? c.getnnz0 : c.getnnz1]);
          }
          if (c.normAll !== undefined) expect(nums(sparse.norm(x).dataSync())).toEqual(nums(c.normAll));
          expect(nums(getnnz(x).dataSync())).toEqual(c.getnnz);
        });
        // Every call above is one MXNet serves with a sparse kernel: no fallback.
        expect(logged).toEqual([]);
        // Over all axes sum takes the fallback, with the same value as the dense sum.
        const all = fallbacks(() => expect(nums(sparse.sum(x).dataSync())).toEqual(nums(c.sumAll)));
        expect(all).toEqual(['sum']);
      }),
    );
  });

  it.each(golden.getnnz)('getnnz counts stored zeros as SciPy: $name', (c) => {
    const x = csrOf(c);
    expect(nums(getnnz(x).dataSync())).toEqual(c.getnnz);
    expect(nums(getnnz(x, { axis: 0 }).dataSync())).toEqual(c.getnnz0);
    expect(nums(getnnz(x, { axis: 1 }).dataSync())).toEqual(c.getnnz1);
  });

  it('unserved signatures fall back (logged once) with the dense values', () => {
    const c = golden.csr.find((x) => x.name === 'csr (4, 5) density 0.3 float32') as CsrCase;
    const x = csrOf(c);
    const d = x.asDense();
    const pairs: [NDArray, NDArray][] = [];
    const logged = fallbacks(() => {
      pairs.push([sparse.mean(x, { axis: 1, keepdims: true }), nd.mean(d, { axis: 1, keepdims: true })]);
      pairs.push([sparse.sum(x, { axis: -1 }), nd.sum(d, { axis: -1 })]);
      pairs.push([sparse.norm(x, { ord: 1 }), nd.norm(d, { ord: 1 })]);
      pairs.push([nd.prod(x, { axis: 0 }), nd.prod(d, { axis: 0 })]);
    });
    expect(logged).toEqual(['mean', 'sum', 'norm', 'prod']);
    for (const [a, b] of pairs)
      expect([a.stype, nums(a.dataSync())]).toEqual(['default', nums(b.dataSync())]);
  });
});

describe('norm of row_sparse', () => {
  it.each(golden.rsp_norm)('$name', (c) => {
    const x = rspOf(c);
    const logged = fallbacks(() => expect(nums(sparse.norm(x).dataSync())).toEqual(nums(c.normAll)));
    expect(logged).toEqual([]);
  });
});

describe('sparse.retain', () => {
  it.each(golden.retain.map((c, i) => [c.name, c, i] as const))('%s', async (_n, c, i) => {
    await nd.leakCheck(() =>
      nd.scopeSync(() => {
        const x = rspOf(c, i % 2 === 0);
        const idxType: DTypeName = i % 3 === 0 ? 'float32' : i % 3 === 1 ? 'int64' : 'int32';
        const idx = nd.array(new Float64Array(c.retain), { dtype: idxType });
        const y = sparse.retain(x, idx);
        expect(y).toBeInstanceOf(RowSparseNDArray);
        const p = y.partsSync();
        expect([y.shape, y.dtype, nums(p.indices), nums(p.data)]).toEqual([
          c.shape,
          c.dtype,
          c.outIndices,
          nums(c.outData),
        ]);
        expect(nums(y.dataSync())).toEqual(nums(c.outDense));
        y.checkFormatSync();
      }),
    );
  });

  it.each(golden.retain.filter((c) => c.dtype === 'float32'))('gradient (row_sparse): $name', (c) => {
    const x = rspOf(c);
    x.attachGrad();
    const y = rt.autograd.record(() => sparse.retain(x, nd.array(c.retain)));
    y.backward(denseOf(c.dtype, c.ograd, c.shape));
    const g = x.grad as NDArray;
    const rowSize = c.shape.slice(1).reduce((a, b) => a * b, 1);
    const want = new Array<number>(c.dense.length).fill(0);
    c.gradIndices.forEach((r, j) => {
      for (let k = 0; k < rowSize; k++) want[r * rowSize + k] = num(c.gradData[j * rowSize + k] as V);
    });
    expect(nums(g.dataSync())).toEqual(want);
  });

  it('refuses indices outside [0, rows) when the kernel reads them; other arrays stay usable', () => {
    const c = golden.retain.find((x) => x.shape.length === 2 && x.indices.length > 0) as RetainCase;
    const x = rspOf(c);
    const y = sparse.retain(x, nd.array([0, 6]));
    expect(errorOf(() => y.partsSync()).message).toMatch(/index 6 at position 1 is outside \[0, 6\)/);
    expect(errorOf(() => sparse.retain(x, nd.array([0.5])).dataSync()).message).toMatch(/not an integer/);
    expect(nums(x.partsSync().indices)).toEqual(c.indices);
  });

  it('refuses dense or csr data at the call, allocating nothing', async () => {
    const d = nd.zeros([3, 2]);
    const idx = nd.array([0]);
    const before = nd.memory().arrays;
    expect(errorOf(() => sparse.retain(d as never, idx)).message).toMatch(
      /row_sparse data array and dense indices, got default data/,
    );
    expect(errorOf(() => op1('_sparse_retain', [d.tostype('csr'), idx])).message).toMatch(/got csr data/);
    expect(nd.memory().arrays).toBe(before + 1); // only the tostype('csr') temporary
  });
});

describe('_square_sum', () => {
  it.each(golden.square_sum.map((c, i) => [c.name, c, i] as const))('%s', (_n, c, i) => {
    const x = rspOf(c, i % 2 === 1);
    const logged = fallbacks(() => {
      const a0 = squareSum(x, { axis: 0 });
      const a1 = squareSum(x, { axis: 1 });
      const k = squareSum(x, { axis: 1, keepdims: true });
      expect([a0.stype, a1.stype, k.stype, k.shape]).toEqual([
        'default',
        'default',
        'row_sparse',
        [c.shape[0], 1],
      ]);
      expect([nums(a0.dataSync()), nums(a1.dataSync())]).toEqual([nums(c.axis0), nums(c.axis1)]);
      const p = (k as RowSparseNDArray).partsSync();
      expect([nums(p.indices), nums(p.data)]).toEqual([c.keepIndices, nums(c.keepData)]);
    });
    expect(logged).toEqual([]);
  });

  // Through `_backward_square_sum` directly: autograd's saved copy of a sparse input is dense for
  // now (Runtime.retain), so the recorded path is covered once that keeps the storage type.
  it.each(golden.square_sum)('gradient (row_sparse, on the stored rows): $name', (c) => {
    const x = rspOf(c);
    const og = denseOf(c.dtype, c.ograd1, [c.shape[0] as number]);
    const g = op1('_backward_square_sum', [og, x], { axis: 1 });
    expect(g).toBeInstanceOf(RowSparseNDArray);
    const p = (g as RowSparseNDArray).partsSync();
    expect([nums(p.indices), nums(p.data)]).toEqual([c.keepIndices, nums(c.grad1Data)]);
  });

  it('refuses dense input, axis other than 0/1 and 3-D input at the call', () => {
    const x = nd.sparse.rowSparseArray([Float32Array.of(1, 2), [1]], { shape: [3, 2] });
    expect(errorOf(() => squareSum(nd.zeros([3, 2]), { axis: 1 })).message).toMatch(
      /takes a row_sparse array/,
    );
    expect(errorOf(() => squareSum(x)).message).toMatch(/only supports axis=0 or 1/);
    const x3 = nd.sparse.zeros('row_sparse', [2, 2, 2]);
    expect(errorOf(() => squareSum(x3, { axis: 1 })).message).toMatch(/2-D row_sparse/);
  });
});

describe('slice of CSR', () => {
  it.each(golden.slice.map((c, i) => [c.name, c, i] as const))('%s', async (_n, c, i) => {
    await nd.leakCheck(() =>
      nd.scopeSync(() => {
        const x = csrOf(c, i % 2 === 1);
        let y: NDArray | undefined;
        const logged = fallbacks(() => {
          y = sparse.slice(x, { begin: c.begin, end: c.end });
        });
        expect(logged).toEqual([]);
        expect(y).toBeInstanceOf(CSRNDArray);
        const p = (y as CSRNDArray).partsSync();
        expect([y?.shape, nums(p.data), nums(p.indices), nums(p.indptr as ArrayLike<bigint>)]).toEqual([
          c.outShape,
          nums(c.out.data),
          c.out.indices,
          c.out.indptr,
        ]);
        (y as CSRNDArray).checkFormatSync();
        // MXNet's rule: a step of (1, 1) is not "trivial", so the dense fallback answers.
        if (c.begin.length === 2) {
          let z: NDArray | undefined;
          expect(
            fallbacks(() => (z = sparse.slice(x, { begin: c.begin, end: c.end, step: [1, 1] }))),
          ).toEqual(['slice']);
          expect([z?.stype, nums((z as NDArray).dataSync())]).toEqual(['default', nums(c.outDense)]);
        }
      }),
    );
  });

  it('bad bounds are MXNetErrors at the call', () => {
    const x = csrOf(golden.slice[0] as SliceCase);
    expect(errorOf(() => sparse.slice(x, { begin: [0, 0, 0], end: [1, 1, 1] })).message).toMatch(
      /Slicing axis exceeds data dimensions/,
    );
    expect(errorOf(() => sparse.slice(x, { begin: [0], end: [1], step: [0] })).message).toMatch(
      /cannot be 0/,
    );
    expect(errorOf(() => sparse.slice(x, { begin: [0, 1], end: [2] })).message).toMatch(/same length/);
  });
});

describe('where with a CSR condition', () => {
  it.each(golden.where.map((c, i) => [c.name, c, i] as const))('%s', (_n, c, i) => {
    const cond = csrOf({ dtype: c.dtype, shape: c.shape, ...c.cond }, i % 2 === 1);
    const x = denseOf(c.dtype, c.x, c.shape);
    const y = denseOf(c.dtype, c.y, c.shape);
    let out: NDArray | undefined;
    expect(fallbacks(() => (out = sparse.where(cond, x, y)))).toEqual([]);
    expect([out?.stype, nums((out as NDArray).dataSync())]).toEqual(['default', nums(c.expected)]);
    // A sparse x takes the fallback, with the same values.
    let f: NDArray | undefined;
    expect(fallbacks(() => (f = sparse.where(cond, x.tostype('csr'), y)))).toEqual(['where']);
    expect(nums((f as NDArray).dataSync())).toEqual(nums(c.expected));
  });
});

describe('arithmetic wrappers pick MXNet’s op', () => {
  const c = golden.csr.find((x) => x.name === 'csr (4, 5) density 0.3 float32') as CsrCase;
  const dense = nums(c.dense);

  it('equal shapes use elemwise_*, numbers the scalar ops (reversed for number − array, number / array)', () => {
    fallbacks(() => arithmetic());
  });
  const arithmetic = () => {
    const x = csrOf(c);
    expect(nums(sparse.add(x, x).dataSync())).toEqual(dense.map((v) => 2 * v));
    expect(nums(sparse.subtract(1, x).dataSync())).toEqual(dense.map((v) => 1 - v));
    expect(nums(sparse.subtract(x, 1).dataSync())).toEqual(dense.map((v) => v - 1));
    expect(nums(sparse.multiply(3, x).dataSync())).toEqual(dense.map((v) => 3 * v));
    expect(nums(sparse.divide(x, 2).dataSync())).toEqual(dense.map((v) => v / 2));
    expect(nums(sparse.divide(2, nd.full([2], 4)).dataSync())).toEqual([0.5, 0.5]);
    expect(errorOf(() => sparse.add(1, 2)).message).toMatch(/at least one NDArray/);
  };

  it('different shapes broadcast (MXNet: csr * a column vector)', () => {
    const x = csrOf(c);
    const col = nd.array([[1], [2], [3], [4]]);
    const cols = c.shape[1] as number;
    fallbacks(() =>
      expect(nums(sparse.multiply(x, col).dataSync())).toEqual(
        dense.map((v, k) => v * (Math.floor(k / cols) + 1)),
      ),
    );
  });

  it('the other wrappers reach their ops', () => fallbacks(() => others()));
  const others = () => {
    const x = csrOf(c);
    expect(nums(sparse.elemwiseSub(x, x).dataSync())).toEqual(dense.map(() => 0));
    expect(nums(sparse.addN(x, x, x).dataSync())).toEqual(dense.map((v) => 3 * v));
    const clipped = sparse.clip(x, { a_min: -0.5, a_max: 0.5 });
    expect([clipped.stype, nums(clipped.dataSync())]).toEqual([
      'csr',
      dense.map((v) => Math.min(Math.max(v, -0.5), 0.5)),
    ]);
    // A range without 0 would change the zeros: a dense result (MXNet's rule).
    const shifted = sparse.clip(x, { a_min: 0.25, a_max: 1 });
    expect([shifted.stype, nums(shifted.dataSync())]).toEqual([
      'default',
      dense.map((v) => Math.min(Math.max(v, 0.25), 1)),
    ]);
    const z = sparse.zerosLike(x);
    expect([z.shape, nums(z.dataSync())]).toEqual([c.shape, dense.map(() => 0)]);
    expect(sparse.castStorage(x.asDense(), 'csr')).toBeInstanceOf(CSRNDArray);
  };
});
