/**
 * The loop passes of the norm kernels (see loops.ts for the notation). Operand letters: x data,
 * g output gradient, m mean, r inverse std, G/B gamma/beta streams, lowercase scalars per item,
 * uppercase streams. Three layouts cover every op:
 *
 * - runs: contiguous runs with per-run scalars (BatchNorm's (outer, channel) segments, the rows of
 *   InstanceNorm/GroupNorm, LayerNorm over the last axis with gamma/beta as streams);
 * - columns: reductions down the rows of a matrix into per-column partial sums, applies with
 *   per-column vectors (channel-last BatchNorm; LayerNorm over a non-last axis, where the rows are
 *   the channels and the columns the trailing positions).
 */
import { type LoopDef, T } from './loops.js';

const { op, add, sub, mul } = T;
const l0 = T.let(0);

// ---- runs
/** Σ x */
export const SUM: LoopDef = { name: 'sum', ops: ['v'], sums: [op(0)] };
/** Σ (x - m)² */
export const SQDEV: LoopDef = {
  name: 'sqdev',
  ops: ['v', 's'],
  lets: [sub(op(0), op(1))],
  sums: [mul(l0, l0)],
};
/** out = (x - m) * s + b */
export const AFFINE: LoopDef = {
  name: 'affine',
  ops: ['v', 's', 's', 's'],
  out: add(mul(sub(op(0), op(1)), op(2)), op(3)),
};
/** Σ g, Σ g (x - m)   (g, x, m) */
export const DOT2: LoopDef = {
  name: 'dot2',
  ops: ['v', 'v', 's'],
  sums: [op(0), mul(op(0), sub(op(1), op(2)))],
};
/** out = (g a + d) - (x - m) k   (g, x, a, d, m, k) */
export const BWD: LoopDef = {
  name: 'bwd',
  ops: ['v', 'v', 's', 's', 's', 's'],
  out: sub(add(mul(op(0), op(2)), op(3)), mul(sub(op(1), op(4)), op(5))),
};
/** out = g a */
export const SCALE: LoopDef = { name: 'scale', ops: ['v', 's'], out: mul(op(0), op(1)) };
/** out = ((x - m) r) G + B   (x, m, r, G, B) */
export const LN_APPLY: LoopDef = {
  name: 'lnApply',
  ops: ['v', 's', 's', 'v', 'v'],
  out: add(mul(mul(sub(op(0), op(1)), op(2)), op(3)), op(4)),
};
/** Σ g G, Σ g G (x - m)   (g, x, G, m) */
export const LN_DOT: LoopDef = {
  name: 'lnDot',
  ops: ['v', 'v', 'v', 's'],
  lets: [mul(op(0), op(2))],
  sums: [l0, mul(l0, sub(op(1), op(3)))],
};
/**
 * x̂ = (x - m) r; out = ((g G - a) - x̂ b) r; acc0 += g x̂; acc1 += g   (g, x, G, m, r, a, b)
 */
export const LN_BACK: LoopDef = {
  name: 'lnBack',
  ops: ['v', 'v', 'v', 's', 's', 's', 's'],
  lets: [mul(sub(op(1), op(3)), op(4))],
  out: mul(sub(sub(mul(op(0), op(2)), op(5)), mul(l0, op(6))), op(4)),
  accs: [mul(op(0), l0), op(0)],
};
/** acc0 += g (x - m) r; acc1 += g   (g, x, m, r): LN_BACK without the data gradient. */
export const LN_GB: LoopDef = {
  name: 'lnGB',
  ops: ['v', 'v', 's', 's'],
  lets: [mul(sub(op(1), op(2)), op(3))],
  accs: [mul(op(0), l0), op(0)],
};

// ---- columns
/** acc += x */
export const COL_SUM: LoopDef = { name: 'colSum', ops: ['v'], accs: [op(0)] };
/** acc += (x - M)² */
export const COL_SQDEV: LoopDef = {
  name: 'colSqdev',
  ops: ['v', 'v'],
  lets: [sub(op(0), op(1))],
  accs: [mul(l0, l0)],
};
/** out = (x - M) S + B */
export const COL_AFFINE: LoopDef = {
  name: 'colAffine',
  ops: ['v', 'v', 'v', 'v'],
  out: add(mul(sub(op(0), op(1)), op(2)), op(3)),
};
/** acc0 += g; acc1 += g (x - M)   (g, x, M) */
export const COL_DOT: LoopDef = {
  name: 'colDot',
  ops: ['v', 'v', 'v'],
  accs: [op(0), mul(op(0), sub(op(1), op(2)))],
};
/** out = (g A + D) - (x - M) K   (g, x, A, D, M, K) */
export const COL_BWD: LoopDef = {
  name: 'colBwd',
  ops: ['v', 'v', 'v', 'v', 'v', 'v'],
  out: sub(add(mul(op(0), op(2)), op(3)), mul(sub(op(1), op(4)), op(5))),
};
/** out = g A */
export const COL_SCALE: LoopDef = { name: 'colScale', ops: ['v', 'v'], out: mul(op(0), op(1)) };
/** out = ((x - M) R) g + b   (x, M, R, g, b): LayerNorm over a non-last axis. */
export const LNC_APPLY: LoopDef = {
  name: 'lncApply',
  ops: ['v', 'v', 'v', 's', 's'],
  out: add(mul(mul(sub(op(0), op(1)), op(2)), op(3)), op(4)),
};
/** acc0 += g γ; acc1 += g γ (x - M)   (g, x, γ, M) */
export const LNC_DOT: LoopDef = {
  name: 'lncDot',
  ops: ['v', 'v', 's', 'v'],
  lets: [mul(op(0), op(2))],
  accs: [l0, mul(l0, sub(op(1), op(3)))],
};
/**
 * x̂ = (x - M) R; out = ((g γ - A) - x̂ Bv) R; Σ g x̂, Σ g   (g, x, γ, M, R, A, Bv)
 */
export const LNC_BACK: LoopDef = {
  name: 'lncBack',
  ops: ['v', 'v', 's', 'v', 'v', 'v', 'v'],
  lets: [mul(sub(op(1), op(3)), op(4))],
  out: mul(sub(sub(mul(op(0), op(2)), op(5)), mul(l0, op(6))), op(4)),
  sums: [mul(op(0), l0), op(0)],
};
/** Σ g (x - M) R, Σ g   (g, x, M, R): LNC_BACK without the data gradient. */
export const LNC_GB: LoopDef = {
  name: 'lncGB',
  ops: ['v', 'v', 'v', 'v'],
  lets: [mul(sub(op(1), op(2)), op(3))],
  sums: [mul(op(0), l0), op(0)],
};
