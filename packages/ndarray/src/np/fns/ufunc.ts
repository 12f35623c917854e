/**
 * np's elementwise functions (NumPy ufuncs): arithmetic with NumPy's promotion (JS numbers are weak
 * scalars, `resultType` in @mx/base), true division giving the default float for integers (MXNet's
 * rule), and comparisons giving bool arrays. Each is a table row — the array op, the scalar op and
 * the reversed-scalar op MXNet uses, and the result rule — run by one factory, so a new ufunc is one
 * line. Operands are converted to the computing dtype first (a `Cast`), then the op runs.
 */
import { DType, type DTypeName, MXNetError } from '@mx/base';
import { NDArray } from '../../ndarray.js';
import type { ndarray } from '../array.js';
import type { ArrayLike, NpContext } from '../context.js';

/** How a ufunc's result dtype follows from the promoted operand dtype. */
type Rule = 'same' | 'float' | 'bool';

interface BinaryRow {
  readonly array: string;
  readonly scalar: string;
  readonly rscalar: string;
  readonly rule: Rule;
}

const BINARY = {
  add: { array: 'broadcast_add', scalar: '_plus_scalar', rscalar: '_plus_scalar', rule: 'same' },
  subtract: { array: 'broadcast_sub', scalar: '_minus_scalar', rscalar: '_rminus_scalar', rule: 'same' },
  multiply: { array: 'broadcast_mul', scalar: '_mul_scalar', rscalar: '_mul_scalar', rule: 'same' },
  trueDivide: { array: 'broadcast_div', scalar: '_div_scalar', rscalar: '_rdiv_scalar', rule: 'float' },
  mod: { array: 'broadcast_mod', scalar: '_mod_scalar', rscalar: '_rmod_scalar', rule: 'same' },
  power: { array: 'broadcast_power', scalar: '_power_scalar', rscalar: '_rpower_scalar', rule: 'same' },
  maximum: {
    array: 'broadcast_maximum',
    scalar: '_maximum_scalar',
    rscalar: '_maximum_scalar',
    rule: 'same',
  },
  minimum: {
    array: 'broadcast_minimum',
    scalar: '_minimum_scalar',
    rscalar: '_minimum_scalar',
    rule: 'same',
  },
  equal: { array: 'broadcast_equal', scalar: '_equal_scalar', rscalar: '_equal_scalar', rule: 'bool' },
  notEqual: {
    array: 'broadcast_not_equal',
    scalar: '_not_equal_scalar',
    rscalar: '_not_equal_scalar',
    rule: 'bool',
  },
  greater: { array: 'broadcast_greater', scalar: '_greater_scalar', rscalar: '_lesser_scalar', rule: 'bool' },
  greaterEqual: {
    array: 'broadcast_greater_equal',
    scalar: '_greater_equal_scalar',
    rscalar: '_lesser_equal_scalar',
    rule: 'bool',
  },
  less: { array: 'broadcast_lesser', scalar: '_lesser_scalar', rscalar: '_greater_scalar', rule: 'bool' },
  lessEqual: {
    array: 'broadcast_lesser_equal',
    scalar: '_lesser_equal_scalar',
    rscalar: '_greater_equal_scalar',
    rule: 'bool',
  },
} as const satisfies Record<string, BinaryRow>;

/** A binary ufunc: `(a, b) => ndarray`. */
export type BinaryUfunc = (a: ArrayLike, b: ArrayLike) => ndarray;

const isFloat = (d: DTypeName): boolean => DType[d].kind === 'f';
const isScalar = (x: ArrayLike): x is number | boolean => typeof x === 'number' || typeof x === 'boolean';

function binary(c: NpContext, row: BinaryRow): BinaryUfunc {
  return (a, b) =>
    c.withTemps((t) => {
      if (isScalar(a) && isScalar(b)) a = c.operand(a, t); // two scalars: NumPy makes a 0-d result
      if (a instanceof NDArray && b instanceof NDArray) checkBroadcast(a.shape, b.shape, row.array);
      const r = c.resultType(a, b);
      const want = row.rule === 'float' && !isFloat(r) ? c.defaultFloat() : r;
      // Half floats compute in float32 and round once (NumPy's float16 loops do the same).
      const half = want === 'float16' || want === 'bfloat16';
      const compute = half ? 'float32' : want;
      let out: ndarray;
      if (isScalar(b) || isScalar(a)) {
        const [arr, s, op] = isScalar(b) ? [a, b, row.scalar] : [b, a as number | boolean, row.rscalar];
        const x = c.cast(c.operand(arr, t), compute, t);
        out = c.invoke1(op, [x], { scalar: Number(s) });
      } else {
        const x = c.cast(c.operand(a, t), compute, t);
        const y = c.cast(c.operand(b, t), compute, t);
        out = c.invoke1(row.array, [x, y]);
      }
      if (row.rule !== 'bool' && !half) return out;
      t.push(out);
      return c.invoke1('Cast', [out], { dtype: row.rule === 'bool' ? 'bool' : want });
    });
}

/** NumPy's broadcast error, before any op is pushed. */
export function checkBroadcast(a: readonly number[], b: readonly number[], op: string): void {
  const n = Math.max(a.length, b.length);
  for (let i = 1; i <= n; i++) {
    const x = a[a.length - i] ?? 1;
    const y = b[b.length - i] ?? 1;
    if (x !== y && x !== 1 && y !== 1) {
      const t = (s: readonly number[]) => `(${s.join(',')}${s.length === 1 ? ',' : ''})`;
      throw new MXNetError(`operands could not be broadcast together with shapes ${t(a)} ${t(b)}`, {
        op,
        shapes: [a, b],
        hint: 'each trailing dimension must be equal or 1',
      });
    }
  }
}

/** A unary function of the same dtype (NumPy keeps integer dtypes for these). */
function unarySame(c: NpContext, op: string): (x: ArrayLike) => ndarray {
  return (x) => c.withTemps((t) => c.invoke1(op, [c.operand(x, t)]));
}

/** A unary float function: integer and bool inputs compute in the default float (MXNet's rule). */
function unaryFloat(c: NpContext, op: string): (x: ArrayLike) => ndarray {
  return (x) =>
    c.withTemps((t) => {
      const a = c.operand(x, t);
      return c.invoke1(op, [c.cast(a, isFloat(a.dtype) ? a.dtype : c.defaultFloat(), t)]);
    });
}

/** The elementwise functions of the np namespace. */
export function ufuncFunctions(c: NpContext) {
  const b = (n: keyof typeof BINARY) => binary(c, BINARY[n]);
  const divide = b('trueDivide');
  const mod = b('mod');
  return {
    add: b('add'),
    subtract: b('subtract'),
    multiply: b('multiply'),
    /** True division: integer operands give the default float (float32; NumPy gives float64). */
    trueDivide: divide,
    divide,
    mod,
    remainder: mod,
    power: b('power'),
    maximum: b('maximum'),
    minimum: b('minimum'),
    equal: b('equal'),
    notEqual: b('notEqual'),
    greater: b('greater'),
    greaterEqual: b('greaterEqual'),
    less: b('less'),
    lessEqual: b('lessEqual'),
    negative: unarySame(c, 'negative'),
    absolute: unarySame(c, 'abs'),
    abs: unarySame(c, 'abs'),
    square: unarySame(c, 'square'),
    exp: unaryFloat(c, 'exp'),
    log: unaryFloat(c, 'log'),
    sqrt: unaryFloat(c, 'sqrt'),
    sin: unaryFloat(c, 'sin'),
    cos: unaryFloat(c, 'cos'),
    tanh: unaryFloat(c, 'tanh'),

    /** NumPy `clip(a, a_min, a_max)`: either bound may be null, not both. */
    clip(a: ArrayLike, aMin: number | null, aMax: number | null): ndarray {
      if (aMin === null && aMax === null) {
        throw new MXNetError('One of max or min must be given', {
          op: 'clip',
          hint: 'pass a lower bound, an upper bound, or both',
        });
      }
      return c.withTemps((t) =>
        c.invoke1('clip', [c.operand(a, t)], {
          a_min: aMin ?? Number.NEGATIVE_INFINITY,
          a_max: aMax ?? Number.POSITIVE_INFINITY,
        }),
      );
    },

    /**
     * NumPy `round(a, decimals)`: halves to even (NumPy's rule, unlike `rint`'s ties down), after
     * scaling by 10^decimals; integer arrays are returned as copies for decimals >= 0.
     */
    round(a: ArrayLike, decimals = 0): ndarray {
      return c.withTemps((t) => {
        const x = c.operand(a, t);
        if (!isFloat(x.dtype) && decimals >= 0) return c.invoke1('_copy', [x]);
        const f = 10 ** decimals;
        const y = decimals === 0 ? x : keep(t, c.invoke1('_mul_scalar', [x], { scalar: f }));
        const up = keep(t, c.invoke1('floor', [keep(t, c.invoke1('_plus_scalar', [y], { scalar: 0.5 }))]));
        // A tie (up - y == 0.5) rounded to an odd value goes one down: up - tie * odd.
        const tie = keep(
          t,
          c.invoke1('_equal_scalar', [keep(t, c.invoke1('broadcast_sub', [up, y]))], { scalar: 0.5 }),
        );
        const odd = keep(t, c.invoke1('abs', [keep(t, c.invoke1('_mod_scalar', [up], { scalar: 2 }))]));
        const r = c.invoke1('broadcast_sub', [up, keep(t, c.invoke1('broadcast_mul', [tie, odd]))]);
        if (decimals === 0) return r;
        t.push(r);
        return c.invoke1('_div_scalar', [r], { scalar: f });
      });
    },
  };
}

function keep(temps: NDArray[], a: ndarray): ndarray {
  temps.push(a);
  return a;
}

export type UfuncFunctions = ReturnType<typeof ufuncFunctions>;
