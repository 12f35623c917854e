/**
 * Scalar emitters: one element of every UNARY_FNS / BINARY_FNS function, for every compute kind,
 * with mshadow's semantics (see expr.ts): integer arithmetic wraps in the dtype, integer division
 * and mod by zero give 0 (and INT_MIN / -1 wraps instead of trapping: wasm's div_s traps on both),
 * transcendental functions run in float64 through JS imports and truncate back (float exp, log,
 * tanh and erf in modules with a SIMD body use the SIMD function instead), comparisons and
 * logic give 1/0 in the operand kind, rint ties toward floor and round ties away from zero (MXNet's
 * definitions, which differ from NumPy's half-to-even).
 *
 * Operands arrive in locals so an emitter can read them more than once; each pushes its result.
 * These serve the scalar tail of every loop, mixed-dtype expressions, and SIMD lanes that have no
 * vector instruction (vector-ops.ts lifts them lane by lane).
 */
import type { BinaryFn, UnaryFn } from '@mx/ops';
import type { Gen, VMathFn } from './gen.js';
import type { BinaryImport, UnaryImport } from './js-math.js';
import { fromBool, fromF64, KINDS, type Kind, norm, toF64 } from './kinds.js';

/** Unary functions computed in float64 by an imported JS function, for every kind. */
const UNARY_VIA_IMPORT: Partial<Record<UnaryFn, UnaryImport>> = {
  exp: 'exp',
  expm1: 'expm1',
  log: 'log',
  log2: 'log2',
  log10: 'log10',
  log1p: 'log1p',
  sin: 'sin',
  cos: 'cos',
  tan: 'tan',
  arcsin: 'arcsin',
  arccos: 'arccos',
  arctan: 'arctan',
  sinh: 'sinh',
  cosh: 'cosh',
  tanh: 'tanh',
  arcsinh: 'arcsinh',
  arccosh: 'arccosh',
  arctanh: 'arctanh',
  cbrt: 'cbrt',
  rcbrt: 'rcbrt',
  erf: 'erf',
  erfinv: 'erfinv',
  gamma: 'gamma',
  gammaln: 'gammaln',
  digamma: 'digamma',
};

const BINARY_VIA_IMPORT: Partial<Record<BinaryFn, BinaryImport>> = {
  pow: 'pow',
  hypot: 'hypot',
  arctan2: 'arctan2',
};

function viaF64Unary(g: Gen, kind: Kind, a: number, emit: () => void): void {
  g.f.get(a);
  toF64(g.f, kind);
  emit();
  fromF64(g.f, kind);
}

/** Unary functions with a SIMD implementation (vmath.ts). */
const VMATH: ReadonlySet<UnaryFn> = new Set<UnaryFn>(['exp', 'log', 'tanh', 'erf'] satisfies VMathFn[]);

export function scalarUnary(g: Gen, fn: UnaryFn, kind: Kind, a: number): void {
  const f = g.f;
  const info = KINDS[kind];
  const sp = info.sp;
  if (g.scalarVMath === true && (sp === 'f32' || sp === 'f64') && VMATH.has(fn)) {
    f.get(a)
      .op(`${info.vp}.splat`)
      .call(g.vmath(fn as VMathFn, sp))
      .lane(info.extract, 0);
    return;
  }
  const imp = UNARY_VIA_IMPORT[fn];
  if (imp !== undefined) {
    viaF64Unary(g, kind, a, () => f.call(g.importIndex(imp)));
    return;
  }
  if (info.float) {
    const one = () => (sp === 'f32' ? f.f32Const(1) : f.f64Const(1));
    const zero = () => (sp === 'f32' ? f.f32Const(0) : f.f64Const(0));
    switch (fn) {
      case 'neg':
      case 'abs':
      case 'sqrt':
      case 'floor':
      case 'ceil':
      case 'trunc':
        f.get(a).op(`${sp}.${fn}`);
        return;
      case 'sign':
        f.get(a);
        zero();
        f.op(`${sp}.gt`).get(a);
        zero();
        f.op(`${sp}.lt`, 'i32.sub', `${sp}.convert_i32_s`);
        return;
      case 'square':
        f.get(a).get(a).op(`${sp}.mul`);
        return;
      case 'rsqrt':
        one();
        f.get(a).op(`${sp}.sqrt`, `${sp}.div`);
        return;
      case 'reciprocal':
        one();
        f.get(a).op(`${sp}.div`);
        return;
      case 'rint': {
        // MXNet: (a - floor) <= (ceil - a) ? floor : ceil  (ties go to floor).
        f.get(a).op(`${sp}.floor`).get(a).op(`${sp}.ceil`);
        f.get(a).get(a).op(`${sp}.floor`, `${sp}.sub`);
        f.get(a).op(`${sp}.ceil`).get(a).op(`${sp}.sub`, `${sp}.le`, 'select');
        return;
      }
      case 'round': {
        // roundf: half away from zero. t = trunc(a); |a - t| >= 0.5 ? t + copysign(1, a) : t.
        const t = f.local(info.val);
        f.get(a).op(`${sp}.trunc`).tee(t);
        one();
        f.get(a).op(`${sp}.copysign`, `${sp}.add`).get(t);
        f.get(a).get(t).op(`${sp}.sub`, `${sp}.abs`);
        if (sp === 'f32') f.f32Const(0.5);
        else f.f64Const(0.5);
        f.op(`${sp}.ge`, 'select');
        return;
      }
      case 'not':
        f.get(a);
        zero();
        f.op(`${sp}.eq`);
        fromBool(f, kind);
        return;
      case 'isnan':
        f.get(a).get(a).op(`${sp}.ne`);
        fromBool(f, kind);
        return;
      case 'isinf':
      case 'isfinite':
        f.get(a).op(`${sp}.abs`);
        if (sp === 'f32') f.f32Const(Number.POSITIVE_INFINITY);
        else f.f64Const(Number.POSITIVE_INFINITY);
        f.op(fn === 'isinf' ? `${sp}.eq` : `${sp}.lt`);
        fromBool(f, kind);
        return;
      default:
        throw new Error(`no scalar emitter for ${fn} on ${kind}`);
    }
  }
  // Integers (i64 with i64 ops; i32, i8, u8, bool in i32).
  const i64 = sp === 'i64';
  const c0 = () => (i64 ? f.i64Const(0) : f.i32Const(0));
  switch (fn) {
    case 'neg':
      c0();
      f.get(a).op(`${sp}.sub`);
      norm(f, kind);
      return;
    case 'abs':
      if (kind === 'u8' || kind === 'bool') {
        f.get(a);
        return;
      }
      c0();
      f.get(a).op(`${sp}.sub`).get(a).get(a);
      c0();
      f.op(`${sp}.lt_s`, 'select');
      norm(f, kind);
      return;
    case 'sign':
      f.get(a);
      c0();
      f.op(`${sp}.gt_s`).get(a);
      c0();
      f.op(`${sp}.lt_s`, 'i32.sub');
      if (i64) f.op('i64.extend_i32_s');
      return;
    case 'square':
      f.get(a).get(a).op(`${sp}.mul`);
      norm(f, kind);
      return;
    case 'sqrt':
    case 'rsqrt':
    case 'reciprocal':
      viaF64Unary(g, kind, a, () => {
        if (fn === 'sqrt') f.op('f64.sqrt');
        else {
          const t = f.local(KINDS.f64.val);
          f.set(t).f64Const(1).get(t);
          if (fn === 'rsqrt') f.op('f64.sqrt');
          f.op('f64.div');
        }
      });
      return;
    case 'floor':
    case 'ceil':
    case 'trunc':
    case 'rint':
    case 'round':
      f.get(a);
      return;
    case 'not':
      f.get(a).op(`${sp}.eqz`);
      fromBool(f, kind);
      return;
    case 'isnan':
    case 'isinf':
      c0();
      return;
    case 'isfinite':
      if (i64) f.i64Const(1);
      else f.i32Const(1);
      return;
    default:
      throw new Error(`no scalar emitter for ${fn} on ${kind}`);
  }
}

const CMP: Partial<Record<BinaryFn, string>> = { eq: 'eq', ne: 'ne', gt: 'gt', ge: 'ge', lt: 'lt', le: 'le' };

export function scalarBinary(g: Gen, fn: BinaryFn, kind: Kind, a: number, b: number): void {
  const f = g.f;
  const info = KINDS[kind];
  const sp = info.sp;
  const imp = fn === 'mod' && info.float ? 'mod' : BINARY_VIA_IMPORT[fn];
  if (imp !== undefined) {
    f.get(a);
    toF64(f, kind);
    f.get(b);
    toF64(f, kind);
    f.call(g.importIndex(imp));
    fromF64(f, kind);
    return;
  }
  const cmp = CMP[fn];
  if (cmp !== undefined) {
    const suffix = info.float || cmp === 'eq' || cmp === 'ne' ? '' : '_s';
    f.get(a).get(b).op(`${sp}.${cmp}${suffix}`);
    fromBool(f, kind);
    return;
  }
  if (fn === 'and' || fn === 'or' || fn === 'xor') {
    for (const l of [a, b]) {
      f.get(l);
      if (sp === 'f32') f.f32Const(0).op('f32.ne');
      else if (sp === 'f64') f.f64Const(0).op('f64.ne');
      else if (sp === 'i64') f.i64Const(0).op('i64.ne');
      else f.i32Const(0).op('i32.ne');
    }
    f.op(`i32.${fn}`);
    fromBool(f, kind);
    return;
  }
  if (info.float) {
    switch (fn) {
      case 'add':
      case 'sub':
      case 'mul':
      case 'div':
      case 'max':
      case 'min':
        f.get(a).get(b).op(`${sp}.${fn}`);
        return;
      default:
        throw new Error(`no scalar emitter for ${fn} on ${kind}`);
    }
  }
  const i64 = sp === 'i64';
  const vt = info.val;
  switch (fn) {
    case 'add':
    case 'sub':
    case 'mul':
      f.get(a).get(b).op(`${sp}.${fn}`);
      norm(f, kind);
      return;
    case 'max':
    case 'min':
      f.get(a)
        .get(b)
        .get(a)
        .get(b)
        .op(`${sp}.${fn === 'max' ? 'gt_s' : 'lt_s'}`, 'select');
      return;
    case 'div':
      // b == 0 -> 0; b == -1 -> -a (wraps; div_s traps on INT_MIN / -1); else a / b truncated.
      f.get(b).op(`${sp}.eqz`).if(vt);
      if (i64) f.i64Const(0);
      else f.i32Const(0);
      f.else().get(b);
      if (i64) f.i64Const(-1);
      else f.i32Const(-1);
      f.op(`${sp}.eq`).if(vt);
      if (i64) f.i64Const(0);
      else f.i32Const(0);
      f.get(a).op(`${sp}.sub`).else().get(a).get(b).op(`${sp}.div_s`).end().end();
      norm(f, kind);
      return;
    case 'mod': {
      // b == 0 -> 0; r = a rem b; r != 0 and sign(r) != sign(b) -> r + b (divisor's sign).
      const r = f.local(vt);
      f.get(b).op(`${sp}.eqz`).if(vt);
      if (i64) f.i64Const(0);
      else f.i32Const(0);
      f.else().get(a).get(b).op(`${sp}.rem_s`).set(r);
      f.get(r).get(b).op(`${sp}.add`).get(r);
      f.get(r).get(b).op(`${sp}.xor`);
      if (i64) f.i64Const(0);
      else f.i32Const(0);
      f.op(`${sp}.lt_s`).get(r);
      if (i64) f.i64Const(0).op('i64.ne');
      else f.i32Const(0).op('i32.ne');
      f.op('i32.and', 'select');
      f.end();
      norm(f, kind);
      return;
    }
    default:
      throw new Error(`no scalar emitter for ${fn} on ${kind}`);
  }
}
