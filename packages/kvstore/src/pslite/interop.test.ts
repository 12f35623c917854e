/**
 * Interop with the reference C++ ps-lite (tests/test_kv_app of dmlc/ps-lite): our scheduler runs
 * a C++ job to completion, our worker pushes to and pulls from a C++ server under a C++
 * scheduler, and our server serves a C++ worker (whose own checks decide its exit code). Skipped,
 * with the reason printed, where the reference build is absent (CI).
 */
import { afterEach, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { KVServer, KVWorker } from './kv-app.js';
import { freePort, jobEnv, startScheduler } from './test-support/cluster.js';
import {
  floatSumHandler,
  killAll,
  type RefProcess,
  referenceKvApp,
  spawnReference,
} from './test-support/reference.js';
import { MAX_KEY } from './util.js';
import { PsPostoffice } from './van.js';

const ref = referenceKvApp();
if (!ref.bin) console.log(`pslite interop tests skipped: ${ref.reason}`);
const bin = ref.bin as string;
// a start that cannot complete fails within the test's time instead of timing it out
const BOUND = { PS_CONNECT_TIMEOUT: '15', PS_VERBOSE: '1' };
const procs: RefProcess[] = [];
const nodes: PsPostoffice[] = [];
const logs: string[] = [];
const log = (l: string) => logs.push(`${new Date().toISOString().slice(11, 23)} ${l}`);
const DEBUG = process.env.PSLITE_DEBUG === '1';

/** On failure (or with PSLITE_DEBUG=1), prints what the C++ nodes and ours said. */
function dumpOnFailure(): void {
  const dump = () => {
    for (const p of procs) console.log(`--- C++ ${p.role}\n${outputOf(p)}`);
    console.log(`--- ours\n${logs.join('\n')}`);
  };
  if (DEBUG) setTimeout(dump, 0);
  onTestFailed(dump);
}

beforeEach(() => {
  procs.length = 0;
  logs.length = 0;
});
afterEach(async () => {
  killAll(procs); // the arrays are emptied before the next test, so a failure dump still sees them
  await Promise.all(nodes.splice(0).map((n) => n.close()));
});

function outputOf(p: RefProcess): string {
  return p.output.join('');
}

describe.skipIf(!ref.bin)('ps-lite interop with the C++ reference', () => {
  it('our scheduler runs a C++ test_kv_app job (2 servers, 2 workers) to a clean exit', async () => {
    dumpOnFailure();
    // our scheduler picks its port: no race with other tests or C++ nodes for a "free" one
    const sched = await startScheduler(2, 2, BOUND, { log });
    const kids = ['server', 'server', 'worker', 'worker'].map((r) =>
      spawnReference(bin, r, sched.port, 2, 2),
    );
    procs.push(...kids);
    const scheduler = await sched.started;
    nodes.push(scheduler);
    expect(scheduler.id).toBe(1);
    await scheduler.finalize();
    const codes = await Promise.all(kids.map((k) => k.exit));
    expect(codes, kids.map(outputOf).join('\n')).toEqual([0, 0, 0, 0]);
    // test_kv_app's workers check every pulled sum and log their error (0 when right).
    const workerOut = kids.slice(2).map(outputOf).join('');
    expect(workerOut.match(/error: 0, 0/g)?.length).toBe(2);
  }, 30000);

  it('our worker pushes to and pulls from C++ servers under a C++ scheduler', async () => {
    dumpOnFailure();
    const port = await freePort();
    const kids = ['scheduler', 'server', 'server'].map((r) => spawnReference(bin, r, port, 2, 1));
    procs.push(...kids);
    const po = await PsPostoffice.start({ env: jobEnv('worker', port, 2, 1, BOUND), log });
    nodes.push(po);
    expect(po.id).toBe(9);
    const worker = new KVWorker(po);
    const n = 1000;
    const keys = new BigUint64Array(n);
    const vals = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      keys[i] = (MAX_KEY / BigInt(n)) * BigInt(i) + 3n;
      vals[i] = (i * 37) % 1000;
    }
    const kv = { keys, vals: new Uint8Array(vals.buffer), lens: new Int32Array(n).fill(4) };
    await worker.zpush(kv);
    await worker.zpush(kv);
    const pulled = await worker.zpull(keys);
    expect(Array.from(pulled.keys)).toEqual(Array.from(keys));
    expect(Array.from(new Float32Array(pulled.vals.slice().buffer))).toEqual(Array.from(vals, (v) => 2 * v));
    expect(Array.from(pulled.lens)).toEqual(new Array(n).fill(4));
    const pp = await worker.zpushPull(kv);
    expect(Array.from(new Float32Array(pp.vals.slice().buffer))).toEqual(Array.from(vals, (v) => 3 * v));
    // a command through SimpleApp: the C++ KVServer's default SimpleApp handle answers it.
    await worker.simpleApp.request(7, 'hello', 2);
    await po.finalize();
    expect(await Promise.all(kids.map((k) => k.exit)), kids.map(outputOf).join('\n')).toEqual([0, 0, 0]);
  }, 30000);

  it('our servers serve a C++ test_kv_app worker under a C++ scheduler', async () => {
    dumpOnFailure();
    const port = await freePort();
    const kids = ['scheduler', 'worker'].map((r) => spawnReference(bin, r, port, 2, 1));
    procs.push(...kids);
    const servers = await Promise.all(
      [0, 1].map(() => PsPostoffice.start({ env: jobEnv('server', port, 2, 1, BOUND), log })),
    );
    nodes.push(...servers);
    const stores = [...servers]
      .sort((a, b) => a.id - b.id)
      .map((po) => {
        const s = new KVServer(po);
        const h = floatSumHandler();
        s.setRequestHandle(h.handle);
        return h.store;
      });
    await Promise.all(servers.map((s) => s.finalize()));
    const codes = await Promise.all(kids.map((k) => k.exit));
    expect(codes, kids.map(outputOf).join('\n')).toEqual([0, 0]);
    expect(outputOf(kids[1] as RefProcess)).toMatch(/error: 0, 0/);
    // 10000 keys split over the two servers' ranges.
    expect((stores[0]?.size ?? 0) + (stores[1]?.size ?? 0)).toBe(10000);
    const below = Array.from({ length: 10000 }, (_, i) => (MAX_KEY / 10000n) * BigInt(i)).filter(
      (k) => k < MAX_KEY / 2n,
    );
    expect(stores[0]?.size).toBe(below.length);
  }, 30000);

  it('a C++ worker sees our scheduler and servers, and a C++ server our scheduler and worker', async () => {
    dumpOnFailure();
    const sched = await startScheduler(1, 2, BOUND, { log });
    const port = sched.port;
    const kids = [spawnReference(bin, 'server', port, 1, 2), spawnReference(bin, 'worker', port, 1, 2)];
    procs.push(...kids);
    const [scheduler, po] = await Promise.all([
      sched.started,
      PsPostoffice.start({ env: jobEnv('worker', port, 1, 2, BOUND), log }),
    ]);
    nodes.push(scheduler as PsPostoffice, po as PsPostoffice);
    const worker = new KVWorker(po as PsPostoffice);
    const keys = BigUint64Array.from([5n, 6n]);
    const vals = new Uint8Array(Float32Array.from([1.5, -2]).buffer);
    await worker.zpush({ keys, vals, lens: new Int32Array([4, 4]) });
    await Promise.all([scheduler?.finalize(), po?.finalize()]);
    expect(await Promise.all(kids.map((k) => k.exit)), kids.map(outputOf).join('\n')).toEqual([0, 0]);
  }, 30000);
});
