/**
 * A second backend for tests: serves `gpu` contexts from plain ArrayBuffers, with asynchronous
 * reads only (like a real GPU), copies and writes, and no compute kernels. A store whose arrays live
 * there proves that push and pull never read synchronously, and runs the asynchronous path of the
 * compression kernels. Not exported.
 */
import { type Context, DType, MXNetError, type StorageArray } from '@mx/base';
import type { Backend, BackendCapabilities, OpRegistry, TBlob } from '@mx/ops';

export class AsyncTestBackend implements Backend<ArrayBuffer> {
  readonly name = 'async-test';
  readonly deviceTypes = ['gpu'] as const;
  readonly capabilities: BackendCapabilities = {
    computeDTypes: ['float32'],
    storageDTypes: ['float32', 'float16', 'int32'],
    syncRead: false,
    maxBufferBytes: 1 << 30,
  };
  /** How many reads ran (a store must read only through engine ops, never synchronously). */
  reads = 0;
  readonly #alloc: ReturnType<Backend<ArrayBuffer>['allocator']> = {
    name: 'async-test',
    alignment: 16,
    alloc: (size) => new ArrayBuffer(size),
    free: () => undefined,
  };

  allocator(_ctx: Context): ReturnType<Backend<ArrayBuffer>['allocator']> {
    return this.#alloc;
  }
  install(_registry: OpRegistry): void {}
  #view(b: TBlob<ArrayBuffer>): StorageArray {
    return new DType[b.dtype].storage(b.ptr as ArrayBuffer, b.byteOffset, b.size);
  }
  write(dst: TBlob<ArrayBuffer>, src: StorageArray): void {
    if (dst.size > 0) (this.#view(dst) as Float32Array).set(src as Float32Array);
  }
  readSync(_src: TBlob<ArrayBuffer>): StorageArray {
    throw new MXNetError('the async test backend cannot read synchronously', { op: 'readSync' });
  }
  async read(src: TBlob<ArrayBuffer>): Promise<StorageArray> {
    this.reads++;
    await new Promise((r) => setTimeout(r, 1));
    return src.size === 0 ? new DType[src.dtype].storage(0) : this.#view(src).slice();
  }
  copy(dst: TBlob<ArrayBuffer>, src: TBlob<ArrayBuffer>): void {
    (this.#view(dst) as Float32Array).set(this.#view(src) as Float32Array);
  }
  dispose(): void {}
}
