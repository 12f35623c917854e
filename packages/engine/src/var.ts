/**
 * Var: an engine variable (MXNet `VarHandle`) and its dependency queue (MXNet `ThreadedVar`).
 *
 * Each var keeps a FIFO of pending accesses in push order. Consecutive reads run together; a write
 * waits for every earlier access; reads queued behind a write wait for it. The queue is a linked
 * list whose last node is an empty placeholder (`head`): appending fills the placeholder and adds a
 * new one, so no pointer to the tail needs fixing up. This is MXNet's algorithm unchanged; only the
 * locks are gone, because the JavaScript event loop is the only thread that touches it.
 *
 * Engine-internal fields are `@internal` (stripped from the published typings) rather than `#private`
 * because the engine's hot path reads them directly; users see only `id`, `name` and `version`.
 */
import type { ExceptionRef } from './exception.js';

/** The part of a queued op that a var needs: its wait counter. */
export interface VarWaiter {
  /** Dependencies still unmet, plus one held by the pusher until it has appended them all. */
  wait: number;
}

/** Called when a var's completion makes a queued op runnable. */
export type ReadyCallback<T extends VarWaiter> = (block: T) => void;

/** Sentinel for "a write has been dispatched" in `numPendingReads` (MXNet `kWriteTriggered`). */
const WRITE_TRIGGERED = -1;

/** @internal One queued access on a var (MXNet `VersionedVarBlock`). */
export class VarBlock<T extends VarWaiter = VarWaiter> {
  trigger: T | null = null;
  next: VarBlock<T> | null = null;
  write = false;
}

/**
 * @internal Free list of VarBlocks, owned by an engine (MXNet keeps an ObjectPool for the same
 * reason): queued blocks live until their op runs, which is long enough for V8 to promote them to
 * the old generation, so allocating one per push turns into major-GC time (70% of the run before
 * pooling, measured on the throughput benchmark).
 */
export class VarBlockPool {
  readonly #free: VarBlock[] = [];
  readonly #cap: number;

  constructor(cap = 1 << 17) {
    this.#cap = cap;
  }

  get(): VarBlock {
    return this.#free.pop() ?? new VarBlock();
  }

  put(b: VarBlock): void {
    b.trigger = null;
    b.next = null;
    b.write = false;
    if (this.#free.length < this.#cap) this.#free.push(b);
  }
}

/** An engine variable: a tag for a resource whose reads and writes the engine orders. */
export class Var {
  /** Unique per engine, increasing. */
  readonly id: number;
  /** Optional label used in error messages and profiles. */
  readonly name: string | undefined;

  /** @internal The engine that created this var (identity check for foreign vars). */
  readonly owner: object;
  /** @internal Placeholder at the end of the queue. */
  head: VarBlock = new VarBlock();
  /** @internal The write currently pending or running, or null when reads may proceed. */
  pendingWrite: VarBlock | null = null;
  /** @internal Reads in flight, or WRITE_TRIGGERED once the pending write was dispatched. */
  numPendingReads = 0;
  /** @internal Completed writes (MXNet `version_`). */
  completedWrites = 0;
  /** @internal Error carried by this var (shared box). */
  exception: ExceptionRef | null = null;
  /** @internal deleteVariable was called: the var accepts no new ops. */
  deleteRequested = false;
  /** @internal The delete op ran: the var is gone. */
  dead = false;
  /** @internal Scratch stamp for duplicate detection while pushing. */
  mark = 0;

  /** @internal */
  constructor(owner: object, id: number, name: string | undefined) {
    this.owner = owner;
    this.id = id;
    this.name = name;
  }

  /** Number of completed writes (MXNet `Var::version()`). */
  get version(): number {
    return this.completedWrites;
  }

  /** `var#12` or `var#12 (weight)`. */
  toString(): string {
    return this.name === undefined ? `var#${this.id}` : `var#${this.id} (${this.name})`;
  }

  /** @internal True when no write is pending (MXNet `ready_to_read`). */
  readyToRead(): boolean {
    return this.pendingWrite === null;
  }

  /** @internal Queue a read. Decrements `op.wait` at once when no write is pending. */
  appendRead(op: VarWaiter, pool: VarBlockPool): void {
    if (this.pendingWrite === null) {
      ++this.numPendingReads;
      --op.wait;
    } else {
      const block = pool.get();
      const head = this.head;
      head.next = block;
      head.trigger = op;
      this.head = block;
    }
  }

  /** @internal A read could start now: no write pending or running. */
  idleForRead(): boolean {
    return this.pendingWrite === null;
  }

  /** @internal A write could start now: no access pending or running. */
  idleForWrite(): boolean {
    return this.pendingWrite === null && this.numPendingReads === 0;
  }

  /** @internal Queue a write. Decrements `op.wait` at once when nothing is pending. */
  appendWrite(op: VarWaiter, pool: VarBlockPool): void {
    const block = pool.get();
    const head = this.head;
    head.next = block;
    head.trigger = op;
    head.write = true;
    if (this.pendingWrite === null) {
      this.pendingWrite = head;
      if (this.numPendingReads === 0) {
        --op.wait;
        this.numPendingReads = WRITE_TRIGGERED;
      }
    }
    this.head = block;
  }

  /** @internal A read finished; may release the pending write. */
  completeRead<T extends VarWaiter>(ready: ReadyCallback<T>): void {
    if (--this.numPendingReads === 0 && this.pendingWrite !== null) {
      this.numPendingReads = WRITE_TRIGGERED;
      const trigger = this.pendingWrite.trigger as T;
      if (--trigger.wait === 0) ready(trigger);
    }
  }

  /** @internal A write finished; releases the reads queued behind it, or the next write. */
  completeWrite<T extends VarWaiter>(ready: ReadyCallback<T>, pool: VarBlockPool): void {
    ++this.completedWrites;
    const oldPending = this.pendingWrite as VarBlock;
    if (this.dead) {
      pool.put(oldPending);
      this.pendingWrite = null;
      this.numPendingReads = 0;
      return;
    }
    let end = oldPending.next as VarBlock;
    const head = this.head;
    let reads = 0;
    while (end !== head && !end.write) {
      ++reads;
      end = end.next as VarBlock;
    }
    let triggerWrite: T | null = null;
    if (end === head) {
      this.pendingWrite = null;
      this.numPendingReads = reads;
    } else {
      this.pendingWrite = end;
      if (reads === 0) {
        this.numPendingReads = WRITE_TRIGGERED;
        triggerWrite = end.trigger as T;
      } else {
        this.numPendingReads = reads;
      }
    }
    let cur = oldPending.next as VarBlock;
    pool.put(oldPending);
    while (cur !== end) {
      const t = cur.trigger as T;
      const next = cur.next as VarBlock;
      pool.put(cur);
      if (--t.wait === 0) ready(t);
      cur = next;
    }
    if (triggerWrite !== null && --triggerWrite.wait === 0) ready(triggerWrite);
  }
}
