/**
 * Geometry and blocking of the convolution primitives, as plain arithmetic (no allocation, no
 * wasm): what conv-run.ts allocates, and the geometry and scratch slots it writes into the
 * parameter block. Kept apart from the runner so the block sizes and their reasons read in one
 * place.
 *
 * Blocking is in bytes (float64 gets half the elements): the forward's packed B block
 * (kc × ncols, kc ≤ 512 splitting K evenly) ≈ 192 KiB; the weight gradient's contraction runs over
 * ≥ 64 columns with the column matrix in row blocks of ≈ 384 KiB; the data gradient's channel
 * block keeps its padded planes ≈ 512 KiB and ≤ 512 rows. Chunks are halved until every thread
 * has several. Per-thread scratch is a run of parts at 64-byte boundaries (`ScratchLayout`).
 */
import type { Tile } from '../../../gemm/dtype.js';
import { S } from './conv-params.js';
import { setAxes, setWindow, type Window3 } from './slots.js';

/**
 * A convolution in 3-D form (1-D and 2-D have leading unit axes); sizes in elements. Input, output
 * and kernel extents and stride are the Window3 fields; dilate and pad are [d, h, w] too.
 */
export interface ConvGeom extends Window3 {
  readonly n: number;
  readonly groups: number;
  /** Input channels per group, output channels per group. */
  readonly cg: number;
  readonly mg: number;
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

export const ALIGN = 64;
/** Run-table bytes for a block of `cols` columns (at most one piece per column, 12 bytes each). */
const tableBytes = (cols: number): number => 12 * (cols + 2);
export const up = (x: number, a: number): number => Math.ceil(x / a) * a;

/** 1×1 kernels with stride 1 and no pad see the spatial axes as one row (longer contiguous runs). */
function flatten(g: ConvGeom): ConvGeom {
  const unit = (a: readonly number[], v: number) => a.every((x) => x === v);
  if (!unit(g.kernel, 1) || !unit(g.stride, 1) || !unit(g.pad, 0)) return g;
  const size = g.in[0] * g.in[1] * g.in[2];
  return { ...g, in: [1, 1, size], out: [1, 1, size], dilate: [1, 1, 1] };
}

/** The geometry (flattened where it can be) and the sizes every phase uses. */
export interface Derived {
  readonly g: ConvGeom;
  /** Kernel taps, column-matrix rows (cg·ks), columns per image, input elements per plane. */
  readonly ks: number;
  readonly k: number;
  readonly ns: number;
  readonly is: number;
  /** Padded extents and elements per padded plane. */
  readonly padded: readonly [number, number, number];
  readonly plane: number;
  readonly hasPad: boolean;
}

export function derive(geom: ConvGeom): Derived {
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

/** Flops of one GEMM-shaped phase (all three have M·K·N = groups·mg · k · ns per image). */
export const flopsOf = (d: Derived): number => 2 * d.g.n * d.g.groups * d.g.mg * d.k * d.ns;

/** Per-thread scratch: parts placed one after another at ALIGN boundaries, with their offset slots. */
export class ScratchLayout {
  /** [offset slot, byte offset] per part, in placement order. */
  readonly parts: [number, number][] = [];
  /** Bytes per thread so far. */
  bytes = 0;

  place(slot: number, bytes: number): this {
    this.parts.push([slot, this.bytes]);
    this.bytes = up(this.bytes + bytes, ALIGN);
    return this;
  }
}

/** Rows per mc block: A's rows of `rowBytes` each filling aBytes, in mr steps (≥ mr, ≤ rows). */
function rowBlock(tuning: ConvTuning, rows: number, rowBytes: number, mr: number): number {
  return Math.max(mr, Math.min(up(rows, mr), Math.floor(tuning.aBytes / rowBytes / mr) * mr));
}

/** Columns per block: blockBytes worth of columns of `bytesPerColumn`, in nr steps (≥ nr). */
function columnsFor(tuning: ConvTuning, bytesPerColumn: number, ns: number, nr: number): number {
  const fit = Math.floor(tuning.blockBytes / bytesPerColumn / nr) * nr;
  return Math.min(up(ns, nr), Math.max(nr, fit));
}

/** Halve the column block (in `unit` steps) until there are 4 chunks per thread. */
function halveColumns(ncols: number, unit: number, d: Derived, threads: number): number {
  let cols = ncols;
  while (cols > unit && d.g.n * d.g.groups * Math.ceil(d.ns / cols) < 4 * threads) {
    cols = Math.max(unit, up(Math.ceil(cols / 2), unit));
  }
  return cols;
}

export interface ForwardPlan {
  /** Contraction block, columns per chunk and column blocks per image. */
  readonly kc: number;
  readonly ncols: number;
  readonly jb: number;
  /** Rows of each group's packed weights (mg rounded up to mr) and rows per mc block. */
  readonly mpad: number;
  readonly mc: number;
  readonly scratch: ScratchLayout;
}

export function forwardPlan(
  d: Derived,
  tile: Tile,
  es: number,
  threads: number,
  tuning: ConvTuning,
): ForwardPlan {
  const kb = Math.ceil(d.k / tuning.kcMax);
  const kc = Math.ceil(d.k / kb);
  // Enough chunks for every thread (4 each), down to one panel per chunk.
  const ncols = halveColumns(columnsFor(tuning, kc * es, d.ns, tile.nr), tile.nr, d, threads);
  const scratch = new ScratchLayout()
    .place(S.OFF_B, kc * ncols * es)
    .place(S.OFF_TMP, tile.mr * tile.nr * es)
    .place(S.OFF_TBL, tableBytes(ncols));
  return {
    kc,
    ncols,
    jb: Math.ceil(d.ns / ncols),
    mpad: up(d.g.mg, tile.mr),
    mc: rowBlock(tuning, d.g.mg, kc * es, tile.mr),
    scratch,
  };
}

export interface DataPlan {
  /** Contraction block (over mg), channels per chunk and channel blocks per group. */
  readonly kc: number;
  readonly cb: number;
  readonly ncb: number;
  /** Columns per block and blocks per image, rows per mc block. */
  readonly ncols: number;
  readonly jb: number;
  readonly mc: number;
  readonly scratch: ScratchLayout;
}

export function dataPlan(d: Derived, tile: Tile, es: number, threads: number, tuning: ConvTuning): DataPlan {
  const { g } = d;
  const lb = Math.ceil(g.mg / tuning.kcMax);
  const kc = Math.ceil(g.mg / lb);
  // Channel block: padded planes ≈ planeBytes and at most ~512 rows (its packed Wᵀ stays in
  // L2), at least 64 rows for the GEMM where possible, and enough chunks for the threads.
  let cb = Math.min(Math.floor(tuning.planeBytes / (d.plane * es)), Math.floor(tuning.maxRows / d.ks));
  cb = Math.min(g.cg, Math.max(cb, Math.ceil(64 / d.ks), 1));
  while (cb > 1 && g.n * g.groups * Math.ceil(g.cg / cb) < 2 * threads) cb = Math.ceil(cb / 2);
  const rows = cb * d.ks;
  const ncols = columnsFor(tuning, rows * es, d.ns, tile.nr);
  const scratch = new ScratchLayout()
    .place(S.OFF_A, up(rows, tile.mr) * kc * es)
    .place(S.OFF_B, kc * ncols * es)
    .place(S.OFF_COL, rows * ncols * es)
    .place(S.OFF_TMP, tile.mr * tile.nr * es)
    .place(S.OFF_DXP, cb * d.plane * es)
    .place(S.OFF_TBL, tableBytes(ncols));
  return {
    kc,
    cb,
    ncb: Math.ceil(g.cg / cb),
    ncols,
    jb: Math.ceil(d.ns / ncols),
    mc: rowBlock(tuning, rows, kc * es, tile.mr),
    scratch,
  };
}

export interface WeightPlan {
  /** Columns per chunk (the contraction) and blocks per image, column-matrix rows per block. */
  readonly ncols: number;
  readonly jb: number;
  readonly krb: number;
  readonly mc: number;
  readonly scratch: ScratchLayout;
  /** dW elements, bytes per thread accumulator and elements per reduceAcc chunk. */
  readonly count: number;
  readonly accStride: number;
  readonly rchunk: number;
}

export function weightPlan(
  d: Derived,
  tile: Tile,
  es: number,
  threads: number,
  tuning: ConvTuning,
): WeightPlan {
  const { g } = d;
  const count = g.groups * g.mg * d.k;
  // Contraction (columns) ≥ 64 where the image has them; rows of the column matrix in blocks so
  // that one block (krb × ncols) stays ≈ weightBlockBytes.
  const fit = Math.floor(tuning.weightBlockBytes / (d.k * es) / 8) * 8;
  const ncols = halveColumns(Math.min(up(d.ns, 8), tuning.kcMax, Math.max(64, fit)), 8, d, threads);
  const krb = Math.min(
    up(d.k, tile.nr),
    Math.max(tile.nr, Math.floor(tuning.weightBlockBytes / (ncols * es) / tile.nr) * tile.nr),
  );
  const scratch = new ScratchLayout()
    .place(S.OFF_COL, krb * ncols * es)
    .place(S.OFF_A, up(g.mg, tile.mr) * ncols * es)
    .place(S.OFF_B, krb * ncols * es)
    .place(S.OFF_TMP, tile.mr * tile.nr * es)
    .place(S.OFF_TBL, tableBytes(ncols));
  return {
    ncols,
    jb: Math.ceil(d.ns / ncols),
    krb,
    mc: rowBlock(tuning, g.mg, ncols * es, tile.mr),
    scratch,
    count,
    accStride: up(count * es, ALIGN),
    rchunk: up(Math.max(1024, Math.ceil(count / (4 * threads))), 8),
  };
}

/** The geometry slots of a problem (the rest of the block zeroed). */
export function writeGeometry(v: Int32Array, d: Derived): void {
  v.fill(0);
  const { g } = d;
  const [, hp, wp] = d.padded;
  v[S.N] = g.n;
  v[S.G] = g.groups;
  v[S.CG] = g.cg;
  v[S.MG] = g.mg;
  v[S.C] = g.cg * g.groups;
  v[S.F] = g.mg * g.groups;
  setWindow(v, S, g);
  setAxes(v, [S.DD, S.DH, S.DW], g.dilate);
  setAxes(v, [S.PD, S.PH, S.PW], g.pad);
  setAxes(v, [S.DP, S.HP, S.WP], d.padded);
  v[S.PLANE] = d.plane;
  v[S.HPWP] = hp * wp;
  v[S.SDHW] = g.stride[0] * hp * wp;
  v[S.SHW] = g.stride[1] * wp;
  v[S.DDHW] = g.dilate[0] * hp * wp;
  v[S.DHW] = g.dilate[1] * wp;
  v[S.KHW] = g.kernel[1] * g.kernel[2];
  v[S.KS] = d.ks;
  v[S.K] = d.k;
  v[S.OHW] = g.out[1] * g.out[2];
  v[S.NS] = d.ns;
  v[S.IS] = d.is;
}

/** The per-thread scratch slots of a plan. */
export function writeScratch(v: Int32Array, scratch: number, layout: ScratchLayout): void {
  v[S.SCRATCH] = scratch;
  v[S.SCRATCH_BYTES] = layout.bytes;
  for (const [slot, offset] of layout.parts) v[slot] = offset;
}
