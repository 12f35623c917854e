/**
 * Array-with-scalar SimpleOps (MXNet `elemwise_binary_scalar_op_{basic,extended,logic}.cc`):
 * `_plus_scalar`, the reversed `_r*_scalar` forms, comparisons and logic against a scalar.
 *
 * Parameters are MXNet 2.0's `NumpyBinaryScalarParam`: `scalar` (double, default 1) and `is_int`
 * (bool, default true). The scalar enters the expression as `E.param('scalar')`, converted to the
 * compute dtype (so with `is_int=True` an int32 array adds `int(scalar)`, truncated, as MXNet's
 * `DType(alpha)`). Type inference is `NumpyBinaryScalarType`: an integer array with `is_int=False`
 * computes and returns float64; a backend compiles the expression in the output dtype and converts
 * the input to it first (MXNet casts the input into temp space the same way).
 *
 * Sparse inputs (MXNet's storage rules, see sparse-elementwise.ts): `_mul_scalar` and `_div_scalar`
 * keep CSR / row_sparse (only the stored values are scaled, so `x * nan` stays sparse, as MXNet
 * documents); `_plus_scalar` / `_minus_scalar` keep them only for a scalar of 0 and otherwise give a
 * dense result without a fallback; the comparisons keep them when comparing 0 with the scalar gives
 * 0, else fall back. Every other scalar op is dense-only.
 */
import { E, type Expr } from '../../expr.js';
import { P } from '../../params.js';
import type { OpRegistry } from '../../registry.js';
import {
  SCALAR_DENSE_RESULT,
  SCALAR_SAME_STORAGE,
  type ScalarAttrs,
  type SparseElementwiseRule,
  scalarLogicRule,
  storageInference,
} from '../../sparse-elementwise.js';
import { elemwiseShape, scalarType } from './common.js';

const { x, ograd: og, output: out } = E;
const s = E.param('scalar');

export interface ScalarEntry {
  readonly name: string;
  readonly alias: string;
  readonly doc: string;
  readonly forward: Expr;
  readonly gradient: readonly (Expr | null)[];
  /** MXNet's storage rule for sparse inputs; omitted: dense only. */
  readonly sparse?: SparseElementwiseRule<ScalarAttrs>;
}

const ZERO: readonly null[] = [null];
const logic = (fn: (x: number, s: number) => boolean) => scalarLogicRule((x, s) => (fn(x, s) ? 1 : 0));

/** Every scalar SimpleOp with its MXNet CamelCase alias. */
export const SCALAR_OPS: readonly ScalarEntry[] = [
  {
    name: '_plus_scalar',
    alias: '_PlusScalar',
    doc: 'x + scalar',
    sparse: SCALAR_DENSE_RESULT,
    forward: E.add(x, s),
    gradient: [og],
  },
  {
    name: '_minus_scalar',
    alias: '_MinusScalar',
    doc: 'x - scalar',
    sparse: SCALAR_DENSE_RESULT,
    forward: E.sub(x, s),
    gradient: [og],
  },
  {
    name: '_rminus_scalar',
    alias: '_RMinusScalar',
    doc: 'scalar - x',
    forward: E.sub(s, x),
    gradient: [E.neg(og)],
  },
  {
    name: '_mul_scalar',
    alias: '_MulScalar',
    doc: 'x * scalar',
    sparse: SCALAR_SAME_STORAGE,
    forward: E.mul(x, s),
    gradient: [E.mul(og, s)],
  },
  {
    name: '_div_scalar',
    alias: '_DivScalar',
    doc: 'x / scalar',
    sparse: SCALAR_SAME_STORAGE,
    forward: E.div(x, s),
    gradient: [E.div(og, s)],
  },
  {
    name: '_rdiv_scalar',
    alias: '_RDivScalar',
    doc: 'scalar / x',
    forward: E.div(s, x),
    gradient: [E.mul(og, E.neg(E.div(s, E.square(x))))],
  },
  { name: '_mod_scalar', alias: '_ModScalar', doc: 'x mod scalar', forward: E.mod(x, s), gradient: [og] },
  {
    name: '_rmod_scalar',
    alias: '_RModScalar',
    doc: 'scalar mod x',
    forward: E.mod(s, x),
    gradient: [E.mul(og, E.neg(E.floor(E.div(s, x))))],
  },
  {
    name: '_power_scalar',
    alias: '_PowerScalar',
    doc: 'x ** scalar',
    forward: E.pow(x, s),
    gradient: [E.mul(og, E.mul(s, E.pow(x, E.sub(s, 1))))],
  },
  {
    name: '_rpower_scalar',
    alias: '_RPowerScalar',
    doc: 'scalar ** x',
    forward: E.pow(s, x),
    gradient: [E.mul(og, E.mul(out, E.log(s)))],
  },
  {
    name: '_maximum_scalar',
    alias: '_MaximumScalar',
    doc: 'max(x, scalar)',
    forward: E.max(x, s),
    gradient: [E.mul(og, E.ge(x, s))],
  },
  {
    name: '_minimum_scalar',
    alias: '_MinimumScalar',
    doc: 'min(x, scalar)',
    forward: E.min(x, s),
    gradient: [E.mul(og, E.le(x, s))],
  },
  {
    name: '_hypot_scalar',
    alias: '_HypotScalar',
    doc: 'hypot(x, scalar)',
    forward: E.hypot(x, s),
    gradient: [E.mul(og, E.div(x, out))],
  },
  {
    name: '_equal_scalar',
    alias: '_EqualScalar',
    doc: 'x == scalar',
    sparse: logic((x, s) => x === s),
    forward: E.eq(x, s),
    gradient: ZERO,
  },
  {
    name: '_not_equal_scalar',
    alias: '_NotEqualScalar',
    doc: 'x != scalar',
    sparse: logic((x, s) => x !== s),
    forward: E.ne(x, s),
    gradient: ZERO,
  },
  {
    name: '_greater_scalar',
    alias: '_GreaterScalar',
    doc: 'x > scalar',
    sparse: logic((x, s) => x > s),
    forward: E.gt(x, s),
    gradient: ZERO,
  },
  {
    name: '_greater_equal_scalar',
    alias: '_GreaterEqualScalar',
    doc: 'x >= scalar',
    sparse: logic((x, s) => x >= s),
    forward: E.ge(x, s),
    gradient: ZERO,
  },
  {
    name: '_lesser_scalar',
    alias: '_LesserScalar',
    doc: 'x < scalar',
    sparse: logic((x, s) => x < s),
    forward: E.lt(x, s),
    gradient: ZERO,
  },
  {
    name: '_lesser_equal_scalar',
    alias: '_LesserEqualScalar',
    doc: 'x <= scalar',
    sparse: logic((x, s) => x <= s),
    forward: E.le(x, s),
    gradient: ZERO,
  },
  {
    name: '_logical_and_scalar',
    alias: '_LogicalAndScalar',
    doc: 'x && scalar',
    forward: E.and(x, s),
    gradient: ZERO,
  },
  {
    name: '_logical_or_scalar',
    alias: '_LogicalOrScalar',
    doc: 'x || scalar',
    forward: E.or(x, s),
    gradient: ZERO,
  },
  {
    name: '_logical_xor_scalar',
    alias: '_LogicalXorScalar',
    doc: 'bool(x) != bool(scalar)',
    forward: E.xor(x, s),
    gradient: ZERO,
  },
];

/** MXNet 2.0 `NumpyBinaryScalarParam`. */
export const SCALAR_PARAMS = Object.freeze({
  scalar: P.double({ default: 1, doc: 'Scalar input value' }),
  is_int: P.bool({ default: true, doc: 'Indicate whether scalar input is int type' }),
});

const INPLACE: readonly (readonly [number, number])[] = [[0, 0]];

/** Register every scalar SimpleOp (MXNet `MXNET_OPERATOR_REGISTER_BINARY_SCALAR`). */
export function registerScalar(registry: OpRegistry): void {
  for (const e of SCALAR_OPS) {
    registry.define({
      name: e.name,
      aliases: [e.alias],
      doc: e.doc,
      params: SCALAR_PARAMS,
      inferShape: (attrs, inS, outS) => elemwiseShape(e.name, attrs, inS, outS),
      inferType: (attrs, inT, outT) => scalarType(e.name, attrs, inT, outT),
      inplaceOption: () => INPLACE,
      ...(e.sparse ? { inferStorageType: storageInference(e.sparse) } : {}),
      elementwise: { forward: e.forward, gradient: e.gradient },
    });
  }
}
