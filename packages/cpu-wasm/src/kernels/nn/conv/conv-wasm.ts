/**
 * The convolution module: the GEMM engine's micro-kernel and packing routines (gemm/) driven by
 * convolution-shaped loops, as chunked entry points `fn(chunk, thread, block)` for the worker pool;
 * every entry point reads its problem from the parameter block of conv-params.ts. This file only
 * assembles the module, so that each group of emitters reads on its own:
 *
 * - conv-wasm-forward.ts: `padCopy` (the zero-padded input), `packW` (weights as A panels) and
 *   `fwd`, an implicit GEMM whose B panels are packed by im2col straight from the padded image.
 * - conv-wasm-data.ts: `bwdData`, colgrad = Wᵀ·dY per column block, added back by col2im into
 *   thread-private padded planes (also the Deconvolution forward).
 * - conv-wasm-weight.ts: `bwdWeight` into per-thread accumulators, `reduceAcc` summing them into
 *   dW, and `biasGrad`.
 * - conv-wasm-columns.ts: the internal `runTable`, `im2col` and `col2im`, which walk the contiguous
 *   pieces of a column block once per kernel tap.
 * - conv-wasm-emit.ts: chunk decoding, scratch layout, the macro-kernel loop and `merge`.
 */
import type { GemmType, Tile } from '../../../gemm/dtype.js';
import { buildMicroKernel } from '../../../gemm/micro-kernel.js';
import { buildPackCopy, buildPackTrans } from '../../../gemm/pack.js';
import { type MemoryImport, ModuleBuilder } from '../../../wasm/assembler.js';
import { buildCol2im, buildIm2col, buildRunTable } from './conv-wasm-columns.js';
import { buildBwdData } from './conv-wasm-data.js';
import { buildMerge, type Fns } from './conv-wasm-emit.js';
import { buildFwd, buildPackW, buildPadCopy } from './conv-wasm-forward.js';
import { buildBiasGrad, buildBwdWeight, buildReduceAcc } from './conv-wasm-weight.js';

/** The whole convolution module for one element type, tile and (relaxed or not) micro-kernel. */
export function buildConvModule(
  t: GemmType,
  tile: Tile,
  relaxed: boolean,
  memory: MemoryImport,
): ModuleBuilder {
  const m = new ModuleBuilder().importMemory(memory);
  const fn: Fns = {
    micro: m.addFunction(buildMicroKernel(t, tile, relaxed)),
    transA: m.addFunction(buildPackTrans(t, tile.mr)),
    copyA: m.addFunction(buildPackCopy(t, tile.mr)),
    transB: m.addFunction(buildPackTrans(t, tile.nr)),
    copyB: m.addFunction(buildPackCopy(t, tile.nr)),
    merge: m.addFunction(buildMerge(t, tile.nr)),
    runTable: m.addFunction(buildRunTable(t)),
    im2col: m.addFunction(buildIm2col(t, tile.nr)),
    col2im: m.addFunction(buildCol2im(t, tile.nr)),
  };
  m.addFunction(buildPadCopy(t), 'padCopy');
  m.addFunction(buildPackW(t, tile, fn), 'packW');
  m.addFunction(buildFwd(t, tile, fn), 'fwd');
  m.addFunction(buildBwdData(t, tile, fn), 'bwdData');
  m.addFunction(buildBwdWeight(t, tile, fn), 'bwdWeight');
  m.addFunction(buildReduceAcc(t), 'reduceAcc');
  m.addFunction(buildBiasGrad(t), 'biasGrad');
  return m;
}
