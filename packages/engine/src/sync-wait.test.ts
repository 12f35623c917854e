/**
 * Synchronous waits: run ready work on the calling thread; block on an asynchronous op only
 * through the blocking wait it registered (here a real worker thread signalling through
 * Atomics on a SharedArrayBuffer); otherwise an MXNetError that says to await instead.
 */
import { Worker } from 'node:worker_threads';
import { cpu, gpu, MXNetError } from '@mx/base';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from './create-engine.js';
import type { EngineKind } from './engine.js';
import type { AsyncFn } from './opr.js';

/** A worker that, for each message, sleeps `ms` then sets flag[0] = 1 and notifies. */
const worker = new Worker(
  `const { parentPort } = require('node:worker_threads');
   parentPort.on('message', ({ flag, ms }) => {
     const f = new Int32Array(flag);
     Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
     Atomics.store(f, 0, 1);
     Atomics.notify(f, 0);
     parentPort.postMessage('done');
   });`,
  { eval: true },
);
worker.unref();
afterAll(() => worker.terminate());

/** An op whose work happens on the worker; it can block the caller until the worker is done. */
function workerOp(log: string[], name: string, blocking: boolean): AsyncFn {
  return (rctx, done) => {
    const flag = new SharedArrayBuffer(4);
    const view = new Int32Array(flag);
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      log.push(name);
      done();
    };
    worker.postMessage({ flag, ms: 5 });
    // completion through the event loop (normal asynchronous path)
    const poll = (): void => {
      if (Atomics.load(view, 0) === 1) finish();
      else setTimeout(poll, 1);
    };
    setTimeout(poll, 1);
    if (blocking) {
      rctx.setBlockingWait(() => {
        Atomics.wait(view, 0, 0);
        finish();
      });
    }
  };
}

describe.each(['threaded', 'naive'] as EngineKind[])('%s engine: synchronous waits', (kind) => {
  it('run pending sync ops on the calling thread', () => {
    const e = createEngine({ kind });
    const v = e.newVariable();
    let x = 0;
    for (let i = 0; i < 5; i++) e.pushSync(() => (x = x * 2 + 1), cpu(), [], [v]);
    e.waitForVarSync(v);
    expect(x).toBe(31);
    e.waitForAllSync();
    expect(e.pendingOps).toBe(0);
  });

  it('block on an async op through its registered blocking wait', () => {
    const e = createEngine({ kind });
    const v = e.newVariable();
    const log: string[] = [];
    e.pushAsync(workerOp(log, 'device', true), gpu(0), [], [v]);
    e.pushSync(() => log.push('after'), cpu(), [v], [v]);
    e.waitForVarSync(v);
    expect(log).toEqual(['device', 'after']);
  });

  it('fail with an MXNetError naming the op when an async op cannot complete on this thread', async () => {
    const e = createEngine({ kind });
    const v = e.newVariable();
    const log: string[] = [];
    e.pushAsync(workerOp(log, 'device', false), gpu(0), [], [v], { name: 'webgpu_matmul' });
    let err: unknown;
    try {
      e.waitForVarSync(v);
    } catch (x) {
      err = x;
    }
    expect(err).toBeInstanceOf(MXNetError);
    expect((err as Error).message).toMatch(/webgpu_matmul.*gpu\(0\)/);
    expect((err as Error).message).toMatch(/await/);
    await e.waitForVar(v);
    expect(log).toEqual(['device']);
  });
});
