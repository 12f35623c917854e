/**
 * Engine API semantics on both kinds: ordering, concurrency of reads, deduplication, properties,
 * reusable operators, deletion, lifecycle. Error propagation and MXNet's exception cases are in
 * exceptions.test.ts; synchronous waits in sync-wait.test.ts; bulking in bulk.test.ts.
 */
import { cpu, Env, gpu } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { createEngine } from './create-engine.js';
import type { EngineKind } from './engine.js';
import { FnProperty } from './fn-property.js';
import type { CompleteCallback } from './opr.js';

const KINDS: EngineKind[] = ['threaded', 'naive'];

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe.each(KINDS)('%s engine', (kind) => {
  it('runs writes to a var in push order and reads after the write they follow', async () => {
    const e = createEngine({ kind });
    const v = e.newVariable('v');
    let value = 0;
    const seen: number[] = [];
    e.pushSync(
      () => {
        value = 1;
      },
      cpu(),
      [],
      [v],
    );
    e.pushAsync(
      (_r, done) =>
        setTimeout(() => {
          value = value * 10 + 2;
          done();
        }, 2),
      cpu(),
      [],
      [v],
    );
    e.pushSync(() => seen.push(value), cpu(), [v], []);
    e.pushSync(
      () => {
        value += 1;
      },
      cpu(),
      [],
      [v],
    );
    e.pushSync(() => seen.push(value), cpu(), [v], []);
    await e.waitForAll();
    expect(seen).toEqual([12, 13]);
    expect(v.version).toBe(3);
  });

  it('deduplicates vars: a var read and written counts as one write; repeats count once', async () => {
    const e = createEngine({ kind });
    const a = e.newVariable();
    let runs = 0;
    e.pushSync(() => runs++, cpu(), [a, a, a], [a, a]);
    e.pushSync(() => runs++, cpu(), [a], []);
    await e.waitForAll();
    expect(runs).toBe(2);
    expect(a.version).toBe(1);
  });

  it('reusable operators run once per push and are deleted after their pushes', async () => {
    const e = createEngine({ kind });
    const v = e.newVariable();
    let count = 0;
    const op = e.newOperator(
      (_r, done) => {
        count++;
        done();
      },
      [],
      [v],
      { name: 'inc' },
    );
    e.push(op, cpu());
    e.push(op, cpu());
    e.push(op, cpu());
    e.deleteOperator(op);
    await e.waitForAll();
    expect(count).toBe(3);
    expect(() => e.push(op, cpu())).toThrow(/deleted/);
  });

  it('deleteVariable runs after pending ops, then the var is unusable', async () => {
    const e = createEngine({ kind });
    const v = e.newVariable('w');
    const order: string[] = [];
    e.pushAsync(
      (_r, done) =>
        setTimeout(() => {
          order.push('write');
          done();
        }, 1),
      cpu(),
      [],
      [v],
    );
    e.deleteVariable(() => order.push('delete'), cpu(), v);
    expect(() => e.pushSync(() => {}, cpu(), [v], [])).toThrow(/was deleted/);
    await expect(e.waitForVar(v)).rejects.toThrow(/was deleted/);
    await e.waitForAll();
    expect(order).toEqual(['write', 'delete']);
  });

  it('a noSkip op runs although its input carries an error; the error still propagates', async () => {
    const e = createEngine({ kind });
    const a = e.newVariable();
    const b = e.newVariable();
    let ran = false;
    try {
      e.pushSync(
        () => {
          throw new Error('bad');
        },
        cpu(),
        [],
        [a],
      );
    } catch {
      // NaiveEngine throws at push
    }
    e.pushSync(
      () => {
        ran = true;
      },
      cpu(),
      [a],
      [b],
      { prop: FnProperty.noSkip },
    );
    expect(
      await e.waitForVar(b).then(
        () => 'ok',
        (err: Error) => err.message,
      ),
    ).toBe(kind === 'naive' ? 'ok' : 'bad');
    expect(ran).toBe(true);
  });

  it('notifyShutdown completes later ops without running them, except deleteVar', async () => {
    const e = createEngine({ kind });
    const v = e.newVariable();
    const ran: string[] = [];
    e.notifyShutdown();
    e.pushSync(() => ran.push('op'), cpu(), [], [v]);
    e.deleteVariable(() => ran.push('delete'), cpu(), v);
    await e.waitForAll();
    expect(ran).toEqual(['delete']);
  });

  it('profiles ops into a Chrome trace', async () => {
    const e = createEngine({ kind });
    e.profiler.setState('run');
    const v = e.newVariable();
    e.pushSync(() => {}, cpu(0), [], [v], { name: 'first' });
    e.pushAsync((_r, done) => setTimeout(done, 1), gpu(0), [v], [], { name: 'second' });
    await e.waitForAll();
    e.profiler.setState('stop');
    const trace = JSON.parse(e.profiler.traceJSON()) as { traceEvents: Record<string, unknown>[] };
    const ops = trace.traceEvents.filter((t) => t.ph === 'X');
    expect(ops.map((t) => t.name)).toEqual(['first', 'second']);
    for (const t of ops) {
      expect(typeof t.ts).toBe('number');
      expect(t.dur as number).toBeGreaterThanOrEqual(0);
    }
    const [first, second] = ops as { ts: number; dur: number; pid: number }[];
    expect(second?.ts as number).toBeGreaterThanOrEqual((first?.ts as number) + (first?.dur as number));
    expect(second?.pid).not.toBe(first?.pid);
    const names = trace.traceEvents
      .filter((t) => t.name === 'process_name')
      .map((t) => (t.args as { name: string }).name);
    expect(names.sort()).toEqual(['cpu(0)', 'gpu(0)']);
    expect(e.profiler.dumps()).toMatch(/first/);
    const stats = JSON.parse(e.profiler.dumps({ format: 'json' })) as { name: string; count: number }[];
    expect(stats.find((s) => s.name === 'second')?.count).toBe(1);
  });
});

describe('threaded engine scheduling', () => {
  it('pushes return before anything runs; ops run from a microtask', async () => {
    const e = createEngine({ kind: 'threaded' });
    const v = e.newVariable();
    let ran = false;
    e.pushSync(
      () => {
        ran = true;
      },
      cpu(),
      [],
      [v],
    );
    expect(ran).toBe(false);
    expect(e.pendingOps).toBe(1);
    await e.waitForVar(v);
    expect(ran).toBe(true);
  });

  it('runs reads between two writes concurrently when the lane has slots', async () => {
    const e = createEngine({ kind: 'threaded', env: new Env({ MXNET_CPU_WORKER_NTHREADS: '4' }) });
    const v = e.newVariable();
    const events: string[] = [];
    const gate = deferred();
    e.pushSync(() => events.push('w1'), cpu(), [], [v]);
    for (const r of ['r1', 'r2', 'r3']) {
      e.pushAsync(
        (_rc, done) => {
          events.push(`${r}+`);
          void gate.promise.then(() => {
            events.push(`${r}-`);
            done();
          });
        },
        cpu(),
        [v],
        [],
      );
    }
    e.pushSync(() => events.push('w2'), cpu(), [], [v]);
    await new Promise((r) => setTimeout(r, 5));
    expect(events).toEqual(['w1', 'r1+', 'r2+', 'r3+']);
    gate.resolve();
    await e.waitForAll();
    expect(events.slice(4).sort()).toEqual(['r1-', 'r2-', 'r3-', 'w2'].sort());
    expect(events[events.length - 1]).toBe('w2');
  });

  it('bounds asynchronous ops in flight per context by the worker slots', async () => {
    const e = createEngine({ kind: 'threaded', env: new Env({ MXNET_GPU_WORKER_NTHREADS: '2' }) });
    let inFlight = 0;
    let peak = 0;
    const pending: CompleteCallback[] = [];
    for (let i = 0; i < 6; i++) {
      e.pushAsync(
        (_r, done) => {
          peak = Math.max(peak, ++inFlight);
          pending.push(() => {
            inFlight--;
            done();
          });
        },
        gpu(0),
        [],
        [e.newVariable()],
      );
    }
    // an independent CPU op is not held up by the full GPU lane
    let cpuRan = false;
    e.pushSync(
      () => {
        cpuRan = true;
      },
      cpu(),
      [],
      [e.newVariable()],
    );
    for (let round = 0; round < 3; round++) {
      await new Promise((r) => setTimeout(r, 1));
      expect(pending.length).toBe(2);
      expect(cpuRan).toBe(true);
      for (const f of pending.splice(0)) f();
    }
    await e.waitForAll();
    expect(peak).toBe(2);
  });

  it('runs FnProperty.async inline at push when ready, and orders a priority lane by priority', async () => {
    const e = createEngine({ kind: 'threaded' });
    let inline = false;
    e.pushSync(
      () => {
        inline = true;
      },
      cpu(),
      [],
      [e.newVariable()],
      { prop: FnProperty.async },
    );
    expect(inline).toBe(true);

    const gate = e.newVariable('gate');
    const order: number[] = [];
    let open!: CompleteCallback;
    e.pushAsync(
      (_r, done) => {
        open = done;
      },
      cpu(),
      [],
      [gate],
    );
    await new Promise((r) => setTimeout(r, 1));
    for (const p of [1, 5, 3, 5, 0]) {
      e.pushSync(() => order.push(p), gpu(0), [gate], [e.newVariable()], {
        prop: FnProperty.copyToGPU,
        priority: p,
      });
    }
    open();
    await e.waitForAll();
    expect(order).toEqual([5, 5, 3, 1, 0]);
  });

  it('stop() waits for pending ops and holds new ones until start()', async () => {
    const e = createEngine({ kind: 'threaded' });
    const v = e.newVariable();
    let n = 0;
    e.pushAsync(
      (_r, done) =>
        setTimeout(() => {
          n++;
          done();
        }, 1),
      cpu(),
      [],
      [v],
    );
    await e.stop();
    expect(n).toBe(1);
    e.pushSync(() => n++, cpu(), [], [v]);
    await new Promise((r) => setTimeout(r, 2));
    expect(n).toBe(1);
    expect(() => e.waitForVarSync(v)).toThrow(/stopped/);
    e.start();
    await e.waitForVar(v);
    expect(n).toBe(2);
  });

  it('yields to the event loop during a long drain', async () => {
    const e = createEngine({ kind: 'threaded', drainBudgetMs: 2 });
    const v = e.newVariable();
    let otherTaskRan = false;
    let ranBeforeEnd = false;
    setImmediate(() => {
      otherTaskRan = true;
    });
    const spin = (): void => {
      const t = performance.now();
      while (performance.now() - t < 0.05) {}
    };
    for (let i = 0; i < 400; i++) e.pushSync(spin, cpu(), [], [v]);
    e.pushSync(
      () => {
        ranBeforeEnd = otherTaskRan;
      },
      cpu(),
      [],
      [v],
    );
    await e.waitForAll();
    expect(ranBeforeEnd).toBe(true);
  });
});
