/**
 * Operators as the engine sees them: `Operator` (a reusable op from `newOperator`, MXNet
 * `ThreadedOpr`) and `OprBlock` (one push of an op, MXNet `OprBlock`, as the NaiveEngine keeps it;
 * the threaded engine keeps pending ops in its OpTable instead), plus the function types, the
 * `RunContext` an op's function receives, and the checks and var deduplication every push goes
 * through.
 *
 * An OprBlock carries everything a push needs (function, vars, property) and doubles as the op's
 * RunContext. Vars are deduplicated at push: a var listed twice counts once, and a var
 * that is both read and written is queued as a write (MXNet `DeduplicateVarHandle`). Such read-write
 * vars come first among the writes and are counted (`numRW`), because for failures they count as
 * reads: an op inherits a delivered (sticky) failure from what it reads, not from what it only
 * overwrites. Otherwise the caller's order is kept (it decides which input's error is inherited).
 */
import { type Context, MXNetError } from '@mx/base';
import type { ExceptionRef } from './exception.js';
import { FnProperty } from './fn-property.js';
import { Var } from './var.js';

/** What an op's function gets: where it runs, and a hook for synchronous waits. */
export interface RunContext {
  /** The context the op was pushed to. */
  readonly ctx: Context;
  /** The op's name (for messages and profiles). */
  readonly name: string;
  /** True when the function runs as part of a bulk of sync ops. */
  readonly isBulk: boolean;
  /**
   * For asynchronous functions: register a function that blocks the calling thread until this op
   * has called its `onComplete` (for example with `Atomics.wait` on a flag a worker sets). The
   * engine calls it only when a synchronous wait (`waitForVarSync`) needs this op; without it,
   * such a wait fails with an MXNetError that tells the caller to await instead.
   */
  setBlockingWait(wait: () => void): void;
}

/** A synchronous op function: finished when it returns; a throw marks the op failed. */
export type SyncFn = (runCtx: RunContext) => void;

/** Completion callback of an asynchronous op: call once; pass an error to mark the op failed. */
export type CompleteCallback = (error?: unknown) => void;

/** An asynchronous op function: finished when it calls `onComplete`. */
export type AsyncFn = (runCtx: RunContext, onComplete: CompleteCallback) => void;

/** Options of a push. */
export interface PushOptions {
  /** Scheduling property (default `FnProperty.normal`). */
  readonly prop?: FnProperty;
  /** Larger runs first within priority-ordered lanes (copy and prioritized). Default 0. */
  readonly priority?: number;
  /** Name for profiles and error messages. */
  readonly name?: string;
}

/** Lifecycle of a pushed op: queued (waiting or ready), running, done. */
export const QUEUED = 0;
export const RUNNING = 1;
export const DONE = 2;

/** A reusable operator from `newOperator` (MXNet `OprHandle`). Opaque to users. */
export class Operator {
  /** @internal */
  deleted = false;
  /** @internal */
  constructor(
    readonly owner: object,
    readonly fn: AsyncFn,
    readonly constVars: readonly Var[],
    /** Deduplicated writes, the `numRW` read-write vars first. */
    readonly mutateVars: readonly Var[],
    readonly numRW: number,
    readonly prop: FnProperty,
    readonly name: string,
  ) {}
}

/** @internal One pushed op of the NaiveEngine: payload, state, and its RunContext. */
export class OprBlock implements RunContext {
  state = QUEUED;
  fn: SyncFn | AsyncFn = noop;
  isSync = true;
  /**
   * The op's vars, deduplicated: reads in `[0, numConst)`, writes in `[numConst, numVars)`, of which
   * the first `numRW` are also read.
   */
  readonly vars: Var[] = [];
  numConst = 0;
  numRW = 0;
  numVars = 0;
  prop: FnProperty = FnProperty.normal;
  priority = 0;
  /** Explicit name, or null to use the function's name. */
  explicitName: string | null = null;
  ctx: Context = null as unknown as Context;
  /** MXNet's `wait` flag: internal wait ops are never skipped. */
  isWait = false;
  isBulk = false;
  seq = 0;
  exception: ExceptionRef | null = null;
  blockingWait: (() => void) | null = null;
  /** Profiler start time (ms) and start sequence number; -1 when not profiled. */
  profStart = -1;
  profStartSeq = 0;
  skipped = false;
  /** Extra profile arguments (bulk members). */
  profArgs: Readonly<Record<string, unknown>> | null = null;

  /** Fill a fresh or recycled block. Var arrays are filled by the caller. */
  init(
    fn: SyncFn | AsyncFn,
    isSync: boolean,
    prop: FnProperty,
    priority: number,
    name: string | null,
    ctx: Context,
    isWait: boolean,
    isBulk: boolean,
    seq: number,
  ): this {
    this.fn = fn;
    this.isSync = isSync;
    this.prop = prop;
    this.priority = priority;
    this.explicitName = name;
    this.ctx = ctx;
    this.isWait = isWait;
    this.isBulk = isBulk;
    this.seq = seq;
    return this;
  }

  /** Set vars that are already checked and deduplicated (a reusable operator's, a wait's). */
  setVars(reads: readonly Var[], writes: readonly Var[], numRW: number): void {
    const out = this.vars;
    let n = 0;
    for (const v of reads) out[n++] = v;
    this.numConst = n;
    this.numRW = numRW;
    for (const v of writes) out[n++] = v;
    this.numVars = n;
  }

  get name(): string {
    return this.explicitName ?? (this.fn.name || 'anonymous');
  }

  setBlockingWait(wait: () => void): void {
    if (typeof wait !== 'function') {
      throw new MXNetError('setBlockingWait needs a function', {
        op: this.name,
        device: this.ctx.toString(),
      });
    }
    this.blockingWait = wait;
  }
}

function noop(): void {}

let stamp = 0;

function describeVar(v: unknown): string {
  return v instanceof Var ? v.toString() : `a ${v === null ? 'null' : typeof v} value`;
}

/**
 * Validate and deduplicate the var lists of a push into `block.vars` from index `at` on: reads, then
 * the writes that are also read (`numRW`), then the other writes, each group in the caller's order.
 * Throws MXNetError for a var that is not one of `owner`'s, or that was deleted; `op` names the call.
 */
export function dedupVars(
  owner: object,
  constVars: readonly Var[],
  mutateVars: readonly Var[],
  op: string | (() => string),
  device: Context | undefined,
  block: { vars: unknown[]; numConst: number; numRW: number; numVars: number },
  at = 0,
): void {
  const written = ++stamp;
  const readWritten = ++stamp;
  const emitted = ++stamp;
  for (let i = 0; i < mutateVars.length; i++) {
    const v = mutateVars[i] as Var;
    checkVar(owner, v, op, device);
    v.mark = written;
  }
  const out = block.vars;
  let n = 0;
  for (let i = 0; i < constVars.length; i++) {
    const v = constVars[i] as Var;
    checkVar(owner, v, op, device);
    const m = v.mark;
    if (m === written) v.mark = readWritten;
    else if (m !== readWritten && m !== emitted) {
      v.mark = emitted;
      out[at + n++] = v;
    }
  }
  const nc = n;
  block.numConst = nc;
  if (constVars.length > 0) {
    for (let i = 0; i < mutateVars.length; i++) {
      const v = mutateVars[i] as Var;
      if (v.mark === readWritten) {
        v.mark = emitted;
        out[at + n++] = v;
      }
    }
  }
  block.numRW = n - nc;
  for (let i = 0; i < mutateVars.length; i++) {
    const v = mutateVars[i] as Var;
    if (v.mark === written) {
      v.mark = emitted;
      out[at + n++] = v;
    }
  }
  block.numVars = n;
}

/** Throws MXNetError unless `v` is a live var of `owner`. `op` may be lazy (hot path). */
export function checkVar(owner: object, v: Var, op: string | (() => string), device?: Context): void {
  if (v === null || typeof v !== 'object' || v.owner !== owner || v.deleteRequested)
    varError(owner, v, op, device);
}

function varError(owner: object, v: Var, opName: string | (() => string), device?: Context): never {
  const op = typeof opName === 'function' ? opName() : opName;
  if (v === null || typeof v !== 'object' || v.owner !== owner) {
    throw new MXNetError(
      v instanceof Var
        ? `${v} belongs to another engine`
        : `expected an engine variable, got ${describeVar(v)}`,
      { op, device: device?.toString(), hint: 'pass variables created by this engine with newVariable()' },
    );
  }
  throw new MXNetError(`${v} was deleted with deleteVariable and cannot be used any more`, {
    op,
    device: device?.toString(),
    hint: 'create a new variable with newVariable() instead of reusing a deleted one',
  });
}

/** Throws MXNetError unless `prop`/`priority` are valid. */
export function checkPushOptions(prop: unknown, priority: unknown, opName: string | (() => string)): void {
  const op = (): string => (typeof opName === 'function' ? opName() : opName);
  if (typeof prop !== 'number' || !Number.isInteger(prop) || prop < 0 || prop > FnProperty.noSkip) {
    throw new MXNetError(`invalid FnProperty ${String(prop)}`, {
      op: op(),
      hint: `use one of FnProperty.${Object.keys(FnProperty).join(', FnProperty.')}`,
    });
  }
  if (typeof priority !== 'number' || !Number.isFinite(priority)) {
    throw new MXNetError(`priority must be a finite number, got ${String(priority)}`, { op: op() });
  }
}
