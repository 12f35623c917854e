/**
 * SIMD math: exp, log, tanh and erf on f32x4 and f64x2. JS Math is scalar, so a vector body calling
 * it per lane would run at scalar speed; these keep sigmoid/tanh/softmax/GELU-style expressions in
 * SIMD. Each function is an emitter (`emitVMath`) that writes its instructions into any function:
 * kernel loops inline it (a call per vector costs ~15% of an exp), and `buildVMath` wraps it as a
 * `v128 -> v128` function for scalar tails and other callers. Both give the same bits.
 *
 * Algorithms (both sides of a range split computed and blended, except exp's one branch):
 * - exp: n = round(x*log2e) by adding 1.5*2^mantissaBits (the integer lands in the low bits, so no
 *   float-to-int conversion), two-constant reduction (Cephes), a degree-6 minimax polynomial (f32)
 *   / fdlibm's rational (f64), times 2^n. When every lane has |x| < 87 (f32) / 708 (f64) 2^n and
 *   the result are normal and one power of two is applied; otherwise (large |x|, inf, NaN) x is
 *   clamped and 2^n applied as two halves so results near overflow and in the subnormal range are
 *   right. Both paths round the same mantissas, so the branch never changes a normal result. A
 *   kernel's unrolled vectors share one check (`emitVMathGroup`).
 * - log: exponent/mantissa split with subnormals pre-scaled, Cephes logf polynomial (f32) /
 *   fdlibm's log (f64); 0, negatives, inf and NaN patched at the end.
 * - tanh: odd polynomial (Cephes) below 0.625, 1 - 2/(exp(2|x|)+1) above.
 * - erf: Taylor series below 0.84375, exp(-x^2) * Chebyshev fit above (js-math.ts).
 * Clamps use pmin/pmax with x first (one x64 instruction each; a NaN x passes through), not
 * min/max, whose NaN and signed-zero rules cost ~10 instructions on x64.
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
  /** x > hi ? hi : x (NaN x stays NaN). */
  clampHi = (x: Arg, hi: Arg) => this.op(`${this.vp}.pmin`, x, hi);
  /** x < lo ? lo : x (NaN x stays NaN). */
  clampLo = (x: Arg, lo: Arg) => this.op(`${this.vp}.pmax`, x, lo);
  /** mask ? a : b */
  sel = (a: Arg, b: Arg, mask: Arg) => this.op('v128.bitselect', a, b, mask);
  /** c[0]*x^(n-1) + ... + c[n-1] */
  horner(x: Arg, c: readonly number[]): number {
    if (c.length === 1) return this.op('v128.or', K(c[0] as number), K(c[0] as number));
    let p = this.add(this.mul(K(c[0] as number), x), K(c[1] as number));
    for (let i = 2; i < c.length; i++) p = this.add(this.mul(p, x), K(c[i] as number));
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

/**
 * Per kind: integer vector prefix, mantissa bits, exponent bias, the rounding magic 1.5*2^mant +
 * bias and its bits, exp's fast-path bound. t = x*log2e + magic rounds x*log2e to an integer n held
 * in t's low bits with the exponent bias already added, so 2^n is bits(t) << mant.
 */
const EXP = {
  f32: { vi: 'i32x4', mant: 23, bias: 127, magic: 12583039, magicBits: 0x4b40007f, fast: 87 },
  f64: {
    vi: 'i64x2',
    mant: 52,
    bias: 1023,
    magic: 6755399441056767,
    magicBits: 0x43380000000003ffn,
    fast: 708,
  },
} as const;

/**
 * exp(r) = 1 + r + r^2*P(r) on |r| <= ln2/2, P of degree 4 (float32): a minimax fit of relative
 * error (Lawson's iteration on 4001 Chebyshev nodes, numpy) rounded to float32. Approximation error
 * 2e-9, so the result's error is rounding (<= 1.12 ulp measured over 8M inputs, Cephes' degree-7
 * expf 0.99), for one multiply-add less.
 */
const EXP_P32 = [0.0013843654, 0.0083741555, 0.041668002, 0.16666432, 0.49999994];

const intSplat = (kind: 'f32' | 'f64', n: number | bigint): Arg =>
  kind === 'f32' ? i32s(Number(n)) : i64s(BigInt(n));

/**
 * exp(x) = exp(r) * 2^n, n = round(x*log2e), r = x - n*ln2 in two parts. `twoHalves`: multiply by
 * 2^(n>>1) then 2^(n - (n>>1)), right for n outside the normal exponent range; otherwise by 2^n.
 * For normal results both are exact, so the two forms give the same bits.
 */
function expCore(v: VB, x: number, twoHalves: boolean): number {
  const c = EXP[v.kind];
  const vi = c.vi;
  const t = v.add(v.mul(x, K(Math.LOG2E)), K(c.magic));
  const n = v.sub(t, K(c.magic));
  let y: number;
  if (v.kind === 'f32') {
    const r = v.sub(v.sub(x, v.mul(n, K(0.693359375))), v.mul(n, K(-2.1219444e-4)));
    y = v.add(v.add(v.mul(v.horner(r, EXP_P32), v.mul(r, r)), r), K(1));
  } else {
    // fdlibm's rational form of exp(r) on r = hi - lo.
    const hi = v.sub(x, v.mul(n, K(0.6931471803691238)));
    const lo = v.mul(n, K(1.9082149292705877e-10));
    const r = v.sub(hi, lo);
    const tt = v.mul(r, r);
    const poly = v.horner(
      tt,
      [
        4.1381367970572385e-8, -0.0000016533902205465252, 0.00006613756321437934, -0.0027777777777015593,
        0.16666666666666602,
      ],
    );
    const cc = v.sub(r, v.mul(tt, poly));
    y = v.sub(K(1), v.sub(v.sub(lo, v.div(v.mul(r, cc), v.sub(K(2), cc))), hi));
  }
  if (!twoHalves) return v.mul(y, v.shift(`${vi}.shl`, t, c.mant));
  const ni = v.op(`${vi}.sub`, t, intSplat(v.kind, c.magicBits));
  const n1 = v.shift(`${vi}.shr_s`, ni, 1);
  const pow2 = (k: number) => v.shift(`${vi}.shl`, v.op(`${vi}.add`, k, intSplat(v.kind, c.bias)), c.mant);
  return v.mul(v.mul(y, pow2(n1)), pow2(v.op(`${vi}.sub`, ni, n1)));
}

/** exp of each vector in `xs`, with one range check (and branch) for the whole group. */
function expGroup(v: VB, xs: readonly number[]): number[] {
  const f = v.f;
  const vp = v.vp;
  const res = xs.map(() => f.local(V128));
  const lim = v.kind === 'f32' ? { lo: -104, hi: 89 } : { lo: -746, hi: 710 };
  let ok = -1;
  for (const x of xs) {
    const m = v.op(`${vp}.lt`, v.op(`${vp}.abs`, x), K(EXP[v.kind].fast));
    ok = ok < 0 ? m : v.op('v128.and', ok, m);
  }
  f.get(ok)
    .op(v.kind === 'f32' ? 'i32x4.all_true' : 'i64x2.all_true')
    .if();
  xs.forEach((x, j) => {
    f.get(expCore(v, x, false)).set(res[j] as number);
  });
  f.else();
  xs.forEach((x, j) => {
    f.get(expCore(v, v.clampHi(v.clampLo(x, K(lim.lo)), K(lim.hi)), true)).set(res[j] as number);
  });
  f.end();
  return res;
}

/**
 * exp(r) = 1 + r*Q(r) on |r| <= ln2/2, Q of degree 4 (float32): a minimax fit of relative error
 * (tools/fit-exp.py), approximation error 9.5e-8 (0.8 ulp), for the non-positive inputs of a softmax.
 */
const EXP_Q32 = [0.008290315, 0.04189793, 0.16667636, 0.49999151, 0.9999997];

/**
 * exp of x <= 0 (softmax's x - max): 2^n + (r*2^n)*Q(r), the same reduction as expCore but
 * without its range branch and with one multiply-add less (Q's form needs no separate 1 + r).
 * Results below the smallest normal (x < -87.34, and -inf) are flushed to +0; NaN stays NaN.
 */
function expNonPositive32(v: VB, x: number): number {
  const c = EXP.f32;
  const t = v.add(v.mul(x, K(Math.LOG2E)), K(c.magic));
  const s = v.shift('i32x4.shl', t, c.mant);
  const n = v.sub(t, K(c.magic));
  const r = v.sub(v.sub(x, v.mul(n, K(0.693359375))), v.mul(n, K(-2.1219444e-4)));
  const y = v.add(v.mul(v.mul(r, s), v.horner(r, EXP_Q32)), s);
  return v.op('v128.andnot', y, v.op('f32x4.lt', x, K(-87.33654)));
}

/**
 * `emitVMathGroup(f, 'exp', kind, xs)` for inputs known to be <= 0 or NaN: float32 skips the range
 * branch (about 10% faster in softmax); float64 is the general exp.
 */
export function emitExpNonPositiveGroup(
  f: FunctionBuilder,
  kind: 'f32' | 'f64',
  xs: readonly number[],
): number[] {
  const v = new VB(f, kind);
  return kind === 'f64' ? expGroup(v, xs) : xs.map((x) => expNonPositive32(v, x));
}

function expV(v: VB, x: number): number {
  return expGroup(v, [x])[0] as number;
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

/** Emits exp of the v128 in a local; returns the result local. */
type ExpEmitter = (v: VB, x: number) => number;

function tanhV(v: VB, x: number, exp: ExpEmitter): number {
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
  const e = exp(v, v.mul(v.clampHi(a, K(v.kind === 'f32' ? 9 : 20)), K(2)));
  const yl = v.copysign(v.sub(K(1), v.div(K(2), v.add(e, K(1)))), x);
  return v.sel(ys, yl, v.op(`${v.vp}.lt`, a, K(0.625)));
}

function erfV(v: VB, x: number, exp: ExpEmitter): number {
  const fit = ERFC_FIT[v.kind];
  const a = v.op(`${v.vp}.abs`, x);
  const z = v.mul(x, x);
  const taylor = erfTaylor(v.kind === 'f32' ? 10 : 17).reverse();
  const ys = v.mul(v.horner(z, taylor), x);
  const xc = v.clampHi(a, K(fit.xmax));
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
  const e = exp(v, v.op(`${v.vp}.neg`, v.mul(xc, xc)));
  const yl = v.copysign(v.sub(K(1), v.mul(v.mul(e, g), t)), x);
  return v.sel(ys, yl, v.op(`${v.vp}.lt`, a, K(ERF_SMALL)));
}

/**
 * Emit `fn` of the v128 in local `x` into `f`; returns the local holding the result. `exp` emits
 * the exp that tanh and erf use (default: inline).
 */
export function emitVMath(
  f: FunctionBuilder,
  fn: VMathFn,
  kind: 'f32' | 'f64',
  x: number,
  exp: ExpEmitter = expV,
): number {
  const v = new VB(f, kind);
  switch (fn) {
    case 'exp':
      return expV(v, x);
    case 'log':
      return kind === 'f32' ? log32(v, x) : log64(v, x);
    case 'tanh':
      return tanhV(v, x, exp);
    case 'erf':
      return erfV(v, x, exp);
    default:
      return fn satisfies never;
  }
}

const VMATH_FNS: ReadonlySet<string> = new Set<VMathFn>(['exp', 'log', 'tanh', 'erf']);

/** Whether `fn` has SIMD code here. */
export function isVMathFn(fn: string): fn is VMathFn {
  return VMATH_FNS.has(fn);
}

/**
 * `emitVMath` for several vectors at once (a kernel's unrolled steps): exp checks the range of the
 * whole group once (x64 all_true is ~4 instructions plus a branch); the others are emitted per vector.
 */
export function emitVMathGroup(
  f: FunctionBuilder,
  fn: VMathFn,
  kind: 'f32' | 'f64',
  xs: readonly number[],
): number[] {
  if (fn === 'exp') return expGroup(new VB(f, kind), xs);
  return xs.map((x) => emitVMath(f, fn, kind, x));
}

/**
 * Build the SIMD function `fn` for `kind` (v128 -> v128); `index` gives other helpers' function
 * indices (tanh and erf call the exp function instead of inlining it).
 */
export function buildVMath(
  fn: VMathFn,
  kind: 'f32' | 'f64',
  index: (fn: VMathFn, kind: 'f32' | 'f64') => number,
): FunctionBuilder {
  const f = new FB([V128], [V128]);
  const callExp: ExpEmitter = (v, x) => {
    v.f.get(x).call(index('exp', kind));
    const l = v.f.local(V128);
    v.f.set(l);
    return l;
  };
  f.get(emitVMath(f, fn, kind, 0, callExp));
  return f;
}
