/**
 * The driver of the mask module (mask-module.ts) for the boolean-mask gather and its backward: a
 * `WasmMask` holds the mask as bytes in the wasm memory — in place for 1-byte dtypes (bool, int8,
 * uint8: any nonzero byte is true, as NumPy reads them), a normalised 0/1 copy in scratch memory
 * otherwise (`free()` releases it) — and runs the module's count, compact and expand on it.
 */
import { DType, MXNetError } from '@mx/base';
import type { CompiledKernel, CpuWasmRuntime } from '../../../runtime.js';
import { BACKEND, type Blob, readMask } from './common.js';
import { buildMaskModule, type MaskModuleTypes, maskModuleKey } from './mask-module.js';

type Count = (mask: number, n: number) => number;
type Walk = (src: number, mask: number, n: number, dst: number, outer: number, blk: number) => number;

/** The module of blocks of `blk` bytes (widths 1/2/4/8 specialised, others generic). */
function moduleFor(rt: CpuWasmRuntime, blk: number): CompiledKernel {
  const width = (blk === 1 || blk === 2 || blk === 4 || blk === 8 ? blk : 0) as MaskModuleTypes['width'];
  const types = { width, simd: rt.features.simd } as const;
  return rt.kernel(maskModuleKey(types), () => buildMaskModule(types, rt.memoryImport()));
}

/** A mask blob as wasm-memory bytes, with the module's walks over it. */
export class WasmMask {
  readonly #rt: CpuWasmRuntime;
  /** Address of the mask bytes; the mask length. */
  readonly addr: number;
  readonly n: number;
  #scratch = 0;

  constructor(rt: CpuWasmRuntime, op: string, mask: Blob) {
    this.#rt = rt;
    this.n = mask.size;
    if (DType[mask.dtype].bytes === 1 || mask.size === 0) {
      this.addr = rt.address(mask);
      return;
    }
    const bytes = readMask(rt, mask);
    const p = rt.memory.allocator.alloc(Math.max(bytes.length, 16));
    if (p === null)
      throw new MXNetError(`out of memory allocating ${bytes.length} bytes of mask scratch`, {
        op,
        device: BACKEND,
        hint: 'use a bool mask (read in place) or free arrays first',
      });
    this.#scratch = p;
    new Uint8Array(rt.memory.buffer).set(bytes, p);
    this.addr = p;
  }

  /** The true elements of the mask. */
  count(): number {
    if (this.n === 0) return 0;
    return (moduleFor(this.#rt, 1).exports.count as Count)(this.addr, this.n);
  }

  /** Append the masked blocks of `outer` source runs of `n` blocks (`blk` bytes) to `dst`. */
  compact(src: number, dst: number, outer: number, blk: number): void {
    if (this.n === 0 || outer === 0 || blk === 0) return;
    (moduleFor(this.#rt, blk).exports.compact as Walk)(src, this.addr, this.n, dst, outer, blk);
  }

  /** The inverse of compact: packed blocks of `src` to the masked positions of `dst`. */
  expand(src: number, dst: number, outer: number, blk: number): void {
    if (this.n === 0 || outer === 0 || blk === 0) return;
    (moduleFor(this.#rt, blk).exports.expand as Walk)(src, this.addr, this.n, dst, outer, blk);
  }

  free(): void {
    if (this.#scratch === 0) return;
    this.#rt.memory.allocator.free(this.#scratch, Math.max(this.n, 16));
    this.#scratch = 0;
  }
}
