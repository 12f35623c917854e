/**
 * Sparse `dot` and FullyConnected with csr data through the runtime (CpuWasmBackend), against SciPy
 * golden data (tools/golden/sparse/dot.py): output array classes and storage types by MXNet's
 * rules (csr · dense → dense, csrᵀ · dense → row_sparse, dense · csr → csr, `forward_stype`, the
 * logged fallback of dense · csrᵀ to csr), values and parts, nnz = 0, autograd (the gradient of a
 * dense rhs is row_sparse, as MXNet's `_backward_dot` gives it), and shape errors at the call.
 */
import { Env, isMXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { CSRNDArray, createRuntime, type NDArray, RowSparseNDArray } from '../index.js';
import { sparseGolden } from './test-util.js';

type F = 'float32' | 'float64';
interface CsrParts {
  name: string;
  dtype: F;
  shape: number[];
  data: number[];
  indices: number[];
  indptr: number[];
}
type CsrDns = CsrParts & {
  rhs: number[];
  rhsShape: number[];
  out: number[];
  rhsT: number[];
  rhsTShape: number[];
  outT: number[];
  outTRsp: { indices: number[]; data: number[] };
  lhsGrad: number[];
};
interface Rsp {
  shape: number[];
  indices: number[];
  data: number[];
}
type CsrRsp = CsrParts & { rhs: Rsp; rhsT: Rsp; out: number[]; outT: number[]; outTRsp: Rsp };
type DnsCsr = CsrParts & {
  lhs: number[];
  lhsShape: number[];
  out: number[];
  outCsr: { data: number[]; indices: number[]; indptr: number[] };
  lhsT: number[];
  lhsTShape: number[];
  outT: number[];
  rhsGrad: number[];
};
type Fc = CsrParts & {
  numHidden: number;
  weight: number[];
  bias: number[];
  ograd: number[];
  out: number[];
  dweight: number[];
  dbias: number[];
};
const golden = sparseGolden<{ csr_dns: CsrDns[]; csr_rsp: CsrRsp[]; dns_csr: DnsCsr[]; fc: Fc[] }>(
  'sparse-dot.json',
);

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], env: new Env({}) });
const nd = rt.nd;
afterAll(() => rt.dispose());
const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
afterEach(() => warn.mockClear());
/** The operators of the storage fallbacks logged since the test began. */
const fallbacks = () => warn.mock.calls.map((c) => /operator = (\S+)/.exec(String(c[0]))?.[1]);

const nums = (a: ArrayLike<number | bigint> | undefined) => Array.from(a ?? [], Number);
const typed = (dtype: F, v: number[]) => (dtype === 'float32' ? Float32Array.from(v) : Float64Array.from(v));
const dense = (dtype: F, v: number[], shape: number[]) => nd.array(typed(dtype, v), { shape });
const csrOf = (c: CsrParts, aux: 'int64' | 'int32' = 'int64') =>
  nd.sparse.csrMatrix(
    [typed(c.dtype, c.data), aux === 'int32' ? Int32Array.from(c.indices) : c.indices, c.indptr] as never,
    { shape: c.shape, dtype: c.dtype },
  );
const find = <T extends { name: string }>(cases: T[], prefix: string): T => {
  const c = cases.find((x) => x.name.startsWith(prefix));
  if (c === undefined) throw new Error(`no golden case ${prefix}`);
  return c;
};

describe('nd.dot with a csr lhs', () => {
  it.each(golden.csr_dns.filter((c) => c.shape[0] !== 0 || c.dtype === 'float32'))('$name', async (c) => {
    await nd.leakCheck(async () => {
      const a = csrOf(c, c.dtype === 'float64' ? 'int32' : 'int64');
      const b = dense(c.dtype, c.rhs, c.rhsShape);
      const y = nd.dot(a, b);
      expect([y.stype, y.shape, y.dtype]).toEqual(['default', [c.shape[0], c.rhsShape[1]], c.dtype]);
      expect(nums(await y.data())).toEqual(c.out);
      const ct = dense(c.dtype, c.rhsT, c.rhsTShape);
      const r = nd.dot(a, ct, { transpose_a: true });
      expect(r instanceof RowSparseNDArray).toBe(true);
      const p = await (r as RowSparseNDArray).parts();
      expect([nums(p.indices), nums(p.data), p.storageShape]).toEqual([
        c.outTRsp.indices,
        c.outTRsp.data,
        [c.outTRsp.indices.length, c.rhsTShape[1]],
      ]);
      expect(nums(await r.data())).toEqual(c.outT);
      const d = nd.dot(a, ct, { transpose_a: true, forward_stype: 'default' });
      expect([d.stype, nums(await d.data())]).toEqual(['default', c.outT]);
      for (const x of [a, b, y, ct, r, d]) x.dispose();
    });
    expect(fallbacks()).toEqual([]);
  });

  it.each(golden.csr_rsp)('$name', async (c) => {
    const a = csrOf(c);
    const rhs = nd.sparse.rowSparseArray([typed(c.dtype, c.rhs.data), c.rhs.indices] as never, {
      shape: c.rhs.shape,
      dtype: c.dtype,
    });
    const y = nd.dot(a, rhs);
    expect([y.stype, nums(await y.data())]).toEqual(['default', c.out]);
    const rhsT = nd.sparse.rowSparseArray([typed(c.dtype, c.rhsT.data), c.rhsT.indices] as never, {
      shape: c.rhsT.shape,
      dtype: c.dtype,
    });
    const r = nd.dot(a, rhsT, { transpose_a: true }) as RowSparseNDArray;
    expect(r.stype).toBe('row_sparse');
    const p = r.partsSync();
    expect([nums(p.indices), nums(p.data)]).toEqual([c.outTRsp.indices, c.outTRsp.data]);
    for (const x of [a, rhs, y, rhsT, r]) x.dispose();
    expect(fallbacks()).toEqual([]);
  });

  it('csr with nnz = 0: a zero product, and a row_sparse result with no rows', async () => {
    const a = nd.sparse.zeros('csr', [4, 5]);
    const b = nd.ones([5, 3]);
    const y = nd.dot(a, b);
    expect([y.stype, nums(await y.data())]).toEqual(['default', new Array(12).fill(0)]);
    const r = nd.dot(a, nd.ones([4, 3]), { transpose_a: true }) as RowSparseNDArray;
    expect([r.stype, r.partsSync().storageShape, nums(r.dataSync())]).toEqual([
      'row_sparse',
      [0, 3],
      new Array(15).fill(0),
    ]);
  });
});

describe('nd.dot with a csr rhs', () => {
  it.each(golden.dns_csr)('$name', async (c) => {
    const a = csrOf(c);
    const x = dense(c.dtype, c.lhs, c.lhsShape);
    const y = nd.dot(x, a);
    expect(y instanceof CSRNDArray).toBe(true);
    const p = await (y as CSRNDArray).parts();
    expect([nums(p.data), nums(p.indices), nums(p.indptr)]).toEqual([
      c.outCsr.data,
      c.outCsr.indices,
      c.outCsr.indptr,
    ]);
    expect(nums(await y.data())).toEqual(c.out);
    const d = nd.dot(x, a, { forward_stype: 'default' });
    expect([d.stype, nums(await d.data())]).toEqual(['default', c.out]);
    const xt = dense(c.dtype, c.lhsT, c.lhsTShape);
    const t = nd.dot(xt, a, { transpose_b: true, forward_stype: 'default' });
    expect([t.stype, nums(await t.data())]).toEqual(['default', c.outT]);
    for (const z of [a, x, y, d, xt, t]) z.dispose();
    expect(fallbacks()).toEqual([]);
  });

  it('dense · csrᵀ without forward_stype is MXNet’s logged fallback, to csr', async () => {
    const c = find(golden.dns_csr, 'dense 3x5 · csr 5x7 density 0.3 float32');
    const y = nd.dot(dense(c.dtype, c.lhsT, c.lhsTShape), csrOf(c), { transpose_b: true });
    expect(y instanceof CSRNDArray).toBe(true);
    expect(nums(await y.data())).toEqual(c.outT);
    expect(fallbacks()).toContain('dot');
  });
});

describe('forward_stype with dense operands', () => {
  it('gives the requested sparse storage (MXNet’s fallback output), with the dense values', async () => {
    const c = find(golden.csr_dns, 'csr 7x3 density 1.0 · dense 3x37 float64');
    const a = dense(c.dtype, nums(csrOf(c).dataSync()), c.shape);
    const b = dense(c.dtype, c.rhs, c.rhsShape);
    const y = nd.dot(a, b, { forward_stype: 'csr' });
    expect([y.stype, nums(await y.data())]).toEqual(['csr', c.out]);
    const r = nd.dot(a, b, { forward_stype: 'row_sparse' });
    expect([r.stype, nums(await r.data())]).toEqual(['row_sparse', c.out]);
    expect(nd.dot(a, b, { forward_stype: 'default' }).stype).toBe('default');
    expect(fallbacks()).toEqual([]);
  });

  it('a hint no sparse kernel serves is MXNet’s logged fallback, still in the hinted storage', async () => {
    const c = find(golden.csr_dns, 'csr 16x9 density 0.3 · dense 9x64 float32');
    const y = nd.dot(csrOf(c), dense(c.dtype, c.rhs, c.rhsShape), { forward_stype: 'row_sparse' });
    expect([y.stype, nums(await y.data())]).toEqual(['row_sparse', c.out]);
    expect(fallbacks()).toEqual(['dot']);
  });
});

describe('autograd through sparse dot', () => {
  it.each(golden.csr_dns.filter((c) => c.dtype === 'float32' && c.shape[0] !== 0))(
    '$name: the dense rhs gets a row_sparse gradient Aᵀ·dC; .grad (dense) the same values',
    async (c) => {
      const a = csrOf(c);
      const w = dense(c.dtype, c.rhs, c.rhsShape).attachGrad();
      const head = dense(c.dtype, c.rhsT, c.rhsTShape);
      const y = rt.autograd.record(() => nd.dot(a, w));
      const [g] = rt.autograd.grad(y, w, { headGrads: [head], retainGraph: true });
      // (Fails while autograd saves a sparse input as a dense view: Runtime.retain must keep the
      // array's class, e.g. by `a.detach()`.)
      expect(g instanceof RowSparseNDArray, 'the rhs gradient of dot(csr, dense) is row_sparse').toBe(true);
      const p = (g as RowSparseNDArray).partsSync();
      expect([nums(p.indices), nums(p.data)]).toEqual([c.outTRsp.indices, c.outTRsp.data]);
      y.backward(head);
      expect(nums(await (w.grad as NDArray).data())).toEqual(c.outT);
      expect(fallbacks()).toEqual([]);
    },
  );

  it('a dense lhs times a csr rhs: the lhs gradient is dense dC · csrᵀ', async () => {
    const c = find(golden.dns_csr, 'dense 6x9 · csr 9x13 density 0.3 float64');
    const x = dense(c.dtype, c.lhs, c.lhsShape).attachGrad();
    const y = rt.autograd.record(() => nd.dot(x, csrOf(c), { forward_stype: 'default' }));
    const [g] = rt.autograd.grad(y, x, { headGrads: [dense(c.dtype, c.lhsT, c.lhsTShape)] });
    expect(g?.stype).toBe('default');
    expect(nums(await (g as NDArray).data())).toEqual(c.outT);
    expect(fallbacks()).toEqual([]);
  });
});

describe('FullyConnected with csr data', () => {
  it.each(golden.fc.filter((c) => c.shape[0] !== 0))('$name: dense output, weight gradient', async (c) => {
    const [m, k] = c.shape as [number, number];
    const h = c.numHidden;
    const data = csrOf(c);
    const w = dense(c.dtype, c.weight, [h, k]).attachGrad();
    const b = dense(c.dtype, c.bias, [h]).attachGrad();
    const y = rt.autograd.record(() => nd.FullyConnected(data, w, b, { num_hidden: h }));
    expect([y.stype, y.shape]).toEqual(['default', [m, h]]);
    expect(nums(await y.data())).toEqual(c.out);
    y.backward(dense(c.dtype, c.ograd, [m, h]));
    expect(nums(await (w.grad as NDArray).data())).toEqual(c.dweight);
    expect(nums(await (b.grad as NDArray).data())).toEqual(c.dbias);
    // Served natively: no densified csr data.
    expect(fallbacks()).toEqual([]);
  });
});

describe('bad input', () => {
  it('mismatched shapes and dtypes are MXNetErrors at the call naming the shapes; nothing is left', async () => {
    const c = find(golden.csr_dns, 'csr 4x5 density 0.3 · dense 5x3 float32');
    const a = csrOf(c);
    const b = nd.ones([4, 3]);
    const b64 = nd.ones([5, 3], { dtype: 'float64' });
    await nd.leakCheck(() => {
      let err: unknown;
      try {
        nd.dot(a, b);
      } catch (e) {
        err = e;
      }
      expect(isMXNetError(err)).toBe(true);
      expect((err as Error).message).toMatch(/contracted sizes 5 and 4 differ/);
      expect((err as Error).message).toMatch(/\(4, ?5\)[\s\S]*\(4, ?3\)/);
      expect(() => nd.dot(b, a, { transpose_b: true })).toThrow(/contracted sizes 3 and 5 differ/);
      expect(() => nd.dot(a, b64)).toThrow(/float64/);
    });
    for (const x of [a, b, b64]) x.dispose();
  });
});
