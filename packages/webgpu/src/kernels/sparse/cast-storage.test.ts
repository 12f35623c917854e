/**
 * cast_storage on gpu(0). Kernel level (blocks carved by a small harness, completion through
 * `onComplete`): SciPy's golden parts (tools/golden/sparse/cast_storage.py, float32 cases) for
 * dense → csr / row_sparse and back, with int32 and int64 index blocks, req=add, copies that
 * convert index types, views at element offsets, MXNet's "nonzero" (-0.0 is zero, NaN is not)
 * against cpu-wasm, and the refusals. NDArray level: int32-indexed sparse arrays made on gpu(0)
 * read back dense, and — through a backend that also stores int64, as MXNet's aux type needs —
 * `tostype`, `castStorage` and the storage fallback of a dense-only op.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DType, type DTypeName, Env, type Shape, shapeSize } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray, type Runtime } from '@mx/ndarray';
import {
  type OpContext,
  OpReq,
  type OpReqType,
  type SparseBlob,
  type SparseOutput,
  type TBlob,
} from '@mx/ops';
import { afterAll, describe, expect, it } from 'vitest';
import type { WebGpuBackend } from '../../backend.js';
import { CPU, GPU, gpuTestEnv } from '../../test-util/gpu.js';

interface Case {
  name: string;
  dtype: 'float32' | 'float64';
  shape: number[];
  dense: number[];
  data: number[];
  indices: number[];
  indptr?: number[];
}
const golden = JSON.parse(
  readFileSync(
    fileURLToPath(new URL('../../../../cpu-wasm/src/__golden__/sparse-cast-storage.json', import.meta.url)),
    'utf8',
  ),
) as { csr: Case[]; row_sparse: Case[] };
const CSR = golden.csr.filter((c) => c.dtype === 'float32');
const RSP = golden.row_sparse.filter((c) => c.dtype === 'float32');

const env = await gpuTestEnv();
const d = typeof env === 'string' ? describe.skip : describe;
if (typeof env === 'string') console.warn(`webgpu cast_storage: skipping: ${env}`);
const E = env as Exclude<typeof env, string>;
const nums = (a: ArrayLike<number | bigint> | undefined) => Array.from(a ?? [], Number);
type Blob = TBlob<GPUBuffer>;
type Aux = 'int32' | 'int64';

/** A block of `shape` (at element offset `at` in its buffer), optionally filled with `values`. */
function blob(shape: Shape, dtype: DTypeName, values?: ArrayLike<number>, at = 0): Blob {
  const size = shapeSize(shape);
  const bytes = DType[dtype].bytes;
  const b: Blob = {
    ptr: size === 0 ? null : E.backend.rt.createBuffer((size + at) * bytes + 8),
    byteOffset: at * bytes,
    shape: [...shape],
    dtype,
    size,
  };
  if (values !== undefined && size > 0) {
    const info = DType[dtype];
    E.backend.write(
      b,
      info.bigint ? BigInt64Array.from(values, (v) => BigInt(v)) : new info.storage(values as never),
    );
  }
  return b;
}

const read = async (b: Blob) => nums((await E.backend.read(b)) as ArrayLike<number | bigint>);

function output(
  stype: 'csr' | 'row_sparse',
  shape: Shape,
  dtype: DTypeName,
  aux: Aux,
): SparseOutput<GPUBuffer> {
  let state: { storageShape: Shape; data: Blob; aux: Blob[] } | undefined;
  const get = () => state as NonNullable<typeof state>;
  return {
    stype,
    shape,
    dtype,
    auxTypes: stype === 'csr' ? [aux, aux] : [aux],
    alloc(storageShape, auxShapes) {
      state = { storageShape, data: blob(storageShape, dtype), aux: auxShapes.map((s) => blob(s, aux)) };
    },
    get storageShape() {
      return get().storageShape;
    },
    get data() {
      return get().data;
    },
    get aux() {
      return get().aux;
    },
  };
}

function sparseInput(
  c: Case,
  stype: 'csr' | 'row_sparse',
  aux: Aux,
  dtype: DTypeName = 'float32',
): SparseBlob<GPUBuffer> {
  const k = c.indices.length;
  const storageShape = stype === 'csr' ? [k] : [k, ...c.shape.slice(1)];
  return {
    stype,
    shape: c.shape,
    dtype,
    storageShape,
    data: blob(storageShape, dtype, c.data),
    aux:
      stype === 'csr'
        ? [blob([(c.shape[0] as number) + 1], aux, c.indptr), blob([k], aux, c.indices)]
        : [blob([k], aux, c.indices)],
    auxTypes: stype === 'csr' ? [aux, aux] : [aux],
  };
}

/** Runs the webgpu computeEx; resolves when the kernel calls onComplete (rejects with its error). */
function run(
  stype: string,
  input: Blob | SparseBlob<GPUBuffer>,
  out: Blob | SparseOutput<GPUBuffer>,
  req: OpReqType = OpReq.write,
) {
  const registry = E.runtime.registry;
  const kernel = registry.kernel(registry.get('cast_storage'), 'webgpu');
  return new Promise<void>((resolve, reject) => {
    const ctx: OpContext = {
      isTrain: false,
      needGrad: false,
      ctx: GPU,
      requested: [],
      onComplete: (e) => (e === undefined ? resolve() : reject(e)),
    };
    kernel?.computeEx?.({ stype }, ctx, [input], [req], [out]);
  });
}

async function parts(o: SparseOutput<GPUBuffer>) {
  return { data: await read(o.data), aux: await Promise.all(o.aux.map(read)), storageShape: o.storageShape };
}

d('cast_storage kernels on gpu(0) against SciPy', () => {
  for (const aux of ['int64', 'int32'] as const) {
    it.each(CSR)(`dense → csr → dense (${aux} indices): $name`, async (c) => {
      const out = output('csr', c.shape, 'float32', aux);
      await run('csr', blob(c.shape, 'float32', c.dense), out);
      expect(await parts(out)).toEqual({
        data: c.data,
        aux: [c.indptr, c.indices],
        storageShape: [c.data.length],
      });
      const dense = blob(c.shape, 'float32');
      await run('default', sparseInput(c, 'csr', aux), dense);
      expect(await read(dense)).toEqual(c.dense);
      // req=add onto ones.
      const acc = blob(
        c.shape,
        'float32',
        c.dense.map(() => 1),
      );
      await run('default', sparseInput(c, 'csr', aux), acc, OpReq.add);
      expect(await read(acc)).toEqual(c.dense.map((v) => v + 1));
    });

    it.each(RSP)(`dense → row_sparse → dense (${aux} indices): $name`, async (c) => {
      const out = output('row_sparse', c.shape, 'float32', aux);
      await run('row_sparse', blob(c.shape, 'float32', c.dense), out);
      expect(await parts(out)).toEqual({
        data: c.data,
        aux: [c.indices],
        storageShape: [c.indices.length, ...c.shape.slice(1)],
      });
      const dense = blob(
        c.shape,
        'float32',
        c.dense.map(() => 7),
      ); // overwritten, zeros included
      await run('default', sparseInput(c, 'row_sparse', aux), dense);
      expect(await read(dense)).toEqual(c.dense);
    });
  }

  it('copies csr and row_sparse arrays, converting int32 ↔ int64 index blocks', async () => {
    const c = CSR.find((x) => x.name === 'csr (7, 3) density 0.3 float32') as Case;
    for (const [from, to] of [
      ['int32', 'int64'],
      ['int64', 'int32'],
      ['int64', 'int64'],
    ] as const) {
      const out = output('csr', c.shape, 'float32', to);
      await run('csr', sparseInput(c, 'csr', from), out);
      expect(await parts(out)).toEqual({
        data: c.data,
        aux: [c.indptr, c.indices],
        storageShape: [c.data.length],
      });
    }
    const r = RSP.find((x) => x.name === 'row_sparse (4, 2, 3) density 0.3 float32') as Case;
    const out = output('row_sparse', r.shape, 'float32', 'int64');
    await run('row_sparse', sparseInput(r, 'row_sparse', 'int32'), out);
    expect((await parts(out)).aux).toEqual([r.indices]);
  });

  it("treats -0.0 as zero and NaN as nonzero (MXNet's v != 0), as cpu-wasm does", async () => {
    const shape = [3, 4];
    const values = [0, -0, Number.NaN, 1.5, -0, 0, 0, 0, 2, Number.NaN, -3, 0];
    const cpuDense = E.runtime.nd.array(Float32Array.from(values), { shape, ctx: CPU });
    const cpu = cpuDense.tostype('csr');
    const want = await cpu.parts();
    const out = output('csr', shape, 'float32', 'int64');
    await run('csr', blob(shape, 'float32', values), out);
    expect(await parts(out)).toEqual({
      data: nums(want.data),
      aux: [nums(want.indptr), nums(want.indices)],
      storageShape: want.storageShape,
    });
    // Rows: all (signed) zeros; a NaN among zeros; a 5.
    const rsp = output('row_sparse', shape, 'float32', 'int32');
    await run('row_sparse', blob(shape, 'float32', [-0, 0, -0, 0, 0, Number.NaN, -0, 0, 0, 0, 0, 5]), rsp);
    expect((await parts(rsp)).aux).toEqual([[1, 2]]);
    cpuDense.dispose();
    cpu.dispose();
  });

  it('serves int32 and uint32 data, and views at element offsets', async () => {
    const shape = [2, 5];
    const values = [0, 4, 0, 0, 9, 7, 0, 0, 0, 1];
    for (const dtype of ['int32', 'uint32'] as const) {
      const out = output('csr', shape, dtype, 'int64');
      await run('csr', blob(shape, dtype, values, 3), out);
      expect(await parts(out)).toEqual({
        data: [4, 9, 7, 1],
        aux: [
          [0, 2, 4],
          [1, 4, 0, 4],
        ],
        storageShape: [4],
      });
      const dense = blob(shape, dtype, undefined, 5);
      const c = {
        name: '',
        dtype: 'float32',
        shape,
        dense: values,
        data: [4, 9, 7, 1],
        indices: [1, 4, 0, 4],
        indptr: [0, 2, 4],
      } as Case;
      await run('default', sparseInput(c, 'csr', 'int32', dtype), dense);
      expect(await read(dense)).toEqual(values);
    }
  });

  it('copies dense to dense (write and add)', async () => {
    const x = blob([5], 'float32', [1, 2, 3, 4, 5]);
    const y = blob([5], 'float32', [10, 10, 10, 10, 10], 2);
    await run('default', x, y);
    expect(await read(y)).toEqual([1, 2, 3, 4, 5]);
    await run('default', x, y, OpReq.add);
    expect(await read(y)).toEqual([2, 4, 6, 8, 10]);
  });

  it('refuses req=add into a sparse output and mismatched storage types, through onComplete', async () => {
    const c = CSR.find((x) => x.name === 'csr (4, 5) density 0.3 float32') as Case;
    await expect(
      run('csr', blob(c.shape, 'float32', c.dense), output('csr', c.shape, 'float32', 'int64'), OpReq.add),
    ).rejects.toThrow(/cannot accumulate \(req=add\) into a sparse output/);
    await expect(
      run('row_sparse', sparseInput(c, 'csr', 'int64'), output('row_sparse', c.shape, 'float32', 'int64')),
    ).rejects.toThrow(/cast from csr to row_sparse is not supported/);
  });
});

/** The test backend seen through a proxy that also stores int64 (MXNet's index type). */
function withInt64(backend: WebGpuBackend): WebGpuBackend {
  const caps = {
    ...backend.capabilities,
    storageDTypes: [...backend.capabilities.storageDTypes, 'int64' as const],
  };
  return new Proxy(backend, {
    get(target, prop) {
      if (prop === 'capabilities') return caps;
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

d('sparse NDArrays on gpu(0)', () => {
  let rt64: Runtime | undefined;
  afterAll(() => rt64?.dispose());

  it('reads int32-indexed csr and row_sparse arrays made on gpu(0) back dense', async () => {
    const nd = E.runtime.nd;
    const c = CSR.find((x) => x.name === 'csr (16, 9) density 0.3 float32') as Case;
    const csr = nd.sparse.csrMatrix(
      [Float32Array.from(c.data), Int32Array.from(c.indices), Int32Array.from(c.indptr ?? [])],
      {
        shape: c.shape,
        ctx: GPU,
      },
    );
    expect(nums(await csr.data())).toEqual(c.dense);
    const dense = csr.tostype('default');
    expect([dense.stype, dense.ctx.toString(), nums(await dense.data())]).toEqual([
      'default',
      'gpu(0)',
      c.dense,
    ]);
    const r = RSP.find((x) => x.name === 'row_sparse (12, 7) density 0.3 float32') as Case;
    const rsp = nd.sparse.rowSparseArray(
      { data: Float32Array.from(r.data), indices: Int32Array.from(r.indices) },
      { shape: r.shape, ctx: GPU },
    );
    expect(nums(await rsp.data())).toEqual(r.dense);
    for (const a of [csr, dense, rsp]) a.dispose();
  });

  it('casts with tostype/castStorage and runs dense-only ops through the storage fallback', async () => {
    rt64 = createRuntime({
      backends: [new CpuWasmBackend({ workers: 0 }), withInt64(E.backend)],
      env: new Env({ MXNET_STORAGE_FALLBACK_LOG_VERBOSE: '0' }),
    });
    const nd = rt64.nd;
    await nd.leakCheck(async () => {
      for (const c of CSR.filter((x) => x.shape[0] !== 0)) {
        const dense = nd.array(Float32Array.from(c.dense), { shape: c.shape, ctx: GPU });
        const csr = dense.tostype('csr');
        const p = await csr.parts();
        expect([nums(p.data), nums(p.indices), nums(p.indptr), p.indices.constructor]).toEqual([
          c.data,
          c.indices,
          c.indptr,
          BigInt64Array,
        ]);
        const back = nd.castStorage(csr, 'default');
        expect(nums(await back.data())).toEqual(c.dense);
        // exp has no sparse kernel: csr → dense (this kernel), exp, a dense result — the values
        // of exp on the dense array.
        const e = nd.exp(csr) as NDArray;
        const want = nd.exp(dense) as NDArray;
        expect(e.stype).toBe('default');
        expect(nums(await e.data())).toEqual(nums(await want.data()));
        for (const a of [dense, csr, back, e, want]) a.dispose();
      }
      for (const c of RSP) {
        const dense = nd.array(Float32Array.from(c.dense), { shape: c.shape, ctx: GPU });
        const rsp = dense.tostype('row_sparse');
        const p = await rsp.parts();
        expect([nums(p.data), nums(p.indices)]).toEqual([c.data, c.indices]);
        expect(nums(await rsp.data())).toEqual(c.dense);
        for (const a of [dense, rsp]) a.dispose();
      }
    });
  });
});
