/**
 * Gradients as data, next to each op (MXNet's `FGradient`): an op declares which forward inputs
 * and outputs its gradient reads and a `build` function that writes the input gradients in terms
 * of *other ops*, through a `GradBuilder`. The builder is abstract over what a value is: the
 * imperative autograd tape passes NDArrays (and records the ops again under `createGraph`, which
 * is how higher-order gradients work), a symbolic graph pass passes graph nodes. So a gradient is
 * written once and serves both, the way MXNet's FGradient builds nnvm nodes for both.
 *
 * Builders must not read concrete shapes: use ops that take a "like" input (`_broadcast_backward`,
 * `reshape_like`, `zeros_like`), as MXNet's backward nodes do, so symbolic graphs keep working.
 *
 * Elementwise (SimpleOp) ops get theirs derived: `registry.define` adds one `_backward_<op>` op per
 * differentiable input whose expression is the op's gradient expression with `ograd`/`output`
 * turned into inputs, and the gradient `_broadcast_backward`s it to the input's shape for
 * broadcasting ops. Those backward ops are SimpleOps too, differentiated symbolically by
 * `diffExpr`, so every elementwise op has gradients of every order.
 */
import { E, type Expr } from './expr.js';
import type { Attrs } from './types.js';

/** Builds gradient values from ops. `T` is the value type (NDArray imperatively, a node symbolically). */
export interface GradBuilder<T = unknown> {
  /** Forward input `i` (must be declared in `GradientDef.inputs`). */
  input(i: number): T;
  /** Forward output `i`, hidden outputs included (must be declared in `GradientDef.outputs`). */
  output(i: number): T;
  /** The gradient flowing into output `i` (zeros of the output's shape when none flowed). */
  ograd(i: number): T;
  /** True when output `i` received a gradient (lets builders skip work for unused hidden outputs). */
  hasOgrad(i: number): boolean;
  /** Apply a registered op; returns its visible outputs. */
  op(name: string, inputs: readonly T[], params?: Readonly<Record<string, unknown>>): T[];
  /** Same as `op(...)[0]`. */
  op1(name: string, inputs: readonly T[], params?: Readonly<Record<string, unknown>>): T;
  /** Training mode the forward op ran in. */
  readonly isTrain: boolean;
}

/** Which forward values a gradient reads: all, none, or these indices (possibly depending on params). */
export type Needs<A> = 'all' | 'none' | readonly number[] | ((attrs: A) => readonly number[]);

export interface GradientDef<A = Attrs> {
  /** Forward inputs the gradient reads (the tape keeps only these alive). Default `'all'`. */
  readonly inputs?: Needs<A>;
  /** Forward outputs the gradient reads. Default `'none'`. */
  readonly outputs?: Needs<A>;
  /** One entry per forward input: its gradient (shaped like the input), or null for none (zero). */
  readonly build: <T>(g: GradBuilder<T>, attrs: A) => readonly (T | null)[];
}

/**
 * What an op declares: a gradient, `'zero'` (MXNet `MakeZeroGradNodes`: argmax, comparisons,
 * rounding, init ops; the gradient of every input is zero), or nothing (not differentiable:
 * backward through it is an error naming the op).
 */
export type GradientSpec<A = Attrs> = GradientDef<A> | 'zero';

/** Resolve a `Needs` declaration to sorted indices in [0, n). */
export function resolveNeeds<A>(
  needs: Needs<A> | undefined,
  attrs: A,
  n: number,
  dflt: 'all' | 'none',
): number[] {
  const v = needs ?? dflt;
  if (v === 'all') return Array.from({ length: n }, (_, i) => i);
  if (v === 'none') return [];
  const list = typeof v === 'function' ? v(attrs) : v;
  return [...new Set(list)].filter((i) => i >= 0 && i < n).sort((a, b) => a - b);
}

// ---- symbolic differentiation of SimpleOp expressions -------------------------------------------

const ZERO: Expr = E.c(0);

function isZero(e: Expr): boolean {
  return e.k === 'const' && e.value === 0;
}

function add(a: Expr, b: Expr): Expr {
  if (isZero(a)) return b;
  if (isZero(b)) return a;
  return E.add(a, b);
}

function mul(a: Expr, b: Expr): Expr {
  if (isZero(a) || isZero(b)) return ZERO;
  if (a.k === 'const' && a.value === 1) return b;
  if (b.k === 'const' && b.value === 1) return a;
  return E.mul(a, b);
}

/** d f(a) / d a for a unary function, in terms of `a` and `f(a)` (null: not differentiable). */
function unaryDerivative(fn: string, a: Expr, fa: Expr): Expr | null {
  switch (fn) {
    case 'neg':
      return E.c(-1);
    case 'abs':
      return E.sign(a);
    case 'square':
      return E.mul(2, a);
    case 'sqrt':
      return E.div(0.5, fa);
    case 'rsqrt':
      return E.mul(-0.5, E.div(fa, a));
    case 'cbrt':
      return E.div(1, E.mul(3, E.square(fa)));
    case 'rcbrt':
      return E.div(E.mul(-1 / 3, fa), a);
    case 'reciprocal':
      return E.neg(E.square(fa));
    case 'exp':
      return fa;
    case 'expm1':
      return E.add(fa, 1);
    case 'log':
      return E.reciprocal(a);
    case 'log2':
      return E.div(1 / Math.LN2, a);
    case 'log10':
      return E.div(1 / Math.LN10, a);
    case 'log1p':
      return E.reciprocal(E.add(a, 1));
    case 'sin':
      return E.cos(a);
    case 'cos':
      return E.neg(E.sin(a));
    case 'tan':
      return E.add(1, E.square(fa));
    case 'arcsin':
      return E.rsqrt(E.sub(1, E.square(a)));
    case 'arccos':
      return E.neg(E.rsqrt(E.sub(1, E.square(a))));
    case 'arctan':
      return E.reciprocal(E.add(1, E.square(a)));
    case 'sinh':
      return E.cosh(a);
    case 'cosh':
      return E.sinh(a);
    case 'tanh':
      return E.sub(1, E.square(fa));
    case 'arcsinh':
      return E.rsqrt(E.add(E.square(a), 1));
    case 'arccosh':
      return E.rsqrt(E.sub(E.square(a), 1));
    case 'arctanh':
      return E.reciprocal(E.sub(1, E.square(a)));
    case 'erf':
      return E.mul(2 / Math.sqrt(Math.PI), E.exp(E.neg(E.square(a))));
    case 'erfinv':
      return E.mul(Math.sqrt(Math.PI) / 2, E.exp(E.square(fa)));
    case 'gamma':
      return E.mul(fa, E.digamma(a));
    case 'gammaln':
      return E.digamma(a);
    // Piecewise constant: zero derivative.
    case 'sign':
    case 'floor':
    case 'ceil':
    case 'trunc':
    case 'rint':
    case 'round':
    case 'not':
    case 'isnan':
    case 'isinf':
    case 'isfinite':
      return ZERO;
    default:
      // digamma (trigamma is not an expression function)
      return null;
  }
}

/**
 * d e / d input(index) as an expression (forward-mode symbolic differentiation of the tree), or
 * null when some function on the path has no expression derivative (digamma).
 */
export function diffExpr(e: Expr, index: number): Expr | null {
  switch (e.k) {
    case 'input':
      return e.index === index ? E.c(1) : ZERO;
    case 'const':
    case 'param':
      return ZERO;
    case 'output':
    case 'ograd':
      // Only plain forward expressions are differentiated (backward ops have these substituted).
      return null;
    case 'unary': {
      const da = diffExpr(e.a, index);
      if (da === null) return null;
      if (isZero(da)) return ZERO;
      const d = unaryDerivative(e.fn, e.a, e);
      return d === null ? null : mul(da, d);
    }
    case 'select': {
      const da = diffExpr(e.a, index);
      const db = diffExpr(e.b, index);
      if (da === null || db === null) return null;
      if (isZero(da) && isZero(db)) return ZERO;
      return E.select(e.cond, da, db);
    }
    case 'binary': {
      const da = diffExpr(e.a, index);
      const db = diffExpr(e.b, index);
      if (da === null || db === null) return null;
      if (isZero(da) && isZero(db)) return ZERO;
      const { a, b } = e;
      switch (e.fn) {
        case 'add':
          return add(da, db);
        case 'sub':
          return add(da, mul(E.c(-1), db));
        case 'mul':
          return add(mul(da, b), mul(a, db));
        case 'div':
          return add(mul(da, E.reciprocal(b)), mul(db, E.neg(E.div(a, E.square(b)))));
        case 'mod':
          return add(da, mul(db, E.neg(E.floor(E.div(a, b)))));
        case 'pow':
          return add(mul(da, E.mul(b, E.pow(a, E.sub(b, 1)))), mul(db, E.mul(e, E.log(a))));
        case 'max':
          return E.select(E.ge(a, b), da, db);
        case 'min':
          return E.select(E.le(a, b), da, db);
        case 'hypot':
          return add(mul(da, E.div(a, e)), mul(db, E.div(b, e)));
        case 'arctan2': {
          const den = E.add(E.square(a), E.square(b));
          return add(mul(da, E.div(b, den)), mul(db, E.neg(E.div(a, den))));
        }
        default:
          // comparisons and logic: piecewise constant
          return ZERO;
      }
    }
    default:
      return e satisfies never;
  }
}

/**
 * Replace leaves of an expression: renumber or replace inputs, and substitute `output`/`ograd`
 * (turning gradient expressions into ops) or `param`s (baking parameter values in, as fusion does).
 */
export function substituteExpr(
  e: Expr,
  map: {
    readonly input: (i: number) => Expr;
    readonly output?: Expr;
    readonly ograd?: Expr;
    readonly param?: (name: string) => Expr;
  },
): Expr {
  switch (e.k) {
    case 'input':
      return map.input(e.index);
    case 'output':
      if (map.output === undefined) throw new Error('expression reads the output');
      return map.output;
    case 'ograd':
      if (map.ograd === undefined) throw new Error('expression reads the output gradient');
      return map.ograd;
    case 'param':
      return map.param === undefined ? e : map.param(e.name);
    case 'const':
      return e;
    case 'unary':
      return { k: 'unary', fn: e.fn, a: substituteExpr(e.a, map) };
    case 'binary':
      return { k: 'binary', fn: e.fn, a: substituteExpr(e.a, map), b: substituteExpr(e.b, map) };
    case 'select':
      return {
        k: 'select',
        cond: substituteExpr(e.cond, map),
        a: substituteExpr(e.a, map),
        b: substituteExpr(e.b, map),
      };
    default:
      return e satisfies never;
  }
}

/** Which inputs, and whether `output`/`ograd`, an expression reads. */
export function exprUses(e: Expr, acc = { inputs: new Set<number>(), output: false, ograd: false }) {
  switch (e.k) {
    case 'input':
      acc.inputs.add(e.index);
      break;
    case 'output':
      acc.output = true;
      break;
    case 'ograd':
      acc.ograd = true;
      break;
    case 'unary':
      exprUses(e.a, acc);
      break;
    case 'binary':
      exprUses(e.a, acc);
      exprUses(e.b, acc);
      break;
    case 'select':
      exprUses(e.cond, acc);
      exprUses(e.a, acc);
      exprUses(e.b, acc);
      break;
    default:
      break;
  }
  return acc;
}
