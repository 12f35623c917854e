/**
 * The storage-manager contract inside `@mx/storage`, and the out-of-memory error both managers throw.
 *
 * `Storage` owns one manager per device and only routes calls: validation of sizes and handles
 * happens there once, so managers trust their inputs and keep the hot path to bucket arithmetic and
 * counter bumps. A manager is also the handle's owner (see handle.ts), so free() needs no lookup.
 */
import { type Context, MXNetError } from '@mx/base';
import type { HandleOwner, StorageHandle } from '../handle.js';
import type { ManagerName, StorageStats } from './stats.js';

/** One device's storage manager (MXNet's `StorageManager`). */
export interface StorageManager extends HandleOwner {
  readonly name: ManagerName;
  readonly ctx: Context;
  /** Allocate `size` > 0 bytes; failure throws, or with `failsafe` returns a null-dptr handle. */
  alloc(size: number, name: string, failsafe: boolean): StorageHandle;
  /** Return a live handle's block to the pool (already validated and marked freed by Storage). */
  free(handle: StorageHandle): void;
  /** Return a live handle's block straight to the device allocator. */
  directFree(handle: StorageHandle): void;
  /** Return every cached block to the device allocator. */
  releaseAll(): void;
  /** True while the manager itself is asking the device for a block. */
  readonly inDevice: boolean;
  /**
   * An allocation made on this manager's device outside Storage (a kernel's scratch space) failed:
   * ask the pressure owner to reclaim, then return the cache to the device.
   */
  relieveDirect(size: number): void;
  stats(): StorageStats;
}

/** A byte count for messages: `512 B`, `1.5 MiB`. */
export function formatSize(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(1)} ${units[u]}`;
}

/** The exact count with its size: `1572864 B (1.5 MiB)`. */
export function formatBytes(n: number): string {
  return n < 1024 ? `${n} B` : `${n} B (${formatSize(n)})`;
}

export interface AllocFailure {
  readonly ctx: Context;
  readonly manager: ManagerName;
  readonly allocator: string;
  readonly name: string;
  readonly size: number;
  readonly rounded: number;
  readonly bytesInUse: number;
  readonly bytesPooled: number;
  readonly cause: unknown;
  /** What holds the memory (from the pressure owner's `describe`), appended to the message. */
  readonly report?: string;
  /** True when the owner was asked to reclaim before this failure. */
  readonly reclaimed?: boolean;
}

/** MXNet's "Memory allocation failed", with what was asked, what the pool holds, and what to do. */
export function allocFailedError(f: AllocFailure): MXNetError {
  const steps = [
    ...(f.manager === 'Unpooled' ? [] : ['releasing the pool cache']),
    ...(f.reclaimed === true ? ['reclaiming unreachable arrays'] : []),
  ];
  const retried = steps.length === 0 ? '' : ` after ${steps.join(' and ')} and retrying`;
  const report = f.report === undefined || f.report === '' ? '' : `\n${f.report}`;
  return new MXNetError(
    `Memory allocation failed${retried}: requested ${formatBytes(f.size)}, ` +
      `rounded to ${formatBytes(f.rounded)}, for "${f.name}" from the ${f.allocator} allocator; ` +
      `in use ${formatBytes(f.bytesInUse)}, cached in pool ${formatBytes(f.bytesPooled)}${report}`,
    {
      op: 'Storage.alloc',
      params: { size: f.size, rounded: f.rounded, name: f.name, manager: f.manager },
      device: f.ctx.toString(),
      hint:
        'free arrays you no longer need (dispose them), call releaseAll(ctx) to return cached blocks, ' +
        'or use a smaller batch size; pass failsafe: true to get a null pointer instead of this error',
      cause: f.cause,
    },
  );
}
