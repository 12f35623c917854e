/**
 * OpTable: the threaded engine's pending ops and var queues, stored as flat arrays indexed by
 * integers instead of one object per op and per queued access.
 *
 * Why: with a million ops in flight, object-per-op storage (an OprBlock, its var array and three
 * VarBlocks, ~500 bytes per op) spent two thirds of the time in GC and the rest in cache misses
 * (measured with --cpu-prof on the throughput benchmark). Here an op is a slot `id` in three arrays
 * (Int32 fields, Float64 priority/sequence, and one JavaScript array of references: function,
 * context, name, failure, extras and up to INLINE_VARS vars), and a var queue entry is two Int32s.
 * Slots and entries are recycled through free lists threaded through the arrays themselves, so
 * steady-state pushing allocates nothing, and a slot's fields sit next to each other in memory.
 *
 * The var queue is MXNet's ThreadedVar algorithm (see var.ts) on entry indices: an entry holds the
 * queued op (`op << 1 | isWrite`) and the next entry; a var's queue ends in an empty placeholder
 * entry (`Var.head`) that exists only while a write is pending (`Var.pendingWrite !== 0`), so idle
 * vars hold no entries.
 */
import type { ProfiledOp } from './profiler.js';
import type { Var } from './var.js';

/** Int32 fields of an op slot, at `id * I32 + field`. */
export const WAIT = 0; // unmet dependencies (+1 held by the pusher while it appends them)
export const FLAGS = 1; // state, kind bits and FnProperty (see below)
export const NEXT = 2; // link in a lane's FIFO, or in the free list
export const NCONST = 3; // reads
export const NRW = 4; // writes that are also read (they come first among the writes)
export const NVARS = 5; // all vars
export const LANE = 6; // tid of the lane the op runs in (holding a slot); 0 when run inline
export const HOME = 7; // tid of the lane the op is queued on when it is not run inline (set at push)
export const I32 = 8;

/** Float64 fields, at `id * F64 + field` (set only for ops of priority-ordered lanes). */
export const PRIORITY = 0;
export const SEQ = 1;
export const F64 = 2;

/** References, at `id * REFS + field`; vars follow inline when there are at most INLINE_VARS. */
export const FN = 0;
export const CTX = 1;
export const NAME = 2; // explicit name, or null to use the function's name
export const EXC = 3; // ExceptionRef inherited at start or made by a failure
export const EXTRA = 4; // OpExtra or null
export const VARS = 5;
export const INLINE_VARS = 4;
export const REFS = VARS + INLINE_VARS;

/** FLAGS bits: state in the low two bits, kinds, FnProperty from bit 8. */
export const RUNNING = 1;
export const DONE = 2;
export const STATE_MASK = 3;
export const IS_SYNC = 4;
export const IS_WAIT = 8;
export const IS_BULK = 16;
export const SKIPPED = 32;
export const PROP_SHIFT = 8;

/** Rarely needed per-op data, kept out of the slot. */
export interface OpExtra {
  /** All vars, when there are more than INLINE_VARS. */
  bigVars: Var[] | null;
  /** Extra profile arguments (bulk members). */
  profArgs: Readonly<Record<string, unknown>> | null;
  /** The profile record in progress. */
  prof: ProfiledOp | null;
}

/** Sentinel for "a write has been dispatched" in `Var.numPendingReads` (MXNet `kWriteTriggered`). */
const WRITE_TRIGGERED = -1;
const MIN_OPS = 1024;
/** From this many slots on, an empty table relinks its free lists in address order (see alloc). */
const RELINK_OPS = 1 << 16;

/** Called when a var's completion makes a queued op runnable. */
export type ReadyFn = (op: number) => void;

export class OpTable {
  i32: Int32Array = new Int32Array(0);
  f64: Float64Array = new Float64Array(0);
  refs: unknown[] = [];
  /** Queue entries: `[op << 1 | isWrite, next]` per entry. */
  q: Int32Array = new Int32Array(0);
  /** Slots in use, and the most in use since the table was last empty. */
  live = 0;
  #highWater = 0;
  #lastHighWater = 0;
  #capacity = 0;
  #freeOp = 0;
  #freeQ = 0;

  constructor() {
    this.#resize(MIN_OPS);
  }

  /** Queue entries in use, by walking the free list (tests: 0 whenever no op is pending). */
  liveEntries(): number {
    let free = 0;
    for (let e = this.#freeQ; e !== 0; e = this.q[e * 2 + 1] as number) ++free;
    return this.q.length / 2 - 1 - free;
  }

  /** Slots allocated (for memory reports). */
  get capacity(): number {
    return this.#capacity;
  }

  /**
   * A free slot with `flags` and `home` set (function, failure and extras null); the pusher sets
   * the rest and its vars (setVars), the scheduler its wait count (submit). When the table is empty
   * it may shrink, and a large one relinks its free lists in address order: free lists otherwise
   * hand out slots and queue entries in the scattered order the last burst freed them, and with a
   * million pending ops every scattered access is a cache miss (measured: relinking took the
   * million-op window from 2.4 to 3.3 M ops/s).
   */
  alloc(flags: number, home: number): number {
    if (this.live === 0) {
      this.#maybeShrink();
      if (this.#capacity >= RELINK_OPS) this.#relink(); // no op pending: no queue entry in use
    }
    let id = this.#freeOp;
    if (id === 0) {
      this.#resize(this.#capacity * 2);
      id = this.#freeOp;
    }
    const i32 = this.i32;
    const b = id * I32;
    this.#freeOp = i32[b + NEXT] as number;
    i32[b + NEXT] = 0;
    i32[b + FLAGS] = flags;
    i32[b + LANE] = 0;
    i32[b + HOME] = home;
    if (++this.live > this.#highWater) this.#highWater = this.live;
    return id;
  }

  /**
   * Give a slot back, dropping what it references that could hold memory (function, failure, extras,
   * its `n` inline vars) so the GC can collect it; alloc and the pusher set the rest.
   */
  free(id: number, n: number): void {
    const refs = this.refs;
    const r = id * REFS;
    refs[r + FN] = null;
    refs[r + EXC] = null;
    refs[r + EXTRA] = null;
    for (let k = 0, m = n <= INLINE_VARS ? n : 0; k < m; k++) refs[r + VARS + k] = null;
    this.i32[id * I32 + NEXT] = this.#freeOp;
    this.#freeOp = id;
    --this.live;
  }

  /** The op's extras, made on first use. */
  extra(id: number): OpExtra {
    const r = id * REFS + EXTRA;
    let x = this.refs[r] as OpExtra | null;
    if (x === null) {
      x = { bigVars: null, profArgs: null, prof: null };
      this.refs[r] = x;
    }
    return x;
  }

  /** Set the op's var counts (its vars are already in place). */
  setCounts(id: number, numConst: number, numRW: number, n: number): void {
    const b = id * I32;
    this.i32[b + NCONST] = numConst;
    this.i32[b + NRW] = numRW;
    this.i32[b + NVARS] = n;
  }

  /** Store the op's vars (reads, read-writes, writes) from `vars[0, n)`. */
  setVars(id: number, vars: readonly Var[], numConst: number, numRW: number, n: number): void {
    this.setCounts(id, numConst, numRW, n);
    if (n <= INLINE_VARS) {
      const refs = this.refs;
      const r = id * REFS + VARS;
      for (let k = 0; k < n; k++) refs[r + k] = vars[k];
    } else {
      this.extra(id).bigVars = vars.slice(0, n);
    }
  }

  /** Var `k` of op `id` (slow path; hot loops index `refs` or `bigVars` directly). */
  varAt(id: number, k: number): Var {
    const n = this.i32[id * I32 + NVARS] as number;
    return (
      n <= INLINE_VARS
        ? this.refs[id * REFS + VARS + k]
        : ((this.refs[id * REFS + EXTRA] as OpExtra).bigVars as Var[])[k]
    ) as Var;
  }

  // ---- var queues (MXNet ThreadedVar on entry indices) ----

  #allocQ(): number {
    let e = this.#freeQ;
    if (e === 0) {
      this.#growQ();
      e = this.#freeQ;
    }
    const q = this.q;
    this.#freeQ = q[e * 2 + 1] as number;
    q[e * 2] = 0;
    q[e * 2 + 1] = 0;
    return e;
  }

  #freeQEntry(e: number): void {
    this.q[e * 2 + 1] = this.#freeQ;
    this.#freeQ = e;
  }

  /** Queue a read of `v` by `op`; decrements the op's wait at once when no write is pending. */
  appendRead(v: Var, op: number): void {
    if (v.pendingWrite === 0) {
      ++v.numPendingReads;
      this.i32[op * I32 + WAIT] = (this.i32[op * I32 + WAIT] as number) - 1;
      return;
    }
    const e = this.#allocQ();
    const q = this.q;
    const head = v.head;
    q[head * 2] = op << 1;
    q[head * 2 + 1] = e;
    v.head = e;
  }

  /** Queue a write of `v` by `op`; decrements the op's wait at once when nothing is pending. */
  appendWrite(v: Var, op: number): void {
    const e = this.#allocQ();
    if (v.pendingWrite === 0) {
      const placeholder = this.#allocQ();
      const q = this.q;
      q[e * 2] = (op << 1) | 1;
      q[e * 2 + 1] = placeholder;
      v.head = placeholder;
      v.pendingWrite = e;
      if (v.numPendingReads === 0) {
        this.i32[op * I32 + WAIT] = (this.i32[op * I32 + WAIT] as number) - 1;
        v.numPendingReads = WRITE_TRIGGERED;
      }
      return;
    }
    const q = this.q;
    const head = v.head;
    q[head * 2] = (op << 1) | 1;
    q[head * 2 + 1] = e;
    v.head = e;
  }

  /** A read of `v` finished; may release the pending write. */
  completeRead(v: Var, ready: ReadyFn): void {
    if (--v.numPendingReads === 0 && v.pendingWrite !== 0) {
      v.numPendingReads = WRITE_TRIGGERED;
      const op = (this.q[v.pendingWrite * 2] as number) >> 1;
      const w = op * I32 + WAIT;
      const left = (this.i32[w] as number) - 1;
      this.i32[w] = left;
      if (left === 0) ready(op);
    }
  }

  /** A write of `v` finished; releases the reads queued behind it, or the next write. */
  completeWrite(v: Var, ready: ReadyFn): void {
    ++v.completedWrites;
    const q = this.q;
    const i32 = this.i32;
    const old = v.pendingWrite;
    const head = v.head;
    if (v.dead) {
      // The delete op is the last access of a deleted var: its queue is [old, placeholder].
      this.#freeQEntry(old);
      this.#freeQEntry(head);
      v.head = 0;
      v.pendingWrite = 0;
      v.numPendingReads = 0;
      return;
    }
    let end = q[old * 2 + 1] as number;
    let reads = 0;
    while (end !== head && ((q[end * 2] as number) & 1) === 0) {
      ++reads;
      end = q[end * 2 + 1] as number;
    }
    let triggerWrite = 0;
    if (end === head) {
      v.pendingWrite = 0;
      v.head = 0;
      v.numPendingReads = reads;
    } else {
      v.pendingWrite = end;
      if (reads === 0) {
        v.numPendingReads = WRITE_TRIGGERED;
        triggerWrite = (q[end * 2] as number) >> 1;
      } else {
        v.numPendingReads = reads;
      }
    }
    let cur = q[old * 2 + 1] as number;
    this.#freeQEntry(old);
    while (cur !== end) {
      const op = (q[cur * 2] as number) >> 1;
      const next = q[cur * 2 + 1] as number;
      this.#freeQEntry(cur);
      const w = op * I32 + WAIT;
      const left = (i32[w] as number) - 1;
      i32[w] = left;
      if (left === 0) ready(op);
      cur = next;
    }
    if (end === head) this.#freeQEntry(head); // queue empty: drop the placeholder
    if (triggerWrite !== 0) {
      const w = triggerWrite * I32 + WAIT;
      const left = (i32[w] as number) - 1;
      i32[w] = left;
      if (left === 0) ready(triggerWrite);
    }
  }

  // ---- sizing ----

  /**
   * Called when no op is in flight: give memory back after a burst (keep room for twice the most
   * ops in flight seen since the table was last empty, so a steady workload never reallocates).
   */
  #maybeShrink(): void {
    const recent = Math.max(this.#highWater, this.#lastHighWater, MIN_OPS);
    this.#lastHighWater = this.#highWater;
    this.#highWater = 0;
    if (this.#capacity > 4 * recent) this.#resize(2 ** Math.ceil(Math.log2(2 * recent)), true);
  }

  /** Free lists in increasing order (the table must be empty). */
  #relink(): void {
    const i32 = this.i32;
    const cap = this.#capacity;
    for (let id = 1; id < cap; id++) i32[id * I32 + NEXT] = id + 1 < cap ? id + 1 : 0;
    this.#freeOp = 1;
    const q = this.q;
    const entries = q.length / 2;
    for (let e = 1; e < entries; e++) q[e * 2 + 1] = e + 1 < entries ? e + 1 : 0;
    this.#freeQ = 1;
  }

  /**
   * Grow to `capacity` slots, copying (only when the free list is empty), or start over empty at
   * that size (`fresh`: only when no slot and no queue entry is in use).
   */
  #resize(capacity: number, fresh = false): void {
    const old = fresh ? 0 : this.#capacity;
    const i32 = new Int32Array(capacity * I32);
    const f64 = new Float64Array(capacity * F64);
    const refs: unknown[] = new Array(capacity * REFS).fill(null);
    if (old > 0) {
      i32.set(this.i32);
      f64.set(this.f64);
      const from = this.refs;
      for (let k = 0; k < from.length; k++) refs[k] = from[k];
    }
    // Slot 0 means "none"; the new slots form the free list in increasing order.
    const first = Math.max(old, 1);
    for (let id = first; id < capacity; id++) i32[id * I32 + NEXT] = id + 1 < capacity ? id + 1 : 0;
    this.#freeOp = first;
    this.i32 = i32;
    this.f64 = f64;
    this.refs = refs;
    this.#capacity = capacity;
    if (fresh || this.q.length === 0) {
      this.q = new Int32Array(0);
      this.#freeQ = 0;
      this.#growQ(capacity * 2);
    }
  }

  /** Grow the queue entries to `entries` (default: double), copying; only with an empty free list. */
  #growQ(entries = this.q.length): void {
    const oldEntries = this.q.length / 2;
    const total = Math.max(entries, oldEntries + 1, 2);
    const q = new Int32Array(total * 2);
    q.set(this.q);
    const first = Math.max(oldEntries, 1);
    for (let e = first; e < total; e++) q[e * 2 + 1] = e + 1 < total ? e + 1 : 0;
    this.#freeQ = first;
    this.q = q;
  }
}
