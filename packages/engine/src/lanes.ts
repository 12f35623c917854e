/**
 * Lanes: where ready ops wait for their turn to run, per context and kind — the JavaScript stand-in
 * for MXNet's per-device worker pools (ThreadedEnginePerDevice).
 *
 * A lane has `slots`: how many of its ops may be in flight at once (MXNet's thread counts, e.g.
 * MXNET_GPU_WORKER_NTHREADS). A synchronous op holds its slot only while it runs on the event loop;
 * an asynchronous op (device queue, worker, I/O) holds it until `onComplete`, which is what bounds
 * in-flight device work per context. Worker lanes are FIFO (MXNet: "worker queues are FIFO"); copy
 * and prioritized lanes are ordered by priority, then push order. deleteVar ops jump the queue.
 * Ops are slots of the engine's OpTable: a FIFO lane links them through the slot's NEXT field, a
 * priority lane keeps a binary heap of slot ids.
 */
import type { Context, Env } from '@mx/base';
import { FnProperty } from './fn-property.js';
import { F64, FLAGS, I32, NEXT, type OpTable, PRIORITY, PROP_SHIFT, SEQ } from './op-table.js';

export type LaneKind = 'worker' | 'copy' | 'priority';

const KIND_INDEX: Readonly<Record<LaneKind, number>> = { worker: 0, copy: 1, priority: 2 };

/** The lane kind an op with property `prop` runs in. */
export function laneKindOf(prop: number): LaneKind {
  switch (prop) {
    case FnProperty.copyFromGPU:
    case FnProperty.copyToGPU:
      return 'copy';
    case FnProperty.cpuPrioritized:
    case FnProperty.gpuPrioritized:
      return 'priority';
    default:
      return 'worker';
  }
}

/** Unique key of (ctx, kind) for lane maps. */
export function laneKey(ctx: Context, kind: LaneKind): number {
  return ctx.key * 4 + KIND_INDEX[kind];
}

/** The FnProperty of op `id`. */
function propOf(t: OpTable, id: number): number {
  return ((t.i32[id * I32 + FLAGS] as number) >> PROP_SHIFT) & 15;
}

/** Priority order: higher priority first, deleteVar first of all, then push order. */
function before(t: OpTable, a: number, b: number): boolean {
  const f = t.f64;
  const pa =
    propOf(t, a) === FnProperty.deleteVar ? Number.POSITIVE_INFINITY : (f[a * F64 + PRIORITY] as number);
  const pb =
    propOf(t, b) === FnProperty.deleteVar ? Number.POSITIVE_INFINITY : (f[b * F64 + PRIORITY] as number);
  return pa > pb || (pa === pb && (f[a * F64 + SEQ] as number) < (f[b * F64 + SEQ] as number));
}

/** Slots of a lane: MXNet's thread counts for the device and kind (MXNET_*_NTHREADS). */
export function laneSlots(env: Env, ctx: Context, kind: LaneKind): number {
  const gpu = ctx.deviceType === 'gpu';
  switch (kind) {
    case 'copy':
      return env.get('MXNET_GPU_COPY_NTHREADS');
    case 'priority':
      return gpu ? env.get('MXNET_GPU_WORKER_NTHREADS') : env.get('MXNET_CPU_PRIORITY_NTHREADS');
    default:
      return gpu ? env.get('MXNET_GPU_WORKER_NTHREADS') : env.get('MXNET_CPU_WORKER_NTHREADS');
  }
}

export class Lane {
  /** Ops of this lane currently running or in flight. */
  inFlight = 0;
  /** True while the lane sits in the engine's runnable list. */
  scheduled = false;
  /** Link in the engine's runnable list. */
  nextRunnable: Lane | null = null;
  readonly #ordered: boolean;
  readonly #table: OpTable;
  // FIFO (intrusive list through the slots' NEXT field; 0 = none)
  #head = 0;
  #tail = 0;
  // priority heap of slot ids
  readonly #heap: number[] = [];
  #size = 0;

  constructor(
    readonly ctx: Context,
    readonly kind: LaneKind,
    readonly slots: number,
    /** Small integer naming the lane in profiles (Chrome trace `tid`); also its index + 1 in the engine. */
    readonly tid: number,
    table: OpTable,
  ) {
    this.#ordered = kind !== 'worker';
    this.#table = table;
  }

  get size(): number {
    return this.#size;
  }

  /** True when an op is waiting and a slot is free. */
  get canStart(): boolean {
    return this.#size > 0 && this.inFlight < this.slots;
  }

  push(id: number): void {
    ++this.#size;
    if (this.#ordered) {
      this.#heapPush(id);
      return;
    }
    const i32 = this.#table.i32;
    if (propOf(this.#table, id) === FnProperty.deleteVar) {
      i32[id * I32 + NEXT] = this.#head;
      this.#head = id;
      if (this.#tail === 0) this.#tail = id;
    } else {
      i32[id * I32 + NEXT] = 0;
      if (this.#tail === 0) this.#head = id;
      else i32[this.#tail * I32 + NEXT] = id;
      this.#tail = id;
    }
  }

  /** The next op to run (the lane must not be empty). */
  pop(): number {
    --this.#size;
    if (this.#ordered) return this.#heapPop();
    const i32 = this.#table.i32;
    const id = this.#head;
    this.#head = i32[id * I32 + NEXT] as number;
    if (this.#head === 0) this.#tail = 0;
    i32[id * I32 + NEXT] = 0;
    return id;
  }

  #heapPush(id: number): void {
    const h = this.#heap;
    const t = this.#table;
    let i = h.length;
    h.push(id);
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = h[p] as number;
      if (!before(t, id, parent)) break;
      h[i] = parent;
      i = p;
    }
    h[i] = id;
  }

  #heapPop(): number {
    const h = this.#heap;
    const t = this.#table;
    const top = h[0] as number;
    const last = h.pop() as number;
    const n = h.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && before(t, h[r] as number, h[l] as number) ? r : l;
        const child = h[c] as number;
        if (!before(t, child, last)) break;
        h[i] = child;
        i = c;
      }
      h[i] = last;
    }
    return top;
  }
}
