/**
 * TypeScript reduce loops with the same contract as the wasm ones (plan.ts `ReduceLoops`): used for
 * integer dtypes (MXNet accumulates in the input's own type, so sums and products wrap: int32 via
 * `| 0` / Math.imul, int8/uint8 by masking, int64 with BigInt.asIntN) and as the float fallback when
 * the engine has no wasm SIMD (float32 then rounds every step with Math.fround).
 *
 * Integer reductions are exact modulo 2^bits whatever the order, so these loops need no blocking.
 */
import { type DTypeName, MXNetError, type StorageArray } from '@mx/base';
import type { ReduceLoops } from './plan.js';
import type { WasmReduceOp } from './wasm-loops.js';

/** Scalar arithmetic of one dtype. */
export interface Arith<T> {
  readonly zero: T;
  readonly one: T;
  readonly lowest: T;
  readonly highest: T;
  add(a: T, b: T): T;
  mul(a: T, b: T): T;
  max(a: T, b: T): T;
  min(a: T, b: T): T;
  abs(a: T): T;
  isNaN(a: T): boolean;
}

function intArith(wrap: (x: number) => number, lo: number, hi: number): Arith<number> {
  return {
    zero: 0,
    one: 1,
    lowest: lo,
    highest: hi,
    add: (a, b) => wrap(a + b),
    mul: (a, b) => wrap(Math.imul(a, b)),
    max: Math.max,
    min: Math.min,
    abs: (a) => wrap(Math.abs(a)),
    isNaN: () => false,
  };
}

const BIG: Arith<bigint> = {
  zero: 0n,
  one: 1n,
  lowest: -(2n ** 63n),
  highest: 2n ** 63n - 1n,
  add: (a, b) => BigInt.asIntN(64, a + b),
  mul: (a, b) => BigInt.asIntN(64, a * b),
  // biome-ignore lint/complexity/useMathMinMax: bigint has no Math.max
  max: (a, b) => (a > b ? a : b),
  // biome-ignore lint/complexity/useMathMinMax: bigint has no Math.min
  min: (a, b) => (a < b ? a : b),
  abs: (a) => BigInt.asIntN(64, a < 0n ? -a : a),
  isNaN: () => false,
};

function floatArith(round: (x: number) => number): Arith<number> {
  return {
    zero: 0,
    one: 1,
    lowest: Number.NEGATIVE_INFINITY,
    highest: Number.POSITIVE_INFINITY,
    add: (a, b) => round(a + b),
    mul: (a, b) => round(a * b),
    // Math.max/min return NaN when either operand is NaN, as NumPy's max/min do.
    max: Math.max,
    min: Math.min,
    abs: Math.abs,
    isNaN: Number.isNaN,
  };
}

/** Arithmetic for a compute dtype (bool has none: MXNet does not reduce booleans). */
export function arithOf(dtype: DTypeName, op: string): Arith<number> | Arith<bigint> {
  switch (dtype) {
    case 'float32':
      return floatArith(Math.fround);
    case 'float64':
      return floatArith((x) => x);
    case 'int32':
      return intArith((x) => x | 0, -(2 ** 31), 2 ** 31 - 1);
    case 'int8':
      return intArith((x) => (x << 24) >> 24, -128, 127);
    case 'uint8':
      return intArith((x) => x & 255, 0, 255);
    case 'int64':
      return BIG;
    default:
      throw new MXNetError(`${op} does not support dtype ${dtype} on cpu-wasm`, {
        op,
        dtypes: [dtype],
        device: 'cpu-wasm',
        hint: 'cast the input to float32, float64 or an integer dtype first',
      });
  }
}

/** Identity, per-element map and combine of a reduce op in arithmetic `A`. */
export function reduceFns<T>(
  A: Arith<T>,
  op: WasmReduceOp,
): { id: T; map: (x: T) => T; combine: (a: T, b: T) => T } {
  switch (op) {
    case 'sum':
      return { id: A.zero, map: (x) => x, combine: A.add };
    case 'nansum':
      return { id: A.zero, map: (x) => (A.isNaN(x) ? A.zero : x), combine: A.add };
    case 'sumsq':
      return { id: A.zero, map: (x) => A.mul(x, x), combine: A.add };
    case 'sumabs':
      return { id: A.zero, map: A.abs, combine: A.add };
    case 'prod':
      return { id: A.one, map: (x) => x, combine: A.mul };
    case 'nanprod':
      return { id: A.one, map: (x) => (A.isNaN(x) ? A.one : x), combine: A.mul };
    case 'max':
      return { id: A.lowest, map: (x) => x, combine: A.max };
    case 'min':
      return { id: A.highest, map: (x) => x, combine: A.min };
    default:
      return op satisfies never;
  }
}

/**
 * TypeScript loops over `view()` (a fresh typed view of the whole memory for the dtype, taken per
 * call because the memory may have grown). Addresses are bytes; `sz` is the element size.
 */
export function tsLoops<T>(
  view: () => StorageArray,
  sz: number,
  fns: { id: T; map: (x: T) => T; combine: (a: T, b: T) => T },
): ReduceLoops {
  const { id, map, combine } = fns;
  return {
    rows(inAddr, outAddr, outer, r, mode) {
      const v = view() as unknown as T[];
      let p = inAddr / sz;
      const o0 = outAddr / sz;
      for (let o = 0; o < outer; o++) {
        let acc = id;
        for (let j = 0; j < r; j++) acc = combine(acc, map(v[p++] as T));
        v[o0 + o] = mode ? combine(v[o0 + o] as T, acc) : acc;
      }
    },
    cols(inAddr, outAddr, outer, r, inner, mode) {
      const v = view() as unknown as T[];
      const i0 = inAddr / sz;
      const oBase = outAddr / sz;
      for (let o = 0; o < outer; o++) {
        const ib = i0 + o * r * inner;
        const ob = oBase + o * inner;
        for (let k = 0; k < inner; k++) {
          let acc = id;
          for (let j = 0; j < r; j++) acc = combine(acc, map(v[ib + j * inner + k] as T));
          v[ob + k] = mode ? combine(v[ob + k] as T, acc) : acc;
        }
      }
    },
  };
}
