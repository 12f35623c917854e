import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpu, gpu, isMXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createRuntime, type NDArray } from './index.js';
import { saveMXNetList, saveNpz } from './io/index.js';
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

describe('strict loading at the NDArray level', () => {
  const hexBytes = (h: string) =>
    Uint8Array.from(h.replace(/\s+/g, '').match(/../g) ?? [], (x) => Number.parseInt(x, 16));

  it('refuses a legacy "none" record instead of returning an unwritten array', async () => {
    await nd.leakCheck(() => {
      const before = nd.memory().arrays;
      // A V2 list: a float32 (1,) array "w", then a "none" record "g" (stype 0, ndim 0).
      const bytes = hexBytes(
        '1201000000000000 0000000000000000 0200000000000000' +
          'c9fa93f9 00000000 01000000 0100000000000000 01000000 00000000 00000000 0000803f' +
          'c9fa93f9 00000000 00000000' +
          '0200000000000000 0100000000000000 77 0100000000000000 67',
      );
      expect(() => nd.loadBytes(bytes, { npShape: false })).toThrow(/record 1 \("g"\) is a "none" array/);
      expect(nd.memory().arrays).toBe(before);
    });
  });

  it('refuses to save a zero-dim array without np-shape semantics, pointing at npShape: true', async () => {
    await nd.leakCheck(async () => {
      const s = nd.array(1.5);
      await expect(nd.saveBytes({ s }, { npShape: false })).rejects.toThrow(
        /zero-dimensional[\s\S]*npShape: true/,
      );
      const back = nd.loadBytes(await nd.saveBytes({ s })) as Record<string, NDArray>;
      expect(await back.s?.array()).toBe(1.5);
      back.s?.dispose();
      s.dispose();
    });
  });

  it('duplicate names and bad devices fail without leaking, and caps pass through', async () => {
    await nd.leakCheck(() => {
      const before = nd.memory().arrays;
      const two = new Map([
        ['ab', { shape: [2], dtype: 'float32' as const, data: Float32Array.of(1, 2) }],
        ['cd', { shape: [1], dtype: 'float32' as const, data: Float32Array.of(3) }],
      ]);
      const dup = saveMXNetList(two);
      dup.set(new TextEncoder().encode('ab'), dup.length - 2);
      expect(() => nd.loadBytes(dup)).toThrow(/duplicate name "ab"/);
      const dev = saveMXNetList(two);
      new DataView(dev.buffer).setInt32(24 + 4 + 4 + 4 + 8 + 4, 255, true);
      expect(() => nd.loadBytes(dev)).toThrow(/record 0 \("ab"\).*dev_id 255/);
      expect(() => nd.loadBytes(saveMXNetList(two), { maxBytes: 8 })).toThrow(/over its cap of 8/);
      expect(() => nd.loadBytes(saveNpz(two), { maxBytes: 100 })).toThrow(/zip members' declared sizes/);
      expect(nd.memory().arrays).toBe(before);
    });
  });

  it('disposes the arrays already created when a later one fails', async () => {
    await nd.leakCheck(() => {
      const before = nd.memory().arrays;
      const bytes = saveMXNetList([
        { shape: [2], dtype: 'float32', data: Float32Array.of(1, 2) },
        { shape: [3], dtype: 'int32', data: Int32Array.of(1, 2, 3) },
      ]);
      const empty = rt.empty.bind(rt);
      let calls = 0;
      const spy = vi.spyOn(rt, 'empty').mockImplementation((shape, dtype, ctx) => {
        if (++calls === 2) throw new Error('allocation failed');
        return empty(shape, dtype, ctx);
      });
      try {
        expect(() => nd.loadBytes(bytes)).toThrow('allocation failed');
      } finally {
        spy.mockRestore();
      }
      expect(calls).toBe(2);
      expect(nd.memory().arrays).toBe(before);
    });
  });

  it('mutated files either load (and are disposed) or fail with an MXNetError, never leaking (property)', async () => {
    const base = [
      saveMXNetList({
        w: { shape: [2, 3], dtype: 'float32', data: new Float32Array(6).fill(0.5) },
        b: { shape: [3], dtype: 'int64', data: BigInt64Array.of(1n, 2n, 3n) },
      }),
      saveMXNetList([{ shape: [4], dtype: 'uint8', data: Uint8Array.of(1, 2, 3, 4) }], { npShape: false }),
      saveNpz({ x: { shape: [2, 2], dtype: 'float64', data: Float64Array.of(1, 2, 3, 4) } }),
    ];
    await nd.leakCheck(() => {
      const before = nd.memory().arrays;
      fc.assert(
        fc.property(
          fc.constantFrom(...base),
          fc.array(
            fc.tuple(fc.double({ min: 0, max: 0.999, noNaN: true }), fc.integer({ min: 0, max: 255 })),
            { maxLength: 3 },
          ),
          fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
          (file, flips, cutAt) => {
            let b = file.slice();
            for (const [at, v] of flips) b[Math.floor(at * b.length)] = v;
            if (cutAt !== undefined) b = b.subarray(0, Math.floor(cutAt * b.length));
            try {
              const out = nd.loadBytes(b);
              for (const a of Array.isArray(out) ? out : Object.values(out)) a.dispose();
            } catch (e) {
              if (!isMXNetError(e)) throw e;
            }
            expect(nd.memory().arrays).toBe(before);
          },
        ),
        { seed: 10, numRuns: 300 },
      );
    });
  });
});
