/**
 * Row_sparse keys of the `local` and `device` stores: row_sparse_pull (duplicate and unsorted row
 * ids, several outputs, nnz = 0), the row_sparse sum of several pushes, an updater seeing the
 * row_sparse sum, MXNet's pull rules for row_sparse outputs, and bad calls — values checked
 * against the NumPy transcription of MXNet (tools/golden/kvstore/row_sparse.py) and MXNet's
 * test_kvstore.py cases, never against values computed with this package.
 */
import { cpu, MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray, type RowSparseNDArray } from '@mx/ndarray';
import { createOptimizer } from '@mx/optimizer';
import { afterAll, describe, expect, it, vi } from 'vitest';
import golden from './__golden__/row_sparse.json' with { type: 'json' };
import type { KVKey } from './keys.js';
import { LocalKVStore } from './local.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd } = rt;
afterAll(async () => {
  await rt.dispose();
});

interface Rsp {
  readonly indices: number[];
  readonly data: number[];
}

function rsp(shape: number[], s: Rsp, ctx = cpu(0)): RowSparseNDArray {
  const indices = BigInt64Array.from(s.indices, (r) => BigInt(r));
  return nd.sparse.rowSparseArray([Float32Array.from(s.data), indices], { shape, ctx });
}

async function partsOf(a: NDArray): Promise<Rsp> {
  expect(a.stype).toBe('row_sparse');
  const p = await (a as RowSparseNDArray).parts();
  return {
    indices: Array.from(p.indices as BigInt64Array, Number),
    data: Array.from(p.data as Float32Array),
  };
}

async function values(a: NDArray): Promise<number[]> {
  return Array.from((await a.data()) as Float32Array);
}

async function withStore(body: (kv: LocalKVStore) => Promise<void> | void, type = 'local'): Promise<void> {
  await nd.leakCheck(async () => {
    const kv = new LocalKVStore(rt, type);
    try {
      await nd.scope(async () => {
        await body(kv);
      });
    } finally {
      kv.dispose();
    }
  });
}

const zerosRsp = (shape: number[], ctx = cpu(0)) => nd.sparse.zeros('row_sparse', shape, { ctx });

describe.each(['local', 'device'])('%s store: rowSparsePull', (type) => {
  it.each(golden.retain.map((c, i) => [i, c] as const))(
    'case %i: the sorted unique rows asked, zeros where none is stored (NumPy)',
    async (_i, c) => {
      await withStore(async (kv) => {
        kv.init('e', rsp(c.shape, c.stored));
        const out = zerosRsp(c.shape, cpu(1));
        kv.rowSparsePull('e', { out, rowIds: nd.array(c.row_ids, { dtype: 'int64' }) });
        expect(await partsOf(out)).toEqual(c.expected);
        expect(out.ctx).toBe(cpu(1));
      }, type);
    },
  );

  it("fills several outputs from one row-id array or one each (MXNet's test_row_sparse_pull)", async () => {
    await withStore(async (kv) => {
      const c = golden.retain[0] as (typeof golden.retain)[0];
      const same = golden.retain.filter((x) => JSON.stringify(x.stored) === JSON.stringify(c.stored));
      kv.init(7, rsp(c.shape, c.stored));
      // MXNet's row ids are float32 NDArrays of any shape: [4, 0, 4, 1] as 2 × 2.
      const ids = nd.array(c.row_ids, { shape: [2, 2] });
      const outs = [cpu(0), cpu(1), cpu(2)].map((ctx) => zerosRsp(c.shape, ctx));
      kv.rowSparsePull(7, { out: outs, rowIds: ids });
      for (const o of outs) expect(await partsOf(o)).toEqual(c.expected);
      const own = same.slice(0, 3).map(() => zerosRsp(c.shape));
      kv.rowSparsePull(7, { out: own, rowIds: same.slice(0, 3).map((x) => nd.array(x.row_ids)) });
      for (const [i, o] of own.entries()) expect(await partsOf(o)).toEqual(same[i]?.expected);
    }, type);
  });

  it('pulls a list of keys, each with its outputs and row ids', async () => {
    await withStore(async (kv) => {
      const [a, b] = [golden.retain[1], golden.retain[6]] as (typeof golden.retain)[0][];
      if (a === undefined || b === undefined) throw new Error('golden cases missing');
      kv.init(['a', 'b'], [rsp(a.shape, a.stored), rsp(b.shape, b.stored)]);
      const outs = [[zerosRsp(a.shape), zerosRsp(a.shape, cpu(3))], zerosRsp(b.shape)];
      kv.rowSparsePull(['b', 'a'], {
        out: [outs[1] as NDArray, outs[0] as NDArray[]],
        rowIds: [nd.array(b.row_ids), [nd.array(a.row_ids), nd.array(a.row_ids)]],
      });
      expect(await partsOf(outs[1] as NDArray)).toEqual(b.expected);
      for (const o of outs[0] as NDArray[]) expect(await partsOf(o)).toEqual(a.expected);
    }, type);
  });

  it('gives nothing for an empty row-id array or a key that stores no row (nnz = 0)', async () => {
    await withStore(async (kv) => {
      kv.init(['full', 'none'], [nd.ones([4, 2]).tostype('row_sparse'), zerosRsp([4, 2])]);
      const outs = [zerosRsp([4, 2]), zerosRsp([4, 2])];
      kv.rowSparsePull('full', { out: outs[0] as NDArray, rowIds: nd.array([], { dtype: 'int64' }) });
      kv.rowSparsePull('none', { out: outs[1] as NDArray, rowIds: nd.array([3, 0]) });
      for (const o of outs) {
        expect(await partsOf(o)).toEqual({ indices: [], data: [] });
        expect((await (o as RowSparseNDArray).parts()).storageShape).toEqual([0, 2]);
      }
    }, type);
  });
});

describe.each(['local', 'device'])('%s store: row_sparse pushes', (type) => {
  it.each(golden.sum.map((c, i) => [i, c.pushes.length, c] as const))(
    'case %i: %i row_sparse pushes sum to the union of their rows (NumPy), seen by the updater',
    async (_i, _n, c) => {
      await withStore(async (kv) => {
        kv.init('g', zerosRsp(c.shape));
        const pushes = c.pushes.map((p, i) => rsp(c.shape, p, cpu(i % 3)));
        kv.push('g', pushes);
        const dense = nd.zeros(c.shape, { ctx: cpu(1) });
        kv.pull('g', dense);
        expect(await values(dense)).toEqual(c.dense);
        // Without an updater the sum is the stored value: its rows are the sum's rows.
        const all = zerosRsp(c.shape);
        kv.rowSparsePull('g', { out: all, rowIds: nd.arange(0, c.shape[0] as number) });
        expect(await values(all)).toEqual(c.dense);
        const seen: Rsp[] = [];
        kv.setUpdater((_key, recv) => {
          const p = (recv as RowSparseNDArray).partsSync();
          seen.push({
            indices: Array.from(p.indices as BigInt64Array, Number),
            data: Array.from(p.data as Float32Array),
          });
        });
        kv.push('g', pushes);
        expect(seen).toEqual([c.sum]);
      }, type);
    },
  );

  it('runs an updater on the merged row_sparse gradient: lazy SGD over 3 steps (NumPy)', async () => {
    const c = golden.lazy_sgd;
    const { shape, lr } = c;
    const [rows, unit] = shape as [number, number];
    await withStore(async (kv) => {
      kv.init('w', rsp(shape, c.init));
      const keys: KVKey[] = [];
      // w[r] -= lr * g[r] on the gradient's rows, computed on host copies (the test's updater).
      kv.setUpdater((key, recv, local) => {
        keys.push(key);
        expect([recv.stype, local.stype]).toEqual(['row_sparse', 'row_sparse']);
        const g = (recv as RowSparseNDArray).partsSync();
        const w = Float32Array.from(local.dataSync() as Float32Array);
        const gi = Array.from(g.indices as BigInt64Array, Number);
        gi.forEach((r, j) => {
          for (let k = 0; k < unit; k++) {
            const x = (g.data as Float32Array)[j * unit + k] as number;
            w[r * unit + k] = Math.fround((w[r * unit + k] as number) - Math.fround(Math.fround(lr) * x));
          }
        });
        const had = (local as RowSparseNDArray).partsSync().indices as BigInt64Array;
        const stored = new Set([...Array.from(had as BigInt64Array, Number), ...gi]);
        const keep = [...stored].sort((a, b) => a - b);
        const next = nd.sparse.rowSparseArray(
          [
            Float32Array.from(keep.flatMap((r) => Array.from(w.subarray(r * unit, (r + 1) * unit)))),
            Int32Array.from(keep),
          ],
          { shape: [rows, unit] },
        );
        next.copyTo(local);
        next.dispose();
      });
      for (const step of c.steps) {
        kv.push(
          'w',
          step.pushes.map((p, i) => rsp(shape, p, cpu(i))),
        );
        const out = zerosRsp(shape, cpu(2));
        kv.rowSparsePull('w', { out, rowIds: nd.array(step.row_ids) });
        expect(await partsOf(out)).toEqual(step.pulled);
        const w = nd.zeros(shape);
        kv.pull('w', w);
        expect(await values(w)).toEqual(step.weight);
      }
      expect(keys).toEqual(['w', 'w', 'w']);
    }, type);
  });

  it.each(['row_sparse', 'dense'])(
    'setOptimizer(SGD): a lazy update of a %s key on the merged row_sparse gradient (NumPy)',
    async (stype) => {
      // The same steps as the custom updater above, through @mx/optimizer's SGD (MXNet's sgd_update
      // with lazy_update). MXNet updates a row_sparse weight only when it stores every row.
      const c = golden.lazy_sgd;
      await withStore(async (kv) => {
        const dense = rsp(c.shape, c.init).asDense();
        const rows = BigInt64Array.from({ length: c.shape[0] as number }, (_, r) => BigInt(r));
        kv.init(
          'w',
          stype === 'dense'
            ? dense
            : nd.sparse.rowSparseArray([dense.dataSync() as Float32Array, rows], { shape: c.shape }),
        );
        kv.setOptimizer(createOptimizer('sgd', { learningRate: c.lr, lazyUpdate: true }));
        for (const step of c.steps) {
          kv.push(
            'w',
            step.pushes.map((p, i) => rsp(c.shape, p, cpu(i))),
          );
          const w = nd.zeros(c.shape);
          kv.pull('w', w);
          expect(await values(w)).toEqual(step.weight);
        }
      }, type);
    },
  );

  it("takes row_sparse pushes for a dense key (MXNet's test_single_kv_pair and test_updater)", async () => {
    await withStore(async (kv) => {
      const shape = [2, 3];
      kv.init(3, nd.zeros(shape));
      kv.push(3, nd.ones(shape).tostype('row_sparse'));
      const val = nd.empty(shape);
      kv.pull(3, val);
      expect(await values(val)).toEqual([1, 1, 1, 1, 1, 1]);
      // updater: local += recv, with the row_sparse sum of 4 devices, 4 times.
      kv.setUpdater((_key, recv, local) => {
        expect(recv.stype).toBe('row_sparse');
        const dense = (recv as RowSparseNDArray).asDense();
        local.addInplace(dense);
        dense.dispose();
      });
      const vals = [0, 1, 2, 3].map((i) => nd.ones(shape, { ctx: cpu(i) }).tostype('row_sparse'));
      for (let i = 0; i < 4; i++) kv.push(3, vals);
      kv.pull(3, val);
      expect(await values(val)).toEqual([17, 17, 17, 17, 17, 17]);
    }, type);
  });
});

describe('pull with row_sparse outputs (MXNet: ignored unless ignoreSparse is false)', () => {
  it("leaves row_sparse outputs untouched, warning once per key (MXNet's test_invalid_pull)", async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      await withStore(async (kv) => {
        kv.init(['a', 'b'], [nd.zeros([2, 3]), zerosRsp([2, 3])]);
        kv.push(['a', 'b'], [nd.ones([2, 3]).mul(5), nd.ones([2, 3]).tostype('row_sparse')]);
        const outs = [
          nd.ones([2, 3]).mul(2).tostype('row_sparse'),
          nd.ones([2, 3]).mul(2).tostype('row_sparse'),
        ];
        kv.pull(['a', 'b'], outs);
        kv.pull('a', outs[0] as NDArray);
        const dense = nd.zeros([2, 3]);
        kv.pushpull('a', nd.ones([2, 3]), [outs[0] as NDArray, dense]);
        for (const o of outs) expect(await values(o)).toEqual([2, 2, 2, 2, 2, 2]);
        expect(await values(dense)).toEqual([1, 1, 1, 1, 1, 1]);
        expect(warn.mock.calls.map((c) => String(c[0]).match(/key '(\w)'/)?.[1])).toEqual(['a', 'b']);
        expect(String(warn.mock.calls[0]?.[0])).toContain('non-default weights detected during kvstore pull');
      });
    } finally {
      warn.mockRestore();
    }
  });

  it('with ignoreSparse false copies the whole stored value (row_sparse or dense) into them', async () => {
    await withStore(async (kv) => {
      const c = golden.retain[0] as (typeof golden.retain)[0];
      kv.init(
        ['r', 'd'],
        [
          rsp(c.shape, c.stored),
          nd.array([
            [0, 1],
            [0, 0],
            [2, 0],
          ]),
        ],
      );
      const outs = [zerosRsp(c.shape, cpu(1)), zerosRsp([3, 2])];
      kv.pull(['r', 'd'], outs, { ignoreSparse: false });
      expect(await partsOf(outs[0] as NDArray)).toEqual(c.stored);
      expect(await partsOf(outs[1] as NDArray)).toEqual({ indices: [0, 2], data: [0, 1, 2, 0] });
      expect(() => kv.pull('r', outs[0] as NDArray, { ignoreSparse: 1 as never })).toThrow(/boolean/);
    });
  });
});

describe('bad row_sparse calls are MXNetErrors naming the key and shapes, changing nothing', () => {
  const caught = (f: () => void): MXNetError => {
    try {
      f();
    } catch (e) {
      expect(e).toBeInstanceOf(MXNetError);
      return e as MXNetError;
    }
    throw new Error('expected an MXNetError');
  };

  it('refuses row ids out of range, negative or fractional, and row ids of another storage type', async () => {
    await withStore(async (kv) => {
      const c = golden.retain[0] as (typeof golden.retain)[0];
      kv.init('e', rsp(c.shape, c.stored));
      const out = rsp(c.shape, c.expected);
      const e = caught(() => kv.rowSparsePull('e', { out, rowIds: nd.array([1, 6]) }));
      expect(e.message).toContain(
        "the row ids for key 'e' hold 6 (element 1), which is not a row of the key",
      );
      expect(e.message).toContain('(6, 3)');
      expect(e.shapes).toEqual([[2], [6, 3]]);
      expect(caught(() => kv.rowSparsePull('e', { out, rowIds: nd.array([-1]) })).message).toMatch(/hold -1/);
      expect(caught(() => kv.rowSparsePull('e', { out, rowIds: nd.array([0.5]) })).message).toMatch(
        /hold 0.5/,
      );
      const rspIds = nd.array([1, 2]).tostype('row_sparse');
      expect(caught(() => kv.rowSparsePull('e', { out, rowIds: rspIds })).message).toMatch(
        /Expected default storage type for row_sparse_pull rowids/,
      );
      // Several outputs: a bad second row-id array stops the whole call.
      const other = zerosRsp(c.shape);
      caught(() => kv.rowSparsePull('e', { out: [other, out], rowIds: [nd.array([0]), nd.array([9])] }));
      // Nothing was pulled, and the store still holds its value.
      expect(await partsOf(out)).toEqual(c.expected);
      expect(await partsOf(other)).toEqual({ indices: [], data: [] });
      const all = zerosRsp(c.shape);
      kv.rowSparsePull('e', { out: all, rowIds: nd.arange(0, 6) });
      expect((await partsOf(all)).indices).toEqual([0, 1, 2, 3, 4, 5]);
    });
  });

  it('refuses dense, mis-shaped or mis-typed outputs, dense keys and bad argument forms', async () => {
    await withStore(async (kv) => {
      kv.init(['e', 'd'], [nd.ones([4, 2]).tostype('row_sparse'), nd.ones([4, 2])]);
      const ids = nd.array([1]);
      const dense = caught(() => kv.rowSparsePull('e', { out: nd.zeros([4, 2]), rowIds: ids }));
      expect(dense.message).toContain(
        "Expected row_sparse storage type for row_sparse_pull values, but detected storage type default (output 0 for key 'e')",
      );
      const shape = caught(() => kv.rowSparsePull('e', { out: zerosRsp([4, 3]), rowIds: ids }));
      expect(shape.message).toContain(
        "output 0 for key 'e' is float32 (4, 3) on cpu(0), but the key holds float32 (4, 2)",
      );
      expect(shape.shapes).toEqual([
        [4, 3],
        [4, 2],
      ]);
      const int = nd.sparse.zeros('row_sparse', [4, 2], { dtype: 'int32' });
      expect(caught(() => kv.rowSparsePull('e', { out: int, rowIds: ids })).message).toMatch(/is int32/);
      expect(caught(() => kv.rowSparsePull('d', { out: zerosRsp([4, 2]), rowIds: ids })).message).toMatch(
        /key 'd' holds a dense value/,
      );
      expect(caught(() => kv.rowSparsePull('x', { out: zerosRsp([4, 2]), rowIds: ids })).message).toMatch(
        /key x doesn't exist/,
      );
      const two = [zerosRsp([4, 2]), zerosRsp([4, 2]), zerosRsp([4, 2])];
      expect(caught(() => kv.rowSparsePull('e', { out: two, rowIds: [ids, ids] })).message).toMatch(
        /got 2 row-id arrays for the 3 outputs/,
      );
      expect(caught(() => kv.rowSparsePull('e', { out: two[0] as NDArray } as never)).message).toMatch(
        /needs row ids/,
      );
      expect(caught(() => kv.rowSparsePull('e', undefined as never)).message).toMatch(
        /needs \{ out, rowIds \}/,
      );
      expect(
        caught(() => kv.rowSparsePull(['e', 'e'], { out: two.slice(0, 2), rowIds: [ids] })).message,
      ).toMatch(/got 2 keys and 1 row ids/);
    });
  });

  it('refuses dense pushes to row_sparse keys, mixed storage types, csr values, and compression', async () => {
    await withStore(async (kv) => {
      kv.init('e', nd.ones([4, 2]).tostype('row_sparse'));
      expect(caught(() => kv.push('e', nd.ones([4, 2]))).message).toContain(
        "value 0 for key 'e' is dense, but the key holds a row_sparse value",
      );
      expect(
        caught(() => kv.push('e', [nd.ones([4, 2]).tostype('row_sparse'), nd.ones([4, 2])])).message,
      ).toMatch(/dense, but the key holds a row_sparse value/);
      kv.init('d', nd.ones([4, 2]));
      expect(
        caught(() => kv.push('d', [nd.ones([4, 2]).tostype('row_sparse'), nd.ones([4, 2])])).message,
      ).toMatch(/the values pushed for key 'd' mix storage types \(row_sparse, default\)/);
      expect(caught(() => kv.init('c', nd.ones([4, 2]).tostype('csr'))).message).toMatch(
        /the value for key 'c' is csr; a store holds default or row_sparse values/,
      );
      expect(caught(() => kv.pull('d', nd.ones([4, 2]).tostype('csr'))).message).toMatch(/is csr/);
      expect(kv.keys()).toEqual(['e', 'd']);
      const all = zerosRsp([4, 2]);
      kv.rowSparsePull('e', { out: all, rowIds: nd.arange(0, 4) });
      expect(await values(all)).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
    });
    await withStore(async (kv) => {
      kv.setGradientCompression({ type: '2bit', threshold: 0.5 });
      kv.init('e', zerosRsp([4, 2]));
      expect(caught(() => kv.push('e', nd.ones([4, 2]).tostype('row_sparse'))).message).toMatch(
        /Gradient compression for row sparse storage type is not supported/,
      );
    }, 'device');
  });
});
