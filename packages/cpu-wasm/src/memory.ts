/**
 * WasmMemory: every cpu-wasm array lives in one shared, growable `WebAssembly.Memory`.
 *
 * One memory means kernels address any array with a plain i32 pointer, a single generated module
 * serves every call, and worker threads see the same bytes (shared memory) so a large kernel can be
 * split across them without copies. Allocation is @mx/storage's `LinearAllocator` (offsets inside
 * the memory, best fit, coalescing), pooled above it by `Storage` like any device; when it runs out
 * it grows the memory. A grow replaces `memory.buffer`, so typed views are made on demand from
 * `buffer` (refreshed when its length changes), never kept across kernel calls.
 */
import { DType, type DTypeName, MXNetError, type StorageArray } from '@mx/base';
import { LinearAllocator } from '@mx/storage';
import type { WasmMemoryObject } from './host-types.js';

export const PAGE_BYTES = 65536;

export interface WasmMemoryOptions {
  /** Initial size in 64 KiB pages; default 256 (16 MiB). */
  readonly initialPages?: number;
  /** Maximum size in pages; default 65536 (4 GiB, the wasm32 limit). */
  readonly maximumPages?: number;
  /**
   * Shared memory (needed for worker threads). Default: when SharedArrayBuffer is usable — in
   * browsers only on cross-origin-isolated pages (COOP/COEP headers); otherwise a plain memory and no
   * threads.
   */
  readonly shared?: boolean;
}

/** True when a shared WebAssembly.Memory can be created here. */
export function canShareMemory(): boolean {
  try {
    return (
      new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }).buffer instanceof SharedArrayBuffer
    );
  } catch {
    return false;
  }
}

export class WasmMemory {
  readonly memory: WasmMemoryObject;
  readonly allocator: LinearAllocator;
  readonly maximumPages: number;
  readonly shared: boolean;
  #buffer: ArrayBufferLike;

  constructor(options: WasmMemoryOptions = {}) {
    const initial = options.initialPages ?? 256;
    this.maximumPages = options.maximumPages ?? 65536;
    this.shared = options.shared ?? canShareMemory();
    this.memory = new WebAssembly.Memory({ initial, maximum: this.maximumPages, shared: this.shared });
    this.#buffer = this.memory.buffer;
    this.allocator = new LinearAllocator({
      name: 'wasm',
      capacity: initial * PAGE_BYTES,
      // 64-byte alignment: a cache line, and every SIMD load of a fresh array is aligned.
      alignment: 64,
      maxCapacity: this.maximumPages * PAGE_BYTES,
      grow: (minCapacity) => this.#grow(minCapacity),
    });
  }

  #grow(minCapacity: number): number | null {
    const have = this.memory.buffer.byteLength / PAGE_BYTES;
    const want = Math.ceil(minCapacity / PAGE_BYTES);
    // Grow geometrically (x1.5) so a run of growing allocations does not grow one page at a time.
    const target = Math.min(this.maximumPages, Math.max(want, Math.ceil(have * 1.5)));
    if (target < want) return null;
    try {
      this.memory.grow(target - have);
    } catch {
      return null;
    }
    this.#buffer = this.memory.buffer;
    return this.#buffer.byteLength;
  }

  /** The current buffer (replaced when the memory grows, also by another thread). */
  get buffer(): ArrayBufferLike {
    const b = this.#buffer;
    if (b.byteLength !== (this.memory.buffer as ArrayBufferLike).byteLength)
      this.#buffer = this.memory.buffer;
    return this.#buffer;
  }

  /** A typed view of `length` elements of `dtype` at byte address `address`. */
  view(dtype: DTypeName, address: number, length: number): StorageArray {
    const info = DType[dtype];
    if (address % info.bytes !== 0) {
      throw new MXNetError(`misaligned ${dtype} view at byte ${address}`, { op: 'WasmMemory.view' });
    }
    return new info.storage(this.buffer, address, length);
  }

  /** Bytes currently reserved by the memory. */
  get byteLength(): number {
    return this.buffer.byteLength;
  }
}
