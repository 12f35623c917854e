/**
 * Sticky failures and complete waitForAll reports, on both engine kinds: a var whose writer failed
 * stays failed for ops that read it (and for `failureOf` / sticky waits) after a wait delivered the
 * error, until an op overwrites it; read-write vars count as read; waitForAll reports every pending
 * failure (one: the error itself; several: an MXNetAggregateError), while MXNet's rethrow-once rule
 * for plain waits holds. The random-program property tests check the same rules at scale.
 */
import { cpu, isMXNetError, MXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { createEngine } from './create-engine.js';
import type { Engine } from './engine.js';
import { MXNetAggregateError } from './exception.js';
import { FnProperty } from './fn-property.js';
import type { Var } from './var.js';

const fail =
  (message: string, op = 'take') =>
  (): never => {
    throw new MXNetError(message, { op });
  };

async function outcome(p: Promise<void>): Promise<unknown> {
  return p.then(
    () => 'ok',
    (e: unknown) => e,
  );
}

/** Push a failing write to `vars`; NaiveEngine throws it at the push (that delivers it). */
function pushFailure(e: Engine, vars: Var[], message: string, op?: string): void {
  try {
    e.pushSync(fail(message, op), cpu(), [], vars, { name: op ?? 'take' });
  } catch (err) {
    expect(e.kind).toBe('naive');
    expect((err as Error).message).toMatch(message);
  }
}

describe('threaded engine: sticky failures', () => {
  it('ops reading a failed var are skipped before and after the delivery; their writes carry it', async () => {
    const e = createEngine({ kind: 'threaded' });
    const [a, b, c] = [e.newVariable('a'), e.newVariable('b'), e.newVariable('c')];
    const ran: string[] = [];
    pushFailure(e, [a], 'index 9 out of range');
    e.pushSync(() => ran.push('before'), cpu(), [a], [b]);
    const first = await outcome(e.waitForVar(a));
    expect((first as Error).message).toMatch(/take: index 9 out of range/);
    expect(await outcome(e.waitForVar(a))).toBe('ok'); // rethrown once (MXNet)
    expect(await outcome(e.waitForVar(a, { sticky: true }))).toBe(first);
    e.pushSync(() => ran.push('after'), cpu(), [a], [c]);
    expect(await outcome(e.waitForVar(c))).toBe('ok'); // delivered box: plain waits stay silent
    expect(ran).toEqual([]);
    for (const v of [a, b, c]) expect(e.failureOf(v)).toBe(first);
    expect(await outcome(e.waitForVar(b, { sticky: true }))).toBe(first);
    expect(await outcome(e.waitForAll())).toBe('ok'); // test_exc_multiple_waits
  });

  it('a pure overwrite after the delivery runs and clears; before the delivery it is skipped (OnStart)', async () => {
    const e = createEngine({ kind: 'threaded' });
    const x = e.newVariable('x');
    const ran: string[] = [];
    pushFailure(e, [x], 'boom');
    e.pushSync(() => ran.push('early write'), cpu(), [], [x]);
    expect(String(await outcome(e.waitForVar(x)))).toMatch(/boom/);
    expect(ran).toEqual([]);
    expect(String(e.failureOf(x))).toMatch(/boom/);
    e.pushSync(() => ran.push('write'), cpu(), [], [x]);
    expect(await outcome(e.waitForVar(x, { sticky: true }))).toBe('ok');
    expect(ran).toEqual(['write']);
    expect(e.failureOf(x)).toBeUndefined();
    e.pushSync(() => ran.push('read'), cpu(), [x], []);
    await e.waitForAll();
    expect(ran).toEqual(['write', 'read']);
  });

  it('a var both read and written counts as read: in-place updates stay failed', async () => {
    const e = createEngine({ kind: 'threaded' });
    const [w, g, m] = [e.newVariable('weight'), e.newVariable('grad'), e.newVariable('mom')];
    pushFailure(e, [w], 'bad weight');
    await outcome(e.waitForVar(w));
    let ran = 0;
    // sgd_mom_update(weight, grad, mom, out=weight): weight and mom are read and written
    e.pushSync(() => ran++, cpu(), [w, g, m], [w, m], { name: 'sgd_mom_update' });
    const op = e.newOperator((_r, done) => done(ran++), [w], [w], { name: 'reused' });
    e.push(op, cpu());
    await e.waitForAll();
    expect(ran).toBe(0);
    expect(String(e.failureOf(w))).toMatch(/bad weight/);
    expect(String(e.failureOf(m))).toMatch(/bad weight/);
    expect(e.failureOf(g)).toBeUndefined();
  });

  it('the inline path (async property, idle vars) follows the same rules', async () => {
    const e = createEngine({ kind: 'threaded' });
    const [a, b, c] = [e.newVariable('a'), e.newVariable('b'), e.newVariable('c')];
    const inline = { prop: FnProperty.async };
    e.pushSync(fail('inline failure'), cpu(), [], [a], inline);
    expect(String(e.failureOf(a))).toMatch(/inline failure/); // ran at push: no wait needed
    let ran = 0;
    e.pushSync(() => ran++, cpu(), [a], [b], inline);
    expect(String(e.failureOf(b))).toMatch(/inline failure/);
    expect(String(await outcome(e.waitForVar(b)))).toMatch(/inline failure/);
    e.pushSync(() => ran++, cpu(), [a], [c], inline); // c is clean: only the delivered read fails it
    expect(ran).toBe(0);
    expect(String(e.failureOf(c))).toMatch(/inline failure/);
    e.pushSync(() => ran++, cpu(), [], [a], inline); // overwrite after the delivery
    e.pushSync(() => ran++, cpu(), [a], [b], inline);
    await e.waitForAll();
    expect(ran).toBe(2);
    expect([e.failureOf(a), e.failureOf(b)]).toEqual([undefined, undefined]);
  });

  it('a noSkip op runs on a failed input and its writes carry the failure; deleteVar ops always run', async () => {
    const e = createEngine({ kind: 'threaded' });
    const [a, b, c] = [e.newVariable('a'), e.newVariable('b'), e.newVariable('c')];
    pushFailure(e, [a, c], 'upstream');
    let ran = 0;
    e.pushSync(() => ran++, cpu(), [a], [b], { prop: FnProperty.noSkip });
    let deleted = false;
    e.deleteVariable(
      () => {
        deleted = true;
      },
      cpu(),
      c, // carries an undelivered failure: its storage must still be freed
    );
    expect(String(await outcome(e.waitForAll()))).toMatch(/upstream/);
    expect(ran).toBe(1);
    expect(deleted).toBe(true);
    expect(String(e.failureOf(b))).toMatch(/upstream/);
  });

  it('failureOf rejects foreign vars and accepts a var whose deletion is pending', async () => {
    const e = createEngine({ kind: 'threaded' });
    const other = createEngine({ kind: 'threaded' }).newVariable();
    expect(() => e.failureOf(other)).toThrow(/belongs to another engine/);
    expect(() => e.failureOf({} as Var)).toThrow(MXNetError);
    const v = e.newVariable();
    e.pushAsync((_r, done) => setTimeout(() => done(new Error('late')), 1), cpu(), [], [v]);
    e.deleteVariable(null, cpu(), v);
    expect(e.failureOf(v)).toBeUndefined();
    expect(String(await outcome(e.waitForAll()))).toMatch(/late/);
  });

  it('an op failing with undefined fails with an MXNetError naming it', async () => {
    const e = createEngine({ kind: 'threaded' });
    const v = e.newVariable();
    e.pushAsync((_r, done) => done(), cpu(), [], [v]);
    e.pushSync(
      () => {
        throw undefined;
      },
      cpu(),
      [],
      [v],
      { name: 'odd' },
    );
    const err = await outcome(e.waitForVar(v));
    expect(isMXNetError(err)).toBe(true);
    expect((err as Error).message).toMatch(/odd: the op failed with undefined/);
    expect(e.failureOf(v)).toBe(err);
  });
});

describe.each(['threaded', 'naive'] as const)('%s engine: waitForAll reports every failure', (kind) => {
  /** Two independent failures that no wait has delivered (async, so naive defers them too). */
  function twoFailures(e: Engine): [Error, Error] {
    const errs: [Error, Error] = [
      new MXNetError('index 7 out of range', { op: 'take' }),
      new Error('disk full'),
    ];
    e.pushAsync((_r, done) => setTimeout(() => done(errs[0]), 1), cpu(), [], [e.newVariable()], {
      name: 'take',
    });
    e.pushAsync((_r, done) => setTimeout(() => done(errs[1]), 2), cpu(), [], [e.newVariable()], {
      name: 'save',
    });
    return errs;
  }

  it('several failures: an MXNetAggregateError listing each, errors in order, cause the first', async () => {
    const e = createEngine({ kind });
    const [e1, e2] = twoFailures(e);
    const err = await outcome(e.waitForAll());
    expect(err).toBeInstanceOf(MXNetAggregateError);
    const agg = err as MXNetAggregateError;
    expect(isMXNetError(agg)).toBe(true);
    expect(agg.op).toBe('waitall');
    expect(agg.errors).toEqual([e1, e2]);
    expect(agg.errors[0]).toBe(e1);
    expect(agg.cause).toBe(e1);
    expect(agg.message).toMatch(
      /^waitall: 2 operations failed:\n- take: index 7 out of range\n- save: disk full/,
    );
    expect(await outcome(e.waitForAll())).toBe('ok'); // all delivered (test_multiple_waitalls)
  });

  it('one failure: the error itself (MXNet compatible); the same error twice counts once', async () => {
    const e = createEngine({ kind });
    const one = new Error('only one');
    for (let i = 0; i < 2; i++)
      e.pushAsync((_r, done) => setTimeout(() => done(one), 1), cpu(), [], [e.newVariable()]);
    expect(await outcome(e.waitForAll())).toBe(one);
  });

  it('waitForAllSync aggregates the same way', async () => {
    const e = createEngine({ kind });
    const errs = [new Error('first'), new Error('second')];
    for (const err of errs)
      e.pushAsync((_r, done) => queueMicrotask(() => done(err)), cpu(), [], [e.newVariable()]);
    await new Promise((resolve) => setTimeout(resolve, 1)); // both completed, neither delivered
    let thrown: unknown;
    try {
      e.waitForAllSync();
    } catch (x) {
      thrown = x;
    }
    expect(thrown).toBeInstanceOf(MXNetAggregateError);
    expect((thrown as MXNetAggregateError).errors).toEqual(errs);
    expect(() => e.waitForAllSync()).not.toThrow();
  });

  it('a failure delivered by waitForVar is not reported again; the others are', async () => {
    const e = createEngine({ kind });
    const v = e.newVariable('v');
    e.pushAsync((_r, done) => setTimeout(() => done(new Error('on v')), 1), cpu(), [], [v]);
    expect(String(await outcome(e.waitForVar(v)))).toMatch(/on v/);
    expect(await outcome(e.waitForAll())).toBe('ok');
    const [e1, e2] = twoFailures(e);
    const agg = (await outcome(e.waitForAll())) as MXNetAggregateError;
    expect(agg.errors).toEqual([e1, e2]);
  });
});

describe('naive engine: sticky failures without changing what it throws', () => {
  it('a failed op throws at push; its writes stay failed for sticky waits until overwritten', async () => {
    const e = createEngine({ kind: 'naive' });
    const [x, y] = [e.newVariable('x'), e.newVariable('y')];
    expect(() => e.pushSync(fail('naive failure'), cpu(), [], [x], { name: 'take' })).toThrow(
      /naive failure/,
    );
    const err = e.failureOf(x);
    expect(String(err)).toMatch(/take: naive failure/);
    expect(await outcome(e.waitForVar(x))).toBe('ok'); // delivered by the push
    expect(await outcome(e.waitForVar(x, { sticky: true }))).toBe(err);
    expect(() => e.waitForVarSync(x, { sticky: true })).toThrow(/naive failure/);
    let ran = 0;
    e.pushSync(() => ran++, cpu(), [x], [y]); // dependents run (MXNet), but carry the failure
    expect(ran).toBe(1);
    expect(e.failureOf(y)).toBe(err);
    e.pushSync(() => ran++, cpu(), [], [x]);
    expect(e.failureOf(x)).toBeUndefined();
    e.pushSync(() => ran++, cpu(), [x], [y]);
    expect(e.failureOf(y)).toBeUndefined();
    expect(await outcome(e.waitForAll())).toBe('ok');
  });

  it('a failure after the push returned is rethrown once by the next wait and stays on its var', async () => {
    const e = createEngine({ kind: 'naive' });
    const v = e.newVariable();
    const late = new Error('late');
    e.pushAsync((_r, done) => setTimeout(() => done(late), 1), cpu(), [], [v]);
    expect(await outcome(e.waitForVar(v, { sticky: true }))).toBe(late);
    expect(await outcome(e.waitForVar(v))).toBe('ok');
    expect(await outcome(e.waitForVar(v, { sticky: true }))).toBe(late);
  });
});
