/**
 * Drivers of the convolution module (conv-wasm.ts): workspace, parameter block and phases for the
 * primitives every Convolution/Deconvolution kernel is made of —
 *   forward(X, W, bias) → Y, backwardData(dY, W) → dX, backwardWeight(X, dY) → dW, biasGrad —
 * each in a convolution's own terms (Deconvolution is the transpose: its forward is a
 * backwardData, its data gradient a forward; see index.ts). The block sizes come from conv-plan.ts;
 * this file only allocates, fills the slots and runs the chunks.
 *
 * The zero-padded input copy is made for as many images as fit in 32 MiB at a time. Problems under
 * ~2 MFLOP run inline on the calling thread. Measured on the 2-core dev container (Zen 5, Node 20,
 * no relaxed SIMD), float32, conv 8×64→64×56²×3×3: forward 55-57 GFLOP/s on one thread, 92-113 on
 * two (the GEMM engine's own ceiling: ~57 / ~113 at 1024²); the micro-kernel takes ~82 % of the
 * time, im2col ~9 %.
 */
import { MXNetError } from '@mx/base';
import type { GemmType, Tile } from '../../../gemm/dtype.js';
import type { GemmEngine } from '../../../gemm/engine.js';
import { type ChunkRunner, INLINE_RUNNER } from '../../../gemm/gemm.js';
import type { CompiledKernel, CpuWasmRuntime } from '../../../runtime.js';
import { poolOf } from '../../../threads/index.js';
import { PARAM_BYTES, S } from './conv-params.js';
import {
  ALIGN,
  type ConvGeom,
  type ConvTuning,
  DEFAULT_TUNING,
  type Derived,
  dataPlan,
  derive,
  flopsOf,
  forwardPlan,
  up,
  weightPlan,
  writeGeometry,
  writeScratch,
} from './conv-plan.js';
import { buildConvModule } from './conv-wasm.js';

export { type ConvGeom, type ConvTuning, DEFAULT_TUNING } from './conv-plan.js';

/** Run chunks on `runner`, or inline past the pool's chunk index space. */
function par(runner: ChunkRunner, kernel: CompiledKernel, fn: string, total: number, block: number): void {
  (total >= 1 << 20 ? INLINE_RUNNER : runner).parallelFor(kernel, fn, total, [block]);
}

/** The blocking of one primitive (conv-plan.ts). */
type Planner<T> = (d: Derived, tile: Tile, es: number, threads: number, tuning: ConvTuning) => T;

/** Workspace allocation (bytes → address) inside `withWorkspace`. */
type Alloc = (bytes: number) => number;

/** One problem being run: its module, runner, parameter block, geometry and element type. */
interface Run {
  readonly kernel: CompiledKernel;
  readonly runner: ChunkRunner;
  readonly block: number;
  readonly d: Derived;
  readonly t: GemmType;
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

  /** body(alloc), then free what it allocated (in reverse), also when it throws. */
  #withWorkspace(body: (alloc: Alloc) => void): void {
    const list: [number, number][] = [];
    try {
      body((bytes) => this.#alloc(list, bytes));
    } finally {
      this.#release(list);
    }
  }

  /** The module, runner and thread count for problem d, and the blocking `planFor` makes for them. */
  #setup<T>(
    t: GemmType,
    d: Derived,
    planFor: Planner<T>,
  ): { kernel: CompiledKernel; runner: ChunkRunner; threads: number; plan: T } {
    const { kernel, tile } = this.module(t);
    const runner = this.#runnerFor(flopsOf(d));
    const threads = Math.max(1, runner.size);
    return { kernel, runner, threads, plan: planFor(d, tile, t.es, threads, this.tuning) };
  }

  /** The int32 view of a parameter block (valid until the next alloc). */
  #params(block: number): Int32Array {
    return this.rt.memory.view('int32', block, PARAM_BYTES / 4) as Int32Array;
  }

  /** Images per pass (all, or as many as keep the padded copy under padBytes) and the copy (0: none). */
  #paddedInput(alloc: Alloc, d: Derived, es: number): { nb: number; xp: number } {
    const { g } = d;
    if (!d.hasPad) return { nb: g.n, xp: 0 };
    const perImage = g.cg * g.groups * d.plane * es;
    const nb = Math.max(1, Math.min(g.n, Math.floor(this.tuning.padBytes / perImage)));
    return { nb, xp: alloc(nb * g.cg * g.groups * d.plane * es) };
  }

  /** Zero-pad images [n0, n0 + count) of X into xp (the slots read by padCopy are set here). */
  #padImages(r: Run, x: number, xp: number, n0: number, count: number): void {
    const c = r.d.g.cg * r.d.g.groups;
    const planes = count * c;
    const v = this.#params(r.block);
    v[S.X] = x + n0 * c * r.d.is * r.t.es;
    v[S.XP] = xp;
    const ppc = Math.max(1, Math.ceil(planes / (8 * Math.max(1, r.runner.size))));
    v[S.PPC] = ppc;
    v[S.PLANES] = planes;
    par(r.runner, r.kernel, 'padCopy', Math.ceil(planes / ppc), r.block);
  }

  /**
   * Run `fn` (chunks: image, group, column block) over the images in passes of nb: pad the pass's
   * images into xp (or read X in place), point XP and the output-shaped array `outSlot` at them.
   */
  #imagePasses(
    r: Run,
    fn: string,
    jb: number,
    x: number,
    xp: number,
    nb: number,
    outSlot: number,
    out: number,
  ): void {
    const { d } = r;
    const { g } = d;
    const E = r.t.es;
    for (let n0 = 0; n0 < g.n; n0 += nb) {
      const count = Math.min(nb, g.n - n0);
      if (d.hasPad) this.#padImages(r, x, xp, n0, count);
      const u = this.#params(r.block);
      u[S.N] = count;
      u[S.XP] = d.hasPad ? xp : x + n0 * g.cg * g.groups * d.is * E;
      u[outSlot] = out + n0 * g.mg * g.groups * d.ns * E;
      par(r.runner, r.kernel, fn, count * g.groups * jb, r.block);
    }
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
    const { kernel, runner, threads, plan } = this.#setup(t, d, forwardPlan);
    const E = t.es;
    this.#withWorkspace((alloc) => {
      const block = alloc(PARAM_BYTES);
      const packed = alloc(g.groups * plan.mpad * d.k * E);
      const scratch = alloc(plan.scratch.bytes * threads);
      const { nb, xp } = this.#paddedInput(alloc, d, E);
      const v = this.#params(block);
      writeGeometry(v, d);
      v[S.WT] = w;
      v[S.BIAS] = bias ?? 0;
      v[S.HAS_BIAS] = bias === null ? 0 : 1;
      v[S.ACC_Y] = accumulate ? 1 : 0;
      v[S.NCOLS] = plan.ncols;
      v[S.JB] = plan.jb;
      v[S.KC] = plan.kc;
      v[S.MC] = plan.mc;
      v[S.PACKED_A] = packed;
      v[S.MPAD] = plan.mpad;
      writeScratch(v, scratch, plan.scratch);
      (kernel.exports.packW as (c: number, t: number, a: number) => void)(0, 0, block);
      this.#imagePasses({ kernel, runner, block, d, t }, 'fwd', plan.jb, x, xp, nb, S.Y, y);
    });
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
    const { kernel, runner, threads, plan } = this.#setup(t, d, dataPlan);
    this.#withWorkspace((alloc) => {
      const block = alloc(PARAM_BYTES);
      const scratch = alloc(plan.scratch.bytes * threads);
      const v = this.#params(block);
      writeGeometry(v, d);
      v[S.WT] = w;
      v[S.DY] = dy;
      v[S.DX] = dx;
      v[S.ACC_DX] = accumulate ? 1 : 0;
      v[S.XBIAS] = xbias ?? 0;
      v[S.HAS_XBIAS] = xbias === null ? 0 : 1;
      v[S.NCOLS] = plan.ncols;
      v[S.JB] = plan.jb;
      v[S.KC] = plan.kc;
      v[S.MC] = plan.mc;
      v[S.CB] = plan.cb;
      v[S.NCB] = plan.ncb;
      writeScratch(v, scratch, plan.scratch);
      par(runner, kernel, 'bwdData', g.n * g.groups * plan.ncb, block);
    });
  }

  /** dW (+)= Σ_n dY[n] · col(X[n])ᵀ. */
  backwardWeight(t: GemmType, geom: ConvGeom, x: number, dy: number, dw: number, accumulate: boolean): void {
    const d = derive(geom);
    const { g } = d;
    const count = g.groups * g.mg * d.k;
    if (count === 0) return;
    if (g.n === 0 || d.ns === 0) {
      if (!accumulate) this.rt.zeroBytes(dw, count * t.es);
      return;
    }
    const { kernel, runner, threads, plan } = this.#setup(t, d, weightPlan);
    const E = t.es;
    this.#withWorkspace((alloc) => {
      const block = alloc(PARAM_BYTES);
      const scratch = alloc(plan.scratch.bytes * threads);
      const acc = alloc(plan.accStride * threads);
      const { nb, xp } = this.#paddedInput(alloc, d, E);
      this.rt.zeroBytes(acc, plan.accStride * threads);
      const v = this.#params(block);
      writeGeometry(v, d);
      v[S.NCOLS] = plan.ncols;
      v[S.JB] = plan.jb;
      v[S.MC] = plan.mc;
      writeScratch(v, scratch, plan.scratch);
      v[S.ACC] = acc;
      v[S.KRB] = plan.krb;
      v[S.ACC_STRIDE] = plan.accStride;
      v[S.THREADS] = threads;
      v[S.COUNT] = count;
      v[S.DWT] = dw;
      v[S.ACC_DW] = accumulate ? 1 : 0;
      v[S.RCHUNK] = plan.rchunk;
      this.#imagePasses({ kernel, runner, block, d, t }, 'bwdWeight', plan.jb, x, xp, nb, S.DY, dy);
      par(runner, kernel, 'reduceAcc', Math.ceil(count / plan.rchunk), block);
    });
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
    this.#withWorkspace((alloc) => {
      const block = alloc(PARAM_BYTES);
      const v = this.#params(block);
      v.fill(0);
      v[S.N] = n;
      v[S.BG_SRC] = src;
      v[S.BG_ROWS] = rows;
      v[S.BG_LEN] = len;
      v[S.BG_OUT] = out;
      v[S.BG_ACC] = accumulate ? 1 : 0;
      v[S.BG_PER] = per;
      par(runner, kernel, 'biasGrad', Math.ceil(rows / per), block);
    });
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
