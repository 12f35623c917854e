/**
 * Sparse arrays through the runtime: golden parts from SciPy (tools/golden/sparse/cast_storage.py)
 * for `tostype`/`castStorage`/`csrMatrix`/`rowSparseArray`, dense reads of sparse arrays, the
 * storage-type dispatch (computeEx, fallback and its log), memory (blocks freed with the array),
 * and a fast-check round trip dense → csr → dense.
 */
import { Env } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { CSRNDArray, createRuntime, type NDArray, RowSparseNDArray } from '../index.js';
import { sparseGolden } from './test-util.js';

interface Case {
  name: string;
  dtype: 'float32' | 'float64';
  shape: number[];
  dense: number[];
  data: number[];
  indices: number[];
  indptr?: number[];
  coo?: { data: number[]; row: number[]; col: number[] };
}
const golden = sparseGolden<{ csr: Case[]; row_sparse: Case[]; coo: Case[] }>('sparse-cast-storage.json');

const backend = new CpuWasmBackend({ workers: 0 });
const rt = createRuntime({ backends: [backend], env: new Env({ MXNET_STORAGE_FALLBACK_LOG_VERBOSE: '0' }) });
const nd = rt.nd;
afterAll(() => rt.dispose());

const nums = (a: ArrayLike<number | bigint> | undefined) => Array.from(a ?? [], Number);

describe('dense ↔ sparse against SciPy', () => {
  it.each(golden.csr)('$name', async (c) => {
    await nd.leakCheck(async () => {
      const dense = nd.array(new (c.dtype === 'float32' ? Float32Array : Float64Array)(c.dense), {
        shape: c.shape,
      });
      const csr = dense.tostype('csr');
      expect(csr).toBeInstanceOf(CSRNDArray);
      expect([csr.stype, csr.shape, csr.dtype]).toEqual(['csr', c.shape, c.dtype]);
      const p = await (csr as CSRNDArray).parts();
      expect([nums(p.data), nums(p.indices), nums(p.indptr), p.storageShape]).toEqual([
        c.data,
        c.indices,
        c.indptr,
        [c.data.length],
      ]);
      expect(nums(await csr.data())).toEqual(c.dense);
      const back = nd.castStorage(csr, 'default');
      expect([back.stype, nums(back.dataSync())]).toEqual(['default', c.dense]);
      // Built from SciPy's parts directly, it is the same array.
      const built = nd.sparse.csrMatrix(
        [c.data, c.indices, c.indptr ?? []].map((x) => Float64Array.from(x)) as never,
        {
          shape: c.shape,
          dtype: c.dtype,
        },
      );
      expect(nums(built.dataSync())).toEqual(c.dense);
      await built.checkFormat();
      for (const a of [dense, csr, back, built]) a.dispose();
    });
  });

  it.each(golden.row_sparse)('$name', async (c) => {
    await nd
      .leakCheck(async () => {
        const dense = nd.array(new (c.dtype === 'float32' ? Float32Array : Float64Array)(c.dense), {
          shape: c.shape,
        });
        const rsp = nd.castStorage(dense, 'row_sparse');
        expect(rsp).toBeInstanceOf(RowSparseNDArray);
        const p = rsp.partsSync();
        expect([nums(p.data), nums(p.indices), p.storageShape, p.indptr]).toEqual([
          c.data,
          c.indices,
          [c.indices.length, ...c.shape.slice(1)],
          undefined,
        ]);
        expect(nums(rsp.dataSync())).toEqual(c.dense);
        const built = nd.sparse.rowSparseArray(
          { data: Float64Array.from(c.data), indices: c.indices },
          { shape: c.shape, dtype: c.dtype },
        );
        expect(nums(built.dataSync())).toEqual(c.dense);
        built.checkFormatSync();
        for (const a of [dense, rsp, built]) a.dispose();
      })
      .catch((e) => {
        throw e;
      });
  });

  it.each(golden.coo)('COO input sums duplicates as SciPy: $name', async (c) => {
    const coo = c.coo as NonNullable<Case['coo']>;
    const m = nd.sparse.csrMatrix([coo.data, [coo.row, coo.col]], { shape: c.shape, dtype: c.dtype });
    const p = m.partsSync();
    expect([nums(p.data), nums(p.indices), nums(p.indptr)]).toEqual([c.data, c.indices, c.indptr]);
    expect(nums(m.dataSync())).toEqual(c.dense);
    m.dispose();
  });
});

describe('creation', () => {
  it('csrMatrix from nested arrays, a dense NDArray and typed parts; shapes inferred as SciPy does', async () => {
    await nd.leakCheck(async () => {
      const a = nd.sparse.csrMatrix([
        [0, 1, 0],
        [2, 0, 3],
      ]);
      expect(await a.array()).toEqual([
        [0, 1, 0],
        [2, 0, 3],
      ]);
      const d = nd.array(
        [
          [0, 0],
          [5, 0],
        ],
        { dtype: 'float64' },
      );
      const b = nd.sparse.csrMatrix(d);
      expect([b.dtype, nums(b.partsSync().indices)]).toEqual(['float64', [0]]);
      const t = nd.sparse.csrMatrix([Float32Array.of(1, 2), Int32Array.of(2, 0), Int32Array.of(0, 1, 1, 2)]);
      const tp = t.partsSync();
      expect([t.shape, tp.indices.constructor.name, tp.indptr?.constructor.name]).toEqual([
        [3, 3],
        'Int32Array',
        'Int32Array',
      ]);
      expect(await t.array()).toEqual([
        [0, 0, 1],
        [0, 0, 0],
        [2, 0, 0],
      ]);
      const z = nd.sparse.zeros('csr', [3, 4]);
      const r = nd.sparse.zeros('row_sparse', [5, 2], { dtype: 'float64' });
      expect([nums(z.partsSync().indptr), z.partsSync().data.length, r.partsSync().storageShape]).toEqual([
        [0, 0, 0, 0],
        0,
        [0, 2],
      ]);
      expect(nums(r.dataSync())).toEqual(new Array(10).fill(0));
      const rs = nd.sparse.rowSparseArray([[[1, 2]], [3]], { shape: [4, 2] });
      expect(await rs.array()).toEqual([
        [0, 0],
        [0, 0],
        [0, 0],
        [1, 2],
      ]);
      for (const x of [a, d, b, t, z, r, rs]) x.dispose();
    });
  });

  const malformed: [string, () => unknown, RegExp][] = [
    [
      'indptr not starting at 0',
      () => nd.sparse.csrMatrix([[1], [0], [1, 1]], { shape: [1, 2] }),
      /indptr\[0\] must be 0/,
    ],
    [
      'decreasing indptr',
      () => nd.sparse.csrMatrix({ data: [1, 2], indices: [0, 1], indptr: [0, 2, 1, 2] }, { shape: [3, 2] }),
      /non-decreasing/,
    ],
    [
      'last indptr ≠ nnz',
      () => nd.sparse.csrMatrix({ data: [1, 2], indices: [0, 1], indptr: [0, 1, 1] }, { shape: [2, 2] }),
      /last entry must equal nnz = 2/,
    ],
    [
      'column out of range',
      () => nd.sparse.csrMatrix({ data: [1], indices: [2], indptr: [0, 1] }, { shape: [1, 2] }),
      /column 2 at indices\[0\] \(row 0\) is outside \[0, 2\)/,
    ],
    [
      'unsorted columns in a row',
      () => nd.sparse.csrMatrix({ data: [1, 2], indices: [1, 0], indptr: [0, 2] }, { shape: [1, 2] }),
      /strictly increasing within a row/,
    ],
    [
      'indices/data length mismatch',
      () => nd.sparse.csrMatrix({ data: [1, 2], indices: [0], indptr: [0, 1] }, { shape: [1, 2] }),
      /indices has nnz = 2/,
    ],
    [
      'indptr length ≠ rows + 1',
      () => nd.sparse.csrMatrix({ data: [1], indices: [0], indptr: [0, 1] }, { shape: [3, 2] }),
      /indptr has rows \+ 1 = 4 entries, got 2/,
    ],
    [
      'non-integer index',
      () => nd.sparse.csrMatrix({ data: [1], indices: [0.5], indptr: [0, 1] }),
      /indices\[0\] = 0.5 is not an integer/,
    ],
    [
      'rsp index out of range',
      () => nd.sparse.rowSparseArray([[[1, 2]], [4]], { shape: [4, 2] }),
      /row 4 at indices\[0\] is outside \[0, 4\)/,
    ],
    [
      'rsp indices unsorted',
      () =>
        nd.sparse.rowSparseArray(
          [
            [[1], [2]],
            [2, 1],
          ],
          { shape: [4, 1] },
        ),
      /must be strictly increasing, indices\[0\] = 2 then 1/,
    ],
    [
      'rsp data rows ≠ indices',
      () => nd.sparse.rowSparseArray([[[1], [2]], [1]], { shape: [4, 1] }),
      /2 values .*1 stored rows of \(1\) need 1/,
    ],
    ['csr from a 3-D array', () => nd.sparse.csrMatrix([[[1]]]), /2-D/],
    [
      'COO entry outside the shape',
      () => nd.sparse.csrMatrix([[1], [[3], [0]]], { shape: [2, 2] }),
      /COO entry 0 at \(3, 0\) is outside shape \(2, 2\)/,
    ],
    [
      'bad data dtype',
      () => nd.sparse.zeros('csr', [2, 2], { dtype: 'float16' }),
      /sparse data cannot be float16/,
    ],
  ];
  it.each(malformed)('%s: an MXNetError naming the rule, nothing allocated', (_name, call, rule) => {
    const before = nd.memory();
    expect(call).toThrow(rule);
    const after = nd.memory();
    expect([after.arrays, after.chunks, after.bytes]).toEqual([before.arrays, before.chunks, before.bytes]);
  });
});

describe('sparse arrays behave as NDArrays where they can', () => {
  it('views and blobs are refused with asDense() in the message; copies keep the storage type', async () => {
    const c = nd.sparse.csrMatrix([
      [1, 0],
      [0, 2],
    ]);
    expect(() => c.reshape([4])).toThrow(/asDense\(\)/);
    expect(() => c.slice(0, 1)).toThrow(/no dense storage for a sliced view/);
    expect(() => c.at(0)).toThrow(/asDense/);
    expect(() => c.blob()).toThrow(/CSRNDArray \(2, 2\) float32/);
    const copy = c.copy();
    expect([copy.stype, await copy.array()]).toEqual([
      'csr',
      [
        [1, 0],
        [0, 2],
      ],
    ]);
    const dense = nd.zeros([2, 2]);
    c.copyTo(dense);
    expect(await dense.array()).toEqual([
      [1, 0],
      [0, 2],
    ]);
    expect(String(c)).toBe('\n<CSRNDArray 2x2 @cpu(0)>');
    expect(c.describe()).toBe('CSRNDArray (2, 2) float32 @cpu(0)');
    for (const x of [c, copy, dense]) x.dispose();
  });

  it('csr ↔ row_sparse is refused at the call (MXNet has no such dispatch)', () => {
    const c = nd.sparse.csrMatrix([[1, 0]]);
    expect(() => c.tostype('row_sparse')).toThrow(/cast_storage from csr to row_sparse is not supported/);
    c.dispose();
  });

  it('ops without sparse kernels fall back to dense and log MXNet’s text once per signature', async () => {
    const logged = createRuntime({ backends: [backend] });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const c = logged.nd.sparse.csrMatrix([
        [1, -2],
        [0, 3],
      ]);
      const y = logged.nd.logical_not(c);
      const z = logged.nd.logical_not(c);
      expect([y.stype, await y.array(), await z.array()]).toEqual([
        'default',
        [
          [0, 0],
          [1, 0],
        ],
        [
          [0, 0],
          [1, 0],
        ],
      ]);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0]?.[0]).toMatch(
        /^\nStorage type fallback detected:\noperator = logical_not\ninput storage types = \[csr, \]\noutput storage types = \[default, \]\nparams = \{\}\ncontext.dev_mask = cpu\n WARNING:\n/,
      );
      const s = logged.nd._rminus_scalar(c, { scalar: 1 });
      expect(await s.array()).toEqual([
        [0, 3],
        [1, -2],
      ]);
      expect(warn).toHaveBeenCalledTimes(2); // another op, another signature
      for (const x of [c, y, z, s]) x.dispose();
    } finally {
      warn.mockRestore();
      await logged.dispose();
    }
  });

  it('autograd flows through tostype (MXNet: _copy of the head gradient)', async () => {
    const x = nd
      .array([
        [1, 0],
        [0, 2],
      ])
      .attachGrad();
    const y = rt.autograd.record(() => x.tostype('csr').asDense().mul(3));
    y.backward();
    expect(await x.grad?.array()).toEqual([
      [3, 3],
      [3, 3],
    ]);
    for (const a of [x, y]) a.dispose();
  });
});

describe('memory', () => {
  it('disposing sparse arrays frees their blocks (memory() back to the baseline)', async () => {
    await nd.waitall();
    const base = nd.memory();
    const dense = nd.array(
      Float64Array.from({ length: 64 * 32 }, (_, i) => (i % 3 === 0 ? i : 0)),
      { shape: [64, 32] },
    );
    const csr = dense.tostype('csr');
    const rsp = dense.tostype('row_sparse');
    const made = nd.sparse.csrMatrix({ data: [1, 2, 3], indices: [0, 1, 2], indptr: [0, 3] });
    await nd.waitall();
    const mid = nd.memory();
    // dense 64·32·8 bytes, csr data 682·8 + indptr 65·8 + indices 682·8 (i = 0 is a zero), rsp all 64 rows + 64 indices, made 3·4 + 2·8 + 3·8.
    expect(mid.bytes - base.bytes).toBe(
      64 * 32 * 8 + (682 + 65 + 682) * 8 + 64 * 32 * 8 + 64 * 8 + 12 + 16 + 24,
    );
    expect(mid.chunks - base.chunks).toBe(4);
    for (const a of [dense, csr, rsp, made]) a.dispose();
    await nd.waitall();
    const end = nd.memory();
    expect([end.arrays, end.chunks, end.bytes]).toEqual([base.arrays, base.chunks, base.bytes]);
  });

  it('a leak check reports an undisposed sparse array', async () => {
    let leaked: NDArray | undefined;
    await expect(
      nd.leakCheck(() => {
        leaked = nd.sparse.zeros('csr', [2, 2]);
      }),
    ).rejects.toThrow(/CSRNDArray \(2, 2\) float32/);
    leaked?.dispose();
  });
});

describe('round trip (fast-check)', () => {
  it('random dense matrices survive dense → csr → dense and dense → row_sparse → dense exactly', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9 }),
        fc.integer({ min: 0, max: 9 }),
        fc.array(
          fc.oneof(fc.constant(0), fc.constant(0), fc.float({ noNaN: true, noDefaultInfinity: true })),
          { minLength: 81, maxLength: 81 },
        ),
        (rows, cols, pool) => {
          const values = Float32Array.from(pool.slice(0, rows * cols), (v) => (Object.is(v, -0) ? 0 : v));
          return nd.scopeSync(() => {
            const dense = nd.array(values, { shape: [rows, cols] });
            const viaCsr = dense.tostype('csr').asDense().dataSync();
            const viaRsp = dense.tostype('row_sparse').asDense().dataSync();
            return (
              Array.from(viaCsr as Float32Array).every((v, i) => Object.is(v, values[i])) &&
              Array.from(viaRsp as Float32Array).every((v, i) => Object.is(v, values[i]))
            );
          });
        },
      ),
      { seed: 15, numRuns: 60 },
    );
  });
});
