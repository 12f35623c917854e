/**
 * The element bodies of MXNet's optimizer kernels (optimizer_op-inl.h, contrib/adamw-inl.h), in
 * MXNet's operation order so float32 results round as MXNet's do: e.g. sgd without clipping is
 * `(1 - lr*wd)*w - (lr*rescale_grad)*g` but with clipping `(1 - lr*wd)*w - lr*clip(rescale_grad*g)`.
 * Products of parameters alone (lr*wd, 1 - beta1, ...) are uniforms computed once per call by the
 * kernels (index.ts) in the compute precision.
 *
 * Slot orders are the pointer orders of the compiled modules; the `mp` forms read the float32
 * master weight instead of the weight (MXNet's MP kernels never read the low-precision weight).
 */
import { type Body, clip } from './arith.js';
import type { UpdateSpec } from './fused.js';

/** Variant flags. */
export const CLIP = 1;
/** rmsprop's clip_weights. */
export const CLIP_WEIGHTS = 2;
/** lamb phase 1's bias_correction. */
export const BIAS = 4;

/**
 * SGD (`sgd_update`, `mp_sgd_update`): w' = (1 - lr*wd)*w - step.
 * Slots: weight, grad, out — or grad, weight32, out (mp: weight32 is stored too).
 */
export function sgdSpec(mp: boolean): UpdateSpec {
  const [W, G, OUT] = mp ? [1, 0, 2] : [0, 1, 2];
  const body: Body = (a, fl) => {
    const g = a.x(G);
    const step =
      fl & CLIP ? a.mul(a.p('lr'), clip(a, a.mul(a.p('rescale'), g), 'clip')) : a.mul(a.p('lr*rescale'), g);
    const w = a.sub(a.mul(a.p('1-lr*wd'), a.x(W)), step);
    return mp ? [[W, w] as const, [OUT, w] as const] : [[OUT, w] as const];
  };
  return {
    key: mp ? 'mp_sgd' : 'sgd',
    slots: 3,
    out: OUT,
    uniforms: ['1-lr*wd', 'lr', 'rescale', 'clip', '-clip', 'lr*rescale'],
    body,
  };
}

/**
 * MXNet's momentum kernels (SGDMomKernel, MP_SGDMomKernel, MultiSGDKernel):
 * mom' = momentum*mom - (lr*wd)*w - step; w' = w + mom'. Without a mom slot (multi_sgd, multi_mp_sgd)
 * momentum*mom is 0. Slots: weight, grad, [mom], out — or grad, [mom], weight32, out for mp.
 */
export function momSpec(hasMom: boolean, mp: boolean): UpdateSpec {
  const slots = mp
    ? ['grad', ...(hasMom ? ['mom'] : []), 'weight32', 'out']
    : ['weight', 'grad', ...(hasMom ? ['mom'] : []), 'out'];
  const W = slots.indexOf(mp ? 'weight32' : 'weight');
  const G = slots.indexOf('grad');
  const M = slots.indexOf('mom');
  const OUT = slots.indexOf('out');
  const body: Body = (a, fl) => {
    const w = a.x(W);
    const g = a.x(G);
    const step =
      fl & CLIP ? a.mul(a.p('lr'), clip(a, a.mul(a.p('rescale'), g), 'clip')) : a.mul(a.p('lr*rescale'), g);
    const decayed = hasMom ? a.mul(a.p('momentum'), a.x(M)) : a.c(0);
    const mom = a.sub(a.sub(decayed, a.mul(a.p('lr*wd'), w)), step);
    const w2 = a.add(w, mom);
    const stores: [number, typeof w][] = [];
    if (hasMom) stores.push([M, mom]);
    if (mp) stores.push([W, w2]);
    stores.push([OUT, w2]);
    return stores;
  };
  return {
    key: `mom${hasMom ? 'm' : ''}${mp ? 'p' : ''}`,
    slots: slots.length,
    out: OUT,
    uniforms: ['momentum', 'lr*wd', 'lr', 'rescale', 'clip', '-clip', 'lr*rescale'],
    body,
  };
}

/** nag_mom_update. Slots: weight, grad, mom, out. */
export const NAG: UpdateSpec = {
  key: 'nag',
  slots: 4,
  out: 3,
  uniforms: ['momentum', 'momentum+1', 'lr', 'wd', 'rescale', 'clip', '-clip'],
  body: (a, fl) => {
    const w = a.x(0);
    const sg = a.mul(a.p('rescale'), a.x(1));
    const g = a.add(fl & CLIP ? clip(a, sg, 'clip') : sg, a.mul(a.p('wd'), w));
    const m1 = a.mul(a.p('momentum'), a.x(2));
    const lg = a.mul(a.p('lr'), g);
    const out = a.add(a.sub(w, m1), a.mul(a.p('momentum+1'), a.sub(m1, lg)));
    return [
      [2, a.sub(m1, lg)],
      [3, out],
    ];
  },
};

/** adam_update. Slots: weight, grad, mean, var, out. */
export const ADAM: UpdateSpec = {
  key: 'adam',
  slots: 5,
  out: 4,
  uniforms: ['rescale', 'wd', 'clip', '-clip', 'beta1', '1-beta1', 'beta2', '1-beta2', 'lr', 'epsilon'],
  body: (a, fl) => {
    const w = a.x(0);
    const g0 = a.add(a.mul(a.x(1), a.p('rescale')), a.mul(w, a.p('wd')));
    const g = fl & CLIP ? clip(a, g0, 'clip') : g0;
    const mean = a.add(a.mul(a.p('beta1'), a.x(2)), a.mul(a.p('1-beta1'), g));
    const v = a.add(a.mul(a.p('beta2'), a.x(3)), a.mul(a.mul(a.p('1-beta2'), g), g));
    const out = a.sub(w, a.div(a.mul(a.p('lr'), mean), a.add(a.sqrt(v), a.p('epsilon'))));
    return [
      [2, mean],
      [3, v],
      [4, out],
    ];
  },
};

/**
 * AdamW (`_adamw_update`, `_mp_adamw_update`): w' = w - eta*(lr*m/(sqrt(v) + eps) + wd*w).
 * Slots: weight, grad, mean, var, out — or grad, mean, var, weight32, out for mp.
 */
export function adamWSpec(mp: boolean): UpdateSpec {
  const [W, G, MEAN, VAR, OUT] = mp ? [3, 0, 1, 2, 4] : [0, 1, 2, 3, 4];
  return {
    key: mp ? 'mp_adamw' : 'adamw',
    slots: 5,
    out: OUT,
    uniforms: [
      'rescale',
      'clip',
      '-clip',
      'beta1',
      '1-beta1',
      'beta2',
      '1-beta2',
      'eta',
      'lr',
      'wd',
      'epsilon',
    ],
    body: (a, fl) => {
      const w = a.x(W);
      const g0 = a.mul(a.p('rescale'), a.x(G));
      const g = fl & CLIP ? clip(a, g0, 'clip') : g0;
      const mean = a.add(a.mul(a.p('beta1'), a.x(MEAN)), a.mul(a.p('1-beta1'), g));
      const v = a.add(a.mul(a.p('beta2'), a.x(VAR)), a.mul(a.p('1-beta2'), a.mul(g, g)));
      const step = a.add(
        a.div(a.mul(a.p('lr'), mean), a.add(a.sqrt(v), a.p('epsilon'))),
        a.mul(a.p('wd'), w),
      );
      const w2 = a.sub(w, a.mul(a.p('eta'), step));
      const stores: [number, typeof w][] = [
        [MEAN, mean],
        [VAR, v],
      ];
      if (mp) stores.push([W, w2]);
      stores.push([OUT, w2]);
      return stores;
    },
  };
}

/** rmsprop_update. Slots: weight, grad, n, out. */
export const RMSPROP: UpdateSpec = {
  key: 'rmsprop',
  slots: 4,
  out: 3,
  uniforms: ['rescale', 'wd', 'clip', '-clip', '1-gamma1', 'gamma1', 'lr', 'epsilon', 'cw', '-cw'],
  body: (a, fl) => {
    const w = a.x(0);
    const g0 = a.add(a.mul(a.p('rescale'), a.x(1)), a.mul(a.p('wd'), w));
    const g = fl & CLIP ? clip(a, g0, 'clip') : g0;
    const n = a.add(a.mul(a.p('1-gamma1'), a.mul(g, g)), a.mul(a.p('gamma1'), a.x(2)));
    const w1 = a.sub(w, a.mul(a.p('lr'), a.div(g, a.sqrt(a.add(n, a.p('epsilon'))))));
    return [
      [2, n],
      [3, fl & CLIP_WEIGHTS ? clip(a, w1, 'cw') : w1],
    ];
  },
};

/** rmspropalex_update. Slots: weight, grad, n, g, delta, out. */
export const RMSPROP_ALEX: UpdateSpec = {
  key: 'rmspropalex',
  slots: 6,
  out: 5,
  uniforms: ['rescale', 'wd', 'clip', '-clip', '1-gamma1', 'gamma1', 'gamma2', 'lr', 'epsilon', 'cw', '-cw'],
  body: (a, fl) => {
    const w = a.x(0);
    const g0 = a.add(a.mul(a.p('rescale'), a.x(1)), a.mul(a.p('wd'), w));
    const g = fl & CLIP ? clip(a, g0, 'clip') : g0;
    const n = a.add(a.mul(a.mul(a.p('1-gamma1'), g), g), a.mul(a.p('gamma1'), a.x(2)));
    const gAvg = a.add(a.mul(a.p('1-gamma1'), g), a.mul(a.p('gamma1'), a.x(3)));
    const denom = a.sqrt(a.add(a.sub(n, a.mul(gAvg, gAvg)), a.p('epsilon')));
    const delta = a.sub(a.mul(a.p('gamma2'), a.x(4)), a.div(a.mul(a.p('lr'), g), denom));
    const w1 = a.add(w, delta);
    return [
      [2, n],
      [3, gAvg],
      [4, delta],
      [5, fl & CLIP_WEIGHTS ? clip(a, w1, 'cw') : w1],
    ];
  },
};

/** ftrl_update. Slots: weight, grad, z, n, out. */
export const FTRL: UpdateSpec = {
  key: 'ftrl',
  slots: 5,
  out: 4,
  uniforms: ['rescale', 'clip', '-clip', 'lr', 'lamda1', 'beta', 'wd'],
  body: (a, fl) => {
    const w = a.x(0);
    const g0 = a.mul(a.x(1), a.p('rescale'));
    const g = fl & CLIP ? clip(a, g0, 'clip') : g0;
    const n = a.x(3);
    const gg = a.mul(g, g);
    const sigma = a.div(a.mul(a.sub(a.sqrt(a.add(n, gg)), a.sqrt(n)), w), a.p('lr'));
    const z = a.add(a.x(2), a.sub(g, sigma));
    const n2 = a.add(n, gg);
    const num = a.sub(a.mul(a.sign(z), a.p('lamda1')), z);
    const den = a.add(a.div(a.add(a.p('beta'), a.sqrt(n2)), a.p('lr')), a.p('wd'));
    const out = a.mul(a.div(num, den), a.gt(a.abs(z), a.p('lamda1')));
    return [
      [2, z],
      [3, n2],
      [4, out],
    ];
  },
};

/** signsgd_update (clip_gradient has no effect, as in MXNet). Slots: weight, grad, out. */
export const SIGNSGD: UpdateSpec = {
  key: 'signsgd',
  slots: 3,
  out: 2,
  uniforms: ['1-lr*wd', 'lr'],
  body: (a) => [[2, a.sub(a.mul(a.p('1-lr*wd'), a.x(0)), a.mul(a.p('lr'), a.sign(a.x(1))))]],
};

/** signum_update. Slots: weight, grad, mom, out. */
export const SIGNUM: UpdateSpec = {
  key: 'signum',
  slots: 4,
  out: 3,
  uniforms: [
    'momentum',
    '(1-momentum)*wd',
    '1-momentum',
    'rescale',
    'clip',
    '-clip',
    '(1-momentum)*rescale',
    '1-lr*wd_lh',
    'lr',
  ],
  body: (a, fl) => {
    const w = a.x(0);
    const g = a.x(1);
    const step =
      fl & CLIP
        ? a.mul(a.p('1-momentum'), clip(a, a.mul(a.p('rescale'), g), 'clip'))
        : a.mul(a.p('(1-momentum)*rescale'), g);
    const mom = a.sub(a.sub(a.mul(a.p('momentum'), a.x(2)), a.mul(a.p('(1-momentum)*wd'), w)), step);
    const out = a.add(a.mul(a.p('1-lr*wd_lh'), w), a.mul(a.p('lr'), a.sign(mom)));
    return [
      [2, mom],
      [3, out],
    ];
  },
};

/** lamb_update_phase1 (output: the update direction g). Slots: weight, grad, mean, var, out. */
export const LAMB1: UpdateSpec = {
  key: 'lamb1',
  slots: 5,
  out: 4,
  uniforms: [
    'rescale',
    'clip',
    '-clip',
    'beta1',
    '1-beta1',
    'beta2',
    '1-beta2',
    '1-beta1^t',
    '1-beta2^t',
    'epsilon',
    'wd',
  ],
  body: (a, fl) => {
    const w = a.x(0);
    const g0 = a.mul(a.x(1), a.p('rescale'));
    const g = fl & CLIP ? clip(a, g0, 'clip') : g0;
    const mean = a.add(a.mul(a.p('beta1'), a.x(2)), a.mul(a.p('1-beta1'), g));
    const v = a.add(a.mul(a.p('beta2'), a.x(3)), a.mul(a.mul(a.p('1-beta2'), g), g));
    const m = fl & BIAS ? a.div(mean, a.p('1-beta1^t')) : mean;
    const vh = fl & BIAS ? a.div(v, a.p('1-beta2^t')) : v;
    const out = a.add(a.div(m, a.add(a.sqrt(vh), a.p('epsilon'))), a.mul(a.p('wd'), w));
    return [
      [2, mean],
      [3, v],
      [4, out],
    ];
  },
};

/** lamb_update_phase2 with the trust ratio folded into `lr` by the caller. Slots: weight, g, out. */
export const LAMB2: UpdateSpec = {
  key: 'lamb2',
  slots: 3,
  out: 2,
  uniforms: ['lr'],
  body: (a) => [[2, a.sub(a.x(0), a.mul(a.p('lr'), a.x(1)))]],
};
