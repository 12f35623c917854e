/**
 * WGSL scalar math for the elementwise compiler: our own f32 implementations rather than WGSL's
 * built-ins, whose accuracy and special-value behaviour (NaN, inf, negative arguments) the spec
 * leaves to the implementation and which differ between GPUs and SwiftShader. Each function is a
 * snippet with its dependencies; a shader includes only what its expression uses (`mathLib`).
 *
 * Algorithms: exp/log/sin/cos/tan/asin/atan from Cephes' single-precision library (≤ ~2 ulp);
 * expm1/log1p/sinh/arcsinh/... in cancellation-free forms; erf is cpu-wasm's float32 fit (Taylor
 * below 0.84375, exp(-x²)·Chebyshev above, see cpu-wasm codegen/js-math.ts); erfinv is Giles'
 * approximation plus a Newton step; lgamma/gamma use the Taylor series of lgamma around 2 (from
 * ζ(k)), the recurrence, Stirling's series above 8 and reflection below 0.5. Integer helpers give
 * mshadow's semantics (division by zero → 0, mod with the divisor's sign, saturating casts).
 * NaN/inf are built at run time (`mx_fbits`): WGSL rejects non-finite constant expressions.
 */
import { INT_LIB } from './math-int.js';
import { SPECIAL_LIB } from './math-special.js';
import { TRIG_LIB } from './math-trig.js';
import { S, type Snippet } from './snippet.js';

const LIB: Record<string, Snippet> = {
  mx_fbits: S('fn mx_fbits(b: u32) -> f32 { return bitcast<f32>(b); }'),
  mx_nan: S('fn mx_nan() -> f32 { return mx_fbits(0x7fc00000u); }', 'mx_fbits'),
  mx_inf: S('fn mx_inf() -> f32 { return mx_fbits(0x7f800000u); }', 'mx_fbits'),
  mx_isnan: S('fn mx_isnan(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }'),
  mx_isinf: S('fn mx_isinf(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u; }'),
  mx_copysign: S(
    'fn mx_copysign(a: f32, s: f32) -> f32 { return bitcast<f32>((bitcast<u32>(a) & 0x7fffffffu) | (bitcast<u32>(s) & 0x80000000u)); }',
  ),
  mx_f2i: S(
    `fn mx_f2i(x: f32) -> i32 {
  if (mx_isnan(x)) { return 0i; }
  if (x >= 2147483648.0) { return 2147483647i; }
  if (x <= -2147483648.0) { return -2147483647i - 1i; }
  return i32(x);
}`,
    'mx_isnan',
  ),
  mx_f2u: S(
    `fn mx_f2u(x: f32) -> u32 {
  if (mx_isnan(x) || x <= 0.0) { return 0u; }
  if (x >= 4294967296.0) { return 4294967295u; }
  return u32(x);
}`,
    'mx_isnan',
  ),
  // Results of float math converted to an integer dtype: a value a float32 rounding error below
  // an integer (in magnitude) counts as that integer before truncation — cpu-wasm computes these in
  // float64, where log10(1000) is exactly 3. Only within ~2 ulp and 1e-3, so large results (whose
  // float32 spacing is coarse) truncate as computed.
  mx_snap: S(
    'fn mx_snap(r: f32) -> f32 { let n = round(r); return select(r, n, abs(n) > abs(r) && abs(n - r) <= min(2.5e-7 * abs(r), 1e-3)); }',
  ),
  mx_ldexp: S(
    `fn mx_ldexp(p: f32, n: i32) -> f32 {
  let n1 = n / 2i; let n2 = n - n1;
  return p * bitcast<f32>(u32(n1 + 127i) << 23u) * bitcast<f32>(u32(n2 + 127i) << 23u);
}`,
  ),
  mx_sqrt: S('fn mx_sqrt(x: f32) -> f32 { if (x < 0.0) { return mx_nan(); } return sqrt(x); }', 'mx_nan'),
  mx_fmax: S(
    `fn mx_fmax(a: f32, b: f32) -> f32 {
  if (mx_isnan(a) || mx_isnan(b)) { return mx_nan(); }
  return select(b, a, a > b || (a == b && (bitcast<u32>(a) & 0x80000000u) == 0u));
}`,
    'mx_isnan',
    'mx_nan',
  ),
  mx_fmin: S(
    `fn mx_fmin(a: f32, b: f32) -> f32 {
  if (mx_isnan(a) || mx_isnan(b)) { return mx_nan(); }
  return select(b, a, a < b || (a == b && (bitcast<u32>(a) & 0x80000000u) != 0u));
}`,
    'mx_isnan',
    'mx_nan',
  ),
  mx_rint: S(
    'fn mx_rint(a: f32) -> f32 { let f = floor(a); let c = ceil(a); return select(c, f, (a - f) <= (c - a)); }',
  ),
  mx_round: S(
    'fn mx_round(a: f32) -> f32 { let t = trunc(a); return select(t, t + mx_copysign(1.0, a), abs(a - t) >= 0.5); }',
    'mx_copysign',
  ),
  mx_exp: S(
    `fn mx_exp(x: f32) -> f32 {
  if (mx_isnan(x)) { return x; }
  if (x > 88.72283935546875) { return mx_inf(); }
  if (x < -103.972084045410) { return 0.0; }
  let n = floor(x * 1.44269504088896341 + 0.5);
  let r = (x - n * 0.693359375) - n * -2.12194440e-4;
  let z = r * r;
  var p = 1.9875691500e-4;
  p = p * r + 1.3981999507e-3;
  p = p * r + 8.3334519073e-3;
  p = p * r + 4.1665795894e-2;
  p = p * r + 1.6666665459e-1;
  p = p * r + 5.0000001201e-1;
  p = p * z + r + 1.0;
  return mx_ldexp(p, i32(n));
}`,
    'mx_isnan',
    'mx_inf',
    'mx_ldexp',
  ),
  // log(x) = m + y + e·ln2 (Cephes logf): .x = e, .y = m, .z = y; .w = 1 when x is special
  // (then .z holds the result: NaN, ±inf).
  mx_logparts: S(
    `fn mx_logparts(x0: f32) -> vec4<f32> {
  var bits = bitcast<u32>(x0);
  if (mx_isnan(x0) || (bits > 0x80000000u)) { return vec4<f32>(0.0, 0.0, mx_nan(), 1.0); }
  if ((bits & 0x7fffffffu) == 0u) { return vec4<f32>(0.0, 0.0, -mx_inf(), 1.0); }
  if (mx_isinf(x0)) { return vec4<f32>(0.0, 0.0, x0, 1.0); }
  var e = i32(bits >> 23u) - 126i;
  if ((bits >> 23u) == 0u) {
    // Subnormal (bit arithmetic: devices may flush subnormal floats to zero).
    let s = countLeadingZeros(bits) - 8u;
    bits = bits << s;
    e = -125i - i32(s);
  }
  var m = bitcast<f32>((bits & 0x7fffffu) | 0x3f000000u);
  if (m < 0.707106781186547524) { e = e - 1i; m = m + m - 1.0; } else { m = m - 1.0; }
  let z = m * m;
  var p = 7.0376836292e-2;
  p = p * m - 1.1514610310e-1;
  p = p * m + 1.1676998740e-1;
  p = p * m - 1.2420140846e-1;
  p = p * m + 1.4249322787e-1;
  p = p * m - 1.6668057665e-1;
  p = p * m + 2.0000714765e-1;
  p = p * m - 2.4999993993e-1;
  p = p * m + 3.3333331174e-1;
  let y = p * m * z - 0.5 * z;
  return vec4<f32>(f32(e), m, y, 0.0);
}`,
    'mx_isnan',
    'mx_isinf',
    'mx_nan',
    'mx_inf',
  ),
  mx_log: S(
    `fn mx_log(x: f32) -> f32 {
  let q = mx_logparts(x);
  if (q.w != 0.0) { return q.z; }
  return (q.y + (q.z + q.x * -2.12194440e-4)) + q.x * 0.693359375;
}`,
    'mx_logparts',
  ),
  mx_log2: S(
    `fn mx_log2(x: f32) -> f32 {
  let q = mx_logparts(x);
  if (q.w != 0.0) { return q.z; }
  return (q.y * 1.44269504088896341 + q.z * 1.44269504088896341) + q.x;
}`,
    'mx_logparts',
  ),
  mx_log10: S(
    `fn mx_log10(x: f32) -> f32 {
  let q = mx_logparts(x);
  if (q.w != 0.0) { return q.z; }
  return ((q.z * 0.434294481903251828 + q.y * 0.434294481903251828) + q.x * 4.60503907e-6) + q.x * 0.30102539;
}`,
    'mx_logparts',
  ),
  mx_log1p: S(
    `fn mx_log1p(x: f32) -> f32 {
  let u = 1.0 + x;
  if (u == 1.0) { return x; }
  if (mx_isinf(u) || u <= 0.0) { return mx_log(u); }
  return mx_log(u) * (x / (u - 1.0));
}`,
    'mx_log',
    'mx_isinf',
  ),
  mx_expm1: S(
    `fn mx_expm1(x: f32) -> f32 {
  if (abs(x) < 0.5) {
    var p = 2.7557319224e-7;
    p = p * x + 2.7557319224e-6;
    p = p * x + 2.4801587302e-5;
    p = p * x + 1.9841269841e-4;
    p = p * x + 1.3888888889e-3;
    p = p * x + 8.3333333333e-3;
    p = p * x + 4.1666666667e-2;
    p = p * x + 1.6666666667e-1;
    p = p * x + 0.5;
    return x + x * x * p;
  }
  if (x < -20.0) { return -1.0; }
  return mx_exp(x) - 1.0;
}`,
    'mx_exp',
  ),
  ...TRIG_LIB,
  ...SPECIAL_LIB,
  ...INT_LIB,
};

/** WGSL source of `names` and everything they depend on, each once, dependencies first. */
export function mathLib(names: Iterable<string>): string {
  const done = new Set<string>();
  const out: string[] = [];
  const visit = (n: string): void => {
    if (done.has(n)) return;
    done.add(n);
    const s = LIB[n];
    if (s === undefined) throw new Error(`webgpu elementwise: no WGSL snippet '${n}'`);
    for (const d of s.deps) visit(d);
    out.push(s.code);
  };
  for (const n of names) visit(n);
  return out.join('\n');
}

/** Names of the `mx_*` functions a WGSL text calls. */
export function mathCalls(code: string): Set<string> {
  return new Set(code.match(/\bmx_[a-z0-9_]+(?=\()/g) ?? []);
}
