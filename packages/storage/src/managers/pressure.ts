/**
 * Memory pressure: when to ask the owner of the arrays to give memory back before a device grows.
 *
 * Storage cannot free anything by itself: live blocks belong to whoever holds the handles. What it
 * can do is tell that owner (the NDArray runtime) at the two moments that matter, and let it
 * reclaim synchronously (in Node: a major GC, then the finalizers of unreachable arrays free their
 * blocks into the pool) before it retries:
 *
 * - `highWater`: a device allocation (the pool has no cached block that fits) would take the bytes
 *   in use past the mark. After a reclaim the next mark is `max(highWaterMark, growth × bytesInUse)`,
 *   so a program that legitimately keeps 3 GB alive reclaims once per doubling of its live memory,
 *   not on every allocation, while a program that drops arrays without disposing them is brought
 *   back under the base mark each time it reaches it.
 * - `outOfMemory`: the device refused even after the pool released its cache; one reclaim, then
 *   the allocation is tried again (from the cache first) before "Memory allocation failed".
 *
 * The check is one comparison on the path that already calls the device, never on a pool hit. A
 * reclaim cannot nest (an allocation made while reclaiming just proceeds), and the owner's
 * `describe` adds what holds the memory (live arrays by allocation site) to the out-of-memory error.
 */
import type { Context } from '@mx/base';

/** Why Storage asks for memory back. */
export interface MemoryPressure {
  readonly ctx: Context;
  /** `highWater`: live bytes would pass the mark; `outOfMemory`: the device refused the block. */
  readonly reason: 'highWater' | 'outOfMemory';
  /** Bytes requested by the allocation that triggered it. */
  readonly requested: number;
  /** Bytes in use on the device (rounded sizes of live blocks) when it was triggered. */
  readonly bytesInUse: number;
  /** The mark in force when it was triggered. */
  readonly highWaterMark: number;
}

/** How Storage reclaims memory under pressure (the `pressure` option of `Storage`). */
export interface PressureOptions {
  /**
   * Free what can be freed, synchronously (e.g. run a GC and let finalizers free unreachable
   * arrays). Blocks freed meanwhile go back to the pool; the allocation is then retried. Errors it
   * throws are ignored.
   */
  readonly reclaim: (pressure: MemoryPressure) => void;
  /** Lines for the out-of-memory error saying what holds memory on `ctx` (e.g. live arrays by site). */
  readonly describe?: (ctx: Context) => string;
  /** Base mark in bytes of memory in use per device. Default 64 MiB. */
  readonly highWaterMark?: number;
  /** After a reclaim the next mark is max(highWaterMark, growth × bytes in use). Default 2 (≥ 1). */
  readonly growth?: number;
}

export const DEFAULT_HIGH_WATER_MARK = 64 * 2 ** 20;
export const DEFAULT_GROWTH = 2;

/** One device's high-water mark and reclaim guard. Without options it never fires. */
export class PressureValve {
  /** Bytes in use above which a device allocation triggers a reclaim. */
  mark: number;
  /** Reclaims run (both reasons). */
  reclaims = 0;
  readonly #options: PressureOptions | undefined;
  readonly #base: number;
  readonly #growth: number;
  #busy = false;

  constructor(options: PressureOptions | undefined) {
    this.#options = options;
    this.#base = options?.highWaterMark ?? DEFAULT_HIGH_WATER_MARK;
    this.#growth = Math.max(1, options?.growth ?? DEFAULT_GROWTH);
    this.mark = options === undefined ? Number.POSITIVE_INFINITY : this.#base;
  }

  /**
   * Ask the owner to reclaim; false when there is no owner or a reclaim is already running. Then
   * move the mark to max(base, growth × what is still in use).
   */
  relieve(ctx: Context, reason: MemoryPressure['reason'], requested: number, inUse: () => number): boolean {
    const options = this.#options;
    if (options === undefined || this.#busy) return false;
    this.#busy = true;
    this.reclaims++;
    try {
      options.reclaim({ ctx, reason, requested, bytesInUse: inUse(), highWaterMark: this.mark });
    } catch {
      // A failing reclaim must not turn an allocation that can still succeed into an error.
    } finally {
      this.#busy = false;
    }
    this.mark = Math.max(this.#base, this.#growth * inUse());
    return true;
  }

  /** The owner's account of what holds memory on `ctx`, or '' (never throws). */
  describe(ctx: Context): string {
    try {
      return this.#options?.describe?.(ctx) ?? '';
    } catch (e) {
      return `(describing live memory failed: ${String(e)})`;
    }
  }
}
