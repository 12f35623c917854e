/**
 * Scheduler: the threaded engine's run loop over its OpTable. It queues a pushed op's var accesses,
 * puts the op on its lane once its dependencies are met, runs it (inline for async/deleteVar ops
 * from the pusher, otherwise from the drain loop or a synchronous wait's loop), applies the failure
 * rules when it starts and ends, and releases what depended on it. Kept apart from threaded-engine.ts
 * (the API: argument checks, bulking, waits) so each file stays readable.
 *
 * Failure rules (MXNet's, with sticky failures, see exception.ts): at start an op inherits the first
 * undelivered failure on its vars (reads, read-writes, writes), else the first delivered one on a
 * var it reads; it is then skipped unless it is `noSkip`, a wait or a deleteVar op. At the end its
 * writes carry its own failure, else the inherited one, else none (a success clears them).
 */
import { type Context, type Env, MXNetError } from '@mx/base';
import { deliverAll, ExceptionRef } from './exception.js';
import { FnProperty } from './fn-property.js';
import { Lane, laneKey, laneKindOf, laneSlots } from './lanes.js';
import {
  CTX,
  EXC,
  EXTRA,
  FLAGS,
  FN,
  HOME,
  I32,
  INLINE_VARS,
  IS_BULK,
  IS_SYNC,
  IS_WAIT,
  LANE,
  NAME,
  NCONST,
  NRW,
  NVARS,
  type OpExtra,
  OpTable,
  PROP_SHIFT,
  REFS,
  RUNNING,
  SKIPPED,
  VARS,
  WAIT,
} from './op-table.js';
import type { AsyncFn, CompleteCallback, RunContext, SyncFn } from './opr.js';
import type { ProfiledOp, Profiler } from './profiler.js';
import type { Var } from './var.js';

interface Waiter {
  resolve(): void;
  reject(e: unknown): void;
}

const scheduleMacrotask: (fn: () => void) => void =
  typeof (globalThis as { setImmediate?: unknown }).setImmediate === 'function'
    ? (fn) => (globalThis as unknown as { setImmediate(f: () => void): void }).setImmediate(fn)
    : (fn) => setTimeout(fn, 0);

function noop(): void {}

/** An op's name: the explicit one, else its function's. */
export function opName(fn: unknown, explicit: string | null): string {
  return explicit ?? ((fn as { name?: string }).name || 'anonymous');
}

function checkWaitFn(wait: unknown, name: string, ctx: Context): void {
  if (typeof wait !== 'function') {
    throw new MXNetError('setBlockingWait needs a function', { op: name, device: ctx.toString() });
  }
}

/**
 * @internal RunContext of a synchronous run: one per nesting depth (an op may push an op that runs
 * inline), reused, and valid while the function runs.
 */
export class SyncRun implements RunContext {
  ctx: Context = null as unknown as Context;
  fn: unknown = noop;
  explicitName: string | null = null;
  isBulk = false;

  get name(): string {
    return opName(this.fn, this.explicitName);
  }

  setBlockingWait(wait: () => void): void {
    checkWaitFn(wait, this.name, this.ctx); // a sync op completes when it returns: nothing to block on
  }
}

/** @internal RunContext and completion callback of one asynchronous run. */
export class AsyncRun implements RunContext {
  done = false;
  blockingWait: (() => void) | null = null;
  readonly isBulk = false;
  readonly onComplete: CompleteCallback;

  constructor(
    s: Scheduler,
    readonly id: number,
    readonly ctx: Context,
    readonly name: string,
  ) {
    this.onComplete = (error?: unknown) => s.asyncDone(this, error);
  }

  setBlockingWait(wait: () => void): void {
    checkWaitFn(wait, this.name, this.ctx);
    this.blockingWait = wait;
  }
}

export class Scheduler {
  readonly table = new OpTable();
  /** Ops pushed and not completed. */
  pending = 0;
  /** Failures waitForAll has not delivered yet (in the order they happened). */
  readonly globalExceptions = new Set<ExceptionRef>();
  readonly inFlightAsync = new Set<AsyncRun>();
  allWaiters: Waiter[] = [];
  idleWaiters: (() => void)[] = [];
  /** Functions running on the stack (sync ops, async ops before they return). */
  executing = 0;
  stopped = false;
  shutdown = false;
  readonly #lanes: Lane[] = [];
  readonly #laneByKey = new Map<number, Lane>();
  #lastCtx: Context | null = null;
  #lastProp = -1;
  #lastLane: Lane | null = null;
  #runnableHead: Lane | null = null;
  #runnableTail: Lane | null = null;
  #drainScheduled = false;
  #inDrain = false;
  readonly #syncRuns: SyncRun[] = [];
  readonly #onReady = (id: number): void => this.#enqueue(id, false);
  readonly #drainTask = (): void => this.drain(true);

  /** Queued ops beyond which a push drains synchronously (see `submit`). */
  readonly maxPending: number;

  constructor(
    readonly env: Env,
    readonly drainBudgetMs: number,
    readonly profiler: Profiler,
    /** Flushes the engine's pending bulk (at the start of every drain). */
    readonly flushBulk: () => void,
    /** True while the engine has a partial bulk (a drain then schedules another, to flush it). */
    readonly hasBulk: () => boolean,
  ) {
    this.maxPending = env.get('MXNET_ENGINE_MAX_PENDING_OPS');
  }

  /** The reusable RunContext for a synchronous run at the current nesting depth. */
  syncRun(): SyncRun {
    let r = this.#syncRuns[this.executing];
    if (r === undefined) {
      r = new SyncRun();
      this.#syncRuns[this.executing] = r;
    }
    return r;
  }

  /** Queue op `id`'s var accesses (MXNet `Push`); run it now if it is inline and ready. */
  submit(id: number): void {
    ++this.pending;
    const t = this.table;
    const b = id * I32;
    const n = t.i32[b + NVARS] as number;
    const nc = t.i32[b + NCONST] as number;
    t.i32[b + WAIT] = n + 1;
    const refs: unknown[] =
      n <= INLINE_VARS ? t.refs : ((t.refs[id * REFS + EXTRA] as OpExtra).bigVars as Var[]);
    const v0 = n <= INLINE_VARS ? id * REFS + VARS : 0;
    for (let k = 0; k < nc; k++) t.appendRead(refs[v0 + k] as Var, id);
    for (let k = nc; k < n; k++) t.appendWrite(refs[v0 + k] as Var, id);
    const left = (t.i32[b + WAIT] as number) - 1;
    t.i32[b + WAIT] = left;
    if (left === 0) this.#enqueue(id, true);
    // Back-pressure. MXNet's worker threads drain the queue while Python pushes; here the drain
    // waits for the pusher to yield, and a loop that never awaits or reads (a synchronous training
    // loop) would queue ops — and hold their outputs' memory — without bound. Past
    // `maxPending` ops the pusher runs what is ready itself, as a synchronous wait would.
    if (this.pending > this.maxPending && this.executing === 0 && !this.#inDrain && !this.stopped) {
      this.drain(false);
    }
  }

  /** Op `id`'s dependencies are met: run it inline (async/deleteVar from the pusher) or queue it. */
  #enqueue(id: number, fromPush: boolean): void {
    const i32 = this.table.i32;
    const b = id * I32;
    if (fromPush && !this.stopped) {
      const prop = ((i32[b + FLAGS] as number) >> PROP_SHIFT) & 15;
      // A delete pushed while an op runs (a finalizer fired by a forced GC inside a kernel) waits
      // for it: that op may have been run by the fast path, which registers no access on its inputs.
      if (prop === FnProperty.async || (prop === FnProperty.deleteVar && this.executing === 0)) {
        this.#execute(id, null);
        return;
      }
    }
    // The lane was chosen at push (HOME), so this touches only the op's Int32 fields.
    const tid = i32[b + HOME] as number;
    i32[b + LANE] = tid;
    const lane = this.#lanes[tid - 1] as Lane;
    lane.push(id);
    if (!lane.scheduled && lane.inFlight < lane.slots) this.#addRunnable(lane);
  }

  /** The lane ops of `ctx` with property `prop` are queued on (made on first use). */
  laneFor(ctx: Context, prop: number): Lane {
    if (ctx === this.#lastCtx && prop === this.#lastProp) return this.#lastLane as Lane;
    const kind = laneKindOf(prop);
    const key = laneKey(ctx, kind);
    let lane = this.#laneByKey.get(key);
    if (lane === undefined) {
      const tid = this.#lanes.length + 1;
      lane = new Lane(ctx, kind, laneSlots(this.env, ctx, kind), tid, this.table);
      this.#lanes.push(lane);
      this.#laneByKey.set(key, lane);
    }
    this.#lastCtx = ctx;
    this.#lastProp = prop;
    this.#lastLane = lane;
    return lane;
  }

  #addRunnable(lane: Lane): void {
    lane.scheduled = true;
    lane.nextRunnable = null;
    if (this.#runnableTail === null) this.#runnableHead = lane;
    else this.#runnableTail.nextRunnable = lane;
    this.#runnableTail = lane;
    this.scheduleDrain();
  }

  /** Start a drain in a microtask (unless one is scheduled or running). */
  scheduleDrain(): void {
    if (this.#drainScheduled || this.#inDrain) return;
    this.#drainScheduled = true;
    queueMicrotask(this.#drainTask);
  }

  /** True when a drain would have something to run. */
  get hasRunnable(): boolean {
    return this.#runnableHead !== null;
  }

  /** Run ready ops. With `budget`, yield to the event loop after drainBudgetMs. */
  drain(budget: boolean): void {
    this.#drainScheduled = false;
    if (this.stopped || this.#inDrain) return;
    this.flushBulk();
    this.#inDrain = true;
    const deadline = budget ? performance.now() + this.drainBudgetMs : Number.POSITIVE_INFINITY;
    let sinceCheck = 0;
    try {
      for (let lane = this.#runnableHead; lane !== null; lane = this.#runnableHead) {
        this.#runnableHead = lane.nextRunnable;
        if (this.#runnableHead === null) this.#runnableTail = null;
        lane.nextRunnable = null;
        lane.scheduled = false;
        let k = 0;
        while (lane.canStart && k < 64) {
          this.#execute(lane.pop(), lane);
          ++k;
        }
        if (lane.canStart && !lane.scheduled) this.#addRunnable(lane);
        sinceCheck += k;
        if (sinceCheck >= 32) {
          sinceCheck = 0;
          if (performance.now() > deadline) {
            if (this.#runnableHead !== null) {
              this.#drainScheduled = true;
              scheduleMacrotask(this.#drainTask);
            }
            return;
          }
        }
      }
    } finally {
      this.#inDrain = false;
    }
    if (this.hasBulk()) this.scheduleDrain();
  }

  /** MXNet ExecuteOprBlock: OnStart (failure rules), then run or skip. */
  #execute(id: number, lane: Lane | null): void {
    const t = this.table;
    const i32 = t.i32;
    const refs = t.refs;
    const b = id * I32;
    const r = id * REFS;
    const flags = (i32[b + FLAGS] as number) | RUNNING;
    i32[b + FLAGS] = flags;
    if (lane !== null) ++lane.inFlight;
    const ctx = refs[r + CTX] as Context;
    const fn = refs[r + FN] as SyncFn | AsyncFn;
    if (this.profiler.isProfiling) this.#profileStart(id, fn, ctx);
    // OnStart: the first undelivered failure on any var, else the first failure on a var it reads.
    const n = i32[b + NVARS] as number;
    const numRead = (i32[b + NCONST] as number) + (i32[b + NRW] as number);
    const vars: unknown[] = n <= INLINE_VARS ? refs : ((refs[r + EXTRA] as OpExtra).bigVars as Var[]);
    const v0 = n <= INLINE_VARS ? r + VARS : 0;
    let ex: ExceptionRef | null = null;
    for (let k = 0; k < n; k++) {
      const e = (vars[v0 + k] as Var).exception;
      if (e !== null) {
        if (e.pending) {
          ex = e;
          break;
        }
        if (k < numRead && ex === null) ex = e;
      }
    }
    refs[r + EXC] = ex;
    const prop = (flags >> PROP_SHIFT) & 15;
    if (
      (this.shutdown && prop !== FnProperty.deleteVar) ||
      (ex !== null && prop !== FnProperty.noSkip && prop !== FnProperty.deleteVar && (flags & IS_WAIT) === 0)
    ) {
      i32[b + FLAGS] = flags | SKIPPED;
      this.#complete(id, undefined, false);
      return;
    }
    const explicitName = refs[r + NAME] as string | null;
    if ((flags & IS_SYNC) !== 0) {
      const run = this.syncRun();
      run.ctx = ctx;
      run.fn = fn;
      run.explicitName = explicitName;
      run.isBulk = (flags & IS_BULK) !== 0;
      ++this.executing;
      let failed = false;
      let error: unknown;
      try {
        (fn as SyncFn)(run);
      } catch (e) {
        failed = true;
        error = e;
      }
      --this.executing;
      run.fn = noop;
      this.#complete(id, error, failed);
      return;
    }
    const run = new AsyncRun(this, id, ctx, opName(fn, explicitName));
    let threw = false;
    let thrown: unknown;
    ++this.executing;
    try {
      fn(run, run.onComplete);
    } catch (e) {
      threw = true;
      thrown = e;
    }
    --this.executing;
    if (!run.done) {
      if (threw) {
        run.done = true;
        this.#complete(id, thrown, true);
      } else {
        this.inFlightAsync.add(run);
      }
    } else if (threw) {
      // The function failed after reporting completion: nothing depends on it any more, so the
      // error can only surface through waitForAll.
      this.globalExceptions.add(new ExceptionRef(thrown, run.name));
    }
  }

  #profileStart(id: number, fn: unknown, ctx: Context): void {
    const x = this.table.extra(id);
    const prof: ProfiledOp = {
      name: opName(fn, this.table.refs[id * REFS + NAME] as string | null),
      ctx,
      skipped: false,
      profArgs: x.profArgs,
      profStart: -1,
      profStartSeq: 0,
    };
    x.prof = prof;
    this.profiler.startOp(prof);
  }

  /** An asynchronous op called its onComplete. */
  asyncDone(run: AsyncRun, error: unknown): void {
    if (run.done) {
      throw new MXNetError('onComplete was called more than once for one run of an op', {
        op: 'onComplete',
        hint: 'call onComplete exactly once per run of an asynchronous function',
      });
    }
    run.done = true;
    this.inFlightAsync.delete(run);
    this.#complete(run.id, error, error !== undefined && error !== null);
  }

  /** MXNet OnComplete: failure bookkeeping, release dependents, free the slot, count down. */
  #complete(id: number, error: unknown, failed: boolean): void {
    const t = this.table;
    const i32 = t.i32;
    const refs = t.refs;
    const b = id * I32;
    const r = id * REFS;
    const flags = i32[b + FLAGS] as number;
    let ex = refs[r + EXC] as ExceptionRef | null;
    if (failed) ex = new ExceptionRef(error, opName(refs[r + FN], refs[r + NAME] as string | null));
    const laneTid = i32[b + LANE] as number;
    const lane = laneTid === 0 ? null : (this.#lanes[laneTid - 1] as Lane);
    if (lane !== null) {
      --lane.inFlight;
      if (!lane.scheduled && lane.canStart) this.#addRunnable(lane);
    }
    const skipped = (flags & SKIPPED) !== 0;
    const extra = refs[r + EXTRA] as OpExtra | null;
    const prof = extra?.prof ?? null;
    if (prof !== null) {
      (prof as { skipped: boolean }).skipped = skipped;
      this.profiler.endOp(prof, lane?.kind ?? 'inline', lane?.tid ?? 0, ex !== null);
    }
    // The writes carry the op's failure, or are cleared by its success (not by a shutdown skip).
    const store = ex !== null || !skipped;
    const n = i32[b + NVARS] as number;
    const nc = i32[b + NCONST] as number;
    const vars: unknown[] = n <= INLINE_VARS ? refs : ((extra as OpExtra).bigVars as Var[]);
    const v0 = n <= INLINE_VARS ? r + VARS : 0;
    const ready = this.#onReady;
    for (let k = 0; k < nc; k++) t.completeRead(vars[v0 + k] as Var, ready);
    for (let k = nc; k < n; k++) {
      const v = vars[v0 + k] as Var;
      if (store) v.exception = ex;
      t.completeWrite(v, ready);
    }
    if (ex?.pending === true) this.globalExceptions.add(ex);
    t.free(id, n);
    if (--this.pending === 0) this.#onIdle();
  }

  #onIdle(): void {
    const idle = this.idleWaiters;
    if (idle.length > 0) {
      this.idleWaiters = [];
      for (const f of idle) f();
    }
    const waiters = this.allWaiters;
    if (waiters.length === 0) return;
    this.allWaiters = [];
    const { failed, error } = this.deliverGlobal();
    for (let i = 0; i < waiters.length; i++) {
      if (i === 0 && failed) (waiters[0] as Waiter).reject(error);
      else (waiters[i] as Waiter).resolve();
    }
  }

  /** WaitForAll's delivery: every undelivered failure, as one error (see deliverAll). */
  deliverGlobal(): { failed: boolean; error: unknown } {
    const r = deliverAll(this.globalExceptions);
    this.globalExceptions.clear();
    return r;
  }

  /** Run ops on this thread until `done()`; block only through registered blocking waits. */
  runUntil(done: () => boolean, what: string): void {
    for (;;) {
      this.drain(false);
      if (done()) return;
      let blocking: AsyncRun | null = null;
      let stuck: AsyncRun | null = null;
      for (const run of this.inFlightAsync) {
        if (run.blockingWait !== null) {
          blocking = run;
          break;
        }
        stuck ??= run;
      }
      if (blocking === null) {
        const detail = stuck
          ? `op "${stuck.name}" on ${stuck.ctx} is running asynchronously and cannot complete on the calling thread`
          : 'no op can make progress';
        throw new MXNetError(`cannot wait synchronously: ${detail}`, {
          op: what,
          device: stuck?.ctx.toString(),
          hint: 'use the asynchronous wait (await engine.waitForVar / waitForAll) instead',
        });
      }
      const wait = blocking.blockingWait as () => void;
      blocking.blockingWait = null;
      wait();
      if (!blocking.done) {
        throw new MXNetError(`the blocking wait of op "${blocking.name}" returned before the op completed`, {
          op: what,
          device: blocking.ctx.toString(),
          hint: 'a blocking wait must not return until the op has called onComplete',
        });
      }
    }
  }
}
