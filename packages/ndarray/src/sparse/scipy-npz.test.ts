/**
 * `nd.sparse` SciPy .npz functions through a runtime (cpu-wasm): real `scipy.sparse.save_npz`
 * files (tools/golden/sparse/scipy_npz.py) load as the canonical CSRNDArray SciPy computes, our
 * saved arrays load back, and refusals (row_sparse, dense, bsr/dia, unsupported data dtypes, bad
 * paths) are MXNetErrors naming the file or array that leave nothing allocated.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpu, Env } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { CSRNDArray, createRuntime } from '../index.js';
import { loadScipyNpz } from '../io/scipy-npz.js';
import { fixture, golden } from '../io/scipy-test-util.js';
import { expectMXNetError } from '../io/test-util.js';
import { createSparseNpz } from './scipy-npz.js';

const backend = new CpuWasmBackend({ workers: 0 });
const rt = createRuntime({ backends: [backend], env: new Env({ MXNET_STORAGE_FALLBACK_LOG_VERBOSE: '0' }) });
const nd = rt.nd;
const npz = createSparseNpz(rt);
const dir = mkdtempSync(join(tmpdir(), 'mx-sparse-npz-'));
afterAll(() => {
  rt.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const nums = (a: ArrayLike<number | bigint> | undefined) => Array.from(a ?? [], Number);
const fixturePath = (file: string) =>
  fileURLToPath(new URL(`../io/__fixtures__/scipy/${file}`, import.meta.url));
// Data dtypes sparse arrays hold here (nd.sparse.csrMatrix); SciPy's bool matrices are refused.
const readable = golden.cases.filter((c) => c.refused === undefined && c.dtype !== 'bool');

describe('loadNpz: real SciPy files as canonical CSRNDArrays', () => {
  it.each(readable)('$file ($format $dtype)', async (c) => {
    await nd.leakCheck(async () => {
      const a = npz.loadNpzBytes(fixture(c.file), {}, c.file);
      expect(a).toBeInstanceOf(CSRNDArray);
      expect([a.stype, a.shape, a.dtype, a.ctx.toString()]).toEqual(['csr', c.shape, c.dtype, 'cpu(0)']);
      const p = await a.parts();
      expect([nums(p.data), nums(p.indices), nums(p.indptr)]).toEqual([c.data, c.indices, c.indptr]);
      // MXNet's aux type: int64, whatever SciPy stored.
      expect([p.indices.constructor, p.indptr?.constructor]).toEqual([BigInt64Array, BigInt64Array]);
      expect(nums(await a.data())).toEqual(c.dense);
      await a.checkFormat();
      a.dispose();
    });
  });

  it('reads a path, on the device asked for', async () => {
    const a = await npz.loadNpz(fixturePath('coo_duplicates.npz'), { ctx: cpu(0) });
    const c = golden.cases.find((x) => x.file === 'coo_duplicates.npz');
    expect(nums(a.dataSync())).toEqual(c?.dense);
    a.dispose();
  });

  it('refuses what MXNet sparse arrays cannot hold, naming the file, allocating nothing', async () => {
    await nd.leakCheck(async () => {
      expectMXNetError(
        () => npz.loadNpzBytes(fixture('bsr.npz'), {}, 'bsr.npz'),
        'sparse.loadNpz: bsr.npz: format.npy: bsr matrices are not supported',
      );
      expectMXNetError(
        () => npz.loadNpzBytes(fixture('dia.npz'), {}, 'dia.npz'),
        'dia matrices are not supported',
      );
      expectMXNetError(
        () => npz.loadNpzBytes(fixture('csr_bool.npz'), {}, 'csr_bool.npz'),
        'sparse.loadNpz: csr_bool.npz: sparse data cannot be bool',
      );
      expectMXNetError(() => npz.loadNpzBytes(fixture('csr_complex64.npz')), '<bytes>[data.npy]', "'<c8'");
      await expect(npz.loadNpz(join(dir, 'missing.npz'))).rejects.toThrow(
        /sparse.loadNpz: cannot read .*missing.npz/,
      );
      // A dense npz is not a SciPy sparse file.
      const zeros = nd.zeros([2]);
      const dense = await nd.saveBytes({ a: zeros }, { format: 'npz' });
      zeros.dispose();
      expectMXNetError(() => npz.loadNpzBytes(dense), 'no format.npy member');
    });
  });

  it('applies the load caps', () => {
    expectMXNetError(
      () => npz.loadNpzBytes(fixture('csr_float32.npz'), { maxBytes: 16 }),
      'over its cap of 16',
    );
  });
});

describe('saveNpz', () => {
  it.each(readable)('round-trips $file', async (c) => {
    const a = npz.loadNpzBytes(fixture(c.file), {}, c.file);
    const bytes = await npz.saveNpzBytes(a);
    // The host codec reads it as the same canonical CSR.
    const host = loadScipyNpz(bytes, 'ours.npz').array;
    expect([nums(host.data as ArrayLike<number>), nums(host.indices), nums(host.indptr), host.dtype]).toEqual(
      [c.data, c.indices, c.indptr, c.dtype],
    );
    const back = npz.loadNpzBytes(bytes);
    expect(nums(back.dataSync())).toEqual(c.dense);
    a.dispose();
    back.dispose();
  });

  it('saves arrays made by tostype after their pending writes; appends .npz as SciPy does', async () => {
    const dense = nd.array(
      [
        [0, 1.5, 0],
        [0, 0, 0],
        [-2, 0, 4],
      ],
      { dtype: 'float64' },
    );
    const csr = dense.tostype('csr');
    const path = await npz.saveNpz(join(dir, 'm'), csr);
    expect(path).toBe(join(dir, 'm.npz'));
    const host = loadScipyNpz(new Uint8Array(readFileSync(path)), path).array;
    expect([nums(host.data as Float64Array), nums(host.indices), nums(host.indptr)]).toEqual([
      [1.5, -2, 4],
      [1, 0, 2],
      [0, 1, 1, 3],
    ]);
    expect(await npz.saveNpz(join(dir, 'n.npz'), csr)).toBe(join(dir, 'n.npz'));
    for (const a of [dense, csr]) a.dispose();
  });

  it('refuses row_sparse (scipy.sparse has no such format) and dense arrays', async () => {
    const dense = nd.array([
      [1, 0],
      [0, 0],
    ]);
    const rsp = dense.tostype('row_sparse');
    await expect(npz.saveNpzBytes(rsp)).rejects.toThrow(
      /scipy.sparse has no row_sparse format[\s\S]*tostype\('csr'\)/,
    );
    await expect(npz.saveNpzBytes(dense)).rejects.toThrow(/is dense[\s\S]*tostype\('csr'\)/);
    rsp.dispose();
    await expect(npz.saveNpzBytes(rsp)).rejects.toThrow(/disposed/);
    dense.dispose();
  });
});
