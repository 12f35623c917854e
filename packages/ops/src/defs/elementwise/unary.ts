/**
 * Unary math SimpleOps (MXNet `elemwise_unary_op_{basic,trig,logexp,pow}.cc`): one table row per
 * op with its MXNet name, aliases (`_sparse_*` where MXNet adds `MXNET_ADD_SPARSE_OP_ALIAS`), the
 * forward expression and the gradient MXNet's `_backward_*` op computes.
 *
 * Gradients use what MXNet's backward uses: `ElemwiseGradUseOut` ops (relu, sigmoid, exp, sqrt,
 * cbrt, tan, tanh) read `E.output`; `ElemwiseGradUseIn` ops read the input; `MakeZeroGradNodes`
 * ops (rounding, sign, logic, BlockGrad) give `[null]`. Two deliberate notes: erfinv's derivative
 * is written with the output (`sqrt(pi)/2 * exp(erfinv(x)^2)`), the true derivative; gamma and
 * gammaln use digamma (gamma' = gamma·psi, gammaln' = psi), as MXNet's gamma_grad/gammaln_grad.
 *
 * `zeroPreserving` marks the ops MXNet registers `..._WITH_RSP_CSR` (plus `_copy` and `BlockGrad`):
 * f(0) = 0, so on a CSR or row_sparse input the output keeps the input's storage type and a backend
 * applies the op to the stored values only (MXNet `ElemwiseStorageType<1, 1, false, true, true>`).
 * The others (exp, cos, sigmoid, ...) give dense results from sparse inputs through the storage
 * fallback, as in MXNet.
 */
import { E, type Expr } from '../../expr.js';
import type { OpRegistry } from '../../registry.js';
import { SAME_STORAGE, storageInference } from '../../sparse-elementwise.js';
import { elemwiseShape } from './common.js';

const { x, ograd: og, output: out } = E;

export interface UnaryEntry {
  readonly name: string;
  readonly aliases?: readonly string[];
  readonly doc: string;
  readonly forward: Expr;
  /** Omitted: not differentiable here. `[null]`: zero gradient (MXNet `MakeZeroGradNodes`). */
  readonly gradient?: readonly (Expr | null)[];
  /** MXNet `FInplaceIdentity` (output equals input: copies). */
  readonly identity?: boolean;
  /** f(0) = 0 and MXNet serves CSR / row_sparse inputs with the same output storage type. */
  readonly zeroPreserving?: boolean;
}

const sparse = (name: string): string[] => [`_sparse_${name}`];
const ZERO: readonly null[] = [null];
const LN2 = Math.LN2;
const LN10 = Math.LN10;
const DEG = 180 / Math.PI;
const RAD = Math.PI / 180;

/** Every unary SimpleOp of this family. */
export const UNARY_OPS: readonly UnaryEntry[] = [
  // --- basic arithmetic
  {
    name: 'abs',
    zeroPreserving: true,
    aliases: sparse('abs'),
    doc: '|x|',
    forward: E.abs(x),
    gradient: [E.mul(og, E.sign(x))],
  },
  {
    name: 'sign',
    zeroPreserving: true,
    aliases: sparse('sign'),
    doc: 'sign of x (-1, 0, 1)',
    forward: E.sign(x),
    gradient: ZERO,
  },
  {
    name: 'negative',
    zeroPreserving: true,
    aliases: sparse('negative'),
    doc: '-x',
    forward: E.neg(x),
    gradient: [E.neg(og)],
  },
  {
    name: 'reciprocal',
    doc: '1/x',
    forward: E.reciprocal(x),
    gradient: [E.div(E.neg(og), E.square(x))],
  },
  {
    name: 'square',
    zeroPreserving: true,
    aliases: sparse('square'),
    doc: 'x^2',
    forward: E.square(x),
    gradient: [E.mul(og, E.mul(2, x))],
  },
  {
    name: 'sqrt',
    zeroPreserving: true,
    aliases: sparse('sqrt'),
    doc: 'square root',
    forward: E.sqrt(x),
    gradient: [E.div(E.mul(og, 0.5), out)],
  },
  {
    name: 'rsqrt',
    aliases: sparse('rsqrt'),
    doc: '1/sqrt(x)',
    forward: E.rsqrt(x),
    gradient: [E.mul(og, E.div(-0.5, E.mul(E.sqrt(x), x)))],
  },
  {
    name: 'cbrt',
    zeroPreserving: true,
    aliases: sparse('cbrt'),
    doc: 'cube root',
    forward: E.cbrt(x),
    gradient: [E.div(og, E.mul(3, E.square(out)))],
  },
  {
    name: 'rcbrt',
    doc: '1/cbrt(x)',
    forward: E.rcbrt(x),
    gradient: [E.mul(og, E.div(-1 / 3, E.mul(E.cbrt(x), x)))],
  },
  // --- exponentials and logarithms
  { name: 'exp', aliases: sparse('exp'), doc: 'e^x', forward: E.exp(x), gradient: [E.mul(og, out)] },
  {
    name: 'expm1',
    zeroPreserving: true,
    aliases: sparse('expm1'),
    doc: 'e^x - 1',
    forward: E.expm1(x),
    gradient: [E.mul(og, E.exp(x))],
  },
  { name: 'log', aliases: sparse('log'), doc: 'natural log', forward: E.log(x), gradient: [E.div(og, x)] },
  {
    name: 'log2',
    aliases: sparse('log2'),
    doc: 'base-2 log',
    forward: E.log2(x),
    gradient: [E.div(og, E.mul(x, LN2))],
  },
  {
    name: 'log10',
    aliases: sparse('log10'),
    doc: 'base-10 log',
    forward: E.log10(x),
    gradient: [E.div(og, E.mul(x, LN10))],
  },
  {
    name: 'log1p',
    zeroPreserving: true,
    aliases: sparse('log1p'),
    doc: 'log(1 + x)',
    forward: E.log1p(x),
    gradient: [E.div(og, E.add(x, 1))],
  },
  // --- trigonometric
  {
    name: 'sin',
    zeroPreserving: true,
    aliases: sparse('sin'),
    doc: 'sine',
    forward: E.sin(x),
    gradient: [E.mul(og, E.cos(x))],
  },
  {
    name: 'cos',
    aliases: sparse('cos'),
    doc: 'cosine',
    forward: E.cos(x),
    gradient: [E.mul(og, E.neg(E.sin(x)))],
  },
  {
    name: 'tan',
    zeroPreserving: true,
    aliases: sparse('tan'),
    doc: 'tangent',
    forward: E.tan(x),
    gradient: [E.mul(og, E.add(E.square(out), 1))],
  },
  {
    name: 'arcsin',
    zeroPreserving: true,
    aliases: sparse('arcsin'),
    doc: 'inverse sine',
    forward: E.arcsin(x),
    gradient: [E.div(og, E.sqrt(E.sub(1, E.square(x))))],
  },
  {
    name: 'arccos',
    aliases: sparse('arccos'),
    doc: 'inverse cosine',
    forward: E.arccos(x),
    gradient: [E.neg(E.div(og, E.sqrt(E.sub(1, E.square(x)))))],
  },
  {
    name: 'arctan',
    zeroPreserving: true,
    aliases: sparse('arctan'),
    doc: 'inverse tangent',
    forward: E.arctan(x),
    gradient: [E.div(og, E.add(E.square(x), 1))],
  },
  {
    name: 'degrees',
    zeroPreserving: true,
    aliases: sparse('degrees'),
    doc: 'radians to degrees',
    forward: E.mul(x, DEG),
    gradient: [E.mul(og, DEG)],
  },
  {
    name: 'radians',
    zeroPreserving: true,
    aliases: sparse('radians'),
    doc: 'degrees to radians',
    forward: E.mul(x, RAD),
    gradient: [E.mul(og, RAD)],
  },
  // --- hyperbolic
  {
    name: 'sinh',
    zeroPreserving: true,
    aliases: sparse('sinh'),
    doc: 'hyperbolic sine',
    forward: E.sinh(x),
    gradient: [E.mul(og, E.cosh(x))],
  },
  {
    name: 'cosh',
    aliases: sparse('cosh'),
    doc: 'hyperbolic cosine',
    forward: E.cosh(x),
    gradient: [E.mul(og, E.sinh(x))],
  },
  {
    name: 'tanh',
    zeroPreserving: true,
    aliases: sparse('tanh'),
    doc: 'hyperbolic tangent',
    forward: E.tanh(x),
    gradient: [E.mul(og, E.sub(1, E.square(out)))],
  },
  {
    name: 'arcsinh',
    zeroPreserving: true,
    aliases: sparse('arcsinh'),
    doc: 'inverse hyperbolic sine',
    forward: E.arcsinh(x),
    gradient: [E.div(og, E.sqrt(E.add(E.square(x), 1)))],
  },
  {
    name: 'arccosh',
    aliases: sparse('arccosh'),
    doc: 'inverse hyperbolic cosine',
    forward: E.arccosh(x),
    gradient: [E.div(og, E.sqrt(E.sub(E.square(x), 1)))],
  },
  {
    name: 'arctanh',
    zeroPreserving: true,
    aliases: sparse('arctanh'),
    doc: 'inverse hyperbolic tangent',
    forward: E.arctanh(x),
    gradient: [E.div(og, E.sub(1, E.square(x)))],
  },
  // --- rounding (MXNet: zero gradient)
  {
    name: 'floor',
    zeroPreserving: true,
    aliases: sparse('floor'),
    doc: 'floor',
    forward: E.floor(x),
    gradient: ZERO,
  },
  {
    name: 'ceil',
    zeroPreserving: true,
    aliases: sparse('ceil'),
    doc: 'ceiling',
    forward: E.ceil(x),
    gradient: ZERO,
  },
  {
    name: 'trunc',
    zeroPreserving: true,
    aliases: sparse('trunc'),
    doc: 'round toward zero',
    forward: E.trunc(x),
    gradient: ZERO,
  },
  {
    name: 'rint',
    zeroPreserving: true,
    aliases: sparse('rint'),
    doc: 'round to nearest; ties go to floor (MXNet rint: rint(1.5) = 1, rint(-1.5) = -2)',
    forward: E.rint(x),
    gradient: ZERO,
  },
  {
    name: 'round',
    zeroPreserving: true,
    aliases: sparse('round'),
    doc: 'round half away from zero',
    forward: E.round(x),
    gradient: ZERO,
  },
  {
    name: 'fix',
    zeroPreserving: true,
    aliases: sparse('fix'),
    doc: 'round toward zero',
    forward: E.trunc(x),
    gradient: ZERO,
  },
  // --- activations that are standalone ops (not Activation's act_type)
  {
    name: 'relu',
    zeroPreserving: true,
    aliases: [...sparse('relu'), '_npx_relu'],
    doc: 'max(x, 0); NaN propagates',
    forward: E.select(E.le(x, 0), 0, x),
    // MXNet relu_grad: NaN stays NaN, else out > 0.
    gradient: [E.mul(og, E.select(E.isnan(out), out, E.gt(out, 0)))],
  },
  {
    name: 'sigmoid',
    aliases: [...sparse('sigmoid'), '_npx_sigmoid'],
    doc: '1 / (1 + exp(-x))',
    forward: E.div(1, E.add(1, E.exp(E.neg(x)))),
    gradient: [E.mul(og, E.mul(out, E.sub(1, out)))],
  },
  {
    name: 'softsign',
    aliases: [...sparse('softsign'), '_npx_softsign'],
    doc: 'x / (1 + |x|)',
    forward: E.div(x, E.add(1, E.abs(x))),
    gradient: [E.div(og, E.square(E.add(1, E.abs(x))))],
  },
  // --- special functions
  {
    name: 'erf',
    aliases: ['_npx_erf'],
    doc: 'Gauss error function',
    forward: E.erf(x),
    gradient: [E.mul(og, E.mul(2 / Math.sqrt(Math.PI), E.exp(E.neg(E.square(x)))))],
  },
  {
    name: 'erfinv',
    aliases: ['_npx_erfinv'],
    doc: 'inverse Gauss error function',
    forward: E.erfinv(x),
    gradient: [E.mul(og, E.mul(Math.sqrt(Math.PI) / 2, E.exp(E.square(out))))],
  },
  {
    name: 'gamma',
    aliases: [...sparse('gamma'), '_npx_gamma'],
    doc: 'gamma function',
    forward: E.gamma(x),
    gradient: [E.mul(og, E.mul(E.output, E.digamma(x)))],
  },
  {
    name: 'gammaln',
    aliases: [...sparse('gammaln'), '_npx_gammaln'],
    doc: 'log |gamma(x)|',
    forward: E.gammaln(x),
    gradient: [E.mul(og, E.digamma(x))],
  },
  // --- logic and identities
  { name: 'logical_not', doc: 'x == 0 ? 1 : 0', forward: E.not(x), gradient: ZERO },
  {
    name: '_copy',
    zeroPreserving: true,
    aliases: ['identity'],
    doc: 'a copy of the input',
    forward: x,
    gradient: [og],
    identity: true,
  },
  {
    name: 'BlockGrad',
    zeroPreserving: true,
    aliases: ['stop_gradient', '_sparse_stop_gradient', '_npx_stop_gradient'],
    doc: 'identity forward, zero gradient',
    forward: x,
    gradient: ZERO,
    identity: true,
  },
];

const INPLACE: readonly (readonly [number, number])[] = [[0, 0]];
const IDENTITY: readonly boolean[] = [true];
const KEEP_STORAGE = storageInference(SAME_STORAGE);

/** Register every unary SimpleOp (MXNet `MXNET_OPERATOR_REGISTER_UNARY`: one input `data`, in-place ok). */
export function registerUnary(registry: OpRegistry): void {
  for (const u of UNARY_OPS) {
    registry.define({
      name: u.name,
      aliases: u.aliases ?? [],
      doc: u.doc,
      inferShape: (attrs, inS, outS) => elemwiseShape(u.name, attrs, inS, outS),
      inplaceOption: () => INPLACE,
      ...(u.identity ? { inplaceIdentity: () => IDENTITY } : {}),
      ...(u.zeroPreserving ? { inferStorageType: KEEP_STORAGE } : {}),
      elementwise: { forward: u.forward, ...(u.gradient ? { gradient: u.gradient } : {}) },
    });
  }
}
