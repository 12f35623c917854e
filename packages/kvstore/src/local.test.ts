/**
 * The `local` store: MXNet's documented examples (the docstrings of python/mxnet/kvstore/kvstore.py
 * give the printed values), float sums against NumPy (tools/golden/kvstore/store.py), the updater
 * protocol, ownership of stored values, arrays on a device that cannot read synchronously, and every
 * bad call as an MXNetError that changes nothing.
 */
import { cpu, gpu, MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import golden from './__golden__/store.json' with { type: 'json' };
import type { KVKey } from './keys.js';
import { LocalKVStore } from './local.js';
import { AsyncTestBackend } from './test-util/async-backend.js';

const asyncBackend = new AsyncTestBackend();
const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 }), asyncBackend] });
const { nd } = rt;
afterAll(async () => {
  await rt.dispose();
});

async function values(a: NDArray): Promise<number[]> {
  return Array.from((await a.data()) as Float32Array);
}

/** Run `body` with a fresh local store under the leak check; the store is disposed after. */
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

describe('local store: the examples of MXNet kvstore.py', () => {
  const shape = [2, 3];
  it('init, pull, push, push a list (summed), several keys, pull into several outputs', async () => {
    await withStore(async (kv) => {
      kv.init('3', nd.ones(shape).mul(2));
      const a = nd.zeros(shape);
      kv.pull('3', a);
      expect(await values(a)).toEqual([2, 2, 2, 2, 2, 2]);

      kv.push('3', nd.ones(shape).mul(8));
      kv.pull('3', a);
      expect(await values(a)).toEqual([8, 8, 8, 8, 8, 8]);

      // "aggregate the value and the push": four devices' ones sum to 4.
      const devs = [cpu(0), cpu(1), cpu(2), cpu(3)];
      kv.push(
        '3',
        devs.map((ctx) => nd.ones(shape, { ctx })),
      );
      kv.pull('3', a);
      expect(await values(a)).toEqual([4, 4, 4, 4, 4, 4]);

      const keys = ['5', '7', '9'];
      kv.init(
        keys,
        keys.map(() => nd.ones(shape).mul(2)),
      );
      kv.push(
        keys,
        keys.map(() => nd.ones(shape)),
      );
      const b = keys.map(() => nd.zeros(shape));
      kv.pull(keys, b);
      expect(await values(b[1] as NDArray)).toEqual([1, 1, 1, 1, 1, 1]);

      // Multiple devices per key: each key gets the sum, and every output a copy.
      kv.push(
        keys,
        keys.map(() => devs.map((ctx) => nd.ones(shape, { ctx }))),
      );
      const outs = keys.map(() => devs.map((ctx) => nd.zeros(shape, { ctx })));
      kv.pull(keys, outs);
      for (const row of outs) for (const o of row) expect(await values(o)).toEqual([4, 4, 4, 4, 4, 4]);
      expect(outs[1]?.[1]?.ctx).toBe(cpu(1));
    });
  });

  it('pushpull into outputs or back into the values, and broadcast', async () => {
    await withStore(async (kv) => {
      kv.init('3', nd.zeros(shape));
      const a = nd.zeros(shape);
      kv.pushpull('3', nd.ones(shape).mul(8), a);
      expect(await values(a)).toEqual([8, 8, 8, 8, 8, 8]);
      const b = [cpu(0), cpu(1), cpu(2), cpu(3)].map((ctx) => nd.ones(shape, { ctx }));
      kv.pushpull('3', b);
      for (const x of b) expect(await values(x)).toEqual([4, 4, 4, 4, 4, 4]);

      const c = nd.zeros(shape);
      kv.broadcast('4', nd.ones(shape).mul(2), c);
      expect(await values(c)).toEqual([2, 2, 2, 2, 2, 2]);
      expect(() => kv.broadcast('4', nd.ones(shape), c)).toThrow(/duplicate init of key '4'/);
    });
  });

  it("runs the updater as MXNet's _set_updater example: stored += input * 2", async () => {
    await withStore(async (kv) => {
      kv.init(3, nd.full(shape, 4));
      const seen: KVKey[] = [];
      kv.setUpdater((key, input, stored) => {
        seen.push(key);
        stored.addInplace(input.mul(2));
      });
      kv.push(3, nd.ones(shape));
      const a = nd.zeros(shape);
      kv.pull(3, a);
      expect(await values(a)).toEqual([6, 6, 6, 6, 6, 6]);
      expect(seen).toEqual([3]);
    });
  });
});

describe('local store: sums and ownership', () => {
  interface Sum {
    readonly shape: number[];
    readonly values: number[][];
    readonly sequential: number[];
    readonly exact: number[];
  }
  it.each((golden.sums as Sum[]).map((s) => [s.values.length, s] as const))(
    'sums %i float32 values from several devices as ElementwiseSum does (NumPy)',
    async (_n, s) => {
      await withStore(async (kv) => {
        kv.init('w', nd.zeros(s.shape));
        kv.push(
          'w',
          s.values.map((v, i) => nd.array(Float32Array.from(v), { shape: s.shape, ctx: cpu(i % 2) })),
        );
        const out = nd.zeros(s.shape, { ctx: cpu(3) });
        kv.pull('w', out);
        const got = await values(out);
        expect(got).toEqual(Array.from(Float32Array.from(s.sequential)));
        for (const [i, x] of got.entries()) expect(Math.abs(x - (s.exact[i] as number))).toBeLessThan(1e-5);
      });
    },
  );

  it('sums a key given several times in one call, and updates keys in id order', async () => {
    await withStore(async (kv) => {
      kv.init([9, 2, 5], [nd.zeros([2]), nd.zeros([2]), nd.zeros([2])]);
      const order: KVKey[] = [];
      kv.setUpdater((key, recv, local) => {
        order.push(key);
        recv.copyTo(local);
      });
      kv.push([5, 9, 5, 2], [nd.array([1, 2]), nd.array([3, 4]), nd.array([10, 20]), nd.array([7, 7])]);
      expect(order).toEqual([2, 5, 9]);
      const out = nd.zeros([2]);
      kv.pull(5, out);
      expect(await values(out)).toEqual([11, 22]);
    });
  });

  it('owns its stored values: the pushed array can change or be disposed afterwards', async () => {
    await withStore(async (kv) => {
      kv.init('k', nd.zeros([3]));
      const v = nd.array([1, 2, 3]);
      kv.push('k', v);
      v.set(100);
      v.dispose();
      const out = nd.zeros([3]);
      kv.pull('k', out);
      expect(await values(out)).toEqual([1, 2, 3]);
      const init = nd.array([5, 5, 5]);
      kv.init('j', init);
      init.set(0);
      kv.pull('j', out);
      expect(await values(out)).toEqual([5, 5, 5]);
    });
  });

  it('keeps stored values on the host, where MXNet pins them', async () => {
    await withStore(async (kv) => {
      kv.init('k', nd.ones([2], { ctx: cpu(2) }));
      expect(kv.storedContext('k')).toBe(cpu(0));
      kv.push('k', [nd.ones([2], { ctx: cpu(1) }), nd.ones([2], { ctx: cpu(2) })]);
      expect(kv.mergeContext('k')).toBe(cpu(0));
      expect(kv.storedContext('k')).toBe(cpu(0));
    });
  });

  it('never reads synchronously: arrays on a device without sync reads go through engine copies', async () => {
    await withStore(async (kv) => {
      const dev = gpu(0);
      kv.init('g', nd.array([1, 2, 3]).copyTo(dev));
      const readsBefore = asyncBackend.reads;
      const pushed = nd.array([4, 5, 6]).copyTo(dev);
      kv.push('g', pushed);
      const out = nd.empty([3], { ctx: gpu(1) });
      kv.pull('g', out);
      expect(asyncBackend.reads).toBe(readsBefore); // nothing read back by push or pull
      expect(await values(out)).toEqual([4, 5, 6]);
      expect(kv.storedContext('g')).toBe(dev); // the stored value follows the (single) merged value
    });
  });

  it('reports its type, rank and workers; capabilities; a barrier resolves at once', async () => {
    await withStore(async (kv) => {
      expect([kv.type, kv.rank, kv.numWorkers]).toEqual(['local', 0, 1]);
      expect(kv.isCapable('optimizer')).toBe(true);
      expect(() => kv.isCapable('sparse')).toThrow(/Unknown capability: sparse/);
      await expect(kv.barrier()).resolves.toBeUndefined();
      expect(() => kv.setGradientCompression({ type: '2bit' })).toThrow(
        /Gradient compression is not supported for this type of kvstore/,
      );
      expect(kv.gradientCompression).toBeUndefined();
    });
  });
});

describe('local store: bad calls are MXNetErrors that change nothing', () => {
  it('names the key, both shapes, dtypes and the device on a shape or dtype mismatch', async () => {
    await withStore(async (kv) => {
      kv.init('w', nd.zeros([2, 3]));
      const e = (() => {
        try {
          kv.push('w', [nd.zeros([2, 3]), nd.zeros([3, 2], { ctx: cpu(1) })]);
        } catch (err) {
          return err as MXNetError;
        }
        return undefined;
      })();
      expect(e).toBeInstanceOf(MXNetError);
      expect(e?.message).toContain(
        "value 1 for key 'w' is float32 (3, 2) on cpu(1), but the key holds float32 (2, 3)",
      );
      expect([e?.shapes, e?.dtypes, e?.device]).toEqual([
        [
          [3, 2],
          [2, 3],
        ],
        ['float32', 'float32'],
        'cpu(1)',
      ]);
      expect(() => kv.pull('w', nd.zeros([2, 3], { dtype: 'int32' }))).toThrow(
        /output 0 for key 'w' is int32/,
      );
    });
  });

  it('refuses uninitialised keys, mixed key kinds, double init and count mismatches', async () => {
    await withStore(async (kv) => {
      expect(() => kv.push('nope', nd.zeros([1]))).toThrow(/key nope doesn't exist. Did you init\?/);
      kv.init('a', nd.zeros([2]));
      expect(() => kv.init(3, nd.zeros([2]))).toThrow(/Mixed key types are not allowed/);
      expect(() => kv.pull(3, nd.zeros([2]))).toThrow(MXNetError);
      expect(() => kv.init('a', nd.zeros([2]))).toThrow(/duplicate init of key 'a'/);
      expect(() => kv.init(['b', 'b'], [nd.zeros([2]), nd.zeros([2])])).toThrow(/duplicate init of key 'b'/);
      expect(() => kv.init('c', [nd.zeros([2]), nd.zeros([2])])).toThrow(/one array per key/);
      expect(() => kv.push(['a', 'a'], [nd.zeros([2])])).toThrow(/got 2 keys and 1 values/);
      expect(() => kv.push(['a', 1] as never, [nd.zeros([2]), nd.zeros([2])])).toThrow(
        /inconsistent types of keys/,
      );
      expect(() => kv.push(1.5, nd.zeros([2]))).toThrow(/int32 integer or a string/);
      expect(() => kv.push('a', [])).toThrow(/empty list/);
      expect(() => kv.push('a', [[nd.zeros([2])]] as never)).toThrow(MXNetError);
      expect(() => kv.pull('a', undefined as never)).toThrow(/no outputs given/);
      expect(() => kv.push('a', nd.zeros([2]), { priority: 0.5 })).toThrow(/priority must be an integer/);
      expect(() => kv.rowSparsePull('a', { out: nd.zeros([2]), rowIds: nd.array([0]) })).toThrow(
        /key 'a' holds a dense value/,
      );
      expect(kv.keys()).toEqual(['a']);

      const int = new LocalKVStore(rt);
      expect(() => int.pull(7, nd.zeros([1]))).toThrow(/key 7 has not been inited/);
      int.dispose();
    });
  });

  it('refuses disposed arrays and arrays of another runtime', async () => {
    const other = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 16 })] });
    await withStore(async (kv) => {
      kv.init('a', nd.zeros([2]));
      const gone = nd.zeros([2]);
      gone.dispose();
      expect(() => kv.push('a', gone)).toThrow(/was disposed/);
      const foreign = other.nd.zeros([2]);
      expect(() => kv.push('a', foreign)).toThrow(/belongs to another runtime/);
      expect(() => kv.init('b', foreign)).toThrow(/belongs to another runtime/);
      foreign.dispose();
    });
    await other.dispose();
  });

  it('changes nothing when one key of a call is bad', async () => {
    await withStore(async (kv) => {
      kv.init(['a', 'b'], [nd.array([1, 1]), nd.array([2, 2])]);
      const calls: KVKey[] = [];
      kv.setUpdater((key, recv, local) => {
        calls.push(key);
        local.addInplace(recv);
      });
      expect(() => kv.push(['a', 'b'], [nd.array([5, 5]), nd.zeros([3])])).toThrow(MXNetError);
      expect(() =>
        kv.pushpull(['a', 'b'], [nd.array([5, 5]), nd.array([5, 5])], [nd.zeros([2]), nd.zeros([4])]),
      ).toThrow(MXNetError);
      expect(() =>
        kv.broadcast(['c', 'a'], [nd.zeros([2]), nd.zeros([2])], [nd.zeros([2]), nd.zeros([2])]),
      ).toThrow(/duplicate init of key 'a'/);
      expect(() => kv.broadcast('d', nd.zeros([2]), nd.zeros([5]))).toThrow(/output 0 for key 'd'/);
      expect(calls).toEqual([]);
      expect(kv.keys()).toEqual(['a', 'b']);
      const outs = [nd.zeros([2]), nd.zeros([2])];
      kv.pull(['a', 'b'], outs);
      expect(await Promise.all(outs.map(values))).toEqual([
        [1, 1],
        [2, 2],
      ]);
      kv.init('c', nd.zeros([1])); // the refused broadcast of 'c' left it free
    });
  });

  it('is unusable once disposed, and dispose is idempotent', async () => {
    await nd.leakCheck(async () => {
      const kv = new LocalKVStore(rt);
      const v = nd.zeros([2]);
      kv.init(0, v);
      kv.dispose();
      kv[Symbol.dispose]();
      expect(kv.isDisposed).toBe(true);
      expect(() => kv.push(0, v)).toThrow(/the local store was disposed/);
      v.dispose();
    });
  });
});
