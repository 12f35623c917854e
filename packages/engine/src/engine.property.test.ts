/**
 * Property tests: random programs of pushes over random var sets, with random async delays,
 * failures, properties, contexts and slot counts, run on both engine kinds and judged by the
 * reference models in test-util/reference.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { programArb, runProgram } from './test-util/program.js';
import { naiveModel, orderViolations, replayViolations, sequentialModel } from './test-util/reference.js';

const RUNS = Number(process.env.MX_PROPERTY_RUNS ?? 100);

describe('ThreadedEngine on random programs', () => {
  it('matches the sequential reference model (waitForAll-only programs)', async () => {
    await fc.assert(
      fc.asyncProperty(programArb({ waits: 'waitAllOnly' }), async (program) => {
        const obs = await runProgram(program, 'threaded');
        expect(orderViolations(program, obs)).toEqual([]);
        const ref = sequentialModel(program, obs.errors);
        expect(new Set(obs.fnStart.keys())).toEqual(ref.ran);
        for (const [key, candidates] of ref.waitCandidates) {
          const got = key === 'final' ? obs.final.outcome : obs.waits.get(key)?.outcome;
          if (candidates.length === 0) expect(got).toBe('ok');
          else expect(candidates).toContain(got);
        }
        expect(obs.thrownAtPush.size).toBe(0);
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
          expect(got).toBe(want);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
