/**
 * The distributed store end to end over the in-memory ps-lite (memory-ps.ts): workers, servers and
 * the scheduler of one job in this process, each worker and server on its own cpu-wasm runtime.
 * Sums and SGD results are checked against a single process (LocalKVStore with the same optimizer
 * on the concatenated pushes), compressed pushes against the NumPy transcription of MXNet's
 * kernels (src/__golden__/compression.json), and the placement of keys on servers against MXNet's
 * rules; bad calls are MXNetErrors.
 */
import { cpu, Env, MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray, type Runtime } from '@mx/ndarray';
import { createOptimizer, Optimizer } from '@mx/optimizer';
import { afterAll, describe, expect, it } from 'vitest';
import golden from '../__golden__/compression.json' with { type: 'json' };
import { LocalKVStore } from '../local.js';
import { serverRankToId } from '../pslite/api.js';
import { MemoryPs } from './memory-ps.js';
import { runServerIfRole } from './role.js';
import { DistServer, type DistServerApps } from './server.js';
import { DistKVStore, type DistWorkerApps } from './worker.js';

const runtimes: Runtime[] = [];
function runtime(dispose = true, shared?: boolean): Runtime {
  const rt = createRuntime({
    backends: [new CpuWasmBackend({ initialPages: 64, ...(shared === false ? { shared, workers: 0 } : {}) })],
  });
  if (dispose) runtimes.push(rt);
  return rt;
}
afterAll(async () => {
  for (const rt of runtimes) await rt.dispose();
});

async function values(a: NDArray): Promise<number[]> {
  return Array.from((await a.data()) as Float32Array);
}

/** Deterministic float32 data. */
function series(n: number, seed: number): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => Math.fround(Math.sin(seed * 12.9898 + i * 78.233) * 2));
}

/** Each server's first ps key (ps-lite's equal split of the key space). */
function serverKeyRangesOf(kv: DistKVStore): bigint[] {
  const n = BigInt(kv.numServers);
  const max = (1n << 64n) - 1n;
  return Array.from({ length: kv.numServers }, (_, i) => (max / n) * BigInt(i));
}

interface Job {
  readonly ps: MemoryPs;
  readonly servers: DistServer[];
}

/** Run `body` on every worker of a job of `workers` × `servers`; close everything after. */
async function job(
  opts: { workers: number; servers: number; type?: string; bound?: number; shared?: boolean },
  body: (kv: DistKVStore, rank: number, job: Job) => Promise<void>,
): Promise<Job> {
  const ps = new MemoryPs({ numWorkers: opts.workers, numServers: opts.servers });
  const servers: DistServer[] = [];
  const roles: Promise<boolean>[] = [];
  // Servers and the scheduler start through the process entry, as a launcher would.
  for (let r = 0; r < opts.servers; r++) {
    roles.push(
      runServerIfRole(new Env({ DMLC_ROLE: 'server' }), {
        connect: () => ps.server(r),
        runtime,
        controller: (_h, body, server) => {
          servers[r] = server;
          server.setOptimizerSpec(body);
        },
      }),
    );
  }
  roles.push(
    runServerIfRole(new Env({ DMLC_ROLE: 'scheduler' }), { connect: () => ps.scheduler(), runtime }),
  );
  const stores = await Promise.all(
    Array.from({ length: opts.workers }, (_, r) =>
      DistKVStore.create(
        runtime(true, opts.shared),
        opts.type ?? 'dist_sync',
        ps.worker(r) as DistWorkerApps,
        {
          bigArrayBound: opts.bound,
        },
      ),
    ),
  );
  const j = { ps, servers };
  await Promise.all(stores.map((kv, r) => body(kv, r, j)));
  await Promise.all(stores.map((kv) => kv.close()));
  expect(await Promise.all(roles)).toEqual(roles.map(() => true));
  return j;
}

describe('dist_sync without an optimizer', () => {
  it.each(['dist_sync', 'dist_device_sync'])(
    '%s sums the pushes of every worker (each summing its devices first)',
    async (type) => {
      const shapes: Record<number, number[]> = { 3: [2, 3], 4: [5], 7: [4, 2] };
      const keys = [3, 4, 7];
      const grad = (rank: number, key: number, dev: number) =>
        series(
          (shapes[key] as number[]).reduce((a, b) => a * b),
          100 * rank + 10 * key + dev,
        );
      const { ps } = await job({ workers: 2, servers: 2, type }, async (kv, rank) => {
        const { nd } = kv.runtime;
        expect(kv.rank).toBe(rank);
        expect(kv.numWorkers).toBe(2);
        expect(kv.isCapable('optimizer')).toBe(true);
        // Only rank 0's initial values reach the servers.
        kv.init(
          keys,
          keys.map((k) => nd.ones(shapes[k] as number[]).mul(rank + 1)),
        );
        const outs = keys.map((k) => nd.zeros(shapes[k] as number[]));
        kv.pull(keys, outs);
        for (const o of outs) expect(new Set(await values(o))).toEqual(new Set([1]));
        await kv.barrier();
        for (const k of keys) {
          kv.push(
            k,
            [0, 1].map((d) => nd.array(grad(rank, k, d), { shape: shapes[k] as number[], ctx: cpu(d) })),
          );
        }
        kv.pull(keys, outs);
        for (const [i, k] of keys.entries()) {
          const want = Array.from(grad(0, k, 0), (_, j) =>
            Math.fround(
              Math.fround((grad(0, k, 0)[j] as number) + (grad(0, k, 1)[j] as number)) +
                Math.fround((grad(1, k, 0)[j] as number) + (grad(1, k, 1)[j] as number)),
            ),
          );
          expect(await values(outs[i] as NDArray)).toEqual(want);
        }
      });
      // MXNet's placement: key k on server (k * 9973) % 2 — 3 and 7 on server 1, 4 on server 0.
      for (const k of keys) {
        const to = new Set(
          ps.messages
            .filter((m) =>
              m.keys.some((x) => ps.ranges.some((r) => x >= r.begin && x - r.begin === BigInt(k))),
            )
            .map((m) => m.recipient),
        );
        expect([...to]).toEqual([serverRankToId((k * 9973) % 2)]);
      }
      // Commands: the cmd of a float32 default request is the Cantor pair (0, 0) = 0.
      expect(new Set(ps.messages.map((m) => m.cmd))).toEqual(new Set([0]));
    },
  );
});

describe('dist_sync pushpull', () => {
  it('pushes and gets the sum back in one ZPushPull per key', async () => {
    const { ps } = await job({ workers: 2, servers: 2 }, async (kv, rank) => {
      const { nd } = kv.runtime;
      kv.init([0, 1], [nd.zeros([3]), nd.zeros([2])]);
      const outs = [nd.zeros([3]), nd.zeros([2])];
      kv.pushpull([0, 1], [nd.array([1, 2, 3]).mul(rank + 1), nd.array([0.5, -1]).mul(rank + 1)], outs);
      expect(await values(outs[0] as NDArray)).toEqual([3, 6, 9]);
      expect(await values(outs[1] as NDArray)).toEqual([1.5, -3]);
      // The value pushed back into `values` when no outputs are given.
      const v = nd.array([1, 1, 1]);
      kv.pushpull(0, v);
      expect(await values(v)).toEqual([2, 2, 2]);
    });
    const both = ps.messages.filter((m) => m.push && m.pull);
    expect(both.length).toBe(2 * 3);
    // No separate pulls.
    expect(ps.messages.filter((m) => !m.push && m.pull).length).toBe(0);
  });
});

describe('the bytes of a value', () => {
  // Workers on a shared memory send from and receive into the arrays' own memory (hostView); on a
  // non-shared one through host copies. One output is received into directly, several through the
  // key's buffer. A server without an optimizer keeps the sum as the value without copying it into
  // its array until something reads the array: an optimizer set later must update that sum.
  it.each([true, false])(
    'shared memory %s: split sums reach one and several outputs, and a later optimizer updates them',
    async (shared) => {
      const n = 10;
      const sum = (a: Float32Array, b: Float32Array) =>
        Array.from(a, (x, i) => Math.fround(x + (b[i] as number)));
      const w1 = sum(series(n, 1), series(n, 2));
      const g2 = sum(series(n, 11), series(n, 12));
      await job({ workers: 2, servers: 2, bound: 4, shared }, async (kv, rank) => {
        const { nd } = kv.runtime;
        kv.init(5, nd.zeros([n]));
        kv.push(5, nd.array(series(n, rank + 1)));
        const one = nd.zeros([n]);
        const two = [nd.zeros([n]), nd.zeros([n])];
        kv.pull(5, one);
        kv.pull(5, two);
        expect(await values(one)).toEqual(w1);
        for (const o of two) expect(await values(o)).toEqual(w1);
        await kv.barrier();
        await kv.setOptimizer(createOptimizer('sgd', { learningRate: 1 }));
        kv.push(5, nd.array(series(n, rank + 11)));
        kv.pull(5, one);
        const got = await values(one);
        for (const [i, w] of w1.entries()) expect(got[i]).toBeCloseTo(w - (g2[i] as number), 6);
      });
    },
  );
});

describe('string keys', () => {
  it('are numbered in init order and placed by that number', async () => {
    await job({ workers: 2, servers: 2 }, async (kv, rank) => {
      const { nd } = kv.runtime;
      kv.init(['weight', 'bias'], [nd.zeros([2]), nd.zeros([1])]);
      const ranges = serverKeyRangesOf(kv);
      // 'weight' is id 0 → server 0 * 9973 % 2 = 0; 'bias' is id 1 → server 9973 % 2 = 1.
      expect([...(kv.pskv('weight')?.keys ?? [])]).toEqual([ranges[0]]);
      expect([...(kv.pskv('bias')?.keys ?? [])]).toEqual([(ranges[1] as bigint) + 1n]);
      kv.push('bias', nd.array([rank + 1]));
      const out = nd.zeros([1]);
      kv.pull('bias', out);
      expect(await values(out)).toEqual([3]);
    });
  });
});

describe('dist_sync with an optimizer on the servers', () => {
  it('gives the weights of one process training on the concatenated batches (SGD with momentum)', async () => {
    const shapes: Record<number, number[]> = { 0: [3, 4], 1: [7], 2: [25] };
    const keys = [0, 1, 2];
    const steps = 3;
    const size = (k: number) => (shapes[k] as number[]).reduce((a, b) => a * b);
    const init = (k: number) => series(size(k), 7 + k);
    const grad = (rank: number, step: number, k: number) =>
      series(size(k), 1000 + 100 * rank + 10 * step + k);
    const opts = { learningRate: 0.1, momentum: 0.9, wd: 0.01, rescaleGrad: 0.5 };

    // One process: both workers' gradients pushed as one list.
    const rt = runtime();
    const local = new LocalKVStore(rt, 'local');
    local.setOptimizer(createOptimizer('sgd', opts));
    local.init(
      keys,
      keys.map((k) => rt.nd.array(init(k), { shape: shapes[k] as number[] })),
    );
    const expected: number[][] = [];
    for (let s = 0; s < steps; s++) {
      for (const k of keys) {
        local.push(
          k,
          [0, 1].map((r) => rt.nd.array(grad(r, s, k), { shape: shapes[k] as number[] })),
        );
      }
    }
    for (const k of keys) {
      const out = rt.nd.zeros(shapes[k] as number[]);
      local.pull(k, out);
      expected.push(await values(out));
    }
    local.dispose();

    // Two workers, three servers; key 2 (25 values) is split over the servers (bound 20).
    await job({ workers: 2, servers: 3, bound: 20 }, async (kv, rank, { servers }) => {
      const { nd } = kv.runtime;
      await kv.setOptimizer(createOptimizer('sgd', opts));
      kv.init(
        keys,
        keys.map((k) => nd.array(init(k), { shape: shapes[k] as number[] })),
      );
      for (let s = 0; s < steps; s++) {
        for (const k of keys) kv.push(k, nd.array(grad(rank, s, k), { shape: shapes[k] as number[] }));
      }
      for (const [i, k] of keys.entries()) {
        const out = nd.zeros(shapes[k] as number[]);
        kv.pull(k, out);
        const got = await values(out);
        expect(got.length).toBe(size(k));
        for (const [j, v] of got.entries()) expect(v).toBeCloseTo((expected[i] as number[])[j] as number, 5);
      }
      await expect(kv.saveOptimizerStates()).rejects.toThrow('Cannot save states for distributed training');
      // The big key's parts: round(25/3*(i+1)) - round(25/3*i) = 8, 9, 8 values on servers 0, 1, 2.
      expect(servers.map((s) => s.stored(2)?.size)).toEqual([8, 9, 8]);
      // Small keys live on server (key * 9973) % 3 only.
      expect(servers.map((s) => s.stored(1) !== undefined)).toEqual([false, true, false]);
      await kv.barrier();
    });
  });
});

describe('ownership', () => {
  it('frees every array it made when closed', async () => {
    const ps = new MemoryPs({ numWorkers: 1, numServers: 1 });
    const server = runServerIfRole(new Env({ DMLC_ROLE: 'server' }), {
      connect: () => ps.server(0),
      runtime,
    });
    const sched = runServerIfRole(new Env({ DMLC_ROLE: 'scheduler' }), {
      connect: () => ps.scheduler(),
      runtime,
    });
    const rt = runtime();
    await rt.nd.leakCheck(async () => {
      const kv = await DistKVStore.create(rt, 'dist_sync', ps.worker(0) as DistWorkerApps);
      await rt.nd.scope(async () => {
        kv.setGradientCompression({ type: '2bit', threshold: 0.5 });
        kv.init([0, 1], [rt.nd.zeros([3]), rt.nd.zeros([2])]);
        kv.push([0, 1], [rt.nd.ones([3]), rt.nd.ones([2])]);
        const out = rt.nd.zeros([3]);
        kv.pull(0, out);
        expect(await values(out)).toEqual([0.5, 0.5, 0.5]);
      });
      await kv.close();
    });
    expect(await Promise.all([server, sched])).toEqual([true, true]);
    await expect(
      runServerIfRole(new Env({ DMLC_ROLE: 'worker' }), { connect: () => ps.scheduler(), runtime }),
    ).resolves.toBe(false);
    await expect(
      runServerIfRole(new Env({ DMLC_ROLE: 'boss' }), { connect: () => ps.scheduler(), runtime }),
    ).rejects.toThrow(/DMLC_ROLE/);
  });
});

describe('big arrays', () => {
  it('splits an array of MXNET_KVSTORE_BIGARRAY_BOUND (1e6) elements or more over every server', async () => {
    const n = 1_000_003;
    const { ps } = await job({ workers: 1, servers: 2 }, async (kv) => {
      const { nd } = kv.runtime;
      expect(kv.bigArrayBound).toBe(1_000_000);
      kv.init(0, nd.zeros([n]));
      const g = Float32Array.from({ length: n }, (_, i) => (i % 7) - 3);
      kv.push(0, nd.array(g, { shape: [n] }));
      const out = nd.zeros([n]);
      kv.pull(0, out);
      const got = (await out.data()) as Float32Array;
      expect(got.length).toBe(n);
      expect(got.every((v, i) => v === g[i])).toBe(true);
    });
    // C round(1000003 / 2) = 500002: the first part, the second 500001 — one message per server.
    const pushes = ps.messages.filter((m) => m.push);
    expect(pushes.map((m) => [m.recipient, m.lens])).toEqual([
      [serverRankToId(0), [4 * 500002]],
      [serverRankToId(1), [4 * 500001]],
      [serverRankToId(0), [4 * 500002]],
      [serverRankToId(1), [4 * 500001]],
    ]);
  });
});

describe('dist_async', () => {
  it('applies every push at once on the servers', async () => {
    await job({ workers: 2, servers: 1, type: 'dist_async' }, async (kv, rank) => {
      const { nd } = kv.runtime;
      await kv.setOptimizer(createOptimizer('sgd', { learningRate: 1 }));
      kv.init(5, nd.ones([4]).mul(100));
      // Integer steps: the result does not depend on the order the pushes arrive in.
      for (let s = 0; s < 3; s++) kv.push(5, nd.ones([4]).mul(rank + 1));
      await kv.barrier();
      const out = nd.zeros([4]);
      kv.pull(5, out);
      // Every push was applied: 100 - 3 * 1 - 3 * 2.
      expect(await values(out)).toEqual([91, 91, 91, 91]);
      await kv.barrier();
    });
  });

  it('is not put into sync mode', async () => {
    await job({ workers: 1, servers: 1, type: 'dist_async' }, async (kv) => {
      await kv.setOptimizer(createOptimizer('sgd', { learningRate: 0.5 }));
      kv.init(0, kv.runtime.nd.zeros([2]));
      kv.push(0, kv.runtime.nd.ones([2]));
      const out = kv.runtime.nd.zeros([2]);
      kv.pull(0, out);
      expect(await values(out)).toEqual([-0.5, -0.5]);
    });
  });
});

describe('gradient compression on the worker → server pushes', () => {
  const cases = (
    golden.cases as {
      type: '2bit' | '1bit';
      threshold: number;
      size: number;
      steps: { grad: number[]; dequantized: number[] }[];
    }[]
  ).filter((c) => c.size === 50 || c.size === 17 || c.size === 70);

  it.each(cases.map((c) => [c.type, c.threshold, c.size, c] as const))(
    '%s threshold %d, %d values: the servers hold the dequantized sums (residuals carried over)',
    async (type, threshold, size, c) => {
      // Two workers push the same gradients: each keeps its own residual, so the sum is twice
      // one worker's dequantized values; bound 20 splits the key over both servers.
      await job({ workers: 2, servers: 2, bound: 20 }, async (kv) => {
        const { nd } = kv.runtime;
        kv.setGradientCompression({ type, threshold });
        kv.init(9, nd.zeros([size]));
        const out = nd.zeros([size]);
        for (const step of c.steps) {
          kv.push(9, nd.array(step.grad, { shape: [size] }));
          kv.pull(9, out);
          expect(await values(out)).toEqual(step.dequantized.map((v) => Math.fround(v * 2)));
        }
        expect(() => kv.pushpull(9, out)).toThrow('Compression not supported with PushPull');
      });
    },
  );
});

describe('bad calls are MXNetErrors that change nothing', () => {
  it('refuses unknown keys, wrong shapes and dtypes, late compression and worker updaters', async () => {
    await job({ workers: 1, servers: 1 }, async (kv) => {
      const { nd } = kv.runtime;
      kv.init(1, nd.zeros([3]));
      expect(() => kv.push(2, nd.zeros([3]))).toThrow(MXNetError);
      expect(() => kv.push(1, nd.zeros([4]))).toThrow(/the key holds float32 \(3,\)/);
      expect(() => kv.pull(1, nd.zeros([3], { dtype: 'int32' }))).toThrow(MXNetError);
      expect(() => kv.push('a', nd.zeros([3]))).toThrow(/Mixed key types/);
      expect(() => kv.setGradientCompression({ type: '2bit' })).toThrow(/before initialising/);
      expect(kv.gradientCompression).toBeUndefined();
      expect(() => kv.setUpdater(() => undefined)).toThrow(/servers/);
      expect(() => kv.loadOptimizerStates(new Uint8Array(0))).toThrow(/Cannot load states/);
      class Custom extends Optimizer {
        constructor() {
          super('Custom', {}, { keys: [] });
        }
        protected stateTemplate() {
          return null;
        }
        protected step() {}
      }
      expect(() => kv.setOptimizer(new Custom())).toThrow(/cannot be sent to the servers/);
      // The store still works.
      kv.push(1, nd.ones([3]));
      const out = nd.zeros([3]);
      kv.pull(1, out);
      expect(await values(out)).toEqual([1, 1, 1]);
    });
  });

  it('refuses a store on a non-worker node and a non-dist type', async () => {
    const ps = new MemoryPs({ numWorkers: 1, numServers: 1 });
    const rt = runtime();
    await expect(
      DistKVStore.create(rt, 'dist_sync', ps.server(0) as unknown as DistWorkerApps),
    ).rejects.toThrow(/worker node/);
    await expect(DistKVStore.create(rt, 'local', ps.worker(0) as DistWorkerApps)).rejects.toThrow(MXNetError);
  });

  it('fails the server of a dist_async job pushed to without an optimizer', async () => {
    const ps = new MemoryPs({ numWorkers: 1, numServers: 1 });
    // The job is dead afterwards (MXNet's server aborts): its runtimes keep their stuck push.
    const server = new DistServer(runtime(false), ps.server(0) as DistServerApps);
    const run = server.run();
    const sched = ps.scheduler().node.barrier(7);
    const kv = await DistKVStore.create(runtime(false), 'dist_async', ps.worker(0) as DistWorkerApps);
    await sched;
    kv.init(0, kv.runtime.nd.zeros([2]));
    kv.push(0, kv.runtime.nd.ones([2]));
    await expect(run).rejects.toThrow('Updater needs to be set for async mode');
  });
});
