/**
 * Bulk execution (MXNet `engine.bulk`): consecutive sync pushes grouped into one "ImperativeBulk"
 * op. Includes MXNet's test_engine.py::test_bulk re-expressed at the engine level (reaching 104).
 */
import { cpu, gpu } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { createEngine } from './create-engine.js';
import { FnProperty } from './fn-property.js';

function bulkSizes(records: readonly { name: string; args?: Readonly<Record<string, unknown>> }[]): number[] {
  return records
    .filter((r) => r.name === 'ImperativeBulk')
    .map((r) => (r.args?.ops as string[] | undefined)?.length ?? 0);
}

describe('bulking', () => {
  it('test_bulk: ones*2+1, wait, +1 is 4; 100 more increments give 104', async () => {
    const e = createEngine({ kind: 'threaded' });
    e.profiler.setState('run');
    const x = new Float32Array(10);
    const v = e.newVariable('x');
    const ops = (name: string, f: (a: number) => number) =>
      e.pushSync(
        () => {
          for (let i = 0; i < x.length; i++) x[i] = f(x[i] as number);
        },
        cpu(),
        [],
        [v],
        { name },
      );
    await e.bulk(10, async () => {
      ops('ones', () => 1);
      ops('mul', (a) => a * 2);
      ops('add', (a) => a + 1);
      await e.waitForVar(v);
      expect([...x]).toEqual(new Array(10).fill(3));
      ops('add', (a) => a + 1);
      await e.waitForVar(v);
      expect([...x]).toEqual(new Array(10).fill(4));
      for (let i = 0; i < 100; i++) ops('add', (a) => a + 1);
      await e.waitForVar(v);
    });
    expect([...x]).toEqual(new Array(10).fill(104));
    expect(e.bulkSize()).toBe(0);
    expect(bulkSizes(e.profiler.records())).toEqual([3, 1, ...new Array(10).fill(10)]);
    expect(v.version).toBe(12);
  });

  it('flushes on a context change, on a non-bulkable push, on setBulkSize and at the end of the tick', async () => {
    const e = createEngine({ kind: 'threaded' });
    e.profiler.setState('run');
    const a = e.newVariable();
    const order: string[] = [];
    e.setBulkSize(8);
    e.pushSync(() => order.push('c1'), cpu(), [], [a], { name: 'c1' });
    e.pushSync(() => order.push('c2'), cpu(), [], [a], { name: 'c2' });
    e.pushSync(() => order.push('g1'), gpu(0), [a], [], { name: 'g1' }); // ctx change flushes [c1, c2]
    e.pushSync(() => order.push('p'), gpu(0), [a], [], { name: 'p', prop: FnProperty.cpuPrioritized });
    e.pushSync(() => order.push('c3'), cpu(), [], [a], { name: 'c3' });
    expect(e.setBulkSize(0)).toBe(8); // disabling flushes [c3]
    e.setBulkSize(8);
    e.pushSync(() => order.push('c4'), cpu(), [], [a], { name: 'c4' });
    await new Promise((r) => setTimeout(r, 1)); // end of tick flushes [c4] without a wait
    expect(order).toEqual(['c1', 'c2', 'g1', 'p', 'c3', 'c4']);
    const groups = e.profiler
      .records()
      .map((r) =>
        r.name === 'ImperativeBulk' ? ((r.args?.ops as string[] | undefined) ?? []).join('+') : r.name,
      );
    expect(groups).toEqual(['c1+c2', 'g1', 'p', 'c3', 'c4']);
  });

  it('a partial bulk pushed by an op running in a drain is flushed after that drain, without a wait', async () => {
    const e = createEngine({ kind: 'threaded' });
    e.setBulkSize(8);
    const [a, b] = [e.newVariable('a'), e.newVariable('b')];
    let inner = false;
    e.pushAsync(
      (_r, done) => {
        e.pushSync(
          () => {
            inner = true;
          },
          cpu(),
          [],
          [b],
        );
        done();
      },
      cpu(),
      [],
      [a],
    );
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(inner).toBe(true);
    await e.waitForAll();
  });

  it('a failing function fails the whole bulk: the error lands on every var the bulk writes', async () => {
    const e = createEngine({ kind: 'threaded' });
    const a = e.newVariable('a');
    const b = e.newVariable('b');
    const ran: string[] = [];
    e.setBulkSize(4);
    e.pushSync(() => ran.push('1'), cpu(), [], [a]);
    e.pushSync(
      () => {
        throw new Error('in bulk');
      },
      cpu(),
      [],
      [a],
    );
    e.pushSync(() => ran.push('3'), cpu(), [], [b]);
    await expect(e.waitForVar(b)).rejects.toThrow('in bulk');
    expect(ran).toEqual(['1']);
    await expect(e.waitForVar(a)).resolves.toBeUndefined();
  });

  it('still checks vars at push time', () => {
    const e = createEngine({ kind: 'threaded' });
    const v = e.newVariable('gone');
    e.deleteVariable(null, cpu(), v);
    e.setBulkSize(4);
    expect(() => e.pushSync(() => {}, cpu(), [v], [])).toThrow(/deleted/);
  });

  it('NaiveEngine has bulk size 0 like MXNet and still computes test_bulk', async () => {
    const e = createEngine({ kind: 'naive' });
    expect(e.setBulkSize(10)).toBe(0);
    expect(e.bulkSize()).toBe(0);
    const v = e.newVariable();
    let x = 1;
    e.bulk(10, () => {
      e.pushSync(() => (x *= 2), cpu(), [], [v]);
      e.pushSync(() => (x += 1), cpu(), [], [v]);
      for (let i = 0; i < 101; i++) e.pushSync(() => (x += 1), cpu(), [], [v]);
    });
    await e.waitForAll();
    expect(x).toBe(104);
  });
});
