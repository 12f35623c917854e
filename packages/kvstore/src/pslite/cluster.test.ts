/**
 * Whole ps-lite jobs over the real ZeroMQ van on 127.0.0.1 (random ports): the start handshake
 * and id assignment, push/pull round trips sliced over two servers from two workers, barriers per
 * group, SimpleApp commands, garbage frames against a live server, the resender under dropped
 * messages, and failures that must not hang: a killed worker process, a dead server under a pending
 * pull, an unreachable scheduler.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { MXNetError } from '@mx/base';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { type KVPairs, Role, SCHEDULER, SERVER_GROUP, WORKER_GROUP } from './api.js';
import { KVServer, KVWorker } from './kv-app.js';
import { jobEnv, type LocalJob, startLocalJob, startScheduler } from './test-support/cluster.js';
import { floatSumHandler } from './test-support/reference.js';
import { PsPostoffice } from './van.js';
import { ZmqTransport } from './zmq-transport.js';

const jobs: LocalJob[] = [];
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
  await Promise.all(jobs.splice(0).map((j) => j.closeAll()));
});

async function job(servers: number, workers: number, extra: Record<string, string> = {}): Promise<LocalJob> {
  const j = await startLocalJob(servers, workers, extra);
  jobs.push(j);
  return j;
}

const f32 = (a: number[]) => new Uint8Array(Float32Array.from(a).buffer);
const asF32 = (b: Uint8Array) => Array.from(new Float32Array(b.slice().buffer));
const serve = (j: LocalJob) =>
  j.servers.map((po) => {
    const s = new KVServer(po);
    const h = floatSumHandler();
    s.setRequestHandle(h.handle);
    return { server: s, store: h.store };
  });

describe('ps-lite jobs over ZeroMQ', () => {
  it('assigns ps-lite ids and ranks and splits the key space (PS_VERBOSE=2 logs it)', async () => {
    const j = await job(2, 2, { PS_VERBOSE: '2' });
    expect(j.logs.some((l) => l.startsWith('[pslite H[1]] assign rank=8 to node role=server'))).toBe(true);
    expect(j.logs.some((l) => /^\[pslite W\[9\]\] recv 1 => 9\. Meta: request=0.*cmd=BARRIER/.test(l))).toBe(
      true,
    );
    expect(j.scheduler.id).toBe(SCHEDULER);
    expect(j.servers.map((s) => [s.id, s.rank, s.role])).toEqual([
      [8, 0, Role.Server],
      [10, 1, Role.Server],
    ]);
    expect(j.workers.map((w) => [w.id, w.rank, w.role])).toEqual([
      [9, 0, Role.Worker],
      [11, 1, Role.Worker],
    ]);
    // ps-lite sorts registrations by port when the hosts are equal: lower port, lower rank.
    expect((j.servers[0] as PsPostoffice).port).toBeLessThan((j.servers[1] as PsPostoffice).port);
    const r = j.workers[0]?.serverKeyRanges() ?? [];
    expect(r.map((x) => [x.begin, x.end])).toEqual([
      [0n, 0x7fffffffffffffffn],
      [0x7fffffffffffffffn, 0xfffffffffffffffen],
    ]);
  }, 20000);

  it('push, pull and pushpull round trips across two servers from two workers', async () => {
    const j = await job(2, 2);
    const stores = serve(j);
    const [w0, w1] = j.workers.map((po) => new KVWorker(po)) as [KVWorker, KVWorker];
    const keys = BigUint64Array.from([1n, 7n, 0x8000000000000000n, 0xf000000000000000n]);
    // mixed value lengths per key (lens), as MXNet's char store sends
    const kv0: KVPairs = { keys, vals: f32([1, 2, 3, 4, 5]), lens: Int32Array.from([4, 8, 4, 4]) };
    await Promise.all([
      w0.zpush(kv0),
      w1.zpush({ keys: keys.subarray(0, 1), vals: f32([10]), lens: Int32Array.from([4]) }),
    ]);
    expect(stores[0]?.store.size).toBe(2); // keys 1 and 7 (7 holds its first float only in this store)
    expect(stores[1]?.store.size).toBe(2);
    const pulled = await w1.zpull(keys.subarray(2));
    expect(Array.from(pulled.keys)).toEqual([0x8000000000000000n, 0xf000000000000000n]);
    expect(asF32(pulled.vals)).toEqual([4, 5]);
    const pp = await w0.zpushPull({
      keys: keys.subarray(0, 1),
      vals: f32([0.5]),
      lens: Int32Array.from([4]),
    });
    expect(asF32(pp.vals)).toEqual([11.5]);
    expect(Array.from(pp.lens)).toEqual([4]);
    // an empty request completes without messages
    await expect(w0.zpull(new BigUint64Array(0))).resolves.toMatchObject({ keys: new BigUint64Array(0) });
    await expect(
      w0.zpush({
        keys: BigUint64Array.from([(1n << 63n) + 1n, 1n]),
        vals: f32([1, 2]),
        lens: Int32Array.from([4, 4]),
      }),
    ).rejects.toThrow(/follows keys of a later server's range/);
    await expect(
      w0.zpush({ keys: BigUint64Array.from([1n]), vals: f32([1, 2]), lens: Int32Array.from([4]) }),
    ).rejects.toThrow(MXNetError);
    await Promise.all([j.scheduler, ...j.servers, ...j.workers].map((p) => p.finalize()));
  }, 20000);

  it('barriers wait for every member of the group', async () => {
    const j = await job(2, 2);
    const [w0, w1] = j.workers as [PsPostoffice, PsPostoffice];
    let released = false;
    const first = w0.barrier(WORKER_GROUP).then(() => {
      released = true;
    });
    await new Promise((r) => setTimeout(r, 150));
    expect(released).toBe(false);
    await Promise.all([first, w1.barrier(WORKER_GROUP)]);
    expect(released).toBe(true);
    await Promise.all([
      ...j.servers.map((s) => s.barrier(SERVER_GROUP + SCHEDULER)),
      j.scheduler.barrier(SERVER_GROUP + SCHEDULER),
    ]);
    await expect(w0.barrier(SERVER_GROUP)).rejects.toThrow(/cannot join a barrier of group 2/);
    await expect(w0.barrier(64)).rejects.toThrow(/does not exist/);
  }, 20000);

  it('SimpleApp commands reach every server and complete when all answered', async () => {
    const j = await job(2, 1);
    const seen: [number, string, number][] = [];
    for (const po of j.servers) {
      const s = new KVServer(po);
      s.simpleApp.setRequestHandle(async (head, body, sender) => {
        await new Promise((r) => setTimeout(r, 20));
        seen.push([head, new TextDecoder().decode(body), sender]);
      });
    }
    const w = new KVWorker(j.workers[0] as PsPostoffice);
    await w.simpleApp.request(3, 'sync_mode', SERVER_GROUP);
    expect(seen).toEqual([
      [3, 'sync_mode', 9],
      [3, 'sync_mode', 9],
    ]);
  }, 20000);

  it('rejects garbage frames and keeps serving', async () => {
    const j = await job(1, 1);
    serve(j);
    const server = j.servers[0] as PsPostoffice;
    const w = new KVWorker(j.workers[0] as PsPostoffice);
    const raw = await ZmqTransport.create();
    cleanups.push(() => raw.close());
    // one peer with a ps-lite identity of a node that does not exist, one with none
    raw.connect(8, '127.0.0.1', server.port, 'ps13');
    raw.connect(10, '127.0.0.1', server.port, null);
    const frames = fc.sample(fc.array(fc.uint8Array({ maxLength: 40 }), { minLength: 1, maxLength: 4 }), {
      seed: 7,
      numRuns: 200,
    });
    for (const [i, f] of frames.entries()) await raw.send(i % 2 ? 8 : 10, f);
    await new Promise((r) => setTimeout(r, 300));
    expect(server.rejectedFrames).toBeGreaterThan(100);
    expect(j.logs.some((l) => l.includes('rejected a message'))).toBe(true);
    await w.zpush({ keys: BigUint64Array.from([5n]), vals: f32([2]), lens: Int32Array.from([4]) });
    expect(asF32((await w.zpull(BigUint64Array.from([5n]))).vals)).toEqual([2]);
  }, 20000);

  it('resends what PS_DROP_MSG drops (PS_RESEND) and still completes', async () => {
    const j = await job(1, 1, { PS_RESEND: '1', PS_RESEND_TIMEOUT: '100', PS_DROP_MSG: '20' });
    serve(j);
    const w = new KVWorker(j.workers[0] as PsPostoffice);
    // 30 pushes: some acknowledgement is dropped (so a duplicate arrives) in all but ~1e-6 of runs.
    for (let i = 0; i < 30; i++)
      await w.zpush({ keys: BigUint64Array.from([1n]), vals: f32([1]), lens: Int32Array.from([4]) });
    expect(asF32((await w.zpull(BigUint64Array.from([1n]))).vals)).toEqual([30]);
    expect(j.logs.some((l) => l.includes('PS_DROP_MSG'))).toBe(true);
    expect(j.logs.some((l) => l.includes('resend (retry='))).toBe(true);
    expect(j.logs.some((l) => l.includes('duplicated message'))).toBe(true);
  }, 20000);

  it('a dead server fails the pending pull with an error naming it', async () => {
    const j = await job(2, 1, { PS_HEARTBEAT_INTERVAL: '0.2', PS_HEARTBEAT_TIMEOUT: '1' });
    for (const po of j.servers) new KVServer(po).setRequestHandle(() => undefined); // never answers
    const w = new KVWorker(j.workers[0] as PsPostoffice);
    const t0 = Date.now();
    const pull = w.zpull(BigUint64Array.from([1n, 0x9000000000000000n]));
    await (j.servers[1] as PsPostoffice).close();
    await expect(pull).rejects.toThrow(/node 10/);
    expect(Date.now() - t0).toBeLessThan(4000);
    // the next request to it fails at once
    await expect(
      w.zpush({
        keys: BigUint64Array.from([0x9000000000000000n]),
        vals: f32([1]),
        lens: Int32Array.from([4]),
      }),
    ).rejects.toThrow(/node 10/);
  }, 20000);

  it('a killed worker process is detected within the heartbeat timeout; the barrier fails naming it', async () => {
    const hb = { PS_HEARTBEAT_INTERVAL: '0.5', PS_HEARTBEAT_TIMEOUT: '2' };
    const logs: string[] = [];
    const log = (l: string) => logs.push(l);
    const sched = await startScheduler(1, 2, hb, { log });
    const port = sched.port;
    const main = fileURLToPath(new URL('./test-support/node-main.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', main], {
      env: { ...process.env, ...jobEnv('worker', port, 1, 2, hb) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(() => void child.kill('SIGKILL'));
    const nodes = await Promise.all([
      sched.started,
      ...['server', 'worker'].map((r) => PsPostoffice.start({ env: jobEnv(r, port, 1, 2, hb), log })),
    ]);
    cleanups.push(() => Promise.all(nodes.map((n) => n.close())).then(() => undefined));
    const worker = nodes[2] as PsPostoffice;
    const childId = worker.id === 9 ? 11 : 9;
    const barrier = worker.barrier(WORKER_GROUP);
    child.kill('SIGKILL');
    const t0 = Date.now();
    const err = await barrier.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(MXNetError);
    expect(String((err as Error).message)).toContain(`node ${childId}`);
    expect(Date.now() - t0).toBeLessThan(2000 + 1500);
    expect(nodes[0]?.deadNodes(2)).toEqual([childId]);
  }, 30000);

  it('an unreachable scheduler is an MXNetError with the address, after PS_CONNECT_TIMEOUT', async () => {
    // port 1: nothing listens there, and no other test's node can bind it and receive our ADD_NODE
    const port = 1;
    const t0 = Date.now();
    const e = await PsPostoffice.start({
      env: jobEnv('worker', port, 1, 1, { PS_CONNECT_TIMEOUT: '1' }),
      log: () => undefined,
    }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(MXNetError);
    expect((e as Error).message).toContain(`cannot reach the scheduler at tcp://127.0.0.1:${port}`);
    expect(Date.now() - t0).toBeLessThan(3000);
  }, 10000);
});
