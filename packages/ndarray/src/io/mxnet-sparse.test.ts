/**
 * Sparse records in MXNet list files against golden bytes written by a transcription of MXNet's
 * `NDArray::Save` (tools/golden/ndarray/sparse_params.py, values from SciPy/NumPy): the loader
 * reads the parts and dense values the generator stored, the writer reproduces the bytes exactly
 * (host level and through nd.save/nd.load), and malformed records are MXNetErrors naming the file,
 * the record and the broken rule. A fast-check run writes and reads random CSR arrays.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isMXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { CSRNDArray, createRuntime, type NDArray, RowSparseNDArray } from '../index.js';
import { loadMXNetList, loadMXNetRecord, saveMXNetList, saveMXNetRecord } from './index.js';
import { expectMXNetError, toHex } from './test-util.js';
import { type HostRecord, type HostSparseArray, isHostSparse } from './types.js';

interface Rec {
  stype: 'default' | 'csr' | 'row_sparse';
  shape: number[];
  storageShape?: number[];
  dtype: 'float32' | 'float64' | 'int64';
  auxDtypes?: ('int32' | 'int64')[];
  data?: number[];
  indices?: number[];
  indptr?: number[];
  dense: number[];
}
interface GoldenFile {
  name: string;
  names: string[] | null;
  records: Rec[];
  bytes: string;
}
const golden = JSON.parse(
  readFileSync(fileURLToPath(new URL('../__golden__/sparse-params.json', import.meta.url)), 'utf8'),
) as { files: GoldenFile[]; bad: { name: string; rule: string; bytes: string }[] };
const bytesOf = (b64: string) => new Uint8Array(Buffer.from(b64, 'base64'));
const nums = (a: ArrayLike<number | bigint> | undefined) => Array.from(a ?? [], Number);
const auxType = (a: unknown) =>
  a instanceof Int32Array ? 'int32' : a instanceof BigInt64Array ? 'int64' : '?';

/** Dense values of host parts, computed here from the definition of CSR / row_sparse. */
function densify(a: HostSparseArray): number[] {
  const out = new Array<number>(a.shape.reduce((x, y) => x * y, 1)).fill(0);
  const v = nums(a.data);
  const ix = nums(a.indices);
  if (a.stype === 'csr') {
    const ptr = nums(a.indptr);
    const cols = a.shape[1] as number;
    for (let r = 0; r + 1 < ptr.length; r++)
      for (let j = ptr[r] as number; j < (ptr[r + 1] as number); j++)
        out[r * cols + (ix[j] as number)] = v[j] as number;
  } else {
    const row = a.shape.slice(1).reduce((x, y) => x * y, 1);
    ix.forEach((r, k) => {
      for (let j = 0; j < row; j++) out[r * row + j] = v[k * row + j] as number;
    });
  }
  return out;
}

function expectRecord(got: HostRecord, want: Rec): void {
  expect(got.shape).toEqual(want.shape);
  expect(got.dtype).toBe(want.dtype);
  if (want.stype === 'default') {
    expect(isHostSparse(got)).toBe(false);
    expect(nums(got.data)).toEqual(want.dense);
    return;
  }
  if (!isHostSparse(got)) throw new Error('expected a sparse record');
  expect(got.stype).toBe(want.stype);
  expect(got.storageShape).toEqual(want.storageShape);
  expect(nums(got.data)).toEqual(want.data);
  expect(nums(got.indices)).toEqual(want.indices);
  expect(auxType(got.indices)).toBe(want.auxDtypes?.at(-1));
  if (want.stype === 'csr') {
    expect(nums(got.indptr)).toEqual(want.indptr);
    expect(auxType(got.indptr)).toBe(want.auxDtypes?.[0]);
  } else expect(got.indptr).toBeUndefined();
  expect(densify(got)).toEqual(want.dense);
}

describe('golden sparse list files (transcribed MXNet NDArray::Save)', () => {
  it.each(golden.files)('$name: loads the parts and rewrites the same bytes', (f) => {
    const bytes = bytesOf(f.bytes);
    const loaded = loadMXNetList(bytes, { npShape: false, sparse: true, source: `${f.name}.params` });
    expect(loaded.names).toEqual(f.names);
    expect(loaded.arrays).toHaveLength(f.records.length);
    for (const [i, a] of loaded.arrays.entries()) expectRecord(a, f.records[i] as Rec);
    const again =
      f.names === null
        ? saveMXNetList(loaded.arrays, { npShape: false })
        : saveMXNetList(new Map(f.names.map((n, i) => [n, loaded.arrays[i] as HostRecord])), {
            npShape: false,
          });
    expect(toHex(again)).toBe(toHex(bytes));
  });

  it('single sparse records round-trip through the raw-bytes form (pickling)', () => {
    for (const f of golden.files) {
      for (const a of loadMXNetList(bytesOf(f.bytes), { npShape: false, sparse: true }).arrays) {
        const raw = saveMXNetRecord(a, { npShape: false });
        expect(
          toHex(saveMXNetRecord(loadMXNetRecord(raw, { npShape: false, sparse: true }), { npShape: false })),
        ).toBe(toHex(raw));
      }
    }
  });

  it('callers that did not ask for sparse records, and np-shape loads, refuse them', () => {
    const bytes = bytesOf((golden.files.find((f) => f.name === 'mixed_named') as GoldenFile).bytes);
    expectMXNetError(
      () => loadMXNetList(bytes, { npShape: false, source: 'm.params' }),
      'm.params',
      'record 1 ("embed_csr")',
      'dense arrays only',
    );
    expectMXNetError(
      () => loadMXNetList(bytes, { npShape: 'global', sparse: true }),
      'np shape',
      'npShape: false',
    );
    expectMXNetError(() => loadMXNetList(bytes, { npShape: true, sparse: true }), 'np shape');
  });
});

describe('malformed sparse records', () => {
  it.each(golden.bad)('$name: an MXNetError naming the file, the record and the rule', (b) => {
    expectMXNetError(
      () => loadMXNetList(bytesOf(b.bytes), { npShape: false, sparse: true, source: 'bad.params' }),
      'bad.params',
      'record 0',
      b.rule,
    );
  });

  it('the writer refuses malformed parts, V3 and non-integer indices before writing anything', () => {
    const ok: HostSparseArray = {
      stype: 'csr',
      shape: [2, 3],
      dtype: 'float32',
      storageShape: [2],
      data: new Float32Array([1, 2]),
      indices: new BigInt64Array([0n, 2n]),
      indptr: new BigInt64Array([0n, 1n, 2n]),
    };
    expect(() => saveMXNetList([ok], { npShape: false })).not.toThrow();
    expectMXNetError(() => saveMXNetList([ok]), 'default storage', 'npShape: false');
    expectMXNetError(
      () => saveMXNetList([{ ...ok, indptr: new BigInt64Array([0n, 1n, 1n]) }], { npShape: false }),
      'array 0',
      'the last entry must equal nnz = 2',
    );
    expectMXNetError(
      () => saveMXNetList({ w: { ...ok, indices: new Float32Array([0, 2]) } }, { npShape: false }),
      'array "w"',
      'Int32Array or a BigInt64Array',
    );
    const rsp: HostSparseArray = {
      stype: 'row_sparse',
      shape: [3, 3],
      dtype: 'float32',
      storageShape: [1, 3],
      data: new Float32Array(3),
      indices: new BigInt64Array([0n, 2n]),
    };
    expectMXNetError(() => saveMXNetList([rsp], { npShape: false }), 'row_sparse', 'indices has k = 1');
    expectMXNetError(
      () => saveMXNetList([{ ...rsp, storageShape: [2, 3] }], { npShape: false }),
      'array 0 has 3 stored values, its storage shape (2, 3) needs 6',
    );
  });

  it('fast-check: damaged golden files load or fail with an MXNetError, never anything else', () => {
    const files = golden.files.map((f) => bytesOf(f.bytes));
    fc.assert(
      fc.property(
        fc.nat(files.length - 1),
        fc.array(fc.tuple(fc.nat(), fc.nat(255)), { minLength: 1, maxLength: 4 }),
        fc.nat(),
        (k, flips, cut) => {
          const src = files[k] as Uint8Array;
          const b = src.slice(0, src.length - (cut % 9));
          for (const [at, v] of flips) b[at % b.length] = v;
          try {
            loadMXNetList(b, { npShape: false, sparse: true });
          } catch (e) {
            expect(isMXNetError(e), String(e)).toBe(true);
          }
        },
      ),
      { seed: 7, numRuns: 400 },
    );
  });

  it('fast-check: random CSR arrays write and read back to the same parts', () => {
    const csr = fc
      .tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 1, max: 6 }))
      .chain(([rows, cols]) =>
        fc
          .array(fc.uniqueArray(fc.integer({ min: 0, max: cols - 1 }), { maxLength: cols }), {
            minLength: rows,
            maxLength: rows,
          })
          .map((rowCols) => ({ rows, cols, rowCols: rowCols.map((c) => [...c].sort((x, y) => x - y)) })),
      );
    fc.assert(
      fc.property(csr, ({ rows, cols, rowCols }) => {
        const indices = rowCols.flat();
        const indptr = [0];
        for (const c of rowCols) indptr.push((indptr.at(-1) as number) + c.length);
        const a: HostSparseArray = {
          stype: 'csr',
          shape: [rows, cols],
          dtype: 'float64',
          storageShape: [indices.length],
          data: Float64Array.from(indices, (c, i) => c + i / 8),
          indices: Int32Array.from(indices),
          indptr: Int32Array.from(indptr),
        };
        const [b] = loadMXNetList(saveMXNetList([a], { npShape: false }), {
          npShape: false,
          sparse: true,
        }).arrays;
        expect(b).toEqual({ ...a, ctx: { devType: 1, devId: 0 } });
      }),
      { seed: 20240611, numRuns: 100 },
    );
  });
});

describe('nd.save / nd.load with sparse arrays', () => {
  const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })] });
  afterAll(() => rt.dispose());

  it('loads CSRNDArray / RowSparseNDArray with the golden parts and saves the same bytes', async () => {
    const f = golden.files.find((g) => g.name === 'mixed_named') as GoldenFile;
    const bytes = bytesOf(f.bytes);
    const loaded = rt.nd.loadBytes(bytes, { npShape: false }) as Record<string, NDArray>;
    expect(Object.keys(loaded)).toEqual(f.names);
    expect(loaded.embed_csr).toBeInstanceOf(CSRNDArray);
    expect(loaded.embed_rsp).toBeInstanceOf(RowSparseNDArray);
    for (const [i, n] of (f.names as string[]).entries()) {
      const a = loaded[n] as NDArray;
      const want = f.records[i] as Rec;
      expect(nums(await a.data())).toEqual(want.dense);
      if (want.stype !== 'default')
        expectRecord(await (a as CSRNDArray).parts().then((p) => ({ ...p, dtype: a.dtype })), want);
    }
    expect(toHex(await rt.nd.saveBytes(loaded, { npShape: false }))).toBe(toHex(bytes));
    await expect(rt.nd.saveBytes(loaded)).rejects.toThrow('npShape: false');
    for (const a of Object.values(loaded)) a.dispose();
  });
});
