/**
 * SciPy's sparse .npz layout at the host level: real `scipy.sparse.save_npz` files
 * (tools/golden/sparse/scipy_npz.py) read into the canonical CSR SciPy computes, our files
 * member for member like SciPy's, and every broken rule of the layout an MXNetError naming the
 * file, the member and the rule. SciPy reading our files: scipy-interop.test.ts; fuzzing:
 * scipy-npz.property.test.ts.
 */
import type { DTypeName, StorageArray } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { saveNpy } from './npy.js';
import { isScipySparseLayout, loadScipyNpz, saveScipyNpz } from './scipy-npz.js';
import {
  CSR,
  denseOf,
  FORMAT_COO,
  FORMAT_CSR,
  f32,
  fixture,
  golden,
  i32,
  i64,
  npz,
  nums,
} from './scipy-test-util.js';
import { expectMXNetError } from './test-util.js';
import type { HostArray, HostSparseArray } from './types.js';
import { readZip } from './zip.js';

const loadable = golden.cases.filter((c) => c.refused === undefined);
describe('reads real scipy.sparse.save_npz files as SciPy does', () => {
  it.each(loadable)('$file ($how, $format $dtype)', (c) => {
    const { format, array } = loadScipyNpz(fixture(c.file), c.file);
    expect(format).toBe(c.format);
    expect([array.stype, array.shape, array.dtype]).toEqual(['csr', c.shape, c.dtype]);
    // The canonical CSR SciPy computes (sorted, duplicates summed), with MXNet's int64 indices.
    expect([nums(array.data as ArrayLike<number | bigint>), nums(array.indices), nums(array.indptr)]).toEqual(
      [c.data, c.indices, c.indptr],
    );
    expect(array.indices).toBeInstanceOf(BigInt64Array);
    expect(array.indptr).toBeInstanceOf(BigInt64Array);
    expect(array.storageShape).toEqual([c.data?.length]);
    expect(denseOf(array)).toEqual(c.dense);
  });

  it('covers stored and deflated members, int32 and int64 indices, csr/csc/coo', () => {
    const formats = new Set(loadable.map((c) => c.format));
    const indexTypes = new Set(loadable.map((c) => c.stored?.indices ?? c.stored?.row));
    expect([...formats].sort()).toEqual(['coo', 'csc', 'csr']);
    expect([...indexTypes].sort()).toEqual(['int32', 'int64']);
    expect(loadable.some((c) => c.how.includes('compressed=False'))).toBe(true);
    expect(loadable.some((c) => c.how === 'save_npz')).toBe(true);
  });

  it.each(golden.cases.filter((c) => c.refused !== undefined))('refuses $file ($refused)', (c) => {
    const want =
      c.refused === 'complex64'
        ? [`${c.file}[data.npy]`, "unsupported dtype descr '<c8'"]
        : [`${c.file}: format.npy: ${c.refused} matrices are not supported`, 'm.tocsr()'];
    expectMXNetError(() => loadScipyNpz(fixture(c.file), c.file), ...want);
  });

  it('recognises the layout by its member names', () => {
    for (const c of golden.cases)
      expect(isScipySparseLayout(readZip(fixture(c.file), 't', c.file).map((e) => e.name))).toBe(true);
    expect(isScipySparseLayout(['data.npy', 'indices.npy', 'indptr.npy'])).toBe(false);
    expect(isScipySparseLayout(['format.npy', 'shape.npy', 'data.npy', 'arr_0.npy'])).toBe(false);
  });
});

describe('writes what scipy.sparse.save_npz(compressed=False) writes', () => {
  it("has SciPy's members, in SciPy's order, and its exact format and shape members", () => {
    const { array } = loadScipyNpz(fixture('csr_float64_stored.npz'));
    const ours = readZip(saveScipyNpz(array), 't', 'ours');
    const theirs = readZip(fixture('csr_float64_stored.npz'), 't', 'theirs');
    expect(ours.map((e) => e.name)).toEqual(theirs.map((e) => e.name));
    for (const name of ['format.npy', 'shape.npy', 'data.npy'])
      expect(ours.find((e) => e.name === name)?.data).toEqual(theirs.find((e) => e.name === name)?.data);
  });

  it.each(loadable)('round-trips $file', (c) => {
    const { array } = loadScipyNpz(fixture(c.file), c.file);
    const back = loadScipyNpz(saveScipyNpz(array), 'ours.npz');
    expect(back.format).toBe('csr');
    expect(back.array).toEqual(array);
  });

  it('keeps int32 index arrays int32', () => {
    const a: HostSparseArray = {
      stype: 'csr',
      shape: [2, 3],
      dtype: 'float32',
      storageShape: [2],
      data: Float32Array.of(1, 2),
      indices: Int32Array.of(0, 2),
      indptr: Int32Array.of(0, 1, 2),
    };
    const z = readZip(saveScipyNpz(a), 't', 't');
    expect(z.find((e) => e.name === 'indices.npy')?.data).toEqual(saveNpy(i32(0, 2)));
    expect(denseOf(loadScipyNpz(saveScipyNpz(a)).array)).toEqual([1, 0, 0, 0, 0, 2]);
  });

  it('refuses row_sparse (scipy.sparse has none), bfloat16 and malformed parts', () => {
    const rsp: HostSparseArray = {
      stype: 'row_sparse',
      shape: [3, 2],
      dtype: 'float32',
      storageShape: [1, 2],
      data: Float32Array.of(1, 2),
      indices: BigInt64Array.of(1n),
    };
    expectMXNetError(() => saveScipyNpz(rsp), 'scipy.sparse has no row_sparse format', "tostype('csr')");
    const csr = (over: Partial<HostSparseArray>): HostSparseArray => ({
      stype: 'csr',
      shape: [2, 2],
      dtype: 'float32',
      storageShape: [1],
      data: Float32Array.of(1),
      indices: BigInt64Array.of(1n),
      indptr: BigInt64Array.of(0n, 1n, 1n),
      ...over,
    });
    expectMXNetError(
      () =>
        saveScipyNpz(csr({ dtype: 'bfloat16' as DTypeName, data: Uint16Array.of(0x3f80) as StorageArray })),
      'SciPy has no bfloat16',
    );
    expectMXNetError(() => saveScipyNpz(csr({ indices: BigInt64Array.of(2n) })), 'outside [0, 2)');
    expectMXNetError(() => saveScipyNpz(csr({ indptr: BigInt64Array.of(0n, 1n) })), 'indptr');
  });
});

describe('bad files: an MXNetError naming the file, the member and the rule', () => {
  const load = (members: Record<string, HostArray | Uint8Array>) => () =>
    loadScipyNpz(npz(members), 'bad.npz');

  it('accepts the valid base case', () => {
    expect(denseOf(loadScipyNpz(npz(CSR)).array)).toEqual([0, 1, 0, 2, 0, 0, 0, 0, 3, 0, 0, 0]);
  });

  it('indptr inconsistent with the data', () => {
    expectMXNetError(
      load({ ...CSR, indptr: i32(0, 2, 2, 2) }),
      'bad.npz: indptr.npy: the last entry must equal the number of values (3',
    );
    expectMXNetError(
      load({ ...CSR, indptr: i32(0, 2, 3) }),
      'bad.npz: indptr.npy: has rows + 1 = 4 entries, got 3',
    );
    expectMXNetError(load({ ...CSR, indptr: i32(1, 2, 2, 3) }), 'indptr.npy: indptr[0] must be 0');
    expectMXNetError(
      load({ ...CSR, indptr: i32(0, 3, 2, 3) }),
      'indptr.npy: must be non-decreasing, indptr[2] = 2 < indptr[1] = 3',
    );
    expectMXNetError(
      load({ ...CSR, data: f32(1, 2) }),
      'bad.npz: indices.npy: one index per value, got 3 indices and 2 values',
    );
    expectMXNetError(
      load({ ...CSR, indptr: f32(0, 2, 2, 3) }),
      'indptr.npy: index arrays hold integers, got float32',
    );
  });

  it('indices out of range', () => {
    expectMXNetError(
      load({ ...CSR, indices: i32(1, 4, 0) }),
      'bad.npz: indices.npy: column 4 at [1] is outside [0, 4)',
    );
    expectMXNetError(load({ ...CSR, indices: i32(1, -1, 0) }), 'column -1 at [1] is outside [0, 4)');
    expectMXNetError(
      load({ format: FORMAT_COO, row: i32(0, 3), col: i32(0, 0), shape: i64(3, 4), data: f32(1, 2) }),
      'bad.npz: row.npy: row 3 at [1] is outside [0, 3)',
    );
    expectMXNetError(
      load({ format: FORMAT_COO, row: i32(0), col: i32(0, 0), shape: i64(3, 4), data: f32(1, 2) }),
      'row.npy, col.npy: one row and one column per value, got 1 rows, 2 columns and 2 values',
    );
  });

  it('shape not 2-D, or not integers >= 0', () => {
    expectMXNetError(
      load({ ...CSR, shape: i64(12) }),
      'bad.npz: shape.npy: a sparse matrix is 2-D, got shape (12)',
    );
    expectMXNetError(
      load({ ...CSR, shape: i64(3, 4, 1) }),
      'shape.npy: a sparse matrix is 2-D, got shape (3, 4, 1)',
    );
    expectMXNetError(load({ ...CSR, shape: i64(3, -4) }), 'shape.npy: dims must be integers >= 0');
    expectMXNetError(load({ ...CSR, shape: f32(3, 4) }), 'shape.npy: holds float32, expected integers');
    expectMXNetError(
      load({ ...CSR, data: { shape: [3, 1], dtype: 'float32', data: Float32Array.of(1, 2, 3) } }),
      'data.npy: the values are 1-D (nnz,), got shape (3, 1)',
    );
  });

  it('missing members, and format members that are not a known format string', () => {
    const { format: _, ...noFormat } = CSR;
    expectMXNetError(load(noFormat), 'bad.npz: no format.npy member: this is not a scipy.sparse .npz file');
    const { indptr: __, ...noIndptr } = CSR;
    expectMXNetError(load(noIndptr), 'the csr layout needs the member indptr.npy, and the file has none');
    expectMXNetError(
      load({ ...CSR, format: i64(1) }),
      'bad.npz[format.npy]',
      "format must be a bytes or str array (descr '|S3' or '<U3'), got descr '<i8'",
    );
    const xyz = FORMAT_CSR.slice();
    xyz.set([0x78, 0x79, 0x7a], xyz.length - 3);
    expectMXNetError(load({ ...CSR, format: xyz }), 'bad.npz: format.npy: unknown sparse format "xyz"');
    expectMXNetError(load({ ...CSR, format: FORMAT_CSR.subarray(0, FORMAT_CSR.length - 1) }), 'truncated');
    expectMXNetError(load({ ...CSR, format: new Uint8Array([...FORMAT_CSR, 0]) }), 'trailing bytes');
  });

  it("caps what a file's shape makes it allocate", () => {
    const huge = { format: FORMAT_COO, row: i32(), col: i32(), shape: i64(2 ** 40, 1), data: f32() };
    expectMXNetError(() => loadScipyNpz(npz(huge), 'huge.npz'), 'huge.npz', 'over its cap');
    // The same matrix with a sensible row count loads (an all-zero CSR).
    const ok = loadScipyNpz(npz({ ...huge, shape: i64(4, 1) })).array;
    expect(nums(ok.indptr)).toEqual([0, 0, 0, 0, 0]);
  });
});
