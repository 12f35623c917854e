/**
 * Row_sparse keys of the distributed store end to end over the in-memory ps-lite (memory-ps.ts):
 * two workers (two devices each) and two servers of one job in this process, as dist.test.ts runs
 * them. Pulled rows and weights are checked against the NumPy transcription of MXNet's dist_sync
 * semantics (tools/golden/kvstore/row_sparse.py) — with a lazy updater on the servers, without
 * one, and with the table split over both servers — the wire against EncodeRowSparseKey (only the
 * rows present travel), the server's request handling directly, and bad calls as MXNetErrors.
 */
import { cpu, DType, Env, MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray, type RowSparseNDArray, type Runtime } from '@mx/ndarray';
import { createOptimizer } from '@mx/optimizer';
import { afterAll, describe, expect, it } from 'vitest';
import golden from '../__golden__/row_sparse.json' with { type: 'json' };
import type { KVMeta, KVPairs } from '../pslite/api.js';
import { encodeRowSparseKey, getCommandType, RequestType, serverKeyRanges } from './encoding.js';
import { MemoryPs } from './memory-ps.js';
import { runServerIfRole } from './role.js';
import type { DistServer, ServerUpdater } from './server.js';
import { RowSparseServerKeys } from './server-row-sparse.js';
import { DistKVStore, type DistWorkerApps } from './worker.js';

const runtimes: Runtime[] = [];
function runtime(): Runtime {
  const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
  runtimes.push(rt);
  return rt;
}
afterAll(async () => {
  for (const rt of runtimes) await rt.dispose();
});

interface Rsp {
  readonly indices: number[];
  readonly data: number[];
}

function rsp(rt: Runtime, shape: number[], s: Rsp, ctx = cpu(0)): RowSparseNDArray {
  const indices = BigInt64Array.from(s.indices, (r) => BigInt(r));
  return rt.nd.sparse.rowSparseArray([Float32Array.from(s.data), indices], { shape, ctx });
}

async function partsOf(a: NDArray): Promise<Rsp> {
  expect(a.stype).toBe('row_sparse');
  const p = await (a as RowSparseNDArray).parts();
  return {
    indices: Array.from(p.indices as BigInt64Array, Number),
    data: Array.from(p.data as Float32Array),
  };
}

/** Run `body` on both workers of a 2 × 2 job; `updater` is installed on every server by kController. */
async function job(
  opts: { bound?: number; updater?: (server: number) => ServerUpdater },
  body: (kv: DistKVStore, rank: number) => Promise<void>,
): Promise<MemoryPs> {
  const ps = new MemoryPs({ numWorkers: 2, numServers: 2 });
  const roles: Promise<boolean>[] = [0, 1].map((r) =>
    runServerIfRole(new Env({ DMLC_ROLE: 'server' }), {
      connect: () => ps.server(r),
      runtime,
      controller: (_h, _body, server: DistServer) => {
        if (opts.updater !== undefined) server.setUpdater(opts.updater(r));
      },
    }),
  );
  roles.push(
    runServerIfRole(new Env({ DMLC_ROLE: 'scheduler' }), { connect: () => ps.scheduler(), runtime }),
  );
  const stores = await Promise.all(
    [0, 1].map((r) =>
      DistKVStore.create(runtime(), 'dist_sync', ps.worker(r) as DistWorkerApps, {
        bigArrayBound: opts.bound,
      }),
    ),
  );
  await Promise.all(stores.map((kv, r) => body(kv, r)));
  await Promise.all(stores.map((kv) => kv.close()));
  expect(await Promise.all(roles)).toEqual([true, true, true]);
  return ps;
}

/** w[r] += rate * g[r] on the gradient's rows (the golden's add_scaled), on host copies. */
function addScaled(rate: number, seen: { stype: string; rows: number[] }[]): ServerUpdater {
  return (_key, recv, stored) => {
    const g = (recv as RowSparseNDArray).partsSync();
    const rows = Array.from(g.indices as BigInt64Array, Number);
    seen.push({ stype: recv.stype, rows });
    const unit = stored.shape[1] as number;
    const w = Float32Array.from(stored.dataSync() as Float32Array);
    rows.forEach((r, j) => {
      for (let c = 0; c < unit; c++) {
        const x = (g.data as Float32Array)[j * unit + c] as number;
        w[r * unit + c] = Math.fround((w[r * unit + c] as number) + Math.fround(Math.fround(rate) * x));
      }
    });
    stored.set(w);
  };
}

const RSP_F32 = getCommandType(RequestType.kRowSparsePushPull, DType.float32.flag);

describe('EncodeRowSparseKey (MXNet kvstore_dist.h)', () => {
  it.each(golden.encoding.map((c) => [c.key, c.rows.length, c.servers, c.bound, c] as const))(
    'key %i, %i rows, %i servers, bound %i',
    (_k, _n, _s, _b, c) => {
      const p = encodeRowSparseKey(
        c.key,
        c.rows,
        c.unit,
        c.total_rows,
        c.bytes,
        serverKeyRanges(c.servers),
        c.bound,
      );
      expect(Array.from(p.keys, String)).toEqual(c.keys);
      expect(Array.from(p.lens)).toEqual(c.lens);
      expect(p.size).toBe(c.rows.length * c.unit * c.bytes);
    },
  );
});

describe('dist_sync with row_sparse keys: 2 workers × 2 devices, 2 servers', () => {
  it.each(golden.dist.map((c) => [c.updater, c.shape.join('×'), c.bound, c] as const))(
    'updater %s, table %s, bound %i: pulled rows and weights as NumPy has them',
    async (updater, _s, bound, c) => {
      const seen: { stype: string; rows: number[] }[][] = [[], []];
      const sent: number[][] = [[], []];
      const ps = await job(
        { bound, updater: updater === 'add_scaled' ? (r) => addScaled(c.rate, seen[r] as never) : undefined },
        async (kv, rank) => {
          const { nd } = kv.runtime;
          kv.init('w', nd.array(c.init, { shape: c.shape }).tostype('row_sparse'));
          if (updater === 'add_scaled') await kv.setOptimizer(createOptimizer('sgd'));
          for (const step of c.steps) {
            const pushes = step.pushes[rank] as Rsp[];
            kv.push(
              'w',
              pushes.map((p, d) => rsp(kv.runtime, c.shape, p, cpu(d))),
            );
            (sent[rank] as number[]).push(new Set(pushes.flatMap((p) => p.indices)).size);
            const out = nd.sparse.zeros('row_sparse', c.shape, { ctx: cpu(1) });
            kv.rowSparsePull('w', { out, rowIds: nd.array(step.row_ids[rank] as number[]) });
            expect(await partsOf(out)).toEqual(step.pulled[rank]);
            const dense = nd.zeros(c.shape);
            kv.pull('w', dense);
            expect(Array.from((await dense.data()) as Float32Array)).toEqual(step.weight);
            await kv.barrier();
          }
        },
      );
      // Pushes carry only the rows present: a master key per server involved, then one key per row.
      const pushes = ps.messages.filter((m) => m.push && m.cmd === RSP_F32 && m.keys.length > 0);
      const split = (c.shape[0] as number) * (c.shape[1] as number) >= bound;
      for (const rank of [0, 1]) {
        const mine = pushes.filter((m) => m.sender === 9 + 2 * rank);
        // The init (rank 0: every row), then one push per step (on each server when split).
        const perStep = split ? 2 : 1;
        const grads = mine.slice(rank === 0 ? perStep : 0);
        expect(grads.length).toBe(c.steps.length * perStep);
        for (const [s, n] of (sent[rank] as number[]).entries()) {
          const msgs = grads.slice(s * perStep, (s + 1) * perStep);
          expect(msgs.reduce((a, m) => a + m.keys.length - 1, 0)).toBe(n);
          for (const m of msgs)
            expect(m.lens.slice(1)).toEqual(m.lens.slice(1).map(() => 4 * (c.shape[1] as number)));
        }
      }
      if (updater === 'add_scaled') {
        // The servers' updater gets the row_sparse sum: the union of every device's rows.
        const union = c.steps.map((st) =>
          [...new Set((st.pushes as Rsp[][]).flat().flatMap((p) => p.indices))].sort((a, b) => a - b),
        );
        if (!split) {
          const server = seen.findIndex((s) => s.length > 0);
          expect(seen[server]).toEqual(union.map((rows) => ({ stype: 'row_sparse', rows })));
        } else {
          const firstRows = Math.round((c.shape[0] as number) / 2);
          for (const [i, rows] of union.entries()) {
            expect(seen[0]?.[i]?.rows).toEqual(rows.filter((r) => r < firstRows));
            expect(seen[1]?.[i]?.rows).toEqual(rows.filter((r) => r >= firstRows).map((r) => r - firstRows));
          }
        }
      }
    },
  );

  it('fills several outputs with their own row ids, and one row-id array for outputs on several devices', async () => {
    const c = golden.dist[0] as (typeof golden.dist)[0];
    const table = Array.from({ length: c.shape[0] as number }, (_, r) =>
      c.init.slice(r * (c.shape[1] as number), (r + 1) * (c.shape[1] as number)),
    );
    await job({}, async (kv) => {
      const { nd } = kv.runtime;
      kv.init(3, nd.array(c.init, { shape: c.shape }).tostype('row_sparse'));
      const outs = [0, 1, 2].map((d) => nd.sparse.zeros('row_sparse', c.shape, { ctx: cpu(d) }));
      kv.rowSparsePull(3, {
        out: outs,
        rowIds: [nd.array([5, 1, 5]), nd.array([0]), nd.array([], { dtype: 'int64' })],
      });
      expect(await partsOf(outs[0] as NDArray)).toEqual({
        indices: [1, 5],
        data: [...table[1]!, ...table[5]!],
      });
      expect(await partsOf(outs[1] as NDArray)).toEqual({ indices: [0], data: table[0] });
      expect(await partsOf(outs[2] as NDArray)).toEqual({ indices: [], data: [] });
      kv.rowSparsePull(3, { out: outs, rowIds: nd.array([2, 4]) });
      for (const o of outs)
        expect(await partsOf(o)).toEqual({ indices: [2, 4], data: [...table[2]!, ...table[4]!] });
    });
  });

  it('refuses what MXNet refuses, and bad row ids, before anything is sent', async () => {
    await job({}, async (kv) => {
      const { nd } = kv.runtime;
      kv.init(['r', 'd'], [nd.ones([4, 2]).tostype('row_sparse'), nd.zeros([4, 2])]);
      const g = nd.ones([4, 2]).tostype('row_sparse');
      expect(() => kv.pull('r', nd.sparse.zeros('row_sparse', [4, 2]), { ignoreSparse: false })).toThrow(
        "dist kvstore pull doesn't support ignore_sparse=False",
      );
      expect(() => kv.pushpull('r', g)).toThrow(/Expected push_stype of value to be kDefaultStorage/);
      expect(() => kv.pushpull('d', g, nd.zeros([4, 2]))).toThrow(/Expected push_stype/);
      expect(() => kv.push('r', nd.ones([4, 2]))).toThrow(/is dense, but the key holds a row_sparse value/);
      const e = (() => {
        try {
          kv.rowSparsePull('r', { out: nd.sparse.zeros('row_sparse', [4, 2]), rowIds: nd.array([4]) });
        } catch (err) {
          return err as MXNetError;
        }
      })();
      expect(e).toBeInstanceOf(MXNetError);
      expect(e?.message).toMatch(
        /the row ids for key 'r' hold 4 \(element 0\), which is not a row of the key/,
      );
      expect(() => kv.init('empty', nd.sparse.zeros('row_sparse', [0, 3]))).toThrow(
        /init with empty data is not supported/,
      );
      expect(kv.keys()).toEqual(['r', 'd']);
      // A row_sparse push to a dense key is sent dense; the key still works.
      kv.push('d', g);
      const out = nd.zeros([4, 2]);
      kv.pull('d', out);
      expect(Array.from((await out.data()) as Float32Array)).toEqual([2, 2, 2, 2, 2, 2, 2, 2]);
    });
    // Gradient compression (a 1 × 1 job: the roles resolve when it ends).
    const ps = new MemoryPs({ numWorkers: 1, numServers: 1 });
    const roles = [
      runServerIfRole(new Env({ DMLC_ROLE: 'scheduler' }), { connect: () => ps.scheduler(), runtime }),
      runServerIfRole(new Env({ DMLC_ROLE: 'server' }), { connect: () => ps.server(0), runtime }),
    ];
    const kv = await DistKVStore.create(runtime(), 'dist_sync', ps.worker(0) as DistWorkerApps);
    kv.setGradientCompression({ type: '2bit', threshold: 1 });
    kv.init(0, kv.runtime.nd.ones([3, 2]).tostype('row_sparse'));
    expect(() => kv.push(0, kv.runtime.nd.ones([3, 2]).tostype('row_sparse'))).toThrow(
      'Gradient compression for row sparse storage type is not supported',
    );
    await kv.close();
    expect(await Promise.all(roles)).toEqual([true, true]);
  });
});

describe('the server side of row_sparse requests (KVStoreDistServer::DataHandleRowSparse)', () => {
  const f32 = DType.float32;
  const rt = runtime();
  const answers: { meta: KVMeta; res?: KVPairs }[] = [];
  const host = (sync: boolean, numWorkers: number, updater?: ServerUpdater) => ({
    runtime: rt,
    syncMode: sync,
    numWorkers,
    updater,
    decode: (k: bigint) => Number(k),
    respond: (meta: KVMeta, res?: KVPairs) => answers.push({ meta, res }),
  });
  const meta = (push: boolean, sender = 9): KVMeta => ({
    cmd: RSP_F32,
    push,
    pull: !push,
    sender,
    timestamp: answers.length,
    customerId: 0,
  });
  const pairs = (key: number, rows: number[], vals: number[], unit: number): KVPairs => ({
    keys: BigUint64Array.from([key, ...rows.map((r) => key + r)], BigInt),
    vals: new Uint8Array(Float32Array.from(vals).buffer),
    lens: Int32Array.from([0, ...rows.map(() => unit * 4)]),
  });

  it('merges the pushes of every worker, answers rows with MXNet lengths, and no rows with zeros', async () => {
    const keys = new RowSparseServerKeys(host(true, 2));
    await keys.handle(meta(true), pairs(7, [0, 1, 2], [1, 1, 2, 2, 3, 3], 2), f32);
    await keys.handle(meta(true, 9), pairs(7, [2], [10, 20], 2), f32);
    const before = answers.length;
    await keys.handle(meta(true, 11), pairs(7, [0, 2], [0.5, 0.5, 1, 1], 2), f32);
    expect(answers.length).toBe(before + 2); // both pushes answered once the second worker pushed
    await keys.handle(
      meta(false),
      { keys: BigUint64Array.of(7n, 7n, 9n), vals: new Uint8Array(0), lens: new Int32Array(0) },
      f32,
    );
    const res = answers.at(-1)?.res as KVPairs;
    // No updater: the sum is the value (row 1 was not pushed: zero).
    expect(Array.from(new Float32Array(res.vals.slice().buffer))).toEqual([0.5, 0.5, 11, 21]);
    expect(Array.from(res.lens)).toEqual([0, 2, 2]);
    await keys.handle(
      meta(false),
      { keys: BigUint64Array.of(7n), vals: new Uint8Array(0), lens: new Int32Array(0) },
      f32,
    );
    expect([answers.at(-1)?.res?.vals.length, Array.from(answers.at(-1)?.res?.lens ?? [])]).toEqual([0, [0]]);
    expect(await keys.table(7)).toEqual(new Uint8Array(Float32Array.of(0.5, 0.5, 0, 0, 11, 21).buffer));
    keys.dispose();
  });

  it('refuses an init without every row, rows out of order or range, and a pull before init', async () => {
    const keys = new RowSparseServerKeys(host(false, 1));
    await expect(keys.handle(meta(true), pairs(3, [0, 2], [1, 1, 2, 2], 2), f32)).rejects.toThrow(
      /must carry every row 0…1 in order; row 1 is 2/,
    );
    await expect(keys.handle(meta(true), pairs(3, [], [], 2), f32)).rejects.toThrow(/init with empty data/);
    await expect(
      keys.handle(
        meta(false),
        { keys: BigUint64Array.of(4n, 5n), vals: new Uint8Array(0), lens: new Int32Array(0) },
        f32,
      ),
    ).rejects.toThrow(/init 4 first/);
    await keys.handle(meta(true), pairs(3, [0, 1], [1, 1, 2, 2], 2), f32);
    await expect(keys.handle(meta(true), pairs(3, [1, 0], [1, 1, 2, 2], 2), f32)).rejects.toThrow(
      /row 0 out of order or range/,
    );
    await expect(keys.handle(meta(true), pairs(3, [2], [1, 1], 2), f32)).rejects.toThrow(
      /row 2 out of order or range/,
    );
    await expect(keys.handle(meta(true), pairs(3, [1], [1, 1, 1], 3), f32)).rejects.toThrow(MXNetError);
    // Async mode needs an updater, as for dense keys.
    await expect(keys.handle(meta(true), pairs(3, [1], [1, 1], 2), f32)).rejects.toThrow(
      'Updater needs to be set for async mode',
    );
    keys.dispose();
  });
});
