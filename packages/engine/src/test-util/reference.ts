/**
 * Reference models of MXNet's engine rules, written from the rules (mxnet-catalog.md §1), not from
 * the engine's code, to judge observed runs of random programs:
 * - `orderViolations`: ops sharing a var, one of them writing it, ran in push order;
 * - `sequentialModel`: the threaded engine's outcome computed by running the program in push
 *   order, for programs whose only waits are waitForAll (then the outcome does not depend on timing);
 * - `replayViolations`: for any program, replays the engine's recorded event order (profiler
 *   sequence numbers) through the rules and checks every skip decision and every wait's outcome;
 * - `naiveModel`: NaiveEngine's outcome (everything runs, in order; errors at push or next wait).
 */
import type { ProfileRecord } from '../profiler.js';
import {
  dedupOrder,
  type Observation,
  type OpSpec,
  type Program,
  type Step,
  type WaitObservation,
} from './program.js';

interface Box {
  readonly err: Error;
  set: boolean;
}

function opsOf(program: Program): OpSpec[] {
  return program.steps.flatMap((s) => (s.type === 'push' ? [s.op] : []));
}

function conflict(a: OpSpec, b: OpSpec): boolean {
  const da = dedupOrder(a);
  const db = dedupOrder(b);
  const touches = (d: { reads: number[]; writes: number[] }, v: number) =>
    d.reads.includes(v) || d.writes.includes(v);
  return da.writes.some((v) => touches(db, v)) || db.writes.some((v) => touches(da, v));
}

function recordsById(obs: Observation): Map<number, ProfileRecord[]> {
  const out = new Map<number, ProfileRecord[]>();
  for (const r of obs.engine.profiler.records()) {
    const m = /^op(\d+)$/.exec(r.name);
    if (!m) continue;
    const id = Number(m[1]);
    out.set(id, [...(out.get(id) ?? []), r]);
  }
  return out;
}

/** Pairs that broke the ordering rule, by both the functions' own clocks and the engine's records. */
export function orderViolations(program: Program, obs: Observation): string[] {
  const ops = opsOf(program);
  const recs = recordsById(obs);
  const out: string[] = [];
  for (const op of ops) {
    if ((recs.get(op.id)?.length ?? 0) !== 1)
      out.push(`op${op.id} has ${recs.get(op.id)?.length ?? 0} records`);
    const r = recs.get(op.id)?.[0];
    if (r && r.skipped === obs.fnStart.has(op.id))
      out.push(`op${op.id}: record skipped=${r.skipped} disagrees`);
  }
  if (obs.reentered.length > 0) out.push(`functions entered twice: ${obs.reentered.join(',')}`);
  for (let i = 0; i < ops.length; i++) {
    for (let j = i + 1; j < ops.length; j++) {
      const a = ops[i] as OpSpec;
      const b = ops[j] as OpSpec;
      if (!conflict(a, b)) continue;
      const ea = obs.fnEnd.get(a.id);
      const sb = obs.fnStart.get(b.id);
      if (ea !== undefined && sb !== undefined && !(ea < sb))
        out.push(`fn op${a.id} ended after op${b.id} started`);
      const ra = recs.get(a.id)?.[0];
      const rb = recs.get(b.id)?.[0];
      if (ra && rb && !(ra.endSeq < rb.startSeq)) out.push(`engine: op${a.id} ended after op${b.id} started`);
    }
  }
  return out;
}

/** First undelivered box among an op's inputs (reads first, then writes, in dedup order). */
function inherited(op: OpSpec, varBox: (Box | null)[]): Box | null {
  const d = dedupOrder(op);
  for (const v of [...d.reads, ...d.writes]) {
    const b = varBox[v] ?? null;
    if (b?.set) return b;
  }
  return null;
}

export interface SequentialResult {
  /** Ops expected to run (function called). */
  readonly ran: Set<number>;
  /** Per waitAll step index and for the final wait: errors any of which may be delivered; [] = must resolve. */
  readonly waitCandidates: Map<number | 'final', Error[]>;
}

/** Threaded engine, waitForAll-only programs: run in push order, apply the rules. */
export function sequentialModel(program: Program, errors: Map<number, Error>): SequentialResult {
  const varBox: (Box | null)[] = new Array(program.numVars).fill(null);
  let global: Box[] = [];
  const ran = new Set<number>();
  const waitCandidates = new Map<number | 'final', Error[]>();
  const deliver = (key: number | 'final') => {
    const live = global.filter((b) => b.set);
    waitCandidates.set(
      key,
      live.map((b) => b.err),
    );
    for (const b of global) b.set = false;
    global = [];
  };
  program.steps.forEach((step: Step, k) => {
    if (step.type === 'waitAll') {
      deliver(k);
      return;
    }
    if (step.type !== 'push') throw new Error('sequentialModel takes waitForAll-only programs');
    const op = step.op;
    let box = inherited(op, varBox);
    const runs = box === null || op.prop === 'noSkip';
    if (runs) {
      ran.add(op.id);
      if (op.fails) box = { err: errors.get(op.id) as Error, set: true };
    }
    if (box?.set) {
      for (const w of dedupOrder(op).writes) varBox[w] = box;
      if (!global.includes(box)) global.push(box);
    }
  });
  deliver('final');
  return { ran, waitCandidates };
}

/** Replay the recorded schedule through the rules; returns every disagreement. */
export function replayViolations(program: Program, obs: Observation): string[] {
  const out: string[] = [];
  const byId = new Map(opsOf(program).map((op) => [op.id, op]));
  const records = obs.engine.profiler.records();
  type Ev =
    | { seq: number; kind: 'start' | 'end'; rec: ProfileRecord }
    | { seq: number; kind: 'waitVar' | 'waitAll'; step: number | 'final' };
  const events: Ev[] = [];
  for (const rec of records) {
    events.push({ seq: rec.startSeq, kind: 'start', rec }, { seq: rec.endSeq, kind: 'end', rec });
  }
  const markers: { step: number | 'final'; marker: number; after: number; kind: 'waitVar' | 'waitAll' }[] =
    [];
  program.steps.forEach((s, k) => {
    if (s.type === 'push') return;
    const w = obs.waits.get(k) as WaitObservation;
    markers.push({ step: k, marker: w.marker, after: w.after, kind: s.type });
  });
  markers.push({ step: 'final', marker: obs.final.marker, after: obs.final.after, kind: 'waitAll' });
  const waitRecords = records.filter((r) => r.name === 'WaitForVar');
  for (const m of markers) {
    if (m.kind === 'waitAll') {
      // Delivered when the last pending op completes: nothing runs between that and the await returning.
      events.push({ seq: m.after - 0.5, kind: 'waitAll', step: m.step });
      continue;
    }
    const w = waitRecords.filter((r) => r.startSeq > m.marker && r.startSeq < m.after);
    if (w.length > 1) out.push(`wait step ${m.step}: ${w.length} WaitForVar ops`);
    // A ready var is delivered inside the call; otherwise when the WaitForVar op runs.
    events.push({ seq: w[0] ? w[0].startSeq - 0.25 : m.marker, kind: 'waitVar', step: m.step });
  }
  events.sort((a, b) => a.seq - b.seq);

  const varBox: (Box | null)[] = new Array(program.numVars).fill(null);
  let global: Box[] = [];
  const opBox = new Map<number, Box | null>();
  const expectOutcome = (step: number | 'final', box: Box | null) => {
    const got = step === 'final' ? obs.final.outcome : obs.waits.get(step)?.outcome;
    const want = box?.set ? box.err : 'ok';
    if (got !== want) out.push(`wait step ${step}: got ${String(got)}, rules say ${String(want)}`);
  };
  for (const ev of events) {
    if (ev.kind === 'waitVar') {
      const step = program.steps[ev.step as number] as Extract<Step, { type: 'waitVar' }>;
      const box = varBox[step.v] ?? null;
      expectOutcome(ev.step, box);
      if (box) box.set = false;
      continue;
    }
    if (ev.kind === 'waitAll') {
      const first = global.find((b) => b.set) ?? null;
      expectOutcome(ev.step, first);
      for (const b of global) b.set = false;
      global = [];
      continue;
    }
    if (!('rec' in ev)) continue;
    const m = /^op(\d+)$/.exec(ev.rec.name);
    if (!m) continue;
    const op = byId.get(Number(m[1])) as OpSpec;
    if (ev.kind === 'start') {
      const box = inherited(op, varBox);
      const skip = box !== null && op.prop !== 'noSkip';
      if (skip !== ev.rec.skipped) out.push(`op${op.id}: skipped=${ev.rec.skipped}, rules say ${skip}`);
      opBox.set(op.id, box);
    } else {
      let box = opBox.get(op.id) ?? null;
      if (!ev.rec.skipped && op.fails) box = { err: obs.errors.get(op.id) as Error, set: true };
      if (box?.set) {
        for (const w of dedupOrder(op).writes) varBox[w] = box;
        if (!global.includes(box)) global.push(box);
      }
    }
  }
  return out;
}

export interface NaiveResult {
  /** Errors expected to be thrown by each op's push. */
  readonly thrownAtPush: Map<number, Error>;
  /** Expected outcome per wait step and for the final wait. */
  readonly waits: Map<number | 'final', Error | 'ok'>;
}

/** NaiveEngine: every op runs, one at a time, in push order; errors reach the push or the next wait. */
export function naiveModel(program: Program, errors: Map<number, Error>): NaiveResult {
  const thrownAtPush = new Map<number, Error>();
  const waits = new Map<number | 'final', Error | 'ok'>();
  let inFlight = false; // an async op is running past its push: later pushes queue behind it
  let deferred: Error[] = [];
  const completesInCall = (op: OpSpec) =>
    op.timing === 'sync' || op.timing === 'asyncNow' || op.fails === 'throw';
  program.steps.forEach((step, k) => {
    if (step.type === 'push') {
      const op = step.op;
      const err = errors.get(op.id) as Error;
      if (!inFlight && completesInCall(op)) {
        if (op.fails) thrownAtPush.set(op.id, err);
      } else {
        if (op.fails) deferred.push(err);
        if (!completesInCall(op)) inFlight = true;
      }
      return;
    }
    waits.set(k, deferred[0] ?? 'ok');
    deferred = [];
    inFlight = false;
  });
  waits.set('final', deferred[0] ?? 'ok');
  return { thrownAtPush, waits };
}
