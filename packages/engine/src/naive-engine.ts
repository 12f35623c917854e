/**
 * NaiveEngine: runs every op inside its push, one at a time, in push order (MXNet `NaiveEngine`,
 * selected with MXNET_ENGINE_TYPE=NaiveEngine). It exists for debugging: an op's error is thrown
 * by the push that ran it, with the pusher's stack.
 *
 * MXNet's NaiveEngine blocks the pushing thread until an asynchronous op completes. JavaScript
 * cannot block, so when an op's function returns without completing (and registered no blocking
 * wait), later pushes queue behind it and run, still one at a time and in order, when it
 * completes. Errors of ops that ran after their push returned cannot reach a pusher; the next wait
 * (waitForVar or waitForAll) rethrows the first of them, once. As in MXNet, NaiveEngine keeps no
 * errors on vars: dependents of a failed op still run, and bulk size is always 0.
 */
import { Env, MXNetError } from '@mx/base';
import { checkBulkSize, type Engine, EngineBase, type EngineOptions } from './engine.js';
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
  #deferred: unknown[] = [];
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
    if (this.#current !== null) {
      this.#queue.push(block);
      return;
    }
    this.#run(block, true);
  }

  /** Run one op. `atPush`: its push is on the stack, so its error is thrown there. */
  #run(block: OprBlock, atPush: boolean): void {
    block.state = RUNNING;
    if (this.profiler.isProfiling) this.profiler.startOp(block);
    if (this.#shutdown && block.prop !== FnProperty.deleteVar) {
      block.skipped = true;
      this.#finish(block, false);
      return;
    }
    let threw = false;
    let thrown: unknown;
    // Completion reported while the function (or its blocking wait) is still on the stack.
    let inCall = true;
    let callFailed = false;
    let callError: unknown;
    const onComplete = (error?: unknown): void => {
      if (block.state === DONE) {
        throw new MXNetError(`onComplete was called more than once for op "${block.name}"`, {
          op: block.name,
          device: block.ctx.toString(),
          hint: 'call onComplete exactly once per run of an asynchronous function',
        });
      }
      const failed = error !== undefined && error !== null;
      this.#finish(block, failed);
      if (inCall) {
        callFailed = failed;
        callError = error;
        return;
      }
      this.#current = null;
      if (failed) this.#deferred.push(error);
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
      this.#finish(block, threw);
      if (threw) this.#deliver(thrown, atPush);
    } else if (block.state === DONE) {
      if (threw) this.#deferred.push(thrown);
      if (callFailed) this.#deliver(callError, atPush);
    } else {
      this.#current = block;
    }
  }

  /** Throw at the push when it is on the stack; otherwise keep the error for the next wait. */
  #deliver(error: unknown, atPush: boolean): void {
    if (atPush) throw error;
    this.#deferred.push(error);
  }

  /** Bookkeeping after an op: versions, profile, idle notification. */
  #finish(block: OprBlock, failed: boolean): void {
    block.state = DONE;
    for (let i = block.numConst; i < block.numVars; i++) ++(block.vars[i] as Var).completedWrites;
    if (block.profStart >= 0) {
      this.profiler.endOp(block, 'naive', 1, failed);
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

  #takeDeferred(): [boolean, unknown] {
    if (this.#deferred.length === 0) return [false, undefined];
    const e = this.#deferred[0];
    this.#deferred = [];
    return [true, e];
  }

  #whenIdle(): Promise<void> {
    if (this.#current === null) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  async waitForVar(v: Var): Promise<void> {
    checkVar(this, v, 'waitForVar');
    await this.#whenIdle();
    const [has, e] = this.#takeDeferred();
    if (has) throw e;
  }

  async waitForAll(): Promise<void> {
    await this.#whenIdle();
    const [has, e] = this.#takeDeferred();
    if (has) throw e;
  }

  waitForVarSync(v: Var): void {
    checkVar(this, v, 'waitForVarSync');
    this.waitForAllSync();
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
    const [has, e] = this.#takeDeferred();
    if (has) throw e;
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
