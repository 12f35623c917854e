/**
 * Dtype plumbing for the shape kernels: whole-memory typed views, float16/bfloat16 bit
 * conversions, reading index arrays of any dtype as integers, and encoding one scalar in any dtype.
 *
 * Data movement never interprets values: it copies words (1, 2 or 4 bytes; 8-byte types as pairs of
 * 4-byte words so no NaN payload is canonicalised by a Float64Array round trip). Only `req = add`,
 * fills and index reads look at values, through the helpers here.
 */
import {
  DType,
  type DTypeName,
  fromBFloat16Bits,
  fromHalfBits,
  MXNetError,
  toBFloat16Bits,
  toHalfBits,
} from '@mx/base';
import type { CpuWasmRuntime } from '../../runtime.js';

/** Views that move raw words. */
export type WordArray = Uint8Array | Uint16Array | Int32Array;

/** A view of the whole wasm memory in words of `bytes` (1, 2 or 4). */
export function wordView(rt: CpuWasmRuntime, bytes: 1 | 2 | 4): WordArray {
  const buf = rt.memory.buffer;
  if (bytes === 1) return new Uint8Array(buf);
  if (bytes === 2) return new Uint16Array(buf);
  return new Int32Array(buf);
}

/** IEEE half bits -> number. */
export const halfToFloat = fromHalfBits;
/** number -> IEEE half bits (round to nearest even, from the double). */
export const floatToHalf = toHalfBits;
/** bfloat16 bits -> number. */
export const bfloatToFloat = fromBFloat16Bits;
/** number -> bfloat16 bits (round to nearest even). */
export const floatToBfloat = toBFloat16Bits;

/**
 * Read `count` values of an index array at byte `address` as integers (truncated toward zero,
 * as MXNet's `static_cast<int>`). NaN reads as 0.
 */
export function readIndices(
  rt: CpuWasmRuntime,
  dtype: DTypeName,
  address: number,
  count: number,
): Float64Array {
  const out = new Float64Array(count);
  if (count === 0) return out;
  const view = rt.memory.view(dtype, address, count);
  if (dtype === 'float16' || dtype === 'bfloat16') {
    const conv = dtype === 'float16' ? halfToFloat : bfloatToFloat;
    for (let i = 0; i < count; i++) out[i] = Math.trunc(conv(view[i] as number)) || 0;
  } else if (DType[dtype].bigint) {
    for (let i = 0; i < count; i++) out[i] = Number(view[i] as bigint);
  } else {
    for (let i = 0; i < count; i++) out[i] = Math.trunc(view[i] as number) || 0;
  }
  return out;
}

/** The stored form of `value` in `dtype` (what a typed-array `fill` of the storage class takes). */
export function encodeScalar(dtype: DTypeName, value: number): number | bigint {
  switch (dtype) {
    case 'float16':
      return floatToHalf(value);
    case 'bfloat16':
      return floatToBfloat(value);
    case 'bool':
      return value !== 0 && !Number.isNaN(value) ? 1 : 0;
    case 'int64':
    case 'uint64':
      return Number.isFinite(value) ? BigInt(Math.trunc(value)) : 0n;
    case 'float32':
    case 'float64':
      return value;
    default:
      return Number.isFinite(value) ? Math.trunc(value) : 0;
  }
}

/** Fill `count` elements of `dtype` at byte `address` with `value`. */
export function fillDense(
  rt: CpuWasmRuntime,
  dtype: DTypeName,
  address: number,
  count: number,
  value: number,
): void {
  if (count === 0) return;
  const view = rt.memory.view(dtype, address, count) as unknown as { fill(v: number | bigint): void };
  const enc = encodeScalar(dtype, value);
  if (DType[dtype].bigint) {
    const big = typeof enc === 'bigint' ? enc : BigInt(enc);
    view.fill(dtype === 'uint64' ? BigInt.asUintN(64, big) : BigInt.asIntN(64, big));
  } else view.fill(enc);
}

/** An MXNetError for a dtype a shape kernel cannot handle. */
export function dtypeError(op: string, dtype: DTypeName, why: string): MXNetError {
  return new MXNetError(`${op} does not support dtype ${dtype} on cpu-wasm: ${why}`, {
    op,
    dtypes: [dtype],
    device: 'cpu-wasm',
  });
}
