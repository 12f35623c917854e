/**
 * WGSL math the layer and norm kernels share, written out instead of using the driver's builtins:
 * WebGPU only bounds exp/log to a few ULP plus an |x|-dependent term (SwiftShader computes them
 * through exp2/log2 with an absolute error near 2^-21 around 1), and has no expm1, log1p or erf.
 * These versions reduce the argument exactly (Cody–Waite split of ln 2, frexp) and evaluate short
 * polynomials, so they stay within a few float32 ULP everywhere — what the golden tolerances (rtol
 * 2e-5, and exact 0/0.5/1 for the softmax edge cases) need. exp(0) is exactly 1.
 */

export const MATH_WGSL = /* wgsl */ `
const MX_LN2_HI: f32 = 0.693145751953125;
const MX_LN2_LO: f32 = 1.4286067653e-6;
const MX_LOWEST: f32 = -0x1.fffffep+127f;
// Infinities and NaN as private vars: WGSL rejects non-finite constant expressions.
var<private> MX_INF_BITS: u32 = 0x7f800000u;
var<private> MX_NINF_BITS: u32 = 0xff800000u;
var<private> MX_NAN_BITS: u32 = 0x7fc00000u;

// exp via k = round(x / ln2), r = x - k ln2 (|r| <= 0.35), Taylor to r^8, scaled by 2^k in two steps.
fn mx_exp(x: f32) -> f32 {
  if (x != x) { return x; }
  if (x > 88.7228394) { return bitcast<f32>(MX_INF_BITS); }
  if (x < -103.972084) { return 0.0; }
  let k = round(x * 1.44269504);
  let r = (x - k * MX_LN2_HI) - k * MX_LN2_LO;
  let p = 1.0 + r * (1.0 + r * (0.5 + r * (0.166666667 + r * (0.0416666667 + r * (0.00833333333
    + r * (0.00138888889 + r * (0.000198412698 + r * 0.0000248015873)))))));
  let ki = i32(k);
  let h = ki / 2;
  return ldexp(ldexp(p, h), ki - h);
}

// expm1: Taylor for |x| < 0.5 (no cancellation), exp(x) - 1 beyond.
fn mx_expm1(x: f32) -> f32 {
  if (abs(x) < 0.5) {
    return x * (1.0 + x * (0.5 + x * (0.166666667 + x * (0.0416666667 + x * (0.00833333333
      + x * (0.00138888889 + x * (0.000198412698 + x * 0.0000248015873)))))));
  }
  return mx_exp(x) - 1.0;
}

// log1p of f in [-0.3, 0.42] through 2 atanh(f / (2 + f)).
fn mx_log1p_small(f: f32) -> f32 {
  let s = f / (2.0 + f);
  let z = s * s;
  return 2.0 * s * (1.0 + z * (0.333333333 + z * (0.2 + z * (0.142857143 + z * (0.111111111
    + z * (0.0909090909 + z * 0.0769230769))))));
}

// log: x = m 2^e with m in [sqrt(1/2), sqrt(2)), log = e ln2 + log1p(m - 1).
fn mx_log(x: f32) -> f32 {
  if (x != x || x < 0.0) { return bitcast<f32>(MX_NAN_BITS); }
  if (x == 0.0) { return bitcast<f32>(MX_NINF_BITS); }
  if (x == bitcast<f32>(MX_INF_BITS)) { return x; }
  let fr = frexp(x);
  var m = fr.fract;
  var e = f32(fr.exp);
  if (m < 0.707106781) { m = m * 2.0; e = e - 1.0; }
  return e * MX_LN2_HI + (mx_log1p_small(m - 1.0) + e * MX_LN2_LO);
}

fn mx_log1p(x: f32) -> f32 {
  if (x > -0.29 && x < 0.41) { return mx_log1p_small(x); }
  return mx_log(1.0 + x);
}

fn mx_tanh(x: f32) -> f32 {
  if (abs(x) > 9.0) { return sign(x); }
  let e = mx_expm1(2.0 * x);
  return e / (e + 2.0);
}

fn mx_sigmoid(x: f32) -> f32 { return 1.0 / (1.0 + mx_exp(-x)); }

// MXNet softrelu: x above 20, else log1p(exp(x)).
fn mx_softrelu(x: f32) -> f32 { return select(mx_log1p(mx_exp(x)), x, x > 20.0); }

// erfc with relative error < 1.2e-7 (Numerical Recipes' Chebyshev fit).
fn mx_erfc(x: f32) -> f32 {
  let z = abs(x);
  let t = 1.0 / (1.0 + 0.5 * z);
  let r = t * mx_exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418
    + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587
    + t * (-0.82215223 + t * 0.17087277)))))))));
  return select(2.0 - r, r, x >= 0.0);
}

// 1 + erf(x / sqrt 2) = erfc(-x / sqrt 2): accurate where it is small (x very negative).
fn mx_phi2(x: f32) -> f32 { return mx_erfc(-x * 0.707106781); }

fn mx_xelu(x: f32, s: f32) -> f32 { return select(x * s, x, x > 0.0); }

const MX_SELU_L: f32 = 1.05070099;
const MX_SELU_A: f32 = 1.67326324;
const MX_GELU_K: f32 = 0.0447149985;
const MX_SQRT_2_OVER_PI: f32 = 0.797884561;

fn mx_gelu_tanh(x: f32) -> f32 {
  let u = MX_SQRT_2_OVER_PI * (x + MX_GELU_K * (x * x * x));
  return 0.5 * x * (1.0 + mx_tanh(u));
}

fn mx_gelu_tanh_grad(g: f32, x: f32) -> f32 {
  let u = MX_SQRT_2_OVER_PI * (x + MX_GELU_K * (x * x * x));
  let c = mx_exp(u) + mx_exp(-u);
  let sech2 = 4.0 / (c * c);
  return g * (0.5 * (1.0 + mx_tanh(u)) + 0.5 * x * sech2 * MX_SQRT_2_OVER_PI * (1.0 + 3.0 * MX_GELU_K * x * x));
}

fn mx_gelu_erf_grad(g: f32, x: f32) -> f32 {
  return g * (0.5 * mx_phi2(x) + x * 0.398942280 * mx_exp(-0.5 * x * x));
}

fn mx_mish_grad(g: f32, x: f32) -> f32 {
  let t = mx_tanh(mx_softrelu(x));
  return g * (t + x * mx_sigmoid(x) * (1.0 - t * t));
}
`;
