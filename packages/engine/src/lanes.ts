/**
 * Lanes: where ready ops wait for their turn to run, per context and kind — the JavaScript stand-in
 * for MXNet's per-device worker pools (ThreadedEnginePerDevice).
 *
 * A lane has `slots`: how many of its ops may be in flight at once (MXNet's thread counts, e.g.
 * MXNET_GPU_WORKER_NTHREADS). A synchronous op holds its slot only while it runs on the event loop;
 * an asynchronous op (device queue, worker, I/O) holds it until `onComplete`, which is what bounds
 * in-flight device work per context. Worker lanes are FIFO (MXNet: "worker queues are FIFO"); copy
 * and prioritized lanes are ordered by priority, then push order. deleteVar ops jump the queue.
 */
import type { Context, Env } from '@mx/base';
import { FnProperty } from './fn-property.js';
import type { OprBlock } from './opr.js';

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

/** Priority order: higher priority first, deleteVar first of all, then push order. */
function before(a: OprBlock, b: OprBlock): boolean {
  const pa = a.prop === FnProperty.deleteVar ? Number.POSITIVE_INFINITY : a.priority;
  const pb = b.prop === FnProperty.deleteVar ? Number.POSITIVE_INFINITY : b.priority;
  return pa > pb || (pa === pb && a.seq < b.seq);
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
  // FIFO (intrusive list through OprBlock.next)
  #head: OprBlock | null = null;
  #tail: OprBlock | null = null;
  // priority heap
  readonly #heap: OprBlock[] = [];
  #size = 0;

  constructor(
    readonly ctx: Context,
    readonly kind: LaneKind,
    readonly slots: number,
    /** Small integer naming the lane in profiles (Chrome trace `tid`). */
    readonly tid: number,
  ) {
    this.#ordered = kind !== 'worker';
  }

  get size(): number {
    return this.#size;
  }

  /** True when an op is waiting and a slot is free. */
  get canStart(): boolean {
    return this.#size > 0 && this.inFlight < this.slots;
  }

  push(block: OprBlock): void {
    ++this.#size;
    if (this.#ordered) {
      this.#heapPush(block);
      return;
    }
    block.next = null;
    if (block.prop === FnProperty.deleteVar) {
      block.next = this.#head;
      this.#head = block;
      if (this.#tail === null) this.#tail = block;
    } else if (this.#tail === null) {
      this.#head = this.#tail = block;
    } else {
      this.#tail.next = block;
      this.#tail = block;
    }
  }

  pop(): OprBlock | null {
    if (this.#size === 0) return null;
    --this.#size;
    if (this.#ordered) return this.#heapPop();
    const b = this.#head as OprBlock;
    this.#head = b.next;
    if (this.#head === null) this.#tail = null;
    b.next = null;
    return b;
  }

  #heapPush(b: OprBlock): void {
    const h = this.#heap;
    let i = h.length;
    h.push(b);
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = h[p] as OprBlock;
      if (!before(b, parent)) break;
      h[i] = parent;
      i = p;
    }
    h[i] = b;
  }

  #heapPop(): OprBlock {
    const h = this.#heap;
    const top = h[0] as OprBlock;
    const last = h.pop() as OprBlock;
    const n = h.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && before(h[r] as OprBlock, h[l] as OprBlock) ? r : l;
        const child = h[c] as OprBlock;
        if (!before(child, last)) break;
        h[i] = child;
        i = c;
      }
      h[i] = last;
    }
    return top;
  }
}
