/**
 * ps-lite's recovery over the real ZeroMQ van on 127.0.0.1: a worker node that dies (its heartbeats
 * stop) is replaced by a node started with the same DMLC_* variables, which takes its id and rank
 * (`isRecovery`) even when it registers before the scheduler noticed the death; the other nodes
 * reconnect to it and forget the death, KV requests reach the server from it, and barriers of its
 * group start afresh (a count left from before the death does not release the next barrier early).
 * With PS_RECOVERY_TIMEOUT a barrier holding a dead node waits that long for a replacement, then
 * fails.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WORKER_GROUP } from './api.js';
import { KVServer, KVWorker } from './kv-app.js';
import { jobEnv, type LocalJob, startLocalJob } from './test-support/cluster.js';
import { floatSumHandler } from './test-support/reference.js';
import { PsPostoffice } from './van.js';

const hb = { PS_HEARTBEAT_INTERVAL: '0.3', PS_HEARTBEAT_TIMEOUT: '1.5' };
const jobs: LocalJob[] = [];
const extra: PsPostoffice[] = [];
afterEach(async () => {
  await Promise.all(extra.splice(0).map((n) => n.close()));
  await Promise.all(jobs.splice(0).map((j) => j.closeAll()));
});

const f32 = (a: number[]) => new Uint8Array(Float32Array.from(a).buffer);
const asF32 = (b: Uint8Array) => Array.from(new Float32Array(b.slice().buffer));
const settled = <T>(p: Promise<T>) =>
  Promise.race([p.then(() => 'resolved' as const), new Promise((r) => setTimeout(() => r('pending'), 300))]);

describe('ps-lite recovery', () => {
  it('a restarted worker takes the dead one’s id; the others reconnect and barriers start afresh', async () => {
    const logs: string[] = [];
    const job = await startLocalJob(1, 2, hb, { log: (l) => logs.push(l) });
    jobs.push(job);
    const server = new KVServer(job.servers[0] as PsPostoffice);
    const ref = floatSumHandler();
    server.setRequestHandle(ref.handle);
    const [alive, dying] = job.workers as [PsPostoffice, PsPostoffice];
    const deadId = dying.id;
    expect(dying.isRecovery).toBe(false);

    // A barrier the dying worker never joins: it fails when the death is noticed.
    const before = alive.barrier(WORKER_GROUP).then(
      () => undefined,
      (e: unknown) => e,
    );
    await dying.close(); // heartbeats stop, nothing is said
    // Restarted at once, before the heartbeat timeout: it waits for the death, then replaces it.
    const t0 = Date.now();
    const env = jobEnv('worker', job.scheduler.port, 1, 2, hb);
    const back = await PsPostoffice.start({ env, log: (l) => logs.push(l) });
    extra.push(back);
    expect(String(await before)).toMatch(new RegExp(`node ${deadId}`));
    expect(Date.now() - t0).toBeLessThan(1500 + 2000);
    expect(back.isRecovery).toBe(true);
    expect([back.id, back.rank]).toEqual([deadId, dying.rank]);
    expect(logs.some((l) => l.includes(`replaces dead node ${deadId} (recovery)`))).toBe(true);

    // The scheduler and the other nodes no longer count it dead.
    await new Promise((r) => setTimeout(r, 200));
    expect(job.scheduler.deadNodes(1.5)).toEqual([]);
    expect(alive.deadNodes(1.5)).toEqual([]);
    expect(alive.deadError(deadId)).toBeUndefined();

    // It reaches the server, and sees what the other worker pushed.
    const keys = BigUint64Array.from([5n]);
    await new KVWorker(alive).zpush({ keys, vals: f32([1.5]), lens: Int32Array.from([4]) });
    const w = new KVWorker(back);
    await w.zpush({ keys, vals: f32([2]), lens: Int32Array.from([4]) });
    expect(asF32((await w.zpull(keys)).vals)).toEqual([3.5]);

    // A worker barrier waits for both again (the count from the failed one was reset).
    const next = alive.barrier(WORKER_GROUP);
    expect(await settled(next)).toBe('pending');
    await Promise.all([next, back.barrier(WORKER_GROUP)]);
  }, 20000);

  it('with PS_RECOVERY_TIMEOUT a barrier waits for a replacement, then fails naming the dead node', async () => {
    const env = { ...hb, PS_RECOVERY_TIMEOUT: '3' };
    const job = await startLocalJob(1, 2, env, { log: () => undefined });
    jobs.push(job);
    const [alive, dying] = job.workers as [PsPostoffice, PsPostoffice];
    const deadId = dying.id;
    await dying.close();
    const barrier = alive.barrier(WORKER_GROUP).then(
      () => 'released',
      (e: unknown) => e,
    );
    while (alive.deadError(deadId) === undefined) await new Promise((r) => setTimeout(r, 50));
    const noticed = Date.now();
    // Known dead, yet the barrier waits out the 3 s of grace, then fails.
    expect(await settled(barrier)).toBe('pending');
    const err = await barrier;
    expect(String(err)).toMatch(new RegExp(`node ${deadId} .*considered dead`));
    expect(Date.now() - noticed).toBeGreaterThan(2500);
    expect(Date.now() - noticed).toBeLessThan(6000);
  }, 20000);
});
