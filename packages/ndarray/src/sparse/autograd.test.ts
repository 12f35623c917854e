/**
 * Sparse gradients through autograd, on the runtime over CpuWasmBackend, against PyTorch
 * (tools/golden/sparse/embedding.py, the coalesced sparse gradient of F.embedding(sparse=True)):
 * `attachGrad({ stype })`, Embedding with sparse_grad giving a row_sparse `.grad` without a storage
 * fallback, the buffer's storage type kept on write (casts both ways), accumulation with gradReq
 * 'add' and two uses in one graph, `autograd.grad`, and the refusals (bad options, out-of-bound
 * indices, csr/row_sparse mismatches) leaving the earlier state in place.
 */
import { Env } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createRuntime, type NDArray, RowSparseNDArray } from '../index.js';
import { sparseGolden } from './test-util.js';

interface Case {
  name: string;
  dtype: 'float32' | 'float64';
  input_dim: number;
  output_dim: number;
  data_shape: number[];
  idx: number[];
  ograd: number[];
  indices: number[];
  data: number[];
  dense: number[];
}
const golden = sparseGolden<{ backward: Case[] }>('sparse-embedding.json');
const byName = (n: string) => golden.backward.find((c) => c.name === n) as Case;
const pairA = byName('pair A float32');
const pairB = byName('pair B float32');

// Fallback logging on: the sparse Embedding gradient must not fall back.
const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], env: new Env({}) });
const nd = rt.nd;
afterAll(() => rt.dispose());

const nums = (a: ArrayLike<number | bigint> | undefined) => Array.from(a ?? [], Number);
const close = (got: readonly number[], want: readonly number[]) => {
  expect(got.length).toBe(want.length);
  got.forEach((v, i) => {
    expect(v).toBeCloseTo(want[i] as number, 5);
  });
};
/** Rows of a dense (rows x width) matrix holding a nonzero. */
const nonzeroRows = (dense: readonly number[], width: number) =>
  Array.from({ length: dense.length / width }, (_, r) => r).filter((r) =>
    dense.slice(r * width, (r + 1) * width).some((v) => v !== 0),
  );

function inputs(c: Case) {
  const x = nd.array(c.idx, { shape: c.data_shape, dtype: 'float32' });
  const w = nd.zeros([c.input_dim, c.output_dim], { dtype: c.dtype });
  const og = nd.array(c.ograd, { shape: [...c.data_shape, c.output_dim], dtype: c.dtype });
  return { x, w, og };
}

function embed(c: Case, x: NDArray, w: NDArray, sparseGrad = true): NDArray {
  return nd.Embedding(x, w, {
    input_dim: c.input_dim,
    output_dim: c.output_dim,
    dtype: c.dtype,
    sparse_grad: sparseGrad,
  });
}

describe('Embedding with sparse_grad: a row_sparse gradient equal to PyTorch coalesced one', () => {
  it.each(golden.backward)('$name', async (c) => {
    const warn = vi.spyOn(console, 'warn');
    await nd.leakCheck(async () => {
      const { x, w, og } = inputs(c);
      w.attachGrad({ stype: 'row_sparse' });
      const y = rt.autograd.record(() => embed(c, x, w));
      y.backward(og);
      const g = w.grad as NDArray;
      expect(g).toBeInstanceOf(RowSparseNDArray);
      const p = await (g as RowSparseNDArray).parts();
      expect(nums(p.indices)).toEqual(c.indices);
      expect(p.storageShape).toEqual([c.indices.length, c.output_dim]);
      close(nums(p.data), c.data);
      close(nums(await g.data()), c.dense);
      expect(rt.autograd.isFreshGrad(w)).toBe(true);
      for (const a of [x, w, og, y]) a.dispose();
    });
    expect(warn.mock.calls.filter((a) => String(a[0]).includes('Storage type fallback'))).toEqual([]);
    warn.mockRestore();
  });

  it('into a dense buffer (attachGrad() default): the row_sparse gradient is densified', async () => {
    const c = byName('2-D batch x seq float64');
    const { x, w, og } = inputs(c);
    w.attachGrad();
    rt.autograd.record(() => embed(c, x, w)).backward(og);
    expect(w.grad?.stype).toBe('default');
    close(nums(await (w.grad as NDArray).data()), c.dense);
  });

  it('a dense gradient (sparse_grad false) into a row_sparse buffer is cast: the rows holding a nonzero', async () => {
    const c = byName('1-D with repeats float32');
    const { x, w, og } = inputs(c);
    w.attachGrad({ stype: 'row_sparse' });
    rt.autograd.record(() => embed(c, x, w, false)).backward(og);
    const p = await (w.grad as RowSparseNDArray).parts();
    expect(nums(p.indices)).toEqual(nonzeroRows(c.dense, c.output_dim));
    close(nums(await (w.grad as NDArray).data()), c.dense);
  });

  it("gradReq 'add' accumulates row_sparse gradients over passes (union of the rows)", async () => {
    const w = nd.zeros([pairA.input_dim, pairA.output_dim]);
    w.attachGrad({ gradReq: 'add', stype: 'row_sparse' });
    for (const c of [pairA, pairB, pairA]) {
      const { x, og } = inputs(c);
      rt.autograd.record(() => embed(c, x, w)).backward(og);
    }
    const want = pairA.dense.map((v, i) => 2 * v + (pairB.dense[i] as number));
    expect(w.grad?.stype).toBe('row_sparse');
    close(nums(await (w.grad as NDArray).data()), want);
    const rows = nums((await (w.grad as RowSparseNDArray).parts()).indices);
    const union = [...new Set([...pairA.indices, ...pairB.indices])].sort((a, b) => a - b);
    // elemwise_add of row_sparse keeps the union; a densifying fallback keeps the nonzero rows.
    expect(rows.every((r) => union.includes(r))).toBe(true);
    expect(nonzeroRows(want, pairA.output_dim).every((r) => rows.includes(r))).toBe(true);
  });

  it("gradReq 'add' into a dense buffer adds the densified gradient", async () => {
    const w = nd.zeros([pairA.input_dim, pairA.output_dim]);
    w.attachGrad('add');
    for (const c of [pairA, pairB]) {
      const { x, og } = inputs(c);
      rt.autograd.record(() => embed(c, x, w)).backward(og);
    }
    close(
      nums(await (w.grad as NDArray).data()),
      pairA.dense.map((v, i) => v + (pairB.dense[i] as number)),
    );
  });

  it('two uses in one graph sum their row_sparse gradients; autograd.grad returns it too', async () => {
    const w = nd.zeros([pairA.input_dim, pairA.output_dim]);
    w.attachGrad({ stype: 'row_sparse' });
    const a = inputs(pairA);
    const b = inputs(pairB);
    const loss = rt.autograd.record(() =>
      nd.add(
        nd.sum(nd.multiply(embed(pairA, a.x, w), a.og)),
        nd.sum(nd.multiply(embed(pairB, b.x, w), b.og)),
      ),
    );
    const want = pairA.dense.map((v, i) => v + (pairB.dense[i] as number));
    const [g] = rt.autograd.grad(loss, [w], { retainGraph: true });
    close(nums(await (g as NDArray).data()), want);
    loss.backward();
    expect(w.grad?.stype).toBe('row_sparse');
    close(nums(await (w.grad as NDArray).data()), want);
  });

  it("gradReq 'null' leaves the row_sparse buffer empty", async () => {
    const c = pairA;
    const { x, w, og } = inputs(c);
    w.attachGrad({ gradReq: 'null', stype: 'row_sparse' });
    rt.autograd.record(() => embed(c, x, w)).backward(og);
    expect((await (w.grad as RowSparseNDArray).parts()).storageShape).toEqual([0, c.output_dim]);
  });

  it('out-of-bound indices fail the sparse gradient (MXNet) while the dense one clips', async () => {
    const c = pairA;
    const x = nd.array([1, c.input_dim + 2]);
    const og = nd.ones([2, c.output_dim]);
    const w = nd.zeros([c.input_dim, c.output_dim]);
    w.attachGrad({ stype: 'row_sparse' });
    rt.autograd.record(() => embed(c, x, w)).backward(og);
    await expect((w.grad as NDArray).data()).rejects.toThrow(/Embedding input contains data out of bound/);
    const w2 = nd.zeros([c.input_dim, c.output_dim]);
    w2.attachGrad();
    rt.autograd.record(() => embed(c, x, w2, false)).backward(og);
    const dense = nums(await (w2.grad as NDArray).data());
    expect(nonzeroRows(dense, c.output_dim)).toEqual([1, c.input_dim - 1]);
  });
});

describe('attachGrad options', () => {
  it('makes zero buffers of the requested storage type; a sparse array gets its own stype by default', async () => {
    const x = nd.ones([3, 4]);
    x.attachGrad({ stype: 'csr' });
    expect([x.grad?.stype, x.grad?.shape, x.grad?.dtype]).toEqual(['csr', [3, 4], 'float32']);
    expect(nums(await (x.grad as NDArray).data())).toEqual(new Array(12).fill(0));
    const r = nd.sparse.rowSparseArray([[[1, 2]], [2]], { shape: [4, 2], dtype: 'float64' });
    r.attachGrad();
    expect([r.grad?.stype, r.grad?.dtype]).toEqual(['row_sparse', 'float64']);
    r.attachGrad({ stype: 'default' });
    expect(r.grad?.stype).toBe('default');
  });

  it('refuses bad requests and keeps the buffer attached before', () => {
    const x = nd.ones([2, 2, 2]);
    x.attachGrad({ stype: 'row_sparse' });
    const before = x.grad;
    expect(() => x.attachGrad({ stype: 'csr' })).toThrow(/csr gradient needs a 2-D array/);
    expect(() => x.attachGrad({ stype: 'coo' as never })).toThrow(/unknown storage type "coo"/);
    expect(() => x.attachGrad({ gradReq: 'sum' as never, stype: 'row_sparse' })).toThrow(
      /invalid gradReq "sum"/,
    );
    expect(() => nd.ones([]).attachGrad({ stype: 'row_sparse' })).toThrow(/at least a 1-D array/);
    expect(x.grad).toBe(before);
    expect(before?.isDisposed).toBe(false);
  });

  it('a row_sparse gradient into a csr buffer is an error naming both storage types', () => {
    const c = pairA;
    const { x, w, og } = inputs(c);
    w.attachGrad({ stype: 'csr' });
    expect(() => rt.autograd.record(() => embed(c, x, w)).backward(og)).toThrow(
      /cannot write a row_sparse gradient into a csr gradient buffer/,
    );
  });
});
