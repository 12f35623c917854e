/**
 * The Engine API (MXNet `Engine`, camelCase) and the parts both engine kinds share: variables,
 * argument checking, reusable operators and the bulk() helper.
 *
 * Two kinds implement it: `ThreadedEngine` (default; ops run asynchronously as their dependencies
 * allow) and `NaiveEngine` (every op runs inside its push, for debugging) — picked by
 * `createEngine({ kind })` or MXNET_ENGINE_TYPE like MXNet's `CreateEngine`.
 */
import { type Context, cpu, MXNetError } from '@mx/base';
import type { MXNetAggregateError } from './exception.js';
import { FnProperty } from './fn-property.js';
import {
  type AsyncFn,
  checkPushOptions,
  checkVar,
  dedupVars,
  Operator,
  OprBlock,
  type PushOptions,
  type RunContext,
  type SyncFn,
} from './opr.js';
import { Profiler } from './profiler.js';
import { Var } from './var.js';

export type EngineKind = 'threaded' | 'naive';

/** Where engine bookkeeping ops (DeleteOperator, WaitForVar) run: the host, as in MXNet. */
export const HOST: Context = cpu(0);

/** MXNet's Engine API. Every method that takes vars rejects vars of other engines and deleted vars. */
export interface Engine {
  /** `threaded` or `naive`. */
  readonly kind: EngineKind;
  /** MXNet's name of this engine type, e.g. `ThreadedEnginePerDevice`. */
  readonly typeName: string;
  /** This engine's profiler (MXNet `mx.profiler`). */
  readonly profiler: Profiler;
  /** Ops pushed and not yet completed. */
  readonly pendingOps: number;

  /** A new variable (MXNet `NewVariable`). `name` only labels messages. */
  newVariable(name?: string): Var;
  /**
   * Push an asynchronous function: it runs once every earlier op writing a var it reads, and every
   * earlier op touching a var it writes, has completed; it must call `onComplete` exactly once.
   * Returns at once (NaiveEngine: after running it).
   */
  pushAsync(
    fn: AsyncFn,
    ctx: Context,
    constVars: readonly Var[],
    mutateVars: readonly Var[],
    options?: PushOptions,
  ): void;
  /** Push a synchronous function (finished when it returns). May be grouped into a bulk. */
  pushSync(
    fn: SyncFn,
    ctx: Context,
    constVars: readonly Var[],
    mutateVars: readonly Var[],
    options?: PushOptions,
  ): void;
  /** A reusable operator: vars are checked and deduplicated once (MXNet `NewOperator`). */
  newOperator(
    fn: AsyncFn,
    constVars: readonly Var[],
    mutateVars: readonly Var[],
    options?: { readonly prop?: FnProperty; readonly name?: string },
  ): Operator;
  /** Push a reusable operator (MXNet `Push`). */
  push(op: Operator, ctx: Context, options?: { readonly priority?: number }): void;
  /** Delete an operator once its pushed runs are done (MXNet `DeleteOperator`). */
  deleteOperator(op: Operator): void;
  /**
   * Delete a variable after every op pushed on it has run, running `deleteFn` then (MXNet
   * `DeleteVariable`). The var is unusable from this call on.
   */
  deleteVariable(deleteFn: SyncFn | null, ctx: Context, v: Var): void;
  /**
   * Resolve once every write pushed to `v` so far has completed. Rejects with the error `v` carries
   * if no wait has delivered it yet, once (MXNet's rule): the error is then marked delivered for
   * every var and op sharing it. With `sticky`, also rejects while `v` still carries an error that was
   * delivered before (see {@link failureOf}); NDArray reads use this so a failed array stays failed.
   */
  waitForVar(v: Var, options?: WaitOptions): Promise<void>;
  /**
   * Resolve once no op is pending. Rejects if failures no wait has delivered yet exist, and delivers
   * them all: with the error itself when there is one, with an {@link MXNetAggregateError} (op
   * `waitall`, listing each, `errors` holding them, `cause` the first) when there are several.
   */
  waitForAll(): Promise<void>;
  /**
   * Synchronous waitForVar: runs ready ops on the calling thread until `v` is ready. Throws
   * MXNetError when that needs an asynchronous op that cannot complete on this thread.
   */
  waitForVarSync(v: Var, options?: WaitOptions): void;
  /** Synchronous waitForAll, with the same limits as {@link waitForVarSync}. */
  waitForAllSync(): void;
  /**
   * The failure `v` carries (sticky): the error of its last completed write when that op failed, or
   * was skipped or ran `noSkip` because an input had failed; undefined when that write succeeded.
   * Waits do not clear it; the next write that runs and succeeds does. Ops read it at run time to
   * refuse reading the memory of a failed var. Accepts a var whose deletion is pending.
   */
  failureOf(v: Var): unknown | undefined;
  /** Set how many consecutive sync pushes are grouped into one op; returns the previous size. */
  setBulkSize(size: number): number;
  /** The current bulk size (0 = no bulking). */
  bulkSize(): number;
  /** Run `body` with bulk size `size`, restoring the previous size afterwards (MXNet `engine.bulk`). */
  bulk<T>(size: number, body: () => T): T;
  /** Resume executing ops after {@link stop}. */
  start(): void;
  /** Wait for all pending ops, then stop executing (pushes are queued until {@link start}). */
  stop(): Promise<void>;
  /** Enter the shutdown phase: ops not yet started complete without running (deleteVar ops still run). */
  notifyShutdown(): void;
}

/** Options of {@link Engine.waitForVar}. */
export interface WaitOptions {
  /** Also reject while the var carries a failure that an earlier wait delivered. Default false. */
  readonly sticky?: boolean;
}

export interface EngineOptions {
  /** Which engine to create; default from MXNET_ENGINE_TYPE (threaded unless NaiveEngine). */
  readonly kind?: EngineKind;
  /** Longest stretch (ms) the threaded engine runs ops before yielding to the event loop. Default 50. */
  readonly drainBudgetMs?: number;
}

/** Throws MXNetError unless `size` is a valid bulk size. */
export function checkBulkSize(size: number): void {
  if (!Number.isInteger(size) || size < 0) {
    throw new MXNetError(`bulk size must be a non-negative integer, got ${size}`, { op: 'setBulkSize' });
  }
}

/** @internal A checked push: deduplicated vars (reads, read-writes, writes) and options. */
export interface PushArgs {
  readonly vars: Var[];
  numConst: number;
  numRW: number;
  numVars: number;
  name: string | null;
  prop: FnProperty;
  priority: number;
}

/** `api(name)` for error messages (built only on error paths). */
function where(api: string, name: string | null, fn: unknown): string {
  return `${api}(${name ?? ((fn as { name?: string } | null)?.name || 'anonymous')})`;
}

/** The valid case of checkPushOptions, without building anything. */
function validPushOptions(prop: unknown, priority: unknown): boolean {
  return (
    typeof prop === 'number' &&
    Number.isInteger(prop) &&
    prop >= 0 &&
    prop <= FnProperty.noSkip &&
    typeof priority === 'number' &&
    Number.isFinite(priority)
  );
}

/** @internal The function of a deleteVariable op: marks the var dead, then runs the user's. */
export function deleteVarFn(v: Var, deleteFn: SyncFn | null): SyncFn {
  return (rctx: RunContext) => {
    v.dead = true;
    deleteFn?.(rctx);
  };
}

/** Argument checks and shared machinery of both engine kinds. */
export abstract class EngineBase {
  readonly profiler = new Profiler();
  #nextVarId = 0;
  /** @internal Push order of blocks, used for priority ties. */
  protected seq = 0;

  abstract readonly kind: EngineKind;

  /** @internal Queue a checked, deduplicated block (MXNet `Push`). */
  protected abstract submit(block: OprBlock): void;

  newVariable(name?: string): Var {
    return new Var(this, ++this.#nextVarId, name);
  }

  failureOf(v: Var): unknown | undefined {
    if (!(v instanceof Var) || v.owner !== this) checkVar(this, v, 'failureOf');
    return v.exception?.error;
  }

  pushAsync(
    fn: AsyncFn,
    ctx: Context,
    constVars: readonly Var[],
    mutateVars: readonly Var[],
    options?: PushOptions,
  ): void {
    this.submit(this.makeBlock(fn, false, ctx, constVars, mutateVars, options, 'pushAsync'));
  }

  pushSync(
    fn: SyncFn,
    ctx: Context,
    constVars: readonly Var[],
    mutateVars: readonly Var[],
    options?: PushOptions,
  ): void {
    this.submit(this.makeBlock(fn, true, ctx, constVars, mutateVars, options, 'pushSync'));
  }

  newOperator(
    fn: AsyncFn,
    constVars: readonly Var[],
    mutateVars: readonly Var[],
    options: { readonly prop?: FnProperty; readonly name?: string } = {},
  ): Operator {
    const name = options.name ?? (fn?.name || 'operator');
    const prop = options.prop ?? FnProperty.normal;
    this.checkFn(fn, name, 'newOperator');
    checkPushOptions(prop, 0, `newOperator(${name})`);
    const [c, m, numRW] = this.checkVarLists(constVars, mutateVars, `newOperator(${name})`, undefined);
    return new Operator(this, fn, c, m, numRW, prop, name);
  }

  push(op: Operator, ctx: Context, options: { readonly priority?: number } = {}): void {
    const priority = this.checkOperatorPush(op, ctx, options);
    const block = new OprBlock().init(
      op.fn,
      false,
      op.prop,
      priority,
      op.name,
      ctx,
      false,
      false,
      ++this.seq,
    );
    block.setVars(op.constVars, op.mutateVars, op.numRW); // checked, deduplicated by newOperator
    this.submit(block);
  }

  /** @internal Checks of `push(op, ctx, options)`; returns the priority. */
  protected checkOperatorPush(op: Operator, ctx: Context, options: { readonly priority?: number }): number {
    if (!(op instanceof Operator) || op.owner !== this) {
      throw new MXNetError('expected an operator created by this engine with newOperator()', { op: 'push' });
    }
    const where = `push(${op.name})`;
    if (op.deleted) {
      throw new MXNetError(`operator "${op.name}" was deleted with deleteOperator`, {
        op: where,
        hint: 'create a new operator with newOperator()',
      });
    }
    this.checkContext(ctx, where);
    const priority = options.priority ?? 0;
    checkPushOptions(op.prop, priority, where);
    for (const v of op.constVars) checkVar(this, v, where, ctx);
    for (const v of op.mutateVars) checkVar(this, v, where, ctx);
    return priority;
  }

  deleteOperator(op: Operator): void {
    if (!(op instanceof Operator) || op.owner !== this) {
      throw new MXNetError('expected an operator created by this engine with newOperator()', {
        op: 'deleteOperator',
      });
    }
    if (op.deleted) {
      throw new MXNetError(`operator "${op.name}" was already deleted`, { op: 'deleteOperator' });
    }
    op.deleted = true;
    const vars = [...op.constVars, ...op.mutateVars].filter((v) => !v.deleteRequested);
    this.pushAsync((_r, done) => done(), HOST, [], vars, {
      prop: FnProperty.deleteVar,
      name: 'DeleteOperator',
    });
  }

  deleteVariable(deleteFn: SyncFn | null, ctx: Context, v: Var): void {
    this.checkDeleteVariable(deleteFn, ctx, v);
    const block = new OprBlock().init(
      deleteVarFn(v, deleteFn),
      true,
      FnProperty.deleteVar,
      0,
      'DeleteVariable',
      ctx,
      false,
      false,
      ++this.seq,
    );
    block.setVars([], [v], 0);
    v.deleteRequested = true;
    this.submit(block);
  }

  /** @internal Checks of `deleteVariable`. */
  protected checkDeleteVariable(deleteFn: SyncFn | null, ctx: Context, v: Var): void {
    checkVar(this, v, 'deleteVariable', ctx);
    if (deleteFn !== null && typeof deleteFn !== 'function') {
      throw new MXNetError('deleteFn must be a function or null', { op: 'deleteVariable' });
    }
    this.checkContext(ctx, 'deleteVariable');
  }

  bulk<T>(size: number, body: () => T): T {
    const previous = this.setBulkSize(size);
    let result: T;
    try {
      result = body();
    } catch (e) {
      this.setBulkSize(previous);
      throw e;
    }
    if (result instanceof Promise) {
      return result.finally(() => this.setBulkSize(previous)) as T;
    }
    this.setBulkSize(previous);
    return result;
  }

  abstract setBulkSize(size: number): number;

  /** @internal Build a checked block for pushAsync/pushSync. */
  protected makeBlock(
    fn: SyncFn | AsyncFn,
    isSync: boolean,
    ctx: Context,
    constVars: readonly Var[],
    mutateVars: readonly Var[],
    options: PushOptions | undefined,
    api: string,
  ): OprBlock {
    const a = this.checkPush(fn, ctx, constVars, mutateVars, options, api);
    const block = new OprBlock().init(fn, isSync, a.prop, a.priority, a.name, ctx, false, false, ++this.seq);
    const out = block.vars;
    for (let i = 0; i < a.numVars; i++) out[i] = a.vars[i] as Var;
    block.numConst = a.numConst;
    block.numRW = a.numRW;
    block.numVars = a.numVars;
    return block;
  }

  /**
   * @internal Check the arguments of pushAsync/pushSync into the engine's scratch `PushArgs` (valid
   * until the next push; the caller copies what it keeps) and, with `dedup`, deduplicate their vars
   * into it. Throws MXNetError naming `api(name)`.
   */
  protected checkPush(
    fn: SyncFn | AsyncFn,
    ctx: Context,
    constVars: readonly Var[],
    mutateVars: readonly Var[],
    options: PushOptions | undefined,
    api: string,
    dedup = true,
  ): PushArgs {
    const a = this.#pushArgs;
    let name: string | null = null;
    let prop: FnProperty = FnProperty.normal;
    let priority = 0;
    if (options !== undefined) {
      name = options.name ?? null;
      prop = options.prop ?? FnProperty.normal;
      priority = options.priority ?? 0;
    }
    if (typeof fn !== 'function') this.checkFn(fn, name ?? 'anonymous', api);
    a.name = name;
    a.prop = prop;
    a.priority = priority;
    if (ctx === null || typeof ctx !== 'object' || typeof ctx.key !== 'number')
      this.checkContext(ctx, where(api, name, fn));
    if ((prop !== FnProperty.normal || priority !== 0) && !validPushOptions(prop, priority))
      checkPushOptions(prop, priority, where(api, name, fn));
    if (!Array.isArray(constVars) || !Array.isArray(mutateVars))
      this.checkVarLists(constVars, mutateVars, where(api, name, fn), ctx);
    if (dedup) this.dedupPush(fn, name, ctx, constVars, mutateVars, api, a, 0);
    return a;
  }

  /** @internal dedupVars into `into` from `at`, with errors naming `api(name)` (built off the hot path). */
  protected dedupPush(
    fn: unknown,
    name: string | null,
    ctx: Context,
    constVars: readonly Var[],
    mutateVars: readonly Var[],
    api: string,
    into: { vars: unknown[]; numConst: number; numRW: number; numVars: number },
    at: number,
  ): void {
    try {
      dedupVars(this, constVars, mutateVars, api, ctx, into, at);
    } catch (e) {
      if (e instanceof MXNetError && e.op === api) {
        throw new MXNetError(e.reason, { op: where(api, name, fn), device: e.device, hint: e.hint });
      }
      throw e;
    }
  }

  readonly #pushArgs: PushArgs = {
    vars: [],
    numConst: 0,
    numRW: 0,
    numVars: 0,
    name: null,
    prop: FnProperty.normal,
    priority: 0,
  };

  /** @internal Check and deduplicate var lists into fresh arrays: reads, writes (read-write first), numRW. */
  protected checkVarLists(
    constVars: readonly Var[],
    mutateVars: readonly Var[],
    where: string,
    ctx: Context | undefined,
  ): [Var[], Var[], number] {
    if (!Array.isArray(constVars) || !Array.isArray(mutateVars)) {
      throw new MXNetError('constVars and mutateVars must be arrays of variables', {
        op: where,
        device: ctx?.toString(),
      });
    }
    const out = { vars: [] as Var[], numConst: 0, numRW: 0, numVars: 0 };
    dedupVars(this, constVars, mutateVars, where, ctx, out);
    return [out.vars.slice(0, out.numConst), out.vars.slice(out.numConst, out.numVars), out.numRW];
  }

  /** @internal */
  protected checkFn(fn: unknown, name: string, api: string): void {
    if (typeof fn !== 'function') {
      throw new MXNetError(`expected a function, got ${fn === null ? 'null' : typeof fn}`, {
        op: `${api}(${name})`,
      });
    }
  }

  /** @internal */
  protected checkContext(ctx: Context, where: string): void {
    if (
      ctx === null ||
      typeof ctx !== 'object' ||
      typeof ctx.key !== 'number' ||
      typeof ctx.deviceType !== 'string'
    ) {
      throw new MXNetError('expected a Context such as cpu(0) or gpu(0)', { op: where });
    }
  }
}
