/**
 * MXNet 2.0's NumPy binary elementwise ops as SimpleOps: the mixed-precision broadcasting ops
 * (`_npi_add`, ... `_npi_logaddexp`, comparisons and logic with bool outputs) and their
 * array-with-scalar forms (`_npi_add_scalar`, reversed `_npi_r*_scalar`). One table row per NumPy
 * function holds the expression over two operands and its two partial derivatives, so the array
 * op, the scalar op (operands x, scalar) and the reversed scalar op (scalar, x) are all derived
 * from it. The backends' SimpleOp compilers type mixed-dtype expressions (NumPy-promoted node
 * kinds), so `_npi_add(int32, float32)` computes in float64 without a Cast node, as MXNet's
 * FInferType says.
 *
 * NumPy's semantics where they differ from the legacy mshadow functors: `remainder` is NaN for a
 * zero float divisor (0 for integers), `maximum`/`minimum` propagate NaN from either side,
 * `fmax`/`fmin` ignore it, `rint` inside `around` rounds half to even.
 */
import { E, type Expr } from '../../../expr.js';
import type { OpRegistry } from '../../../registry.js';
import { elemwiseShape } from '../../elementwise/common.js';
import { SCALAR_PARAMS } from '../../elementwise/scalar.js';
import { binaryType, npBroadcastShape, type ResultRule, scalarOpType } from './infer.js';

type F2 = (a: Expr, b: Expr) => Expr;
/** Gradients of f(a, b): [d/da, d/db] times ograd, given the op's output; null: zero. */
type G2 = (a: Expr, b: Expr, og: Expr, out: Expr) => readonly [Expr | null, Expr | null];

export interface NpBinaryEntry {
  /** NumPy name stem: `_npi_<stem>`, `_npi_<stem>_scalar`, `_npi_r<stem>_scalar`. */
  readonly stem: string;
  readonly doc: string;
  readonly rule: ResultRule;
  readonly f: F2;
  readonly grad: G2;
  /** Register `_npi_r<stem>_scalar` (non-commutative functions MXNet reverses). */
  readonly reversed?: boolean;
  /** Register only the scalar forms (the array op exists under another name). */
  readonly scalarOnly?: boolean;
}

const ZERO: G2 = () => [null, null];
const negative = (b: Expr): Expr => E.or(E.lt(b, 0), E.lt(E.div(1, b), 0)); // b < 0 or b is -0
const rmax: F2 = (a, b) => E.select(E.or(E.isnan(a), E.ge(a, b)), a, b);
const rmin: F2 = (a, b) => E.select(E.or(E.isnan(a), E.le(a, b)), a, b);
const fmaxSel = (a: Expr, b: Expr): Expr => E.or(E.ge(a, b), E.isnan(b));
const fminSel = (a: Expr, b: Expr): Expr => E.or(E.le(a, b), E.isnan(b));
/** 0/0 in the compute dtype: NaN for floats, 0 for integers (NumPy's result for a zero divisor). */
const zeroDiv = (b: Expr): Expr => E.div(b, b);

/** Every NumPy binary function with an `_npi_` op. */
export const NP_BINARY: readonly NpBinaryEntry[] = [
  { stem: 'add', doc: 'x1 + x2', rule: 'same', f: E.add, grad: (_a, _b, og) => [og, og] },
  {
    stem: 'subtract',
    doc: 'x1 - x2',
    rule: 'same',
    reversed: true,
    f: E.sub,
    grad: (_a, _b, og) => [og, E.neg(og)],
  },
  {
    stem: 'multiply',
    doc: 'x1 * x2',
    rule: 'same',
    f: E.mul,
    grad: (a, b, og) => [E.mul(og, b), E.mul(og, a)],
  },
  {
    stem: 'true_divide',
    doc: 'x1 / x2 (integers give float32, the default float)',
    rule: 'float',
    reversed: true,
    f: E.div,
    grad: (a, b, og) => [E.div(og, b), E.neg(E.div(E.mul(og, a), E.square(b)))],
  },
  {
    stem: 'mod',
    doc: 'remainder with the sign of x2 (NumPy remainder); NaN (floats) or 0 (integers) where x2 == 0',
    rule: 'same',
    reversed: true,
    f: (a, b) => E.select(E.eq(b, 0), zeroDiv(b), E.mod(a, b)),
    grad: (a, b, og) => [og, E.mul(og, E.neg(E.floor(E.div(a, b))))],
  },
  {
    stem: 'floor_divide',
    doc: 'floor(x1 / x2) (NumPy floor_divide; integers by 0 give 0)',
    rule: 'same',
    reversed: true,
    f: (a, b) => E.round(E.div(E.sub(a, E.mod(a, b)), b)),
    grad: ZERO,
  },
  {
    stem: 'power',
    doc: 'x1 ** x2',
    rule: 'same',
    reversed: true,
    f: E.pow,
    grad: (a, b, og, out) => [E.mul(og, E.mul(b, E.pow(a, E.sub(b, 1)))), E.mul(og, E.mul(out, E.log(a)))],
  },
  {
    stem: 'maximum',
    doc: 'max(x1, x2); NaN propagates',
    rule: 'same',
    f: rmax,
    grad: (a, b, og) => [E.mul(og, E.ge(a, b)), E.mul(og, E.lt(a, b))],
  },
  {
    stem: 'minimum',
    doc: 'min(x1, x2); NaN propagates',
    rule: 'same',
    f: rmin,
    grad: (a, b, og) => [E.mul(og, E.le(a, b)), E.mul(og, E.gt(a, b))],
  },
  {
    stem: 'fmax',
    doc: 'max(x1, x2) ignoring NaN',
    rule: 'same',
    f: (a, b) => E.select(fmaxSel(a, b), a, b),
    grad: (a, b, og) => [E.mul(og, fmaxSel(a, b)), E.mul(og, E.not(fmaxSel(a, b)))],
  },
  {
    stem: 'fmin',
    doc: 'min(x1, x2) ignoring NaN',
    rule: 'same',
    f: (a, b) => E.select(fminSel(a, b), a, b),
    grad: (a, b, og) => [E.mul(og, fminSel(a, b)), E.mul(og, E.not(fminSel(a, b)))],
  },
  {
    stem: 'fmod',
    doc: 'C fmod: remainder with the sign of x1',
    rule: 'same',
    reversed: true,
    f: (a, b) => E.select(E.eq(b, 0), zeroDiv(b), E.sub(a, E.mul(E.trunc(E.div(a, b)), b))),
    grad: (a, b, og) => [og, E.mul(og, E.neg(E.trunc(E.div(a, b))))],
  },
  {
    stem: 'copysign',
    doc: 'magnitude of x1 with the sign of x2',
    rule: 'float',
    reversed: true,
    f: (a, b) => E.select(negative(b), E.neg(E.abs(a)), E.abs(a)),
    grad: (a, b, og) => [E.select(E.eq(E.lt(a, 0), negative(b)), og, E.neg(og)), null],
  },
  {
    stem: 'arctan2',
    doc: 'arctan(x1 / x2) in the quadrant of (x2, x1)',
    rule: 'float',
    reversed: true,
    f: E.arctan2,
    grad: (a, b, og) => {
      const r = E.add(E.square(a), E.square(b));
      return [E.div(E.mul(og, b), r), E.neg(E.div(E.mul(og, a), r))];
    },
  },
  {
    stem: 'hypot',
    doc: 'sqrt(x1² + x2²)',
    rule: 'float',
    f: E.hypot,
    grad: (a, b, og, out) => [E.mul(og, E.div(a, out)), E.mul(og, E.div(b, out))],
  },
  {
    stem: 'ldexp',
    doc: 'x1 * 2 ** x2',
    rule: 'float',
    reversed: true,
    f: (a, b) => E.mul(a, E.pow(2, b)),
    grad: (_a, b, og, out) => [E.mul(og, E.pow(2, b)), E.mul(og, E.mul(out, Math.LN2))],
  },
  {
    stem: 'logaddexp',
    doc: 'log(exp(x1) + exp(x2)) without overflow',
    rule: 'float',
    f: (a, b) =>
      E.select(E.eq(a, b), E.add(a, Math.LN2), E.add(E.max(a, b), E.log1p(E.exp(E.neg(E.abs(E.sub(a, b))))))),
    grad: (a, b, og, out) => [E.mul(og, E.exp(E.sub(a, out))), E.mul(og, E.exp(E.sub(b, out)))],
  },
  { stem: 'equal', doc: 'x1 == x2', rule: 'bool', f: E.eq, grad: ZERO },
  { stem: 'not_equal', doc: 'x1 != x2', rule: 'bool', f: E.ne, grad: ZERO },
  { stem: 'greater', doc: 'x1 > x2', rule: 'bool', f: E.gt, grad: ZERO },
  { stem: 'greater_equal', doc: 'x1 >= x2', rule: 'bool', f: E.ge, grad: ZERO },
  { stem: 'less', doc: 'x1 < x2', rule: 'bool', f: E.lt, grad: ZERO },
  { stem: 'less_equal', doc: 'x1 <= x2', rule: 'bool', f: E.le, grad: ZERO },
  { stem: 'logical_and', doc: 'x1 and x2', rule: 'bool', f: E.and, grad: ZERO },
  { stem: 'logical_or', doc: 'x1 or x2', rule: 'bool', f: E.or, grad: ZERO },
  { stem: 'logical_xor', doc: 'bool(x1) != bool(x2)', rule: 'bool', f: E.xor, grad: ZERO },
];

const { x, y, ograd: og, output: out } = E;
const s = E.param('scalar');
const INPUTS = ['lhs', 'rhs'] as const;

/** Register the array op, the scalar op and (when reversed) the reversed scalar op of every row. */
export function registerNpBinary(registry: OpRegistry): void {
  for (const r of NP_BINARY) {
    const name = `_npi_${r.stem}`;
    if (r.scalarOnly !== true) {
      registry.define({
        name,
        doc: `${r.doc}, element-wise with NumPy broadcasting and type promotion`,
        numInputs: 2,
        listInputNames: INPUTS,
        inferShape: npBroadcastShape(name),
        inferType: binaryType(name, r.rule),
        elementwise: { forward: r.f(x, y), gradient: r.grad(x, y, og, out), broadcast: true },
      });
    }
    const scalarOp = (sname: string, forward: Expr, grad: Expr | null): void => {
      registry.define({
        name: sname,
        doc: `${r.doc} with a scalar (${sname.startsWith('_npi_r') ? 'reversed: scalar op x' : 'x op scalar'})`,
        params: SCALAR_PARAMS,
        inferShape: (attrs, inS, outS) => elemwiseShape(sname, attrs, inS, outS),
        inferType: scalarOpType(sname, r.rule),
        elementwise: { forward, gradient: [grad] },
      });
    };
    scalarOp(`${name}_scalar`, r.f(x, s), r.grad(x, s, og, out)[0]);
    if (r.reversed === true) scalarOp(`_npi_r${r.stem}_scalar`, r.f(s, x), r.grad(s, x, og, out)[1]);
  }
}
