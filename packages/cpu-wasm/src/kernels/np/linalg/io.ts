/**
 * Moving matrices between the wasm memory and the float64 working arrays of the np.linalg kernels.
 *
 * Every kernel reads its inputs once into Float64Arrays (any numeric dtype: the numpy linalg ops
 * accept integers and compute in float64; float32 inputs are computed in float64 too), computes
 * every batch entry, and only then stores the outputs — rounding once to float32 where the output
 * is float32 and honouring `req` (write or add). So a data-dependent error ("Singular matrix") is
 * thrown before any output is touched: bad input never leaves half-written results.
 */
import { MXNetError } from '@mx/base';
import { OpReq, type OpReqType, type TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';

/** The backend name errors carry. */
export const DEVICE = 'cpu-wasm';

/** A copy of a blob's values as float64 (bigint and bool storage converted). */
export function readF64(rt: CpuWasmRuntime, blob: TBlob<number>): Float64Array {
  if (blob.size === 0) return new Float64Array(0);
  const v = rt.view(blob);
  if (v instanceof Float64Array) return Float64Array.from(v);
  if (v instanceof BigInt64Array || v instanceof BigUint64Array)
    return Float64Array.from(v, (x) => Number(x));
  if (blob.dtype === 'float16' || blob.dtype === 'bfloat16') {
    throw new MXNetError(`array type ${blob.dtype} is unsupported in linalg`, {
      dtypes: [blob.dtype],
      device: DEVICE,
      hint: 'cast to float32 or float64 first',
    });
  }
  return Float64Array.from(v as ArrayLike<number>);
}

/** Store `values` (float64, row-major, the blob's size) into `blob` with `req`. */
export function store(
  rt: CpuWasmRuntime,
  blob: TBlob<number>,
  req: OpReqType | undefined,
  values: ArrayLike<number>,
): void {
  if (req === OpReq.null || blob.size === 0) return;
  const out = rt.view(blob);
  const add = req === OpReq.add;
  if (out instanceof BigInt64Array || out instanceof BigUint64Array) {
    for (let i = 0; i < blob.size; i++) {
      const v = BigInt(Math.trunc(values[i] as number));
      out[i] = add ? (out[i] as bigint) + v : v;
    }
    return;
  }
  const o = out as unknown as number[];
  if (add) for (let i = 0; i < blob.size; i++) o[i] = (o[i] as number) + (values[i] as number);
  else for (let i = 0; i < blob.size; i++) o[i] = values[i] as number;
}

/** An MXNetError raised by a kernel on the data (NumPy's LinAlgError wording in `message`). */
export function linalgError(
  op: string,
  message: string,
  hint: string,
  shapes: readonly (readonly number[])[] = [],
): MXNetError {
  return new MXNetError(message, { op, device: DEVICE, shapes: shapes.map((s) => [...s]), hint });
}

/** Copy entry `b` (size `len`) of a batched array into a new Float64Array. */
export function entry(all: Float64Array, b: number, len: number): Float64Array {
  return all.slice(b * len, (b + 1) * len);
}

/** Matrix size N of a (..., N, N) shape and its batch count. */
export function squareGeometry(shape: readonly number[]): { n: number; batch: number } {
  const n = shape.length >= 1 ? (shape[shape.length - 1] as number) : 1;
  let batch = 1;
  for (let i = 0; i < shape.length - 2; i++) batch *= shape[i] as number;
  return { n, batch };
}

/**
 * For the array of `shape` transposed by `perm` (NumPy `a.transpose(perm)`), the source flat index of
 * each element of the result, in the result's row-major order.
 */
export function permutedOffsets(shape: readonly number[], perm: readonly number[]): Int32Array {
  const nd = shape.length;
  const strides = new Array<number>(nd).fill(1);
  for (let i = nd - 2; i >= 0; i--) strides[i] = (strides[i + 1] as number) * (shape[i + 1] as number);
  const dims = perm.map((p) => shape[p] as number);
  const st = perm.map((p) => strides[p] as number);
  let total = 1;
  for (const d of dims) total *= d;
  const out = new Int32Array(total);
  const idx = new Array<number>(nd).fill(0);
  let src = 0;
  for (let i = 0; i < total; i++) {
    out[i] = src;
    for (let k = nd - 1; k >= 0; k--) {
      idx[k] = (idx[k] as number) + 1;
      src += st[k] as number;
      if ((idx[k] as number) < (dims[k] as number)) break;
      src -= (st[k] as number) * (dims[k] as number);
      idx[k] = 0;
    }
  }
  return out;
}
