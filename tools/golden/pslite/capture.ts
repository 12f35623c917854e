/**
 * Captures real ps-lite frames sent by the reference C++ dmlc/ps-lite (its tests/test_kv_app) to
 * our nodes, and writes them to packages/kvstore/src/__golden__/pslite/frames.json for the golden
 * tests (which only read the committed file; CI has no C++ build).
 *
 * Run from the repository root, with the reference built (see ./README.md):
 *   npx tsx tools/golden/pslite/capture.ts [/path/to/ps-lite [A|B|C]]
 *
 * Scenarios (all on 127.0.0.1):
 *  A. our scheduler, C++ server + C++ worker → ADD_NODE (from unidentified peers), BARRIER
 *     requests, HEARTBEATs as the C++ van sends them to a scheduler;
 *  B. C++ scheduler + C++ worker, our two servers → the node list and barrier release from a C++
 *     scheduler and the worker's push / pull / pushpull requests (keys, float vals);
 *  C. our scheduler and two servers with a C++ worker, all with PS_RESEND=1 → the ACKs the C++
 *     worker computes for our messages (their msg_sig is ps-lite's message signature). (A C++
 *     scheduler cannot take part: with PS_RESEND its resender ACKs the ADD_NODE of a peer that has
 *     no id yet, finds no socket, and aborts.)
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command, MetaCodec } from '../../../packages/kvstore/src/pslite/codec.js';
import { KVServer } from '../../../packages/kvstore/src/pslite/kv-app.js';
import { freePort, jobEnv } from '../../../packages/kvstore/src/pslite/test-support/cluster.js';
import {
  floatSumHandler,
  spawnReference,
} from '../../../packages/kvstore/src/pslite/test-support/reference.js';
import { PsPostoffice } from '../../../packages/kvstore/src/pslite/van.js';

const refDir = resolve(process.argv[2] ?? '/work/pslite/src');
const bin = join(refDir, 'tests', 'test_kv_app');
const out = resolve('packages/kvstore/src/__golden__/pslite/frames.json');
const codec = new MetaCodec();
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

interface Captured {
  scenario: string;
  /** The node of ours that received it (id at capture time). */
  receiver: string;
  kind: string;
  identity: string;
  frames: string[];
}
const captured: Captured[] = [];

/** Keeps the first `limit` messages of each kind a node receives. */
function tapFor(scenario: string, receiver: () => string, limit = 1, onlyFrom?: string) {
  const counts = new Map<string, number>();
  return (identity: Uint8Array, frames: readonly Uint8Array[]) => {
    if (onlyFrom !== undefined && Buffer.from(identity).toString('latin1') !== onlyFrom) return;
    const meta = codec.decodeMeta(frames[0] as Uint8Array);
    const c = meta.control.cmd;
    const kind =
      c !== Command.EMPTY
        ? `control:${c}:${meta.request ? 'req' : 'res'}`
        : `data:${meta.simpleApp ? 'simple' : ''}${meta.push ? 'push' : ''}${meta.pull ? 'pull' : ''}:${meta.request ? 'req' : 'res'}`;
    const n = counts.get(kind) ?? 0;
    if (n >= limit) return;
    counts.set(kind, n + 1);
    captured.push({ scenario, receiver: receiver(), kind, identity: b64(identity), frames: frames.map(b64) });
  };
}

async function scenarioA(): Promise<void> {
  const port = await freePort();
  const kids = ['server', 'worker'].map((r) => spawnReference(bin, r, port, 1, 1));
  const sched = await PsPostoffice.start({
    env: jobEnv('scheduler', port, 1, 1),
    tap: tapFor('A', () => 'scheduler', 2),
  });
  await new Promise((r) => setTimeout(r, 1500)); // let a heartbeat arrive
  await sched.finalize();
  const codes = await Promise.all(kids.map((k) => k.exit));
  if (codes.some((c) => c !== 0))
    throw new Error(`scenario A: C++ exit codes ${codes}\n${kids.map((k) => k.output.join('')).join('\n')}`);
}

async function scenarioBC(name: string, resend: boolean): Promise<void> {
  const port = await freePort();
  const extra: Record<string, string> = resend ? { PS_RESEND: '1', PS_RESEND_TIMEOUT: '3000' } : {};
  const kids = [spawnReference(bin, 'worker', port, 2, 1, extra)];
  if (!resend) kids.push(spawnReference(bin, 'scheduler', port, 2, 1));
  // In C only the C++ worker's frames are kept (it is `ps9`; our nodes ACK each other too).
  const from = resend ? 'ps9' : undefined;
  const scheduler = resend
    ? PsPostoffice.start({
        env: jobEnv('scheduler', port, 2, 1, extra),
        tap: tapFor(name, () => 'scheduler', 1, from),
      })
    : undefined;
  scheduler?.catch(() => undefined); // awaited below; a failure must not be an unhandled rejection
  const servers: PsPostoffice[] = [];
  const started = await Promise.all(
    [0, 1].map((i) => {
      const tap = tapFor(name, () => `server ${i} (started ${i === 0 ? 'first' : 'second'})`, 1, from);
      return PsPostoffice.start({ env: jobEnv('server', port, 2, 1, extra), tap: i === 0 ? tap : undefined });
    }),
  );
  servers.push(...started);
  for (const s of servers) new KVServer(s).setRequestHandle(floatSumHandler().handle);
  const done = Promise.all([...servers.map((s) => s.finalize()), scheduler?.then((s) => s.finalize())]);
  if (resend) {
    // The C++ worker may abort while stopping (below), so our final barrier may fail; the
    // frames we want arrived long before.
    await done.catch(() => undefined);
    await Promise.all([...servers.map((s) => s.close()), scheduler?.then((s) => s.close())]);
  } else await done;
  const codes = await Promise.all(kids.map((k) => k.exit));
  // With PS_RESEND the C++ worker passes its checks, then may abort while stopping (its resender
  // thread calls my_node() after Stop: "Check failed: ready_ call Start() first") — a ps-lite bug.
  const passed = kids.every((k) => k.role !== 'worker' || k.output.join('').includes('error: 0, 0'));
  if (resend && passed) return;
  if (codes.some((c) => c !== 0))
    throw new Error(
      `scenario ${name}: C++ exit codes ${codes}\n${kids.map((k) => k.output.join('')).join('\n')}`,
    );
}

const only = process.argv[3]; // A, B or C: one scenario only
if (!only || only === 'A') await scenarioA();
if (!only || only === 'B') await scenarioBC('B', false);
if (!only || only === 'C') await scenarioBC('C', true);
// Keep one message per (scenario, kind): the tap above is per closure, so dedupe here.
const seen = new Set<string>();
// Data requests are big (5000 keys each): keep B's push and pull only.
const messages = captured.filter((c) => {
  if (c.kind.startsWith('data:') && (c.scenario !== 'B' || c.kind.includes('pushpull'))) return false;
  const key = `${c.scenario}|${c.kind}|${c.scenario === 'A' ? c.identity : c.receiver}`;
  if (seen.has(key)) return false;
  seen.add(key);
  return true;
});
const doc = {
  note: 'Frames sent by the reference C++ dmlc/ps-lite (tests/test_kv_app) to our nodes; written by tools/golden/pslite/capture.ts. identity = the ZeroMQ routing identity the ROUTER saw; frames = [meta (PBMeta), data...], base64.',
  reference: 'dmlc/ps-lite 15b8adf17e9871ff6112c80e4b290fa38c2b4656, built with make (libzmq 4.3, protobuf)',
  messages,
};
writeFileSync(out, `${JSON.stringify(doc, null, 1)}\n`);
console.log(`wrote ${messages.length} messages to ${out}`);
for (const m of messages)
  console.log(m.scenario, m.receiver, m.kind, m.frames.map((f) => Buffer.from(f, 'base64').length).join(','));
process.exit(0);
