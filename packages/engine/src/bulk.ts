/**
 * The pending bulk of the threaded engine (MXNet's `BulkStatus`): consecutive sync pushes collected
 * until a flush turns them into one "ImperativeBulk" op over the union of their variables. Kept
 * apart from the engine so the rules of what joins a bulk (threaded-engine.ts) and the buffer that
 * holds it stay small.
 */
import type { Context } from '@mx/base';
import type { SyncFn } from './opr.js';
import type { Var } from './var.js';

/** A taken bulk: one function running its members in order, and their variables. */
export interface TakenBulk {
  readonly ctx: Context;
  readonly run: SyncFn;
  readonly constVars: Var[];
  readonly mutateVars: Var[];
  /** Member names, when the profiler was on while they were added. */
  readonly names: string[] | null;
}

export class BulkBuffer {
  #ctx: Context | null = null;
  #fns: SyncFn[] = [];
  #constVars: Var[] = [];
  #mutateVars: Var[] = [];
  #names: string[] | null = null;

  /** Members waiting. */
  get length(): number {
    return this.#fns.length;
  }

  /** The context of the waiting members (null when empty). */
  get ctx(): Context | null {
    return this.#ctx;
  }

  add(
    fn: SyncFn,
    ctx: Context,
    constVars: readonly Var[],
    mutateVars: readonly Var[],
    name: string | null,
  ): void {
    this.#ctx = ctx;
    this.#fns.push(fn);
    for (const v of constVars) this.#constVars.push(v);
    for (const v of mutateVars) this.#mutateVars.push(v);
    if (name !== null) {
      this.#names ??= [];
      this.#names.push(name);
    }
  }

  /** Empty the buffer and return its members as one function, or null when it is empty. */
  take(): TakenBulk | null {
    if (this.#fns.length === 0) return null;
    const fns = this.#fns;
    const taken: TakenBulk = {
      ctx: this.#ctx as Context,
      run: (rctx) => {
        for (let i = 0; i < fns.length; i++) (fns[i] as SyncFn)(rctx);
      },
      constVars: this.#constVars,
      mutateVars: this.#mutateVars,
      names: this.#names,
    };
    this.#ctx = null;
    this.#fns = [];
    this.#constVars = [];
    this.#mutateVars = [];
    this.#names = null;
    return taken;
  }
}
