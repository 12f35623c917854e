/**
 * Runs one (possibly batched) GEMM  C (+)= alpha · op(A) · op(B)  on cpu-wasm: picks the blocking,
 * writes the parameter block, allocates packed-B and per-thread scratch in the wasm memory, then
 * runs the module's two chunked phases (packB, compute) inline or across the worker pool.
 *
 * Operands are described by byte addresses and leading dimensions of the *stored* matrices plus
 * transpose flags, with a two-level batch (b = b1 · inner + b0) so `dot`, `batch_dot` and
 * `linalg_gemm2` with any row axis all reduce to it without copies.
 *
 * Work split across threads: compute chunks aim at 4 per thread (was 2) and packB also splits B's
 * columns when there are fewer than 2 (batch, k block) pairs per thread, so at N ≤ kc the pack no
 * longer runs on one thread while the other waits. A/B in one session (Zen 5, 2 threads, median
 * GFLOP/s, old → new): 512 plain 107–109 → 124–128, 512 transA 100 → 116–124; 1024/2048 unchanged
 * within noise (115–128). mc 256 vs 128 and kc 384/768 vs 512 were within noise (±3%), and touching
 * the C tile before the k loop (a software prefetch) did not help, so the blocking stays.
 *
 * Batches of many small matrices (batch_dot 64 × 128³) take a third shape (runFused): one chunk per
 * matrix, each thread packing that matrix's B into its own scratch right before use. The two-phase
 * path packed all 64 B's (4 MiB) in a separate pool pass and streamed them back from memory.
 * Medians on a shared 2-vCPU VM, old → new: 64 × 128³ one thread 5.55 → 5.23 ms, two threads (when
 * both cores were free) 2.64–2.74 → 2.43–2.57 ms; 1000 × 8³ 0.084 → 0.067 ms.
 */
import { MXNetError } from '@mx/base';
import type { CompiledKernel, CpuWasmRuntime } from '../runtime.js';
import type { GemmType, Tile } from './dtype.js';
import * as P from './params.js';

export interface GemmBatch {
  /** Batches = inner · outer. */
  readonly inner: number;
  readonly outer: number;
  /** Byte strides of each operand for b0 (inner index) and b1 (outer index). */
  readonly sA: readonly [number, number];
  readonly sB: readonly [number, number];
  readonly sC: readonly [number, number];
}

export interface GemmProblem {
  readonly m: number;
  readonly n: number;
  readonly k: number;
  /** Byte address of A as stored; op(A) = A or Aᵀ; `lda` = bytes between stored rows. */
  readonly a: number;
  readonly lda: number;
  readonly transA: boolean;
  readonly b: number;
  readonly ldb: number;
  readonly transB: boolean;
  readonly c: number;
  readonly ldc: number;
  readonly alpha: number;
  /** Add into C (req add) instead of overwriting. */
  readonly accumulate: boolean;
  readonly batch?: GemmBatch;
}

/** Runs `fn(chunk, thread, ...args)` for every chunk in [0, total): inline or on a pool. */
export interface ChunkRunner {
  /** Threads taking part (1 = inline). */
  readonly size: number;
  parallelFor(kernel: CompiledKernel, exportName: string, total: number, args: readonly number[]): void;
}

/** Runs every chunk on the calling thread. */
export const INLINE_RUNNER: ChunkRunner = Object.freeze({
  size: 1,
  parallelFor(kernel: CompiledKernel, exportName: string, total: number, args: readonly number[]): void {
    const fn = kernel.exports[exportName] as (...a: number[]) => void;
    for (let c = 0; c < total; c++) fn(c, 0, ...args);
  },
});

export interface GemmBlocking {
  readonly mc: number;
  readonly kc: number;
}

/**
 * Defaults measured on Zen 5 (48 KiB L1d, 1 MiB L2): the kc·nr B micro-panel (16 KiB) stays in L1
 * and the mc·kc A block (256 KiB) in L2; kc 512 halves the micro-kernel prologue/epilogue share
 * against 256 (single-thread sgemm 1024: ~54 vs ~48 GFLOP/s).
 */
export const DEFAULT_BLOCKING: GemmBlocking = Object.freeze({ mc: 128, kc: 512 });

const ALIGN = 64;
const alignUp = (x: number, a = ALIGN): number => Math.ceil(x / a) * a;

function alloc(rt: CpuWasmRuntime, bytes: number): number {
  const p = rt.memory.allocator.alloc(Math.max(ALIGN, alignUp(bytes)));
  if (p === null) {
    throw new MXNetError(`out of memory allocating ${bytes} bytes of GEMM workspace`, {
      op: 'gemm',
      device: 'cpu(0)',
      hint: 'use smaller matrices or free arrays first',
    });
  }
  return p;
}

/** Zero C (or leave it, for accumulate) when the contracted size is 0. */
function zeroOutput(rt: CpuWasmRuntime, t: GemmType, p: GemmProblem): void {
  if (p.accumulate) return;
  const bt = p.batch ?? { inner: 1, outer: 1, sA: [0, 0], sB: [0, 0], sC: [0, 0] };
  for (let b1 = 0; b1 < bt.outer; b1++) {
    for (let b0 = 0; b0 < bt.inner; b0++) {
      for (let i = 0; i < p.m; i++) {
        const addr = p.c + b0 * bt.sC[0] + b1 * bt.sC[1] + i * p.ldc;
        rt.zeroBytes(addr, p.n * t.es);
      }
    }
  }
}

/** C (+)= alpha · op(A) · op(B) with the given module (built for `t` and `tile`). */
export function runGemm(
  rt: CpuWasmRuntime,
  kernel: CompiledKernel,
  t: GemmType,
  tile: Tile,
  p: GemmProblem,
  runner: ChunkRunner,
  blocking: GemmBlocking = DEFAULT_BLOCKING,
): void {
  const bt = p.batch ?? { inner: 1, outer: 1, sA: [0, 0], sB: [0, 0], sC: [0, 0] };
  const batches = bt.inner * bt.outer;
  if (p.m === 0 || p.n === 0 || batches === 0) return;
  if (p.k === 0) {
    zeroOutput(rt, t, p);
    return;
  }
  const { mr, nr } = tile;
  // Very many tiny batches exceed the pool's chunk index space: run those inline.
  if (batches * Math.ceil(p.k / Math.min(blocking.kc, p.k)) * Math.ceil(p.m / mr) >= 1 << 20)
    runner = INLINE_RUNNER;
  const threads = Math.max(1, runner.size);
  const kc = Math.min(blocking.kc, p.k);
  const mcMax = Math.max(mr, Math.floor(blocking.mc / mr) * mr);
  if (useFused(batches, threads, kc * Math.ceil(p.n / nr) * nr * t.es)) {
    runFused(rt, kernel, t, tile, p, bt, runner, kc, mcMax);
    return;
  }
  // Row chunks: one mc block each, smaller when that leaves threads idle (dynamic claiming balances).
  let rows = Math.min(mcMax, Math.ceil(p.m / mr) * mr);
  if (threads > 1 && batches < 4 * threads) {
    const want = Math.ceil(p.m / Math.ceil((4 * threads) / batches));
    rows = Math.min(rows, Math.max(mr, Math.ceil(want / mr) * mr));
  }
  const mc = rows;
  const chunksPerBatch = Math.ceil(p.m / rows);
  const kBlocks = Math.ceil(p.k / kc);
  const nPad = Math.ceil(p.n / nr) * nr;
  // packB chunks: split B's columns too when (batch, k block) pairs alone would leave threads idle.
  let packParts = 1;
  if (threads > 1 && batches * kBlocks < 2 * threads) {
    packParts = Math.min(Math.ceil((2 * threads) / (batches * kBlocks)), Math.ceil(nPad / (8 * nr)));
  }
  const packCols = Math.ceil(nPad / packParts / nr) * nr;
  packParts = Math.ceil(nPad / packCols);
  const packedBatchBytes = alignUp(p.k * nPad * t.es);
  const scratchBytes = alignUp((mc * kc + mr * nr) * t.es);

  const params = alloc(rt, P.PARAM_BYTES);
  const packed = alloc(rt, packedBatchBytes * batches);
  const scratch = alloc(rt, scratchBytes * threads);
  try {
    const v = writeProblem(rt, params, p, bt);
    v[P.P_PACKED_B] = packed;
    v[P.P_PACKED_B_BATCH] = packedBatchBytes;
    v[P.P_SCRATCH] = scratch;
    v[P.P_SCRATCH_BYTES] = scratchBytes;
    v[P.P_MC] = mc;
    v[P.P_KC] = kc;
    v[P.P_ROWS_PER_CHUNK] = rows;
    v[P.P_CHUNKS_PER_BATCH] = chunksPerBatch;
    v[P.P_K_BLOCKS] = kBlocks;
    v[P.P_PACKB_PARTS] = packParts;
    v[P.P_PACKB_COLS] = packCols;
    runner.parallelFor(kernel, 'packB', batches * kBlocks * packParts, [params]);
    runner.parallelFor(kernel, 'compute', batches * chunksPerBatch, [params]);
  } finally {
    rt.memory.allocator.free(scratch, Math.max(ALIGN, alignUp(scratchBytes * threads)));
    rt.memory.allocator.free(packed, Math.max(ALIGN, alignUp(packedBatchBytes * batches)));
    rt.memory.allocator.free(params, Math.max(ALIGN, alignUp(P.PARAM_BYTES)));
  }
}

/** Writes the problem's operands, flags, batch strides and alpha into a fresh parameter block. */
function writeProblem(rt: CpuWasmRuntime, params: number, p: GemmProblem, bt: GemmBatch): Int32Array {
  const v = rt.memory.view('int32', params, P.PARAM_BYTES / 4) as Int32Array;
  v.fill(0);
  v[P.P_M] = p.m;
  v[P.P_N] = p.n;
  v[P.P_K] = p.k;
  v[P.P_A] = p.a;
  v[P.P_LDA] = p.lda;
  v[P.P_B] = p.b;
  v[P.P_LDB] = p.ldb;
  v[P.P_C] = p.c;
  v[P.P_LDC] = p.ldc;
  v[P.P_TRANS_A] = p.transA ? 1 : 0;
  v[P.P_TRANS_B] = p.transB ? 1 : 0;
  v[P.P_ACCUMULATE] = p.accumulate ? 1 : 0;
  v[P.P_BATCH_INNER] = bt.inner;
  v[P.P_SA0] = bt.sA[0];
  v[P.P_SA1] = bt.sA[1];
  v[P.P_SB0] = bt.sB[0];
  v[P.P_SB1] = bt.sB[1];
  v[P.P_SC0] = bt.sC[0];
  v[P.P_SC1] = bt.sC[1];
  (rt.memory.view('float64', params + P.ALPHA_BYTE, 1) as Float64Array)[0] = p.alpha;
  return v;
}

/**
 * Largest per-thread packed-B block (kc × padded n) the fused path keeps in scratch: about half a
 * typical L2, so a thread's B block stays cache-resident (larger ones share one packed B instead).
 */
const FUSED_MAX_B_BYTES = 512 << 10;

/**
 * Whole matrices per thread when a batch has enough of them to keep every thread busy (at least
 * 4 per thread, or an even share of at least 2) and one k block of B fits the thread's scratch.
 */
function useFused(batches: number, threads: number, bBlockBytes: number): boolean {
  if (batches < 2 || bBlockBytes > FUSED_MAX_B_BYTES) return false;
  return batches >= 4 * threads || (batches >= 2 * threads && batches % threads === 0);
}

/**
 * Batched GEMM with one chunk per matrix (`computeFused`): the thread packs each k block of that
 * matrix's B into its own scratch just before using it, so there is no separate packB pass (one
 * pool dispatch instead of two) and no batches × k × n packed buffer streamed through memory.
 * Same packing, blocking and summation order as the two-phase path: results are bit-identical.
 */
function runFused(
  rt: CpuWasmRuntime,
  kernel: CompiledKernel,
  t: GemmType,
  tile: Tile,
  p: GemmProblem,
  bt: GemmBatch,
  runner: ChunkRunner,
  kc: number,
  mcMax: number,
): void {
  const { mr, nr } = tile;
  const threads = Math.max(1, runner.size);
  const mc = Math.min(mcMax, Math.ceil(p.m / mr) * mr);
  const nPad = Math.ceil(p.n / nr) * nr;
  const bOffset = alignUp((mc * kc + mr * nr) * t.es);
  const scratchBytes = bOffset + alignUp(kc * nPad * t.es);
  const params = alloc(rt, P.PARAM_BYTES);
  const scratch = alloc(rt, scratchBytes * threads);
  try {
    const v = writeProblem(rt, params, p, bt);
    v[P.P_SCRATCH] = scratch;
    v[P.P_SCRATCH_BYTES] = scratchBytes;
    v[P.P_SCRATCH_B] = bOffset;
    v[P.P_MC] = mc;
    v[P.P_KC] = kc;
    v[P.P_ROWS_PER_CHUNK] = p.m;
    v[P.P_CHUNKS_PER_BATCH] = 1;
    v[P.P_K_BLOCKS] = Math.ceil(p.k / kc);
    runner.parallelFor(kernel, 'computeFused', bt.inner * bt.outer, [params]);
  } finally {
    rt.memory.allocator.free(scratch, Math.max(ALIGN, alignUp(scratchBytes * threads)));
    rt.memory.allocator.free(params, Math.max(ALIGN, alignUp(P.PARAM_BYTES)));
  }
}
