/**
 * NumPy's dtype promotion for `mx.np` (docs/design/np.md, "Dtypes and promotion"), over the 13
 * dtypes of the DType table. It lives in @mx/base because two layers must agree on it: the
 * `_npi_*` ops' type inference (so graphs and deferred compute infer what eager computes) and the
 * np functions (which make the dtype explicit before invoking). Checked against NumPy 1.24.2 +
 * ml_dtypes 0.5.4 by `tools/golden/np/promotion.py` (every pair and every triple of dtypes).
 *
 * Arrays (`promoteTypes`, the dtype operands of `resultType`): NumPy exactly.
 * - Within a kind the wider type wins; bool promotes to anything.
 * - Signed with unsigned: the smallest signed type holding both (int8+uint8 → int16), and
 *   int64+uint64 → float64.
 * - Integer with float: the smallest float holding the integer's range and the float
 *   (int8/uint8 → float16, int16/uint16 → float32, wider → float64): int32+float32 → float64.
 * - bfloat16 (not in NumPy; ml_dtypes' registered casts): bool/int8/uint8 → bfloat16,
 *   float32/float64 win; bfloat16 with float16 or any wider integer has NO common dtype (an
 *   MXNetError naming both, as NumPy's TypeError).
 * - Several operands: NumPy's answer is not a left fold (np.result_type(int8, uint16, float32) is
 *   float32, not float64): the operands of the highest category (float > integer > bool) are
 *   promoted together and each lower-category operand is promoted with the first of them. With
 *   bfloat16 NumPy's answer depends on argument order; here every pair must have a promotion.
 *
 * Scalars (JS numbers/booleans as weak Python scalars, NEP 50 and MXNet 2.0's `_npi_*_scalar`
 * `NumpyBinaryScalarType` with `is_int`): a scalar never changes the arrays' dtype within its kind.
 * With R the arrays' result and k the highest scalar kind (bool < int < float):
 * - k not above R's kind (bool for any array; int for int/uint/float arrays; float for float
 *   arrays, float16 and bfloat16 included): R.
 * - bool array, int scalar: int64 (NEP 50's default int; MXNet 2.0's kInt64).
 * - bool/int/uint array, float scalar: float64, as MXNet 2.0's `NumpyBinaryScalarType` gives
 *   (`kFloat64` whatever the default dtype) and as NEP 50 does.
 * - No arrays: bool scalars → bool, else int → int64, else the default float (MXNet's default
 *   dtype: float32, float64 after `npx.setNp({ dtype: true })`, as for arrays made from numbers).
 * A JS number is an int scalar when `Number.isInteger(x)` (JS cannot tell `2.0` from `2`; a caller
 * that knows better, e.g. an op's `is_int` param, passes `{ weak: 'float' }`); NaN/±Infinity and
 * fractions are float scalars; bigint is an int scalar. Values are not range-checked (NEP 50 raises
 * OverflowError for uint8 + 300; MXNet casts the double to the array's dtype, and so do we).
 */
import { DType, type DTypeInfo, type DTypeName, dtype } from './dtype.js';
import { MXNetError } from './error.js';

/** Kind of a weak (Python-like) scalar. */
export type WeakScalarKind = 'bool' | 'int' | 'float';

/** A scalar whose kind the caller states (an op's `is_int` param, a Python float that is whole). */
export interface WeakScalar {
  readonly weak: WeakScalarKind;
}

/**
 * One operand of {@link resultType}: an array's dtype (name, alias or info) or a scalar:
 * boolean, number, bigint or an explicit {@link WeakScalar}.
 */
export type PromotionOperand = DTypeName | DTypeInfo | boolean | number | bigint | WeakScalar;

export interface ResultTypeOptions {
  /** The float of float scalars alone (MXNet's default dtype, as for arrays made from numbers). Default float32. */
  readonly defaultFloat?: 'float32' | 'float64';
  /** False: scalars count as arrays of their default dtype (bool, int64, defaultFloat). Default true. */
  readonly weakScalars?: boolean;
}

const SIGNED_BY_BYTES: Readonly<Record<number, DTypeName>> = {
  1: 'int8',
  2: 'int16',
  4: 'int32',
  8: 'int64',
};
/** Smallest IEEE float holding every integer of a given width (NumPy's safe casts). */
const FLOAT_FOR_INT_BYTES: Readonly<Record<number, DTypeName>> = {
  1: 'float16',
  2: 'float32',
  4: 'float64',
  8: 'float64',
};

/** Category order for several operands and for scalar kinds: bool < integer < float. */
function category(d: DTypeInfo): 0 | 1 | 2 {
  return d.kind === 'b' ? 0 : d.kind === 'f' ? 2 : 1;
}

/** Pair rule; undefined where NumPy (with ml_dtypes) has no common dtype. */
function promotePair(a: DTypeInfo, b: DTypeInfo): DTypeName | undefined {
  if (a.name === b.name || b.kind === 'b') return a.name;
  if (a.kind === 'b') return b.name;
  if (a.name === 'bfloat16' || b.name === 'bfloat16') {
    const other = a.name === 'bfloat16' ? b : a;
    if (other.name === 'float32' || other.name === 'float64') return other.name;
    return other.bytes === 1 ? 'bfloat16' : undefined;
  }
  if (a.kind === 'f' && b.kind === 'f') return a.bytes >= b.bytes ? a.name : b.name;
  if (a.kind === 'f' || b.kind === 'f') {
    const [f, i] = a.kind === 'f' ? [a, b] : [b, a];
    const need = DType[FLOAT_FOR_INT_BYTES[i.bytes]!];
    return f.bytes >= need.bytes ? f.name : need.name;
  }
  if (a.kind === b.kind) return a.bytes >= b.bytes ? a.name : b.name;
  const [s, u] = a.kind === 'i' ? [a, b] : [b, a];
  if (s.bytes > u.bytes) return s.name;
  return u.bytes === 8 ? 'float64' : SIGNED_BY_BYTES[u.bytes * 2]!;
}

function noPromotion(a: DTypeInfo, b: DTypeInfo, op: string): MXNetError {
  return new MXNetError(`${a.name} and ${b.name} have no common dtype`, {
    op,
    dtypes: [a.name, b.name],
    hint:
      'NumPy (with ml_dtypes for bfloat16) does not promote bfloat16 with float16 or with integers wider ' +
      "than 8 bits; cast one operand first, e.g. x.astype('float32')",
  });
}

function resolve(d: DTypeName | DTypeInfo | string, op: string): DTypeInfo {
  try {
    return dtype(d);
  } catch (e) {
    throw new MXNetError(`unknown dtype ${JSON.stringify(typeof d === 'object' ? d.name : d)}`, {
      op,
      hint: (e as MXNetError).hint,
      cause: e,
    });
  }
}

/**
 * NumPy's `np.promote_types(a, b)`: the smallest dtype both `a` and `b` cast to safely.
 * Throws an MXNetError naming both where no such dtype exists (bfloat16 with float16 or int16+).
 */
export function promoteTypes(a: DTypeName | DTypeInfo, b: DTypeName | DTypeInfo): DTypeName {
  const da = resolve(a, 'promoteTypes');
  const db = resolve(b, 'promoteTypes');
  const r = promotePair(da, db);
  if (r === undefined) throw noPromotion(da, db, 'promoteTypes');
  return r;
}

/** The kind of a scalar operand, or undefined for a dtype operand. */
function scalarKind(x: PromotionOperand): WeakScalarKind | undefined {
  if (typeof x === 'boolean') return 'bool';
  if (typeof x === 'bigint') return 'int';
  if (typeof x === 'number') return Number.isInteger(x) ? 'int' : 'float';
  if (typeof x === 'object' && 'weak' in x) {
    if (x.weak !== 'bool' && x.weak !== 'int' && x.weak !== 'float') {
      throw new MXNetError(`unknown weak scalar kind ${JSON.stringify(x.weak)}`, {
        op: 'resultType',
        hint: "use { weak: 'bool' | 'int' | 'float' }",
      });
    }
    return x.weak;
  }
  return undefined;
}

const SCALAR_RANK: Readonly<Record<WeakScalarKind, 0 | 1 | 2>> = { bool: 0, int: 1, float: 2 };

/** Promote array dtypes as NumPy's `np.result_type` does for dtypes (see the header). */
function promoteArrays(ds: readonly DTypeInfo[]): DTypeInfo {
  for (let i = 0; i < ds.length; i++) {
    for (let j = i + 1; j < ds.length; j++) {
      if (promotePair(ds[i]!, ds[j]!) === undefined) throw noPromotion(ds[i]!, ds[j]!, 'resultType');
    }
  }
  const top = Math.max(...ds.map(category));
  const main = ds.find((d) => category(d) === top)!;
  let r: DTypeInfo | undefined;
  for (const d of ds) {
    const p = category(d) < top ? DType[promotePair(main, d)!] : d;
    r = r === undefined ? p : DType[promotePair(r, p)!];
  }
  return r!;
}

/**
 * NumPy's `np.result_type` with NEP 50 weak scalars and MXNet's default float (see the header):
 * `resultType(['int8', 3])` is int8, `resultType(['int32', 0.5])` float32,
 * `resultType(['int32', 'float32'])` float64.
 */
export function resultType(
  operands: readonly PromotionOperand[],
  options: ResultTypeOptions = {},
): DTypeName {
  const defaultFloat = options.defaultFloat ?? 'float32';
  if (defaultFloat !== 'float32' && defaultFloat !== 'float64') {
    throw new MXNetError(`defaultFloat must be 'float32' or 'float64', got ${JSON.stringify(defaultFloat)}`, {
      op: 'resultType',
      params: { defaultFloat },
    });
  }
  if (operands.length === 0) {
    throw new MXNetError('at least one operand is required', {
      op: 'resultType',
      hint: 'pass the dtypes of the arrays and the scalars of the operation',
    });
  }
  const arrays: DTypeInfo[] = [];
  let scalarRank = -1;
  for (const x of operands) {
    const k = scalarKind(x);
    if (k === undefined) {
      arrays.push(resolve(x as DTypeName | DTypeInfo, 'resultType'));
    } else if (options.weakScalars === false) {
      arrays.push(DType[k === 'bool' ? 'bool' : k === 'int' ? 'int64' : defaultFloat]);
    } else {
      scalarRank = Math.max(scalarRank, SCALAR_RANK[k]);
    }
  }
  if (arrays.length === 0) return scalarRank === 0 ? 'bool' : scalarRank === 1 ? 'int64' : defaultFloat;
  const r = promoteArrays(arrays);
  if (scalarRank <= category(r)) return r.name;
  return scalarRank === 2 ? 'float64' : 'int64';
}
