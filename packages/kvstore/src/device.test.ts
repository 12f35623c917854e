/**
 * The `device` store: MXNet's merge-buffer placement (InitMergeBuffer), sums on the devices, the
 * stored value following the updates, and gradient compression as CommDevice's ReduceCompressed
 * does it — checked against the NumPy transcription of MXNet's kernels
 * (tools/golden/kvstore/compression.py), over several pushes so the residuals carry over, on
 * cpu-wasm devices and on a device that only reads asynchronously.
 */
import { type Context, cpu, gpu, MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import golden from './__golden__/compression.json' with { type: 'json' };
import sums from './__golden__/store.json' with { type: 'json' };
import { placeMergeBuffers } from './comm.js';
import { QUANTIZE_OP } from './compression/ops.js';
import type { CompressionType } from './compression/quantize.js';
import { LocalKVStore } from './local.js';
import { AsyncTestBackend } from './test-util/async-backend.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 }), new AsyncTestBackend()] });
const { nd } = rt;
afterAll(async () => {
  await rt.dispose();
});

async function values(a: NDArray): Promise<number[]> {
  return Array.from((await a.data()) as Float32Array);
}

async function withStore(body: (kv: LocalKVStore) => Promise<void> | void): Promise<void> {
  await nd.leakCheck(async () => {
    const kv = new LocalKVStore(rt, 'device');
    try {
      await nd.scope(async () => {
        await body(kv);
      });
    } finally {
      kv.dispose();
    }
  });
}

describe('merge buffer placement (MXNet CommDevice::InitMergeBuffer)', () => {
  it('puts the largest keys first, each on the least loaded device, ties to the first device', () => {
    const [d0, d1] = [gpu(0), gpu(1)];
    const keys = new Map([
      [1, { shape: [10], dtype: 'float32' as const }],
      [2, { shape: [3, 10], dtype: 'float32' as const }],
      [3, { shape: [20], dtype: 'float32' as const }],
      [4, { shape: [5], dtype: 'float32' as const }],
    ]);
    const where = placeMergeBuffers([d0, d1], keys);
    // 30 → d0 (both empty); 20 → d1; 10 → d1 (20 < 30); 5 → d0 (30 = 30, the first device).
    expect([2, 3, 1, 4].map((k) => where.get(k))).toEqual([d0, d1, d1, d0]);
    // Keys placed earlier count towards their device's load.
    const later = placeMergeBuffers(
      [d0, d1],
      new Map([[9, { shape: [1], dtype: 'float32' as const }]]),
      new Map([[2, { ctx: d0, attrs: keys.get(2) as never }]]),
    );
    expect(later.get(9)).toBe(d1);
  });

  it('spreads the keys of a store over the devices of the first push', async () => {
    await withStore(async (kv) => {
      const devs = [cpu(0), cpu(1)];
      kv.init([0, 1, 2], [nd.zeros([8]), nd.zeros([4]), nd.zeros([6])]);
      kv.push(
        [0, 1, 2],
        [8, 4, 6].map((n) => devs.map((ctx) => nd.ones([n], { ctx }))),
      );
      expect([0, 1, 2].map((k) => kv.mergeContext(k))).toEqual([cpu(0), cpu(1), cpu(1)]);
      const out = nd.zeros([6], { ctx: cpu(0) });
      kv.pull(2, out);
      expect(await values(out)).toEqual([2, 2, 2, 2, 2, 2]);
    });
  });
});

describe('device store without compression', () => {
  it('sums float32 values on the merge device as ElementwiseSum (NumPy)', async () => {
    const s = sums.sums[2] as { shape: number[]; values: number[][]; sequential: number[] };
    await withStore(async (kv) => {
      kv.init('w', nd.zeros(s.shape));
      const devs = [cpu(1), cpu(0), cpu(2), cpu(1)];
      kv.push(
        'w',
        s.values.map((v, i) => nd.array(Float32Array.from(v), { shape: s.shape, ctx: devs[i] })),
      );
      expect(kv.mergeContext('w')).toBe(cpu(1));
      const out = nd.zeros(s.shape);
      kv.pull('w', out);
      expect(await values(out)).toEqual(Array.from(Float32Array.from(s.sequential)));
      expect(kv.storedContext('w')).toBe(cpu(1));
    });
  });

  it('runs the updater on the merge device (the stored value moves there, as MXNet does for GPUs)', async () => {
    await withStore(async (kv) => {
      kv.init(0, nd.array([1, 2]));
      expect(kv.storedContext(0)).toBe(cpu(0));
      const where: Context[] = [];
      kv.setUpdater((_k, recv, local) => {
        where.push(recv.ctx, local.ctx);
        local.addInplace(recv);
      });
      kv.push(0, [nd.array([1, 1], { ctx: cpu(2) }), nd.array([2, 2], { ctx: cpu(3) })]);
      expect(where).toEqual([cpu(2), cpu(2)]);
      expect(kv.storedContext(0)).toBe(cpu(2));
      const out = nd.zeros([2], { ctx: cpu(3) });
      kv.pull(0, out);
      expect(await values(out)).toEqual([4, 5]);
    });
  });
});

interface StorePush {
  readonly grads: number[][];
  readonly merged: number[];
}
interface StoreCase {
  readonly type: CompressionType;
  readonly threshold: number;
  readonly shape: number[];
  readonly pushes: StorePush[];
}
const scenarios = golden.store as unknown as StoreCase[];

function bits(a: ArrayLike<number>): number[] {
  return Array.from(new Uint32Array(Float32Array.from(a).buffer));
}

describe('device store with gradient compression (MXNet CommDevice::ReduceCompressed)', () => {
  const placements: [string, Context[]][] = [
    ['cpu-wasm devices', [cpu(0), cpu(1), cpu(2)]],
    ['a merge device and two async-read devices', [cpu(0), gpu(0), gpu(1)]],
  ];
  for (const s of scenarios) {
    for (const [where, devs] of placements) {
      it(`${s.type} t=${s.threshold}, 3 pushes from ${where}: pulls equal the golden sums`, async () => {
        await withStore(async (kv) => {
          kv.setGradientCompression({ type: s.type, threshold: s.threshold });
          kv.init('g', nd.zeros(s.shape));
          for (const [k, p] of s.pushes.entries()) {
            const grads = p.grads.map((g, d) =>
              nd.array(Float32Array.from(g), { shape: s.shape, ctx: devs[d] }),
            );
            kv.push('g', grads);
            const out = nd.empty(s.shape, { ctx: devs[1] });
            kv.pull('g', out);
            expect(bits(await values(out)), `push ${k}`).toEqual(bits(p.merged));
          }
          expect(kv.mergeContext('g')).toBe(cpu(0));
        });
      });
    }
  }

  it('compresses a single value too (pull gives the dequantized value, the rest stays as residual)', async () => {
    await withStore(async (kv) => {
      kv.setGradientCompression({ type: '2bit', threshold: 0.5 });
      kv.init('g', nd.zeros([4]));
      kv.push('g', nd.array([0.75, -0.6, 0.2, 1.7]));
      const out = nd.zeros([4]);
      kv.pull('g', out);
      expect(await values(out)).toEqual([0.5, -0.5, 0, 0.5]);
      // Residuals 0.25, -0.1, 0.2, 1.2: the next push of 0.3 everywhere crosses 0.5 for 0 and 2 only.
      kv.push('g', nd.full([4], 0.3));
      kv.pull('g', out);
      expect(await values(out)).toEqual([0.5, 0, 0.5, 0.5]);
      expect(rt.registry.has(QUANTIZE_OP)).toBe(true);
    });
  });

  it('refuses non-float32 values, a value from another device than its residual, and local stores', async () => {
    await withStore(async (kv) => {
      kv.setGradientCompression({ type: '1bit' });
      expect(kv.gradientCompression?.encode()).toBe('1,0.500000');
      const half = () => nd.array([0, 0, 0], { dtype: 'float16' });
      kv.init(['h', 'f'], [half(), nd.zeros([3])]);
      expect(() => kv.push('h', half())).toThrow(/works on float32 values/);
      kv.push('f', [nd.ones([3], { ctx: cpu(1) }), nd.ones([3], { ctx: cpu(2) })]);
      const e = (() => {
        try {
          kv.push('f', [nd.ones([3], { ctx: cpu(2) }), nd.ones([3], { ctx: cpu(1) })]);
        } catch (err) {
          return err as MXNetError;
        }
        return undefined;
      })();
      expect(e).toBeInstanceOf(MXNetError);
      expect(e?.message).toMatch(
        /value 0 for key 'f' is on cpu\(2\), but its compression residual lives on cpu\(1\)/,
      );
      const out = nd.zeros([3]);
      kv.pull('f', out);
      expect(await values(out)).toEqual([2, 2, 2]);
      expect(() => kv.setGradientCompression({ type: '2bit', threshold: 0 })).toThrow(/greater than 0/);
      expect(kv.gradientCompression?.type).toBe('1bit');
    });
  });
});
