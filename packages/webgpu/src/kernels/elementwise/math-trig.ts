/**
 * WGSL trigonometric, hyperbolic and power functions in f32 (part of math.ts's library; see there
 * for why we do not use WGSL's built-ins). Trig follows Cephes sinf/cosf/asinf/atanf with a
 * three-part Cody-Waite reduction by π/4 (accurate for |x| up to ~8192); hyperbolics go through
 * expm1/log1p so small arguments keep full relative precision; pow has C's special cases with an
 * exact square-and-multiply path for integral exponents; fmod is exact (repeated exact subtraction
 * of the divisor scaled by powers of two), then takes the divisor's sign as mshadow's `mod` does.
 */
import { S, type Snippet } from './snippet.js';

export const TRIG_LIB: Record<string, Snippet> = {
  // .x = sin(x), .y = cos(x)
  mx_sincos: S(
    `fn mx_sincos(x0: f32) -> vec2<f32> {
  if (mx_isnan(x0) || mx_isinf(x0)) { return vec2<f32>(mx_nan(), mx_nan()); }
  let a = abs(x0);
  var j = u32(a * 1.27323954473516);
  var y = f32(j);
  if ((j & 1u) != 0u) { j = j + 1u; y = y + 1.0; }
  j = j & 7u;
  let x = ((a - y * 0.78515625) - y * 2.4187564849853515625e-4) - y * 3.77489497744594108e-8;
  let z = x * x;
  let sp = ((-1.9515295891e-4 * z + 8.3321608736e-3) * z - 1.6666654611e-1) * z * x + x;
  let cp = ((2.443315711809948e-5 * z - 1.388731625493765e-3) * z + 4.166664568298827e-2) * z * z - 0.5 * z + 1.0;
  let swap = j == 1u || j == 2u || j == 5u || j == 6u;
  var s = select(sp, cp, swap);
  var c = select(cp, sp, swap);
  if (j > 3u) { s = -s; }
  if (j == 2u || j == 3u || j == 4u || j == 5u) { c = -c; }
  if (x0 < 0.0) { s = -s; }
  return vec2<f32>(s, c);
}`,
    'mx_isnan',
    'mx_isinf',
    'mx_nan',
  ),
  mx_sin: S('fn mx_sin(x: f32) -> f32 { return mx_sincos(x).x; }', 'mx_sincos'),
  mx_cos: S('fn mx_cos(x: f32) -> f32 { return mx_sincos(x).y; }', 'mx_sincos'),
  mx_tan: S('fn mx_tan(x: f32) -> f32 { let v = mx_sincos(x); return v.x / v.y; }', 'mx_sincos'),
  mx_asin: S(
    `fn mx_asin(x: f32) -> f32 {
  let a = abs(x);
  if (mx_isnan(x) || a > 1.0) { return mx_nan(); }
  if (a < 1e-4) { return x; }
  var z: f32; var t: f32; let big = a > 0.5;
  if (big) { z = 0.5 * (1.0 - a); t = sqrt(z); } else { t = a; z = a * a; }
  var r = ((((4.2163199048e-2 * z + 2.4181311049e-2) * z + 4.5470025998e-2) * z + 7.4953002686e-2) * z + 1.6666752422e-1) * z * t + t;
  if (big) { r = 1.5707963267948966 - (r + r); }
  return select(r, -r, x < 0.0);
}`,
    'mx_isnan',
    'mx_nan',
  ),
  mx_acos: S(
    `fn mx_acos(x: f32) -> f32 {
  if (mx_isnan(x) || abs(x) > 1.0) { return mx_nan(); }
  if (x < -0.5) { return 3.14159265358979 - 2.0 * mx_asin(sqrt(0.5 * (1.0 + x))); }
  if (x > 0.5) { return 2.0 * mx_asin(sqrt(0.5 * (1.0 - x))); }
  return 1.5707963267948966 - mx_asin(x);
}`,
    'mx_asin',
  ),
  mx_atan: S(
    `fn mx_atan(x0: f32) -> f32 {
  if (mx_isnan(x0)) { return x0; }
  var x = abs(x0);
  var y = 0.0;
  if (x > 2.414213562373095) { y = 1.5707963267948966; x = -1.0 / x; }
  else if (x > 0.4142135623730950) { y = 0.7853981633974483; x = (x - 1.0) / (x + 1.0); }
  let z = x * x;
  y = y + (((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z - 3.33329491539e-1) * z * x + x;
  return select(y, -y, x0 < 0.0);
}`,
    'mx_isnan',
  ),
  mx_atan2: S(
    `fn mx_atan2(y: f32, x: f32) -> f32 {
  if (mx_isnan(x) || mx_isnan(y)) { return mx_nan(); }
  let xneg = (bitcast<u32>(x) & 0x80000000u) != 0u;
  if (y == 0.0) { return select(y, mx_copysign(3.14159265358979, y), xneg); }
  if (x == 0.0) { return mx_copysign(1.5707963267948966, y); }
  if (mx_isinf(x)) {
    if (mx_isinf(y)) { return mx_copysign(select(0.7853981633974483, 2.356194490192345, xneg), y); }
    return select(mx_copysign(0.0, y), mx_copysign(3.14159265358979, y), xneg);
  }
  if (mx_isinf(y)) { return mx_copysign(1.5707963267948966, y); }
  let a = mx_atan(abs(y / x));
  let r = select(a, 3.14159265358979 - a, xneg);
  return mx_copysign(r, y);
}`,
    'mx_atan',
    'mx_isinf',
    'mx_copysign',
    'mx_nan',
  ),
  mx_sinh: S(
    `fn mx_sinh(x: f32) -> f32 {
  let a = abs(x);
  var r: f32;
  if (a > 88.0) { let h = mx_exp(0.5 * a); r = 0.5 * h * h; }
  else { let e = mx_expm1(a); r = 0.5 * (e + e / (e + 1.0)); }
  return mx_copysign(r, x);
}`,
    'mx_exp',
    'mx_expm1',
    'mx_copysign',
  ),
  mx_cosh: S(
    `fn mx_cosh(x: f32) -> f32 {
  let a = abs(x);
  if (a > 88.0) { let h = mx_exp(0.5 * a); return 0.5 * h * h; }
  let e = mx_exp(a);
  return 0.5 * (e + 1.0 / e);
}`,
    'mx_exp',
  ),
  mx_tanh: S(
    `fn mx_tanh(x: f32) -> f32 {
  if (mx_isnan(x)) { return x; }
  let a = abs(x);
  if (a < 0.625) {
    let z = x * x;
    let p = (((-5.70498872745e-3 * z + 2.06390887954e-2) * z - 5.37397155531e-2) * z + 1.33314422036e-1) * z - 3.33332819422e-1;
    return x + x * z * p;
  }
  if (a > 9.0) { return mx_copysign(1.0, x); }
  return mx_copysign(1.0 - 2.0 / (mx_exp(2.0 * a) + 1.0), x);
}`,
    'mx_isnan',
    'mx_exp',
    'mx_copysign',
  ),
  mx_asinh: S(
    `fn mx_asinh(x: f32) -> f32 {
  let a = abs(x);
  if (mx_isnan(x) || mx_isinf(x)) { return x; }
  var r: f32;
  if (a > 1e10) { r = mx_log(a) + 0.693147180559945; }
  else { let t = a * a; r = mx_log1p(a + t / (1.0 + sqrt(1.0 + t))); }
  return mx_copysign(r, x);
}`,
    'mx_log',
    'mx_log1p',
    'mx_isnan',
    'mx_isinf',
    'mx_copysign',
  ),
  mx_acosh: S(
    `fn mx_acosh(x: f32) -> f32 {
  if (mx_isnan(x) || x < 1.0) { return mx_nan(); }
  if (mx_isinf(x)) { return x; }
  if (x > 1e10) { return mx_log(x) + 0.693147180559945; }
  let t = x - 1.0;
  return mx_log1p(t + sqrt(2.0 * t + t * t));
}`,
    'mx_log',
    'mx_log1p',
    'mx_isnan',
    'mx_isinf',
    'mx_nan',
  ),
  mx_atanh: S(
    `fn mx_atanh(x: f32) -> f32 {
  let a = abs(x);
  if (mx_isnan(x) || a > 1.0) { return mx_nan(); }
  if (a == 1.0) { return mx_copysign(mx_inf(), x); }
  return mx_copysign(0.5 * mx_log1p(2.0 * a / (1.0 - a)), x);
}`,
    'mx_log1p',
    'mx_isnan',
    'mx_nan',
    'mx_inf',
    'mx_copysign',
  ),
  mx_hypot: S(
    `fn mx_hypot(a: f32, b: f32) -> f32 {
  let x = abs(a); let y = abs(b);
  if (mx_isinf(x) || mx_isinf(y)) { return mx_inf(); }
  if (mx_isnan(x) || mx_isnan(y)) { return mx_nan(); }
  let hi = max(x, y); let lo = min(x, y);
  if (hi == 0.0) { return 0.0; }
  if (hi < 1e18 && hi > 1e-15) { return sqrt(x * x + y * y); }
  let r = lo / hi;
  return hi * sqrt(1.0 + r * r);
}`,
    'mx_isinf',
    'mx_isnan',
    'mx_inf',
    'mx_nan',
  ),
  mx_cbrt: S(
    `fn mx_cbrt(x: f32) -> f32 {
  if (x == 0.0 || mx_isnan(x) || mx_isinf(x)) { return x; }
  var a = abs(x);
  var s = 1.0;
  if (a < 1e-30) { a = a * 1.2089258196146292e24; s = 9.5367431640625e-7; }
  var y = bitcast<f32>(bitcast<u32>(a) / 3u + 709921077u);
  for (var k = 0; k < 4; k++) { y = (2.0 * y + a / (y * y)) * 0.333333333333333; }
  return mx_copysign(y * s, x);
}`,
    'mx_isnan',
    'mx_isinf',
    'mx_copysign',
  ),
  // x^n for integral |n| <= 2^24, by squaring.
  mx_powi: S(
    `fn mx_powi(x: f32, n: f32) -> f32 {
  var e = u32(abs(n));
  var b = x;
  var r = 1.0;
  loop {
    if ((e & 1u) != 0u) { r = r * b; }
    e = e >> 1u;
    if (e == 0u) { break; }
    b = b * b;
  }
  return select(r, 1.0 / r, n < 0.0);
}`,
  ),
  mx_pow: S(
    `fn mx_pow(x: f32, y: f32) -> f32 {
  if (y == 0.0 || x == 1.0) { return 1.0; }
  if (mx_isnan(x) || mx_isnan(y)) { return mx_nan(); }
  let ax = abs(x);
  if (mx_isinf(y)) {
    if (ax == 1.0) { return 1.0; }
    return select(0.0, mx_inf(), (ax > 1.0) == (y > 0.0));
  }
  let integral = floor(y) == y;
  let odd = integral && abs(y) < 16777216.0 && (u32(abs(y)) & 1u) == 1u;
  if (x == 0.0 || mx_isinf(x)) {
    let big = (x == 0.0) == (y < 0.0);
    let m = select(0.0, mx_inf(), big);
    return select(m, mx_copysign(m, x), odd);
  }
  if (integral && abs(y) <= 64.0) { return mx_powi(x, y); }
  if (x < 0.0 && !integral) { return mx_nan(); }
  let r = mx_exp(y * mx_log(ax));
  return select(r, -r, x < 0.0 && odd);
}`,
    'mx_powi',
    'mx_exp',
    'mx_log',
    'mx_isnan',
    'mx_isinf',
    'mx_nan',
    'mx_inf',
    'mx_copysign',
  ),
  // C fmod, exact.
  mx_crem: S(
    `fn mx_crem(a: f32, b: f32) -> f32 {
  if (mx_isnan(a) || mx_isnan(b) || mx_isinf(a) || b == 0.0) { return mx_nan(); }
  if (mx_isinf(b)) { return a; }
  let bb = abs(b);
  var r = abs(a);
  for (var it = 0; it < 300 && r >= bb; it++) {
    let ed = i32(bitcast<u32>(r) >> 23u) - i32(bitcast<u32>(bb) >> 23u);
    var d = mx_ldexp(bb, ed);
    if (d > r) { d = d * 0.5; }
    r = r - d;
  }
  return mx_copysign(r, a);
}`,
    'mx_isnan',
    'mx_isinf',
    'mx_nan',
    'mx_ldexp',
    'mx_copysign',
  ),
  // mshadow_op::mod: b == 0 → 0; otherwise the remainder takes the divisor's sign.
  mx_fmod: S(
    `fn mx_fmod(a: f32, b: f32) -> f32 {
  if (b == 0.0) { return 0.0; }
  let r = mx_crem(a, b);
  if (r == 0.0) { return mx_copysign(0.0, b); }
  if ((r < 0.0) != (b < 0.0)) { return r + b; }
  return r;
}`,
    'mx_crem',
    'mx_copysign',
  ),
};
