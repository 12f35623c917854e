/**
 * SimpleOp expressions: elementwise operators are declared as scalar expression trees, once, and
 * every backend compiles them (cpu-wasm to wasm SIMD, webgpu to WGSL, cuda-native through NVRTC).
 * That is MXNet's SimpleOp idea (one `mshadow_op` functor per op, instantiated per device) made
 * data instead of templates, so a backend needs one compiler instead of one kernel per op, and a
 * graph pass can fuse chains of elementwise ops by substituting trees.
 *
 * The node set is deliberately small: inputs, the op's output and output gradient (for gradient
 * expressions), numeric constants, scalar parameters, and fixed unary/binary/select functions.
 * Semantics follow mshadow for each dtype: arithmetic on integers is integer arithmetic (division
 * truncates, `mod` takes the sign of the divisor, like MXNet's `mshadow_op::mod`), transcendental
 * functions on integers are computed in floating point and converted back (truncation), and
 * comparisons/logic produce 1 or 0 in the operand dtype (MXNet's legacy ops; NumPy-style bool
 * outputs belong to the `np` ops).
 */

/** Unary scalar functions a backend's expression compiler must implement. */
export const UNARY_FNS = [
  'neg',
  'abs',
  'sign',
  'square',
  'sqrt',
  'rsqrt',
  'cbrt',
  'rcbrt',
  'reciprocal',
  'exp',
  'expm1',
  'log',
  'log2',
  'log10',
  'log1p',
  'sin',
  'cos',
  'tan',
  'arcsin',
  'arccos',
  'arctan',
  'sinh',
  'cosh',
  'tanh',
  'arcsinh',
  'arccosh',
  'arctanh',
  'floor',
  'ceil',
  'trunc',
  'rint',
  'round',
  'erf',
  'erfinv',
  'gamma',
  'gammaln',
  'digamma',
  'not',
  'isnan',
  'isinf',
  'isfinite',
] as const;
export type UnaryFn = (typeof UNARY_FNS)[number];

/** Binary scalar functions. Comparisons and logic give 1 or 0. */
export const BINARY_FNS = [
  'add',
  'sub',
  'mul',
  'div',
  'mod',
  'pow',
  'max',
  'min',
  'hypot',
  'arctan2',
  'eq',
  'ne',
  'gt',
  'ge',
  'lt',
  'le',
  'and',
  'or',
  'xor',
] as const;
export type BinaryFn = (typeof BINARY_FNS)[number];

/** A scalar expression tree. */
export type Expr =
  /** The i-th input of the op (broadcast to the output shape by the backend). */
  | { readonly k: 'input'; readonly index: number }
  /** The op's forward output (only in gradient expressions). */
  | { readonly k: 'output' }
  /** The gradient flowing into the op's output (only in gradient expressions). */
  | { readonly k: 'ograd' }
  /** A numeric constant, converted to the compute dtype. */
  | { readonly k: 'const'; readonly value: number }
  /** A scalar parameter of the op (e.g. `scalar` of `_plus_scalar`), converted to the compute dtype. */
  | { readonly k: 'param'; readonly name: string }
  | { readonly k: 'unary'; readonly fn: UnaryFn; readonly a: Expr }
  | { readonly k: 'binary'; readonly fn: BinaryFn; readonly a: Expr; readonly b: Expr }
  /** `cond != 0 ? a : b`. */
  | { readonly k: 'select'; readonly cond: Expr; readonly a: Expr; readonly b: Expr };

type ExprLike = Expr | number;

function lift(x: ExprLike): Expr {
  return typeof x === 'number' ? { k: 'const', value: x } : x;
}

const un =
  (fn: UnaryFn) =>
  (a: ExprLike): Expr => ({ k: 'unary', fn, a: lift(a) });
const bin =
  (fn: BinaryFn) =>
  (a: ExprLike, b: ExprLike): Expr => ({ k: 'binary', fn, a: lift(a), b: lift(b) });

/** Builders: `E.div(1, E.add(1, E.exp(E.neg(E.x))))` is sigmoid. */
export const E = Object.freeze({
  /** First input. */
  x: { k: 'input', index: 0 } as Expr,
  /** Second input. */
  y: { k: 'input', index: 1 } as Expr,
  /** Third input. */
  z: { k: 'input', index: 2 } as Expr,
  input: (index: number): Expr => ({ k: 'input', index }),
  output: { k: 'output' } as Expr,
  ograd: { k: 'ograd' } as Expr,
  c: (value: number): Expr => ({ k: 'const', value }),
  param: (name: string): Expr => ({ k: 'param', name }),
  select: (cond: ExprLike, a: ExprLike, b: ExprLike): Expr => ({
    k: 'select',
    cond: lift(cond),
    a: lift(a),
    b: lift(b),
  }),
  ...(Object.fromEntries(UNARY_FNS.map((f) => [f, un(f)])) as Record<UnaryFn, (a: ExprLike) => Expr>),
  ...(Object.fromEntries(BINARY_FNS.map((f) => [f, bin(f)])) as Record<
    BinaryFn,
    (a: ExprLike, b: ExprLike) => Expr
  >),
});

/** Elementwise definition of a SimpleOp. */
export interface ElementwiseDef {
  /** Output value in terms of the inputs and scalar params. */
  readonly forward: Expr;
  /**
   * Gradient with respect to each input, in terms of inputs, `output` and `ograd`; null for an
   * input with no gradient (zero). Omitted when the op is not differentiable.
   */
  readonly gradient?: readonly (Expr | null)[];
  /** Inputs are broadcast NumPy-style (`broadcast_*` ops); otherwise all shapes must be equal. */
  readonly broadcast?: boolean;
  /**
   * The shape each input is read as before broadcasting (same element count: a reshape, never a
   * copy). For ops whose operands line up other than NumPy-style, e.g. `where`'s (n,) condition
   * selecting rows of an (n, m) input is read as (n, 1). Default: the inputs' own shapes.
   */
  readonly inputViews?: (
    inShapes: readonly (readonly number[])[],
    outShape: readonly number[],
  ) => readonly (readonly number[])[];
}

/**
 * A reduction whose input is an elementwise expression of the op's inputs, evaluated as the
 * reduction reads it (graph fusion's reduce prologue: `sum(square(a - b), axis=-1)` as one kernel).
 * All inputs have the reduction input's shape; axes [axis, ndim) are reduced, so each output
 * element reduces one contiguous row. Backends that compile these register a
 * `FusedReduceCompiler`; graph passes build such ops only for those backends.
 */
export interface FusedReduceDef {
  /** The reduced value, in terms of the inputs (no params: a fused chain carries constants). */
  readonly prologue: Expr;
  readonly reducer: 'sum' | 'mean' | 'max' | 'min';
  /** First reduced axis (non-negative); every axis from it to the last is reduced. */
  readonly axis: number;
  readonly keepdims: boolean;
}

/** A canonical string for an expression (cache key for compiled kernels). */
export function exprKey(e: Expr): string {
  switch (e.k) {
    case 'input':
      return `i${e.index}`;
    case 'output':
      return 'out';
    case 'ograd':
      return 'og';
    case 'const':
      return `c(${Object.is(e.value, -0) ? '-0' : e.value})`;
    case 'param':
      return `p(${e.name})`;
    case 'unary':
      return `${e.fn}(${exprKey(e.a)})`;
    case 'binary':
      return `${e.fn}(${exprKey(e.a)},${exprKey(e.b)})`;
    case 'select':
      return `sel(${exprKey(e.cond)},${exprKey(e.a)},${exprKey(e.b)})`;
    default:
      return e satisfies never;
  }
}

/** Names of the scalar params an expression reads, in first-use order. */
export function exprParams(e: Expr, out: string[] = []): string[] {
  switch (e.k) {
    case 'param':
      if (!out.includes(e.name)) out.push(e.name);
      break;
    case 'unary':
      exprParams(e.a, out);
      break;
    case 'binary':
      exprParams(e.a, out);
      exprParams(e.b, out);
      break;
    case 'select':
      exprParams(e.cond, out);
      exprParams(e.a, out);
      exprParams(e.b, out);
      break;
    default:
      break;
  }
  return out;
}
