/**
 * Per-channel passes over data viewed as (outer, C, inner) around a channel axis, shared by
 * BatchNorm, the gamma/beta gradients of the row norms and the convolution bias gradient. A block
 * holds TX channels side by side (threadIdx.x) and TY threads per channel (threadIdx.y), chosen so
 * that a warp reads contiguous memory in every layout:
 *
 * - rows (inner = 1: (N, C), NHWC): 32 adjacent channels per block, the threads of a channel walk
 *   the outer index;
 * - runs (inner ≥ 32: NCHW): one channel per block, its threads walk each contiguous run of inner;
 * - flat (small inner): one channel per block, its threads walk the flattened outer·inner index.
 *
 * The layout is part of the kernel's specialisation (no per-element branch on it).
 */
import { pow2AtLeast, RED_THREADS } from './cuda-util.js';

export type ChanMode = 'rows' | 'runs' | 'flat';

export interface ChanPlan {
  readonly mode: ChanMode;
  readonly block: readonly [number, number];
  readonly grid: number;
}

/** The block shape and grid for C channels of outer·inner elements each. */
export function chanPlan(outer: number, C: number, inner: number): ChanPlan {
  if (inner === 1) {
    const tx = Math.min(32, pow2AtLeast(C, 32));
    const ty = Math.min(RED_THREADS / tx, pow2AtLeast(outer, RED_THREADS / tx));
    return { mode: 'rows', block: [tx, Math.max(1, ty)], grid: Math.max(1, Math.ceil(C / tx)) };
  }
  const ty = pow2AtLeast(outer * inner, RED_THREADS);
  return { mode: inner >= 32 ? 'runs' : 'flat', block: [1, Math.max(32, ty)], grid: Math.max(1, C) };
}

/**
 * Declarations every channel kernel starts with: tx, ty, TY, the channel `c` of this thread and
 * `live` (c < C). Expects `long long outer, C, inner` parameters.
 */
export const CHAN_PROLOGUE = `  const int tx = threadIdx.x, ty = threadIdx.y, TY = blockDim.y;
  const long long c = (long long)blockIdx.x * blockDim.x + tx;
  const bool live = c < C;
`;

/**
 * A loop over this thread's share of channel c's elements: `body` sees `o`, `k` (outer and inner
 * index) and `i` (element offset (o·C + c)·inner + k). Runs only for live threads.
 */
export function chanLoop(mode: ChanMode, body: string): string {
  if (mode === 'rows') {
    return `if (live) for (long long o = ty; o < outer; o += TY) { const long long k = 0; const long long i = o * C + c; ${body} }`;
  }
  if (mode === 'runs') {
    return `if (live) for (long long o = 0; o < outer; o++) for (long long k = ty; k < inner; k += TY) { const long long i = (o * C + c) * inner + k; ${body} }`;
  }
  return `if (live) for (long long e = ty; e < outer * inner; e += TY) { const long long o = e / inner; const long long k = e - o * inner; const long long i = (o * C + c) * inner + k; ${body} }`;
}
