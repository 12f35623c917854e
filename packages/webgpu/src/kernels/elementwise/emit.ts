/**
 * Typed expression tree → WGSL statements, one `let` per node (so operands can be read twice).
 * Per kind, each UNARY_FNS / BINARY_FNS function follows cpu-wasm's scalar emitters
 * (codegen/scalar-ops.ts): float math through math.ts's f32 library; integer arithmetic wraps;
 * transcendental functions of integers run in f32 and convert back (truncating, saturating);
 * comparisons and logic give 1/0 in the node's kind; bool nodes are u32 0/1, renormalized after
 * arithmetic (u32 ops on 0/1 then `!= 0`, which equals cpu-wasm's i32 results for every function).
 */
import { MXNetError } from '@mx/base';
import type { BinaryFn, Expr, UnaryFn } from '@mx/ops';
import { convert, type Kind, kindLiteral, type TNode, WTYPE } from './kinds.js';

export interface EmitCtx {
  readonly lines: string[];
  /** The variable holding input `index` in its own kind. */
  input(index: number): string;
  /** WGSL reading scalar param `name` converted to `kind`. */
  param(name: string, kind: Kind): string;
}

/** Float functions that are one library call. */
const F_CALL: Partial<Record<UnaryFn, string>> = {
  sqrt: 'mx_sqrt',
  cbrt: 'mx_cbrt',
  exp: 'mx_exp',
  expm1: 'mx_expm1',
  log: 'mx_log',
  log2: 'mx_log2',
  log10: 'mx_log10',
  log1p: 'mx_log1p',
  sin: 'mx_sin',
  cos: 'mx_cos',
  tan: 'mx_tan',
  arcsin: 'mx_asin',
  arccos: 'mx_acos',
  arctan: 'mx_atan',
  sinh: 'mx_sinh',
  cosh: 'mx_cosh',
  tanh: 'mx_tanh',
  arcsinh: 'mx_asinh',
  arccosh: 'mx_acosh',
  arctanh: 'mx_atanh',
  rint: 'mx_rint',
  round: 'mx_round',
  erf: 'mx_erf',
  erfinv: 'mx_erfinv',
  gamma: 'mx_gamma',
  gammaln: 'mx_lgamma',
  digamma: 'mx_digamma',
};

function floatUnary(fn: UnaryFn, a: string): string {
  const call = F_CALL[fn];
  if (call !== undefined) return `${call}(${a})`;
  switch (fn) {
    case 'neg':
      return `-${a}`;
    case 'abs':
    case 'floor':
    case 'ceil':
    case 'trunc':
      return `${fn}(${a})`;
    case 'sign':
      return `(f32(${a} > 0.0) - f32(${a} < 0.0))`;
    case 'square':
      return `${a} * ${a}`;
    case 'rsqrt':
      return `1.0 / mx_sqrt(${a})`;
    case 'rcbrt':
      return `1.0 / mx_cbrt(${a})`;
    case 'reciprocal':
      return `1.0 / ${a}`;
    case 'not':
      return `f32(${a} == 0.0)`;
    case 'isnan':
      return `f32(mx_isnan(${a}))`;
    case 'isinf':
      return `f32(mx_isinf(${a}))`;
    case 'isfinite':
      return `f32(!mx_isnan(${a}) && !mx_isinf(${a}))`;
    default:
      throw new MXNetError(`webgpu: no WGSL for unary ${fn}`, { op: 'elementwise' });
  }
}

/** An integer kind's value of a float result (truncating, saturating; bool is != 0). */
function fromFloat(kind: Kind, r: string): string {
  if (kind === 'bool') return `u32(!((${r}) == 0.0))`;
  return convert(`mx_snap(${r})`, 'f32', kind);
}

function intUnary(fn: UnaryFn, kind: Kind, a: string): string {
  const t = WTYPE[kind];
  const z = kind === 'i32' ? '0i' : '0u';
  const one = kind === 'i32' ? '1i' : '1u';
  const signed = kind === 'i32';
  switch (fn) {
    case 'neg':
      return kind === 'bool' ? a : `${z} - ${a}`;
    case 'abs':
      return signed ? `abs(${a})` : a;
    case 'sign':
      return signed ? `(i32(${a} > 0i) - i32(${a} < 0i))` : `u32(${a} > 0u)`;
    case 'square':
      return kind === 'bool' ? a : `${a} * ${a}`;
    case 'sqrt':
      return kind === 'bool' ? a : signed ? `mx_isqrt(${a})` : `mx_usqrt(${a})`;
    case 'floor':
    case 'ceil':
    case 'trunc':
    case 'rint':
    case 'round':
      return a;
    case 'not':
      return `${t}(${a} == ${z})`;
    case 'isnan':
    case 'isinf':
      return z;
    case 'isfinite':
      return one;
    default:
      return fromFloat(kind, floatUnary(fn, `f32(${a})`));
  }
}

const CMP: Partial<Record<BinaryFn, string>> = { eq: '==', ne: '!=', gt: '>', ge: '>=', lt: '<', le: '<=' };
const LOGIC: Partial<Record<BinaryFn, string>> = { and: '&&', or: '||', xor: '!=' };

function floatBinary(fn: BinaryFn, a: string, b: string): string {
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
      return `mx_fmod(${a}, ${b})`;
    case 'pow':
      return `mx_pow(${a}, ${b})`;
    case 'max':
      return `mx_fmax(${a}, ${b})`;
    case 'min':
      return `mx_fmin(${a}, ${b})`;
    case 'hypot':
      return `mx_hypot(${a}, ${b})`;
    case 'arctan2':
      return `mx_atan2(${a}, ${b})`;
    default:
      throw new MXNetError(`webgpu: no WGSL for binary ${fn}`, { op: 'elementwise' });
  }
}

function intBinary(fn: BinaryFn, kind: Kind, a: string, b: string): string {
  const signed = kind === 'i32';
  const norm = (x: string): string => (kind === 'bool' ? `u32((${x}) != 0u)` : x);
  switch (fn) {
    case 'add':
      return norm(`${a} + ${b}`);
    case 'sub':
      return norm(`${a} - ${b}`);
    case 'mul':
      return norm(`${a} * ${b}`);
    case 'div':
      return signed ? `mx_idiv(${a}, ${b})` : `mx_udiv(${a}, ${b})`;
    case 'mod':
      return signed ? `mx_imod(${a}, ${b})` : `mx_umod(${a}, ${b})`;
    case 'pow':
      return signed ? `mx_ipow(${a}, ${b})` : norm(`mx_upow(${a}, ${b})`);
    case 'max':
    case 'min':
      return `${fn}(${a}, ${b})`;
    default:
      return fromFloat(kind, floatBinary(fn, `f32(${a})`, `f32(${b})`));
  }
}

function truthy(kind: Kind, x: string): string {
  return kind === 'f32' ? `!(${x} == 0.0)` : kind === 'i32' ? `${x} != 0i` : `${x} != 0u`;
}

/** Emit `n`; returns the name of the variable holding its value (in n.kind). */
export function emitNode(n: TNode, ctx: EmitCtx): string {
  const e: Expr = n.e;
  const k = n.kind;
  let value: string;
  const as = (kid: TNode): string => convert(emitNode(kid, ctx), kid.kind, k);
  switch (e.k) {
    case 'input':
      return ctx.input(e.index);
    case 'param':
      value = ctx.param(e.name, k);
      break;
    case 'const':
      value = kindLiteral(k, e.value);
      break;
    case 'unary': {
      const a = as(n.kids[0] as TNode);
      value = k === 'f32' ? floatUnary(e.fn, a) : intUnary(e.fn, k, a);
      break;
    }
    case 'binary': {
      const a = as(n.kids[0] as TNode);
      const b = as(n.kids[1] as TNode);
      const cmp = CMP[e.fn];
      const logic = LOGIC[e.fn];
      const T = WTYPE[k];
      if (e.fn === 'ne' && k === 'f32') value = `f32(!(${a} == ${b}))`;
      else if (cmp !== undefined) value = `${T}(${a} ${cmp} ${b})`;
      else if (logic !== undefined) value = `${T}((${truthy(k, a)}) ${logic} (${truthy(k, b)}))`;
      else value = k === 'f32' ? floatBinary(e.fn, a, b) : intBinary(e.fn, k, a, b);
      break;
    }
    case 'select': {
      const c = n.kids[0] as TNode;
      const cv = emitNode(c, ctx);
      const a = as(n.kids[1] as TNode);
      const b = as(n.kids[2] as TNode);
      value = `select(${b}, ${a}, ${truthy(c.kind, cv)})`;
      break;
    }
    default:
      throw new MXNetError(`webgpu: cannot compile expression node '${e.k}'`, { op: 'elementwise' });
  }
  const name = `t${ctx.lines.length}`;
  ctx.lines.push(`  let ${name}: ${WTYPE[k]} = ${value};`);
  return name;
}
