/**
 * NaiveEngine: runs every op inside its push, one at a time, in push order (MXNet `NaiveEngine`,
 * selected with MXNET_ENGINE_TYPE=NaiveEngine). It exists for debugging: an op's error is thrown
 * by the push that ran it, with the pusher's stack.
 *
 * MXNet's NaiveEngine blocks the pushing thread until an asynchronous op completes. JavaScript
 * cannot block, so when an op's function returns without completing (and registered no blocking
 * wait), later pushes queue behind it and run, still one at a time and in order, when it
 * completes. Errors of ops that ran after their push returned cannot reach a pusher; the next wait
 * (waitForVar or waitForAll) rethrows them, once. As in MXNet, dependents of a failed op still run
 * and bulk size is always 0; but a failed op's writes keep its failure (sticky, for `failureOf` and
 * sticky waits, so a failed array stays failed), and so do the writes of an op that read a failed
 * var, until an op that reads no failed var overwrites them. Waits rethrow only undelivered errors.
 */
import { Env, MXNetError } from '@mx/base';
import { checkBulkSize, type Engine, EngineBase, type EngineOptions, type WaitOptions } from './engine.js';
import { deliverAll, ExceptionRef } from './exception.js';
import { FnProperty } from './fn-property.js';
import { checkVar, DONE, type OprBlock, RUNNING, type SyncFn } from './opr.js';
import type { Var } from './var.js';

export class NaiveEngine extends EngineBase implements Engine {
  readonly kind = 'naive' as const;
  readonly typeName = 'NaiveEngine';
  /** Ops waiting behind an in-flight asynchronous op. */
  #queue: OprBlock[] = [];
  #queueHead = 0;
  #current: OprBlock | null = null;
  /** Failures of ops that ran after their push returned, for the next wait. */
  #deferred: ExceptionRef[] = [];
  #idleWaiters: (() => void)[] = [];
  #executing = 0;
  #shutdown = false;
  #pending = 0;

  constructor(options: EngineOptions & { env?: Env } = {}) {
    super();
    const env = options.env ?? Env.fromProcess();
    if (env.get('MXNET_PROFILER_AUTOSTART')) this.profiler.setState('run');
  }

  get pendingOps(): number {
    return this.#pending;
  }

  /** @internal */
  protected submit(block: OprBlock): void {
    ++this.#pending;
    // A delete pushed from inside a running op (a finalizer fired by a forced GC in a kernel) must
    // not free what that op is reading: it runs once the op returns.
    if (this.#current !== null || (this.#executing > 0 && block.prop === FnProperty.deleteVar)) {
      this.#queue.push(block);
      return;
    }
    try {
      this.#run(block, true);
    } finally {
      if (this.#executing === 0 && this.#current === null) this.#runQueued();
    }
  }

  /** Run one op. `atPush`: its push is on the stack, so its error is thrown there. */
  #run(block: OprBlock, atPush: boolean): void {
    block.state = RUNNING;
    if (this.profiler.isProfiling) this.profiler.startOp(block);
    if (this.#shutdown && block.prop !== FnProperty.deleteVar) {
      block.skipped = true;
      this.#finish(block, null);
      return;
    }
    // A failure on a var the op reads is passed on to its writes (the op still runs, as in MXNet).
    for (let i = 0, n = block.numConst + block.numRW; i < n; i++) {
      const e = (block.vars[i] as Var).exception;
      if (e !== null) {
        block.exception = e;
        break;
      }
    }
    let threw = false;
    let thrown: unknown;
    // Completion reported while the function (or its blocking wait) is still on the stack.
    let inCall = true;
    let callError = null as ExceptionRef | null;
    const onComplete = (error?: unknown): void => {
      if (block.state === DONE) {
        throw new MXNetError(`onComplete was called more than once for op "${block.name}"`, {
          op: block.name,
          device: block.ctx.toString(),
          hint: 'call onComplete exactly once per run of an asynchronous function',
        });
      }
      const failed = error !== undefined && error !== null;
      const box = failed ? new ExceptionRef(error, block.name) : null;
      this.#finish(block, box);
      if (inCall) {
        callError = box;
        return;
      }
      this.#current = null;
      if (box !== null) this.#deferred.push(box);
      this.#runQueued();
    };
    ++this.#executing;
    try {
      if (block.isSync) {
        (block.fn as SyncFn)(block);
      } else {
        block.fn(block, onComplete);
        const wait = block.blockingWait;
        if (block.state !== DONE && wait !== null) {
          block.blockingWait = null;
          wait();
        }
      }
    } catch (e) {
      threw = true;
      thrown = e;
    }
    --this.#executing;
    inCall = false;
    if (block.isSync || (threw && block.state !== DONE)) {
      // A sync op, or an async one that failed before completing: it ends here.
      const box = threw ? new ExceptionRef(thrown, block.name) : null;
      this.#finish(block, box);
      if (box !== null) this.#deliver(box, atPush);
    } else if (block.state === DONE) {
      if (threw) this.#deferred.push(new ExceptionRef(thrown, block.name));
      if (callError !== null) this.#deliver(callError, atPush);
    } else {
      this.#current = block;
    }
  }

  /** Throw at the push when it is on the stack (that delivers it); otherwise keep it for the next wait. */
  #deliver(box: ExceptionRef, atPush: boolean): void {
    if (atPush) throw box.deliver();
    this.#deferred.push(box);
  }

  /**
   * Bookkeeping after an op: its writes carry its own failure `box`, else one inherited from its
   * reads, else none (a success clears them; a shutdown skip leaves them); versions, profile, idle.
   */
  #finish(block: OprBlock, box: ExceptionRef | null): void {
    block.state = DONE;
    const ex = box ?? block.exception;
    const store = ex !== null || !block.skipped;
    for (let i = block.numConst; i < block.numVars; i++) {
      const v = block.vars[i] as Var;
      if (store) v.exception = ex;
      ++v.completedWrites;
    }
    if (block.profStart >= 0) {
      this.profiler.endOp(block, 'naive', 1, ex !== null);
    }
    if (--this.#pending === 0) {
      const idle = this.#idleWaiters;
      this.#idleWaiters = [];
      for (const f of idle) f();
    }
  }

  #runQueued(): void {
    while (this.#current === null && this.#queueHead < this.#queue.length) {
      const block = this.#queue[this.#queueHead++] as OprBlock;
      this.#run(block, false);
    }
    if (this.#queueHead >= this.#queue.length) {
      this.#queue = [];
      this.#queueHead = 0;
    }
  }

  /** Deliver the deferred failures (see deliverAll): what the next wait rethrows. */
  #takeDeferred(): { failed: boolean; error: unknown } {
    if (this.#deferred.length === 0) return { failed: false, error: undefined };
    const r = deliverAll(this.#deferred);
    this.#deferred = [];
    return r;
  }

  #whenIdle(): Promise<void> {
    if (this.#current === null) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  async waitForVar(v: Var, options?: WaitOptions): Promise<void> {
    checkVar(this, v, 'waitForVar');
    await this.#whenIdle();
    const { failed, error } = this.#takeDeferred();
    if (failed) throw error;
    if (options?.sticky === true && v.exception !== null) throw v.exception.error;
  }

  async waitForAll(): Promise<void> {
    await this.#whenIdle();
    const { failed, error } = this.#takeDeferred();
    if (failed) throw error;
  }

  waitForVarSync(v: Var, options?: WaitOptions): void {
    checkVar(this, v, 'waitForVarSync');
    this.waitForAllSync();
    if (options?.sticky === true && v.exception !== null) throw v.exception.error;
  }

  waitForAllSync(): void {
    if (this.#executing > 0) {
      throw new MXNetError('cannot wait synchronously from inside an engine op', {
        op: 'waitForAllSync',
        hint: 'ops must not wait on the engine; declare the dependency as a read var instead',
      });
    }
    while (this.#current !== null) {
      const cur = this.#current;
      const wait = cur.blockingWait;
      if (wait === null) {
        throw new MXNetError(
          `cannot wait synchronously: op "${cur.name}" on ${cur.ctx} is running asynchronously and cannot complete on the calling thread`,
          {
            op: 'waitForAllSync',
            device: cur.ctx.toString(),
            hint: 'use the asynchronous wait (await engine.waitForVar / waitForAll) instead',
          },
        );
      }
      cur.blockingWait = null;
      wait();
      if (cur.state !== DONE) {
        throw new MXNetError(`the blocking wait of op "${cur.name}" returned before the op completed`, {
          op: 'waitForAllSync',
          hint: 'a blocking wait must not return until the op has called onComplete',
        });
      }
    }
    const { failed, error } = this.#takeDeferred();
    if (failed) throw error;
  }

  /** NaiveEngine does not bulk (MXNet: the base Engine's bulk size is always 0). */
  setBulkSize(size: number): number {
    checkBulkSize(size);
    return 0;
  }

  bulkSize(): number {
    return 0;
  }

  start(): void {}

  async stop(): Promise<void> {
    await this.#whenIdle();
  }

  notifyShutdown(): void {
    this.#shutdown = true;
  }
}
