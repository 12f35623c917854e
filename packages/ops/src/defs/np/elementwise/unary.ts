/**
 * MXNet 2.0's NumPy unary elementwise ops as SimpleOps (`np_elemwise_unary_op_basic.cc`): the
 * dtype-keeping ones (`_npi_negative`, `_npi_absolute`, `_npi_square`...), the mixed-type ones
 * (an integer or bool input gives float32, MXNet's default float: `_npi_sqrt`, `_npi_sin`,
 * rounding), the bool predicates (`_npi_isnan`...), plus `_npi_around` (NumPy's round: half to
 * even after scaling by 10^decimals), `_npi_nan_to_num` and `_npi_copy`.
 *
 * Gradients are MXNet's `_backward_npi_*` functors written as expressions (the output is read where
 * MXNet's backward uses it); rounding and predicates have zero gradients.
 */
import { E, type Expr } from '../../../expr.js';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { elemwiseShape } from '../../elementwise/common.js';
import { type ResultRule, unaryType } from './infer.js';

const { x, ograd: og, output: out } = E;

/**
 * NumPy's rint: round half to even (exact: x - floor(x) is exact in binary floating point). The
 * rounding is arithmetic on comparison results rather than selects, because a compiler types a
 * select's condition in its own (input) kind: for an integer input of a float op the condition would
 * compute in integers. Infinities and NaN pass through the outer select (`isfinite` is exact in any kind).
 */
export function rintEven(a: Expr): Expr {
  const r = E.floor(a);
  const d = E.sub(a, r);
  return E.select(E.isfinite(a), E.add(r, E.add(E.gt(d, 0.5), E.mul(E.eq(d, 0.5), E.mod(r, 2)))), a);
}

export interface NpUnaryEntry {
  /** NumPy name: the op is `_npi_<name>`. */
  readonly name: string;
  readonly rule: ResultRule;
  readonly f: (a: Expr) => Expr;
  /** Gradient times ograd; null: zero gradient. */
  readonly grad: Expr | null;
}

const u = (name: string, rule: ResultRule, f: (a: Expr) => Expr, grad: Expr | null): NpUnaryEntry => ({
  name,
  rule,
  f,
  grad,
});
const DEG = 180 / Math.PI;
const RAD = Math.PI / 180;

/** Every unary `_npi_` SimpleOp. */
export const NP_UNARY: readonly NpUnaryEntry[] = [
  u('negative', 'same', E.neg, E.neg(og)),
  u('reciprocal', 'same', E.reciprocal, E.div(E.neg(og), E.square(x))),
  u('absolute', 'same', E.abs, E.mul(og, E.sign(x))),
  u('sign', 'same', (a) => E.select(E.isnan(a), a, E.sign(a)), null),
  u('square', 'same', E.square, E.mul(og, E.mul(2, x))),
  u('rint', 'float', rintEven, null),
  u('ceil', 'float', E.ceil, null),
  u('floor', 'float', E.floor, null),
  u('trunc', 'float', E.trunc, null),
  u('fix', 'float', E.trunc, null),
  u('sqrt', 'float', E.sqrt, E.div(E.mul(og, 0.5), out)),
  u('cbrt', 'float', E.cbrt, E.div(og, E.mul(3, E.square(out)))),
  u('exp', 'float', E.exp, E.mul(og, out)),
  u('log', 'float', E.log, E.div(og, x)),
  u('log10', 'float', E.log10, E.div(og, E.mul(x, Math.LN10))),
  u('log2', 'float', E.log2, E.div(og, E.mul(x, Math.LN2))),
  u('log1p', 'float', E.log1p, E.div(og, E.add(x, 1))),
  u('expm1', 'float', E.expm1, E.mul(og, E.exp(x))),
  u('sin', 'float', E.sin, E.mul(og, E.cos(x))),
  u('cos', 'float', E.cos, E.neg(E.mul(og, E.sin(x)))),
  u('tan', 'float', E.tan, E.mul(og, E.add(E.square(out), 1))),
  u('arcsin', 'float', E.arcsin, E.div(og, E.sqrt(E.sub(1, E.square(x))))),
  u('arccos', 'float', E.arccos, E.neg(E.div(og, E.sqrt(E.sub(1, E.square(x)))))),
  u('arctan', 'float', E.arctan, E.div(og, E.add(E.square(x), 1))),
  u('degrees', 'float', (a) => E.mul(a, DEG), E.mul(og, DEG)),
  u('radians', 'float', (a) => E.mul(a, RAD), E.mul(og, RAD)),
  u('rad2deg', 'float', (a) => E.mul(a, DEG), E.mul(og, DEG)),
  u('deg2rad', 'float', (a) => E.mul(a, RAD), E.mul(og, RAD)),
  u('sinh', 'float', E.sinh, E.mul(og, E.cosh(x))),
  u('cosh', 'float', E.cosh, E.mul(og, E.sinh(x))),
  u('tanh', 'float', E.tanh, E.mul(og, E.sub(1, E.square(out)))),
  u('arcsinh', 'float', E.arcsinh, E.div(og, E.sqrt(E.add(E.square(x), 1)))),
  u('arccosh', 'float', E.arccosh, E.div(og, E.sqrt(E.sub(E.square(x), 1)))),
  u('arctanh', 'float', E.arctanh, E.div(og, E.sub(1, E.square(x)))),
  u('logical_not', 'bool', E.not, null),
  u('isnan', 'bool', E.isnan, null),
  u('isinf', 'bool', E.isinf, null),
  u('isposinf', 'bool', (a) => E.and(E.isinf(a), E.gt(a, 0)), null),
  u('isneginf', 'bool', (a) => E.and(E.isinf(a), E.lt(a, 0)), null),
  u('isfinite', 'bool', E.isfinite, null),
];

const INPLACE: readonly (readonly [number, number])[] = [[0, 0]];

/** Register every unary `_npi_` op, `_npi_around`, `_npi_nan_to_num` and `_npi_copy`. */
export function registerNpUnary(registry: OpRegistry): void {
  for (const e of NP_UNARY) {
    const name = `_npi_${e.name}`;
    registry.define({
      name,
      doc: `NumPy ${e.name}, element-wise`,
      listInputNames: ['x'],
      inferShape: (attrs, inS, outS) => elemwiseShape(name, attrs, inS, outS),
      inferType: unaryType(name, e.rule),
      ...(e.rule === 'same' ? { inplaceOption: () => INPLACE } : {}),
      elementwise: { forward: e.f(x), gradient: [e.grad] },
    });
  }

  // NumPy around: x * 10^d rounded half to even, / 10^d (negative d: divide first, as NumPy).
  const d = E.param('decimals');
  const up = E.pow(10, d);
  const down = E.pow(10, E.neg(d));
  registry.define({
    name: '_npi_around',
    doc: 'NumPy around: round half to even to `decimals` decimal places',
    params: { decimals: P.int({ default: 0, doc: 'Number of decimal places to round to.' }) },
    listInputNames: ['x'],
    inferShape: (attrs, inS, outS) => elemwiseShape('_npi_around', attrs, inS, outS),
    inferType: unaryType('_npi_around', 'same'),
    elementwise: {
      forward: E.select(E.ge(d, 0), E.div(rintEven(E.mul(x, up)), up), E.mul(rintEven(E.div(x, down)), down)),
      gradient: [null],
    },
  });

  const nan = E.param('nan');
  registry.define({
    name: '_npi_nan_to_num',
    doc: 'NaN to `nan`, +inf to `posinf`, -inf to `neginf` (the np layer passes the dtype limits for None)',
    params: {
      copy: P.bool({
        default: true,
        doc: 'Whether to create a copy of `x` (True) or to replace values in-place (False).',
      }),
      nan: P.double({ default: 0, doc: 'Value to be used to fill NaN values.' }),
      posinf: P.optional(P.double(), { doc: 'Value to be used to fill positive infinity values.' }),
      neginf: P.optional(P.double(), { doc: 'Value to be used to fill negative infinity values.' }),
    },
    listInputNames: ['data'],
    inferShape: (attrs, inS, outS) => elemwiseShape('_npi_nan_to_num', attrs, inS, outS),
    inferType: unaryType('_npi_nan_to_num', 'same'),
    elementwise: {
      forward: E.select(
        E.isnan(x),
        nan,
        E.select(E.isinf(x), E.select(E.gt(x, 0), E.param('posinf'), E.param('neginf')), x),
      ),
      gradient: [E.mul(og, E.isfinite(x))],
    },
  });

  registry.define({
    name: '_npi_copy',
    doc: 'a copy of the input (NumPy copy / positive)',
    listInputNames: ['a'],
    inferShape: (attrs, inS, outS) => elemwiseShape('_npi_copy', attrs, inS, outS),
    inferType: unaryType('_npi_copy', 'same'),
    inplaceOption: () => INPLACE,
    inplaceIdentity: () => [true],
    elementwise: { forward: x, gradient: [og] },
  });
}
