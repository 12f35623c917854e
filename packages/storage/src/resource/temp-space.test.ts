/**
 * TempSpaceResource: reuse while the block is big enough, exact-size growth otherwise, release,
 * all observed through Storage's own statistics.
 */
import { cpu, Env, MXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { Storage } from '../storage.js';
import { ResourceManager } from './resource-manager.js';

function setup() {
  const storage = new Storage({ env: new Env({}) });
  const rm = new ResourceManager({ storage, env: new Env({ MXNET_CPU_TEMP_COPY: '1' }), seed: 0 });
  return { storage, rm, temp: rm.tempSpace(cpu()) };
}

describe('TempSpaceResource', () => {
  it('starts empty and allocates nothing until asked', () => {
    const { storage, temp } = setup();
    expect(temp.handle).toBeNull();
    expect(temp.capacity).toBe(0);
    expect(storage.stats(cpu()).numAllocs).toBe(0);
  });

  it('returns the same block while it is big enough', () => {
    const { storage, temp } = setup();
    const h = temp.get<ArrayBuffer>(1000, 'conv_workspace');
    expect(h.size).toBe(1000);
    expect(h.name).toBe('conv_workspace');
    expect(h.ctx).toBe(cpu(0));
    expect(h.dptr).toBeInstanceOf(ArrayBuffer);
    expect(h.dptr!.byteLength).toBeGreaterThanOrEqual(1000);
    expect(temp.get(1000)).toBe(h);
    expect(temp.get(10)).toBe(h);
    expect(temp.get(0)).toBe(h);
    const s = storage.stats(cpu());
    expect(s.numAllocs).toBe(1);
    expect(s.liveHandles).toBe(1);
    expect(s.bytesRequested).toBe(1000);
  });

  it('grows to exactly the requested size, giving the old block back to Storage', () => {
    const { storage, temp } = setup();
    const small = temp.get(1000);
    const big = temp.get(5000);
    expect(big).not.toBe(small);
    expect(big.size).toBe(5000);
    expect(temp.capacity).toBe(5000);
    const s = storage.stats(cpu());
    expect(s.numAllocs).toBe(2);
    expect(s.numFrees).toBe(1);
    expect(s.liveHandles).toBe(1);
    expect(s.bytesRequested).toBe(5000);
    expect(temp.get(4999)).toBe(big);
  });

  it('release() frees the block; the next get allocates again', () => {
    const { storage, temp } = setup();
    temp.get(2048);
    temp.release();
    temp.release();
    expect(temp.handle).toBeNull();
    expect(storage.stats(cpu()).liveHandles).toBe(0);
    expect(storage.stats(cpu()).bytesRequested).toBe(0);
    expect(temp.get(16).size).toBe(16);
    expect(storage.stats(cpu()).liveHandles).toBe(1);
  });

  it('ResourceManager.dispose frees every temp space', () => {
    const storage = new Storage({ env: new Env({}) });
    const rm = new ResourceManager({ storage, env: new Env({}), seed: 0 });
    for (let i = 0; i < 4; i++) rm.tempSpace(cpu()).get(100 * (i + 1));
    expect(storage.stats(cpu()).liveHandles).toBe(4);
    rm.dispose();
    expect(storage.stats(cpu()).liveHandles).toBe(0);
  });

  it('rejects negative, fractional and non-numeric sizes', () => {
    const { temp } = setup();
    expect(() => temp.get(-1)).toThrow(/non-negative integer number of bytes, got -1/);
    expect(() => temp.get(1.5)).toThrow(MXNetError);
    expect(() => temp.get(Number.NaN)).toThrow(/got NaN/);
  });
});
