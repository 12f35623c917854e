/**
 * Reference models of MXNet's engine rules, written from the rules (mxnet-catalog.md §1), not from
 * the engine's code, to judge observed runs of random programs. They reason about *units*: a single
 * op, or a bulk of consecutive sync ops that the engine runs as one ImperativeBulk op (a bulk reads
 * and writes the union of its members' vars, runs its members in order until one throws, and fails
 * as a whole).
 *
 * The failure rules (docs/architecture.md "Errors"), as the models apply them: a failure is a box
 * with `set` (not yet delivered). A unit inherits the first set box on its vars (reads, read-writes,
 * writes in dedup order), else the first box, set or not, on a var it reads (a read-write counts as
 * read); it is skipped when it inherits one (unless noSkip). At its end its writes get its own
 * failure, else the inherited box, else nothing (a success clears them). A plain wait delivers a set
 * box once; a sticky wait also rejects with a delivered one; waitForAll delivers every set box: none
 * resolves, one rejects with its error, several reject with an MXNetAggregateError listing them.
 * - `modelUnits`: how the bulking rules group a program's pushes; compared with the recorded groups;
 * - `orderViolations`: units sharing a var, one of them writing it, ran in push order;
 * - `sequentialModel`: the threaded engine's outcome computed by running the program in push order,
 *   for programs whose only waits are waitForAll (then the outcome does not depend on timing);
 * - `replayViolations`: for any program, replays the engine's recorded event order (profiler
 *   sequence numbers) through the rules and checks every skip, every member run and every wait;
 * - `naiveModel`: NaiveEngine's outcome (everything runs, in order; errors at push or next wait).
 */
import { MXNetAggregateError } from '../exception.js';
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

/** One op, or a bulk of ops run as one. */
export interface Unit {
  readonly ops: readonly OpSpec[];
}

function opsOf(program: Program): OpSpec[] {
  return program.steps.flatMap((s) => (s.type === 'push' ? [s.op] : []));
}

/** A unit's vars as the engine deduplicates the concatenated member lists. */
function unitVars(u: Unit): { reads: number[]; writes: number[]; numRW: number } {
  return dedupOrder({
    id: -1,
    reads: u.ops.flatMap((o) => o.reads),
    writes: u.ops.flatMap((o) => o.writes),
    ctx: 0,
    timing: 'sync',
    fails: false,
    prop: 'normal',
  });
}

/** Bulking rules: consecutive pushSync ops (normal property) on one context, up to bulkSize. */
export function modelUnits(program: Program): Unit[] {
  const units: Unit[] = [];
  let group: OpSpec[] = [];
  const flush = () => {
    if (group.length > 0) units.push({ ops: group });
    group = [];
  };
  for (const step of program.steps) {
    if (step.type !== 'push') {
      flush();
      continue;
    }
    const op = step.op;
    const bulkable = program.bulkSize > 0 && op.timing === 'sync' && op.prop === 'normal';
    if (!bulkable) {
      flush();
      units.push({ ops: [op] });
      continue;
    }
    if (group.length > 0 && (group[0] as OpSpec).ctx !== op.ctx) flush();
    group.push(op);
    if (group.length >= program.bulkSize) flush();
  }
  flush();
  return units;
}

const opId = (name: string): number | null => {
  const m = /^op(\d+)$/.exec(name);
  return m ? Number(m[1]) : null;
};

/** Units as the engine recorded them, with their records (ImperativeBulk args list the members). */
export function recordedUnits(program: Program, obs: Observation): { unit: Unit; rec: ProfileRecord }[] {
  const byId = new Map(opsOf(program).map((op) => [op.id, op]));
  const out: { unit: Unit; rec: ProfileRecord }[] = [];
  for (const rec of obs.engine.profiler.records()) {
    const names =
      rec.name === 'ImperativeBulk' ? ((rec.args?.ops as string[] | undefined) ?? []) : [rec.name];
    const ops = names.map(opId).flatMap((id) => (id === null ? [] : [byId.get(id) as OpSpec]));
    if (ops.length > 0) out.push({ unit: { ops }, rec });
  }
  return out.sort((a, b) => (a.unit.ops[0] as OpSpec).id - (b.unit.ops[0] as OpSpec).id);
}

const key = (u: Unit) => u.ops.map((o) => o.id).join('+');

/** Ops of a unit that run when it is not skipped: members in order up to the first that fails. */
function membersThatRun(u: Unit): OpSpec[] {
  const i = u.ops.findIndex((o) => o.fails);
  return i < 0 ? [...u.ops] : u.ops.slice(0, i + 1);
}

/** Grouping, per-op records and ordering: everything that can be checked without the error rules. */
export function orderViolations(program: Program, obs: Observation): string[] {
  const out: string[] = [];
  const recorded = recordedUnits(program, obs);
  const expected = modelUnits(program).map(key);
  const got = recorded.map((r) => key(r.unit));
  if (expected.join(' ') !== got.join(' '))
    out.push(`groups: engine ${got.join(' ')}, rules ${expected.join(' ')}`);
  if (obs.reentered.length > 0) out.push(`functions entered twice: ${obs.reentered.join(',')}`);
  for (const { unit, rec } of recorded) {
    const ran = unit.ops.filter((o) => obs.fnStart.has(o.id)).map((o) => o.id);
    const want = rec.skipped ? [] : membersThatRun(unit).map((o) => o.id);
    if (ran.join() !== want.join()) out.push(`unit ${key(unit)}: ran [${ran}], record says [${want}]`);
  }
  for (let i = 0; i < recorded.length; i++) {
    for (let j = i + 1; j < recorded.length; j++) {
      const a = recorded[i] as { unit: Unit; rec: ProfileRecord };
      const b = recorded[j] as { unit: Unit; rec: ProfileRecord };
      const va = unitVars(a.unit);
      const vb = unitVars(b.unit);
      const touches = (d: typeof va, v: number) => d.reads.includes(v) || d.writes.includes(v);
      if (!va.writes.some((v) => touches(vb, v)) && !vb.writes.some((v) => touches(va, v))) continue;
      if (!(a.rec.endSeq < b.rec.startSeq))
        out.push(`engine: ${key(a.unit)} ended after ${key(b.unit)} started`);
      const ends = a.unit.ops.flatMap((o) => obs.fnEnd.get(o.id) ?? []);
      const starts = b.unit.ops.flatMap((o) => obs.fnStart.get(o.id) ?? []);
      if (ends.length && starts.length && !(Math.max(...ends) < Math.min(...starts))) {
        out.push(`functions: ${key(a.unit)} ended after ${key(b.unit)} started`);
      }
    }
  }
  return out;
}

/** The box a unit inherits: first set box on any of its vars, else first box on a var it reads. */
function inherited(u: Unit, varBox: (Box | null)[]): Box | null {
  const d = unitVars(u);
  const all = [...d.reads, ...d.writes];
  const numRead = d.reads.length + d.numRW;
  let sticky: Box | null = null;
  for (let i = 0; i < all.length; i++) {
    const b = varBox[all[i] as number] ?? null;
    if (b === null) continue;
    if (b.set) return b;
    if (i < numRead) sticky ??= b;
  }
  return sticky;
}

/** The errors a waitForAll delivers now: every set box in `global`, in the order they were added. */
function pendingErrors(global: readonly Box[]): Error[] {
  return global.filter((b) => b.set).map((b) => b.err);
}

/**
 * Whether a wait's outcome is what delivering `want` gives: 'ok' for none, the error for one, an
 * MXNetAggregateError (op waitall, errors, cause = first) for several — in this order when `ordered`.
 */
export function matchesDelivery(got: unknown, want: readonly Error[], ordered: boolean): boolean {
  if (want.length === 0) return got === 'ok';
  if (want.length === 1) return got === want[0];
  if (!(got instanceof MXNetAggregateError) || got.op !== 'waitall') return false;
  const errs = got.errors;
  if (errs.length !== want.length || got.cause !== errs[0]) return false;
  if (ordered) return errs.every((e, i) => e === want[i]);
  return want.every((e) => errs.includes(e));
}

const noSkip = (u: Unit) => u.ops.length === 1 && u.ops[0]?.prop === 'noSkip';

/** The unit's own failure, if it ran: the first failing member's error. */
function ownFailure(u: Unit, errors: Map<number, Error>): Box | null {
  const failing = u.ops.find((o) => o.fails);
  return failing ? { err: errors.get(failing.id) as Error, set: true } : null;
}

export interface SequentialResult {
  /** Ops expected to run (function called). */
  readonly ran: Set<number>;
  /** Per waitAll step index and for the final wait: the errors it delivers (in some order); [] = must resolve. */
  readonly waitErrors: Map<number | 'final', Error[]>;
  /** Per var after the final wait: the error `failureOf` reports, or undefined. */
  readonly failures: (Error | undefined)[];
}

/** Threaded engine, waitForAll-only programs: run the units in push order, apply the rules. */
export function sequentialModel(program: Program, errors: Map<number, Error>): SequentialResult {
  const varBox: (Box | null)[] = new Array(program.numVars).fill(null);
  let global: Box[] = [];
  const ran = new Set<number>();
  const waitErrors = new Map<number | 'final', Error[]>();
  const units = modelUnits(program);
  const unitOfFirstOp = new Map(units.map((u) => [(u.ops[0] as OpSpec).id, u]));
  const deliver = (k: number | 'final') => {
    waitErrors.set(k, pendingErrors(global));
    for (const b of global) b.set = false;
    global = [];
  };
  program.steps.forEach((step: Step, k) => {
    if (step.type === 'waitAll') {
      deliver(k);
      return;
    }
    if (step.type !== 'push') throw new Error('sequentialModel takes waitForAll-only programs');
    const u = unitOfFirstOp.get(step.op.id);
    if (u === undefined) return; // a later member of a bulk: handled with its first op
    let box = inherited(u, varBox);
    if (box === null || noSkip(u)) {
      for (const o of membersThatRun(u)) ran.add(o.id);
      box = ownFailure(u, errors) ?? box;
    }
    for (const w of unitVars(u).writes) varBox[w] = box;
    if (box?.set && !global.includes(box)) global.push(box);
  });
  deliver('final');
  return { ran, waitErrors, failures: varBox.map((b) => b?.err) };
}

/** Replay the recorded schedule through the rules; returns every disagreement. */
export function replayViolations(program: Program, obs: Observation): string[] {
  const out: string[] = [];
  const records = obs.engine.profiler.records();
  type Ev =
    | { seq: number; kind: 'start' | 'end'; unit: Unit; rec: ProfileRecord }
    | { seq: number; kind: 'waitVar' | 'waitAll'; step: number | 'final' };
  const events: Ev[] = [];
  for (const { unit, rec } of recordedUnits(program, obs)) {
    events.push({ seq: rec.startSeq, kind: 'start', unit, rec }, { seq: rec.endSeq, kind: 'end', unit, rec });
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
  const unitBox = new Map<Unit, Box | null>();
  const expectOutcome = (step: number | 'final', want: Error[]) => {
    const got = step === 'final' ? obs.final.outcome : obs.waits.get(step)?.outcome;
    if (!matchesDelivery(got, want, true))
      out.push(`wait step ${step}: got ${String(got)}, rules say ${want.map(String).join(' + ') || 'ok'}`);
  };
  for (const ev of events) {
    if (ev.kind === 'waitVar') {
      const step = program.steps[ev.step as number] as Extract<Step, { type: 'waitVar' }>;
      const box = varBox[step.v] ?? null;
      expectOutcome(ev.step, box !== null && (box.set || step.sticky) ? [box.err] : []);
      if (box) box.set = false;
    } else if (ev.kind === 'waitAll') {
      expectOutcome(ev.step, pendingErrors(global));
      for (const b of global) b.set = false;
      global = [];
    } else if (!('unit' in ev)) {
      throw new Error('unreachable');
    } else if (ev.kind === 'start') {
      const box = inherited(ev.unit, varBox);
      const skip = box !== null && !noSkip(ev.unit);
      if (skip !== ev.rec.skipped) out.push(`${key(ev.unit)}: skipped=${ev.rec.skipped}, rules say ${skip}`);
      unitBox.set(ev.unit, box);
    } else {
      let box = unitBox.get(ev.unit) ?? null;
      if (!ev.rec.skipped) box = ownFailure(ev.unit, obs.errors) ?? box;
      for (const w of unitVars(ev.unit).writes) varBox[w] = box;
      if (box?.set && !global.includes(box)) global.push(box);
      if (ev.rec.failed !== (box !== null))
        out.push(`${key(ev.unit)}: record failed=${ev.rec.failed}, rules say ${box !== null}`);
    }
  }
  obs.failures.forEach((f, v) => {
    const want = varBox[v]?.err;
    if (f !== want) out.push(`failureOf(v${v}): got ${String(f)}, rules say ${String(want)}`);
  });
  return out;
}

export interface NaiveResult {
  /** Errors expected to be thrown by each op's push. */
  readonly thrownAtPush: Map<number, Error>;
  /** Errors each wait step (and the final wait) delivers, in order; [] = must resolve. */
  readonly waits: Map<number | 'final', Error[]>;
  /** Per var after the final wait: the error `failureOf` reports, or undefined. */
  readonly failures: (Error | undefined)[];
}

/**
 * NaiveEngine: every op runs, one at a time, in push order; errors reach the push or the next wait.
 * Failures are sticky on vars as in the threaded engine, but nothing is skipped: an op's writes get
 * its own failure, else the first failure on a var it reads, else none.
 */
export function naiveModel(program: Program, errors: Map<number, Error>): NaiveResult {
  const thrownAtPush = new Map<number, Error>();
  const waits = new Map<number | 'final', Error[]>();
  const varFail: (Error | undefined)[] = new Array(program.numVars).fill(undefined);
  let inFlight = false; // an async op is running past its push: later pushes queue behind it
  let deferred: Error[] = [];
  const completesInCall = (op: OpSpec) =>
    op.timing === 'sync' || op.timing === 'asyncNow' || op.fails === 'throw';
  program.steps.forEach((step, k) => {
    if (step.type === 'push') {
      const op = step.op;
      const err = errors.get(op.id) as Error;
      const d = dedupOrder(op);
      const readsFailed = [...d.reads, ...d.writes.slice(0, d.numRW)].map((v) => varFail[v]).find((e) => e);
      const result = op.fails ? err : readsFailed;
      for (const w of d.writes) varFail[w] = result;
      if (!inFlight && completesInCall(op)) {
        if (op.fails) thrownAtPush.set(op.id, err);
      } else {
        if (op.fails) deferred.push(err);
        if (!completesInCall(op)) inFlight = true;
      }
      return;
    }
    const sticky = step.type === 'waitVar' && step.sticky ? varFail[step.v] : undefined;
    waits.set(k, deferred.length > 0 ? deferred : sticky ? [sticky] : []);
    deferred = [];
    inFlight = false;
  });
  waits.set('final', deferred);
  return { thrownAtPush, waits, failures: varFail };
}
