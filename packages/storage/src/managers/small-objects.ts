/**
 * The small-object allocator of the pooled managers: requests up to 2 KiB get a slot of their size
 * class inside a slab (one 64 KiB block taken from the pool like any other block), instead of a
 * whole pool page each. MXNet rounds every pooled block up to a page (4 KiB), which made a 1-element
 * array cost 4 KiB: a million queued scalar results needed 4 GB, wasm32's whole address space.
 *
 * Size classes are 16, 32 and 48 B, then multiples of 64 B (64, 128, 192, 256, then four per
 * doubling up to 2 KiB, so above 256 B a slot wastes at most 25%). Every slot offset is a multiple
 * of 16 (typed views of float64/int64 stay aligned), and a slot of 64 B or more starts on a 64-byte
 * boundary like the wasm allocator's own blocks (a cache line: SIMD loads of a fresh array are
 * aligned, and worker threads writing neighbouring arrays do not share lines). A slab serves one
 * class. Each slab
 * keeps its own free list of slot offsets (LIFO: the most recently freed slot is reused first) and
 * a bump index for slots never used; each class keeps the slabs that have a free slot in a list
 * and allocates from the last one. A slab whose last slot is freed goes back to the pool, unless it
 * is the only slab of its class with free slots (kept, so one small array allocated and freed in a
 * loop does not move a 64 KiB block in and out of the pool each time); `releaseAll` gives those
 * back too. Counters: a slab's bytes count as device memory held (`bytesReserved`); its slots in
 * use as `bytesInUse` (class sizes), the rest as `bytesPooled`.
 */
import type { PoolBucket, SmallSlab } from '../handle.js';

/** The block a slab is carved from, before the pool's bucket rounding. */
export const SLAB_BYTES = 65536;

/** Largest request the small-object allocator serves. */
export const MAX_SMALL_BYTES = 2048;

/** Slot sizes: 16, 32, 48, then 64, 128, 192, 256, then four steps per power of two up to 2048. */
export const SIZE_CLASSES: readonly number[] = Object.freeze(
  (() => {
    const out: number[] = [16, 32, 48, 64, 128, 192, 256];
    for (let p = 256; p < MAX_SMALL_BYTES; p *= 2) for (let q = 1; q <= 4; q++) out.push(p + (q * p) / 4);
    return out;
  })(),
);

/** Class index by 16-byte granule count ceil(size / 16), for sizes 1..2048. */
const CLASS_OF_GRANULES: Uint8Array = (() => {
  const t = new Uint8Array(MAX_SMALL_BYTES / 16 + 1);
  let c = 0;
  for (let g = 1; g < t.length; g++) {
    while ((SIZE_CLASSES[c] as number) < g * 16) c++;
    t[g] = c;
  }
  return t;
})();

/** Index into SIZE_CLASSES of the class serving `size` (1 ≤ size ≤ 2048). */
export function sizeClassIndex(size: number): number {
  return CLASS_OF_GRANULES[(size + 15) >>> 4] as number;
}

/**
 * Largest request a pool with this page size (Naive) or smallest bucket (Round) serves from slabs:
 * 2 KiB, or half a page when pages are smaller (a smaller page already wastes less).
 */
export function smallObjectLimit(page: number): number {
  return Math.min(MAX_SMALL_BYTES, Math.floor(page / 2));
}

/** One slab: a pooled block split into equal slots of one size class. */
export class Slab<P> implements SmallSlab<P> {
  readonly ptr: P;
  /** The pool bucket the block came from and returns to. */
  readonly bucket: PoolBucket<P>;
  readonly classIndex: number;
  readonly slotBytes: number;
  readonly capacity: number;
  /** Slots handed out and not freed. */
  used = 0;
  /** Position in its class's list of slabs with a free slot; -1 while full (or given up). */
  index = -1;
  #bump = 0;
  readonly #free: number[] = [];

  constructor(ptr: P, bucket: PoolBucket<P>, classIndex: number) {
    this.ptr = ptr;
    this.bucket = bucket;
    this.classIndex = classIndex;
    this.slotBytes = SIZE_CLASSES[classIndex] as number;
    this.capacity = Math.floor(bucket.bytes / this.slotBytes);
  }

  /** Byte offset of a free slot (the most recently freed one, else the next never-used one). */
  take(): number {
    this.used++;
    const free = this.#free;
    return free.length > 0 ? (free.pop() as number) : this.#bump++ * this.slotBytes;
  }

  /** Give a slot back. */
  put(offset: number): void {
    this.used--;
    this.#free.push(offset);
  }
}

/** Per size class, the slabs that have a free slot; allocation uses the last one. */
export class SlabLists<P> {
  readonly #lists: Slab<P>[][] = SIZE_CLASSES.map(() => []);

  /** The slab the next slot of class `ci` comes from, if any has room. */
  top(ci: number): Slab<P> | undefined {
    const list = this.#lists[ci] as Slab<P>[];
    return list[list.length - 1];
  }

  /** How many slabs of class `ci` have a free slot. */
  count(ci: number): number {
    return (this.#lists[ci] as Slab<P>[]).length;
  }

  add(slab: Slab<P>): void {
    const list = this.#lists[slab.classIndex] as Slab<P>[];
    slab.index = list.length;
    list.push(slab);
  }

  /** Take `slab` out of its list in O(1): the last slab moves into its place. */
  remove(slab: Slab<P>): void {
    const list = this.#lists[slab.classIndex] as Slab<P>[];
    const last = list.pop() as Slab<P>;
    if (last !== slab) {
      list[slab.index] = last;
      last.index = slab.index;
    }
    slab.index = -1;
  }

  /** Remove and return every slab with no slot in use (for releaseAll). */
  takeEmpty(): Slab<P>[] {
    const out: Slab<P>[] = [];
    for (const list of this.#lists) {
      for (let i = list.length - 1; i >= 0; i--) {
        const slab = list[i] as Slab<P>;
        if (slab.used === 0) {
          this.remove(slab);
          out.push(slab);
        }
      }
    }
    return out;
  }
}
