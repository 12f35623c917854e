/**
 * Var: an engine variable (MXNet `VarHandle`) and the state of its dependency queue (MXNet
 * `ThreadedVar`).
 *
 * Each var keeps a FIFO of pending accesses in push order. Consecutive reads run together; a write
 * waits for every earlier access; reads queued behind a write wait for it. The queue itself lives in
 * the threaded engine's OpTable (op-table.ts) as a linked list of integer entries whose last entry
 * is an empty placeholder (`head`); this is MXNet's algorithm unchanged, only the locks are gone
 * because the JavaScript event loop is the only thread that touches it. The var keeps the indices
 * and counters, plus its failure (see exception.ts).
 *
 * Engine-internal fields are `@internal` (stripped from the published typings) rather than `#private`
 * because the engine's hot path reads them directly; users see only `id`, `name` and `version`.
 */
import type { ExceptionRef } from './exception.js';

/** An engine variable: a tag for a resource whose reads and writes the engine orders. */
export class Var {
  /** Unique per engine, increasing. */
  readonly id: number;
  /** Optional label used in error messages and profiles. */
  readonly name: string | undefined;

  /** @internal The engine that created this var (identity check for foreign vars). */
  readonly owner: object;
  /** @internal Queue entry of the placeholder at the end of the queue; 0 while no write is pending. */
  head = 0;
  /** @internal Queue entry of the write currently pending or running; 0 when reads may proceed. */
  pendingWrite = 0;
  /** @internal Reads in flight, or -1 (MXNet kWriteTriggered) once the pending write was dispatched. */
  numPendingReads = 0;
  /** @internal Completed writes (MXNet `version_`). */
  completedWrites = 0;
  /** @internal Failure of the last completed write (shared box; sticky, see exception.ts). */
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
    return this.pendingWrite === 0;
  }

  /** @internal A write could start now: no access pending or running. */
  idleForWrite(): boolean {
    return this.pendingWrite === 0 && this.numPendingReads === 0;
  }
}
