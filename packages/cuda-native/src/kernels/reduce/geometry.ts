/**
 * Host-side shape planning shared by the reduce family on cuda-native, kept free of CUDA C so it
 * can be unit-tested on its own:
 *
 * - axis-set reductions merge size-1 axes away and adjacent axes of the same role (kept or reduced)
 *   together, like cpu-wasm's plan.ts: (2,3,4,5) over {1,2} is kept [2 @60, 5 @1] and reduced
 *   [12 @5]; each role's segments travel to the kernel as two MxDims (sizes, strides);
 * - single-axis ops (argmax, sort, cumsum, topk's gradient) see (outer, n, inner) lanes: lane l
 *   starts at `(l / inner) * n * inner + l % inner` and steps by `inner`;
 * - `reduceLaunch` picks the threads per output (S) and the chunks per output (C) of one pass.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import { MAXD } from '../../cuda-c.js';

export interface Seg {
  readonly size: number;
  /** Element stride in the input. */
  readonly stride: number;
}

export interface ReduceGeometry {
  readonly kept: Seg[];
  readonly red: Seg[];
  /** Elements reduced into each output element. */
  readonly count: number;
  /** Output elements. */
  readonly outs: number;
  /** Whether the innermost non-trivial axis is kept (a column reduction: outputs are contiguous). */
  readonly innerKept: boolean;
}

/** Reduced-axis flags from MXNet's axis/exclude params (already validated by shape inference). */
export function reducedFlags(ndim: number, axis: readonly number[] | null, exclude: boolean): boolean[] {
  if (axis === null || axis.length === 0) return new Array<boolean>(ndim).fill(true);
  const flags = new Array<boolean>(ndim).fill(exclude);
  for (const a of axis) flags[a < 0 ? a + ndim : a] = !exclude;
  return flags;
}

/** Axes of `grad` that NumPy broadcasting added or stretched to reach it from `like`. */
export function broadcastFlags(grad: readonly number[], like: readonly number[]): boolean[] {
  const off = grad.length - like.length;
  return grad.map((d, i) => {
    const l = i - off < 0 ? 1 : (like[i - off] as number);
    return l === 1 && d !== 1;
  });
}

/** Merge `shape` (dense, row-major) into kept and reduced segments. */
export function reduceGeometry(
  op: string,
  shape: readonly number[],
  reduced: readonly boolean[],
): ReduceGeometry {
  let count = 1;
  let outs = 1;
  for (let i = 0; i < shape.length; i++) {
    if (reduced[i]) count *= shape[i] as number;
    else outs *= shape[i] as number;
  }
  const kept: Seg[] = [];
  const red: Seg[] = [];
  if (count === 0 || outs === 0) return { kept, red, count, outs, innerKept: false };
  let stride = 1;
  let last: { size: number; stride: number; reduced: boolean } | null = null;
  const segs: { size: number; stride: number; reduced: boolean }[] = [];
  for (let i = shape.length - 1; i >= 0; i--) {
    const d = shape[i] as number;
    const r = reduced[i] as boolean;
    if (d !== 1) {
      if (last !== null && last.reduced === r) last.size *= d;
      else {
        last = { size: d, stride, reduced: r };
        segs.unshift(last);
      }
    }
    stride *= d;
  }
  for (const s of segs) (s.reduced ? red : kept).push({ size: s.size, stride: s.stride });
  if (kept.length > MAXD || red.length > MAXD) {
    throw new MXNetError(`${op} on cuda handles at most ${MAXD} separate kept/reduced axis groups`, {
      op,
      shapes: [shape],
      device: 'gpu',
      hint: 'reshape so adjacent axes of the same role merge, or reduce in two steps',
    });
  }
  const innerKept = segs.length > 0 && !(segs[segs.length - 1] as { reduced: boolean }).reduced;
  return { kept, red, count, outs, innerKept };
}

/** Segment sizes and strides as two MxDims arguments' values. */
export function segDims(segs: readonly Seg[]): [number[], number[]] {
  return [segs.map((s) => s.size), segs.map((s) => s.stride)];
}

/** (outer, n, inner) of a lane-wise op along `axis` (null: the flattened array). */
export function laneGeometry(shape: readonly number[], axis: number | null): [number, number, number] {
  const size = shape.reduce((p, d) => p * d, 1);
  if (axis === null || shape.length === 0) return [1, size, 1];
  const a = axis < 0 ? axis + shape.length : axis;
  let outer = 1;
  let inner = 1;
  for (let i = 0; i < a; i++) outer *= shape[i] as number;
  for (let i = a + 1; i < shape.length; i++) inner *= shape[i] as number;
  return [outer, shape[a] as number, inner];
}

export const nextPow2 = (n: number): number => (n <= 1 ? 1 : 2 ** Math.ceil(Math.log2(n)));

/** Threads per block of the reduction kernels. */
export const RBLOCK = 256;
/** Most elements one output's group folds in one pass before the reduction splits into chunks. */
export const LMAX = 16384;

/** One pass's launch shape: S threads per (output, chunk), C chunks of L elements per output. */
export interface ReduceLaunch {
  readonly S: number;
  readonly C: number;
  readonly L: number;
}

/**
 * Threads per output and chunks for `outs` outputs of `R` elements each. Each thread folds about
 * 32 elements sequentially, the group combines pairwise (so float sums stay accurate without
 * compensation); column reductions (contiguous outputs) with many outputs use one thread per output
 * so that neighbouring threads read neighbouring elements.
 */
export function reduceLaunch(outs: number, R: number, innerKept: boolean): ReduceLaunch {
  const C = R > LMAX ? Math.ceil(R / LMAX) : 1;
  const L = C > 1 ? Math.ceil(R / C) : R;
  let S = Math.min(RBLOCK, nextPow2(Math.ceil(L / 32)));
  if (innerKept && outs >= 8192 && L <= 1024) S = Math.min(S, 4);
  return { S, C, L };
}

export function unsupported(op: string, dtype: DTypeName, allowed: readonly DTypeName[]): MXNetError {
  return new MXNetError(`${op} does not support dtype ${dtype} on cuda`, {
    op,
    dtypes: [dtype],
    device: 'gpu',
    hint: `supported: ${allowed.join(', ')}; cast the input (astype / Cast) first`,
  });
}

/** Dtypes the value reductions compute in (cpu-wasm's, plus 16-bit floats accumulating in f32). */
export const REDUCE_DTYPES: readonly DTypeName[] = [
  'float32',
  'float64',
  'float16',
  'bfloat16',
  'int32',
  'int64',
  'int8',
  'uint8',
];

export const FLOAT_DTYPES: readonly DTypeName[] = ['float32', 'float64', 'float16', 'bfloat16'];
