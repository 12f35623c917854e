/**
 * The memory safety net of a runtime: arrays that are dropped without `dispose()` are still freed,
 * and a program that leaks gets an out-of-memory error that says where the memory went.
 *
 * Three parts work together:
 * - a FinalizationRegistry that releases an unreachable array's chunk (the runtime registers each
 *   array at the end of the task that made it; see Runtime.track);
 * - @mx/storage's pressure hook: when a device allocation would take a device's bytes in use past
 *   its high-water mark, or the device is out of memory, Storage calls `reclaim` before going on.
 *   Reclaiming forces a major GC and runs the finalizers synchronously (memory/gc.ts), so the
 *   blocks of unreachable arrays are back in the pool when the allocation is retried — also in a
 *   loop that never yields (`dataSync()`), where finalizers would otherwise never run. The mark
 *   then moves to max(highWaterMark, growth × bytes still in use), so a program that really keeps
 *   3 GB alive reclaims once per doubling of its live memory, never once per allocation;
 * - the record of live chunks (memory/live-chunks.ts), kept from the first reclaim on, which names
 *   the allocation sites (with sampled creation stacks) in the out-of-memory error.
 *
 * Policy knobs are `RuntimeOptions.memory` (no MXNet setting covers this: MXNet frees on the
 * C++ destructor and needs no collector).
 */
import { type Context, MXNetError } from '@mx/base';
import {
  DEFAULT_GROWTH,
  DEFAULT_HIGH_WATER_MARK,
  type MemoryPressure,
  type PressureOptions,
} from '@mx/storage';
import type { Chunk } from '../chunk.js';
import { type GcHooks, gcHooks, type Registry } from './gc.js';
import { LiveChunks } from './live-chunks.js';

/** The memory safety net's settings (`RuntimeOptions.memory`). */
export interface MemoryOptions {
  /**
   * Bytes in use per device past which a new device allocation first reclaims unreachable arrays
   * (a forced GC where the platform allows it). Default 64 MiB.
   */
  readonly highWaterMark?: number;
  /** After a reclaim the next mark is max(highWaterMark, growth × bytes still in use). Default 2. */
  readonly growth?: number;
  /** Force a major GC when reclaiming (Node, Bun; browsers cannot). Default true. */
  readonly forceGc?: boolean;
  /**
   * Once a device has passed its high-water mark, new arrays are recorded for out-of-memory reports;
   * one in this many gets a creation stack. Default 64; 0 records no stacks.
   */
  readonly stackSampleEvery?: number;
  /** Small arrays (≤ 2 KiB) share slabs instead of taking a 4 KiB page each. Default true. */
  readonly smallObjects?: boolean;
}

function checkPositive(value: number | undefined, name: string, min: number): void {
  if (value !== undefined && !(typeof value === 'number' && value >= min && Number.isFinite(value))) {
    throw new MXNetError(`memory.${name} must be a finite number >= ${min}, got ${String(value)}`, {
      op: 'createRuntime',
      params: { [name]: value },
      hint: `leave memory.${name} out for the default`,
    });
  }
}

export class SafetyNet {
  readonly hooks: GcHooks;
  readonly registry: Registry<Chunk>;
  readonly live = new LiveChunks();
  readonly #options: MemoryOptions;
  readonly #beforeCollect: () => void;
  readonly #liveChunks: () => number;

  /**
   * `onFinalize` runs for each unreachable array's chunk; `beforeCollect` runs before a forced GC
   * (the runtime hands its nursery of not-yet-registered arrays to the registry there);
   * `liveChunks` counts the runtime's live chunks (for the report's unrecorded remainder).
   */
  constructor(
    options: MemoryOptions,
    onFinalize: (chunk: Chunk) => void,
    beforeCollect: () => void,
    liveChunks: () => number,
  ) {
    checkPositive(options.highWaterMark, 'highWaterMark', 0);
    checkPositive(options.growth, 'growth', 1);
    checkPositive(options.stackSampleEvery, 'stackSampleEvery', 0);
    this.#options = options;
    this.#beforeCollect = beforeCollect;
    this.#liveChunks = liveChunks;
    this.hooks = gcHooks(options.forceGc ?? true);
    this.registry = new this.hooks.FinalizationRegistry<Chunk>(onFinalize);
  }

  /** The `pressure` option for the runtime's Storage. */
  storagePressure(): PressureOptions {
    return {
      reclaim: (p) => this.reclaim(p),
      describe: (ctx) => this.describe(ctx),
      highWaterMark: this.#options.highWaterMark ?? DEFAULT_HIGH_WATER_MARK,
      growth: this.#options.growth ?? DEFAULT_GROWTH,
    };
  }

  /** Free what unreachable arrays hold: register the nursery, force a GC, run the finalizers now. */
  reclaim(_pressure?: MemoryPressure): void {
    this.live.recording = true;
    this.live.sampleEvery = Math.floor(this.#options.stackSampleEvery ?? 64);
    this.#beforeCollect();
    this.hooks.gc?.();
    this.registry.cleanupSome?.();
  }

  /** The out-of-memory report for `ctx` (live arrays by allocation site). */
  describe(ctx: Context): string {
    return this.live.report(ctx, this.#liveChunks() - this.live.size);
  }
}
