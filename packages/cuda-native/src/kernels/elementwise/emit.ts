/**
 * Typed expression tree → CUDA C statements, one `const` local per node (operands can be read twice
 * and NVCC folds them anyway). Each UNARY_FNS / BINARY_FNS function follows cpu-wasm's scalar
 * emitters (codegen/scalar-ops.ts) so gpu(i) and cpu(0) agree:
 * - floats: IEEE operators; transcendental functions in the node's precision (CUDA's libdevice,
 *   ≤ 2 ulp), except mod, pow, hypot, arctan2, digamma which run in double as cpu-wasm's imports do;
 *   max/min propagate NaN and order ±0 like wasm's f32.max; rint ties go to floor (MXNet), round
 *   ties away from zero;
 * - integers: wrapping arithmetic (through unsigned types, no C undefined behaviour), division and
 *   mod by zero give 0, INT_MIN / -1 wraps, mod takes the divisor's sign; powers are exact (by
 *   squaring: CUDA's pow is not) and, like float functions of integers, truncate back from double
 *   (saturating);
 * - comparisons and logic give 1/0 in the node's kind; bool nodes are C `bool`.
 */
import { MXNetError } from '@mx/base';
import type { BinaryFn, UnaryFn } from '@mx/ops';
import { KIND_C, type Kind, literalC } from '../../cuda-c.js';
import { convertC, isFloat, type TNode } from './kinds.js';

/** Device functions the emitted code may call (included once per source). */
export const EW_SUPPORT = `static __device__ __forceinline__ double mx_mod(double a, double b) {
  if (b == 0.0) return 0.0;
  if (b < 0.0) {
    if (a < 0.0) return -fmod(-a, -b);
    if (a == 0.0) return -0.0;
    double r = fmod(a, -b); double t = r + (r != 0.0 ? b : 0.0); return t == 0.0 ? -t : t;
  }
  if (a < 0.0) { double r = fmod(-a, b); return -r + (r != 0.0 ? b : 0.0); }
  return fmod(a, b);
}
static __device__ double mx_digamma(double x) {
  const double inf = __longlong_as_double(0x7ff0000000000000LL), nan = __longlong_as_double(0x7ff8000000000000LL);
  if (isnan(x) || x == -inf) return nan;
  if (x == inf) return x;
  if (x == 0.0) return signbit(x) ? inf : -inf;
  double r = 0.0;
  if (x < 0.0) {
    if (x == floor(x)) return nan;
    r = -3.141592653589793 / tan(3.141592653589793 * x);
    x = 1.0 - x;
  }
  while (x < 6.0) { r -= 1.0 / x; x += 1.0; }
  double z = 1.0 / (x * x);
  double tail = z * (1.0/12 - z * (1.0/120 - z * (1.0/252 - z * (1.0/240 - z * (1.0/132 - z * (691.0/32760 - z / 12))))));
  return r + log(x) - 0.5 / x - tail;
}
template <typename T> static __device__ __forceinline__ T mx_fmax(T a, T b) {
  if (a > b) return a; if (b > a) return b; if (a == b) return signbit(a) ? b : a; return a != a ? a : b;
}
template <typename T> static __device__ __forceinline__ T mx_fmin(T a, T b) {
  if (a < b) return a; if (b < a) return b; if (a == b) return signbit(a) ? a : b; return a != a ? a : b;
}
template <typename T> static __device__ __forceinline__ T mx_rint(T a) {
  T f = floor(a), c = ceil(a); return (a - f <= c - a) ? f : c;
}
template <typename T> static __device__ __forceinline__ T mx_round(T a) {
  T t = trunc(a); return fabs(a - t) >= (T)0.5 ? t + copysign((T)1, a) : t;
}
// Integer a ** b as the double cpu-wasm's pow gives (then truncated like any float → integer):
// exact by squaring while |a ** b| <= 2^53 (CUDA's pow is within 2 ulp, so pow(3, 1) may be
// 2.9999…); b < 0: 1 / a ** |b| (±1 for a = ±1, +inf for 0, else truncating to 0); 0 ** 0 = 1.
static __device__ double mx_ipow(long long a, long long b) {
  if (b < 0) {
    if (a == 1) return 1.0;
    if (a == -1) return (b & 1) ? -1.0 : 1.0;
    if (a == 0) return __longlong_as_double(0x7ff0000000000000LL);
    return 0.0;
  }
  const unsigned long long lim = 1ull << 53;
  unsigned long long m = a < 0 ? 0ull - (unsigned long long)a : (unsigned long long)a, r = 1;
  for (long long e = b; e > 0; e >>= 1) {
    if (e & 1) {
      if (m != 0 && r > lim / m) return pow((double)a, (double)b);
      r *= m;
    }
    if (e > 1) {
      if (m > 1 && m > lim / m) return pow((double)a, (double)b);
      m *= m;
    }
  }
  return (a < 0 && (b & 1)) ? -(double)r : (double)r;
}
template <typename T> static __device__ __forceinline__ T mx_idiv(T a, T b) {
  if (b == 0) return 0; if (b == (T)-1) return (T)(0ull - (unsigned long long)a); return a / b;
}
template <typename T> static __device__ __forceinline__ T mx_imod(T a, T b) {
  if (b == 0 || b == (T)-1) return 0; T r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? (T)(r + b) : r;
}
`;

/** Unsigned twin of an integer kind's C type, for wrapping arithmetic. */
function unsignedOf(kind: Kind): string {
  return kind === 'i64' ? 'unsigned long long' : 'unsigned';
}

/** libm names of functions computed directly in the node's float type. */
const FLOAT_FN: Partial<Record<UnaryFn, string>> = {
  sqrt: 'sqrt',
  cbrt: 'cbrt',
  exp: 'exp',
  expm1: 'expm1',
  log: 'log',
  log2: 'log2',
  log10: 'log10',
  log1p: 'log1p',
  sin: 'sin',
  cos: 'cos',
  tan: 'tan',
  arcsin: 'asin',
  arccos: 'acos',
  arctan: 'atan',
  sinh: 'sinh',
  cosh: 'cosh',
  tanh: 'tanh',
  arcsinh: 'asinh',
  arccosh: 'acosh',
  arctanh: 'atanh',
  floor: 'floor',
  ceil: 'ceil',
  trunc: 'trunc',
  erf: 'erf',
  erfinv: 'erfinv',
  gamma: 'tgamma',
  gammaln: 'lgamma',
  abs: 'fabs',
};

/** A unary function in double, as the expression for a float argument `x` (a C double). */
function doubleUnary(fn: UnaryFn, x: string): string {
  switch (fn) {
    case 'rsqrt':
      return `1.0 / sqrt(${x})`;
    case 'rcbrt':
      return `1.0 / cbrt(${x})`;
    case 'reciprocal':
      return `1.0 / (${x})`;
    case 'digamma':
      return `mx_digamma(${x})`;
    case 'rint':
      return `mx_rint(${x})`;
    case 'round':
      return `mx_round(${x})`;
    default: {
      const f = FLOAT_FN[fn];
      if (f === undefined) throw new Error(`no double form of ${fn}`);
      return `${f}(${x})`;
    }
  }
}

function floatUnary(fn: UnaryFn, kind: Kind, a: string): string {
  const T = KIND_C[kind];
  const sfx = kind === 'f32' ? 'f' : '';
  switch (fn) {
    case 'neg':
      return `-${a}`;
    case 'sign':
      return `(${T})((${a} > 0) - (${a} < 0))`;
    case 'square':
      return `${a} * ${a}`;
    case 'rsqrt':
      return `(${T})1 / sqrt${sfx}(${a})`;
    case 'rcbrt':
      return `(${T})1 / cbrt${sfx}(${a})`;
    case 'reciprocal':
      return `(${T})1 / ${a}`;
    case 'rint':
      return `mx_rint(${a})`;
    case 'round':
      return `mx_round(${a})`;
    case 'digamma':
      return `(${T})mx_digamma((double)${a})`;
    case 'not':
      return `(${T})(${a} == 0)`;
    case 'isnan':
      return `(${T})isnan(${a})`;
    case 'isinf':
      return `(${T})isinf(${a})`;
    case 'isfinite':
      return `(${T})isfinite(${a})`;
    default: {
      const f = FLOAT_FN[fn];
      if (f === undefined) throw new MXNetError(`no CUDA form of ${fn}`, { op: 'elementwise' });
      return `${f}${sfx}(${a})`;
    }
  }
}

function intUnary(fn: UnaryFn, kind: Kind, a: string): string {
  const T = KIND_C[kind];
  const neg =
    kind === 'bool'
      ? a
      : kind === 'i32' || kind === 'i64'
        ? `(${T})(0 - (${unsignedOf(kind)})${a})`
        : `(${T})(-(int)${a})`;
  switch (fn) {
    case 'neg':
      return neg;
    case 'abs':
      return kind === 'u8' || kind === 'bool' ? a : `(${a} < 0 ? ${neg} : ${a})`;
    case 'sign':
      return `(${T})((${a} > 0) - (${a} < 0))`;
    case 'square':
      return intBinary('mul', kind, a, a);
    case 'floor':
    case 'ceil':
    case 'trunc':
    case 'rint':
    case 'round':
      return a;
    case 'not':
      return `(${T})(${a} == 0)`;
    case 'isnan':
    case 'isinf':
      return `(${T})0`;
    case 'isfinite':
      return `(${T})1`;
    default:
      return convertC(doubleUnary(fn, `(double)${a}`), 'f64', kind);
  }
}

const CMP: Partial<Record<BinaryFn, string>> = { eq: '==', ne: '!=', gt: '>', ge: '>=', lt: '<', le: '<=' };
const VIA_DOUBLE: Partial<Record<BinaryFn, string>> = { pow: 'pow', hypot: 'hypot', arctan2: 'atan2' };

function intBinary(fn: BinaryFn, kind: Kind, a: string, b: string): string {
  const T = KIND_C[kind];
  switch (fn) {
    case 'add':
    case 'sub':
    case 'mul': {
      const op = fn === 'add' ? '+' : fn === 'sub' ? '-' : '*';
      if (kind === 'i32' || kind === 'i64') {
        const U = unsignedOf(kind);
        return `(${T})((${U})${a} ${op} (${U})${b})`;
      }
      return kind === 'bool' ? `((int)${a} ${op} (int)${b} != 0)` : `(${T})((int)${a} ${op} (int)${b})`;
    }
    case 'div':
      return kind === 'i32' || kind === 'i64'
        ? `mx_idiv<${T}>(${a}, ${b})`
        : `(${T})mx_idiv<int>(${a}, ${b})`;
    case 'mod':
      return kind === 'i32' || kind === 'i64'
        ? `mx_imod<${T}>(${a}, ${b})`
        : `(${T})mx_imod<int>(${a}, ${b})`;
    case 'max':
      return `(${a} > ${b} ? ${a} : ${b})`;
    case 'min':
      return `(${a} < ${b} ? ${a} : ${b})`;
    default:
      break;
  }
  if (fn === 'pow') return convertC(`mx_ipow((long long)${a}, (long long)${b})`, 'f64', kind);
  const d = VIA_DOUBLE[fn];
  if (d !== undefined) return convertC(`${d}((double)${a}, (double)${b})`, 'f64', kind);
  throw new MXNetError(`no CUDA form of ${fn} on ${kind}`, { op: 'elementwise' });
}

function floatBinary(fn: BinaryFn, kind: Kind, a: string, b: string): string {
  const T = KIND_C[kind];
  switch (fn) {
    case 'add':
      return `${a} + ${b}`;
    case 'sub':
      return `${a} - ${b}`;
    case 'mul':
      return `${a} * ${b}`;
    case 'div':
      return `${a} / ${b}`;
    case 'mod':
      return `(${T})mx_mod((double)${a}, (double)${b})`;
    case 'max':
      return `mx_fmax<${T}>(${a}, ${b})`;
    case 'min':
      return `mx_fmin<${T}>(${a}, ${b})`;
    default: {
      const d = VIA_DOUBLE[fn];
      if (d !== undefined) return `(${T})${d}((double)${a}, (double)${b})`;
      throw new MXNetError(`no CUDA form of ${fn} on ${kind}`, { op: 'elementwise' });
    }
  }
}

export interface EmitCtx {
  readonly lines: string[];
  /** C expression of input `index` in its own kind. */
  input(index: number): string;
  /** C expression of scalar param `name` in `kind`. */
  param(name: string, kind: Kind): string;
}

/** Emit `n` and its children; returns the C variable holding the node's value (in `n.kind`). */
export function emitNode(n: TNode, cx: EmitCtx, kindOfInput: (i: number) => Kind): string {
  const e = n.e;
  const T = KIND_C[n.kind];
  const push = (expr: string): string => {
    const v = `v${cx.lines.length}`;
    cx.lines.push(`    const ${T} ${v} = ${expr};`);
    return v;
  };
  const kid = (i: number, want: Kind = n.kind): string => {
    const k = n.kids[i] as TNode;
    return convertC(emitNode(k, cx, kindOfInput), k.kind, want);
  };
  switch (e.k) {
    case 'input':
      return convertC(cx.input(e.index), kindOfInput(e.index), n.kind);
    case 'const':
      return literalC(n.kind, e.value);
    case 'param':
      return cx.param(e.name, n.kind);
    case 'unary': {
      const a = kid(0);
      return push(isFloat(n.kind) ? floatUnary(e.fn, n.kind, a) : intUnary(e.fn, n.kind, a));
    }
    case 'binary': {
      const a = kid(0);
      const b = kid(1);
      const cmp = CMP[e.fn];
      if (cmp !== undefined) return push(`(${T})(${a} ${cmp} ${b})`);
      if (e.fn === 'and' || e.fn === 'or' || e.fn === 'xor') {
        const op = e.fn === 'and' ? '&&' : e.fn === 'or' ? '||' : '!=';
        return push(`(${T})((${a} != 0) ${op} (${b} != 0))`);
      }
      return push(isFloat(n.kind) ? floatBinary(e.fn, n.kind, a, b) : intBinary(e.fn, n.kind, a, b));
    }
    case 'select': {
      const cond = emitNode(n.kids[0] as TNode, cx, kindOfInput);
      const a = kid(1);
      const b = kid(2);
      return push(`(${cond} != 0) ? ${a} : ${b}`);
    }
    default:
      throw new MXNetError(`'${e.k}' cannot appear in a forward expression`, { op: 'elementwise' });
  }
}
