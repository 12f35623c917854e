/**
 * WebGpuBackend: serves `gpu(0)` through WebGPU (browsers' navigator.gpu, Dawn in Node). Arrays are
 * GPU buffers that the CPU cannot touch: host data goes in through the queue, comes back through a
 * mapped staging buffer (so reads are asynchronous only), and every kernel is WGSL generated from
 * the registry's operator definitions. @mx/storage pools the buffers (size buckets, trimming,
 * `releaseAll` = emptyCache) exactly as it pools wasm memory for cpu-wasm.
 *
 * Kernel families live in `kernels/<family>/` and export one install function taking the registry
 * and this backend (a `GpuHost`); this file only wires them. Families read `this.rt` only when a
 * kernel runs, so `describeWebGpuKernels` can register them without a device (for the docs).
 */
import { type Context, DType, type DTypeName, MXNetError, type StorageArray } from '@mx/base';
import type { Backend, BackendCapabilities, OpRegistry, TBlob } from '@mx/ops';
import type { DeviceAllocator } from '@mx/storage';
import { type AcquireOptions, type AdapterSummary, acquireDevice } from './device.js';
import type { GpuHost } from './kernel.js';
import { copyBytes } from './kernels/copy/bytes.js';
import { installFamilies } from './kernels/index.js';
import { type ShaderSource, WebGpuRuntime } from './runtime.js';

export const WEBGPU = 'webgpu';

/** Dtypes webgpu stores and computes in (float16 too when the adapter has `shader-f16`). */
export const WEBGPU_DTYPES: readonly DTypeName[] = Object.freeze(['float32', 'int32', 'uint32', 'bool']);

export interface WebGpuBackendOptions extends AcquireOptions {}

export class WebGpuBackend implements Backend<GPUBuffer>, GpuHost {
  readonly name = WEBGPU;
  readonly deviceTypes = Object.freeze(['gpu'] as const);
  readonly capabilities: BackendCapabilities;
  readonly #rt: WebGpuRuntime | null;
  readonly adapterInfo: AdapterSummary;

  /** Use `createWebGpuBackend()`; a null runtime registers kernels without a device (docs). */
  constructor(
    rt: WebGpuRuntime | null,
    info: AdapterSummary = { vendor: '', architecture: '', description: '', fallback: false },
  ) {
    this.#rt = rt;
    this.adapterInfo = info;
    const dtypes = rt?.f16 ? Object.freeze([...WEBGPU_DTYPES, 'float16' as const]) : WEBGPU_DTYPES;
    this.capabilities = Object.freeze({
      computeDTypes: dtypes,
      storageDTypes: dtypes,
      syncRead: false,
      maxBufferBytes: rt?.maxBufferBytes ?? 128 * 1024 * 1024,
    });
  }

  /** The device runtime (an MXNetError when the backend was made without a device). */
  get rt(): WebGpuRuntime {
    if (this.#rt === null) {
      throw new MXNetError('this webgpu backend has no device (made for listing kernels only)', {
        op: 'webgpu',
        device: 'gpu(0)',
        hint: 'create one with await createWebGpuBackend()',
      });
    }
    return this.#rt;
  }

  allocator(ctx: Context): DeviceAllocator<GPUBuffer> {
    if (ctx.deviceId !== 0) {
      throw new MXNetError(`webgpu serves gpu(0) only, not ${ctx}`, {
        op: 'alloc',
        device: ctx.toString(),
        hint: 'use gpu(0)',
      });
    }
    const rt = this.rt;
    return {
      name: 'webgpu',
      alignment: 256,
      // One buffer per array: a shader declares a single element type per bound buffer, so arrays
      // of different dtypes must not share a slab.
      smallObjects: false,
      alloc: (size) => rt.createBuffer(size),
      free: (ptr) => rt.release(ptr),
    };
  }

  checkAvailable(_ctx: Context, op: string): void {
    this.rt.checkAlive(op);
  }

  install(registry: OpRegistry): void {
    installFamilies(registry, this);
  }

  write(dst: TBlob<GPUBuffer>, src: StorageArray): void {
    if (src.length !== dst.size) {
      throw new MXNetError(`cannot write ${src.length} elements into an array of ${dst.size}`, {
        op: 'WebGpuBackend.write',
        shapes: [dst.shape],
        dtypes: [dst.dtype],
        device: 'gpu(0)',
      });
    }
    if (dst.size === 0 || dst.ptr === null) return;
    const rt = this.rt;
    const bytes = src as unknown as ArrayBufferView;
    const n = bytes.byteLength;
    if (dst.byteOffset % 4 === 0 && n % 4 === 0) {
      rt.writeBuffer(dst.ptr, dst.byteOffset, bytes);
      return;
    }
    // 1- and 2-byte dtypes: stage the bytes in a temporary buffer, then a byte copy into place.
    const padded = new Uint8Array(Math.ceil(n / 4) * 4);
    padded.set(new Uint8Array(bytes.buffer, bytes.byteOffset, n));
    const tmp = rt.createBuffer(padded.byteLength);
    rt.writeBuffer(tmp, 0, padded);
    copyBytes(rt, dst.ptr, dst.byteOffset, tmp, 0, n);
    rt.release(tmp);
  }

  readSync(_src: TBlob<GPUBuffer>): StorageArray {
    throw new MXNetError('gpu(0) arrays cannot be read synchronously (WebGPU reads are asynchronous)', {
      op: 'asnumpy',
      device: 'gpu(0)',
      hint: 'use await x.data() (or copy to cpu(0) with copyTo and read there)',
    });
  }

  async read(src: TBlob<GPUBuffer>): Promise<StorageArray> {
    const ctor = DType[src.dtype].storage;
    if (src.size === 0 || src.ptr === null) return new ctor(0);
    const bytes = src.size * DType[src.dtype].bytes;
    const raw = await this.rt.readBuffer(src.ptr, src.byteOffset, bytes, 'asnumpy');
    return new ctor(raw.buffer, raw.byteOffset, src.size) as StorageArray;
  }

  copy(dst: TBlob<GPUBuffer>, src: TBlob<GPUBuffer>): void {
    if (dst.size !== src.size || dst.dtype !== src.dtype) {
      throw new MXNetError('copy needs equal dtype and size', {
        op: '_copyto',
        shapes: [src.shape, dst.shape],
        dtypes: [src.dtype, dst.dtype],
        device: 'gpu(0)',
      });
    }
    if (dst.size === 0 || dst.ptr === null || src.ptr === null) return;
    const rt = this.rt;
    const n = src.size * DType[src.dtype].bytes;
    const overlap =
      dst.ptr === src.ptr && dst.byteOffset < src.byteOffset + n && src.byteOffset < dst.byteOffset + n;
    if (!overlap) {
      copyBytes(rt, dst.ptr, dst.byteOffset, src.ptr, src.byteOffset, n);
      return;
    }
    const tmp = rt.createBuffer(n + 4);
    copyBytes(rt, tmp, 0, src.ptr, src.byteOffset, n);
    copyBytes(rt, dst.ptr, dst.byteOffset, tmp, 0, n);
    rt.release(tmp);
  }

  /** Shaders compiled so far, for `warmUp` at a later start (see WebGpuRuntime.shaders). */
  shaders(): ShaderSource[] {
    return this.rt.shaders();
  }

  /** Compile these shaders now, in parallel, instead of at first use; resolves with keys that failed. */
  warmUp(shaders: readonly ShaderSource[]): Promise<string[]> {
    return this.rt.warmUp(shaders);
  }

  /** Wait until the device has finished all work submitted so far. */
  sync(): Promise<void> {
    return this.rt.sync();
  }

  /** Submit pending work and release the device. */
  dispose(): void {
    this.#rt?.dispose();
  }
}

/** Acquire a WebGPU device and make a backend serving gpu(0). */
export async function createWebGpuBackend(options: WebGpuBackendOptions = {}): Promise<WebGpuBackend> {
  const acquired = await acquireDevice(options);
  return new WebGpuBackend(new WebGpuRuntime(acquired.device, acquired.f16, acquired.gpu), acquired.info);
}

/** Register every webgpu kernel into `registry` without a device (coverage listings, docs). */
export function describeWebGpuKernels(registry: OpRegistry): void {
  new WebGpuBackend(null).install(registry);
}
