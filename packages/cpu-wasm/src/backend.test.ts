/**
 * The backend's read path (readSync / read): a host copy of a blob's elements in the dtype's
 * storage type, in a fresh unshared buffer of exactly the blob's bytes, detached from the wasm
 * memory (later writes and frees do not show through), for every storage dtype, views at a byte
 * offset, and zero-size blobs.
 */
import { cpu, DType, type DTypeName, type StorageArray } from '@mx/base';
import type { TBlob } from '@mx/ops';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuWasmBackend } from './backend.js';

const backend = new CpuWasmBackend({ initialPages: 32, workers: 0 });
const alloc = backend.allocator(cpu());
afterAll(() => backend.dispose());

function blob(dtype: DTypeName, values: readonly (number | bigint)[], byteOffset = 0): TBlob<number> {
  const bytes = byteOffset + Math.max(1, values.length) * DType[dtype].bytes;
  const ptr = alloc.alloc(bytes) as number;
  const b = { ptr, byteOffset, shape: [values.length], dtype, size: values.length };
  (backend.runtime.view(b) as unknown as { set(a: readonly (number | bigint)[]): void }).set(values);
  return b;
}

const CASES: [DTypeName, (number | bigint)[]][] = [
  ['float32', [1.5, -0, Number.NaN, Number.POSITIVE_INFINITY, 3.4028234663852886e38]],
  ['float64', [Math.PI, -1e-310, Number.NEGATIVE_INFINITY]],
  ['float16', [0x3c00, 0x7e00, 0x8001]],
  ['bfloat16', [0x3f80, 0xff80]],
  ['int8', [-128, 127, 0]],
  ['uint8', [0, 255]],
  ['bool', [1, 0, 1]],
  ['int16', [-32768, 7]],
  ['uint16', [65535]],
  ['int32', [-(2 ** 31), 2 ** 31 - 1]],
  ['uint32', [2 ** 32 - 1]],
  ['int64', [-(2n ** 63n), 2n ** 63n - 1n, 5n]],
  ['uint64', [2n ** 64n - 1n]],
];

describe('CpuWasmBackend reads', () => {
  for (const [dtype, values] of CASES) {
    it(`copy ${dtype} into an unshared ${DType[dtype].storage.name} of exactly the blob's bytes`, async () => {
      for (const offset of [0, 8 * DType[dtype].bytes]) {
        const b = blob(dtype, values, offset);
        const got = backend.readSync(b);
        expect(got).toBeInstanceOf(DType[dtype].storage);
        expect(got.buffer).toBeInstanceOf(ArrayBuffer);
        expect(got.byteOffset).toBe(0);
        expect(got.buffer.byteLength).toBe(values.length * DType[dtype].bytes);
        expect(Array.from(got as ArrayLike<number | bigint>)).toEqual(values);
        const later = await backend.read(b);
        expect(Array.from(later as ArrayLike<number | bigint>)).toEqual(values);
        expect(later).not.toBe(got);
      }
    });
  }

  it('are detached from the wasm memory: later writes and reuse of the block do not show', () => {
    const b = blob('float32', [1, 2, 3, 4]);
    const got: StorageArray = backend.readSync(b);
    backend.write(b, new Float32Array([9, 9, 9, 9]));
    expect(Array.from(got as Float32Array)).toEqual([1, 2, 3, 4]);
    alloc.free(b.ptr as number, 16);
    const c = blob('float32', [7, 7, 7, 7]);
    expect(Array.from(got as Float32Array)).toEqual([1, 2, 3, 4]);
    expect(Array.from(backend.readSync(c) as Float32Array)).toEqual([7, 7, 7, 7]);
  });

  it('of a zero-size blob give an empty array of the storage type', () => {
    for (const dtype of ['float32', 'int64', 'bool'] as const) {
      const got = backend.readSync({ ptr: null, byteOffset: 0, shape: [0, 3], dtype, size: 0 });
      expect(got).toBeInstanceOf(DType[dtype].storage);
      expect(got.length).toBe(0);
    }
  });
});

describe('CpuWasmBackend.hostView', () => {
  it('is the blob itself on a shared memory, and stays valid when the memory grows', () => {
    const b = blob('float32', [1, 2, 3], 8);
    const view = backend.hostView(b) as Float32Array;
    expect(view).toBeInstanceOf(Float32Array);
    expect(Array.from(view)).toEqual([1, 2, 3]);
    view[1] = 7; // writes land in the blob
    expect(Array.from(backend.readSync(b) as Float32Array)).toEqual([1, 7, 3]);
    backend.runtime.memory.memory.grow(1);
    backend.write(b, Float32Array.of(4, 5, 6));
    expect(Array.from(view)).toEqual([4, 5, 6]);
    expect(backend.hostView({ ptr: null, byteOffset: 0, shape: [0], dtype: 'int32', size: 0 })).toEqual(
      new Int32Array(0),
    );
  });

  it('is undefined on a non-shared memory (its buffer detaches when it grows)', () => {
    const own = new CpuWasmBackend({ initialPages: 1, shared: false, workers: 0 });
    try {
      const ptr = own.allocator(cpu()).alloc(16) as number;
      expect(own.hostView({ ptr, byteOffset: 0, shape: [4], dtype: 'float32', size: 4 })).toBeUndefined();
    } finally {
      own.dispose();
    }
  });
});
