/**
 * MXNet's exception-handling cases (tests/python/unittest/test_exc_handling.py, mxnet-catalog.md
 * §12 items 40-41) re-expressed at the engine level, plus the bad-input paths of the API: each is
 * an MXNetError and the engine keeps working afterwards.
 */
import { cpu, isMXNetError, MXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { createEngine } from './create-engine.js';
import type { Engine } from './engine.js';
import { FnProperty } from './fn-property.js';
import type { CompleteCallback } from './opr.js';

function failing(message: string): () => never {
  return () => {
    throw new MXNetError(message);
  };
}

async function outcome(p: Promise<void>): Promise<string> {
  return p.then(
    () => 'ok',
    (e: Error) => e.message,
  );
}

/** The engine still schedules and completes work. */
async function stillWorks(e: Engine): Promise<void> {
  const v = e.newVariable();
  let n = 0;
  e.pushSync(() => n++, cpu(), [], [v]);
  e.pushAsync(
    (_r, done) =>
      setTimeout(() => {
        n++;
        done();
      }, 0),
    cpu(),
    [v],
    [v],
  );
  await e.waitForVar(v);
  expect(n).toBe(2);
}

describe('threaded engine: MXNet exception semantics', () => {
  it('a failing op does not throw at push; the error surfaces on wait, also through a dependent op (test_exc_imperative)', async () => {
    const e = createEngine({ kind: 'threaded' });
    const a = e.newVariable('a');
    const c = e.newVariable('c');
    e.pushSync(failing('normal: scale must be > 0'), cpu(), [], [a], { name: 'random_normal' });
    let dotRan = false;
    e.pushSync(
      () => {
        dotRan = true;
      },
      cpu(),
      [a],
      [c],
      { name: 'dot' },
    );
    expect(await outcome(e.waitForVar(c))).toMatch(/scale must be > 0/);
    expect(dotRan).toBe(false);
  });

  it('waitForAll raises it too (test_exc_mutable_var_fail)', async () => {
    const e = createEngine({ kind: 'threaded' });
    const a = e.newVariable('a');
    e.pushAsync((_r, done) => setTimeout(() => done(new MXNetError('async failure')), 1), cpu(), [], [a]);
    expect(await outcome(e.waitForAll())).toMatch(/async failure/);
  });

  it('each failure raises exactly once; a following waitForAll is silent (test_exc_multiple_waits)', async () => {
    const e = createEngine({ kind: 'threaded' });
    const a = e.newVariable('a');
    e.pushSync(failing('once'), cpu(), [], [a]);
    expect(await outcome(e.waitForVar(a))).toMatch(/once/);
    expect(await outcome(e.waitForVar(a))).toBe('ok');
    expect(await outcome(e.waitForAll())).toBe('ok');
    await stillWorks(e);
  });

  it('waitForAll raises once; a second waitForAll is silent (test_multiple_waitalls)', async () => {
    const e = createEngine({ kind: 'threaded' });
    e.pushSync(failing('first'), cpu(), [], [e.newVariable()]);
    e.pushSync(failing('second'), cpu(), [], [e.newVariable()]);
    expect(await outcome(e.waitForAll())).toMatch(/first/);
    expect(await outcome(e.waitForAll())).toBe('ok');
    await stillWorks(e);
  });

  it('after the error was caught on one var, a sibling sharing it reads fine (test_exc_post_fail)', async () => {
    const e = createEngine({ kind: 'threaded' });
    const a = e.newVariable('a');
    const b = e.newVariable('b');
    // one op writes both a and b (like two views of one chunk): both carry the same error box
    e.pushSync(failing('shared'), cpu(), [], [a, b]);
    expect(await outcome(e.waitForVar(a))).toMatch(/shared/);
    expect(await outcome(e.waitForVar(b))).toBe('ok');
    expect(await outcome(e.waitForAll())).toBe('ok');
  });

  it('errors follow the dependency chain and are delivered for the whole chain by one wait', async () => {
    const e = createEngine({ kind: 'threaded' });
    const [x, y, z, w] = ['x', 'y', 'z', 'w'].map((n) => e.newVariable(n)) as [
      ReturnType<Engine['newVariable']>,
      ReturnType<Engine['newVariable']>,
      ReturnType<Engine['newVariable']>,
      ReturnType<Engine['newVariable']>,
    ];
    const ran: string[] = [];
    e.pushSync(failing('root cause'), cpu(), [], [x], { name: 'A' });
    e.pushSync(() => ran.push('B'), cpu(), [x], [y], { name: 'B' });
    e.pushSync(() => ran.push('C'), cpu(), [y], [z], { name: 'C' });
    e.pushSync(() => ran.push('D'), cpu(), [], [w], { name: 'D' }); // independent sibling
    expect(await outcome(e.waitForVar(w))).toBe('ok');
    expect(await outcome(e.waitForVar(z))).toMatch(/root cause/);
    expect(await outcome(e.waitForVar(x))).toBe('ok');
    expect(await outcome(e.waitForVar(y))).toBe('ok');
    expect(ran).toEqual(['D']);
    // delivered, but the vars stay failed (sticky): an op reading them is skipped ...
    e.pushSync(() => ran.push('E'), cpu(), [x, y], [z]);
    await e.waitForVar(z);
    expect(ran).toEqual(['D']);
    expect((e.failureOf(z) as Error).message).toMatch(/root cause/);
    // ... until they are overwritten: a pure write runs and clears the failure
    e.pushSync(() => ran.push('X'), cpu(), [], [x, y]);
    e.pushSync(() => ran.push('E'), cpu(), [x, y], [z]);
    await e.waitForVar(z, { sticky: true });
    expect(ran).toEqual(['D', 'X', 'E']);
    expect([e.failureOf(x), e.failureOf(y), e.failureOf(z)]).toEqual([undefined, undefined, undefined]);
  });

  it('a failure reported through onComplete(err) or thrown by an async function both propagate', async () => {
    const e = createEngine({ kind: 'threaded' });
    const a = e.newVariable();
    const b = e.newVariable();
    e.pushAsync((_r, done) => queueMicrotask(() => done(new Error('via callback'))), cpu(), [], [a]);
    e.pushAsync(
      () => {
        throw new Error('thrown before completing');
      },
      cpu(),
      [],
      [b],
    );
    expect(await outcome(e.waitForVar(a))).toBe('via callback');
    expect(await outcome(e.waitForVar(b))).toBe('thrown before completing');
  });

  it('waitForVarSync rethrows and clears like waitForVar', () => {
    const e = createEngine({ kind: 'threaded' });
    const a = e.newVariable();
    e.pushSync(failing('sync wait'), cpu(), [], [a]);
    expect(() => e.waitForVarSync(a)).toThrow(/sync wait/);
    expect(() => e.waitForVarSync(a)).not.toThrow();
    expect(() => e.waitForAllSync()).not.toThrow();
  });
});

describe('naive engine: errors reach the pusher', () => {
  it('a failing op throws at push; dependents still run, and waits do not rethrow it', async () => {
    const e = createEngine({ kind: 'naive' });
    const a = e.newVariable();
    const b = e.newVariable();
    expect(() => e.pushSync(failing('at push'), cpu(), [], [a])).toThrow(/at push/);
    let ran = false;
    e.pushSync(
      () => {
        ran = true;
      },
      cpu(),
      [a],
      [b],
    );
    expect(ran).toBe(true);
    expect(await outcome(e.waitForVar(b))).toBe('ok');
    expect(await outcome(e.waitForAll())).toBe('ok');
  });

  it('an async failure after its push returned surfaces once at the next wait', async () => {
    const e = createEngine({ kind: 'naive' });
    const a = e.newVariable();
    e.pushAsync((_r, done) => setTimeout(() => done(new Error('later')), 1), cpu(), [], [a]);
    let queuedRan = false;
    e.pushSync(
      () => {
        queuedRan = true;
      },
      cpu(),
      [a],
      [],
    );
    expect(queuedRan).toBe(false); // queued behind the op in flight
    expect(await outcome(e.waitForVar(a))).toBe('later');
    expect(queuedRan).toBe(true);
    expect(await outcome(e.waitForAll())).toBe('ok');
    await stillWorks(e);
  });
});

describe.each(['threaded', 'naive'] as const)('%s engine: bad input', (kind) => {
  it('pushing a deleted var is an MXNetError naming the var and op', async () => {
    const e = createEngine({ kind });
    const v = e.newVariable('weights');
    e.deleteVariable(null, cpu(), v);
    let err: unknown;
    try {
      e.pushSync(() => {}, cpu(), [v], [], { name: 'FullyConnected' });
    } catch (x) {
      err = x;
    }
    expect(isMXNetError(err)).toBe(true);
    expect((err as Error).message).toMatch(/var#\d+ \(weights\) was deleted/);
    expect((err as Error).message).toMatch(/FullyConnected/);
    await stillWorks(e);
  });

  it('waiting on an unknown var (another engine, not a var) is an MXNetError', async () => {
    const e = createEngine({ kind });
    const other = createEngine({ kind }).newVariable('foreign');
    await expect(e.waitForVar(other)).rejects.toThrow(/belongs to another engine/);
    await expect(e.waitForVar({} as never)).rejects.toThrow(MXNetError);
    expect(() => e.waitForVarSync(other)).toThrow(MXNetError);
    expect(() => e.pushSync(() => {}, cpu(), [other], [])).toThrow(/another engine/);
    await stillWorks(e);
  });

  it('rejects bad push arguments without queuing anything', async () => {
    const e = createEngine({ kind });
    const v = e.newVariable();
    expect(() => e.pushSync(42 as never, cpu(), [], [v])).toThrow(/expected a function/);
    expect(() => e.pushSync(() => {}, 'cpu' as never, [], [v])).toThrow(/Context/);
    expect(() => e.pushSync(() => {}, cpu(), [], [v], { prop: 99 as never })).toThrow(/invalid FnProperty/);
    expect(() => e.pushSync(() => {}, cpu(), [], [v], { priority: Number.NaN })).toThrow(/priority/);
    expect(() => e.pushSync(() => {}, cpu(), null as never, [v])).toThrow(/arrays/);
    expect(() => e.setBulkSize(-1)).toThrow(/non-negative/);
    expect(e.pendingOps).toBe(0);
    await stillWorks(e);
  });

  it('calling onComplete twice is an MXNetError at the second call', async () => {
    const e = createEngine({ kind });
    const v = e.newVariable();
    let complete!: CompleteCallback;
    e.pushAsync(
      (_r, done) => {
        complete = done;
        setTimeout(done, 0);
      },
      cpu(),
      [],
      [v],
    );
    await e.waitForVar(v);
    expect(() => complete()).toThrow(/more than once/);
    await stillWorks(e);
  });

  it('waiting synchronously from inside an op is an MXNetError for that op', async () => {
    const e = createEngine({ kind });
    const v = e.newVariable();
    const w = e.newVariable();
    let inner: unknown;
    try {
      e.pushSync(
        () => {
          try {
            e.waitForVarSync(w);
          } catch (x) {
            inner = x;
            throw x;
          }
        },
        cpu(),
        [],
        [v],
      );
    } catch {
      // naive rethrows at push
    }
    await outcome(e.waitForAll());
    expect(String(inner)).toMatch(/inside an engine op/);
    await stillWorks(e);
  });

  it('accepts every FnProperty value', async () => {
    const e = createEngine({ kind });
    const v = e.newVariable();
    let n = 0;
    for (const prop of Object.values(FnProperty)) {
      if (prop === FnProperty.deleteVar) continue;
      e.pushSync(() => n++, cpu(), [], [v], { prop });
    }
    await e.waitForAll();
    expect(n).toBe(Object.keys(FnProperty).length - 1);
  });
});
