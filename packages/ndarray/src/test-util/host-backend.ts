/**
 * A minimal second backend for tests: serves `gpu` contexts from plain ArrayBuffers, with
 * asynchronous reads and no sync reads (like a real device). It proves the backend contract without
 * a GPU: allocation through @mx/storage, transfers, explicit copies between backends, and the
 * errors for implicit cross-device use. Not exported.
 */
import { type Context, DType, MXNetError, type StorageArray } from '@mx/base';
import type { Backend, BackendCapabilities, OpRegistry, TBlob } from '@mx/ops';
import { type DeviceAllocator, HostAllocator } from '@mx/storage';

export class HostTestBackend implements Backend<ArrayBuffer> {
  readonly name = 'host-test';
  readonly deviceTypes = ['gpu'] as const;
  readonly capabilities: BackendCapabilities = {
    computeDTypes: ['float32'],
    storageDTypes: Object.keys(DType) as BackendCapabilities['storageDTypes'],
    syncRead: false,
    maxBufferBytes: 1 << 30,
  };
  readonly #alloc = new HostAllocator();

  allocator(_ctx: Context): DeviceAllocator<ArrayBuffer> {
    return this.#alloc as unknown as DeviceAllocator<ArrayBuffer>;
  }
  install(_registry: OpRegistry): void {}
  #view(b: TBlob<ArrayBuffer>): StorageArray {
    return new DType[b.dtype].storage(b.ptr as ArrayBuffer, b.byteOffset, b.size);
  }
  write(dst: TBlob<ArrayBuffer>, src: StorageArray): void {
    if (dst.size > 0) (this.#view(dst) as Float64Array).set(src as Float64Array);
  }
  readSync(_src: TBlob<ArrayBuffer>): StorageArray {
    throw new MXNetError('no sync reads', { op: 'readSync' });
  }
  async read(src: TBlob<ArrayBuffer>): Promise<StorageArray> {
    await new Promise((r) => setTimeout(r, 1));
    return src.size === 0 ? new DType[src.dtype].storage(0) : this.#view(src).slice();
  }
  copy(dst: TBlob<ArrayBuffer>, src: TBlob<ArrayBuffer>): void {
    (this.#view(dst) as Float64Array).set(this.#view(src) as Float64Array);
  }
  dispose(): void {}
}
