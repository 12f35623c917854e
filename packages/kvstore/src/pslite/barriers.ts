/**
 * ps-lite's barriers, both sides, apart from the van: the scheduler notes who asked per group and
 * releases the group when every node of it asked; a node keeps its waiters until that release.
 * Two differences from ps-lite, both about dead nodes: the scheduler keeps the set of node ids that
 * asked, not a counter, so a request of a node that died and one of the node that replaced it are
 * not both counted; and a waiter whose group holds a dead node fails (ps-lite waits forever) — at
 * once, or, with PS_RECOVERY_TIMEOUT, only if no node took the dead one's place by then.
 */
import type { MXNetError } from '@mx/base';
import { deferred } from './util.js';

interface Waiter {
  readonly group: number;
  resolve(): void;
  reject(e: MXNetError): void;
}

/** What the barriers need from their node. */
export interface BarrierHost {
  /** The ids of a group (ps-lite's GetNodeIDs). */
  nodeIds(group: number): number[];
  /** Why `id` is dead, when it is. */
  deadError(id: number): MXNetError | undefined;
}

export class Barriers {
  #waiters: Waiter[] = [];
  readonly #asked = new Map<number, Set<number>>();
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();

  /** `recoveryMs`: how long a waiter tolerates a dead member of its group (0: not at all). */
  constructor(
    private readonly host: BarrierHost,
    private readonly recoveryMs: number,
  ) {}

  /** Node side: wait for the release of `group` (the caller sends the request). */
  wait(group: number): Promise<void> {
    const dead = this.#deadIn(group);
    if (dead !== undefined && this.recoveryMs === 0) return Promise.reject(dead);
    const d = deferred<void>();
    this.#waiters.push({ group, resolve: d.resolve, reject: d.reject });
    if (dead !== undefined) this.#recheckLater();
    return d.promise;
  }

  /** Node side: the scheduler released the barrier (ps-lite: one barrier in flight per node). */
  release(): void {
    for (const w of this.#waiters.splice(0)) w.resolve();
  }

  /** Node side: the node stops; every waiter fails. */
  failAll(error: MXNetError): void {
    for (const w of this.#waiters.splice(0)) w.reject(error);
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }

  /**
   * Nodes died (`error` says why): their requests no longer count; waiters and groups that hold them
   * fail now, or after the recovery wait if a dead member was not replaced by then. With
   * `everyoneFor`, the waiters of groups holding the scheduler fail too (a node cannot go on
   * without it).
   */
  nodesDied(ids: readonly number[], error: MXNetError, everyoneFor?: number): void {
    for (const set of this.#asked.values()) for (const i of ids) set.delete(i);
    const hit = (g: number) => this.host.nodeIds(g).some((i) => ids.includes(i));
    if (this.recoveryMs === 0 || (everyoneFor !== undefined && ids.includes(everyoneFor))) {
      this.#fail(
        (w) => hit(w.group) || (everyoneFor !== undefined && ids.includes(everyoneFor)),
        () => error,
      );
      for (const g of [...this.#asked.keys()]) if (hit(g)) this.#asked.delete(g);
      return;
    }
    this.#recheckLater();
  }

  /** Scheduler side: `sender` asked for barrier `group`; the ids to release once all of it asked. */
  arrive(group: number, sender: number): number[] | undefined {
    const ids = this.host.nodeIds(group);
    const set = this.#asked.get(group) ?? new Set<number>();
    this.#asked.set(group, set);
    set.add(sender);
    if (!ids.every((i) => set.has(i))) return undefined;
    this.#asked.delete(group);
    return ids;
  }

  /** How many nodes of `group` asked so far (for the scheduler's log). */
  asked(group: number): number {
    return this.#asked.get(group)?.size ?? 0;
  }

  #deadIn(group: number): MXNetError | undefined {
    for (const i of this.host.nodeIds(group)) {
      const e = this.host.deadError(i);
      if (e !== undefined) return e;
    }
    return undefined;
  }

  /** After the recovery wait: whatever still holds a dead node fails. */
  #recheckLater(): void {
    const t = setTimeout(() => {
      this.#timers.delete(t);
      this.#fail(
        (w) => this.#deadIn(w.group) !== undefined,
        (w) => this.#deadIn(w.group) as MXNetError,
      );
      for (const g of [...this.#asked.keys()]) if (this.#deadIn(g) !== undefined) this.#asked.delete(g);
    }, this.recoveryMs);
    (t as { unref?: () => void }).unref?.();
    this.#timers.add(t);
  }

  #fail(which: (w: Waiter) => boolean, why: (w: Waiter) => MXNetError): void {
    const keep: Waiter[] = [];
    for (const w of this.#waiters) {
      if (which(w)) w.reject(why(w));
      else keep.push(w);
    }
    this.#waiters = keep;
  }
}
