/**
 * cast_storage kernels at the kernel level (no NDArray, no engine): golden parts from SciPy
 * (tools/golden/sparse/cast_storage.py) for dense → csr / row_sparse and back, copies between the
 * same storage types with int32 and int64 aux blocks, and the malformed-input refusals of the
 * sparse → dense scatter. Blocks are carved from the backend's allocator by a small test harness.
 */
import { type DTypeName, isMXNetError } from '@mx/base';
import { OpReq, type SparseBlob, type SparseOutput, type TBlob } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { createSparseHarness, loadGolden } from './test-harness.js';

interface Case {
  name: string;
  dtype: 'float32' | 'float64';
  shape: number[];
  dense: number[];
  data: number[];
  indices: number[];
  indptr?: number[];
}
const golden = loadGolden<{ csr: Case[]; row_sparse: Case[] }>('sparse-cast-storage.json');

const { registry, backend, ctx, blob, read, output, ...h } = createSparseHarness();
const op = registry.get('cast_storage');
const kernel = registry.kernel(op, backend.name);

const sparseInput = (
  c: Case,
  stype: 'csr' | 'row_sparse',
  auxType: DTypeName = 'int64',
): SparseBlob<number> =>
  stype === 'csr'
    ? h.csr(c.shape, c.dtype, { ...c, indptr: c.indptr as number[] }, auxType)
    : h.rsp(c.shape, c.dtype, c, auxType);

const run = (
  stype: string,
  input: TBlob<number> | SparseBlob<number>,
  out: TBlob<number> | SparseOutput<number>,
  req: 1 | 3 = OpReq.write,
) => kernel?.computeEx?.(op.parseParams({ stype }), ctx, [input], [req], [out]);

describe('cast_storage kernels against SciPy', () => {
  it.each(golden.csr)('$name: dense → csr gives SciPy parts, csr → dense gives the matrix back', (c) => {
    const out = output('csr', c.shape, c.dtype);
    run('csr', blob(c.shape, c.dtype, c.dense), out);
    expect(read(out.data)).toEqual(c.data);
    expect(read(out.aux[0] as TBlob<number>)).toEqual(c.indptr);
    expect(read(out.aux[1] as TBlob<number>)).toEqual(c.indices);
    for (const aux of ['int64', 'int32'] as const) {
      const dense = blob(c.shape, c.dtype);
      run('default', sparseInput(c, 'csr', aux), dense);
      expect(read(dense)).toEqual(c.dense);
    }
  });

  it.each(golden.row_sparse)('$name: dense → row_sparse keeps the nonzero rows, and back', (c) => {
    const out = output('row_sparse', c.shape, c.dtype);
    run('row_sparse', blob(c.shape, c.dtype, c.dense), out);
    expect(out.storageShape).toEqual([c.indices.length, ...c.shape.slice(1)]);
    expect(read(out.data)).toEqual(c.data);
    expect(read(out.aux[0] as TBlob<number>)).toEqual(c.indices);
    const dense = blob(c.shape, c.dtype);
    run('default', sparseInput(c, 'row_sparse', 'int32'), dense);
    expect(read(dense)).toEqual(c.dense);
  });

  it('csr → csr and row_sparse → row_sparse copy the parts (int32 aux converted to the output aux dtype)', () => {
    const c = golden.csr.find((x) => x.name.startsWith('csr (7, 3) density 0.3')) as Case;
    const out = output('csr', c.shape, c.dtype, 'int64');
    run('csr', sparseInput(c, 'csr', 'int32'), out);
    expect([read(out.data), read(out.aux[0] as TBlob<number>), read(out.aux[1] as TBlob<number>)]).toEqual([
      c.data,
      c.indptr,
      c.indices,
    ]);
    const r = golden.row_sparse.find((x) => x.name.startsWith('row_sparse (4, 2, 3) density 0.3')) as Case;
    const rout = output('row_sparse', r.shape, r.dtype, 'int32');
    run('row_sparse', sparseInput(r, 'row_sparse'), rout);
    expect([read(rout.data), read(rout.aux[0] as TBlob<number>)]).toEqual([r.data, r.indices]);
  });

  it('sparse → dense with req=add accumulates; dense → dense is the identity', () => {
    const c = golden.csr.find((x) => x.name.startsWith('csr (4, 5) density 1')) as Case;
    const dense = blob(c.shape, c.dtype, c.dense);
    run('default', sparseInput(c, 'csr'), dense, OpReq.add);
    expect(read(dense)).toEqual(c.dense.map((v) => 2 * v));
    const copy = blob(c.shape, c.dtype);
    kernel?.compute?.(
      op.parseParams({ stype: 'default' }),
      ctx,
      [blob(c.shape, c.dtype, c.dense)],
      [OpReq.write],
      [copy],
    );
    expect(read(copy)).toEqual(c.dense);
  });

  it('refuses malformed sparse input instead of writing out of bounds', () => {
    const c: Case = {
      name: 'bad',
      dtype: 'float32',
      shape: [2, 3],
      dense: [],
      data: [1, 2],
      indices: [0, 3],
      indptr: [0, 1, 2],
    };
    const dense = blob(c.shape, c.dtype);
    const err = (() => {
      try {
        run('default', sparseInput(c, 'csr'), dense);
      } catch (e) {
        return e;
      }
    })();
    expect(
      isMXNetError(err) &&
        /column 3 at indices\[1\] is outside \[0, 3\)/.test(String((err as Error).message)),
    ).toBe(true);
    const r: Case = { name: 'bad', dtype: 'float32', shape: [2, 1], dense: [], data: [1], indices: [5] };
    expect(() => run('default', sparseInput(r, 'row_sparse'), blob(r.shape, r.dtype))).toThrow(
      /row 5 at indices\[0\] is outside \[0, 2\)/,
    );
  });

  it('int32 data round-trips (every compute dtype is served)', () => {
    const values: number[] = [0, 3, 0, -1, 0, 0];
    const out = output('csr', [2, 3], 'int32');
    run('csr', blob([2, 3], 'int32', values), out);
    expect([read(out.data), read(out.aux[0] as TBlob<number>), read(out.aux[1] as TBlob<number>)]).toEqual([
      [3, -1],
      [0, 1, 2],
      [1, 0],
    ]);
  });
});
