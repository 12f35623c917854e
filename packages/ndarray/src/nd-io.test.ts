import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpu, gpu } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime, type NDArray } from './index.js';
import { HostTestBackend } from './test-util/host-backend.js';

const rt = createRuntime({
  backends: [new CpuWasmBackend({ initialPages: 16 }), new HostTestBackend()],
  seed: 1,
});
const { nd } = rt;
const dir = mkdtempSync(join(tmpdir(), 'mx-nd-io-'));
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await rt.dispose();
});

describe('nd.save / nd.load', () => {
  it('loads the MXNet fixture legacy_ndarray.v0 as six arrays equal to arange(128)', async () => {
    const path = fileURLToPath(new URL('./io/__fixtures__/legacy_ndarray.v0', import.meta.url));
    const arrays = (await nd.load(path)) as NDArray[];
    expect(arrays).toHaveLength(6);
    for (const a of arrays) {
      expect(a.shape).toEqual([128]);
      expect([...(await a.data())]).toEqual(Array.from({ length: 128 }, (_, i) => i));
      a.dispose();
    }
  });

  it('round-trips lists and named dicts through every format, keeping dtypes and shapes', async () => {
    await nd.leakCheck(async () => {
      const a = nd.array([
        [1, 2, 3],
        [4, 5, 6],
      ]);
      const b = nd.array([7n, -8n], { dtype: 'int64' });
      const s = nd.array(2.5, { dtype: 'float64' });
      const z = nd.array(new Float32Array(0), { shape: [2, 0] });
      for (const [file, opts] of [
        ['x.params', {}],
        ['x.npz', {}],
      ] as const) {
        const path = join(dir, file);
        await nd.save(path, { a, b, s, z }, opts);
        const back = (await nd.load(path)) as Record<string, NDArray>;
        expect(Object.keys(back).sort()).toEqual(['a', 'b', 's', 'z']);
        expect(await back.a?.array()).toEqual(await a.array());
        expect(back.b?.dtype).toBe('int64');
        expect([...((await back.b?.data()) ?? [])]).toEqual([7n, -8n]);
        expect(back.s?.shape).toEqual([]);
        expect(back.z?.shape).toEqual([2, 0]);
        for (const v of Object.values(back)) v.dispose();
      }
      const list = (await nd.loadBytes(await nd.saveBytes([a, b]))) as NDArray[];
      expect(list.map((x) => x.dtype)).toEqual(['float32', 'int64']);
      for (const x of list) x.dispose();
      const one = nd.loadBytes(await nd.saveBytes(a, { format: 'npy' })) as NDArray[];
      expect(await one[0]?.array()).toEqual(await a.array());
      for (const x of [...one, a, b, s, z]) x.dispose();
    });
  });

  it('loads a GPU record onto a device this runtime serves, or onto the given ctx', async () => {
    // nd.save({'w': float32 [1, 2]}) from the catalog, with the record's device patched to gpu(0).
    const hex =
      '1201000000000000' +
      '0000000000000000' +
      '0100000000000000' +
      'c9fa93f9' +
      '00000000' +
      '01000000' +
      '0200000000000000' +
      '02000000' +
      '00000000' +
      '00000000' +
      '0000803f' +
      '00000040' +
      '0100000000000000' +
      '0100000000000000' +
      '77';
    const bytes = Uint8Array.from(hex.match(/../g) ?? [], (h) => Number.parseInt(h, 16));
    const onGpu = nd.loadBytes(bytes, { npShape: false }) as Record<string, NDArray>;
    expect(onGpu.w?.ctx).toBe(gpu(0));
    expect(await onGpu.w?.array()).toEqual([1, 2]);
    const onCpu = nd.loadBytes(bytes, { npShape: false, ctx: cpu(0) }) as Record<string, NDArray>;
    expect(onCpu.w?.ctx).toBe(cpu(0));
    onGpu.w?.dispose();
    onCpu.w?.dispose();
  });

  it('reports corrupted files as MXNetErrors naming the file, and creates nothing', async () => {
    const before = nd.memory().arrays;
    const path = join(dir, 'bad.params');
    const good = await nd.saveBytes([nd.keep(nd.array([1, 2, 3]))]);
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path, good.subarray(0, good.length - 3));
    await expect(nd.load(path)).rejects.toThrow(/bad\.params/);
    await expect(nd.load(join(dir, 'missing.params'))).rejects.toThrow(/cannot read/);
    expect(nd.memory().arrays).toBe(before + 1);
  });
});
