/**
 * Random engine programs for the property tests, and the runner that executes one on an engine
 * while recording what the op functions observed. Kept apart from the checks (reference.ts) so
 * the reference models never share code with what they judge.
 */
import { type Context, cpu, Env, gpu } from '@mx/base';
import fc from 'fast-check';
import { createEngine } from '../create-engine.js';
import type { Engine, EngineKind } from '../engine.js';
import { FnProperty } from '../fn-property.js';
import type { Var } from '../var.js';

/** How an op's function finishes. */
export type Timing = 'sync' | 'asyncNow' | 'microtask' | 'timer0' | 'timer1' | 'timer2';

export interface OpSpec {
  readonly id: number;
  readonly reads: readonly number[];
  readonly writes: readonly number[];
  readonly ctx: number;
  readonly timing: Timing;
  /** Fails by throwing (sync, or async before completing) or via onComplete(err). */
  readonly fails: false | 'throw' | 'callback';
  readonly prop: 'normal' | 'noSkip' | 'async' | 'cpuPrioritized';
}

export type Step =
  | { readonly type: 'push'; readonly op: OpSpec }
  /** waitForVar; `sticky` also rejects with a failure delivered earlier (the NDArray read rule). */
  | { readonly type: 'waitVar'; readonly v: number; readonly sticky: boolean }
  | { readonly type: 'waitAll' };

export interface Program {
  /** setBulkSize at the start (the naive engine ignores it, as MXNet's). */
  readonly bulkSize: number;
  readonly numVars: number;
  readonly cpuSlots: number;
  readonly gpuSlots: number;
  readonly steps: readonly Step[];
}

export const CONTEXTS: readonly Context[] = [cpu(0), cpu(1), gpu(0)];

export function programArb(options: {
  waits: 'any' | 'waitAllOnly';
  maxSteps?: number;
}): fc.Arbitrary<Program> {
  const { waits, maxSteps = 30 } = options;
  return fc.integer({ min: 1, max: 6 }).chain((numVars) => {
    const varIdx = fc.integer({ min: 0, max: numVars - 1 });
    const opArb = fc.record({
      reads: fc.array(varIdx, { maxLength: 3 }),
      writes: fc.array(varIdx, { maxLength: 2 }),
      ctx: fc.integer({ min: 0, max: CONTEXTS.length - 1 }),
      timing: fc.constantFrom<Timing>('sync', 'asyncNow', 'microtask', 'timer0', 'timer1', 'timer2'),
      fails: fc.oneof(
        { weight: 4, arbitrary: fc.constant(false as const) },
        { weight: 1, arbitrary: fc.constantFrom('throw' as const, 'callback' as const) },
      ),
      prop: fc.oneof(
        { weight: 6, arbitrary: fc.constant('normal' as const) },
        {
          weight: 1,
          arbitrary: fc.constantFrom('noSkip' as const, 'async' as const, 'cpuPrioritized' as const),
        },
      ),
    });
    type RawStep =
      | { readonly type: 'push'; readonly op: Omit<OpSpec, 'id'> }
      | { readonly type: 'waitVar'; readonly v: number; readonly sticky: boolean }
      | { readonly type: 'waitAll' };
    const stepArb: fc.Arbitrary<RawStep> =
      waits === 'any'
        ? fc.oneof(
            { weight: 8, arbitrary: opArb.map((op) => ({ type: 'push' as const, op })) },
            {
              weight: 2,
              arbitrary: fc.record({ v: varIdx, sticky: fc.boolean() }).map((w) => ({
                type: 'waitVar' as const,
                ...w,
              })),
            },
            { weight: 1, arbitrary: fc.constant({ type: 'waitAll' as const }) },
          )
        : fc.oneof(
            { weight: 8, arbitrary: opArb.map((op) => ({ type: 'push' as const, op })) },
            { weight: 1, arbitrary: fc.constant({ type: 'waitAll' as const }) },
          );
    return fc.record({
      bulkSize: fc.constantFrom(0, 0, 2, 3, 5),
      numVars: fc.constant(numVars),
      cpuSlots: fc.integer({ min: 1, max: 3 }),
      gpuSlots: fc.integer({ min: 1, max: 3 }),
      steps: fc.array(stepArb, { minLength: 1, maxLength: maxSteps }).map((steps) => {
        let id = 0;
        return steps.map((s): Step => (s.type === 'push' ? { type: 'push', op: { ...s.op, id: id++ } } : s));
      }),
    });
  });
}

export interface WaitObservation {
  readonly outcome: 'ok' | unknown;
  readonly marker: number;
  readonly after: number;
}

/** What one run observed. */
export interface Observation {
  readonly engine: Engine;
  readonly vars: readonly Var[];
  /** Per op id: order numbers of the function's start and end (undefined when it did not run). */
  readonly fnStart: Map<number, number>;
  readonly fnEnd: Map<number, number>;
  /** Ops whose function was entered more than once. */
  readonly reentered: number[];
  /** Per op id: error thrown by its push (NaiveEngine). */
  readonly thrownAtPush: Map<number, unknown>;
  /** Per wait step index (into steps): the outcome, and profiler sequence numbers taken at the call and after it settled. */
  readonly waits: Map<number, WaitObservation>;
  /** Outcome of the final waitForAll. */
  readonly final: WaitObservation;
  /** `engine.failureOf(v)` of each var after the final wait. */
  readonly failures: readonly unknown[];
  /** The error object op `id` fails with. */
  readonly errors: Map<number, Error>;
}

const OK = 'ok';

function settle(p: Promise<void>): Promise<'ok' | unknown> {
  return p.then(
    () => OK,
    (e: unknown) => e,
  );
}

function later(timing: Timing, fn: () => void): void {
  switch (timing) {
    case 'microtask':
      queueMicrotask(fn);
      return;
    case 'timer0':
      setTimeout(fn, 0);
      return;
    case 'timer1':
      setTimeout(fn, 1);
      return;
    case 'timer2':
      setTimeout(fn, 2);
      return;
    default:
      fn();
  }
}

export async function runProgram(program: Program, kind: EngineKind): Promise<Observation> {
  const env = new Env({
    MXNET_CPU_WORKER_NTHREADS: String(program.cpuSlots),
    MXNET_CPU_PRIORITY_NTHREADS: String(program.cpuSlots),
    MXNET_GPU_WORKER_NTHREADS: String(program.gpuSlots),
  });
  const engine = createEngine({ kind, env });
  engine.profiler.setState('run');
  engine.setBulkSize(program.bulkSize);
  const vars = Array.from({ length: program.numVars }, (_, i) => engine.newVariable(`v${i}`));
  let clock = 0;
  const obs: Observation = {
    engine,
    vars,
    fnStart: new Map(),
    fnEnd: new Map(),
    reentered: [],
    thrownAtPush: new Map(),
    waits: new Map(),
    final: { outcome: OK, marker: 0, after: 0 },
    failures: [],
    errors: new Map(),
  };
  const props = {
    normal: FnProperty.normal,
    noSkip: FnProperty.noSkip,
    async: FnProperty.async,
    cpuPrioritized: FnProperty.cpuPrioritized,
  };
  for (let k = 0; k < program.steps.length; k++) {
    const step = program.steps[k] as Step;
    if (step.type === 'push') {
      const op = step.op;
      const err = new Error(`op${op.id} failed`);
      obs.errors.set(op.id, err);
      const enter = (): void => {
        if (obs.fnStart.has(op.id)) obs.reentered.push(op.id);
        obs.fnStart.set(op.id, ++clock);
      };
      const options = { name: `op${op.id}`, prop: props[op.prop] };
      const ctx = CONTEXTS[op.ctx] as Context;
      const reads = op.reads.map((i) => vars[i] as Var);
      const writes = op.writes.map((i) => vars[i] as Var);
      try {
        if (op.timing === 'sync') {
          engine.pushSync(
            () => {
              enter();
              obs.fnEnd.set(op.id, ++clock);
              if (op.fails) throw err;
            },
            ctx,
            reads,
            writes,
            options,
          );
        } else {
          engine.pushAsync(
            (_r, done) => {
              enter();
              if (op.fails === 'throw') {
                obs.fnEnd.set(op.id, ++clock);
                throw err;
              }
              later(op.timing, () => {
                obs.fnEnd.set(op.id, ++clock);
                done(op.fails ? err : undefined);
              });
            },
            ctx,
            reads,
            writes,
            options,
          );
        }
      } catch (e) {
        obs.thrownAtPush.set(op.id, e);
      }
    } else {
      const marker = engine.profiler.nextSeq();
      const outcome = await settle(
        step.type === 'waitVar'
          ? engine.waitForVar(vars[step.v] as Var, { sticky: step.sticky })
          : engine.waitForAll(),
      );
      obs.waits.set(k, { outcome, marker, after: engine.profiler.nextSeq() });
    }
  }
  const marker = engine.profiler.nextSeq();
  const outcome = await settle(engine.waitForAll());
  const failures = vars.map((v) => engine.failureOf(v));
  return { ...obs, final: { outcome, marker, after: engine.profiler.nextSeq() }, failures };
}

/**
 * Vars of an op as the engine deduplicates them: reads once each and not written; writes once each,
 * those also read first (`numRW` of them: for failures they count as reads).
 */
export function dedupOrder(op: OpSpec): { reads: number[]; writes: number[]; numRW: number } {
  const written: number[] = [];
  for (const w of op.writes) if (!written.includes(w)) written.push(w);
  const reads: number[] = [];
  for (const r of op.reads) if (!written.includes(r) && !reads.includes(r)) reads.push(r);
  const rw = written.filter((w) => op.reads.includes(w));
  const writeOnly = written.filter((w) => !op.reads.includes(w));
  return { reads, writes: [...rw, ...writeOnly], numRW: rw.length };
}
