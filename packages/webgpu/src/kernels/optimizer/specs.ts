/**
 * The element bodies of MXNet's optimizer kernels (optimizer_op-inl.h, contrib/adamw-inl.h) in
 * WGSL, in MXNet's operation order so float32 results round as cpu-wasm's do (e.g. sgd without
 * clipping is `(1 - lr*wd)*w - (lr*rescale_grad)*g`, with clipping `(1 - lr*wd)*w -
 * lr*clip(rescale_grad*g)`). Products of parameters alone (lr*wd, 1 - beta1...) are uniforms the
 * host computes once per call in float32 (index.ts). The `mp` forms read the float32 master copy
 * `weight32` instead of the weight, as MXNet's MP kernels do, and store it as well as `out`.
 */
import type { UpdateSpec } from './update.js';

/** Variant flags. */
export const CLIP = 1;
/** rmsprop's clip_weights. */
export const CLIP_WEIGHTS = 2;
/** lamb phase 1's bias_correction. */
export const BIAS = 4;

const step = (fl: number, scale = 'u_lr', pre = 'u_lr_rescale') =>
  fl & CLIP ? `${scale} * clipv(u_rescale * x_grad, u_clip)` : `${pre} * x_grad`;

/** sgd_update / mp_sgd_update: w' = (1 - lr*wd)*w - step. */
export function sgdSpec(mp: boolean): UpdateSpec {
  const w = mp ? 'x_weight32' : 'x_weight';
  return {
    key: mp ? 'mp_sgd' : 'sgd',
    slots: mp ? ['grad', 'weight32', 'out'] : ['weight', 'grad', 'out'],
    uniforms: ['lrwd1', 'lr', 'rescale', 'clip', 'lr_rescale'],
    body: (fl) => `  let w2 = u_lrwd1 * ${w} - ${step(fl)};\n`,
    stores: () =>
      mp
        ? [
            ['weight32', 'w2'],
            ['out', 'w2'],
          ]
        : [['out', 'w2']],
  };
}

/**
 * MXNet's momentum kernels (SGDMomKernel, MP_SGDMomKernel, MultiSGDKernel):
 * mom' = momentum*mom - (lr*wd)*w - step; w' = w + mom'; without a mom slot momentum*mom is 0.
 */
export function momSpec(hasMom: boolean, mp: boolean): UpdateSpec {
  const slots = mp
    ? ['grad', ...(hasMom ? ['mom'] : []), 'weight32', 'out']
    : ['weight', 'grad', ...(hasMom ? ['mom'] : []), 'out'];
  const w = mp ? 'x_weight32' : 'x_weight';
  return {
    key: `mom${hasMom ? 'm' : ''}${mp ? 'p' : ''}`,
    slots,
    uniforms: ['momentum', 'lrwd', 'lr', 'rescale', 'clip', 'lr_rescale'],
    body: (fl) =>
      `  let m2 = (${hasMom ? 'u_momentum * x_mom' : '0.0'} - u_lrwd * ${w}) - ${step(fl)};
  let w2 = ${w} + m2;\n`,
    stores: () => [
      ...(hasMom ? [['mom', 'm2'] as const] : []),
      ...(mp ? [['weight32', 'w2'] as const] : []),
      ['out', 'w2'],
    ],
  };
}

export const NAG: UpdateSpec = {
  key: 'nag',
  slots: ['weight', 'grad', 'mom', 'out'],
  uniforms: ['momentum', 'momentum1', 'lr', 'wd', 'rescale', 'clip'],
  body: (fl) => `  let sg = u_rescale * x_grad;
  let g = ${fl & CLIP ? 'clipv(sg, u_clip)' : 'sg'} + u_wd * x_weight;
  let m1 = u_momentum * x_mom;
  let lg = u_lr * g;
  let w2 = (x_weight - m1) + u_momentum1 * (m1 - lg);
  let m2 = m1 - lg;\n`,
  stores: () => [
    ['mom', 'm2'],
    ['out', 'w2'],
  ],
};

export const ADAM: UpdateSpec = {
  key: 'adam',
  slots: ['weight', 'grad', 'mean', 'var', 'out'],
  uniforms: ['rescale', 'wd', 'clip', 'beta1', 'beta1c', 'beta2', 'beta2c', 'lr', 'epsilon'],
  body: (fl) => `  let g0 = x_grad * u_rescale + x_weight * u_wd;
  let g = ${fl & CLIP ? 'clipv(g0, u_clip)' : 'g0'};
  let mean = u_beta1 * x_mean + u_beta1c * g;
  let v = u_beta2 * x_var + (u_beta2c * g) * g;
  let w2 = x_weight - (u_lr * mean) / (sqrt(v) + u_epsilon);\n`,
  stores: () => [
    ['mean', 'mean'],
    ['var', 'v'],
    ['out', 'w2'],
  ],
};

/** _adamw_update / _mp_adamw_update: w' = w - eta*(lr*m/(sqrt(v) + eps) + wd*w); NaN rescale skips. */
export function adamWSpec(mp: boolean): UpdateSpec {
  const w = mp ? 'x_weight32' : 'x_weight';
  return {
    key: mp ? 'mp_adamw' : 'adamw',
    slots: mp
      ? ['weight', 'grad', 'mean', 'var', 'weight32', 'rescale', 'out']
      : ['weight', 'grad', 'mean', 'var', 'rescale', 'out'],
    scalars: ['rescale'],
    uniforms: ['clip', 'beta1', 'beta1c', 'beta2', 'beta2c', 'eta', 'lr', 'wd', 'epsilon'],
    skipIf: 'isnanf(x_rescale)',
    body: (fl) => `  let g0 = x_rescale * x_grad;
  let g = ${fl & CLIP ? 'clipv(g0, u_clip)' : 'g0'};
  let mean = u_beta1 * x_mean + u_beta1c * g;
  let v = u_beta2 * x_var + u_beta2c * (g * g);
  let st = (u_lr * mean) / (sqrt(v) + u_epsilon) + u_wd * ${w};
  let w2 = ${w} - u_eta * st;\n`,
    stores: () => [
      ['mean', 'mean'],
      ['var', 'v'],
      ...(mp ? [['weight32', 'w2'] as const] : []),
      ['out', 'w2'],
    ],
  };
}

const clipW = (fl: number, v: string) => (fl & CLIP_WEIGHTS ? `clipv(${v}, u_cw)` : v);

export const RMSPROP: UpdateSpec = {
  key: 'rmsprop',
  slots: ['weight', 'grad', 'n', 'out'],
  uniforms: ['rescale', 'wd', 'clip', 'gamma1c', 'gamma1', 'lr', 'epsilon', 'cw'],
  body: (fl) => `  let g0 = u_rescale * x_grad + u_wd * x_weight;
  let g = ${fl & CLIP ? 'clipv(g0, u_clip)' : 'g0'};
  let n = u_gamma1c * (g * g) + u_gamma1 * x_n;
  let w1 = x_weight - u_lr * (g / sqrt(n + u_epsilon));\n`,
  stores: (fl) => [
    ['n', 'n'],
    ['out', clipW(fl, 'w1')],
  ],
};

export const RMSPROP_ALEX: UpdateSpec = {
  key: 'rmspropalex',
  slots: ['weight', 'grad', 'n', 'g', 'delta', 'out'],
  uniforms: ['rescale', 'wd', 'clip', 'gamma1c', 'gamma1', 'gamma2', 'lr', 'epsilon', 'cw'],
  body: (fl) => `  let g0 = u_rescale * x_grad + u_wd * x_weight;
  let g = ${fl & CLIP ? 'clipv(g0, u_clip)' : 'g0'};
  let n = (u_gamma1c * g) * g + u_gamma1 * x_n;
  let ga = u_gamma1c * g + u_gamma1 * x_g;
  let den = sqrt((n - ga * ga) + u_epsilon);
  let d = u_gamma2 * x_delta - (u_lr * g) / den;
  let w1 = x_weight + d;\n`,
  stores: (fl) => [
    ['n', 'n'],
    ['g', 'ga'],
    ['delta', 'd'],
    ['out', clipW(fl, 'w1')],
  ],
};

export const FTRL: UpdateSpec = {
  key: 'ftrl',
  slots: ['weight', 'grad', 'z', 'n', 'out'],
  uniforms: ['rescale', 'clip', 'lr', 'lamda1', 'beta', 'wd'],
  body: (fl) => `  let g0 = x_grad * u_rescale;
  let g = ${fl & CLIP ? 'clipv(g0, u_clip)' : 'g0'};
  let gg = g * g;
  let sigma = ((sqrt(x_n + gg) - sqrt(x_n)) * x_weight) / u_lr;
  let z = x_z + (g - sigma);
  let n2 = x_n + gg;
  let num = sgn(z) * u_lamda1 - z;
  let den = (u_beta + sqrt(n2)) / u_lr + u_wd;
  let w2 = (num / den) * select(0.0, 1.0, abs(z) > u_lamda1);\n`,
  stores: () => [
    ['z', 'z'],
    ['n', 'n2'],
    ['out', 'w2'],
  ],
};

/** signsgd_update (clip_gradient has no effect, as in MXNet). */
export const SIGNSGD: UpdateSpec = {
  key: 'signsgd',
  slots: ['weight', 'grad', 'out'],
  uniforms: ['lrwd1', 'lr'],
  body: () => '  let w2 = u_lrwd1 * x_weight - u_lr * sgn(x_grad);\n',
  stores: () => [['out', 'w2']],
};

export const SIGNUM: UpdateSpec = {
  key: 'signum',
  slots: ['weight', 'grad', 'mom', 'out'],
  uniforms: ['momentum', 'mwd', 'mc', 'rescale', 'clip', 'mrescale', 'lrwdlh1', 'lr'],
  body: (fl) => `  let s = ${fl & CLIP ? 'u_mc * clipv(u_rescale * x_grad, u_clip)' : 'u_mrescale * x_grad'};
  let m2 = (u_momentum * x_mom - u_mwd * x_weight) - s;
  let w2 = u_lrwdlh1 * x_weight + u_lr * sgn(m2);\n`,
  stores: () => [
    ['mom', 'm2'],
    ['out', 'w2'],
  ],
};

export const LAMB1: UpdateSpec = {
  key: 'lamb1',
  slots: ['weight', 'grad', 'mean', 'var', 'out'],
  uniforms: ['rescale', 'clip', 'beta1', 'beta1c', 'beta2', 'beta2c', 'beta1t', 'beta2t', 'epsilon', 'wd'],
  body: (fl) => `  let g0 = x_grad * u_rescale;
  let g = ${fl & CLIP ? 'clipv(g0, u_clip)' : 'g0'};
  let mean = u_beta1 * x_mean + u_beta1c * g;
  let v = u_beta2 * x_var + (u_beta2c * g) * g;
  let mh = ${fl & BIAS ? 'mean / u_beta1t' : 'mean'};
  let vh = ${fl & BIAS ? 'v / u_beta2t' : 'v'};
  let w2 = mh / (sqrt(vh) + u_epsilon) + u_wd * x_weight;\n`,
  stores: () => [
    ['mean', 'mean'],
    ['var', 'v'],
    ['out', 'w2'],
  ],
};

/**
 * lamb_update_phase2: w' = w - lr*(r1/r2)*g with r1 clamped to [lower_bound, upper_bound] (bounds
 * >= 0 only) and the ratio 1 when either norm is 0. The norms are one-element arrays on the device,
 * so the trust ratio is formed in the shader (MXNet LambUpdatePhaseTwoKernel).
 */
export const LAMB2: UpdateSpec = {
  key: 'lamb2',
  slots: ['weight', 'g', 'r1', 'r2', 'out'],
  scalars: ['r1', 'r2'],
  uniforms: ['lr', 'lb', 'ub'],
  body: () => `  var r1 = x_r1;
  if (u_lb >= 0.0) { r1 = max(r1, u_lb); }
  if (u_ub >= 0.0) { r1 = min(r1, u_ub); }
  let lr = select((u_lr * r1) / x_r2, u_lr, r1 == 0.0 || x_r2 == 0.0);
  let w2 = x_weight - lr * x_g;\n`,
  stores: () => [['out', 'w2']],
};
