/**
 * SIMD math: exp, log, tanh and erf on f32x4 and f64x2 as wasm functions (v128 -> v128), added to
 * a kernel module on first use. JS Math is scalar, so a vector body calling it per lane would run
 * at scalar speed; these keep sigmoid/tanh/softmax/GELU-style expressions in SIMD.
 *
 * Algorithms (all branch-free: both sides of a range split are computed and blended):
 * - exp: round(x*log2e) range reduction, Cephes expf polynomial (f32) / fdlibm's rational (f64),
 *   scaled by 2^n as two halves so results near overflow and in the subnormal range are right.
 * - log: exponent/mantissa split with subnormals pre-scaled, Cephes logf polynomial (f32) /
 *   fdlibm's log (f64); 0, negatives, inf and NaN patched at the end.
 * - tanh: odd polynomial (Cephes) below 0.625, 1 - 2/(exp(2|x|)+1) above.
 * - erf: Taylor series below 0.84375, exp(-x^2) * Chebyshev fit above (js-math.ts).
 * Measured against Math.* / mpmath: float32 <= 1.3 ulp (erf <= 2.2 ulp: exp(-x*x) inherits the
 * rounding of x*x), float64 <= 4e-16 relative (erf 1.9e-15). codegen.test.ts checks these bounds.
 */
import { FunctionBuilder as FB, type FunctionBuilder, V128 } from '../wasm/assembler.js';
import type { VMathFn } from './gen.js';
import { ERF_SMALL, ERFC_FIT, erfTaylor } from './js-math.js';
import { pushVConst } from './kinds.js';

type Arg = number | { readonly c: number } | { readonly raw: Uint8Array };
const K = (c: number): Arg => ({ c });
const i32s = (n: number): Arg => ({ raw: new Uint8Array(new Int32Array(4).fill(n).buffer) });
const i64s = (n: bigint): Arg => ({ raw: new Uint8Array(new BigInt64Array(2).fill(n).buffer) });

/** A tiny SSA-style helper: every operation stores its result in a fresh v128 local. */
class VB {
  readonly f: FunctionBuilder;
  readonly kind: 'f32' | 'f64';
  readonly vp: 'f32x4' | 'f64x2';

  constructor(f: FunctionBuilder, kind: 'f32' | 'f64') {
    this.f = f;
    this.kind = kind;
    this.vp = kind === 'f32' ? 'f32x4' : 'f64x2';
  }
  push(a: Arg): void {
    if (typeof a === 'number') this.f.get(a);
    else if ('c' in a) pushVConst(this.f, this.kind, a.c);
    else this.f.v128Const(a.raw);
  }
  op(name: string, ...args: Arg[]): number {
    for (const a of args) this.push(a);
    this.f.op(name);
    const l = this.f.local(V128);
    this.f.set(l);
    return l;
  }
  shift(name: string, a: Arg, n: number): number {
    this.push(a);
    this.f.i32Const(n).op(name);
    const l = this.f.local(V128);
    this.f.set(l);
    return l;
  }
  add = (a: Arg, b: Arg) => this.op(`${this.vp}.add`, a, b);
  sub = (a: Arg, b: Arg) => this.op(`${this.vp}.sub`, a, b);
  mul = (a: Arg, b: Arg) => this.op(`${this.vp}.mul`, a, b);
  div = (a: Arg, b: Arg) => this.op(`${this.vp}.div`, a, b);
  min = (a: Arg, b: Arg) => this.op(`${this.vp}.min`, a, b);
  max = (a: Arg, b: Arg) => this.op(`${this.vp}.max`, a, b);
  /** mask ? a : b */
  sel = (a: Arg, b: Arg, mask: Arg) => this.op('v128.bitselect', a, b, mask);
  /** c[0]*x^(n-1) + ... + c[n-1] */
  horner(x: Arg, c: readonly number[]): number {
    let p = this.op('v128.or', K(c[0] as number), K(c[0] as number));
    for (let i = 1; i < c.length; i++) p = this.add(this.mul(p, x), K(c[i] as number));
    return p;
  }
  /** Give `a` the sign of `x` (a >= 0). */
  copysign = (a: Arg, x: Arg) => this.op('v128.or', a, this.op('v128.and', x, K(-0)));
  /** Patch log's special inputs: inf -> inf, 0 -> -inf, negative or NaN -> NaN. */
  logSpecials(x: number, r: number): number {
    const vp = this.vp;
    let out = this.sel(K(Number.POSITIVE_INFINITY), r, this.op(`${vp}.eq`, x, K(Number.POSITIVE_INFINITY)));
    out = this.sel(K(Number.NEGATIVE_INFINITY), out, this.op(`${vp}.eq`, x, K(0)));
    const bad = this.op('v128.or', this.op(`${vp}.lt`, x, K(0)), this.op(`${vp}.ne`, x, x));
    return this.sel(K(Number.NaN), out, bad);
  }
}

function exp32(v: VB, x0: number): number {
  const x = v.min(v.max(x0, K(-104)), K(89));
  const n = v.op('f32x4.nearest', v.mul(x, K(Math.LOG2E)));
  const r = v.sub(v.sub(x, v.mul(n, K(0.693359375))), v.mul(n, K(-2.1219444e-4)));
  const z = v.mul(r, r);
  let p = v.horner(
    r,
    [1.98756915e-4, 1.3981999507e-3, 8.3334519073e-3, 0.041665795894, 0.16666665459, 0.50000001201],
  );
  p = v.add(v.add(v.mul(p, z), r), K(1));
  const ni = v.op('i32x4.trunc_sat_f32x4_s', n);
  const n1 = v.shift('i32x4.shr_s', ni, 1);
  const n2 = v.op('i32x4.sub', ni, n1);
  const s1 = v.shift('i32x4.shl', v.op('i32x4.add', n1, i32s(127)), 23);
  const s2 = v.shift('i32x4.shl', v.op('i32x4.add', n2, i32s(127)), 23);
  return v.mul(v.mul(p, s1), s2);
}

function exp64(v: VB, x0: number): number {
  const x = v.min(v.max(x0, K(-746)), K(710));
  const k = v.op('f64x2.nearest', v.mul(x, K(Math.LOG2E)));
  const hi = v.sub(x, v.mul(k, K(0.6931471803691238)));
  const lo = v.mul(k, K(1.9082149292705877e-10));
  const r = v.sub(hi, lo);
  const t = v.mul(r, r);
  const poly = v.horner(
    t,
    [
      4.1381367970572385e-8, -0.0000016533902205465252, 0.00006613756321437934, -0.0027777777777015593,
      0.16666666666666602,
    ],
  );
  const c = v.sub(r, v.mul(t, poly));
  const y = v.sub(K(1), v.sub(v.sub(lo, v.div(v.mul(r, c), v.sub(K(2), c))), hi));
  const ki = v.op('i64x2.extend_low_i32x4_s', v.op('i32x4.trunc_sat_f64x2_s_zero', k));
  const k1 = v.shift('i64x2.shr_s', ki, 1);
  const k2 = v.op('i64x2.sub', ki, k1);
  const s1 = v.shift('i64x2.shl', v.op('i64x2.add', k1, i64s(1023n)), 52);
  const s2 = v.shift('i64x2.shl', v.op('i64x2.add', k2, i64s(1023n)), 52);
  return v.mul(v.mul(y, s1), s2);
}

function log32(v: VB, x: number): number {
  const small = v.op('f32x4.lt', x, K(1.1754943508222875e-38));
  const xs = v.sel(v.mul(x, K(8388608)), x, small);
  const eadj = v.op('v128.and', small, i32s(23));
  let e = v.op('i32x4.sub', v.op('i32x4.sub', v.shift('i32x4.shr_u', xs, 23), i32s(126)), eadj);
  let m = v.op('v128.or', v.op('v128.and', xs, i32s(0x7fffff)), i32s(0x3f000000));
  const lt = v.op('f32x4.lt', m, K(Math.SQRT1_2));
  e = v.op('i32x4.add', e, lt);
  m = v.sub(v.add(m, v.op('v128.and', m, lt)), K(1));
  const ef = v.op('f32x4.convert_i32x4_s', e);
  const z = v.mul(m, m);
  const p = v.horner(
    m,
    [
      0.070376836292, -0.1151461031, 0.1167699874, -0.12420140846, 0.14249322787, -0.16668057665,
      0.20000714765, -0.24999993993, 0.33333331174,
    ],
  );
  let y = v.mul(v.mul(m, z), p);
  y = v.add(y, v.mul(ef, K(-2.1219444e-4)));
  y = v.sub(y, v.mul(z, K(0.5)));
  const r = v.add(v.add(m, y), v.mul(ef, K(0.693359375)));
  return v.logSpecials(x, r);
}

function log64(v: VB, x: number): number {
  const small = v.op('f64x2.lt', x, K(2.2250738585072014e-308));
  const xs = v.sel(v.mul(x, K(2 ** 54)), x, small);
  const kadj = v.op('v128.and', small, i64s(54n));
  let k = v.op('i64x2.sub', v.op('i64x2.sub', v.shift('i64x2.shr_u', xs, 52), i64s(1023n)), kadj);
  let m = v.op('v128.or', v.op('v128.and', xs, i64s(0xfffffffffffffn)), i64s(0x3ff0000000000000n));
  const gt = v.op('f64x2.gt', m, K(Math.SQRT2));
  m = v.sel(v.mul(m, K(0.5)), m, gt);
  k = v.op('i64x2.sub', k, gt);
  v.push(k);
  v.push(k);
  v.f.shuffle([0, 1, 2, 3, 8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11]);
  v.f.op('f64x2.convert_low_i32x4_s');
  const kf = v.f.local(V128);
  v.f.set(kf);
  const f1 = v.sub(m, K(1));
  const s = v.div(f1, v.add(K(2), f1));
  const z = v.mul(s, s);
  const w = v.mul(z, z);
  const t1 = v.mul(w, v.horner(w, [0.15313837699209373, 0.22222198432149784, 0.3999999999940942]));
  const t2 = v.mul(
    z,
    v.horner(w, [0.14798198605116586, 0.1818357216161805, 0.2857142874366239, 0.6666666666666735]),
  );
  const R = v.add(t2, t1);
  const hfsq = v.mul(v.mul(K(0.5), f1), f1);
  const inner = v.add(v.mul(s, v.add(hfsq, R)), v.mul(kf, K(1.9082149292705877e-10)));
  const r = v.sub(v.mul(kf, K(0.6931471803691238)), v.sub(v.sub(hfsq, inner), f1));
  return v.logSpecials(x, r);
}

function tanhV(v: VB, x: number, exp: number): number {
  const a = v.op(`${v.vp}.abs`, x);
  const z = v.mul(x, x);
  let ys: number;
  if (v.kind === 'f32') {
    const p = v.horner(
      z,
      [-5.70498872745e-3, 0.0206390887954, -0.0537397155531, 0.133314422036, -0.333332819422],
    );
    ys = v.add(v.mul(v.mul(p, z), x), x);
  } else {
    const P = v.horner(z, [-0.9643991794250523, -99.28772310019185, -1614.6876844170845]);
    const Q = v.horner(z, [1, 112.81167849163293, 2235.4883906010045, 4844.063053251255]);
    ys = v.add(x, v.div(v.mul(v.mul(x, z), P), Q));
  }
  v.push(v.mul(v.min(a, K(v.kind === 'f32' ? 9 : 20)), K(2)));
  v.f.call(exp);
  const e = v.f.local(V128);
  v.f.set(e);
  const yl = v.copysign(v.sub(K(1), v.div(K(2), v.add(e, K(1)))), x);
  return v.sel(ys, yl, v.op(`${v.vp}.lt`, a, K(0.625)));
}

function erfV(v: VB, x: number, exp: number): number {
  const fit = ERFC_FIT[v.kind];
  const a = v.op(`${v.vp}.abs`, x);
  const z = v.mul(x, x);
  const taylor = erfTaylor(v.kind === 'f32' ? 10 : 17).reverse();
  const ys = v.mul(v.horner(z, taylor), x);
  const xc = v.min(a, K(fit.xmax));
  const t = v.div(K(1), xc);
  const u = v.mul(v.sub(t, K((fit.ta + fit.tb) / 2)), K(2 / (fit.tb - fit.ta)));
  const u2 = v.add(u, u);
  const c = fit.c;
  let b1 = v.op('v128.or', K(c[c.length - 1] as number), K(c[c.length - 1] as number));
  let b2 = v.op('v128.or', K(0), K(0));
  for (let i = c.length - 2; i >= 1; i--) {
    const b0 = v.add(v.sub(v.mul(u2, b1), b2), K(c[i] as number));
    b2 = b1;
    b1 = b0;
  }
  const g = v.add(v.sub(v.mul(u, b1), b2), K(c[0] as number));
  v.push(v.op(`${v.vp}.neg`, v.mul(xc, xc)));
  v.f.call(exp);
  const e = v.f.local(V128);
  v.f.set(e);
  const yl = v.copysign(v.sub(K(1), v.mul(v.mul(e, g), t)), x);
  return v.sel(ys, yl, v.op(`${v.vp}.lt`, a, K(ERF_SMALL)));
}

/** Build the SIMD function `fn` for `kind`; `index` gives other helpers' function indices (exp). */
export function buildVMath(
  fn: VMathFn,
  kind: 'f32' | 'f64',
  index: (fn: VMathFn, kind: 'f32' | 'f64') => number,
): FunctionBuilder {
  const f = new FB([V128], [V128]);
  const v = new VB(f, kind);
  let r: number;
  switch (fn) {
    case 'exp':
      r = kind === 'f32' ? exp32(v, 0) : exp64(v, 0);
      break;
    case 'log':
      r = kind === 'f32' ? log32(v, 0) : log64(v, 0);
      break;
    case 'tanh':
      r = tanhV(v, 0, index('exp', kind));
      break;
    case 'erf':
      r = erfV(v, 0, index('exp', kind));
      break;
    default:
      return fn satisfies never;
  }
  f.get(r);
  return f;
}
