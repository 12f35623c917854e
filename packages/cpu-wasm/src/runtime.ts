/**
 * CpuWasmRuntime: what every cpu-wasm kernel family gets — the shared memory, detected wasm
 * features, a module cache and the worker pool — so kernel files stay free of setup code and
 * module-level state. One runtime per backend instance.
 *
 * Modules are compiled synchronously (`new WebAssembly.Module`): kernels are built on first use
 * inside an engine op, which must finish synchronously. Generated modules are small (a few KiB),
 * well below browsers' main-thread limit for synchronous compilation.
 */
import type { DTypeName, StorageArray } from '@mx/base';
import { DType } from '@mx/base';
import type { TBlob } from '@mx/ops';
import type { WasmExportsObject, WasmModuleObject } from './host-types.js';
import { canShareMemory, type WasmMemory } from './memory.js';
import { FunctionBuilder, I32, ModuleBuilder } from './wasm/assembler.js';

/** Wasm features of this engine (detected once with `WebAssembly.validate`). */
export interface WasmFeatures {
  readonly simd: boolean;
  readonly relaxedSimd: boolean;
  readonly threads: boolean;
}

/** A compiled module plus its instance on the main thread. */
export interface CompiledKernel {
  readonly module: WasmModuleObject;
  readonly exports: WasmExportsObject;
}

/** Splits work across threads sharing the memory; provided by the threads/ folder. */
export interface KernelThreads {
  /** Number of threads that take part in a parallel run (workers + the calling thread). */
  readonly size: number;
  /**
   * Run `kernel.exports[exportName](chunk, thread, ...args)` for chunk = 0..total-1 across the
   * threads (the caller takes part); returns when every chunk is done. At most 8 i32 args.
   */
  parallelFor(kernel: CompiledKernel, exportName: string, total: number, args?: readonly number[]): void;
  /** Stop the workers. */
  dispose(): void;
}

export class CpuWasmRuntime {
  readonly memory: WasmMemory;
  readonly features: WasmFeatures;
  readonly #cache = new Map<string, CompiledKernel>();
  /** The memory.fill function behind zeroBytes (built on first use). */
  #zero: ((addr: number, bytes: number) => void) | undefined;
  /** Worker pool, when threads are enabled and available (created on first large kernel). */
  threads: KernelThreads | null = null;
  /** Worker threads to use besides the caller (undefined: hardware threads - 1; 0: none). */
  readonly workers: number | undefined;

  constructor(memory: WasmMemory, features: WasmFeatures, workers?: number) {
    this.memory = memory;
    this.features = features;
    this.workers = workers;
  }

  /**
   * The kernel module cached under `key`, built and compiled on first use. `build` returns a module
   * that imports the shared memory as `env.memory` (use {@link memoryImport}).
   */
  kernel(
    key: string,
    build: () => ModuleBuilder,
    imports: Record<string, Record<string, unknown>> = {},
  ): CompiledKernel {
    let k = this.#cache.get(key);
    if (k === undefined) {
      const bytes = build().toBytes();
      const module = new WebAssembly.Module(bytes as BufferSource);
      const instance = new WebAssembly.Instance(module, {
        ...imports,
        env: { ...(imports.env ?? {}), memory: this.memory.memory },
      } as WebAssembly.Imports);
      k = { module, exports: instance.exports };
      this.#cache.set(key, k);
    }
    return k;
  }

  /** The memory import every kernel module declares. */
  memoryImport(): { min: number; max: number; shared: boolean } {
    return { min: 1, max: this.memory.maximumPages, shared: this.memory.shared };
  }

  /** Byte address of a blob's first element. */
  address(blob: TBlob<number>): number {
    return (blob.ptr ?? 0) + blob.byteOffset;
  }

  /** A typed view of a blob (valid until the memory grows; do not keep it). */
  view(blob: TBlob<number>): StorageArray {
    return this.memory.view(blob.dtype, this.address(blob), blob.size);
  }

  /** Copy `src`'s elements over `dst`'s (same dtype and size; byte copy inside the memory). */
  copyBlob(dst: TBlob<number>, src: TBlob<number>): void {
    if (src.size === 0) return;
    const from = this.address(src);
    new Uint8Array(this.memory.buffer).copyWithin(
      this.address(dst),
      from,
      from + src.size * DType[src.dtype].bytes,
    );
  }

  /**
   * Zero `bytes` bytes at `addr` with wasm's `memory.fill` (a memset). `TypedArray.fill` on a view
   * of the shared memory goes element by element (8x slower than memset in Node 20), so kernels
   * zero their outputs and scratch through this.
   */
  zeroBytes(addr: number, bytes: number): void {
    if (bytes <= 0) return;
    if (this.#zero === undefined) {
      this.#zero = this.kernel('runtime-memory-fill', () => {
        const f = new FunctionBuilder([I32, I32]);
        f.get(0).i32Const(0).get(1).op('memory.fill');
        return new ModuleBuilder().importMemory(this.memoryImport()).addFunctionChain(f, 'zero');
      }).exports.zero as (addr: number, bytes: number) => void;
    }
    this.#zero(addr, bytes);
  }

  /** Zero a blob's elements (see {@link zeroBytes}). */
  zero(blob: TBlob<number>): void {
    this.zeroBytes(this.address(blob), blob.size * DType[blob.dtype].bytes);
  }

  /** Bytes per element. */
  itemSize(dtype: DTypeName): number {
    return DType[dtype].bytes;
  }
}

/** Detect SIMD, relaxed SIMD and threads with tiny probe modules. */
export function detectFeatures(): WasmFeatures {
  // (module (func (result v128) v128.const i32x4 0 0 0 0))
  const simd = new Uint8Array([
    0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 22, 1, 20, 0, 253, 12, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 11,
  ]);
  // (func (param v128 v128 v128) (result v128) local.get 0 local.get 1 local.get 2 f32x4.relaxed_madd)
  const relaxed = new Uint8Array([
    0, 97, 115, 109, 1, 0, 0, 0, 1, 8, 1, 96, 3, 123, 123, 123, 1, 123, 3, 2, 1, 0, 10, 13, 1, 11, 0, 32, 0,
    32, 1, 32, 2, 253, 133, 2, 11,
  ]);
  return {
    simd: WebAssembly.validate(simd),
    relaxedSimd: WebAssembly.validate(relaxed),
    threads: canShareMemory(),
  };
}
