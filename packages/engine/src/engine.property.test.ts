/**
 * Property tests: random programs of pushes over random var sets, with random async delays,
 * failures, properties, contexts and slot counts, run on both engine kinds and judged by the
 * reference models in test-util/reference.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Engine } from './engine.js';
import { programArb, runProgram } from './test-util/program.js';
import {
  matchesDelivery,
  naiveModel,
  orderViolations,
  replayViolations,
  sequentialModel,
} from './test-util/reference.js';
import type { ThreadedEngine } from './threaded-engine.js';

const RUNS = Number(process.env.MX_PROPERTY_RUNS ?? 100);

/** After the final wait nothing is pending, so the op table holds no slot and no queue entry. */
function expectEmptyTable(engine: Engine): void {
  const { liveOps, liveEntries } = (engine as ThreadedEngine).tableStats;
  expect([liveOps, liveEntries]).toEqual([0, 0]);
}

describe('ThreadedEngine on random programs', () => {
  it('matches the sequential reference model (waitForAll-only programs)', async () => {
    await fc.assert(
      fc.asyncProperty(programArb({ waits: 'waitAllOnly' }), async (program) => {
        const obs = await runProgram(program, 'threaded');
        expect(orderViolations(program, obs)).toEqual([]);
        const ref = sequentialModel(program, obs.errors);
        expect(new Set(obs.fnStart.keys())).toEqual(ref.ran);
        for (const [key, want] of ref.waitErrors) {
          const got = key === 'final' ? obs.final.outcome : obs.waits.get(key)?.outcome;
          // Completion order of independent failures depends on timing: compare as sets.
          expect(matchesDelivery(got, want, false), `wait ${key}: ${String(got)}`).toBe(true);
        }
        expect(obs.failures).toEqual(ref.failures);
        expect(obs.thrownAtPush.size).toBe(0);
        expectEmptyTable(obs.engine);
      }),
      { numRuns: RUNS },
    );
  });

  it('agrees with the rules replayed over its own recorded schedule (any waits)', async () => {
    await fc.assert(
      fc.asyncProperty(programArb({ waits: 'any' }), async (program) => {
        const obs = await runProgram(program, 'threaded');
        expect(orderViolations(program, obs)).toEqual([]);
        expect(replayViolations(program, obs)).toEqual([]);
        expect(obs.thrownAtPush.size).toBe(0);
        expectEmptyTable(obs.engine);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('NaiveEngine on random programs', () => {
  it('runs everything once, serially, in push order, with errors at push or at the next wait', async () => {
    await fc.assert(
      fc.asyncProperty(programArb({ waits: 'any' }), async (program) => {
        const obs = await runProgram(program, 'naive');
        const ops = program.steps.flatMap((s) => (s.type === 'push' ? [s.op] : []));
        expect(obs.reentered).toEqual([]);
        for (const op of ops) expect(obs.fnStart.has(op.id)).toBe(true);
        for (let i = 1; i < ops.length; i++) {
          const prev = ops[i - 1]?.id as number;
          const cur = ops[i]?.id as number;
          expect(obs.fnEnd.get(prev) as number).toBeLessThan(obs.fnStart.get(cur) as number);
        }
        const ref = naiveModel(program, obs.errors);
        expect(obs.thrownAtPush).toEqual(ref.thrownAtPush);
        for (const [key, want] of ref.waits) {
          const got = key === 'final' ? obs.final.outcome : obs.waits.get(key)?.outcome;
          expect(matchesDelivery(got, want, true), `wait ${key}: ${String(got)}`).toBe(true);
        }
        expect(obs.failures).toEqual(ref.failures);
      }),
      { numRuns: RUNS },
    );
  });
});
