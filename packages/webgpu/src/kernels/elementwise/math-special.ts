/**
 * WGSL special functions in f32 (part of math.ts's library): erf, erfinv, gamma, lgamma, digamma.
 * WGSL has no recursion, so reflection formulas call a positive-argument core.
 *
 * - erf: cpu-wasm's float32 approximation (codegen/js-math.ts ERFC_FIT.f32, Taylor below 0.84375).
 * - erfinv: Giles' single-precision polynomial, one Newton step on erf.
 * - lgamma: the Taylor series of lgamma(2 + z), |z| ≤ 0.5 (coefficients (-1)^k (ζ(k) - 1)/k,
 *   computed here), extended by the recurrence to [0.5, 8) and by Stirling's series above; below
 *   0.5 the reflection formula with an exact sin(πx) reduction.
 * - gamma: exp of that series on [1.5, 2.5] times the recurrence product (≤ 35 factors), so
 *   integers come out exact while the product fits float32; reflection below 0.5.
 * - digamma: reflection, recurrence up to 6, asymptotic series (as cpu-wasm's js-math.ts).
 */
import { S, type Snippet } from './snippet.js';

const f = (v: number): string => {
  const t = String(v);
  return /[.e]/.test(t) ? t : `${t}.0`;
};

/** Horner evaluation of Σ c[i] x^i as WGSL. */
function horner(c: readonly number[], x: string): string {
  let s = f(c[c.length - 1] as number);
  for (let i = c.length - 2; i >= 0; i--) s = `(${s}) * ${x} + ${f(c[i] as number)}`;
  return s;
}

// erf: cpu-wasm's float32 Chebyshev fit of x·erfcx(x) in t = 1/x on [1/4, 1/0.84375].
const ERFC32 = {
  xmax: 4,
  ta: 0.25,
  tb: 1 / 0.84375,
  c: [
    0.4742639717248865, -0.07540757881588607, 0.000225022404116762, 0.0014818197511228676,
    -0.0003640156095366387, 5.219253578692129e-5, -2.54804062855829e-6, -1.2001154849533568e-6,
    4.970003857220074e-7, -1.1726129147682227e-7, 1.8700974158125657e-8,
  ],
};

function erfTaylor(n: number): number[] {
  const c: number[] = [];
  let fact = 1;
  for (let k = 0; k < n; k++) {
    if (k > 0) fact *= k;
    c.push(((k % 2 ? -1 : 1) * 2) / Math.sqrt(Math.PI) / (fact * (2 * k + 1)));
  }
  return c;
}

function erfCode(): string {
  const { c } = ERFC32;
  let clen = '';
  for (let i = c.length - 2; i >= 1; i--) {
    clen += `  { let b0 = u2 * b1 - b2 + ${f(c[i] as number)}; b2 = b1; b1 = b0; }\n`;
  }
  return `fn mx_erf(x: f32) -> f32 {
  if (mx_isnan(x)) { return x; }
  let a = abs(x);
  if (a < 0.84375) { let z = x * x; return (${horner(erfTaylor(10), 'z')}) * x; }
  let xc = min(a, ${f(ERFC32.xmax)});
  let t = 1.0 / xc;
  let u = (t - ${f((ERFC32.ta + ERFC32.tb) / 2)}) * ${f(2 / (ERFC32.tb - ERFC32.ta))};
  let u2 = u + u;
  var b1 = ${f(c[c.length - 1] as number)};
  var b2 = 0.0;
${clen}  let g = u * b1 - b2 + ${f(c[0] as number)};
  return mx_copysign(1.0 - mx_exp(-xc * xc) * g * t, x);
}`;
}

/** ζ(k) - 1 by Euler–Maclaurin (float64; plenty for float32 coefficients). */
function zetaMinus1(k: number): number {
  const N = 40;
  let s = 0;
  for (let n = 2; n < N; n++) s += n ** -k;
  return s + N ** (1 - k) / (k - 1) + 0.5 * N ** -k + (k * N ** (-k - 1)) / 12;
}

const EULER = 0.5772156649015329;
/** lgamma(2 + z) = Σ_{k≥1} L[k] z^k. */
const LG2 = [
  0,
  1 - EULER,
  ...Array.from({ length: 12 }, (_, i) => ((i % 2 ? -1 : 1) * zetaMinus1(i + 2)) / (i + 2)),
];

export const SPECIAL_LIB: Record<string, Snippet> = {
  mx_erf: S(erfCode(), 'mx_isnan', 'mx_exp', 'mx_copysign'),
  mx_erfinv: S(
    `fn mx_erfinv(y: f32) -> f32 {
  if (mx_isnan(y) || abs(y) > 1.0) { return mx_nan(); }
  if (abs(y) == 1.0) { return mx_copysign(mx_inf(), y); }
  if (y == 0.0) { return y; }
  var w = -mx_log((1.0 - y) * (1.0 + y));
  var p: f32;
  if (w < 5.0) {
    w = w - 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w; p = -3.5233877e-06 + p * w; p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w; p = -0.00125372503 + p * w; p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w; p = 1.50140941 + p * w;
  } else {
    w = sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * w; p = 0.00134934322 + p * w; p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w; p = -0.0076224613 + p * w; p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w; p = 2.83297682 + p * w;
  }
  var x = p * y;
  let d = 1.1283791670955126 * mx_exp(-x * x);
  if (d > 0.0) { x = x - (mx_erf(x) - y) / d; }
  return x;
}`,
    'mx_erf',
    'mx_log',
    'mx_exp',
    'mx_isnan',
    'mx_nan',
    'mx_inf',
    'mx_copysign',
  ),
  // sin(πx), exact argument reduction.
  mx_sinpi: S(
    `fn mx_sinpi(x: f32) -> f32 {
  var r = x - 2.0 * round(0.5 * x);
  if (r > 0.5) { r = 1.0 - r; } else if (r < -0.5) { r = -1.0 - r; }
  return mx_sin(3.14159265358979 * r);
}`,
    'mx_sin',
  ),
  mx_tanpi: S(
    `fn mx_tanpi(x: f32) -> f32 {
  let r = x - round(x);
  let v = mx_sincos(3.14159265358979 * r);
  return v.x / v.y;
}`,
    'mx_sincos',
  ),
  mx_lg2series: S(`fn mx_lg2series(z: f32) -> f32 { return (${horner(LG2.slice(1), 'z')}) * z; }`),
  // lgamma for x >= 0.5.
  mx_lgamma_pos: S(
    `fn mx_lgamma_pos(x0: f32) -> f32 {
  if (x0 < 1.5) { return mx_lg2series(x0 - 1.0) - mx_log1p(x0 - 1.0); }
  if (x0 >= 8.0) {
    let r = 1.0 / x0; let r2 = r * r;
    let s = r * (0.0833333333333333 - r2 * (0.00277777777777778 - r2 * (0.000793650793650794 - r2 * 0.000595238095238095)));
    return (x0 - 0.5) * mx_log(x0) - x0 + 0.918938533204672742 + s;
  }
  var x = x0; var p = 1.0;
  while (x > 2.5) { x = x - 1.0; p = p * x; }
  return mx_lg2series(x - 2.0) + mx_log(p);
}`,
    'mx_lg2series',
    'mx_log1p',
    'mx_log',
  ),
  mx_lgamma: S(
    `fn mx_lgamma(x: f32) -> f32 {
  if (mx_isnan(x)) { return x; }
  if (mx_isinf(x)) { return mx_inf(); }
  if (x <= 0.0 && floor(x) == x) { return mx_inf(); }
  if (x >= 0.5) { return mx_lgamma_pos(x); }
  if (x > 0.0) { return mx_lg2series(x) - mx_log(x) - mx_log1p(x); }
  return mx_log(3.14159265358979 / abs(mx_sinpi(x))) - mx_lgamma_pos(1.0 - x);
}`,
    'mx_lgamma_pos',
    'mx_lg2series',
    'mx_sinpi',
    'mx_isnan',
    'mx_isinf',
    'mx_inf',
  ),
  mx_gamma_pos: S(
    `fn mx_gamma_pos(x0: f32) -> f32 {
  if (x0 > 35.5) { return mx_inf(); }
  if (x0 < 1.5) { return mx_exp(mx_lg2series(x0 - 1.0)) / x0; }
  var x = x0; var p = 1.0;
  while (x > 2.5) { x = x - 1.0; p = p * x; }
  return mx_exp(mx_lg2series(x - 2.0)) * p;
}`,
    'mx_lg2series',
    'mx_exp',
    'mx_inf',
  ),
  mx_gamma: S(
    `fn mx_gamma(x: f32) -> f32 {
  if (mx_isnan(x)) { return x; }
  if (x == 0.0) { return mx_copysign(mx_inf(), x); }
  if (x < 0.0 && floor(x) == x) { return mx_nan(); }
  if (mx_isinf(x)) { return select(mx_nan(), x, x > 0.0); }
  if (x >= 0.5) { return mx_gamma_pos(x); }
  return 3.14159265358979 / (mx_sinpi(x) * mx_gamma_pos(1.0 - x));
}`,
    'mx_gamma_pos',
    'mx_sinpi',
    'mx_isnan',
    'mx_isinf',
    'mx_nan',
    'mx_inf',
    'mx_copysign',
  ),
  mx_digamma: S(
    `fn mx_digamma(x0: f32) -> f32 {
  if (mx_isnan(x0) || x0 == -mx_inf()) { return mx_nan(); }
  if (mx_isinf(x0)) { return x0; }
  if (x0 == 0.0) { return mx_copysign(mx_inf(), -x0); }
  var x = x0; var r = 0.0;
  if (x < 0.0) {
    if (floor(x) == x) { return mx_nan(); }
    r = -3.14159265358979 / mx_tanpi(x);
    x = 1.0 - x;
  }
  while (x < 6.0) { r = r - 1.0 / x; x = x + 1.0; }
  let z = 1.0 / (x * x);
  let tail = z * (0.0833333333333333 - z * (0.00833333333333333 - z * (0.00396825396825397 - z * (0.00416666666666667 - z * (0.00757575757575758 - z * (0.0210927960927961 - z * 0.0833333333333333))))));
  return r + mx_log(x) - 0.5 / x - tail;
}`,
    'mx_tanpi',
    'mx_log',
    'mx_isnan',
    'mx_isinf',
    'mx_nan',
    'mx_inf',
    'mx_copysign',
  ),
};
