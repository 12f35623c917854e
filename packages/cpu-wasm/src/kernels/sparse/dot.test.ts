/**
 * The sparse dot family at the kernel level (no NDArray, no engine), against SciPy golden data
 * (tools/golden/sparse/dot.py): dot's computeEx for csr · dense, csrᵀ · dense (row_sparse and
 * dense), csr · row_sparse, dense · csr (csr and dense) and dense · csrᵀ with int64 and int32 aux
 * blocks; `_backward_dot` with a csr lhs or rhs; FullyConnected with csr data and its backward;
 * the same products split across a worker pool; the storage signatures served; and the refusals
 * of malformed CSR, mismatched shapes and dtypes.
 */
import { isMXNetError, type MXNetError } from '@mx/base';
import { OpReq, type SparseBlob, type SparseOutput, type TBlob } from '@mx/ops';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkerPool } from '../../threads/pool.js';
import { backwardDotServes, dotServes } from './dot.js';
import { SparseDotRunner } from './dot-run.js';
import { createSparseHarness, loadGolden } from './test-harness.js';

type F = 'float32' | 'float64';
interface CsrParts {
  name: string;
  dtype: F;
  shape: number[];
  data: number[];
  indices: number[];
  indptr: number[];
}
interface Rsp {
  shape: number[];
  indices: number[];
  data: number[];
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
type CsrRsp = CsrParts & {
  rhs: Rsp;
  rhsT: Rsp;
  out: number[];
  outT: number[];
  outTRsp: Rsp;
  ograd: number[];
  lhsGrad: number[];
  rhsGradRsp: Rsp;
};
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
  ddata: number[];
};
const golden = loadGolden<{ csr_dns: CsrDns[]; csr_rsp: CsrRsp[]; dns_csr: DnsCsr[]; fc: Fc[] }>(
  'sparse-dot.json',
);

// Fresh blocks are NaN so an output element the kernel never wrote fails the comparison.
const { backend, ctx, kernelOf, blob, read, output, ...h } = createSparseHarness({
  initialPages: 64,
  poisonFresh: true,
});
const csr = (c: CsrParts, aux: 'int64' | 'int32' = 'int64'): SparseBlob<number> =>
  h.csr(c.shape, c.dtype, c, aux);
const rsp = (r: Rsp, dtype: F, aux: 'int64' | 'int32' = 'int64'): SparseBlob<number> =>
  h.rsp(r.shape, dtype, r, aux);

const dot = kernelOf('dot');
const bdot = kernelOf('_backward_dot');
const attrs = (ta = false, tb = false, forward_stype: 'default' | 'csr' | 'row_sparse' | null = null) => ({
  transpose_a: ta,
  transpose_b: tb,
  forward_stype,
});
type Arg = TBlob<number> | SparseBlob<number>;
type Res = TBlob<number> | SparseOutput<number>;
const runDot = (a: Arg, b: Arg, out: Res, ta = false, tb = false, req: 1 | 3 = OpReq.write) =>
  dot.computeEx(attrs(ta, tb), ctx, [a, b], [req], [out]);

describe('dot(csr, dense) against SciPy', () => {
  it.each(golden.csr_dns)('$name', (c) => {
    for (const aux of ['int64', 'int32'] as const) {
      const a = csr(c, aux);
      const [m, k] = c.shape as [number, number];
      const n = c.rhsShape[1] as number;
      const out = blob([m, n], c.dtype);
      runDot(a, blob(c.rhsShape, c.dtype, c.rhs), out);
      expect(read(out)).toEqual(c.out);
      // csrᵀ · dense: MXNet's row_sparse (the used columns) and, with forward_stype default, dense.
      const rout = output('row_sparse', [k, n], c.dtype, aux);
      runDot(a, blob(c.rhsTShape, c.dtype, c.rhsT), rout, true);
      expect(rout.storageShape).toEqual([c.outTRsp.indices.length, n]);
      expect([read(rout.aux[0] as TBlob<number>), read(rout.data)]).toEqual([
        c.outTRsp.indices,
        c.outTRsp.data,
      ]);
      const dout = blob([k, n], c.dtype);
      runDot(a, blob(c.rhsTShape, c.dtype, c.rhsT), dout, true);
      expect(read(dout)).toEqual(c.outT);
    }
  });

  it('accumulates with req=add, and a 1-D rhs is a (k, 1) matrix', () => {
    const c = golden.csr_dns.find((x) =>
      x.name.startsWith('csr 4x5 density 0.3 · dense 5x3 float64'),
    ) as CsrDns;
    const out = blob([4, 3], 'float64', c.out);
    runDot(csr(c), blob(c.rhsShape, 'float64', c.rhs), out, false, false, OpReq.add);
    expect(read(out)).toEqual(c.out.map((v) => 2 * v));
    const col = [0, 1, 2, 3, 4].map((i) => c.rhs[i * 3] as number);
    const vec = blob([4], 'float64');
    runDot(csr(c), blob([5], 'float64', col), vec);
    expect(read(vec)).toEqual([0, 1, 2, 3].map((i) => c.out[i * 3]));
  });
});

describe('dot(csr, row_sparse) against SciPy', () => {
  it.each(golden.csr_rsp)('$name', (c) => {
    const a = csr(c, 'int32');
    const [m, k] = c.shape as [number, number];
    const n = c.rhs.shape[1] as number;
    const out = blob([m, n], c.dtype);
    runDot(a, rsp(c.rhs, c.dtype), out);
    expect(read(out)).toEqual(c.out);
    const rout = output('row_sparse', [k, n], c.dtype);
    runDot(a, rsp(c.rhsT, c.dtype, 'int32'), rout, true);
    expect([read(rout.aux[0] as TBlob<number>), read(rout.data)]).toEqual([
      c.outTRsp.indices,
      c.outTRsp.data,
    ]);
    // MXNet leaves csrᵀ · row_sparse → dense unimplemented; served here.
    const dout = blob([k, n], c.dtype);
    runDot(a, rsp(c.rhsT, c.dtype), dout, true);
    expect(read(dout)).toEqual(c.outT);
  });
});

describe('dot(dense, csr) against SciPy', () => {
  it.each(golden.dns_csr)('$name', (c) => {
    for (const aux of ['int64', 'int32'] as const) {
      const a = csr(c, aux);
      const [m, k] = c.shape as [number, number];
      const p = c.lhsShape[0] as number;
      const cout = output('csr', [p, k], c.dtype, aux);
      runDot(blob(c.lhsShape, c.dtype, c.lhs), a, cout);
      expect([
        read(cout.data),
        read(cout.aux[1] as TBlob<number>),
        read(cout.aux[0] as TBlob<number>),
      ]).toEqual([c.outCsr.data, c.outCsr.indices, c.outCsr.indptr]);
      const dout = blob([p, k], c.dtype);
      runDot(blob(c.lhsShape, c.dtype, c.lhs), a, dout);
      expect(read(dout)).toEqual(c.out);
      const tout = blob([p, m], c.dtype);
      runDot(blob(c.lhsTShape, c.dtype, c.lhsT), a, tout, false, true);
      expect(read(tout)).toEqual(c.outT);
    }
  });
});

describe('_backward_dot with csr operands', () => {
  it.each(golden.csr_dns.filter((c) => c.dtype === 'float32'))(
    '$name: d rhs = Aᵀ·dC (rsp), d lhs = dC·Bᵀ',
    (c) => {
      const [m, k] = c.shape as [number, number];
      const n = c.rhsShape[1] as number;
      const a = csr(c);
      const og = blob([m, n], c.dtype, c.rhsT);
      const gl = blob([m, k], c.dtype);
      const gr = output('row_sparse', [k, n], c.dtype);
      bdot.computeEx(
        attrs(),
        ctx,
        [og, a, blob(c.rhsShape, c.dtype, c.rhs)],
        [OpReq.write, OpReq.write],
        [gl, gr],
      );
      expect([read(gr.aux[0] as TBlob<number>), read(gr.data)]).toEqual([c.outTRsp.indices, c.outTRsp.data]);
      expect(read(gl)).toEqual(c.lhsGrad);
      // Only the rhs gradient (the csr's is not wanted): the lhs output is left alone.
      const untouched = blob([m, k], c.dtype);
      const grd = blob([k, n], c.dtype);
      bdot.computeEx(
        attrs(),
        ctx,
        [og, a, blob(c.rhsShape, c.dtype, c.rhs)],
        [OpReq.null, OpReq.write],
        [untouched, grd],
      );
      expect(read(grd)).toEqual(c.outT);
      expect(read(untouched).every(Number.isNaN)).toBe(true);
    },
  );

  it.each(golden.csr_rsp)(
    '$name: a row_sparse rhs — d rhs row_sparse, d lhs dense (the rhs densified)',
    (c) => {
      const [m, k] = c.shape as [number, number];
      const n = c.rhs.shape[1] as number;
      const gl = blob([m, k], c.dtype);
      const gr = output('row_sparse', [k, n], c.dtype);
      const og = blob([m, n], c.dtype, c.ograd);
      bdot.computeEx(attrs(), ctx, [og, csr(c), rsp(c.rhs, c.dtype)], [OpReq.write, OpReq.write], [gl, gr]);
      expect(read(gl)).toEqual(c.lhsGrad);
      expect([read(gr.aux[0] as TBlob<number>), read(gr.data)]).toEqual([
        c.rhsGradRsp.indices,
        c.rhsGradRsp.data,
      ]);
    },
  );

  it('with transpose_a: d rhs = A · dC (dense)', () => {
    const c = golden.csr_dns.find((x) => x.name.startsWith('csr 16x9 density 0.3')) as CsrDns;
    const [m, k] = c.shape as [number, number];
    const n = c.rhsShape[1] as number;
    // dot(A, C, transpose_a) has shape (k, n); its head gradient B (k, n) gives d C = A · B.
    const gr = blob([m, n], c.dtype);
    const gl = blob([m, k], c.dtype);
    bdot.computeEx(
      attrs(true),
      ctx,
      [blob(c.rhsShape, c.dtype, c.rhs), csr(c), blob(c.rhsTShape, c.dtype, c.rhsT)],
      [OpReq.null, OpReq.write],
      [gl, gr],
    );
    expect(read(gr)).toEqual(c.out);
  });

  it.each(golden.dns_csr.filter((c) => c.dtype === 'float64'))(
    '$name: d lhs = dC·op(A)ᵀ, d csr dense',
    (c) => {
      const [m, k] = c.shape as [number, number];
      const p = c.lhsShape[0] as number;
      const a = csr(c);
      const gl = blob([p, m], c.dtype);
      const gr = blob([m, k], c.dtype);
      // dot(X, A) with head gradient Y: d X = Y · Aᵀ, d A = Xᵀ · Y.
      const x = blob(c.lhsShape, c.dtype, c.lhs);
      bdot.computeEx(
        attrs(),
        ctx,
        [blob(c.lhsTShape, c.dtype, c.lhsT), x, a],
        [OpReq.write, OpReq.write],
        [gl, gr],
      );
      expect(read(gl)).toEqual(c.outT);
      expect(read(gr)).toEqual(c.rhsGrad);
      // dot(Y, A, transpose_b) with head gradient X: d Y = X · A.
      const gy = blob([p, k], c.dtype);
      bdot.computeEx(
        attrs(false, true),
        ctx,
        [x, blob(c.lhsTShape, c.dtype, c.lhsT), a],
        [OpReq.write, OpReq.null],
        [gy, gr],
      );
      expect(read(gy)).toEqual(c.out);
    },
  );
});

describe('FullyConnected with csr data against NumPy', () => {
  const fc = kernelOf('FullyConnected');
  const bfc = kernelOf('_backward_FullyConnected');
  it.each(golden.fc)('$name', (c) => {
    const [m, k] = c.shape as [number, number];
    const h = c.numHidden;
    const p = { num_hidden: h, no_bias: false, flatten: true };
    const w = blob([h, k], c.dtype, c.weight);
    const out = blob([m, h], c.dtype);
    fc.computeEx(p, ctx, [csr(c), w, blob([h], c.dtype, c.bias)], [OpReq.write], [out]);
    expect(read(out)).toEqual(c.out);
    const [dx, dw, db] = [blob([m, k], c.dtype), blob([h, k], c.dtype), blob([h], c.dtype)];
    const g = blob([m, h], c.dtype, c.ograd);
    bfc.computeEx(p, ctx, [g, csr(c), w], [OpReq.write, OpReq.write, OpReq.write], [dx, dw, db]);
    expect([read(dx), read(dw), read(db)]).toEqual([c.ddata, c.dweight, c.dbias]);
  });

  it('serves csr data with dense weight and bias only', () => {
    const serves = fc.computeExStorage as NonNullable<typeof fc.computeExStorage>;
    const p = { num_hidden: 2, no_bias: false, flatten: true };
    expect(serves(p, ['csr', 'default', 'default'], ['default'])).toBe(true);
    expect(serves(p, ['default', 'row_sparse', 'default'], ['default'])).toBe(false);
    expect(serves(p, ['csr', 'row_sparse', 'default'], ['default'])).toBe(false);
  });
});

describe('sparse dot on the worker pool', () => {
  let pool: WorkerPool;
  let runner: SparseDotRunner;
  beforeAll(async () => {
    pool = new WorkerPool(backend.runtime.memory, { workers: 1 });
    backend.runtime.threads = pool;
    runner = new SparseDotRunner(backend.runtime, { parallelWork: 0 });
    expect(await pool.online()).toBe(true);
  });
  afterAll(() => {
    backend.runtime.threads = null;
    pool.dispose();
  });

  it.each(golden.csr_dns.filter((c) => (c.shape[0] as number) >= 16))('$name: split across threads', (c) => {
    const a = runner.csr('dot', csr(c));
    const n = c.rhsShape[1] as number;
    const out = blob([a.rows, n], c.dtype);
    runner.csrDense(
      'dot',
      a,
      backend.runtime.address(blob(c.rhsShape, c.dtype, c.rhs)),
      0,
      backend.runtime.address(out),
      n,
      false,
    );
    expect(read(out)).toEqual(c.out);
    const rout = output('row_sparse', [a.cols, n], c.dtype);
    runner.csrTRsp('dot', a, backend.runtime.address(blob(c.rhsTShape, c.dtype, c.rhsT)), 0, n, rout);
    expect([read(rout.aux[0] as TBlob<number>), read(rout.data)]).toEqual([
      c.outTRsp.indices,
      c.outTRsp.data,
    ]);
    expect(pool.workerErrors).toEqual([]);
  });
});

describe('storage signatures served', () => {
  it('dot: MXNet’s FComputeEx cases (plus csrᵀ · rsp → dense), dense · dense only to a sparse forward_stype', () => {
    const p = (ta = false, tb = false) => attrs(ta, tb);
    expect(dotServes(p(), ['csr', 'default'], ['default'])).toBe(true);
    expect(dotServes(p(), ['csr', 'row_sparse'], ['default'])).toBe(true);
    expect(dotServes(p(true), ['csr', 'default'], ['row_sparse'])).toBe(true);
    expect(dotServes(p(true), ['csr', 'row_sparse'], ['default'])).toBe(true);
    expect(dotServes(p(), ['default', 'csr'], ['csr'])).toBe(true);
    expect(dotServes(p(false, true), ['default', 'csr'], ['default'])).toBe(true);
    expect(dotServes(p(), ['default', 'default'], ['csr'])).toBe(true);
    expect(dotServes(p(false, true), ['csr', 'default'], ['default'])).toBe(false);
    expect(dotServes(p(false, true), ['default', 'csr'], ['csr'])).toBe(false);
    expect(dotServes(p(), ['csr', 'csr'], ['default'])).toBe(false);
    expect(dotServes(p(), ['row_sparse', 'default'], ['default'])).toBe(false);
    expect(dotServes(p(), ['csr', 'default'], ['csr'])).toBe(false);
    expect(backwardDotServes(p(), ['default', 'csr', 'default'], ['default', 'row_sparse'])).toBe(true);
    expect(backwardDotServes(p(), ['row_sparse', 'csr', 'default'], ['default', 'row_sparse'])).toBe(false);
    expect(backwardDotServes(p(), ['default', 'default', 'csr'], ['default', 'default'])).toBe(true);
    expect(backwardDotServes(p(true), ['default', 'default', 'csr'], ['default', 'default'])).toBe(false);
  });
});

describe('bad input', () => {
  const c = golden.csr_dns.find((x) =>
    x.name.startsWith('csr 4x5 density 1.0 · dense 5x3 float32'),
  ) as CsrDns;
  const errorOf = (f: () => void): MXNetError => {
    try {
      f();
    } catch (e) {
      if (isMXNetError(e)) return e as MXNetError;
      throw e;
    }
    throw new Error('no error');
  };

  it('a column index out of range (also one that only wraps into range as int32) is an MXNetError', () => {
    for (const bad of [5, -1, 2 ** 32 + 1]) {
      const a = csr({ ...c, indices: c.indices.map((v, i) => (i === 3 ? bad : v)) });
      const e = errorOf(() => runDot(a, blob(c.rhsShape, c.dtype, c.rhs), blob([4, 3], c.dtype)));
      expect(e.message).toMatch(
        /malformed CSR operand of shape \(4, 5\): a column index is outside \[0, 5\)/,
      );
      expect(e.hint).toMatch(/checkFormat/);
    }
    const a = csr({ ...c, indices: c.indices.map((v, i) => (i === 0 ? 9 : v)) });
    expect(() =>
      runDot(a, blob([4, 2], c.dtype, [1, 2, 3, 4, 5, 6, 7, 8]), output('row_sparse', [5, 2], c.dtype), true),
    ).toThrow(/column index is outside/);
  });

  it('indptr out of order or past nnz is an MXNetError', () => {
    for (const indptr of [
      [0, 5, 3, 15, 20],
      [0, 5, 10, 15, 21],
    ]) {
      const a = csr({ ...c, indptr });
      expect(() => runDot(a, blob(c.rhsShape, c.dtype, c.rhs), blob([4, 3], c.dtype))).toThrow(
        /indptr is not non-decreasing from 0 to nnz = 20/,
      );
    }
  });

  it('mismatched shapes name both shapes; mixed dtypes are refused', () => {
    const e = errorOf(() => runDot(csr(c), blob([4, 3], c.dtype), blob([4, 3], c.dtype)));
    expect(e.message).toMatch(/columns \(5\) must match the rhs's first axis \(shapes \(4, 5\), \(4, 3\)\)/);
    expect(e.shapes).toEqual([
      [4, 5],
      [4, 3],
    ]);
    expect(() => runDot(blob([2, 3], 'float32'), csr(c), blob([2, 5], 'float32'))).toThrow(
      /lhs's last axis \(3\)/,
    );
    expect(() => runDot(csr(c), blob(c.rhsShape, 'float64', c.rhs), blob([4, 3], 'float32'))).toThrow(
      /one float dtype/,
    );
  });
});
