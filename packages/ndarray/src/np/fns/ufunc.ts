/**
 * np's elementwise functions (NumPy ufuncs) on MXNet 2.0's `_npi_*` ops, so a traced graph records
 * what MXNet 2.0 records: `_npi_add(int32, float32)` promotes inside the op (its inferType), JS
 * numbers are weak scalars (`_npi_add_scalar` with `is_int`), comparisons give bool arrays, float
 * functions of integers give the default float (MXNet's rule; the operands are cast first so the op
 * never reads the flag). Each function is a row of ufunc-table.ts run by one of two factories;
 * casts appear only where a backend cannot compute the dtype (float16 computes in float32 and
 * rounds once) or where the rule needs a float. `out` (NumPy's keyword) writes the result into an
 * existing array of the result's shape, cast with NumPy's `same_kind` rule.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import { NDArray } from '../../ndarray.js';
import type { ndarray } from '../array.js';
import type { ArrayLike, NpContext } from '../context.js';
import { closeFunctions } from './ufunc-close.js';
import { canCastSameKind, castError, computeDtype, isFloat, resultOf } from './ufunc-dtypes.js';
import { BINARY_UFUNCS, type BinaryRow, UNARY_UFUNCS, type UnaryRow } from './ufunc-table.js';

/** NumPy's `out` keyword. */
export interface UfuncOptions {
  /** Write the result into this array (same shape; the result is cast with the `same_kind` rule). */
  readonly out?: NDArray;
}

/** A binary ufunc: `(x1, x2, { out }) => ndarray`. */
export type BinaryUfunc = (x1: ArrayLike, x2: ArrayLike, options?: UfuncOptions) => ndarray;
/** A unary ufunc: `(x, { out }) => ndarray`. */
export type UnaryUfunc = (x: ArrayLike, options?: UfuncOptions) => ndarray;

const isScalar = (x: ArrayLike): x is number => typeof x === 'number';
const npName = (op: string): string =>
  op.replace(/^_npi_/, '').replace(/^bitwise_(left|right)_shift$/, '$1_shift');
const shapeText = (s: readonly number[]): string => `(${s.join(',')}${s.length === 1 ? ',' : ''})`;

/** NumPy's broadcast error, before any op is pushed. */
export function checkBroadcast(a: readonly number[], b: readonly number[], op: string): number[] {
  const n = Math.max(a.length, b.length);
  const out: number[] = new Array(n);
  for (let i = 1; i <= n; i++) {
    const x = a[a.length - i] ?? 1;
    const y = b[b.length - i] ?? 1;
    if (x !== y && x !== 1 && y !== 1) {
      throw new MXNetError(
        `operands could not be broadcast together with shapes ${shapeText(a)} ${shapeText(b)}`,
        {
          op,
          shapes: [a, b],
          hint: 'each trailing dimension must be equal or 1',
        },
      );
    }
    out[n - i] = x === 1 ? y : x;
  }
  return out;
}

/**
 * Deliver `res` (shape `shape`): itself, or written into `out` (cast with `same_kind`) and then
 * `out` returned; `res` is then a temporary.
 */
function deliver(
  c: NpContext,
  fn: string,
  res: ndarray,
  out: NDArray | undefined,
  temps: NDArray[],
): ndarray {
  if (out === undefined) return res;
  temps.push(res);
  out.checkLive(fn);
  if (out.shape.length !== res.shape.length || out.shape.some((d, i) => d !== res.shape[i])) {
    throw new MXNetError(
      `non-broadcastable output operand with shape ${shapeText(out.shape)} doesn't match the broadcast shape ${shapeText(res.shape)}`,
      { op: fn, shapes: [res.shape, out.shape], hint: `give out= the shape ${shapeText(res.shape)}` },
    );
  }
  if (!canCastSameKind(res.dtype, out.dtype)) throw castError(fn, res.dtype, out.dtype);
  c.invoke(
    res.dtype === out.dtype ? '_npi_copy' : 'Cast',
    [res],
    res.dtype === out.dtype ? {} : { dtype: out.dtype },
    {
      out,
    },
  );
  return c.asNp(out, fn);
}

/** The operand as an array of `dtype` when it must change (integers for a float rule, half floats). */
function prepare(c: NpContext, x: NDArray, dtype: DTypeName, temps: NDArray[], force: boolean): NDArray {
  if (x.dtype === dtype) return x;
  if (force || computeDtype(x.dtype) !== x.dtype) return c.cast(x, dtype, temps);
  return x;
}

const sameShape = (a: readonly number[], b: readonly number[]): boolean => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};

/**
 * The result dtype of `row` for operands whose promoted dtype is `d`, when the op takes them as
 * they are (no cast before or after: `d` is a dtype the backends compute in and the rule keeps it,
 * or gives bool); undefined when the general path must decide.
 */
function directResult(rule: BinaryRow['rule'], d: DTypeName): DTypeName | undefined {
  if (computeDtype(d) !== d) return undefined;
  if (rule === 'same') return d;
  if (rule === 'bool') return 'bool';
  if (rule === 'float') return isFloat(d) ? d : undefined;
  return isFloat(d) ? undefined : d;
}

/** True for a JS number that does not promote an array of `d` (NumPy's weak scalars). */
const weakFor = (d: DTypeName, s: number): boolean => isFloat(d) || (d !== 'bool' && Number.isInteger(s));

function binary(c: NpContext, row: BinaryRow): BinaryUfunc {
  const fn = npName(row.op);
  const general = generalBinary(c, row, fn);
  // The common calls (two arrays of one dtype, or an array and a JS number that keeps its dtype,
  // no `out`) go straight to the op: the same op, inputs and result as the general path, without
  // its promotion, temporaries and closures.
  return (x1, x2, options) => {
    if (options?.out === undefined && x1 instanceof NDArray) {
      if (x2 instanceof NDArray) {
        const want = x1.dtype === x2.dtype ? directResult(row.rule, x1.dtype) : undefined;
        if (want !== undefined) {
          if (!sameShape(x1.shape, x2.shape)) checkBroadcast(x1.shape, x2.shape, fn);
          const res = c.invoke1(row.op, [x1, x2]);
          if (res.dtype === want) return res;
          res.dispose();
        }
      } else if (typeof x2 === 'number' && weakFor(x1.dtype, x2)) {
        const want = directResult(row.rule, x1.dtype);
        if (want !== undefined) {
          const res = c.invoke1(row.scalar, [x1], { scalar: x2, is_int: Number.isInteger(x2) });
          if (res.dtype === want) return res;
          res.dispose();
        }
      }
    }
    return general(x1, x2, options ?? {});
  };
}

/** Every case: operands made arrays, NumPy's promotion, casts where needed, `out`. */
function generalBinary(
  c: NpContext,
  row: BinaryRow,
  fn: string,
): (x1: ArrayLike, x2: ArrayLike, options: UfuncOptions) => ndarray {
  return (x1, x2, options) =>
    c.withTemps((t) => {
      let a: ArrayLike = x1;
      let b: ArrayLike = x2;
      // Booleans and two JS numbers become arrays (NumPy: bool scalars act as bool arrays; two
      // scalars give a 0-d result).
      if (typeof a === 'boolean' || (isScalar(a) && isScalar(b))) a = c.operand(a, t);
      if (typeof b === 'boolean') b = c.operand(b, t);
      if (!isScalar(a) && !(a instanceof NDArray)) a = c.operand(a, t);
      if (!isScalar(b) && !(b instanceof NDArray)) b = c.operand(b, t);
      if (a instanceof NDArray && b instanceof NDArray) checkBroadcast(a.shape, b.shape, fn);
      const r = c.resultType(a, b);
      if (row.rule === 'int' && isFloat(r)) {
        throw new MXNetError(
          `ufunc '${fn}' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''`,
          { op: row.op, dtypes: [r], hint: 'bitwise functions take integer or bool arrays' },
        );
      }
      const want = resultOf(row.rule, r, c.defaultFloat());
      // Float rule: integer operands are cast to the result float; comparisons compute in the promoted dtype.
      const cd = computeDtype(row.rule === 'float' ? want : r);
      // Cast only where the op cannot take the operands as they are: a float rule over integers, or
      // a promoted dtype the backends do not compute in (int8 + uint8 → int16 computes in int32).
      const force = (row.rule === 'float' && !isFloat(r)) || computeDtype(r) !== r;
      let res: ndarray;
      if (isScalar(a) || isScalar(b)) {
        const [arr0, s, op] = isScalar(b)
          ? [a as NDArray, b, row.scalar]
          : [b as NDArray, a as number, row.rscalar];
        // The array in the computing dtype (a bool array with an int scalar computes in int64, an
        // integer array with a non-integer scalar in float64: MXNet's NumpyBinaryScalarType).
        const arr = prepare(c, arr0, cd, t, true);
        res = c.invoke1(op, [arr], { scalar: s, is_int: Number.isInteger(s) });
      } else {
        const x = prepare(c, a as NDArray, cd, t, force);
        const y = prepare(c, b as NDArray, cd, t, force);
        res = c.invoke1(row.op, [x, y]);
      }
      if (res.dtype !== want) {
        t.push(res);
        res = c.invoke1('Cast', [res], { dtype: want });
      }
      return deliver(c, fn, res, options.out, t);
    });
}

const BOOL_NEGATIVE =
  'The numpy boolean negative, the `-` operator, is not supported, use the `~` operator or the logical_not function instead.';

function unary(c: NpContext, row: UnaryRow, name: string): UnaryUfunc {
  return (x, options = {}) =>
    c.withTemps((t) => {
      const a = c.operand(x, t);
      if (row.op === '_npi_negative' && a.dtype === 'bool') {
        throw new MXNetError(BOOL_NEGATIVE, {
          op: row.op,
          dtypes: ['bool'],
          hint: 'use np.logicalNot(x) or np.invert(x)',
        });
      }
      if (row.rule === 'int' && isFloat(a.dtype)) {
        throw new MXNetError(
          `ufunc '${name}' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''`,
          { op: row.op, dtypes: [a.dtype], hint: 'invert takes integer or bool arrays' },
        );
      }
      const want = resultOf(row.rule, a.dtype, c.defaultFloat());
      const cd = computeDtype(row.rule === 'float' ? want : a.dtype);
      const xin = prepare(c, a, cd, t, row.rule === 'float' && !isFloat(a.dtype));
      let res = c.invoke1(row.op, [xin]);
      if (res.dtype !== want) {
        t.push(res);
        res = c.invoke1('Cast', [res], { dtype: want });
      }
      return deliver(c, name, res, options.out, t);
    });
}

/** The largest finite value of a float dtype (nan_to_num's default for +inf). */
function floatMax(d: DTypeName): number {
  if (d === 'float16') return 65504;
  if (d === 'bfloat16') return 3.3895313892515355e38;
  if (d === 'float32') return 3.4028234663852886e38;
  return Number.MAX_VALUE;
}

/** The elementwise functions of the np namespace. */
export function ufuncFunctions(c: NpContext) {
  const b = Object.fromEntries(Object.entries(BINARY_UFUNCS).map(([k, r]) => [k, binary(c, r)])) as {
    readonly [K in keyof typeof BINARY_UFUNCS]: BinaryUfunc;
  };
  const u = Object.fromEntries(
    Object.entries(UNARY_UFUNCS).map(([k, r]) => [
      k,
      unary(
        c,
        r,
        k.replace(/[A-Z]/g, (m) => `_${m.toLowerCase()}`),
      ),
    ]),
  ) as { readonly [K in keyof typeof UNARY_UFUNCS]: UnaryUfunc };

  /** NumPy `around(a, decimals)`: half to even after scaling by 10^decimals (`_npi_around`). */
  const around = (a: ArrayLike, decimals = 0, options: UfuncOptions = {}): ndarray =>
    c.withTemps((t) => {
      const x = c.operand(a, t);
      if (!Number.isInteger(decimals)) {
        throw new MXNetError(`'${typeof decimals}' object cannot be interpreted as an integer`, {
          op: '_npi_around',
          params: { decimals },
          hint: 'pass an integer number of decimals',
        });
      }
      let res: ndarray;
      if (!isFloat(x.dtype) && decimals >= 0) res = c.invoke1('_npi_copy', [x]);
      else {
        // Integers with negative decimals round in float64 (exact) and convert back, as NumPy's result.
        const cd = isFloat(x.dtype) ? computeDtype(x.dtype) : 'float64';
        res = c.invoke1('_npi_around', [c.cast(x, cd, t)], { decimals });
        if (res.dtype !== x.dtype) {
          t.push(res);
          res = c.invoke1('Cast', [res], { dtype: x.dtype });
        }
      }
      return deliver(c, 'around', res, options.out, t);
    });

  return {
    ...b,
    ...u,
    /** True division: integer operands give the default float (float32; NumPy gives float64). */
    divide: b.trueDivide,
    /** NumPy `mod` (= `remainder`: the sign of the divisor). */
    mod: b.remainder,
    bitwiseLeftShift: b.leftShift,
    bitwiseRightShift: b.rightShift,
    abs: u.absolute,
    bitwiseNot: u.invert,
    /** NumPy `exp2(x)`: 2 ** x in a float dtype. */
    exp2: (x: ArrayLike, options: UfuncOptions = {}): ndarray =>
      c.withTemps((t) => {
        const a = c.operand(x, t);
        const want = isFloat(a.dtype) ? a.dtype : c.defaultFloat();
        let res = c.invoke1('_npi_rpower_scalar', [c.cast(a, computeDtype(want), t)], {
          scalar: 2,
          is_int: true,
        });
        if (res.dtype !== want) {
          t.push(res);
          res = c.invoke1('Cast', [res], { dtype: want });
        }
        return deliver(c, 'exp2', res, options.out, t);
      }),
    around,
    /** NumPy `round` (= `around`). */
    round: around,

    /** NumPy `clip(a, a_min, a_max)` (`_npi_clip`): either bound may be null, not both. */
    clip(a: ArrayLike, aMin: number | null, aMax: number | null, options: UfuncOptions = {}): ndarray {
      if (aMin === null && aMax === null) {
        throw new MXNetError('One of max or min must be given', {
          op: 'clip',
          hint: 'pass a lower bound, an upper bound, or both',
        });
      }
      return c.withTemps((t) => {
        const x = c.operand(a, t);
        const cd = computeDtype(x.dtype);
        let res = c.invoke1('_npi_clip', [c.cast(x, cd, t)], {
          a_min: aMin ?? Number.NEGATIVE_INFINITY,
          a_max: aMax ?? Number.POSITIVE_INFINITY,
        });
        if (res.dtype !== x.dtype) {
          t.push(res);
          res = c.invoke1('Cast', [res], { dtype: x.dtype });
        }
        return deliver(c, 'clip', res, options.out, t);
      });
    },

    /**
     * NumPy `nan_to_num(x, copy, nan, posinf, neginf)` (`_npi_nan_to_num`): NaN → `nan`, ±inf →
     * `posinf`/`neginf` (default: the dtype's largest finite values); integer arrays are copied.
     */
    nanToNum(
      x: ArrayLike,
      options: {
        readonly copy?: boolean;
        readonly nan?: number;
        readonly posinf?: number | null;
        readonly neginf?: number | null;
      } = {},
    ): ndarray {
      return c.withTemps((t) => {
        const a = c.operand(x, t);
        if (!isFloat(a.dtype)) return c.invoke1('_npi_copy', [a]);
        const m = floatMax(a.dtype);
        const cd = computeDtype(a.dtype);
        let res = c.invoke1('_npi_nan_to_num', [c.cast(a, cd, t)], {
          copy: options.copy ?? true,
          nan: options.nan ?? 0,
          posinf: options.posinf ?? m,
          neginf: options.neginf ?? -m,
        });
        if (res.dtype !== a.dtype) {
          t.push(res);
          res = c.invoke1('Cast', [res], { dtype: a.dtype });
        }
        return res;
      });
    },
    ...closeFunctions(c, b),
  };
}

export type UfuncFunctions = ReturnType<typeof ufuncFunctions>;
