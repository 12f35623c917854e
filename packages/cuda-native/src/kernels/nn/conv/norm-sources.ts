/**
 * The CUDA C of the normalisation layers, ported from cpu-wasm's semantics (webgpu's batch-norm.ts,
 * rows.ts and columns.ts are the same algorithms): statistics are two passes (mean, then
 * Σ (x - mean)²) accumulated in double and combined with a block reduction, so long reductions
 * stay accurate in float32 too; the per-element passes compute in the dtype's compute type.
 *
 * - BatchNorm: one channel per block column (channels.ts), forward writes mean and 1/sqrt(var + eps)
 *   as the hidden outputs and updates the moving statistics in place in training; backward
 *   differentiates through the batch statistics in training, the moving ones otherwise.
 * - LayerNorm/GroupNorm/InstanceNorm: one row per block column; a row is M elements strided by
 *   `inner` (LayerNorm over a non-last axis) or contiguous (the rest). The gamma/beta gradients are
 *   per-channel reductions (channels.ts).
 */
import type { DTypeName } from '@mx/base';
import { ctype, loadC } from '../../../cuda-c.js';
import { CHAN_PROLOGUE, type ChanMode, chanLoop } from './channels.js';
import { BLOCK_SUM, computeC, type Mode, put, source } from './cuda-util.js';

export type RowKind = 'ln' | 'gn' | 'in';

/** BatchNorm forward: inputs x, gamma, beta, moving mean/var; outputs y, mean, invstd. */
export function bnForwardSource(
  dt: DTypeName,
  chan: ChanMode,
  train: boolean,
  fixGamma: boolean,
  modes: readonly [Mode, Mode, Mode],
) {
  const key = `${dt}:${chan}:${train ? 't' : 'g'}${fixGamma ? 'f' : ''}:${modes.join('')}`;
  return source('bn_fwd', key, (entry) => {
    const S = ctype(dt).storage;
    const A = computeC(dt);
    const X = loadC('x', dt, 'i');
    const stats = train
      ? `  const double n = (double)(outer * inner);
  double acc = 0.0;
  ${chanLoop(chan, `acc += (double)${X};`)}
  const double mean = mx_bsum(acc, sh) / n;
  acc = 0.0;
  ${chanLoop(chan, `const double d = (double)${X} - mean; acc += d * d;`)}
  const double sq = mx_bsum(acc, sh);
  const double variance = sq / n;
  const double invstd = (sq == 0.0 && eps == 0.0) ? 0.0 : 1.0 / sqrt(variance + eps);
  if (live && ty == 0) {
    ${put('mm', dt, 'c', `(${A})((double)${loadC('mm', dt, 'c')} * momentum + mean * (1.0 - momentum))`, 'w')}
    ${put('mv', dt, 'c', `(${A})((double)${loadC('mv', dt, 'c')} * momentum + variance * (1.0 - momentum))`, 'w')}
  }
`
      : `  const double mean = live ? (double)${loadC('mm', dt, 'c')} : 0.0;
  const double invstd = live ? 1.0 / sqrt((double)${loadC('mv', dt, 'c')} + eps) : 0.0;
`;
    return `${BLOCK_SUM}extern "C" __global__ void ${entry}(const ${S}* x, const ${S}* gamma, const ${S}* beta, ${S}* mm, ${S}* mv, ${S}* y, ${S}* mean_out, ${S}* var_out, long long outer, long long C, long long inner, double eps, double momentum) {
  __shared__ double sh[256];
${CHAN_PROLOGUE}${stats}  if (live && ty == 0) {
    ${put('mean_out', dt, 'c', `(${A})mean`, modes[1])}
    ${put('var_out', dt, 'c', `(${A})invstd`, modes[2])}
  }
  if (!live) return;
  const ${A} m = (${A})mean;
  const ${A} scale = (${A})(invstd * ${fixGamma ? '1.0' : `(double)${loadC('gamma', dt, 'c')}`});
  const ${A} shift = ${loadC('beta', dt, 'c')};
  ${chanLoop(chan, put('y', dt, 'i', `(${X} - m) * scale + shift`, modes[0]))}
}
`;
  });
}

/** BatchNorm backward: og, mean, var-or-invstd, x, gamma → dx, dgamma, dbeta. */
export function bnBackwardSource(
  dt: DTypeName,
  chan: ChanMode,
  train: boolean,
  fixGamma: boolean,
  modes: readonly [Mode, Mode, Mode],
) {
  const key = `${dt}:${chan}:${train ? 't' : 'g'}${fixGamma ? 'f' : ''}:${modes.join('')}`;
  return source('bn_bwd', key, (entry) => {
    const S = ctype(dt).storage;
    const A = computeC(dt);
    const G = loadC('og', dt, 'i');
    const X = loadC('x', dt, 'i');
    const needSums = modes[1] !== 'n' || modes[2] !== 'n' || (train && modes[0] !== 'n');
    const dxExpr = train ? `(${G} * iw + dd) - (${X} - m) * kk` : `${G} * iw`;
    return `${BLOCK_SUM}extern "C" __global__ void ${entry}(const ${S}* og, const ${S}* mean_in, const ${S}* var_in, const ${S}* x, const ${S}* gamma, ${S}* dx, ${S}* dgamma, ${S}* dbeta, long long outer, long long C, long long inner, double eps) {
  __shared__ double sh[256];
${CHAN_PROLOGUE}  const double n = (double)(outer * inner);
  const double mean = live ? (double)${loadC('mean_in', dt, 'c')} : 0.0;
  const double invstd = live ? ${train ? `(double)${loadC('var_in', dt, 'c')}` : `1.0 / sqrt((double)${loadC('var_in', dt, 'c')} + eps)`} : 0.0;
  double sg = 0.0, sgx = 0.0;
${
  needSums
    ? `  double a1 = 0.0, a2 = 0.0;
  ${chanLoop(chan, `const double g = (double)${G}; a1 += g; a2 += g * ((double)${X} - mean);`)}
  sg = mx_bsum(a1, sh);
  sgx = mx_bsum(a2, sh);
`
    : ''
}  if (!live) return;
  if (ty == 0) {
    ${put('dgamma', dt, 'c', fixGamma ? `(${A})0` : `(${A})(sgx * invstd)`, modes[1])}
    ${put('dbeta', dt, 'c', `(${A})sg`, modes[2])}
  }
  const double w = ${fixGamma ? '1.0' : `(double)${loadC('gamma', dt, 'c')}`};
  const ${A} iw = (${A})(invstd * w);
  const ${A} dd = (${A})((-sg / n) * invstd * w);
  const ${A} kk = (${A})(((sgx * invstd * invstd) / n) * invstd * w);
  const ${A} m = (${A})mean;
  ${modes[0] === 'n' ? '' : chanLoop(chan, put('dx', dt, 'i', dxExpr, modes[0]))}
}
`;
  });
}

/** Row prologue: the row r of this thread column, `live`, the row's first element `base`. */
const ROW_PROLOGUE = `  const int tx = threadIdx.x, ty = threadIdx.y, TY = blockDim.y;
  const long long r = (long long)blockIdx.x * blockDim.x + tx;
  const bool live = r < rows;
  const long long base = (r / inner) * M * inner + r % inner;
`;

const rowLoop = (body: string): string =>
  `if (live) for (long long j = ty; j < M; j += TY) { const long long i = base + j * inner; ${body} }`;

/** gamma/beta index of element j of row r: LayerNorm by position, groups by channel. */
const gammaIdx = (kind: RowKind): string => (kind === 'ln' ? 'j' : '(r % G) * (C / G) + j / spatial');

/** Row norm forward: y = (x - mean)/sd·γ + β; mean and sd (InstanceNorm: var) per row. */
export function rowForwardSource(dt: DTypeName, kind: RowKind, modes: readonly [Mode, Mode, Mode]) {
  return source('norm_rows_fwd', `${dt}:${kind}:${modes.join('')}`, (entry) => {
    const S = ctype(dt).storage;
    const A = computeC(dt);
    const X = loadC('x', dt, 'i');
    return `${BLOCK_SUM}extern "C" __global__ void ${entry}(const ${S}* x, const ${S}* gamma, const ${S}* beta, ${S}* y, ${S}* mean_out, ${S}* spread_out, long long rows, long long M, long long inner, long long C, long long spatial, long long G, double eps) {
  __shared__ double sh[256];
${ROW_PROLOGUE}  double acc = 0.0;
  ${rowLoop(`acc += (double)${X};`)}
  const double mean = mx_bsum(acc, sh) / (double)M;
  acc = 0.0;
  ${rowLoop(`const double d = (double)${X} - mean; acc += d * d;`)}
  const double variance = mx_bsum(acc, sh) / (double)M;
  const double sd = sqrt(variance + eps);
  if (!live) return;
  if (ty == 0) {
    ${put('mean_out', dt, 'r', `(${A})mean`, modes[1])}
    ${put('spread_out', dt, 'r', `(${A})${kind === 'in' ? 'variance' : 'sd'}`, modes[2])}
  }
  const ${A} m = (${A})mean;
  const ${A} rr = (${A})(1.0 / sd);
  ${
    modes[0] === 'n'
      ? ''
      : rowLoop(`const long long gi = ${gammaIdx(kind)};
    ${put('y', dt, 'i', `(${X} - m) * rr * ${loadC('gamma', dt, 'gi')} + ${loadC('beta', dt, 'gi')}`, modes[0])}`)
  }
}
`;
  });
}

/** Row norm data gradient: dx = ((gγ - S1/M) - x̂·r·S2/M)·r, S1 = Σ gγ, S2 = Σ gγ(x - mean). */
export function rowBackwardSource(dt: DTypeName, kind: RowKind, mode: Mode) {
  return source('norm_rows_bwd', `${dt}:${kind}:${mode}`, (entry) => {
    const S = ctype(dt).storage;
    const A = computeC(dt);
    const X = loadC('x', dt, 'i');
    const GG = `${loadC('og', dt, 'i')} * ${loadC('gamma', dt, 'gi')}`;
    const spread = loadC('spread', dt, 'r');
    return `${BLOCK_SUM}extern "C" __global__ void ${entry}(const ${S}* og, const ${S}* x, const ${S}* gamma, const ${S}* mean_in, const ${S}* spread, ${S}* dx, long long rows, long long M, long long inner, long long C, long long spatial, long long G, double eps) {
  __shared__ double sh[256];
${ROW_PROLOGUE}  const double mean = live ? (double)${loadC('mean_in', dt, 'r')} : 0.0;
  const double rd = live ? ${kind === 'in' ? `1.0 / sqrt((double)${spread} + eps)` : `1.0 / (double)${spread}`} : 0.0;
  double a1 = 0.0, a2 = 0.0;
  ${rowLoop(`const long long gi = ${gammaIdx(kind)}; const double gg = (double)(${GG}); a1 += gg; a2 += gg * ((double)${X} - mean);`)}
  const double s1 = mx_bsum(a1, sh);
  const double s2 = mx_bsum(a2, sh);
  if (!live) return;
  const ${A} a = (${A})(s1 / (double)M);
  const ${A} bb = (${A})(rd * s2 / (double)M);
  const ${A} m = (${A})mean;
  const ${A} rr = (${A})rd;
  ${rowLoop(`const long long gi = ${gammaIdx(kind)};
    ${put('dx', dt, 'i', `((${GG} - a) - (${X} - m) * rr * bb) * rr`, mode)}`)}
}
`;
  });
}

/**
 * Row norm gamma/beta gradients per channel c of data (outer, C, inner): dgamma = Σ g (x - mean)·r,
 * dbeta = Σ g, with the element's statistics row o·inner + k (LayerNorm) or o·G + c/(C/G).
 */
export function rowColumnsSource(dt: DTypeName, kind: RowKind, chan: ChanMode, modes: readonly [Mode, Mode]) {
  return source('norm_cols', `${dt}:${kind}:${chan}:${modes.join('')}`, (entry) => {
    const S = ctype(dt).storage;
    const A = computeC(dt);
    const spread = loadC('spread', dt, 'sr');
    const rd = kind === 'in' ? `1.0 / sqrt((double)${spread} + eps)` : `1.0 / (double)${spread}`;
    const sr = kind === 'ln' ? 'o * inner + k' : 'o * G + c / (C / G)';
    return `${BLOCK_SUM}extern "C" __global__ void ${entry}(const ${S}* og, const ${S}* x, const ${S}* mean_in, const ${S}* spread, ${S}* dgamma, ${S}* dbeta, long long outer, long long C, long long inner, long long G, double eps) {
  __shared__ double sh[256];
${CHAN_PROLOGUE}  double a1 = 0.0, a2 = 0.0;
  ${chanLoop(chan, `const long long sr = ${sr}; const double g = (double)${loadC('og', dt, 'i')}; a1 += g * ((double)${loadC('x', dt, 'i')} - (double)${loadC('mean_in', dt, 'sr')}) * (${rd}); a2 += g;`)}
  const double s1 = mx_bsum(a1, sh);
  const double s2 = mx_bsum(a2, sh);
  if (live && ty == 0) {
    ${put('dgamma', dt, 'c', `(${A})s1`, modes[0])}
    ${put('dbeta', dt, 'c', `(${A})s2`, modes[1])}
  }
}
`;
  });
}
