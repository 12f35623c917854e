/**
 * The small-object allocator's size classes and what it buys: slots are the smallest class that
 * fits, 16-byte aligned, at most 25% larger than the request above 128 B; typed views (float64,
 * int64) over slots work and never overlap; and many tiny blocks cost their class size, not a page.
 * Slab bookkeeping against a model is in storage.model.test.ts.
 */
import { cpu, Env, gpu } from '@mx/base';
import { describe, expect, it } from 'vitest';
import type { DeviceAllocator } from '../device-allocator.js';
import { LinearAllocator } from '../linear-allocator.js';
import { Storage, type StorageHandle } from '../storage.js';
import { MAX_SMALL_BYTES, SIZE_CLASSES, sizeClassIndex, smallObjectLimit } from './small-objects.js';

describe('size classes', () => {
  it('are 16, 32, 48, then multiples of 64 (four steps per doubling above 256) up to 2 KiB', () => {
    expect(SIZE_CLASSES).toEqual([
      16, 32, 48, 64, 128, 192, 256, 320, 384, 448, 512, 640, 768, 896, 1024, 1280, 1536, 1792, 2048,
    ]);
    expect(MAX_SMALL_BYTES).toBe(2048);
  });

  it('map every size 1..2048 to the smallest class that holds it', () => {
    for (let size = 1; size <= 2048; size++) {
      const cls = SIZE_CLASSES[sizeClassIndex(size)] as number;
      const smallest = SIZE_CLASSES.find((c) => c >= size);
      expect(cls).toBe(smallest);
      expect(cls % (cls >= 64 ? 64 : 16)).toBe(0); // slots of 64 B and up start on a cache line
      if (size > 256) expect(cls / size).toBeLessThanOrEqual(1.25);
      else expect(cls - size).toBeLessThan(size > 48 ? 64 : 16);
    }
  });

  it('serve up to 2 KiB, or half a page when pages are smaller', () => {
    expect([4096, 8192, 1024, 64, 32].map(smallObjectLimit)).toEqual([2048, 2048, 512, 32, 16]);
  });
});

describe('small blocks in use', () => {
  it('give aligned, disjoint typed views for every dtype width', () => {
    const s = new Storage({ env: new Env({}) });
    const hs: StorageHandle<ArrayBuffer>[] = [];
    const sizes = [8, 1, 24, 100, 8, 2048, 7, 640, 16, 2000];
    for (let round = 0; round < 3; round++) for (const n of sizes) hs.push(s.alloc<ArrayBuffer>(n, cpu()));
    // Fill each block with its own index through a float64 (or byte) view, then check all.
    const view = (h: StorageHandle<ArrayBuffer>) =>
      h.size % 8 === 0
        ? new Float64Array(h.dptr as ArrayBuffer, h.byteOffset, h.size / 8)
        : new Uint8Array(h.dptr as ArrayBuffer, h.byteOffset, h.size);
    hs.forEach((h, i) => {
      expect(h.byteOffset % (h.actualSize >= 64 ? 64 : 16)).toBe(0);
      view(h).fill(i + 1);
      new BigInt64Array(h.dptr as ArrayBuffer, h.byteOffset, Math.floor(h.actualSize / 8)); // aligned for int64
    });
    hs.forEach((h, i) => {
      expect(view(h).every((v) => v === i + 1)).toBe(true);
    });
    for (const h of hs) s.free(h);
    expect(s.stats(cpu())).toMatchObject({ liveHandles: 0, bytesInUse: 0 });
  });

  it('100,000 queued 4-byte results take 1.6 MB of slabs, not 400 MB of pages', () => {
    const s = new Storage({ env: new Env({}) });
    const hs = Array.from({ length: 100_000 }, () => s.alloc(4, cpu()));
    const st = s.stats(cpu());
    expect(st.bytesInUse).toBe(100_000 * 16);
    expect(st.bytesReserved).toBe(Math.ceil((100_000 * 16) / 65536) * 65536);
    for (const h of hs) s.free(h);
    // Emptied slabs went back to the pool, one per class stays; releaseAll returns them all.
    s.releaseAll(cpu());
    expect(s.stats(cpu())).toMatchObject({ bytesReserved: 0, liveHandles: 0 });

    const pages = new Storage({ env: new Env({}), smallObjects: false });
    const ps = Array.from({ length: 1000 }, () => pages.alloc(4, cpu()));
    expect(pages.stats(cpu()).bytesReserved).toBe(1000 * 4096);
    for (const h of ps) pages.free(h);
  });

  it('a device allocator can opt out (smallObjects: false): each small block gets its own page', () => {
    const linear = new LinearAllocator({ capacity: 2 ** 20, base: 0 });
    const s = new Storage({
      env: new Env({}),
      allocators: {
        gpu: (): DeviceAllocator<number> => ({
          name: 'one-type-per-buffer',
          alignment: 16,
          smallObjects: false,
          alloc: (n) => linear.alloc(n),
          free: (p, n) => linear.free(p, n),
        }),
      },
    });
    const a = s.alloc<number>(4, gpu());
    const b = s.alloc<number>(4, gpu());
    expect([a.actualSize, a.byteOffset, b.byteOffset]).toEqual([4096, 0, 0]);
    expect(b.dptr).not.toBe(a.dptr);
    s.free(a);
    s.free(b);
  });
});
