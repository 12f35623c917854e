/**
 * CpuWasmBackend: the default backend. Serves the host contexts (cpu, cpu_pinned, cpu_shared) from
 * one shared WebAssembly.Memory and installs every cpu-wasm kernel family into a registry.
 *
 * Families live in their own folders (codegen/ for the SimpleOp compiler, gemm/, kernels/<family>/)
 * and each exports one install function taking the registry and this backend's runtime; this file
 * only wires them, so adding a family is one import and one call.
 */
import { type Context, DType, type DTypeName, MXNetError, type StorageArray } from '@mx/base';
import type { Backend, BackendCapabilities, OpRegistry, TBlob } from '@mx/ops';
import type { DeviceAllocator } from '@mx/storage';
import { installElementwise } from './codegen/index.js';
import { installLinalg } from './gemm/index.js';
import { installInit } from './kernels/init/index.js';
import { installNN } from './kernels/nn/index.js';
import { installNp } from './kernels/np/index.js';
import { installOptimizer } from './kernels/optimizer/index.js';
import { installReduce } from './kernels/reduce/index.js';
import { installShape } from './kernels/shape/index.js';
import { installSparse } from './kernels/sparse/index.js';
import { WasmMemory, type WasmMemoryOptions } from './memory.js';
import { CpuWasmRuntime, detectFeatures } from './runtime.js';

export const CPU_WASM = 'cpu-wasm';

/** Dtypes cpu-wasm computes in. The others (float16, bfloat16, int16, uint16, uint32, uint64) are stored and cast. */
export const CPU_WASM_COMPUTE_DTYPES: readonly DTypeName[] = Object.freeze([
  'float32',
  'float64',
  'int32',
  'int64',
  'int8',
  'uint8',
  'bool',
]);

export interface CpuWasmOptions extends WasmMemoryOptions {
  /**
   * Worker threads for large kernels besides the calling thread; default hardware concurrency - 1
   * (or OMP_NUM_THREADS - 1); 0 disables threads. Workers start at the first large kernel.
   */
  readonly workers?: number;
}

export class CpuWasmBackend implements Backend<number> {
  readonly name = CPU_WASM;
  readonly deviceTypes = Object.freeze(['cpu', 'cpu_pinned', 'cpu_shared'] as const);
  readonly capabilities: BackendCapabilities;
  readonly runtime: CpuWasmRuntime;

  constructor(options: CpuWasmOptions = {}) {
    const memory = new WasmMemory(options);
    this.runtime = new CpuWasmRuntime(memory, detectFeatures(), options.workers);
    this.capabilities = Object.freeze({
      computeDTypes: CPU_WASM_COMPUTE_DTYPES,
      storageDTypes: Object.freeze(Object.keys(DType) as DTypeName[]),
      syncRead: true,
      maxBufferBytes: memory.maximumPages * 65536,
    });
  }

  /** Every host context shares the one memory. */
  allocator(_ctx: Context): DeviceAllocator<number> {
    return this.runtime.memory.allocator;
  }

  install(registry: OpRegistry): void {
    installInit(registry, this.runtime);
    installElementwise(registry, this.runtime);
    installReduce(registry, this.runtime);
    installShape(registry, this.runtime);
    const gemm = installLinalg(registry, this.runtime);
    installNN(registry, this.runtime, gemm);
    installOptimizer(registry, this.runtime);
    installSparse(registry, this.runtime);
    installNp(registry, this.runtime);
  }

  write(dst: TBlob<number>, src: StorageArray): void {
    if (src.length !== dst.size) {
      throw new MXNetError(`cannot write ${src.length} elements into an array of ${dst.size}`, {
        op: 'CpuWasmBackend.write',
        shapes: [dst.shape],
        dtypes: [dst.dtype],
      });
    }
    if (dst.size === 0) return;
    const view = this.runtime.view(dst);
    (view as unknown as { set(a: ArrayLike<number | bigint>): void }).set(src as ArrayLike<number | bigint>);
  }

  /**
   * A host copy of `src` (a fresh, unshared buffer of exactly its bytes): one typed-array copy out
   * of the wasm memory. The typed-array constructor copies straight into an uninitialized buffer;
   * `new T(n).set(view)` zero-filled it first, which on a 4 MB output cost as much as the copy and
   * kept the allocator from reusing memory. What remains beyond the copy (~0.15 ms for 4 MB) is the
   * host allocator's: a buffer on fresh pages costs a page fault per 4 KiB (~1 ms for 4 MB on a VM).
   */
  readSync(src: TBlob<number>): StorageArray {
    const Storage = DType[src.dtype].storage as unknown as new (from: StorageArray | number) => StorageArray;
    return src.size > 0 ? new Storage(this.runtime.view(src)) : new Storage(0);
  }

  /**
   * The blob's elements over the wasm memory itself, when that memory is shared: a growing shared
   * memory keeps its bytes in place (a non-shared one detaches its buffer on growth, so no view).
   */
  hostView(blob: TBlob<number>): StorageArray | undefined {
    if (!this.runtime.memory.shared) return undefined;
    return blob.size > 0
      ? this.runtime.view(blob)
      : new (DType[blob.dtype].storage as new (n: number) => StorageArray)(0);
  }

  read(src: TBlob<number>): Promise<StorageArray> {
    return Promise.resolve(this.readSync(src));
  }

  copy(dst: TBlob<number>, src: TBlob<number>): void {
    if (dst.size !== src.size || dst.dtype !== src.dtype) {
      throw new MXNetError('copy needs equal dtype and size', {
        op: '_copyto',
        shapes: [src.shape, dst.shape],
        dtypes: [src.dtype, dst.dtype],
      });
    }
    this.runtime.copyBlob(dst, src);
  }

  /** Stop the worker threads (the memory is released with the backend object). */
  dispose(): void {
    this.runtime.threads?.dispose();
  }
}
