/**
 * Element conversion and output writing for the reduce family's TypeScript passes: casting a
 * computed value to an output dtype the way C++ `static_cast` does on MXNet's CPU path (float→int
 * truncates, integers wrap to their width), and storing with `req` (write, or add for gradient
 * accumulation in the output's own arithmetic). Kept in one place so every kernel of the family
 * (norm's out_dtype, argsort's index dtype, topk, cumsum's dtype) casts identically.
 */
import { type DTypeName, MXNetError, type StorageArray } from '@mx/base';
import { OpReq, type OpReqType } from '@mx/ops';

/** True for a float NaN (bigints are never NaN). */
export function isNaNValue(v: number | bigint): boolean {
  return typeof v === 'number' && Number.isNaN(v);
}

/** Dtypes the reduce family computes in on cpu-wasm. */
export const REDUCE_DTYPES: readonly DTypeName[] = ['float32', 'float64', 'int32', 'int64', 'int8', 'uint8'];

export function unsupportedDType(op: string, dtype: DTypeName, allowed: readonly DTypeName[]): MXNetError {
  return new MXNetError(`${op} does not support dtype ${dtype} on cpu-wasm`, {
    op,
    dtypes: [dtype],
    device: 'cpu-wasm',
    hint: `supported dtypes: ${allowed.join(', ')}; cast the input (astype / Cast) first`,
  });
}

/** A converter from any computed value (number or bigint) to the storage value of `to`. */
export function converterTo(to: DTypeName, op: string): (v: number | bigint) => number | bigint {
  switch (to) {
    case 'float32':
      return (v) => Math.fround(Number(v));
    case 'float64':
      return (v) => Number(v);
    case 'int32':
      return (v) => (typeof v === 'bigint' ? Number(BigInt.asIntN(32, v)) : Math.trunc(v) | 0);
    case 'int8':
      return (v) => (typeof v === 'bigint' ? Number(BigInt.asIntN(8, v)) : ((Math.trunc(v) | 0) << 24) >> 24);
    case 'uint8':
      return (v) => (typeof v === 'bigint' ? Number(BigInt.asUintN(8, v)) : (Math.trunc(v) | 0) & 255);
    case 'bool':
      return (v) => (v !== 0 && v !== 0n ? 1 : 0);
    case 'int64':
      return (v) =>
        typeof v === 'bigint'
          ? BigInt.asIntN(64, v)
          : Number.isFinite(v)
            ? BigInt.asIntN(64, BigInt(Math.trunc(v)))
            : 0n;
    default:
      throw unsupportedDType(op, to, REDUCE_DTYPES);
  }
}

/** `out[i] = v` or `out[i] += v` (in the output's arithmetic) according to `req`. */
export function storerFor(
  out: StorageArray,
  dtype: DTypeName,
  req: OpReqType,
  op: string,
): (i: number, v: number | bigint) => void {
  const conv = converterTo(dtype, op);
  const o = out as unknown as (number | bigint)[];
  if (req !== OpReq.add) {
    return (i, v) => {
      o[i] = conv(v);
    };
  }
  if (dtype === 'int64') {
    return (i, v) => {
      o[i] = BigInt.asIntN(64, (o[i] as bigint) + (conv(v) as bigint));
    };
  }
  return (i, v) => {
    o[i] = conv((o[i] as number) + (conv(v) as number));
  };
}
