/**
 * Reading and writing helpers of the np reduce area's TypeScript kernels: a blob's values as
 * float64 numbers (these kernels compute in float64 and round once on store; int64 beyond 2^53
 * loses precision, documented), a storer honouring `req`, and the offsets that walk NumPy's
 * reduced layout (output elements in row-major order of the kept axes; lane elements in row-major
 * order of the reduced ones), so every kernel here reduces any set of axes the same way.
 */
import { DType, type DTypeName, fromHalfBits, MXNetError } from '@mx/base';
import type { OpReqType, TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { storerFor } from '../../reduce/convert.js';

export type Blob = TBlob<number>;

/** Dtypes the TypeScript kernels here read and write. */
export const NP_REDUCE_TS_DTYPES: readonly DTypeName[] = [
  'float32',
  'float64',
  'int8',
  'uint8',
  'int32',
  'int64',
  'bool',
];

/** `x`'s values as float64 (copied: the view is not kept). */
export function readF64(rt: CpuWasmRuntime, x: Blob): Float64Array {
  const out = new Float64Array(x.size);
  if (x.size === 0) return out;
  const v = rt.view(x) as unknown as ArrayLike<number | bigint>;
  if (x.dtype === 'float16') for (let i = 0; i < x.size; i++) out[i] = fromHalfBits(v[i] as number);
  else if (x.dtype === 'int64' || x.dtype === 'uint64')
    for (let i = 0; i < x.size; i++) out[i] = Number(v[i] as bigint);
  else for (let i = 0; i < x.size; i++) out[i] = v[i] as number;
  return out;
}

/** Store every value of `vals` into `y` with `req` (cast as C++ does: floats truncate to ints). */
export function writeAll(
  rt: CpuWasmRuntime,
  y: Blob,
  req: OpReqType,
  vals: ArrayLike<number>,
  op: string,
): void {
  if (y.size === 0) return;
  if (!NP_REDUCE_TS_DTYPES.includes(y.dtype)) throw unsupported(op, y.dtype);
  const store = storerFor(rt.view(y), y.dtype, req, op);
  const isInt = DType[y.dtype].kind !== 'f';
  for (let i = 0; i < y.size; i++) {
    const v = vals[i] as number;
    store(i, isInt && !Number.isFinite(v) ? 0 : v);
  }
}

export function unsupported(op: string, dtype: DTypeName): MXNetError {
  return new MXNetError(`${op} does not support dtype ${dtype} on cpu-wasm`, {
    op,
    dtypes: [dtype],
    device: 'cpu-wasm',
    hint: `supported dtypes: ${NP_REDUCE_TS_DTYPES.join(', ')}; cast first`,
  });
}

/** Row-major strides of `shape`. */
export function stridesOf(shape: readonly number[]): number[] {
  const st = new Array<number>(shape.length).fill(1);
  for (let i = shape.length - 2; i >= 0; i--) st[i] = (st[i + 1] as number) * (shape[i + 1] as number);
  return st;
}

function offsetsOver(
  shape: readonly number[],
  strides: readonly number[],
  axes: readonly number[],
): Int32Array {
  let n = 1;
  for (const a of axes) n *= shape[a] as number;
  const out = new Int32Array(n);
  const idx = new Array<number>(axes.length).fill(0);
  for (let k = 0; k < n; k++) {
    let off = 0;
    for (let j = 0; j < axes.length; j++) off += (idx[j] as number) * (strides[axes[j] as number] as number);
    out[k] = off;
    for (let j = axes.length - 1; j >= 0; j--) {
      idx[j] = (idx[j] as number) + 1;
      if ((idx[j] as number) < (shape[axes[j] as number] as number)) break;
      idx[j] = 0;
    }
  }
  return out;
}

/** Offsets of the output elements (`kept`) and of one lane's elements (`lane`) in the input. */
export interface Lanes {
  readonly kept: Int32Array;
  readonly lane: Int32Array;
}

/** The lanes of reducing `axis` (null: all; normalised or negative) of `shape`. */
export function lanesOf(shape: readonly number[], axis: readonly number[] | null): Lanes {
  const nd = shape.length;
  const red = new Set(axis === null ? shape.map((_, i) => i) : axis.map((a) => (a < 0 ? a + nd : a)));
  const st = stridesOf(shape);
  const all = shape.map((_, i) => i);
  return {
    kept: offsetsOver(
      shape,
      st,
      all.filter((i) => !red.has(i)),
    ),
    lane: offsetsOver(
      shape,
      st,
      all.filter((i) => red.has(i)),
    ),
  };
}
