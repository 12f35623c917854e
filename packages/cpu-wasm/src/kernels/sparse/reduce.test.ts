/**
 * The sparse reduce-and-select kernels at the kernel level against SciPy/NumPy golden data
 * (tools/golden/sparse/reduce.py): sum/mean/norm/getnnz of CSR, norm of row_sparse, retain and
 * its gradient, _square_sum and its gradient, slice of CSR and where with a CSR condition — each
 * with int64 and int32 aux blocks, nnz = 0, fully dense and zero-size inputs — plus which storage
 * signatures the kernels serve (the rest take the dense fallback) and the run-time refusals.
 */
import { type DTypeName, isMXNetError } from '@mx/base';
import { OpReq } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { createSparseHarness, loadGolden, num } from './test-harness.js';

type V = number | string;
interface CsrCase {
  name: string;
  dtype: DTypeName;
  shape: number[];
  dense: V[];
  data: V[];
  indices: number[];
  indptr: number[];
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
interface RspCase {
  name: string;
  dtype: DTypeName;
  shape: number[];
  dense: V[];
  data: V[];
  indices: number[];
}
interface RetainCase extends RspCase {
  retain: number[];
  outIndices: number[];
  outData: V[];
  outDense: V[];
  ograd: V[];
  gradIndices: number[];
  gradData: V[];
}
interface SquareCase extends RspCase {
  axis0: V[];
  axis1: V[];
  keepIndices: number[];
  keepData: V[];
  ograd0: V[];
  grad0Data: V[];
  ograd1: V[];
  grad1Data: V[];
}
interface SliceCase extends CsrCase {
  begin: (number | null)[];
  end: (number | null)[];
  outShape: number[];
  outDense: V[];
  out: { data: V[]; indices: number[]; indptr: number[] };
}
interface WhereCase {
  name: string;
  dtype: DTypeName;
  shape: number[];
  cond: { dense: V[]; data: V[]; indices: number[]; indptr: number[] };
  x: V[];
  y: V[];
  expected: V[];
}
const golden = loadGolden<{
  csr: CsrCase[];
  getnnz: CsrCase[];
  rsp_norm: RspCase[];
  retain: RetainCase[];
  square_sum: SquareCase[];
  slice: SliceCase[];
  where: WhereCase[];
}>('sparse-reduce.json');

const h = createSparseHarness();
const nums = (a: V[]) => a.map(num);
/** Alternate the aux dtype across cases so both are exercised. */
const auxOf = (i: number): DTypeName => (i % 2 === 0 ? 'int64' : 'int32');
const errorOf = (f: () => void): unknown => {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
};

describe('sum / mean / norm / getnnz of CSR against NumPy and SciPy', () => {
  it.each(golden.csr.map((c, i) => [c.name, c, i] as const))('%s', (_n, c, i) => {
    for (const aux of [auxOf(i), auxOf(i + 1)]) {
      const x = h.csr(c.shape, c.dtype, c, aux);
      for (const [axis, sum, mean] of [
        [0, c.sum0, c.mean0],
        [1, c.sum1, c.mean1],
      ] as const) {
        const n = c.shape[1 - axis] as number;
        const y = h.blob([n], c.dtype);
        h.run('sum', { axis }, [x], [y]);
        expect(h.read(y)).toEqual(nums(sum));
        if (mean !== null) {
          const m = h.blob([n], c.dtype);
          h.run('mean', { axis }, [x], [m]);
          expect(h.read(m)).toEqual(nums(mean));
        }
        if (c.norm0 !== undefined) {
          const r = h.blob([n], c.dtype);
          h.run('norm', { axis }, [x], [r]);
          expect(h.read(r)).toEqual(nums(axis === 0 ? c.norm0 : (c.norm1 as V[])));
        }
        const counts = h.blob([n], 'int64');
        h.run('_contrib_getnnz', { axis }, [x], [counts]);
        expect(h.read(counts)).toEqual(axis === 0 ? c.getnnz0 : c.getnnz1);
      }
      if (c.normAll !== undefined) {
        const r = h.blob([1], c.dtype);
        h.run('norm', {}, [x], [r]);
        expect(h.read(r)).toEqual(nums(c.normAll));
      }
      const total = h.blob([1], 'int64');
      h.run('_contrib_getnnz', {}, [x], [total]);
      expect(h.read(total)).toEqual(c.getnnz);
    }
  });

  it.each(golden.getnnz)('getnnz counts stored zeros as SciPy does: $name', (c) => {
    const x = h.csr(c.shape, c.dtype, c);
    for (const [params, n, want] of [
      [{}, 1, c.getnnz],
      [{ axis: 0 }, c.shape[1], c.getnnz0],
      [{ axis: 1 }, c.shape[0], c.getnnz1],
    ] as const) {
      const y = h.blob([n as number], 'int64');
      h.run('_contrib_getnnz', params, [x], [y]);
      expect(h.read(y)).toEqual(want);
    }
  });

  it('sum with req=add accumulates into the dense output; int64 data sums in BigInt', () => {
    const c = golden.csr.find((x) => x.name === 'csr (4, 5) density 1.0 int32') as CsrCase;
    const y = h.blob([5], 'int32', nums(c.sum0));
    h.run('sum', { axis: 0 }, [h.csr(c.shape, 'int32', c)], [y], OpReq.add);
    expect(h.read(y)).toEqual(nums(c.sum0).map((v) => 2 * v));
    const big = h.csr([1, 2], 'int64', { data: [2 ** 40, 3], indices: [0, 1], indptr: [0, 2] });
    const s = h.blob([1], 'int64');
    h.run('sum', { axis: 1 }, [big], [s]);
    expect(h.read(s)).toEqual([2 ** 40 + 3]);
  });
});

describe('norm of row_sparse against NumPy', () => {
  it.each(golden.rsp_norm.map((c, i) => [c.name, c, i] as const))('%s', (_n, c, i) => {
    const x = h.rsp(c.shape, c.dtype, c, auxOf(i));
    const r = h.blob([1], c.dtype);
    h.run('norm', {}, [x], [r]);
    expect(h.read(r)).toEqual(nums((c as RspCase & { normAll: V[] }).normAll));
  });
});

describe('sparse.retain and its gradient', () => {
  it.each(golden.retain.map((c, i) => [c.name, c, i] as const))('%s', (_n, c, i) => {
    const x = h.rsp(c.shape, c.dtype, c, auxOf(i));
    // Index arrays come as any dtype (MXNet's nd.array default is float32).
    const idxType: DTypeName = i % 3 === 0 ? 'float32' : i % 3 === 1 ? 'int64' : 'int32';
    const idx = h.blob([c.retain.length], idxType, c.retain);
    const out = h.output('row_sparse', c.shape, c.dtype, auxOf(i + 1));
    h.run('_sparse_retain', {}, [x, idx], [out]);
    expect([h.read(out.aux[0] as never), h.read(out.data)]).toEqual([c.outIndices, nums(c.outData)]);
    const grad = h.output('row_sparse', c.shape, c.dtype);
    h.run('_backward_sparse_retain', {}, [h.blob(c.shape, c.dtype, c.ograd), idx], [grad]);
    expect([h.read(grad.aux[0] as never), h.read(grad.data)]).toEqual([c.gradIndices, nums(c.gradData)]);
  });

  it('a row_sparse head gradient gives its rows at the indices (zero rows where it stores none)', () => {
    const og = h.rsp([4, 2], 'float32', { data: [1, 2, 3, 4], indices: [1, 3] });
    const grad = h.output('row_sparse', [4, 2], 'float32');
    h.run('_backward_sparse_retain', {}, [og, h.blob([3], 'int32', [0, 1, 3])], [grad]);
    expect([h.read(grad.aux[0] as never), h.read(grad.data)]).toEqual([
      [0, 1, 3],
      [0, 0, 1, 2, 3, 4],
    ]);
  });

  it('refuses indices outside [0, rows) and non-integers, before allocating anything', () => {
    const c = golden.retain.find((x) => x.shape.length === 2 && x.indices.length > 0) as RetainCase;
    const x = h.rsp(c.shape, c.dtype, c);
    for (const [bad, why] of [
      [[0, c.shape[0] as number], /index 6 at position 1 is outside \[0, 6\)/],
      [[-1], /index -1 at position 0 is outside/],
      [[1.5], /index 1.5 at position 0 is not an integer/],
    ] as const) {
      const out = h.output('row_sparse', c.shape, c.dtype);
      const err = errorOf(() =>
        h.run('_sparse_retain', {}, [x, h.blob([bad.length], 'float32', bad)], [out]),
      );
      expect(isMXNetError(err) && why.test((err as Error).message)).toBe(true);
      expect(out.allocated).toBe(false);
    }
  });
});

describe('_square_sum and its gradient against NumPy', () => {
  it.each(golden.square_sum.map((c, i) => [c.name, c, i] as const))('%s', (_n, c, i) => {
    const x = h.rsp(c.shape, c.dtype, c, auxOf(i));
    const [rows, cols] = c.shape as [number, number];
    const a0 = h.blob([cols], c.dtype);
    h.run('_square_sum', { axis: 0 }, [x], [a0]);
    expect(h.read(a0)).toEqual(nums(c.axis0));
    const a1 = h.blob([rows], c.dtype);
    h.run('_square_sum', { axis: 1 }, [x], [a1]);
    expect(h.read(a1)).toEqual(nums(c.axis1));
    const keep = h.output('row_sparse', [rows, 1], c.dtype);
    h.run('_square_sum', { axis: 1, keepdims: true }, [x], [keep]);
    expect([h.read(keep.aux[0] as never), h.read(keep.data)]).toEqual([c.keepIndices, nums(c.keepData)]);
    for (const [axis, og, want] of [
      [0, c.ograd0, c.grad0Data],
      [1, c.ograd1, c.grad1Data],
    ] as const) {
      const g = h.output('row_sparse', c.shape, c.dtype);
      h.run('_backward_square_sum', { axis }, [h.blob([og.length], c.dtype, og), x], [g]);
      expect([h.read(g.aux[0] as never), h.read(g.data)]).toEqual([c.keepIndices, nums(want)]);
    }
  });

  it('a row_sparse head gradient (axis 1, keepdims) is read at the input’s rows', () => {
    const x = h.rsp([3, 2], 'float32', { data: [1, 2, 3, 4], indices: [0, 2] });
    const og = h.rsp([3, 1], 'float32', { data: [5, 7], indices: [0, 2] });
    const g = h.output('row_sparse', [3, 2], 'float32');
    h.run('_backward_square_sum', { axis: 1, keepdims: true }, [og, x], [g]);
    expect([h.read(g.aux[0] as never), h.read(g.data)]).toEqual([
      [0, 2],
      [10, 20, 42, 56],
    ]);
  });
});

describe('slice of CSR against SciPy', () => {
  it.each(golden.slice.map((c, i) => [c.name, c, i] as const))('%s', (_n, c, i) => {
    const x = h.csr(c.shape, c.dtype, c, auxOf(i));
    const out = h.output('csr', c.outShape, c.dtype, auxOf(i + 1));
    h.run('slice', { begin: c.begin, end: c.end }, [x], [out]);
    expect([h.read(out.data), h.read(out.aux[1] as never), h.read(out.aux[0] as never)]).toEqual([
      nums(c.out.data),
      c.out.indices,
      c.out.indptr,
    ]);
  });
});

describe('where with a CSR condition against NumPy', () => {
  it.each(golden.where.map((c, i) => [c.name, c, i] as const))('%s', (_n, c, i) => {
    const out = h.blob(c.shape, c.dtype);
    const cond = h.csr(c.shape, c.dtype, c.cond, auxOf(i));
    h.run('where', {}, [cond, h.blob(c.shape, c.dtype, c.x), h.blob(c.shape, c.dtype, c.y)], [out]);
    expect(h.read(out)).toEqual(nums(c.expected));
  });
});

describe('storage signatures served (MXNet’s FComputeEx<cpu> rules); the rest fall back', () => {
  it('sum/mean: csr over axis 0 or 1 without keepdims/exclude', () => {
    for (const op of ['sum', 'mean']) {
      expect(h.served(op, { axis: 0 }, ['csr'], ['default'])).toBe(true);
      expect(h.served(op, { axis: [1] }, ['csr'], ['default'])).toBe(true);
      expect(h.served(op, {}, ['csr'], ['default'])).toBe(false);
      expect(h.served(op, { axis: -1 }, ['csr'], ['default'])).toBe(false);
      expect(h.served(op, { axis: 0, keepdims: true }, ['csr'], ['default'])).toBe(false);
      expect(h.served(op, { axis: 0, exclude: true }, ['csr'], ['default'])).toBe(false);
      expect(h.served(op, { axis: 0 }, ['row_sparse'], ['default'])).toBe(false);
    }
  });

  it('norm: ord 2 of csr/row_sparse over all axes, of csr over axis 0 or 1 without keepdims', () => {
    expect(h.served('norm', {}, ['row_sparse'], ['default'])).toBe(true);
    expect(h.served('norm', { keepdims: true }, ['csr'], ['default'])).toBe(true);
    expect(h.served('norm', { axis: 1 }, ['csr'], ['default'])).toBe(true);
    expect(h.served('norm', { axis: 1 }, ['row_sparse'], ['default'])).toBe(false);
    expect(h.served('norm', { axis: 1, keepdims: true }, ['csr'], ['default'])).toBe(false);
    expect(h.served('norm', { ord: 1 }, ['csr'], ['default'])).toBe(false);
  });

  it('slice serves csr → csr only; where serves (csr, dense, dense) only', () => {
    expect(h.served('slice', { begin: [0], end: [1] }, ['csr'], ['csr'])).toBe(true);
    expect(h.served('slice', { begin: [0], end: [1], step: [2] }, ['csr'], ['default'])).toBe(false);
    expect(h.served('where', {}, ['csr', 'default', 'default'], ['default'])).toBe(true);
    expect(h.served('where', {}, ['default', 'csr', 'default'], ['default'])).toBe(false);
    expect(h.served('where', {}, ['csr', 'csr', 'default'], ['default'])).toBe(false);
  });

  it('the dense kernels are kept beside the sparse ones', () => {
    for (const op of ['sum', 'mean', 'norm', 'slice', 'where'])
      expect(h.registry.kernel(h.registry.get(op), 'cpu-wasm')?.compute).toBeTypeOf('function');
  });
});

describe('run-time refusals', () => {
  it('a malformed indptr or out-of-range column is an MXNetError, not an out-of-bounds read', () => {
    const bad = h.csr([2, 3], 'float32', { data: [1, 2], indices: [0, 1], indptr: [0, 3, 2] });
    const err = errorOf(() => h.run('sum', { axis: 1 }, [bad], [h.blob([2], 'float32')]));
    expect(isMXNetError(err) && /malformed CSR: indptr\[1\] = 3/.test((err as Error).message)).toBe(true);
    const col = h.csr([2, 3], 'float32', { data: [1, 2], indices: [0, 7], indptr: [0, 1, 2] });
    expect(() => h.run('sum', { axis: 0 }, [col], [h.blob([3], 'float32')])).toThrow(
      /7 at position 1 is outside \[0, 3\)/,
    );
    expect(() =>
      h.run('slice', { begin: [0], end: [2] }, [col], [h.output('csr', [2, 3], 'float32')]),
    ).toThrow(/outside \[0, 3\)/);
  });

  it('sparse outputs refuse req=add', () => {
    const x = h.rsp([2, 2], 'float32', { data: [1, 2], indices: [1] });
    const out = h.output('row_sparse', [2, 1], 'float32');
    expect(() => h.run('_square_sum', { axis: 1, keepdims: true }, [x], [out], OpReq.add)).toThrow(
      /cannot add into a sparse output/,
    );
    expect(() =>
      h.run(
        '_sparse_retain',
        {},
        [x, h.blob([1], 'int32', [0])],
        [h.output('row_sparse', [2, 2], 'float32')],
        OpReq.add,
      ),
    ).toThrow(/only supports req=write/);
  });
});
