/**
 * HostAllocator: the default allocator for host contexts (cpu, cpu_pinned, cpu_shared).
 *
 * Each block is its own `ArrayBuffer` (`SharedArrayBuffer` for cpu_shared, so worker threads can map
 * it, which is what MXNet's CPUSharedStorageManager is for); the pointer is the buffer itself and
 * any typed array can view it. The JS engine already aligns buffers (16 bytes on 64-bit, MXNet's CPU
 * alignment) and zero-fills them. The optional `maxBytes` simulates a device capacity: allocations
 * past it fail with null and `memoryInfo()` reports it, which drives the pool's OOM and reserve
 * logic in tests and lets an application cap host memory. Without it there is no `memoryInfo`
 * (JS cannot see free host memory portably), so pools skip their reserve check, like MXNet's CPU.
 */
import { MXNetError } from '@mx/base';
import type { DeviceAllocator, MemoryInfo } from './device-allocator.js';

export interface HostAllocatorOptions {
  /** Allocate `SharedArrayBuffer`s (cpu_shared). Default false. */
  readonly shared?: boolean;
  /** Simulated capacity in bytes: alloc returns null past it, and `memoryInfo()` reports it. */
  readonly maxBytes?: number;
}

/** Host memory as one ArrayBuffer (or SharedArrayBuffer) per block. */
export class HostAllocator implements DeviceAllocator<ArrayBuffer | SharedArrayBuffer> {
  readonly name: string;
  readonly alignment = 16;
  /** Present only with `maxBytes`. */
  readonly memoryInfo?: () => MemoryInfo;
  readonly #shared: boolean;
  readonly #maxBytes: number;
  #usedBytes = 0;

  constructor(options: HostAllocatorOptions = {}) {
    const { shared = false, maxBytes } = options;
    if (maxBytes !== undefined && !(Number.isSafeInteger(maxBytes) && maxBytes >= 0)) {
      throw new MXNetError(`maxBytes must be a non-negative safe integer, got ${maxBytes}`, {
        op: 'HostAllocator',
        params: { maxBytes },
      });
    }
    if (shared && typeof SharedArrayBuffer === 'undefined') {
      throw new MXNetError('SharedArrayBuffer is not available in this environment', {
        op: 'HostAllocator',
        params: { shared },
        hint: 'in a browser, serve the page cross-origin isolated (COOP/COEP headers) to use cpu_shared',
      });
    }
    this.#shared = shared;
    this.#maxBytes = maxBytes ?? Number.POSITIVE_INFINITY;
    this.name = shared ? 'host-shared' : 'host';
    if (maxBytes !== undefined) {
      this.memoryInfo = () => ({ free: this.#maxBytes - this.#usedBytes, total: this.#maxBytes });
    }
  }

  /** Bytes currently handed out. */
  get usedBytes(): number {
    return this.#usedBytes;
  }

  alloc(size: number): ArrayBuffer | SharedArrayBuffer | null {
    if (this.#usedBytes + size > this.#maxBytes) return null;
    // A RangeError from the engine (too large, out of memory) propagates; the pool treats it as OOM.
    const buf = this.#shared ? new SharedArrayBuffer(size) : new ArrayBuffer(size);
    this.#usedBytes += size;
    return buf;
  }

  free(_ptr: ArrayBuffer | SharedArrayBuffer, size: number): void {
    // The garbage collector reclaims the buffer once the last view of it is gone.
    this.#usedBytes -= size;
  }
}
