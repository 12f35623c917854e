/**
 * The cpu-wasm kernel of `Cast` (alias `cast`): converts between all 13 dtypes, output dtype from
 * the output blob. Semantics follow NumPy's astype for in-range values: float -> int truncates
 * toward zero, int -> float rounds to nearest even, anything -> bool is `!= 0`, float16/bfloat16
 * round to nearest even (half.ts), int64/uint64 go through BigInt. Out-of-range float -> int wraps
 * modulo 2^bits (JS typed-array conversion) and NaN/inf become 0; C leaves those undefined.
 *
 * Cast is a copy-shaped op, so JS typed arrays carry it: `TypedArray.prototype.set` converts
 * natively between the plain numeric views (float32/64, (u)int8/16/32) at memory speed, and the
 * element loop covers bool, half types, 64-bit integers and req=add.
 */
import { DType, type DTypeName, MXNetError, type StorageArray } from '@mx/base';
import { type Kernel, OpReq, type TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../runtime.js';
import { fromBFloat16Bits, fromHalfBits, toBFloat16Bits, toHalfBits } from './half.js';

type Elem = number | bigint;

/** Whether `set` between the two views converts with astype semantics. */
function plainNumeric(d: DTypeName): boolean {
  return !(d === 'bool' || d === 'float16' || d === 'bfloat16' || d === 'int64' || d === 'uint64');
}

function isFloat(d: DTypeName): boolean {
  return d === 'float32' || d === 'float64' || d === 'float16' || d === 'bfloat16';
}

/** Element reader producing a number (or bigint for 64-bit ints). */
function reader(d: DTypeName, v: StorageArray): (i: number) => Elem {
  if (d === 'float16') return (i) => fromHalfBits(v[i] as number);
  if (d === 'bfloat16') return (i) => fromBFloat16Bits(v[i] as number);
  return (i) => v[i] as Elem;
}

/** Convert one source value to the storage representation of `to`. */
function converter(from: DTypeName, to: DTypeName): (x: Elem) => Elem {
  switch (to) {
    case 'bool':
      return (x) => (typeof x === 'bigint' ? (x !== 0n ? 1 : 0) : x !== 0 ? 1 : 0);
    case 'float16':
      return (x) => toHalfBits(Number(x));
    case 'bfloat16':
      // int64 -> bfloat16 goes through the nearest float32 like a float source.
      return (x) => toBFloat16Bits(Number(x));
    case 'int64':
    case 'uint64': {
      const bits = 64;
      const wrap = to === 'int64' ? BigInt.asIntN : BigInt.asUintN;
      return (x) => {
        if (typeof x === 'bigint') return wrap(bits, x);
        if (!Number.isFinite(x)) return 0n;
        return wrap(bits, BigInt(Math.trunc(x)));
      };
    }
    default:
      // Typed-array stores convert numbers (ToInt32-style wrap, fround for float32). Floats
      // truncate toward zero already; bigint sources become numbers first.
      if (isFloat(to)) return (x) => Number(x);
      if (isFloat(from) || from === 'float16' || from === 'bfloat16')
        return (x) => {
          const n = Number(x);
          return Number.isFinite(n) ? Math.trunc(n) : 0;
        };
      return (x) => (typeof x === 'bigint' ? Number(BigInt.asIntN(64, x)) : x);
  }
}

/** Add two storage values of `d` (req=add), in the value domain. */
function adder(d: DTypeName): (acc: Elem, x: Elem) => Elem {
  if (d === 'float16') return (a, x) => toHalfBits(fromHalfBits(a as number) + fromHalfBits(x as number));
  if (d === 'bfloat16')
    return (a, x) => toBFloat16Bits(fromBFloat16Bits(a as number) + fromBFloat16Bits(x as number));
  if (d === 'bool') return (a, x) => ((a as number) + (x as number) !== 0 ? 1 : 0);
  if (d === 'int64') return (a, x) => BigInt.asIntN(64, (a as bigint) + (x as bigint));
  if (d === 'uint64') return (a, x) => BigInt.asUintN(64, (a as bigint) + (x as bigint));
  return (a, x) => (a as number) + (x as number);
}

/** Cast `src` (dtype `from`) into `dst` (dtype `to`), accumulating when `add`. */
export function castArrays(
  from: DTypeName,
  src: StorageArray,
  to: DTypeName,
  dst: StorageArray,
  add: boolean,
): void {
  const n = dst.length;
  if (!add && plainNumeric(from) && plainNumeric(to)) {
    (dst as unknown as { set(a: ArrayLike<number>): void }).set(src as unknown as ArrayLike<number>);
    return;
  }
  const read = reader(from, src);
  const conv = converter(from, to);
  const out = dst as unknown as Elem[];
  if (!add) {
    for (let i = 0; i < n; i++) out[i] = conv(read(i));
    return;
  }
  const sum = adder(to);
  for (let i = 0; i < n; i++) out[i] = sum(out[i] as Elem, conv(read(i)));
}

export function castKernel(rt: CpuWasmRuntime): Kernel {
  return {
    dtypes: Object.freeze(Object.keys(DType) as DTypeName[]),
    compute(_attrs, _ctx, inputs, req, outputs) {
      const r = req[0];
      const src = inputs[0] as TBlob<number> | undefined;
      const dst = outputs[0] as TBlob<number> | undefined;
      if (src === undefined || dst === undefined) {
        throw new MXNetError('Cast needs one input and one output', { op: 'Cast', device: 'cpu(0)' });
      }
      if (r === undefined || r === OpReq.null || dst.size === 0) return;
      if (src.size !== dst.size) {
        throw new MXNetError(`input has ${src.size} elements but the output ${dst.size}`, {
          op: 'Cast',
          shapes: [src.shape, dst.shape],
          device: 'cpu(0)',
        });
      }
      const add = r === OpReq.add;
      const sa = rt.address(src);
      const da = rt.address(dst);
      if (!add && src.dtype === dst.dtype) {
        if (sa !== da) {
          const bytes = src.size * DType[src.dtype].bytes;
          new Uint8Array(rt.memory.buffer).copyWithin(da, sa, sa + bytes);
        }
        return;
      }
      // Views of the same bytes when in place with a different width would overlap badly: copy first.
      let sv = rt.view(src);
      if (sa < da + dst.size * DType[dst.dtype].bytes && da < sa + src.size * DType[src.dtype].bytes)
        sv = sv.slice();
      castArrays(src.dtype, sv, dst.dtype, rt.view(dst), add);
    },
  };
}
