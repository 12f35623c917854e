/**
 * Failed arrays never expose stale memory (issue 10, item 2), on the real runtime with cpu-wasm.
 *
 * An array whose producing op failed (here `take` with mode 'raise' and an index out of range) —
 * or was skipped because an input had failed — rejects every read with the original error until it
 * is overwritten, while the engine keeps MXNet's rule that a wait rethrows an error once (so
 * `waitall` after a delivered error resolves: test_exc_multiple_waits). The pool block under a
 * failed array previously held a disposed array's values: reads must never return them.
 */
import { isMXNetError, type MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { MXNetAggregateError } from '@mx/engine';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime, type NDArray, type Runtime } from './index.js';

const threaded = createRuntime({ backends: [new CpuWasmBackend()] });
const naive = createRuntime({ backends: [new CpuWasmBackend()], engineKind: 'naive' });
afterAll(async () => {
  await threaded.dispose();
  await naive.dispose();
});

const STALE = 777;

/** What a promise settles with: the values, or the error. */
async function settle<T>(p: Promise<T>): Promise<T | unknown> {
  return p.then(
    (v) => v,
    (e: unknown) => e,
  );
}

/** What a synchronous read returns or throws. */
function settleSync<T>(f: () => T): T | unknown {
  try {
    return f();
  } catch (e) {
    return e;
  }
}

/**
 * A float32 array of `n` values whose `take` fails (index n + 5 out of range, mode 'raise'). Its pool
 * block last held a disposed array full of STALE values, so a read that touched memory would see them.
 */
async function failedTake(rt: Runtime, n: number): Promise<NDArray> {
  const { nd } = rt;
  const stale = nd.full([n], STALE);
  await stale.data();
  stale.dispose();
  const data = nd.array(Array.from({ length: n }, (_, i) => i));
  const idx = nd.array([n + 5, ...Array.from({ length: n - 1 }, () => 0)]);
  try {
    return nd.take(data, idx, { mode: 'raise' });
  } finally {
    data.dispose();
    idx.dispose();
  }
}

function expectTakeError(e: unknown): void {
  expect(isMXNetError(e)).toBe(true);
  expect((e as MXNetError).op).toBe('take');
  expect((e as Error).message).toMatch(/take: Take indices contains indices out of bound: index \d+/);
}

describe('threaded engine: a failed array stays failed', () => {
  const { nd } = threaded;

  it('every read rejects with the original error, never with stale values', async () => {
    await nd.leakCheck(async () => {
      const y = await failedTake(threaded, 4);
      const first = await settle(y.data());
      expectTakeError(first);
      expect(await settle(y.data())).toBe(first);
      expect(await settle(y.array())).toBe(first);
      expect(await settle(y.waitToRead())).toBe(first);
      const view = y.reshape([2, 2]);
      expect(await settle(view.data())).toBe(first); // a view shares the failure
      view.dispose();
      expect(await settle(y.data())).toBe(first);
      expect(await settle(nd.waitall())).toBe(undefined); // delivered once (test_exc_multiple_waits)
      expect(await settle(y.data())).toBe(first);
      y.dispose();
    });
  });

  it('item(), dataSync(), arraySync() and waitToReadSync() reject the same way', async () => {
    await nd.leakCheck(async () => {
      const y = await failedTake(threaded, 1);
      const first = settleSync(() => y.dataSync()); // the sync path delivers it first here
      expectTakeError(first);
      expect(settleSync(() => y.dataSync())).toBe(first);
      expect(settleSync(() => y.arraySync())).toBe(first);
      expect(settleSync(() => y.waitToReadSync())).toBe(first);
      expect(await settle(y.item())).toBe(first);
      expect(await settle(nd.waitall())).toBe(undefined);
      y.dispose();
    });
  });

  it('arrays computed from a failed array, before or after the delivery, fail with its error', async () => {
    await nd.leakCheck(async () => {
      const y = await failedTake(threaded, 4);
      const before = y.add(1);
      const doubled = before.mul(2);
      const chain = doubled.sum();
      const first = await settle(y.data());
      expectTakeError(first);
      const after = y.add(1);
      const afterChain = after.exp();
      for (const z of [before, chain, after, afterChain]) {
        expect(await settle(z.data())).toBe(first);
        expect(settleSync(() => z.arraySync())).toBe(first);
      }
      expect(await settle(nd.waitall())).toBe(undefined);
      for (const z of [y, before, doubled, chain, after, afterChain]) z.dispose();
    });
  });

  it('an array overwritten after the failure (set, copyTo, out=) reads normally', async () => {
    await nd.leakCheck(async () => {
      const y = await failedTake(threaded, 3);
      const err = await settle(y.data());
      expectTakeError(err);
      y.set(0);
      expect(await y.array()).toEqual([0, 0, 0]);
      const z = await failedTake(threaded, 3);
      await settle(z.waitToRead());
      const src = nd.array([1, 2, 3]);
      src.copyTo(z);
      expect(await z.array()).toEqual([1, 2, 3]);
      const w = await failedTake(threaded, 3);
      expectTakeError(await settle(w.data()));
      nd.elemwise_add(src, src, { out: w });
      expect(await w.array()).toEqual([2, 4, 6]);
      expect(await settle(nd.waitall())).toBe(undefined);
      for (const a of [y, z, src, w]) a.dispose();
    });
  });

  it('an overwrite pushed before any read delivered the failure is skipped (MXNet: the error surfaces first)', async () => {
    await nd.leakCheck(async () => {
      const y = await failedTake(threaded, 2);
      y.set(5);
      const err = await settle(y.data());
      expectTakeError(err);
      expect(await settle(y.data())).toBe(err);
      y.set(5);
      expect(await y.array()).toEqual([5, 5]);
      y.dispose();
    });
  });

  it('an in-place (optimizer-style) update of a failed weight keeps it failed', async () => {
    await nd.leakCheck(async () => {
      const w = await failedTake(threaded, 4);
      const g = nd.array([1, 1, 1, 1]);
      const mom = nd.zeros([4]);
      nd.sgd_mom_update(w, g, mom, { lr: 0.1, momentum: 0.9, out: w });
      const err = await settle(w.data());
      expectTakeError(err);
      nd.sgd_mom_update(w, g, mom, { lr: 0.1, momentum: 0.9, out: w }); // after the delivery too
      expect(await settle(w.data())).toBe(err);
      expect(await settle(mom.data())).toBe(err); // the state it updated in place is failed too
      w.addInplace(1); // reads w: stays failed
      expect(await settle(w.data())).toBe(err);
      expect(await g.array()).toEqual([1, 1, 1, 1]);
      for (const a of [w, g, mom]) a.dispose();
    });
  });

  it("accumulating into a failed array (req 'add') keeps it failed", async () => {
    await nd.leakCheck(async () => {
      const y = await failedTake(threaded, 4);
      const err = await settle(y.data());
      expectTakeError(err);
      const one = nd.ones([4]);
      nd.broadcast_add(one, one, { out: y, req: 'add' }); // y += 2 reads y: skipped
      expect(await settle(y.data())).toBe(err);
      one.dispose();
      y.dispose();
    });
  });

  it('overwriting part of a failed array (a view) leaves the rest failed', async () => {
    await nd.leakCheck(async () => {
      const y = await failedTake(threaded, 4);
      const err = await settle(y.data());
      expectTakeError(err);
      const head = y.slice(0, 2);
      head.set(0); // op with out= a view
      head.set([1, 2]); // host write into a view
      const src = nd.array([3, 4]);
      src.copyTo(head); // copy into a view
      expect(await settle(y.data())).toBe(err);
      expect(await settle(head.data())).toBe(err);
      y.set([9, 9, 9, 9]); // the whole array: overwritten, readable again
      expect(await y.array()).toEqual([9, 9, 9, 9]);
      for (const a of [head, src, y]) a.dispose();
    });
  });

  it('waitall reports two independent failures, and each array stays failed', async () => {
    await nd.leakCheck(async () => {
      const a = await failedTake(threaded, 2);
      const b = await failedTake(threaded, 5);
      const agg = await settle(nd.waitall());
      expect(agg).toBeInstanceOf(MXNetAggregateError);
      const { errors } = agg as MXNetAggregateError;
      expect(errors).toHaveLength(2);
      for (const e of errors) expectTakeError(e);
      expect((agg as MXNetAggregateError).op).toBe('waitall');
      expect((agg as MXNetAggregateError).cause).toBe(errors[0]);
      expect((agg as Error).message).toMatch(
        /^waitall: 2 operations failed:\n- take: .*index 7 [\s\S]*\n- take: .*index 10 /,
      );
      expect(await settle(nd.waitall())).toBe(undefined);
      expect(await settle(a.data())).toBe(errors[0]);
      expect(await settle(b.data())).toBe(errors[1]);
      a.dispose();
      b.dispose();
    });
  });

  it('waitall rejects with the error itself when there is one', async () => {
    await nd.leakCheck(async () => {
      const y = await failedTake(threaded, 2);
      const err = await settle(nd.waitall());
      expectTakeError(err);
      expect(await settle(y.data())).toBe(err);
      y.dispose();
    });
  });
});

describe('naive engine: the failure is thrown at the call, and the out= target stays failed', () => {
  const { nd } = naive;

  it('reads of a failed out= target reject until it is overwritten', async () => {
    await nd.leakCheck(async () => {
      const stale = nd.full([3], STALE);
      await stale.data();
      stale.dispose();
      const x = nd.empty([3]);
      const data = nd.array([1, 2, 3]);
      const idx = nd.array([9, 0, 0]);
      let thrown: unknown;
      try {
        nd.take(data, idx, { mode: 'raise', out: x });
      } catch (e) {
        thrown = e;
      }
      expectTakeError(thrown);
      expect(await settle(x.data())).toBe(thrown);
      expect(await settle(x.data())).toBe(thrown);
      expect(settleSync(() => x.dataSync())).toBe(thrown);
      expect(settleSync(() => x.arraySync())).toBe(thrown);
      expect(await settle(x.waitToRead())).toBe(thrown);
      const c = x.add(1); // runs (MXNet's NaiveEngine runs dependents), but is failed too
      expect(await settle(c.data())).toBe(thrown);
      expect(await settle(nd.waitall())).toBe(undefined); // delivered at the call
      x.set(0);
      expect(await x.array()).toEqual([0, 0, 0]);
      const d = x.add(1);
      expect(await d.array()).toEqual([1, 1, 1]);
      for (const a of [x, data, idx, c, d]) a.dispose();
    });
  });
});
