/**
 * The worker's program, as plain JavaScript text: one script for Node `worker_threads` (run with
 * `eval: true`) and browser Workers (from a Blob URL), so no bundler has to locate a worker file and
 * no TypeScript needs compiling inside the worker. Constants are spliced in from control.ts.
 *
 * Messages: `init` {memory, ctl, thread, idleMs}, `module` {id, module, exports}, `wake`. After each
 * message the worker enters its job loop: Atomics.wait on SEQ, claim chunks, run the export
 * `fn(chunk, thread, ...args)` of its own instance of the module, count FINISHED. It returns to the
 * event loop (state 0) after idleMs without work, or when a job needs a module it has not
 * instantiated yet (the module message is already queued behind it).
 */
import * as K from './control.js';

export function workerSource(): string {
  return `'use strict';
const C_SEQ=${K.C_SEQ},C_NEXT=${K.C_NEXT},C_TOTAL=${K.C_TOTAL},C_FINISHED=${K.C_FINISHED},C_MODULE=${K.C_MODULE},
C_EXPORT=${K.C_EXPORT},C_LIMIT=${K.C_LIMIT},C_ERROR=${K.C_ERROR},C_STOP=${K.C_STOP},C_ARGS=${K.C_ARGS},
C_STATE=${K.C_STATE},C_ONLINE=${K.C_ONLINE},INDEX_BITS=${K.INDEX_BITS},INDEX_MASK=${K.INDEX_MASK},TAG_MASK=${K.TAG_MASK};
const isNode = typeof self === 'undefined';
const port = isNode ? require('node:worker_threads').parentPort : self;
let ctl = null, memory = null, thread = 0, idleMs = 50, lastSeq = 0;
const SPIN_MS = ${K.SPIN_MS};
const modules = [];
function runJob(seq) {
  const fns = modules[Atomics.load(ctl, C_MODULE)];
  if (fns === undefined) return false;
  if (thread >= Atomics.load(ctl, C_LIMIT)) return true;
  const fn = fns[Atomics.load(ctl, C_EXPORT)];
  const total = Atomics.load(ctl, C_TOTAL);
  const a = (i) => Atomics.load(ctl, C_ARGS + i);
  const a0 = a(0), a1 = a(1), a2 = a(2), a3 = a(3), a4 = a(4), a5 = a(5), a6 = a(6), a7 = a(7);
  const tag = seq & TAG_MASK;
  for (;;) {
    const v = Atomics.load(ctl, C_NEXT);
    if ((v >>> INDEX_BITS) !== tag) break;
    const idx = v & INDEX_MASK;
    if (idx >= total) break;
    if (Atomics.compareExchange(ctl, C_NEXT, v, v + 1) !== v) continue;
    try { fn(idx, thread, a0, a1, a2, a3, a4, a5, a6, a7); } catch (e) { Atomics.add(ctl, C_ERROR, 1); }
    if (Atomics.add(ctl, C_FINISHED, 1) + 1 === total) Atomics.notify(ctl, C_FINISHED);
  }
  return true;
}
function loop() {
  const st = C_STATE + thread - 1;
  Atomics.store(ctl, st, 1);
  for (;;) {
    if (Atomics.load(ctl, C_STOP) !== 0) { Atomics.store(ctl, st, 0); return; }
    const seq = Atomics.load(ctl, C_SEQ);
    if (seq !== lastSeq) {
      if (!runJob(seq)) { Atomics.store(ctl, st, 0); return; }
      lastSeq = seq;
      continue;
    }
    // Spin briefly first: kernels of a step come back to back (a bound graph's segment, an eager
    // op after the next), and a futex wake-up costs tens of microseconds on a busy VM.
    const spinEnd = performance.now() + SPIN_MS;
    while (Atomics.load(ctl, C_SEQ) === seq && performance.now() < spinEnd) {}
    if (Atomics.load(ctl, C_SEQ) !== seq) continue;
    if (Atomics.wait(ctl, C_SEQ, seq, idleMs) === 'timed-out') {
      Atomics.store(ctl, st, 0);
      if (Atomics.load(ctl, C_SEQ) === lastSeq) return;
      Atomics.store(ctl, st, 1);
    }
  }
}
function onMessage(msg) {
  if (msg.type === 'init') {
    memory = msg.memory; thread = msg.thread; idleMs = msg.idleMs;
    ctl = new Int32Array(memory.buffer, msg.ctl, ${K.CONTROL_INTS});
    lastSeq = Atomics.load(ctl, C_SEQ);
    Atomics.store(ctl, C_ONLINE + thread - 1, 1);
    Atomics.notify(ctl, C_ONLINE + thread - 1);
  } else if (msg.type === 'module') {
    const inst = new WebAssembly.Instance(msg.module, { env: { memory } });
    modules[msg.id] = msg.exports.map((n) => inst.exports[n]);
  }
  if (ctl !== null) loop();
}
if (isNode) port.on('message', onMessage); else port.onmessage = (e) => onMessage(e.data);
`;
}
