/**
 * Shapes as the reduce family's shaders see them, computed on the host and passed in uniforms so one
 * pipeline serves every shape:
 *
 * - axis-set reductions merge size-1 axes away and adjacent axes of the same role (reduced or kept)
 *   together, like cpu-wasm's plan.ts: (2,3,4,5) over {1,2} is kept [2 @60, 5 @1] and reduced
 *   [12 @5]. Segments alternate, so MAX_SEG of each covers any array of up to 2*MAX_SEG dims;
 * - single-axis ops (argmax, sort, cumsum, topk's gradient) see (outer, n, inner) lanes: lane l has
 *   base `(l / inner) * n * inner + l % inner` and stride `inner`.
 *
 * Also the dtype helpers the family shares: the accumulator type of a dtype and the WGSL cast
 * between scalar types.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import { wgslType } from '../../wgsl.js';

/** Kept / reduced segments passed per shader (each). */
export const MAX_SEG = 6;

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
}

/** Reduced-axis flags from MXNet's axis/exclude params (already validated by shape inference). */
export function reducedFlags(ndim: number, axis: readonly number[] | null, exclude: boolean): boolean[] {
  if (axis === null || axis.length === 0) return new Array<boolean>(ndim).fill(true);
  const flags = new Array<boolean>(ndim).fill(exclude);
  for (const a of axis) flags[a < 0 ? a + ndim : a] = !exclude;
  return flags;
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
  if (count === 0 || outs === 0) return { kept, red, count, outs };
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
  if (kept.length > MAX_SEG || red.length > MAX_SEG) {
    throw new MXNetError(`${op} on webgpu handles at most ${MAX_SEG} separate kept/reduced axis groups`, {
      op,
      shapes: [shape],
      device: 'gpu(0)',
      hint: 'reshape so adjacent axes of the same role merge, or reduce in two steps',
    });
  }
  return { kept, red, count, outs };
}

/** Uniform words of segments: sizes then strides, each padded to MAX_SEG. */
export function segWords(segs: readonly Seg[]): number[] {
  const w = new Array<number>(2 * MAX_SEG).fill(0);
  segs.forEach((s, i) => {
    w[i] = s.size;
    w[MAX_SEG + i] = s.stride;
  });
  return w;
}

/**
 * WGSL adding the input offset of index `idx` decomposed over `n` segments whose sizes start at
 * uniform word `at` (strides at `at + MAX_SEG`) to the variable `acc`.
 */
export function decompose(idx: string, n: string, at: number, acc: string): string {
  return `{ var rem = ${idx};
    for (var d = ${n}; d > 0u; d--) {
      let sz = pu(${at}u + d - 1u);
      ${acc} += (rem % sz) * pu(${at + MAX_SEG}u + d - 1u);
      rem /= sz;
    } }`;
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

/** The scalar type a reduction of `dtype` accumulates in. */
export function accType(dtype: DTypeName): 'f32' | 'i32' | 'u32' {
  const s = wgslType(dtype).scalar;
  if (s === 'f16' || s === 'f32') return 'f32';
  return s;
}

/** WGSL converting the scalar expression `x` to `dtype`'s scalar type (numeric dtypes). */
export function castTo(dtype: DTypeName, x: string): string {
  return `${wgslType(dtype).scalar}(${x})`;
}

/** The family's dtypes on webgpu (cpu-wasm's reduce dtypes that WebGPU can hold). */
export const REDUCE_DTYPES: readonly DTypeName[] = ['float32', 'int32', 'uint32'];

export function unsupported(op: string, dtype: DTypeName, allowed: readonly DTypeName[]): MXNetError {
  return new MXNetError(`${op} does not support dtype ${dtype} on webgpu`, {
    op,
    dtypes: [dtype],
    device: 'gpu(0)',
    hint: `supported: ${allowed.join(', ')}; cast the input (astype / Cast) first, or run on cpu(0)`,
  });
}

/**
 * NaN test on an f32 by its bits (immune to compilers assuming no NaNs), and the bits of ±inf and
 * NaN as private variables: WGSL rejects non-finite constant expressions, a variable's read is not one.
 */
export const ISNAN_WGSL = `fn isnan32(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }
var<private> POS_INF: u32 = 0x7f800000u;
var<private> NEG_INF: u32 = 0xff800000u;
var<private> QNAN: u32 = 0x7fc00000u;
`;

export const nextPow2 = (n: number): number => (n <= 1 ? 1 : 2 ** Math.ceil(Math.log2(n)));
