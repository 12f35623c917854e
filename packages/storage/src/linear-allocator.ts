/**
 * LinearAllocator: an offset allocator over one address range [base, capacity).
 *
 * cpu-wasm keeps every CPU array inside one `WebAssembly.Memory` and webgpu sub-allocates large
 * buffers; both need to carve numbered offsets out of a range, which is what this does. Pointers are
 * byte offsets (numbers). Offset 0 is never handed out by default (`base` = alignment), so 0 can
 * mean null in generated kernels.
 *
 * Shape: a bump pointer (`top`) plus a free list below it. Freed blocks coalesce with free
 * neighbours on both sides (O(1) through two maps: start → size and end → start), and a block that
 * ends at `top` lowers `top` instead of entering the list, so freeing everything always gives back
 * the single block [base, capacity).
 *
 * Fit policy: best fit, over exact-size bins (size → set of starts) with a sorted array of the
 * distinct free sizes. Chosen because our callers are pools that request a handful of bucket sizes
 * again and again: the request usually hits its exact bin (O(1)), and when it does not, best fit
 * splits the smallest hole that works instead of eating into the big holes large tensors need
 * (first fit would do that, and finding it in address order is a linear scan). Cost per operation:
 * O(log k) binary search over k distinct free sizes plus O(1) map/set work, and an O(k) array splice
 * only when a size appears in or disappears from the free list; k stays small in practice.
 *
 * The allocator records the size of every live block, so a double free, a foreign pointer or a
 * wrong size throws an MXNetError instead of corrupting the free list.
 */
import { MXNetError } from '@mx/base';
import type { DeviceAllocator, MemoryInfo } from './device-allocator.js';

export interface LinearAllocatorOptions {
  /** End of the address range in bytes (exclusive). */
  readonly capacity: number;
  /** Every offset and block size is a multiple of this power of 2. Default 16. */
  readonly alignment?: number;
  /** First offset handed out (a multiple of `alignment`). Default `alignment`, so 0 is never a pointer. */
  readonly base?: number;
  /**
   * Called when a request does not fit: grow the range to at least `minCapacity` bytes and return the
   * new capacity, or null when it cannot grow (e.g. `WebAssembly.Memory.grow` failed).
   */
  readonly grow?: (minCapacity: number) => number | null;
  /**
   * Capacity the range can grow to, reported as `memoryInfo().total` so a pool's reserve check sees
   * the memory it may still get. Default: `capacity` without `grow`, unbounded (check off) with it.
   */
  readonly maxCapacity?: number;
  /** Name for messages. Default `linear`. */
  readonly name?: string;
}

function isPowerOf2(x: number): boolean {
  return Number.isSafeInteger(x) && x > 0 && Number.isInteger(Math.log2(x));
}

/** Offset allocator: best fit over exact-size bins, coalescing free list, bump pointer at the top. */
export class LinearAllocator implements DeviceAllocator<number> {
  readonly name: string;
  readonly alignment: number;
  readonly base: number;
  #capacity: number;
  readonly #grow: ((minCapacity: number) => number | null) | undefined;
  #onExhausted: ((size: number) => boolean) | null = null;
  #inHandler = false;
  readonly #maxCapacity: number | undefined;
  /** First byte above every allocated or free-listed block. */
  #top: number;
  /** Live blocks: start → (aligned) size. */
  readonly #live = new Map<number, number>();
  /** Free blocks below top: start → size, and end → start (for coalescing). */
  readonly #freeStart = new Map<number, number>();
  readonly #freeEnd = new Map<number, number>();
  /** Free blocks by exact size, and the sizes present, sorted ascending. */
  readonly #bins = new Map<number, Set<number>>();
  readonly #sizes: number[] = [];
  #freeListBytes = 0;
  #usedBytes = 0;

  constructor(options: LinearAllocatorOptions) {
    const { capacity, alignment = 16, grow, maxCapacity, name = 'linear' } = options;
    const base = options.base ?? alignment;
    const fail = (message: string, hint: string): never => {
      throw new MXNetError(message, {
        op: 'LinearAllocator',
        params: { capacity, alignment, base, maxCapacity },
        hint,
      });
    };
    if (!isPowerOf2(alignment)) fail(`alignment must be a power of 2, got ${alignment}`, 'use 16 or 64');
    if (!Number.isSafeInteger(base) || base < 0 || base % alignment !== 0) {
      fail(`base must be a non-negative multiple of alignment, got ${base}`, `use base = ${alignment}`);
    }
    if (!Number.isSafeInteger(capacity) || capacity < base) {
      fail(`capacity must be a safe integer >= base, got ${capacity}`, 'pass the size of the address range');
    }
    if (maxCapacity !== undefined && !(maxCapacity >= capacity)) {
      fail(`maxCapacity must be >= capacity, got ${maxCapacity}`, 'omit maxCapacity or raise it');
    }
    this.name = name;
    this.alignment = alignment;
    this.base = base;
    this.#capacity = capacity;
    this.#grow = grow;
    this.#maxCapacity = maxCapacity ?? (grow ? undefined : capacity);
    this.#top = base;
  }

  /** Current end of the address range (grows through `grow`). */
  get capacity(): number {
    return this.#capacity;
  }

  /** Bytes in live blocks (sizes rounded up to the alignment). */
  get usedBytes(): number {
    return this.#usedBytes;
  }

  /** Bytes that can still be handed out without growing: free-list holes plus the space above top. */
  get freeBytes(): number {
    return this.#capacity - this.#top + this.#freeListBytes;
  }

  /** First byte above every live or free-listed block (the bump pointer). */
  get top(): number {
    return this.#top;
  }

  /** Number of holes in the free list (0 after everything is freed). */
  get numFreeBlocks(): number {
    return this.#freeStart.size;
  }

  /** Live block count. */
  get numLiveBlocks(): number {
    return this.#live.size;
  }

  /** Largest request that fits without growing. */
  largestFreeBlock(): number {
    const lastSize = this.#sizes.length > 0 ? (this.#sizes[this.#sizes.length - 1] as number) : 0;
    return Math.max(lastSize, this.#capacity - this.#top);
  }

  memoryInfo(): MemoryInfo {
    const total = this.#maxCapacity ?? Number.POSITIVE_INFINITY;
    return { free: total - this.#capacity + this.freeBytes, total };
  }

  /** Size of the live block at `ptr`, or undefined when `ptr` is not live. */
  blockSize(ptr: number): number | undefined {
    return this.#live.get(ptr);
  }

  setExhaustedHandler(handler: ((size: number) => boolean) | null): void {
    this.#onExhausted = handler;
  }

  alloc(size: number): number | null {
    if (!Number.isSafeInteger(size) || size < 0) {
      throw new MXNetError(`size must be a non-negative safe integer, got ${size}`, {
        op: 'LinearAllocator.alloc',
        params: { size },
      });
    }
    const n = this.#roundUp(size === 0 ? 1 : size);
    const at = this.#place(n);
    if (at !== null) return at;
    // Out of room: let the owner free what it can, then try once more (an allocation made by the
    // handler itself is served or refused without calling it again).
    const handler = this.#onExhausted;
    if (handler === null || this.#inHandler) return null;
    this.#inHandler = true;
    let retry: boolean;
    try {
      retry = handler(n);
    } finally {
      this.#inHandler = false;
    }
    return retry ? this.#place(n) : null;
  }

  /** Take `n` (rounded) bytes from a hole or the top, growing if needed; null when it cannot. */
  #place(n: number): number | null {
    let start = this.#takeFree(n);
    if (start < 0) {
      if (this.#top + n > this.#capacity && !this.#tryGrow(this.#top + n)) return null;
      start = this.#top;
      this.#top += n;
    }
    this.#live.set(start, n);
    this.#usedBytes += n;
    return start;
  }

  free(ptr: number, size: number): void {
    const n = this.#live.get(ptr);
    if (n === undefined || this.#roundUp(size === 0 ? 1 : size) !== n) {
      throw new MXNetError(
        n === undefined
          ? `free of offset ${ptr}, which is not a live block (double free or foreign pointer)`
          : `free of offset ${ptr} with size ${size}, but the block holds ${n} bytes`,
        { op: 'LinearAllocator.free', params: { ptr, size }, hint: 'free each block once, with its size' },
      );
    }
    this.#live.delete(ptr);
    this.#usedBytes -= n;
    let start = ptr;
    let end = ptr + n;
    const left = this.#freeEnd.get(start);
    if (left !== undefined) {
      this.#removeFree(left, start - left);
      start = left;
    }
    const rightSize = this.#freeStart.get(end);
    if (rightSize !== undefined) {
      this.#removeFree(end, rightSize);
      end += rightSize;
    }
    if (end === this.#top) this.#top = start;
    else this.#insertFree(start, end - start);
  }

  #roundUp(size: number): number {
    const r = size % this.alignment;
    return r === 0 ? size : size + this.alignment - r;
  }

  #tryGrow(minCapacity: number): boolean {
    if (this.#grow === undefined || !Number.isSafeInteger(minCapacity)) return false;
    if (this.#maxCapacity !== undefined && minCapacity > this.#maxCapacity) return false;
    const next = this.#grow(minCapacity);
    if (next === null) return false;
    if (!Number.isSafeInteger(next) || next < this.#capacity) {
      throw new MXNetError(
        `grow() returned ${next}; it must return a capacity >= ${this.#capacity} or null`,
        {
          op: 'LinearAllocator.grow',
          params: { minCapacity, capacity: this.#capacity },
        },
      );
    }
    this.#capacity = next;
    return next >= minCapacity;
  }

  /** Start of the best-fitting hole of at least n bytes (split off the rest), or -1. */
  #takeFree(n: number): number {
    const at = this.#sizeIndex(n);
    if (at === this.#sizes.length) return -1;
    const size = this.#sizes[at] as number;
    const bin = this.#bins.get(size) as Set<number>;
    const start = bin.values().next().value as number;
    this.#removeFree(start, size);
    // The remainder's right neighbour is live (holes coalesce, and none touches top), so no merge.
    if (size > n) this.#insertFree(start + n, size - n);
    return start;
  }

  #insertFree(start: number, size: number): void {
    this.#freeStart.set(start, size);
    this.#freeEnd.set(start + size, start);
    this.#freeListBytes += size;
    let bin = this.#bins.get(size);
    if (bin === undefined) {
      bin = new Set();
      this.#bins.set(size, bin);
      this.#sizes.splice(this.#sizeIndex(size), 0, size);
    }
    bin.add(start);
  }

  #removeFree(start: number, size: number): void {
    this.#freeStart.delete(start);
    this.#freeEnd.delete(start + size);
    this.#freeListBytes -= size;
    const bin = this.#bins.get(size) as Set<number>;
    bin.delete(start);
    if (bin.size === 0) {
      this.#bins.delete(size);
      this.#sizes.splice(this.#sizeIndex(size), 1);
    }
  }

  /** Index of the first entry of #sizes that is >= size. */
  #sizeIndex(size: number): number {
    const sizes = this.#sizes;
    let lo = 0;
    let hi = sizes.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((sizes[mid] as number) < size) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
