/**
 * Drivers of the convolution module (conv-wasm.ts): geometry, blocking, workspace and phases for
 * the primitives every Convolution/Deconvolution kernel is made of —
 *   forward(X, W, bias) → Y, backwardData(dY, W) → dX, backwardWeight(X, dY) → dW, biasGrad —
 * each in a convolution's own terms (Deconvolution is the transpose: its forward is a
 * backwardData, its data gradient a forward; see index.ts).
 *
 * Blocking is in bytes (float64 gets half the elements): the forward's packed B block
 * (kc × ncols, kc ≤ 512 splitting K evenly) ≈ 192 KiB; the weight gradient's contraction runs over
 * ≥ 64 columns with the column matrix in row blocks of ≈ 384 KiB; the data gradient's channel
 * block keeps its padded planes ≈ 512 KiB and ≤ 512 rows. Chunks are halved until every thread
 * has several. The zero-padded input copy is made for as many images as fit in 32 MiB at a time.
 * Problems under ~2 MFLOP run inline on the calling thread. Measured on the 2-core dev container
 * (Zen 5, Node 20, no relaxed SIMD), float32, conv 8×64→64×56²×3×3: forward 55-57 GFLOP/s on one
 * thread, 92-113 on two (the GEMM engine's own ceiling: ~57 / ~113 at 1024²); the micro-kernel
 * takes ~82 % of the time, im2col ~9 %.
 */
import { MXNetError } from '@mx/base';
import type { GemmType, Tile } from '../../../gemm/dtype.js';
import type { GemmEngine } from '../../../gemm/engine.js';
import { type ChunkRunner, INLINE_RUNNER } from '../../../gemm/gemm.js';
import type { CompiledKernel, CpuWasmRuntime } from '../../../runtime.js';
import { poolOf } from '../../../threads/index.js';
import { PARAM_BYTES, S } from './conv-params.js';
import { buildConvModule } from './conv-wasm.js';

/** A convolution in 3-D form (1-D and 2-D have leading unit axes); sizes in elements. */
export interface ConvGeom {
  readonly n: number;
  readonly groups: number;
  /** Input channels per group, output channels per group. */
  readonly cg: number;
  readonly mg: number;
  /** Input, output and kernel extents, stride, dilate, pad: [d, h, w]. */
  readonly in: readonly [number, number, number];
  readonly out: readonly [number, number, number];
  readonly kernel: readonly [number, number, number];
  readonly stride: readonly [number, number, number];
  readonly dilate: readonly [number, number, number];
  readonly pad: readonly [number, number, number];
}

/** Tunables (benchmarks and tests vary them; defaults are what the kernels use). */
export interface ConvTuning {
  /** Max contraction block. */
  readonly kcMax: number;
  /** Target bytes of the forward's packed B block. */
  readonly blockBytes: number;
  /** Target bytes of the weight gradient's column block (its columns are the contraction). */
  readonly weightBlockBytes: number;
  /** Target bytes of the micro-kernel loops' A block (mc rows). */
  readonly aBytes: number;
  /** Target bytes of the data gradient's padded planes per chunk. */
  readonly planeBytes: number;
  /** Max column-matrix rows (channels × taps) per data-gradient chunk. */
  readonly maxRows: number;
  /** Problems below this many flops run on the calling thread. */
  readonly minParallelFlops: number;
  /** Max bytes of the zero-padded input copy (images are processed in passes beyond it). */
  readonly padBytes: number;
}

export const DEFAULT_TUNING: ConvTuning = Object.freeze({
  kcMax: 512,
  blockBytes: 192 * 1024,
  weightBlockBytes: 384 * 1024,
  aBytes: 256 * 1024,
  planeBytes: 512 * 1024,
  maxRows: 512,
  minParallelFlops: 2e6,
  padBytes: 32 * 1024 * 1024,
});

const ALIGN = 64;
/** Run-table bytes for a block of `cols` columns (at most one piece per column, 12 bytes each). */
const tableBytes = (cols: number): number => 12 * (cols + 2);
const up = (x: number, a: number): number => Math.ceil(x / a) * a;

/** Expand 1-D/2-D tuples to [d, h, w]. */
export function to3(v: readonly number[], fill: number): [number, number, number] {
  const r = [fill, fill, fill];
  for (let i = 0; i < v.length; i++) r[3 - v.length + i] = v[i] as number;
  return r as [number, number, number];
}

/** 1×1 kernels with stride 1 and no pad see the spatial axes as one row (longer contiguous runs). */
function flatten(g: ConvGeom): ConvGeom {
  const unit = (a: readonly number[], v: number) => a.every((x) => x === v);
  if (!unit(g.kernel, 1) || !unit(g.stride, 1) || !unit(g.pad, 0)) return g;
  const size = g.in[0] * g.in[1] * g.in[2];
  return { ...g, in: [1, 1, size], out: [1, 1, size], dilate: [1, 1, 1] };
}

interface Derived {
  readonly g: ConvGeom;
  readonly ks: number;
  readonly k: number;
  readonly ns: number;
  readonly is: number;
  readonly padded: readonly [number, number, number];
  readonly plane: number;
  readonly hasPad: boolean;
}

function derive(geom: ConvGeom): Derived {
  const g = flatten(geom);
  const ks = g.kernel[0] * g.kernel[1] * g.kernel[2];
  const padded = [0, 1, 2].map((i) => (g.in[i] as number) + 2 * (g.pad[i] as number)) as [
    number,
    number,
    number,
  ];
  return {
    g,
    ks,
    k: g.cg * ks,
    ns: g.out[0] * g.out[1] * g.out[2],
    is: g.in[0] * g.in[1] * g.in[2],
    padded,
    plane: padded[0] * padded[1] * padded[2],
    hasPad: g.pad.some((p) => p > 0),
  };
}

/** Run chunks on `runner`, or inline past the pool's chunk index space. */
function par(runner: ChunkRunner, kernel: CompiledKernel, fn: string, total: number, block: number): void {
  (total >= 1 << 20 ? INLINE_RUNNER : runner).parallelFor(kernel, fn, total, [block]);
}

/** Per-runtime state: the compiled modules (cached on the runtime) and the tile of the GEMM engine. */
export class ConvRunner {
  readonly rt: CpuWasmRuntime;
  readonly gemm: GemmEngine;
  tuning: ConvTuning;
  /** Force a runner (tests: a fake pool; benchmarks: inline). */
  runner: ChunkRunner | undefined;

  constructor(rt: CpuWasmRuntime, gemm: GemmEngine, tuning: ConvTuning = DEFAULT_TUNING) {
    this.rt = rt;
    this.gemm = gemm;
    this.tuning = tuning;
  }

  module(t: GemmType): { kernel: CompiledKernel; tile: Tile } {
    const tile = this.gemm.tile(t);
    const relaxed = this.gemm.relaxed;
    const key = `conv:${t.name}:${tile.mr}x${tile.nr}:${relaxed ? 'relaxed' : 'simd'}`;
    const kernel = this.rt.kernel(key, () => buildConvModule(t, tile, relaxed, this.rt.memoryImport()));
    return { kernel, tile };
  }

  #runnerFor(flops: number): ChunkRunner {
    if (this.runner !== undefined) return this.runner;
    if (flops < this.tuning.minParallelFlops) return INLINE_RUNNER;
    return poolOf(this.rt) ?? INLINE_RUNNER;
  }

  /** Allocations freed together (in reverse) by `release`. */
  #alloc(list: [number, number][], bytes: number): number {
    const size = Math.max(ALIGN, up(bytes, ALIGN)) + ALIGN;
    const p = this.rt.memory.allocator.alloc(size);
    if (p === null) {
      throw new MXNetError(`out of memory allocating ${bytes} bytes of convolution workspace`, {
        op: 'Convolution',
        device: 'cpu(0)',
        hint: 'use a smaller batch or free arrays first',
      });
    }
    list.push([p, size]);
    return p;
  }

  #release(list: [number, number][]): void {
    for (let i = list.length - 1; i >= 0; i--) {
      const [p, size] = list[i] as [number, number];
      this.rt.memory.allocator.free(p, size);
    }
  }

  /** Common slots of a problem; returns the int32 view of the block (valid until the next alloc). */
  #geometrySlots(block: number, d: Derived): Int32Array {
    const v = this.rt.memory.view('int32', block, PARAM_BYTES / 4) as Int32Array;
    v.fill(0);
    const { g } = d;
    const set = (slot: number, x: number): void => {
      v[slot] = x;
    };
    set(S.N, g.n);
    set(S.G, g.groups);
    set(S.CG, g.cg);
    set(S.MG, g.mg);
    set(S.C, g.cg * g.groups);
    set(S.F, g.mg * g.groups);
    [S.D, S.H, S.W].forEach((s, i) => {
      set(s, g.in[i] as number);
    });
    [S.OD, S.OH, S.OW].forEach((s, i) => {
      set(s, g.out[i] as number);
    });
    [S.KD, S.KH, S.KW].forEach((s, i) => {
      set(s, g.kernel[i] as number);
    });
    [S.SD, S.SH, S.SW].forEach((s, i) => {
      set(s, g.stride[i] as number);
    });
    [S.DD, S.DH, S.DW].forEach((s, i) => {
      set(s, g.dilate[i] as number);
    });
    [S.PD, S.PH, S.PW].forEach((s, i) => {
      set(s, g.pad[i] as number);
    });
    [S.DP, S.HP, S.WP].forEach((s, i) => {
      set(s, d.padded[i] as number);
    });
    const [, hp, wp] = d.padded;
    set(S.PLANE, d.plane);
    set(S.HPWP, hp * wp);
    set(S.SDHW, g.stride[0] * hp * wp);
    set(S.SHW, g.stride[1] * wp);
    set(S.DDHW, g.dilate[0] * hp * wp);
    set(S.DHW, g.dilate[1] * wp);
    set(S.KHW, g.kernel[1] * g.kernel[2]);
    set(S.KS, d.ks);
    set(S.K, d.k);
    set(S.OHW, g.out[1] * g.out[2]);
    set(S.NS, d.ns);
    set(S.IS, d.is);
    return v;
  }

  /** Images per pass: all, or as many as keep the zero-padded copy under `padBytes`. */
  #imagesPerPass(d: Derived, es: number): number {
    if (!d.hasPad) return d.g.n;
    const perImage = d.g.cg * d.g.groups * d.plane * es;
    return Math.max(1, Math.min(d.g.n, Math.floor(this.tuning.padBytes / perImage)));
  }

  /** Zero-pad images [n0, n0 + count) of X into xp (the slots read by padCopy are set here). */
  #padImages(
    kernel: CompiledKernel,
    runner: ChunkRunner,
    block: number,
    d: Derived,
    t: GemmType,
    x: number,
    xp: number,
    n0: number,
    count: number,
  ): void {
    const c = d.g.cg * d.g.groups;
    const planes = count * c;
    const v = this.rt.memory.view('int32', block, PARAM_BYTES / 4) as Int32Array;
    v[S.X] = x + n0 * c * d.is * t.es;
    v[S.XP] = xp;
    const ppc = Math.max(1, Math.ceil(planes / (8 * Math.max(1, runner.size))));
    v[S.PPC] = ppc;
    v[S.PLANES] = planes;
    par(runner, kernel, 'padCopy', Math.ceil(planes / ppc), block);
  }

  #columnsFor(bytesPerColumn: number, ns: number, nr: number, minCols: number): number {
    const fit = Math.floor(this.tuning.blockBytes / bytesPerColumn / nr) * nr;
    return Math.min(up(ns, nr), Math.max(minCols, nr, fit));
  }

  /** Y (+)= conv(X, W) + bias. Addresses are byte addresses; bias null = none. */
  forward(
    t: GemmType,
    geom: ConvGeom,
    x: number,
    w: number,
    bias: number | null,
    y: number,
    accumulate: boolean,
  ): void {
    const d = derive(geom);
    const { g } = d;
    if (g.n === 0 || g.mg === 0 || d.ns === 0) return;
    if (d.k === 0) {
      this.#fillBias(t, g.n, g.mg * g.groups, d.ns, bias, y, accumulate);
      return;
    }
    const { kernel, tile } = this.module(t);
    const flops = 2 * g.n * g.groups * g.mg * d.k * d.ns;
    const runner = this.#runnerFor(flops);
    const threads = Math.max(1, runner.size);
    const E = t.es;
    const kb = Math.ceil(d.k / this.tuning.kcMax);
    const kc = Math.ceil(d.k / kb);
    let ncols = this.#columnsFor(kc * E, d.ns, tile.nr, tile.nr);
    // Enough chunks for every thread (4 each), down to one panel per chunk.
    while (ncols > tile.nr && g.n * g.groups * Math.ceil(d.ns / ncols) < 4 * threads) {
      ncols = Math.max(tile.nr, up(Math.ceil(ncols / 2), tile.nr));
    }
    const jb = Math.ceil(d.ns / ncols);
    const mpad = up(g.mg, tile.mr);
    const mc = Math.max(
      tile.mr,
      Math.min(up(g.mg, tile.mr), Math.floor(this.tuning.aBytes / (kc * E) / tile.mr) * tile.mr),
    );
    const offB = 0;
    const offTmp = up(kc * ncols * E, ALIGN);
    const offTbl = up(offTmp + tile.mr * tile.nr * E, ALIGN);
    const scratchBytes = up(offTbl + tableBytes(ncols), ALIGN);
    const list: [number, number][] = [];
    try {
      const block = this.#alloc(list, PARAM_BYTES);
      const packed = this.#alloc(list, g.groups * mpad * d.k * E);
      const scratch = this.#alloc(list, scratchBytes * threads);
      const nb = this.#imagesPerPass(d, E);
      const xp = d.hasPad ? this.#alloc(list, nb * g.cg * g.groups * d.plane * E) : 0;
      const v = this.#geometrySlots(block, d);
      v[S.WT] = w;
      v[S.BIAS] = bias ?? 0;
      v[S.HAS_BIAS] = bias === null ? 0 : 1;
      v[S.ACC_Y] = accumulate ? 1 : 0;
      v[S.NCOLS] = ncols;
      v[S.JB] = jb;
      v[S.KC] = kc;
      v[S.MC] = mc;
      v[S.PACKED_A] = packed;
      v[S.MPAD] = mpad;
      v[S.SCRATCH] = scratch;
      v[S.SCRATCH_BYTES] = scratchBytes;
      v[S.OFF_B] = offB;
      v[S.OFF_TMP] = offTmp;
      v[S.OFF_TBL] = offTbl;
      (kernel.exports.packW as (c: number, t: number, a: number) => void)(0, 0, block);
      for (let n0 = 0; n0 < g.n; n0 += nb) {
        const count = Math.min(nb, g.n - n0);
        if (d.hasPad) this.#padImages(kernel, runner, block, d, t, x, xp, n0, count);
        const u = this.rt.memory.view('int32', block, PARAM_BYTES / 4) as Int32Array;
        u[S.N] = count;
        u[S.XP] = d.hasPad ? xp : x + n0 * g.cg * g.groups * d.is * E;
        u[S.Y] = y + n0 * g.mg * g.groups * d.ns * E;
        par(runner, kernel, 'fwd', count * g.groups * jb, block);
      }
    } finally {
      this.#release(list);
    }
  }

  /** dX (+)= conv_transpose(dY, W) (+ per-channel bias xbias, for Deconvolution). */
  backwardData(
    t: GemmType,
    geom: ConvGeom,
    dy: number,
    w: number,
    dx: number,
    accumulate: boolean,
    xbias: number | null = null,
  ): void {
    const d = derive(geom);
    const { g } = d;
    const c = g.cg * g.groups;
    if (g.n === 0 || c === 0 || d.is === 0) return;
    if (g.mg === 0 || d.ns === 0) {
      this.#fillBias(t, g.n, c, d.is, xbias, dx, accumulate);
      return;
    }
    const { kernel, tile } = this.module(t);
    const flops = 2 * g.n * g.groups * g.mg * d.k * d.ns;
    const runner = this.#runnerFor(flops);
    const threads = Math.max(1, runner.size);
    const E = t.es;
    const lb = Math.ceil(g.mg / this.tuning.kcMax);
    const kcl = Math.ceil(g.mg / lb);
    // Channel block: padded planes ≈ planeBytes and at most ~512 rows (its packed Wᵀ stays in
    // L2), at least 64 rows for the GEMM where possible, and enough chunks for the threads.
    let cb = Math.min(
      Math.floor(this.tuning.planeBytes / (d.plane * E)),
      Math.floor(this.tuning.maxRows / d.ks),
    );
    cb = Math.min(g.cg, Math.max(cb, Math.ceil(64 / d.ks), 1));
    while (cb > 1 && g.n * g.groups * Math.ceil(g.cg / cb) < 2 * threads) cb = Math.ceil(cb / 2);
    const ncb = Math.ceil(g.cg / cb);
    const rows = cb * d.ks;
    const ncols = this.#columnsFor(rows * E, d.ns, tile.nr, tile.nr);
    const jb = Math.ceil(d.ns / ncols);
    const mc = Math.max(
      tile.mr,
      Math.min(up(rows, tile.mr), Math.floor(this.tuning.aBytes / (kcl * E) / tile.mr) * tile.mr),
    );
    let off = 0;
    const place = (bytes: number): number => {
      const at = off;
      off = up(off + bytes, ALIGN);
      return at;
    };
    const offA = place(up(rows, tile.mr) * kcl * E);
    const offB = place(kcl * ncols * E);
    const offCol = place(rows * ncols * E);
    const offTmp = place(tile.mr * tile.nr * E);
    const offDxp = place(cb * d.plane * E);
    const offTbl = place(tableBytes(ncols));
    const scratchBytes = off;
    const list: [number, number][] = [];
    try {
      const block = this.#alloc(list, PARAM_BYTES);
      const scratch = this.#alloc(list, scratchBytes * threads);
      const v = this.#geometrySlots(block, d);
      v[S.WT] = w;
      v[S.DY] = dy;
      v[S.DX] = dx;
      v[S.ACC_DX] = accumulate ? 1 : 0;
      v[S.XBIAS] = xbias ?? 0;
      v[S.HAS_XBIAS] = xbias === null ? 0 : 1;
      v[S.NCOLS] = ncols;
      v[S.JB] = jb;
      v[S.KC] = kcl;
      v[S.MC] = mc;
      v[S.CB] = cb;
      v[S.NCB] = ncb;
      v[S.SCRATCH] = scratch;
      v[S.SCRATCH_BYTES] = scratchBytes;
      v[S.OFF_A] = offA;
      v[S.OFF_B] = offB;
      v[S.OFF_COL] = offCol;
      v[S.OFF_TMP] = offTmp;
      v[S.OFF_DXP] = offDxp;
      v[S.OFF_TBL] = offTbl;
      par(runner, kernel, 'bwdData', g.n * g.groups * ncb, block);
    } finally {
      this.#release(list);
    }
  }

  /** dW (+)= Σ_n dY[n] · col(X[n])ᵀ. */
  backwardWeight(t: GemmType, geom: ConvGeom, x: number, dy: number, dw: number, accumulate: boolean): void {
    const d = derive(geom);
    const { g } = d;
    const count = g.groups * g.mg * d.k;
    if (count === 0) return;
    if (g.n === 0 || d.ns === 0) {
      if (!accumulate) this.rt.memory.view(t.name, dw, count).fill(0 as never);
      return;
    }
    const { kernel, tile } = this.module(t);
    const flops = 2 * g.n * g.groups * g.mg * d.k * d.ns;
    const runner = this.#runnerFor(flops);
    const threads = Math.max(1, runner.size);
    const E = t.es;
    // Contraction (columns) ≥ 64 where the image has them; rows of the column matrix in blocks so
    // that one block (krb × ncols) stays ≈ weightBlockBytes.
    let ncols = Math.floor(this.tuning.weightBlockBytes / (d.k * E) / 8) * 8;
    ncols = Math.min(up(d.ns, 8), this.tuning.kcMax, Math.max(64, ncols));
    while (ncols > 8 && g.n * g.groups * Math.ceil(d.ns / ncols) < 4 * threads) {
      ncols = Math.max(8, up(Math.ceil(ncols / 2), 8));
    }
    const krb = Math.min(
      up(d.k, tile.nr),
      Math.max(tile.nr, Math.floor(this.tuning.weightBlockBytes / (ncols * E) / tile.nr) * tile.nr),
    );
    const jb = Math.ceil(d.ns / ncols);
    const mc = Math.max(
      tile.mr,
      Math.min(up(g.mg, tile.mr), Math.floor(this.tuning.aBytes / (ncols * E) / tile.mr) * tile.mr),
    );
    let off = 0;
    const place = (bytes: number): number => {
      const at = off;
      off = up(off + bytes, ALIGN);
      return at;
    };
    const offCol = place(krb * ncols * E);
    const offA = place(up(g.mg, tile.mr) * ncols * E);
    const offB = place(krb * ncols * E);
    const offTmp = place(tile.mr * tile.nr * E);
    const offTbl = place(tableBytes(ncols));
    const scratchBytes = off;
    const accStride = up(count * E, ALIGN);
    const list: [number, number][] = [];
    try {
      const block = this.#alloc(list, PARAM_BYTES);
      const scratch = this.#alloc(list, scratchBytes * threads);
      const acc = this.#alloc(list, accStride * threads);
      const nb = this.#imagesPerPass(d, E);
      const xp = d.hasPad ? this.#alloc(list, nb * g.cg * g.groups * d.plane * E) : 0;
      this.rt.memory.view(t.name, acc, (accStride * threads) / E).fill(0 as never);
      const v = this.#geometrySlots(block, d);
      v[S.NCOLS] = ncols;
      v[S.JB] = jb;
      v[S.MC] = mc;
      v[S.SCRATCH] = scratch;
      v[S.SCRATCH_BYTES] = scratchBytes;
      v[S.OFF_A] = offA;
      v[S.OFF_B] = offB;
      v[S.OFF_COL] = offCol;
      v[S.OFF_TMP] = offTmp;
      v[S.OFF_TBL] = offTbl;
      v[S.ACC] = acc;
      v[S.KRB] = krb;
      v[S.ACC_STRIDE] = accStride;
      v[S.THREADS] = threads;
      v[S.COUNT] = count;
      v[S.DWT] = dw;
      v[S.ACC_DW] = accumulate ? 1 : 0;
      const rchunk = up(Math.max(1024, Math.ceil(count / (4 * threads))), 8);
      v[S.RCHUNK] = rchunk;
      for (let n0 = 0; n0 < g.n; n0 += nb) {
        const cnt = Math.min(nb, g.n - n0);
        if (d.hasPad) this.#padImages(kernel, runner, block, d, t, x, xp, n0, cnt);
        const u = this.rt.memory.view('int32', block, PARAM_BYTES / 4) as Int32Array;
        u[S.N] = cnt;
        u[S.XP] = d.hasPad ? xp : x + n0 * g.cg * g.groups * d.is * E;
        u[S.DY] = dy + n0 * g.mg * g.groups * d.ns * E;
        par(runner, kernel, 'bwdWeight', cnt * g.groups * jb, block);
      }
      par(runner, kernel, 'reduceAcc', Math.ceil(count / rchunk), block);
    } finally {
      this.#release(list);
    }
  }

  /** out[r] (+)= Σ_n Σ_i src[n, r, i] for src (n, rows, len). */
  biasGrad(
    t: GemmType,
    src: number,
    n: number,
    rows: number,
    len: number,
    out: number,
    accumulate: boolean,
  ): void {
    if (rows === 0) return;
    const { kernel } = this.module(t);
    const runner = this.#runnerFor(n * rows * len * 4);
    const per = Math.max(1, Math.ceil(rows / (4 * Math.max(1, runner.size))));
    const list: [number, number][] = [];
    try {
      const block = this.#alloc(list, PARAM_BYTES);
      const v = this.rt.memory.view('int32', block, PARAM_BYTES / 4) as Int32Array;
      v.fill(0);
      v[S.N] = n;
      v[S.BG_SRC] = src;
      v[S.BG_ROWS] = rows;
      v[S.BG_LEN] = len;
      v[S.BG_OUT] = out;
      v[S.BG_ACC] = accumulate ? 1 : 0;
      v[S.BG_PER] = per;
      par(runner, kernel, 'biasGrad', Math.ceil(rows / per), block);
    } finally {
      this.#release(list);
    }
  }

  /** out (n, rows, len) (+)= bias[r] (or 0): the degenerate case of an empty contraction. */
  #fillBias(
    t: GemmType,
    n: number,
    rows: number,
    len: number,
    bias: number | null,
    out: number,
    accumulate: boolean,
  ): void {
    const o = this.rt.memory.view(t.name, out, n * rows * len) as Float32Array | Float64Array;
    const b = bias === null ? null : (this.rt.memory.view(t.name, bias, rows) as Float32Array | Float64Array);
    for (let i = 0; i < n; i++) {
      for (let r = 0; r < rows; r++) {
        const bv = b ? (b[r] as number) : 0;
        const base = (i * rows + r) * len;
        for (let j = 0; j < len; j++) o[base + j] = (accumulate ? (o[base + j] as number) : 0) + bv;
      }
    }
  }
}
