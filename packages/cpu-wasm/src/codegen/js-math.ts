/**
 * Scalar math the generated kernels import from JavaScript: the long tail of transcendental
 * functions (`Math.*`, correctly rounded or nearly so in V8) and the special functions JS lacks
 * (erf, erfinv, gamma, gammaln) plus mshadow's float `mod`. Every import works on float64; kernels
 * promote float32 and integers to float64, call, and convert back (mshadow computes integer
 * transcendental results in floating point and truncates them the same way).
 *
 * erf shares its approximation with the SIMD version (vmath.ts) so scalar tails and vector bodies
 * agree: an odd Taylor series below 0.84375 and, above, erfc(x) = exp(-x^2) g(1/x) / x with g a
 * Chebyshev fit (in 1/x) of x*erfcx(x), made with mpmath at 40 digits; max relative error of erf
 * measured 1.9e-15 against mpmath over [-7, 7].
 */

/** Chebyshev coefficients of g(t) = x * erfcx(x), t = 1/x in [ta, tb], for float64 (x <= 6) and float32 (x <= 4). */
export const ERFC_FIT = Object.freeze({
  f64: {
    xmax: 6,
    ta: 1 / 6,
    tb: 1 / 0.84375,
    c: [
      0.4801946778726206, -0.08060595845680488, -0.0011706363029496236, 0.002328518111024575,
      -0.0005731237905461159, 7.630524431744168e-5, 1.3251898346825375e-6, -4.233019048518798e-6,
      1.4607529648606565e-6, -3.119007430980805e-7, 3.4969796788677045e-8, 5.377327224374977e-9,
      -4.532377890732298e-9, 1.5796531125598757e-9, -3.7647449313527156e-10, 5.5095098637963593e-11,
      2.6209304111461025e-12, -5.377320810850959e-12, 2.333983006863604e-12, -6.936118346345663e-13,
      1.4921397450962096e-13, -1.6681100944992964e-14, -4.1300296516055795e-15,
    ],
  },
  f32: {
    xmax: 4,
    ta: 0.25,
    tb: 1 / 0.84375,
    c: [
      0.4742639717248865, -0.07540757881588607, 0.000225022404116762, 0.0014818197511228676,
      -0.0003640156095366387, 5.219253578692129e-5, -2.54804062855829e-6, -1.2001154849533568e-6,
      4.970003857220074e-7, -1.1726129147682227e-7, 1.8700974158125657e-8,
    ],
  },
});

/** Below this |x|, erf uses its Taylor series. */
export const ERF_SMALL = 0.84375;

/** Taylor coefficients of erf(x)/x in powers of x^2 (n terms). */
export function erfTaylor(n: number): number[] {
  const c: number[] = [];
  let fact = 1;
  for (let k = 0; k < n; k++) {
    if (k > 0) fact *= k;
    c.push(((k % 2 ? -1 : 1) * 2) / Math.sqrt(Math.PI) / (fact * (2 * k + 1)));
  }
  return c;
}

const TAYLOR64 = erfTaylor(17);

export function erf(x: number): number {
  const a = Math.abs(x);
  if (a < ERF_SMALL) {
    const z = x * x;
    let p = TAYLOR64[TAYLOR64.length - 1] as number;
    for (let i = TAYLOR64.length - 2; i >= 0; i--) p = p * z + (TAYLOR64[i] as number);
    return p * x;
  }
  if (Number.isNaN(a)) return a;
  const fit = ERFC_FIT.f64;
  const xc = Math.min(a, fit.xmax);
  const t = 1 / xc;
  const u = (t - (fit.ta + fit.tb) / 2) * (2 / (fit.tb - fit.ta));
  let b1 = 0;
  let b2 = 0;
  for (let i = fit.c.length - 1; i >= 1; i--) {
    const b0 = 2 * u * b1 - b2 + (fit.c[i] as number);
    b2 = b1;
    b1 = b0;
  }
  const g = u * b1 - b2 + (fit.c[0] as number);
  const r = 1 - Math.exp(-xc * xc) * g * t;
  return x < 0 ? -r : r;
}

/** Inverse error function: Giles' single-precision approximation refined by Newton steps on erf. */
export function erfinv(y: number): number {
  if (Number.isNaN(y) || y < -1 || y > 1) return Number.NaN;
  if (y === 1) return Number.POSITIVE_INFINITY;
  if (y === -1) return Number.NEGATIVE_INFINITY;
  if (y === 0) return y;
  let w = -Math.log((1 - y) * (1 + y));
  let p: number;
  if (w < 5) {
    w -= 2.5;
    p = 2.81022636e-8;
    for (const c of [
      3.43273939e-7, -3.5233877e-6, -4.39150654e-6, 0.00021858087, -0.00125372503, -0.00417768164,
      0.246640727, 1.50140941,
    ])
      p = c + p * w;
  } else {
    w = Math.sqrt(w) - 3;
    p = -0.000200214257;
    for (const c of [
      0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047, 1.00167406,
      2.83297682,
    ])
      p = c + p * w;
  }
  let x = p * y;
  const k = 2 / Math.sqrt(Math.PI);
  for (let i = 0; i < 3; i++) {
    const d = k * Math.exp(-x * x);
    if (d === 0) break;
    x -= (erf(x) - y) / d;
  }
  return x;
}

// Lanczos approximation, g = 7, n = 9 (Godfrey's coefficients): ~1e-15 relative for x > 0.5.
const LANCZOS_G = 7;
const LANCZOS = [
  0.9999999999998099, 676.5203681218851, -1259.1392167224028, 771.3234287776531, -176.6150291621406,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

function lanczosSum(x: number): number {
  let a = LANCZOS[0] as number;
  for (let i = 1; i < LANCZOS.length; i++) a += (LANCZOS[i] as number) / (x + i);
  return a;
}

/** Gamma function (tgamma): poles at 0 give +-inf by the sign of zero, negative integers NaN. */
export function gamma(x: number): number {
  if (Number.isNaN(x)) return x;
  if (x === 0) return 1 / x;
  if (x < 0 && Number.isInteger(x)) return Number.NaN;
  if (x === Number.POSITIVE_INFINITY) return x;
  if (x === Number.NEGATIVE_INFINITY) return Number.NaN;
  if (x < 0.5) return Math.PI / (Math.sin(Math.PI * x) * gamma(1 - x));
  if (x > 171.7) return Number.POSITIVE_INFINITY;
  if (Number.isInteger(x)) {
    // Exact factorials (Lanczos is ~1e-15 off, enough to truncate gamma(1) to 0 for integer dtypes).
    let p = 1;
    for (let i = 2; i < x; i++) p *= i;
    return p;
  }
  const xm = x - 1;
  const t = xm + LANCZOS_G + 0.5;
  // Split t^(x-0.5) so it does not overflow before the product does.
  const h = t ** ((xm + 0.5) / 2);
  return Math.sqrt(2 * Math.PI) * (h * Math.exp(-t) * h) * lanczosSum(xm);
}

/** log|gamma(x)| (lgamma): +inf at the poles. */
export function gammaln(x: number): number {
  if (Number.isNaN(x)) return x;
  if (!Number.isFinite(x)) return Number.POSITIVE_INFINITY;
  if (x <= 0 && Number.isInteger(x)) return Number.POSITIVE_INFINITY;
  if (x === 1 || x === 2) return 0;
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - gammaln(1 - x);
  const xm = x - 1;
  const t = xm + LANCZOS_G + 0.5;
  return 0.5 * Math.log(2 * Math.PI) + (xm + 0.5) * Math.log(t) - t + Math.log(lanczosSum(xm));
}

/** Digamma (psi): reflection below 0, recurrence up to 6, then the asymptotic series. */
export function digamma(x: number): number {
  if (Number.isNaN(x) || x === Number.NEGATIVE_INFINITY) return Number.NaN;
  if (x === Number.POSITIVE_INFINITY) return x;
  if (x === 0) return Object.is(x, -0) ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
  if (x < 0) {
    if (Number.isInteger(x)) return Number.NaN;
    return digamma(1 - x) - Math.PI / Math.tan(Math.PI * x);
  }
  let r = 0;
  while (x < 6) {
    r -= 1 / x;
    x += 1;
  }
  const z = 1 / (x * x);
  const tail =
    z * (1 / 12 - z * (1 / 120 - z * (1 / 252 - z * (1 / 240 - z * (1 / 132 - z * (691 / 32760 - z / 12))))));
  return r + Math.log(x) - 0.5 / x - tail;
}

/** mshadow_op::mod on doubles: the result takes the divisor's sign; b == 0 gives 0. */
export function mod(a: number, b: number): number {
  if (b === 0) return 0;
  if (b < 0) {
    if (a < 0) return -(-a % -b);
    if (a === 0) return -0;
    const r = a % -b;
    const ret = r + (r !== 0 ? b : 0);
    return ret === 0 ? -ret : ret;
  }
  if (a < 0) {
    const r = -a % b;
    return -r + (r !== 0 ? b : 0);
  }
  return a % b;
}

/** The host functions every kernel module imports (module `m`), in import order. */
export const UNARY_IMPORTS = Object.freeze({
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
  cbrt: Math.cbrt,
  rcbrt: (x: number) => 1 / Math.cbrt(x),
  erf,
  erfinv,
  gamma,
  gammaln,
  digamma,
});

/** C's pow: JS gives NaN for 1^NaN, 1^inf and (-1)^inf where C (and NumPy) give 1. */
export function cpow(a: number, b: number): number {
  if (a === 1) return 1;
  if (a === -1 && (b === Number.POSITIVE_INFINITY || b === Number.NEGATIVE_INFINITY)) return 1;
  return a ** b;
}

export const BINARY_IMPORTS = Object.freeze({
  pow: cpow,
  hypot: (a: number, b: number) => Math.hypot(a, b),
  arctan2: Math.atan2,
  mod,
});

export type UnaryImport = keyof typeof UNARY_IMPORTS;
export type BinaryImport = keyof typeof BINARY_IMPORTS;

/** The import object passed to `rt.kernel`. */
export const KERNEL_IMPORTS: Readonly<Record<string, Record<string, unknown>>> = Object.freeze({
  m: { ...UNARY_IMPORTS, ...BINARY_IMPORTS },
});
