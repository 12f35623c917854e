/**
 * The threaded engine's OpTable under load: it grows past its initial size (slots and var queue
 * entries, with ops holding more vars than fit inline) while keeping MXNet's ordering, holds
 * nothing once idle, and gives memory back after a burst. Checked against a sequential reference:
 * run in push order, every read sees the last write pushed before it.
 */
import { cpu, Env } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { createEngine } from './create-engine.js';
import { FnProperty } from './fn-property.js';
import type { ThreadedEngine } from './threaded-engine.js';

const N = 5000;
const VARS = 16;

/** Op i reads 1-4 vars and writes 1-2 (up to 6 vars: more than fit inline). */
function accesses(i: number): { reads: number[]; writes: number[] } {
  const reads = Array.from({ length: 1 + (i % 4) }, (_, k) => (i * 7 + k * 5) % VARS);
  const writes = Array.from({ length: 1 + (i % 2) }, (_, k) => (i * 13 + k * 3 + 1) % VARS);
  return { reads, writes };
}

describe('threaded engine: op table', () => {
  it('grows under a burst of pending ops and keeps every read after the write before it', async () => {
    const env = new Env({ MXNET_ENGINE_MAX_PENDING_OPS: String(1 << 20) }); // no back-pressure here
    const e = createEngine({ kind: 'threaded', env }) as ThreadedEngine;
    const vars = Array.from({ length: VARS }, (_, k) => e.newVariable(`v${k}`));
    const value = new Array<number>(VARS).fill(-1); // last op that wrote each var, as run
    const expected = new Array<number>(VARS).fill(-1); // ... in push order
    const seen: string[] = [];
    const want: string[] = [];
    for (let i = 0; i < N; i++) {
      const { reads, writes } = accesses(i);
      want.push(`${i}:${reads.map((r) => expected[r]).join(',')}`);
      for (const w of writes) expected[w] = i;
      const body = (): void => {
        seen[i] = `${i}:${reads.map((r) => value[r]).join(',')}`;
        for (const w of writes) value[w] = i;
      };
      const rv = reads.map((r) => vars[r] as (typeof vars)[number]);
      const wv = writes.map((w) => vars[w] as (typeof vars)[number]);
      if (i % 5 === 0) {
        e.pushAsync(
          (_r, done) =>
            setTimeout(() => {
              body();
              done();
            }, 0),
          cpu(),
          rv,
          wv,
        );
      } else {
        e.pushSync(
          body,
          cpu(),
          rv,
          wv,
          i % 7 === 0 ? { prop: FnProperty.cpuPrioritized, priority: i % 3 } : {},
        );
      }
    }
    expect(e.pendingOps).toBe(N);
    expect(e.tableStats.capacity).toBeGreaterThan(N);
    await e.waitForAll();
    expect(seen).toEqual(want);
    expect(e.tableStats).toMatchObject({ liveOps: 0, liveEntries: 0 });
  });

  it('gives memory back once a burst is over and the load stays small', async () => {
    // A burst of N queued ops: back-pressure (which would drain at 1,024) is raised above N.
    const env = new Env({ MXNET_ENGINE_MAX_PENDING_OPS: String(2 * N) });
    const e = createEngine({ kind: 'threaded', env }) as ThreadedEngine;
    const v = e.newVariable();
    const initial = e.tableStats.capacity;
    for (let i = 0; i < N; i++) e.pushSync(() => {}, cpu(), [], [v]);
    const peak = e.tableStats.capacity;
    expect(peak).toBeGreaterThan(N);
    await e.waitForAll();
    for (let round = 0; round < 3; round++) {
      e.pushSync(() => {}, cpu(), [v], []);
      await e.waitForAll();
    }
    expect(e.tableStats.capacity).toBeLessThan(peak);
    expect(e.tableStats.capacity).toBeGreaterThanOrEqual(initial);
    let ran = 0;
    for (let i = 0; i < 10; i++) e.pushSync(() => ran++, cpu(), [], [v]);
    await e.waitForAll();
    expect(ran).toBe(10);
  });
});
