/**
 * WGSL integer helpers with cpu-wasm's (mshadow's) semantics, part of math.ts's library:
 * division and mod by zero give 0, INT_MIN / -1 wraps, mod takes the divisor's sign; sqrt and pow
 * are exact (cpu-wasm computes them in float64 and truncates with saturation, which is exact for
 * 32-bit operands: we get the same integer without float64).
 */
import { S, type Snippet } from './snippet.js';

export const INT_LIB: Record<string, Snippet> = {
  mx_idiv: S(
    `fn mx_idiv(a: i32, b: i32) -> i32 {
  if (b == 0i) { return 0i; }
  if (b == -1i) { return 0i - a; }
  return a / b;
}`,
  ),
  mx_imod: S(
    `fn mx_imod(a: i32, b: i32) -> i32 {
  if (b == 0i || b == -1i) { return 0i; }
  let r = a % b;
  if (r != 0i && (r ^ b) < 0i) { return r + b; }
  return r;
}`,
  ),
  mx_udiv: S('fn mx_udiv(a: u32, b: u32) -> u32 { if (b == 0u) { return 0u; } return a / b; }'),
  mx_umod: S('fn mx_umod(a: u32, b: u32) -> u32 { if (b == 0u) { return 0u; } return a % b; }'),
  mx_usqrt: S(
    `fn mx_usqrt(a: u32) -> u32 {
  var r = min(u32(sqrt(f32(a))), 65535u);
  while (r > 0u && r * r > a) { r = r - 1u; }
  while (r < 65535u && (r + 1u) * (r + 1u) <= a) { r = r + 1u; }
  return r;
}`,
  ),
  mx_isqrt: S(
    'fn mx_isqrt(a: i32) -> i32 { if (a <= 0i) { return 0i; } return i32(mx_usqrt(u32(a))); }',
    'mx_usqrt',
  ),
  // |base|^e as u32, or 0xffffffff when it overflows (e >= 0).
  mx_upowm: S(
    `fn mx_upowm(base: u32, e0: u32) -> u32 {
  if (e0 == 0u) { return 1u; }
  if (base <= 1u) { return base; }
  var e = e0; var b = base; var r = 1u;
  loop {
    if ((e & 1u) != 0u) {
      if (r > 0xffffffffu / b) { return 0xffffffffu; }
      r = r * b;
    }
    e = e >> 1u;
    if (e == 0u) { break; }
    if (b > 65535u) { return 0xffffffffu; }
    b = b * b;
  }
  return r;
}`,
  ),
  mx_upow: S('fn mx_upow(a: u32, b: u32) -> u32 { return mx_upowm(a, b); }', 'mx_upowm'),
  mx_ipow: S(
    `fn mx_ipow(a: i32, b: i32) -> i32 {
  if (b < 0i) {
    if (a == 1i) { return 1i; }
    if (a == -1i) { return select(1i, -1i, (b & 1i) != 0i); }
    if (a == 0i) { return 2147483647i; }
    return 0i;
  }
  let m = mx_upowm(u32(abs(a)), u32(b));
  let neg = a < 0i && (b & 1i) != 0i;
  if (!neg) { return select(i32(m), 2147483647i, m > 2147483647u); }
  if (m >= 2147483648u) { return -2147483647i - 1i; }
  return -i32(m);
}`,
    'mx_upowm',
  ),
  // Cast's float → integer conversion, as cpu-wasm's typed-array stores do it: truncate, wrap
  // modulo 2^32, NaN and infinities give 0.
  mx_f2u_wrap: S(
    `fn mx_f2u_wrap(x: f32) -> u32 {
  if (mx_isnan(x) || mx_isinf(x)) { return 0u; }
  let t = trunc(x);
  if (t >= 0.0 && t < 4294967296.0) { return u32(t); }
  if (t < 0.0 && t >= -2147483648.0) { return bitcast<u32>(i32(t)); }
  return u32(t - floor(t / 4294967296.0) * 4294967296.0);
}`,
    'mx_isnan',
    'mx_isinf',
  ),
  mx_f2i_wrap: S('fn mx_f2i_wrap(x: f32) -> i32 { return bitcast<i32>(mx_f2u_wrap(x)); }', 'mx_f2u_wrap'),
};
