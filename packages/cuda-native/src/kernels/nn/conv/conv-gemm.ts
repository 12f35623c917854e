/**
 * The three convolution primitives as im2col/col2im kernels plus cuBLAS GEMMs, per group g (row-major
 * terms; W_g is (mg, cg·KS), col_g (cg·KS, NS) per image):
 *
 *   forward         Y_g = W_g · col_g(X)                       (+ bias per output channel)
 *   backwardData    col_g = W_gᵀ · dY_g, then dX = col2im(col) (+ bias per input channel: Deconvolution)
 *   backwardWeight  dW_g (+)= dY_gᵀᵀ · col_gᵀ over the whole chunk at once: dY is transposed to
 *                   (F, B·NS) and the chunk's columns laid side by side, so the sum over images is
 *                   the GEMM's K and one call (batched over groups) covers the chunk.
 *
 * The batch is processed in chunks of images so the column scratch stays ≤ SCRATCH_LIMIT. Forward and
 * data-gradient GEMMs share W across images (stride 0) and are batched over images per group, or over
 * groups per image, whichever needs fewer calls. A 1×1, stride-1, unpadded window skips im2col and
 * col2im (the image is its own column matrix). Scratch is requested once per op by the caller
 * (`scratchFor`), so the primitives of one backward op share it.
 */
import type { DTypeName } from '@mx/base';
import { BLOCK, blocksFor, type CudaSource, ctype, type KernelArg } from '../../../cuda-c.js';
import type { CudaRuntime } from '../../../runtime.js';
import { chanPlan } from './channels.js';
import { type ConvGeom, geomDims, isPointwise, sizes } from './conv-geom.js';
import {
  biasAddSource,
  biasGradSource,
  col2imSource,
  im2colSource,
  indexC,
  transposeSource,
} from './conv-sources.js';
import type { Mode } from './cuda-util.js';
import { type ChunkPlan, planChunks, SCRATCH_LIMIT, toColumnMajor } from './gemm-plan.js';

/** What every primitive needs: the runtime, the op (for errors) and the dtype. */
export interface ConvRun {
  readonly rt: CudaRuntime;
  readonly op: string;
  readonly dt: DTypeName;
}

const ptr = (v: number): KernelArg => ({ t: 'ptr', v });
const i64 = (v: number): KernelArg => ({ t: 'i64', v });
const dims = (v: readonly number[]): KernelArg => ({ t: 'dims', v });

function launch1d(rt: CudaRuntime, src: CudaSource, total: number, args: readonly KernelArg[]): void {
  if (total > 0) rt.launch(src, [blocksFor(total)], [BLOCK], args);
}

/** The scratch bound of a chunk (tests lower it to exercise multi-pass batches). */
export const convTuning = { scratchLimit: SCRATCH_LIMIT };

/** Scratch plans of the primitives (bytes per image of each piece). */
export function planForward(g: ConvGeom, dt: DTypeName): ChunkPlan {
  const s = sizes(g);
  return planChunks(
    g.n,
    isPointwise(g) ? [] : [s.c * s.ks * s.ns * ctype(dt).bytes],
    convTuning.scratchLimit,
  );
}

export function planData(g: ConvGeom, dt: DTypeName, bias: boolean): ChunkPlan {
  const s = sizes(g);
  return planChunks(
    g.n,
    isPointwise(g) && !bias ? [] : [s.c * s.ks * s.ns * ctype(dt).bytes],
    convTuning.scratchLimit,
  );
}

export function planWeight(g: ConvGeom, dt: DTypeName): ChunkPlan {
  const s = sizes(g);
  const es = ctype(dt).bytes;
  return planChunks(g.n, [s.c * s.ks * s.ns * es, s.f * s.ns * es], convTuning.scratchLimit);
}

/** One scratch allocation large enough for every plan (0 when none needs any). */
export function scratchFor(rt: CudaRuntime, plans: readonly ChunkPlan[]): number {
  const bytes = Math.max(0, ...plans.map((p) => p.bytes));
  return bytes > 0 ? rt.temp(bytes) : 0;
}

/**
 * Y_g,b = W_g · col_g,b (beta 0 or 1) for B images from image 0 of the given bases: `col` holds
 * per-image blocks (imgStride apart), Y's images F·NS apart. Also dX's col = W_gᵀ · dY (transW).
 */
function groupGemms(
  r: ConvRun,
  g: ConvGeom,
  B: number,
  p: {
    /** Row-major A = W_g (mg × cg·KS), or its transpose. */
    transW: boolean;
    w: number;
    /** The other operand (rows × NS per image and group) and its image stride. */
    src: number;
    srcImg: number;
    srcRows: number;
    dst: number;
    dstImg: number;
    dstRows: number;
    beta: number;
  },
): void {
  const s = sizes(g);
  const es = ctype(r.dt).bytes;
  const kk = g.cg * s.ks;
  const [m, k] = p.transW ? [kk, g.mg] : [g.mg, kk];
  const wG = g.mg * kk;
  const call = (w: number, sA: number, src: number, sB: number, dst: number, sC: number, batch: number) =>
    r.rt.gemm(
      toColumnMajor(
        {
          m,
          n: s.ns,
          k,
          a: w,
          lda: kk,
          transA: p.transW,
          strideA: sA,
          b: src,
          ldb: s.ns,
          transB: false,
          strideB: sB,
          c: dst,
          ldc: s.ns,
          strideC: sC,
          alpha: 1,
          beta: p.beta,
          batch,
          dtype: r.dt,
        },
        r.op,
      ),
    );
  if (g.groups <= B) {
    for (let gi = 0; gi < g.groups; gi++) {
      call(
        p.w + gi * wG * es,
        0,
        p.src + gi * p.srcRows * s.ns * es,
        p.srcImg,
        p.dst + gi * p.dstRows * s.ns * es,
        p.dstImg,
        B,
      );
    }
  } else {
    for (let b = 0; b < B; b++) {
      call(
        p.w,
        wG,
        p.src + b * p.srcImg * es,
        p.srcRows * s.ns,
        p.dst + b * p.dstImg * es,
        p.dstRows * s.ns,
        g.groups,
      );
    }
  }
}

/** y[n, f, p] += bias[f] over all of y (N, F, NS). */
function addBias(r: ConvRun, y: number, bias: number, n: number, f: number, ns: number): void {
  launch1d(r.rt, biasAddSource(r.dt), n * f * ns, [ptr(y), ptr(bias), i64(n * f * ns), i64(f), i64(ns)]);
}

/** Y (=|+=) conv(X, W) (+ bias per output channel); addresses are device addresses. */
export function convForward(
  r: ConvRun,
  g: ConvGeom,
  plan: ChunkPlan,
  scratch: number,
  a: { x: number; w: number; bias: number | null; y: number },
  add: boolean,
): void {
  const s = sizes(g);
  const es = ctype(r.dt).bytes;
  if (g.n === 0 || s.f * s.ns === 0) return;
  if (s.c * s.ks === 0) {
    if (!add) r.rt.memset(a.y, 0, g.n * s.f * s.ns * es);
  } else {
    const pointwise = isPointwise(g);
    const [ext, kd, sp] = geomDims(g);
    const colImg = s.c * s.ks * s.ns;
    for (let n0 = 0; n0 < g.n; n0 += plan.chunk) {
      const B = Math.min(plan.chunk, g.n - n0);
      const x = a.x + n0 * s.c * s.is * es;
      let col = x;
      if (!pointwise) {
        col = scratch;
        const total = B * colImg;
        launch1d(r.rt, im2colSource(r.dt, indexC(total)), total, [
          ptr(x),
          ptr(col),
          dims(ext),
          dims(kd),
          dims(sp),
          i64(total),
          i64(s.ns),
          i64(colImg),
          i64(s.c * s.is),
        ]);
      }
      groupGemms(r, g, B, {
        transW: false,
        w: a.w,
        src: col,
        srcImg: colImg,
        srcRows: g.cg * s.ks,
        dst: a.y + n0 * s.f * s.ns * es,
        dstImg: s.f * s.ns,
        dstRows: g.mg,
        beta: add ? 1 : 0,
      });
    }
  }
  if (a.bias !== null) addBias(r, a.y, a.bias, g.n, s.f, s.ns);
}

/** dX (=|+=) the data gradient of conv(X, W) for dY (+ bias per input channel: Deconvolution). */
export function convBackwardData(
  r: ConvRun,
  g: ConvGeom,
  plan: ChunkPlan,
  scratch: number,
  a: { dy: number; w: number; dx: number; bias: number | null },
  add: boolean,
): void {
  const s = sizes(g);
  const es = ctype(r.dt).bytes;
  if (g.n === 0 || s.c * s.is === 0) return;
  const mode: Mode = add ? 'a' : 'w';
  if (s.f * s.ks === 0) {
    if (!add) r.rt.memset(a.dx, 0, g.n * s.c * s.is * es);
    if (a.bias !== null) addBias(r, a.dx, a.bias, g.n, s.c, s.is);
    return;
  }
  const colImg = s.c * s.ks * s.ns;
  if (isPointwise(g) && a.bias === null) {
    for (let n0 = 0; n0 < g.n; n0 += plan.chunk) {
      const B = Math.min(plan.chunk, g.n - n0);
      groupGemms(r, g, B, {
        transW: true,
        w: a.w,
        src: a.dy + n0 * s.f * s.ns * es,
        srcImg: s.f * s.ns,
        srcRows: g.mg,
        dst: a.dx + n0 * colImg * es,
        dstImg: colImg,
        dstRows: g.cg * s.ks,
        beta: add ? 1 : 0,
      });
    }
    return;
  }
  const [ext, kd, sp] = geomDims(g);
  for (let n0 = 0; n0 < g.n; n0 += plan.chunk) {
    const B = Math.min(plan.chunk, g.n - n0);
    groupGemms(r, g, B, {
      transW: true,
      w: a.w,
      src: a.dy + n0 * s.f * s.ns * es,
      srcImg: s.f * s.ns,
      srcRows: g.mg,
      dst: scratch,
      dstImg: colImg,
      dstRows: g.cg * s.ks,
      beta: 0,
    });
    const total = B * s.c * s.is;
    const bias = a.bias !== null;
    launch1d(r.rt, col2imSource(r.dt, indexC(Math.max(total, B * colImg)), mode, bias), total, [
      ptr(scratch),
      ptr(a.dx + n0 * s.c * s.is * es),
      ...(a.bias !== null ? [ptr(a.bias)] : []),
      dims(ext),
      dims(kd),
      dims(sp),
      i64(total),
      i64(s.ns),
      i64(colImg),
    ]);
  }
}

/** dW (=|+=) the weight gradient of conv(X, W) for dY. */
export function convBackwardWeight(
  r: ConvRun,
  g: ConvGeom,
  plan: ChunkPlan,
  scratch: number,
  a: { x: number; dy: number; dw: number },
  add: boolean,
): void {
  const s = sizes(g);
  const es = ctype(r.dt).bytes;
  const kk = g.cg * s.ks;
  if (s.f * kk === 0) return;
  if (g.n === 0 || s.ns === 0) {
    if (!add) r.rt.memset(a.dw, 0, s.f * kk * es);
    return;
  }
  const [ext, kd, sp] = geomDims(g);
  const col = scratch;
  const dyT = scratch + (plan.offsets[1] as number);
  for (let n0 = 0; n0 < g.n; n0 += plan.chunk) {
    const B = Math.min(plan.chunk, g.n - n0);
    const bn = B * s.ns;
    const colTotal = B * s.c * s.ks * s.ns;
    launch1d(r.rt, im2colSource(r.dt, indexC(colTotal)), colTotal, [
      ptr(a.x + n0 * s.c * s.is * es),
      ptr(col),
      dims(ext),
      dims(kd),
      dims(sp),
      i64(colTotal),
      i64(bn),
      i64(s.ns),
      i64(s.c * s.is),
    ]);
    const dyTotal = B * s.f * s.ns;
    launch1d(r.rt, transposeSource(r.dt, indexC(dyTotal)), dyTotal, [
      ptr(a.dy + n0 * s.f * s.ns * es),
      ptr(dyT),
      i64(dyTotal),
      i64(s.f),
      i64(B),
      i64(s.ns),
    ]);
    r.rt.gemm(
      toColumnMajor(
        {
          m: g.mg,
          n: kk,
          k: bn,
          a: dyT,
          lda: bn,
          transA: false,
          strideA: g.mg * bn,
          b: col,
          ldb: bn,
          transB: true,
          strideB: kk * bn,
          c: a.dw,
          ldc: kk,
          strideC: g.mg * kk,
          alpha: 1,
          beta: add || n0 > 0 ? 1 : 0,
          batch: g.groups,
          dtype: r.dt,
        },
        r.op,
      ),
    );
  }
}

/** db (=|+=) Σ over images and positions of dy (N, F, NS...), per channel. */
export function convBiasGrad(r: ConvRun, dy: number, shape: readonly number[], db: number, mode: Mode): void {
  const n = shape[0] as number;
  const f = shape[1] as number;
  const ns = shape.slice(2).reduce((x, y) => x * y, 1);
  if (mode === 'n' || f === 0) return;
  const plan = chanPlan(n, f, ns);
  r.rt.launch(
    biasGradSource(r.dt, mode, plan.mode),
    [plan.grid],
    [plan.block[0], plan.block[1]],
    [ptr(dy), ptr(db), i64(n), i64(f), i64(ns)],
  );
}
