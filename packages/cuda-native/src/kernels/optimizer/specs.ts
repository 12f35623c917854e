/**
 * The element bodies of MXNet's optimizer kernels (optimizer_op-inl.h, contrib/adamw-inl.h) in
 * CUDA C, ported from cpu-wasm's specs in MXNet's operation order. Every product, sum, quotient
 * and square root goes through the `mx_*` helpers (`__fmul_rn`, `__dadd_rn`, ...), which the
 * compiler never contracts into FMAs, so float32 and float64 results round exactly as cpu-wasm's
 * do. `R` is the compute type (float, or double for float64 weights), `x_<slot>` the loaded
 * elements and `u_<name>` the per-call uniforms the host computes once (index.ts), e.g. sgd
 * without clipping is `(1 - lr*wd)*w - (lr*rescale_grad)*g`, with clipping
 * `(1 - lr*wd)*w - lr*clip(rescale_grad*g)`. The `mp` forms read the float32 master copy
 * `weight32` instead of the weight and store it as well as `out`.
 */
import type { UpdateSpec } from './update.js';

/** Variant flags. */
export const CLIP = 1;
/** rmsprop's clip_weights. */
export const CLIP_WEIGHTS = 2;
/** lamb phase 1's bias_correction. */
export const BIAS = 4;

const clipped = (fl: number, v: string, c = 'u_clip') => (fl & CLIP ? `mx_clip(${v}, ${c})` : v);

const step = (fl: number) =>
  fl & CLIP ? 'mx_mul(u_lr, mx_clip(mx_mul(u_rescale, x_grad), u_clip))' : 'mx_mul(u_lr_rescale, x_grad)';

/** sgd_update / mp_sgd_update: w' = (1 - lr*wd)*w - step. */
export function sgdSpec(mp: boolean): UpdateSpec {
  const w = mp ? 'x_weight32' : 'x_weight';
  return {
    key: mp ? 'mp_sgd' : 'sgd',
    slots: mp ? ['grad', 'weight32', 'out'] : ['weight', 'grad', 'out'],
    uniforms: ['lrwd1', 'lr', 'rescale', 'clip', 'lr_rescale'],
    body: (fl) => `const R w2 = mx_sub(mx_mul(u_lrwd1, ${w}), ${step(fl)});`,
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
      `const R m2 = mx_sub(mx_sub(${hasMom ? 'mx_mul(u_momentum, x_mom)' : '(R)0'}, mx_mul(u_lrwd, ${w})), ${step(fl)});
const R w2 = mx_add(${w}, m2);`,
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
  body: (fl) => `const R g = mx_add(${clipped(fl, 'mx_mul(u_rescale, x_grad)')}, mx_mul(u_wd, x_weight));
const R m1 = mx_mul(u_momentum, x_mom);
const R lg = mx_mul(u_lr, g);
const R w2 = mx_add(mx_sub(x_weight, m1), mx_mul(u_momentum1, mx_sub(m1, lg)));
const R m2 = mx_sub(m1, lg);`,
  stores: () => [
    ['mom', 'm2'],
    ['out', 'w2'],
  ],
};

export const ADAM: UpdateSpec = {
  key: 'adam',
  slots: ['weight', 'grad', 'mean', 'var', 'out'],
  uniforms: ['rescale', 'wd', 'clip', 'beta1', 'beta1c', 'beta2', 'beta2c', 'lr', 'epsilon'],
  body: (fl) => `const R g = ${clipped(fl, 'mx_add(mx_mul(x_grad, u_rescale), mx_mul(x_weight, u_wd))')};
const R mean = mx_add(mx_mul(u_beta1, x_mean), mx_mul(u_beta1c, g));
const R v = mx_add(mx_mul(u_beta2, x_var), mx_mul(mx_mul(u_beta2c, g), g));
const R w2 = mx_sub(x_weight, mx_div(mx_mul(u_lr, mean), mx_add(mx_sqrt(v), u_epsilon)));`,
  stores: () => [
    ['mean', 'mean'],
    ['var', 'v'],
    ['out', 'w2'],
  ],
};

/**
 * _adamw_update / _mp_adamw_update: w' = w - eta*(lr*m/(sqrt(v) + eps) + wd*w). rescale_grad is a
 * one-element device array read by every thread; a NaN skips the update (states stay, `out` gets
 * the weight under write), so the host never waits for it.
 */
export function adamWSpec(mp: boolean): UpdateSpec {
  const w = mp ? 'x_weight32' : 'x_weight';
  return {
    key: mp ? 'mp_adamw' : 'adamw',
    slots: mp
      ? ['weight', 'grad', 'mean', 'var', 'weight32', 'rescale', 'out']
      : ['weight', 'grad', 'mean', 'var', 'rescale', 'out'],
    scalars: ['rescale'],
    noLoad: mp ? ['weight'] : [],
    uniforms: ['clip', 'beta1', 'beta1c', 'beta2', 'beta2c', 'eta', 'lr', 'wd', 'epsilon'],
    skipIf: 'x_rescale != x_rescale',
    body: (fl) => `const R g = ${clipped(fl, 'mx_mul(x_rescale, x_grad)')};
const R mean = mx_add(mx_mul(u_beta1, x_mean), mx_mul(u_beta1c, g));
const R v = mx_add(mx_mul(u_beta2, x_var), mx_mul(u_beta2c, mx_mul(g, g)));
const R st = mx_add(mx_div(mx_mul(u_lr, mean), mx_add(mx_sqrt(v), u_epsilon)), mx_mul(u_wd, ${w}));
const R w2 = mx_sub(${w}, mx_mul(u_eta, st));`,
    stores: () => [
      ['mean', 'mean'],
      ['var', 'v'],
      ...(mp ? [['weight32', 'w2'] as const] : []),
      ['out', 'w2'],
    ],
  };
}

const clipW = (fl: number, v: string) => (fl & CLIP_WEIGHTS ? `mx_clip(${v}, u_cw)` : v);

export const RMSPROP: UpdateSpec = {
  key: 'rmsprop',
  slots: ['weight', 'grad', 'n', 'out'],
  uniforms: ['rescale', 'wd', 'clip', 'gamma1c', 'gamma1', 'lr', 'epsilon', 'cw'],
  body: (fl) => `const R g = ${clipped(fl, 'mx_add(mx_mul(u_rescale, x_grad), mx_mul(u_wd, x_weight))')};
const R n = mx_add(mx_mul(u_gamma1c, mx_mul(g, g)), mx_mul(u_gamma1, x_n));
const R w1 = mx_sub(x_weight, mx_mul(u_lr, mx_div(g, mx_sqrt(mx_add(n, u_epsilon)))));`,
  stores: (fl) => [
    ['n', 'n'],
    ['out', clipW(fl, 'w1')],
  ],
};

export const RMSPROP_ALEX: UpdateSpec = {
  key: 'rmspropalex',
  slots: ['weight', 'grad', 'n', 'g', 'delta', 'out'],
  uniforms: ['rescale', 'wd', 'clip', 'gamma1c', 'gamma1', 'gamma2', 'lr', 'epsilon', 'cw'],
  body: (fl) => `const R g = ${clipped(fl, 'mx_add(mx_mul(u_rescale, x_grad), mx_mul(u_wd, x_weight))')};
const R n = mx_add(mx_mul(mx_mul(u_gamma1c, g), g), mx_mul(u_gamma1, x_n));
const R ga = mx_add(mx_mul(u_gamma1c, g), mx_mul(u_gamma1, x_g));
const R den = mx_sqrt(mx_add(mx_sub(n, mx_mul(ga, ga)), u_epsilon));
const R d = mx_sub(mx_mul(u_gamma2, x_delta), mx_div(mx_mul(u_lr, g), den));
const R w1 = mx_add(x_weight, d);`,
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
  body: (fl) => `const R g = ${clipped(fl, 'mx_mul(x_grad, u_rescale)')};
const R gg = mx_mul(g, g);
const R sigma = mx_div(mx_mul(mx_sub(mx_sqrt(mx_add(x_n, gg)), mx_sqrt(x_n)), x_weight), u_lr);
const R z = mx_add(x_z, mx_sub(g, sigma));
const R n2 = mx_add(x_n, gg);
const R num = mx_sub(mx_mul(mx_sign(z), u_lamda1), z);
const R den = mx_add(mx_div(mx_add(u_beta, mx_sqrt(n2)), u_lr), u_wd);
const R w2 = mx_mul(mx_div(num, den), mx_gt(mx_abs(z), u_lamda1));`,
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
  body: () => 'const R w2 = mx_sub(mx_mul(u_lrwd1, x_weight), mx_mul(u_lr, mx_sign(x_grad)));',
  stores: () => [['out', 'w2']],
};

export const SIGNUM: UpdateSpec = {
  key: 'signum',
  slots: ['weight', 'grad', 'mom', 'out'],
  uniforms: ['momentum', 'mwd', 'mc', 'rescale', 'clip', 'mrescale', 'lrwdlh1', 'lr'],
  body: (
    fl,
  ) => `const R s = ${fl & CLIP ? 'mx_mul(u_mc, mx_clip(mx_mul(u_rescale, x_grad), u_clip))' : 'mx_mul(u_mrescale, x_grad)'};
const R m2 = mx_sub(mx_sub(mx_mul(u_momentum, x_mom), mx_mul(u_mwd, x_weight)), s);
const R w2 = mx_add(mx_mul(u_lrwdlh1, x_weight), mx_mul(u_lr, mx_sign(m2)));`,
  stores: () => [
    ['mom', 'm2'],
    ['out', 'w2'],
  ],
};

export const LAMB1: UpdateSpec = {
  key: 'lamb1',
  slots: ['weight', 'grad', 'mean', 'var', 'out'],
  uniforms: ['rescale', 'clip', 'beta1', 'beta1c', 'beta2', 'beta2c', 'beta1t', 'beta2t', 'epsilon', 'wd'],
  body: (fl) => `const R g = ${clipped(fl, 'mx_mul(x_grad, u_rescale)')};
const R mean = mx_add(mx_mul(u_beta1, x_mean), mx_mul(u_beta1c, g));
const R v = mx_add(mx_mul(u_beta2, x_var), mx_mul(mx_mul(u_beta2c, g), g));
const R mh = ${fl & BIAS ? 'mx_div(mean, u_beta1t)' : 'mean'};
const R vh = ${fl & BIAS ? 'mx_div(v, u_beta2t)' : 'v'};
const R w2 = mx_add(mx_div(mh, mx_add(mx_sqrt(vh), u_epsilon)), mx_mul(u_wd, x_weight));`,
  stores: () => [
    ['mean', 'mean'],
    ['var', 'v'],
    ['out', 'w2'],
  ],
};

/**
 * lamb_update_phase2: w' = w - lr*(r1/r2)*g with r1 clamped to [lower_bound, upper_bound] (bounds
 * >= 0 only; NaN stays NaN as in Math.max) and the ratio 1 when either norm is 0. The norms are
 * one-element device arrays, so the trust ratio is formed per thread (MXNet
 * LambUpdatePhaseTwoKernel) and the host never reads them.
 */
export const LAMB2: UpdateSpec = {
  key: 'lamb2',
  slots: ['weight', 'g', 'r1', 'r2', 'out'],
  scalars: ['r1', 'r2'],
  uniforms: ['lr', 'lb', 'ub'],
  body: () => `R r1 = x_r1;
if (u_lb >= (R)0) r1 = r1 < u_lb ? u_lb : r1;
if (u_ub >= (R)0) r1 = r1 > u_ub ? u_ub : r1;
const R lr = (r1 == (R)0 || x_r2 == (R)0) ? u_lr : mx_div(mx_mul(u_lr, r1), x_r2);
const R w2 = mx_sub(x_weight, mx_mul(lr, x_g));`,
  stores: () => [['out', 'w2']],
};
