/**
 * WGSL math the layer and norm kernels share, instead of the driver's builtins: WebGPU only bounds
 * exp/log to a few ULP plus an |x|-dependent term (SwiftShader computes them through exp2/log2 with
 * an absolute error near 2^-21 around 1), and has no expm1, log1p or erf. exp/expm1/log/log1p/tanh
 * are the elementwise family's implementations (one library for every kernel); the activation
 * helpers (sigmoid, softrelu, erfc, the GELU and mish gradients) are defined on top of them here.
 */
import { mathLib } from '../../elementwise/math.js';

export const MATH_WGSL = /* wgsl */ `${mathLib(['mx_exp', 'mx_expm1', 'mx_log', 'mx_log1p', 'mx_tanh'])}
const MX_LOWEST: f32 = -0x1.fffffep+127f;
// Infinities and NaN as private vars: WGSL rejects non-finite constant expressions.
var<private> MX_INF_BITS: u32 = 0x7f800000u;
var<private> MX_NINF_BITS: u32 = 0xff800000u;
var<private> MX_NAN_BITS: u32 = 0x7fc00000u;

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
