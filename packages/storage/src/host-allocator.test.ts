/** HostAllocator: buffer kinds, the simulated capacity, and memoryInfo only when capacity is known. */
import { MXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { HostAllocator } from './host-allocator.js';

describe('HostAllocator', () => {
  it('allocates zeroed ArrayBuffers of the requested size', () => {
    const a = new HostAllocator();
    const buf = a.alloc(100) as ArrayBuffer;
    expect(buf).toBeInstanceOf(ArrayBuffer);
    expect(buf.byteLength).toBe(100);
    expect(new Uint8Array(buf).every((x) => x === 0)).toBe(true);
    expect(a.usedBytes).toBe(100);
    a.free(buf, 100);
    expect(a.usedBytes).toBe(0);
    expect(a.memoryInfo).toBeUndefined();
    expect([a.name, a.alignment]).toEqual(['host', 16]);
  });

  it('allocates SharedArrayBuffers when shared (cpu_shared)', () => {
    const a = new HostAllocator({ shared: true });
    const buf = a.alloc(64);
    expect(buf).toBeInstanceOf(SharedArrayBuffer);
    expect(a.name).toBe('host-shared');
  });

  it('returns null past maxBytes and reports it through memoryInfo', () => {
    const a = new HostAllocator({ maxBytes: 1000 });
    const x = a.alloc(600) as ArrayBuffer;
    expect(a.alloc(500)).toBeNull();
    expect(a.memoryInfo?.()).toEqual({ free: 400, total: 1000 });
    a.free(x, 600);
    expect(a.alloc(1000)).not.toBeNull();
    expect(a.memoryInfo?.()).toEqual({ free: 0, total: 1000 });
  });

  it('rejects a bad maxBytes', () => {
    expect(() => new HostAllocator({ maxBytes: -1 })).toThrow(MXNetError);
    expect(() => new HostAllocator({ maxBytes: 1.5 })).toThrow(/maxBytes/);
  });
});
