/**
 * Test-only reference interpreter for SimpleOp expressions, in float64 JavaScript, so the
 * elementwise definitions' tests can evaluate forward expressions and check every gradient
 * expression against central differences without a backend. Semantics follow MXNet's float
 * `mshadow_op` functors (mod takes the divisor's sign and gives 0 for a zero divisor, `round` is
 * half away from zero, `rint` sends ties to floor, comparisons give 1/0). Special functions use series
 * and Lanczos approximations accurate to ~1e-14 on the test ranges. Not exported from the package.
 */
import type { BinaryFn, Expr, UnaryFn } from '../../../expr.js';

export interface EvalEnv {
  readonly inputs: readonly number[];
  readonly output?: number;
  readonly ograd?: number;
  readonly params?: Readonly<Record<string, number>>;
}

const SQRT_PI = Math.sqrt(Math.PI);

/** erf by its Maclaurin series (|x| <= 3) or the continued fraction of erfc beyond. */
export function erf(x: number): number {
  if (Number.isNaN(x)) return x;
  const ax = Math.abs(x);
  if (ax > 3) {
    // erfc(x) = exp(-x²)/sqrt(pi) * 1/(x + 1/2/(x + 1/(x + 3/2/(x + ...))))
    let f = 0;
    for (let k = 60; k >= 1; k--) f = k / 2 / (ax + f);
    const erfc = Math.exp(-ax * ax) / SQRT_PI / (ax + f);
    return Math.sign(x) * (1 - erfc);
  }
  let term = x;
  let sum = x;
  for (let n = 1; n < 200; n++) {
    term *= (-x * x) / n;
    const add = term / (2 * n + 1);
    sum += add;
    if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
  }
  return (2 / SQRT_PI) * sum;
}

/** erfinv by Newton's method on erf. */
export function erfinv(y: number): number {
  if (Number.isNaN(y) || y < -1 || y > 1) return Number.NaN;
  if (y === 1) return Number.POSITIVE_INFINITY;
  if (y === -1) return Number.NEGATIVE_INFINITY;
  let x = 0;
  for (let i = 0; i < 100; i++) {
    const step = (erf(x) - y) / ((2 / SQRT_PI) * Math.exp(-x * x));
    x -= step;
    if (Math.abs(step) < 1e-16 * Math.max(1, Math.abs(x))) break;
  }
  return x;
}

const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** Gamma by the Lanczos approximation (g = 7) with reflection for x < 0.5. */
export function gamma(x: number): number {
  if (x < 0.5) return Math.PI / (Math.sin(Math.PI * x) * gamma(1 - x));
  const z = x - 1;
  let a = LANCZOS[0] as number;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += (LANCZOS[i] as number) / (z + i);
  return Math.sqrt(2 * Math.PI) * t ** (z + 0.5) * Math.exp(-t) * a;
}

export function gammaln(x: number): number {
  return Math.log(Math.abs(gamma(x)));
}

/** MXNet `mshadow_op::mod`: result has the divisor's sign; a zero divisor gives 0. */
export function mxMod(a: number, b: number): number {
  if (b === 0) return 0;
  const r = a % b;
  return r !== 0 && r < 0 !== b < 0 ? r + b : r;
}

/** digamma (psi): recurrence up to x >= 6, then the asymptotic series; reflection below 0. */
export function digamma(x: number): number {
  if (x <= 0 && Number.isInteger(x)) return Number.NaN;
  if (x < 0) return digamma(1 - x) - Math.PI / Math.tan(Math.PI * x);
  let r = 0;
  while (x < 6) {
    r -= 1 / x;
    x += 1;
  }
  const f = 1 / (x * x);
  return r + Math.log(x) - 0.5 / x - f * (1 / 12 - f * (1 / 120 - f * (1 / 252 - f * (1 / 240 - f / 132))));
}

/** MXNet `mshadow_op::rint`: nearest integer, ties go to floor. */
function rint(x: number): number {
  const f = Math.floor(x);
  const c = Math.ceil(x);
  return x - f <= c - x ? f : c;
}

const UNARY: Record<UnaryFn, (a: number) => number> = {
  neg: (a) => -a,
  abs: Math.abs,
  sign: (a) => (a > 0 ? 1 : a < 0 ? -1 : 0),
  square: (a) => a * a,
  sqrt: Math.sqrt,
  rsqrt: (a) => 1 / Math.sqrt(a),
  cbrt: Math.cbrt,
  rcbrt: (a) => 1 / Math.cbrt(a),
  reciprocal: (a) => 1 / a,
  exp: Math.exp,
  expm1: Math.expm1,
  log: Math.log,
  log2: Math.log2,
  log10: Math.log10,
  log1p: Math.log1p,
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  arcsin: Math.asin,
  arccos: Math.acos,
  arctan: Math.atan,
  sinh: Math.sinh,
  cosh: Math.cosh,
  tanh: Math.tanh,
  arcsinh: Math.asinh,
  arccosh: Math.acosh,
  arctanh: Math.atanh,
  floor: Math.floor,
  ceil: Math.ceil,
  trunc: Math.trunc,
  rint,
  round: (a) => Math.sign(a) * Math.floor(Math.abs(a) + 0.5),
  erf,
  erfinv,
  gamma,
  gammaln,
  digamma,
  not: (a) => (a === 0 ? 1 : 0),
  isnan: (a) => (Number.isNaN(a) ? 1 : 0),
  isinf: (a) => (a === Number.POSITIVE_INFINITY || a === Number.NEGATIVE_INFINITY ? 1 : 0),
  isfinite: (a) => (Number.isFinite(a) ? 1 : 0),
};

const b01 = (c: boolean): number => (c ? 1 : 0);

const BINARY: Record<BinaryFn, (a: number, b: number) => number> = {
  add: (a, b) => a + b,
  sub: (a, b) => a - b,
  mul: (a, b) => a * b,
  div: (a, b) => a / b,
  mod: mxMod,
  pow: (a, b) => a ** b,
  max: Math.max,
  min: Math.min,
  hypot: Math.hypot,
  arctan2: Math.atan2,
  eq: (a, b) => b01(a === b),
  ne: (a, b) => b01(a !== b),
  gt: (a, b) => b01(a > b),
  ge: (a, b) => b01(a >= b),
  lt: (a, b) => b01(a < b),
  le: (a, b) => b01(a <= b),
  and: (a, b) => b01(a !== 0 && b !== 0),
  or: (a, b) => b01(a !== 0 || b !== 0),
  xor: (a, b) => b01((a !== 0) !== (b !== 0)),
};

/** Evaluate an expression at one element. Throws on a node the environment does not provide. */
export function evalExpr(e: Expr, env: EvalEnv): number {
  switch (e.k) {
    case 'input': {
      const v = env.inputs[e.index];
      if (v === undefined) throw new Error(`input ${e.index} not given`);
      return v;
    }
    case 'output':
      if (env.output === undefined) throw new Error('output not given');
      return env.output;
    case 'ograd':
      if (env.ograd === undefined) throw new Error('ograd not given');
      return env.ograd;
    case 'const':
      return e.value;
    case 'param': {
      const v = env.params?.[e.name];
      if (v === undefined) throw new Error(`param ${e.name} not given`);
      return v;
    }
    case 'unary':
      return UNARY[e.fn](evalExpr(e.a, env));
    case 'binary':
      return BINARY[e.fn](evalExpr(e.a, env), evalExpr(e.b, env));
    case 'select':
      return evalExpr(e.cond, env) !== 0 ? evalExpr(e.a, env) : evalExpr(e.b, env);
    default:
      return e satisfies never;
  }
}
