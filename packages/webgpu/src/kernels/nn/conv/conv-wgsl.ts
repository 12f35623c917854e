/**
 * WGSL pieces the implicit-GEMM convolution shaders share (conv-forward.ts, conv-backward.ts):
 * reading the conv uniform words, multi-index decomposition and row-major linearisation over the
 * spatial axes (generated for the real rank, so no unit axes cost divisions), the per-group
 * prologue, and binding/launching on the linalg GEMM skeleton.
 */
import type { GpuBlob } from '../../../kernel.js';
import type { WebGpuRuntime } from '../../../runtime.js';
import { bindBlobs, declareArrays } from '../../../wgsl.js';
import { type GemmShader, runGemm, USER_WORDS } from '../../linalg/tiled-gemm.js';
import { CW } from './geometry.js';

export const P = (i: number): string => `pu(${USER_WORDS + i}u)`;
/** Axis word: 0 in, 1 out, 2 kernel, 3 stride, 4 dilate, 5 pad. */
export const AX = (a: number, j: number): string => P(CW.AXES + 6 * a + j);
export const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

/** Statements `let <p>0.. = ` the multi-index of `idx` over extents (axis word j). */
export function split(p: string, idx: string, j: number, nd: number): string {
  if (nd === 1) return `let ${p}0 = ${idx};`;
  if (nd === 2) return `let ${p}0 = ${idx} / ${AX(1, j)}; let ${p}1 = ${idx} - ${p}0 * ${AX(1, j)};`;
  return `let ${p}0 = ${idx} / (${AX(1, j)} * ${AX(2, j)}); let ${p}r = ${idx} - ${p}0 * ${AX(1, j)} * ${AX(2, j)}; let ${p}1 = ${p}r / ${AX(2, j)}; let ${p}2 = ${p}r - ${p}1 * ${AX(2, j)};`;
}

/** Row-major linear index of i32 coordinates `<p>a` over extents (axis word j). */
export function linear(p: string, j: number, nd: number): string {
  let e = `u32(${p}0)`;
  for (let a = 1; a < nd; a++) e = `(${e} * ${AX(a, j)} + u32(${p}${a}))`;
  return e;
}

export const COMMON = `  let N = ${P(CW.N)}; let G = ${P(CW.G)}; let CG = ${P(CW.CG)}; let MG = ${P(CW.MG)};
  let NS = ${P(CW.NS)}; let IS = ${P(CW.IS)}; let KS = ${P(CW.KS)};
  let C = G * CG; let F = G * MG; let g = bz;
`;

export interface Bufs {
  readonly names: string[];
  readonly decls: string;
  readonly key: string;
  readonly buffers: GPUBuffer[];
}

export function bind(blobs: readonly GpuBlob[]): Bufs {
  const b = bindBlobs(blobs);
  const { decls, names } = declareArrays(
    b,
    blobs.map((x) => x.dtype),
  );
  return { names, decls, key: b.key, buffers: b.buffers };
}

export function launch(
  rt: WebGpuRuntime,
  sh: GemmShader,
  bufs: Bufs,
  m: number,
  n: number,
  k: number,
  groups: number,
  words: number[],
  splits = 1,
): void {
  runGemm(rt, sh, bufs.buffers, { m, n, k, batch: groups, alpha: 1, splits, user: words });
}
