"""Golden cases for the optimizer family: the fused update operators (sgd_update, sgd_mom_update,
mp_sgd_update, mp_sgd_mom_update, nag_mom_update, adam_update, _adamw_update, _mp_adamw_update,
rmsprop_update, rmspropalex_update, ftrl_update, signsgd_update, signum_update,
lamb_update_phase1/2, multi_sgd_update, multi_sgd_mom_update, multi_mp_sgd_update,
multi_mp_sgd_mom_update) and multi_sum_sq.

Expected values are NumPy evaluations of MXNet's kernels (src/operator/optimizer_op-inl.h,
contrib/adamw-inl.h, contrib/multi_sum_sq), written here in MXNet's operation order and in the
array's precision (float32 arithmetic for float32 cases, float32 for every mixed-precision update):
- parameters are MXNet `float` fields: each is rounded to float32 first, also for float64 arrays;
- clipping is on when clip_gradient >= 0 and applies to rescale_grad*grad (sgd, nag, signum, mom
  forms) or to rescale_grad*grad + wd*weight (adam, rmsprop, rmspropalex);
- adam's epsilon is added to sqrt(var); rmsprop's inside the sqrt;
- _adamw_update takes rescale_grad as a one-element float32 array and skips the update when it is
  NaN (MXNet 1.x CPU): the output is then the weight and the states stay;
- lamb phase 1's beta^t is a double power rounded to the dtype; phase 2's bounds apply when >= 0
  and a zero r1 or r2 leaves lr unscaled.
Every update case lists `mutated`: the weight unchanged (the op writes a new output), the states
after the call. Bad-input cases check shape/type/parameter errors before anything runs.
Run: python3 tools/golden/ops/optimizer.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import arr, case, write  # noqa: E402

rng = np.random.default_rng(20240611)
cases = []
F32 = np.float32
SHAPES = [(3, 5), (33,)]
DTYPES = ['float32', 'float64']


def fp(x, dt):
    """An MXNet float parameter as a scalar of the compute dtype."""
    return np.dtype(dt).type(np.float32(x))


def clip(x, c):
    return np.minimum(np.maximum(x, -c), c)


def sign(x):
    return ((x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)).astype(x.dtype)


def rand(shape, dt, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(dt)


def shp(s):
    return 'x'.join(map(str, s)) or 'scalar'


def pname(params):
    keys = [k for k in params if k not in ('lr',)]
    return ','.join(f'{k}={params[k]}' for k in keys) or 'defaults'


def add(name, op, inputs, out, mutated, params, **kw):
    cases.append(case(name, op, inputs, [out], params=params,
                      mutated=[None if m is None else arr(m) for m in mutated], **kw))


# ---------------------------------------------------------------- sgd family

def sgd_ref(w, g, dt, lr, wd=0, rescale_grad=1, clip_gradient=-1, **_):
    lr, wd, rs, c = fp(lr, dt), fp(wd, dt), fp(rescale_grad, dt), fp(clip_gradient, dt)
    one = np.dtype(dt).type(1)
    if c >= 0:
        return (one - lr * wd) * w - lr * clip(rs * g, c)
    return (one - lr * wd) * w - (lr * rs) * g


def mom_ref(w, g, mom, dt, lr, momentum=0, wd=0, rescale_grad=1, clip_gradient=-1, **_):
    """MXNet SGDMomKernel / MP_SGDMomKernel / MultiSGDKernel (mom None: momentum-free multi form)."""
    lr, wd, rs, c = fp(lr, dt), fp(wd, dt), fp(rescale_grad, dt), fp(clip_gradient, dt)
    m = fp(momentum, dt)
    step = lr * clip(rs * g, c) if c >= 0 else (lr * rs) * g
    decayed = m * mom if mom is not None else np.zeros_like(w)
    mom2 = decayed - (lr * wd) * w - step
    return w + mom2, mom2


SGD_PARAMS = [
    {'lr': 0.1},
    {'lr': 0.05, 'wd': 0.01, 'rescale_grad': 0.5},
    {'lr': 0.1, 'wd': 0.001, 'rescale_grad': 2.0, 'clip_gradient': 0.7},
    {'lr': 0.2, 'clip_gradient': 0.0},
]


def sgd_cases():
    for dt in DTYPES:
        for s in SHAPES:
            for p in SGD_PARAMS:
                w, g = rand(s, dt), rand(s, dt)
                add(f'sgd_update/{dt}/{shp(s)}/{pname(p)}', 'sgd_update', [w, g],
                    sgd_ref(w, g, dt, **p), [w, None], p)
    w, g = rand((), 'float32'), rand((), 'float32')
    add('sgd_update/float32/scalar', 'sgd_update', [w, g], sgd_ref(w, g, 'float32', 0.3), [w, None],
        {'lr': 0.3})
    w, g = rand((4, 3), 'float32'), rand((4, 3), 'float32')
    p = {'lr': '0.1', 'wd': '0.01', 'rescale_grad': '0.5', 'clip_gradient': '-1', 'lazy_update': 'False'}
    add('sgd_update/string-params', 'sgd_update', [w, g], sgd_ref(w, g, 'float32', 0.1, 0.01, 0.5),
        [w, None], p)

    mom_params = [
        {'lr': 0.1},
        {'lr': 0.1, 'momentum': 0.9, 'wd': 0.01},
        {'lr': 0.05, 'momentum': 0.9, 'wd': 0.001, 'rescale_grad': 0.25, 'clip_gradient': 0.1},
    ]
    for dt in DTYPES:
        for s in SHAPES:
            for p in mom_params:
                w, g, m = rand(s, dt), rand(s, dt), rand(s, dt, 0.1)
                out, m2 = mom_ref(w, g, m, dt, **p)
                add(f'sgd_mom_update/{dt}/{shp(s)}/{pname(p)}', 'sgd_mom_update', [w, g, m], out,
                    [w, None, m2], p)
    # The trainer test's arithmetic (catalog 12.29): weight 0, summed gradient 2, SGD lr 1,
    # momentum .5 -> -2; with lr_mult .5 the next step -> -4.
    w, g, m = np.zeros((1,), F32), np.full((1,), 2, F32), np.zeros((1,), F32)
    out, m2 = mom_ref(w, g, m, 'float32', 1.0, 0.5)
    assert out[0] == -2
    add('sgd_mom_update/trainer-step-1', 'sgd_mom_update', [w, g, m], out, [w, None, m2],
        {'lr': 1.0, 'momentum': 0.5})
    out2, m3 = mom_ref(out, g, m2, 'float32', 0.5, 0.5)
    assert out2[0] == -4
    add('sgd_mom_update/trainer-step-2', 'sgd_mom_update', [out, g, m2], out2, [out, None, m3],
        {'lr': 0.5, 'momentum': 0.5})


def mp_cases():
    """mp_*: compute in float32 on weight32; the weight (float16/32/64) gets the cast result."""
    for wdt in ['float16', 'float32', 'float64']:
        for s in SHAPES:
            for p in SGD_PARAMS[1:3]:
                w32 = rand(s, F32)
                w = w32.astype(wdt)
                g = rand(s, wdt)
                new32 = sgd_ref(w32, g.astype(F32), 'float32', **p)
                tol = {'rtol': 1e-3, 'atol': 1e-3} if wdt == 'float16' else {'rtol': 1e-5, 'atol': 1e-6}
                add(f'mp_sgd_update/{wdt}/{shp(s)}/{pname(p)}', 'mp_sgd_update', [w, g, w32],
                    new32.astype(wdt), [w, None, new32], p, **tol)
            for p in [{'lr': 0.1, 'momentum': 0.9, 'wd': 0.01},
                      {'lr': 0.05, 'momentum': 0.5, 'rescale_grad': 0.5, 'clip_gradient': 0.2}]:
                w32 = rand(s, F32)
                w = w32.astype(wdt)
                g = rand(s, wdt)
                m = rand(s, F32, 0.1)
                new32, m2 = mom_ref(w32, g.astype(F32), m, 'float32', **p)
                tol = {'rtol': 1e-3, 'atol': 1e-3} if wdt == 'float16' else {'rtol': 1e-5, 'atol': 1e-6}
                add(f'mp_sgd_mom_update/{wdt}/{shp(s)}/{pname(p)}', 'mp_sgd_mom_update', [w, g, m, w32],
                    new32.astype(wdt), [w, None, m2, new32], p, **tol)


def nag_cases():
    params = [
        {'lr': 0.1},
        {'lr': 0.1, 'momentum': 0.9, 'wd': 0.01},
        {'lr': 0.05, 'momentum': 0.9, 'wd': 0.001, 'rescale_grad': 0.5, 'clip_gradient': 0.3},
    ]
    for dt in DTYPES:
        for s in SHAPES:
            for p in params:
                w, g, m = rand(s, dt), rand(s, dt), rand(s, dt, 0.1)
                lr, mo, wd = fp(p['lr'], dt), fp(p.get('momentum', 0), dt), fp(p.get('wd', 0), dt)
                rs, c = fp(p.get('rescale_grad', 1), dt), fp(p.get('clip_gradient', -1), dt)
                sg = rs * g
                gf = (clip(sg, c) if c >= 0 else sg) + wd * w
                m1 = mo * m
                out = (w - m1) + (mo + np.dtype(dt).type(1)) * (m1 - lr * gf)
                add(f'nag_mom_update/{dt}/{shp(s)}/{pname(p)}', 'nag_mom_update', [w, g, m], out,
                    [w, None, m1 - lr * gf], p)


# ---------------------------------------------------------------- adaptive

def adam_cases():
    params = [
        {'lr': 0.01},
        {'lr': 0.01, 'beta1': 0.8, 'beta2': 0.99, 'epsilon': 1e-6, 'wd': 0.01, 'rescale_grad': 0.5},
        {'lr': 0.001, 'wd': 0.1, 'clip_gradient': 0.5, 'lazy_update': False},
    ]
    for dt in DTYPES:
        for s in SHAPES:
            for p in params:
                w, g = rand(s, dt), rand(s, dt)
                mean, var = rand(s, dt, 0.1), np.abs(rand(s, dt, 0.1))
                lr, b1, b2 = fp(p['lr'], dt), fp(p.get('beta1', 0.9), dt), fp(p.get('beta2', 0.999), dt)
                eps, wd = fp(p.get('epsilon', 1e-8), dt), fp(p.get('wd', 0), dt)
                rs, c = fp(p.get('rescale_grad', 1), dt), fp(p.get('clip_gradient', -1), dt)
                one = np.dtype(dt).type(1)
                gr = g * rs + w * wd
                if c >= 0:
                    gr = clip(gr, c)
                m2 = b1 * mean + (one - b1) * gr
                v2 = b2 * var + ((one - b2) * gr) * gr
                out = w - (lr * m2) / (np.sqrt(v2) + eps)
                add(f'adam_update/{dt}/{shp(s)}/{pname(p)}', 'adam_update', [w, g, mean, var], out,
                    [w, None, m2, v2], p)


def adamw_ref(w, g, mean, var, rescale, dt, lr, eta, beta1=0.9, beta2=0.999, epsilon=1e-8, wd=0,
              clip_gradient=-1):
    lr, eta, b1, b2 = fp(lr, dt), fp(eta, dt), fp(beta1, dt), fp(beta2, dt)
    eps, wd, c = fp(epsilon, dt), fp(wd, dt), fp(clip_gradient, dt)
    # MXNet: scalar<DType>(1.f - param.beta1): the difference is taken in float32.
    omb1 = np.dtype(dt).type(np.float32(1) - np.float32(beta1))
    omb2 = np.dtype(dt).type(np.float32(1) - np.float32(beta2))
    gr = np.dtype(dt).type(np.float32(rescale)) * g
    if c >= 0:
        gr = clip(gr, c)
    m2 = b1 * mean + omb1 * gr
    v2 = b2 * var + omb2 * (gr * gr)
    out = w - eta * ((lr * m2) / (np.sqrt(v2) + eps) + wd * w)
    return out, m2, v2


def adamw_cases():
    params = [
        ({'lr': 0.01, 'eta': 1.0}, 1.0),
        ({'lr': 0.01, 'eta': 0.5, 'wd': 0.01, 'beta1': 0.8, 'epsilon': 1e-6}, 0.25),
        ({'lr': 0.001, 'eta': 1.0, 'wd': 0.1, 'clip_gradient': 0.2}, 2.0),
    ]
    for dt in DTYPES:
        for s in SHAPES:
            for p, rescale in params:
                w, g = rand(s, dt), rand(s, dt)
                mean, var = rand(s, dt, 0.1), np.abs(rand(s, dt, 0.1))
                r = np.array([rescale], F32)
                out, m2, v2 = adamw_ref(w, g, mean, var, rescale, dt, **p)
                add(f'_adamw_update/{dt}/{shp(s)}/{pname(p)},rescale={rescale}', '_adamw_update',
                    [w, g, mean, var, r], out, [w, None, m2, v2, r], p)
    # A NaN rescale_grad (a loss scaler's overflow signal) skips the update.
    w, g = rand((2, 3), F32), rand((2, 3), F32)
    mean, var = rand((2, 3), F32, 0.1), np.abs(rand((2, 3), F32, 0.1))
    r = np.array([np.nan], F32)
    add('_adamw_update/nan-rescale-skips', '_adamw_update', [w, g, mean, var, r], w,
        [w, g, mean, var, None], {'lr': 0.1, 'eta': 1.0})
    # The MXNet 1.x contrib name.
    w, g = rand((5,), F32), rand((5,), F32)
    mean, var = np.zeros((5,), F32), np.zeros((5,), F32)
    out, m2, v2 = adamw_ref(w, g, mean, var, 1.0, 'float32', 0.01, 1.0)
    add('_contrib_adamw_update/alias', '_contrib_adamw_update', [w, g, mean, var, np.ones((1,), F32)],
        out, [w, None, m2, v2, None], {'lr': 0.01, 'eta': 1.0})
    for wdt in ['float16', 'float32']:
        for s in SHAPES:
            p = {'lr': 0.01, 'eta': 0.5, 'wd': 0.01, 'clip_gradient': 0.5}
            w32 = rand(s, F32)
            w, g = w32.astype(wdt), rand(s, wdt)
            mean, var = rand(s, F32, 0.1), np.abs(rand(s, F32, 0.1))
            new32, m2, v2 = adamw_ref(w32, g.astype(F32), mean, var, 0.5, 'float32', **p)
            tol = {'rtol': 1e-3, 'atol': 1e-3} if wdt == 'float16' else {}
            add(f'_mp_adamw_update/{wdt}/{shp(s)}', '_mp_adamw_update',
                [w, g, mean, var, w32, np.array([0.5], F32)], new32.astype(wdt),
                [w, None, m2, v2, new32, None], p, **tol)


def rmsprop_cases():
    params = [
        {'lr': 0.01},
        {'lr': 0.01, 'gamma1': 0.9, 'epsilon': 1e-6, 'wd': 0.01, 'rescale_grad': 0.5},
        {'lr': 0.1, 'clip_gradient': 0.5, 'clip_weights': 0.8},
    ]
    for dt in DTYPES:
        for s in SHAPES:
            for p in params:
                w, g, n = rand(s, dt), rand(s, dt), np.abs(rand(s, dt, 0.5))
                lr, g1, eps = fp(p['lr'], dt), fp(p.get('gamma1', 0.95), dt), fp(p.get('epsilon', 1e-8), dt)
                wd, rs = fp(p.get('wd', 0), dt), fp(p.get('rescale_grad', 1), dt)
                c, cw = fp(p.get('clip_gradient', -1), dt), fp(p.get('clip_weights', -1), dt)
                one = np.dtype(dt).type(1)
                gr = rs * g + wd * w
                if c >= 0:
                    gr = clip(gr, c)
                n2 = (one - g1) * (gr * gr) + g1 * n
                out = w - lr * (gr / np.sqrt(n2 + eps))
                if cw >= 0:
                    out = clip(out, cw)
                add(f'rmsprop_update/{dt}/{shp(s)}/{pname(p)}', 'rmsprop_update', [w, g, n], out,
                    [w, None, n2], p)
    params = [
        {'lr': 0.01},
        {'lr': 0.01, 'gamma1': 0.9, 'gamma2': 0.8, 'epsilon': 1e-6, 'wd': 0.01, 'rescale_grad': 0.5},
        {'lr': 0.1, 'clip_gradient': 0.5, 'clip_weights': 0.8},
    ]
    for dt in DTYPES:
        for s in SHAPES:
            for p in params:
                w, g = rand(s, dt), rand(s, dt)
                ga = rand(s, dt, 0.3)
                n = ga * ga + np.abs(rand(s, dt, 0.5))  # a variance: n >= g_avg^2
                d = rand(s, dt, 0.1)
                lr, g1 = fp(p['lr'], dt), fp(p.get('gamma1', 0.95), dt)
                g2, eps = fp(p.get('gamma2', 0.9), dt), fp(p.get('epsilon', 1e-8), dt)
                wd, rs = fp(p.get('wd', 0), dt), fp(p.get('rescale_grad', 1), dt)
                c, cw = fp(p.get('clip_gradient', -1), dt), fp(p.get('clip_weights', -1), dt)
                one = np.dtype(dt).type(1)
                gr = rs * g + wd * w
                if c >= 0:
                    gr = clip(gr, c)
                n2 = ((one - g1) * gr) * gr + g1 * n
                ga2 = (one - g1) * gr + g1 * ga
                d2 = g2 * d - (lr * gr) / np.sqrt((n2 - ga2 * ga2) + eps)
                out = w + d2
                if cw >= 0:
                    out = clip(out, cw)
                add(f'rmspropalex_update/{dt}/{shp(s)}/{pname(p)}', 'rmspropalex_update',
                    [w, g, n, ga, d], out, [w, None, n2, ga2, d2], p)


def ftrl_cases():
    params = [
        {'lr': 0.1},
        {'lr': 0.1, 'lamda1': 0.5, 'beta': 0.5, 'wd': 0.01, 'rescale_grad': 0.5},
        {'lr': 0.05, 'lamda1': 0.2, 'clip_gradient': 0.5},
    ]
    for dt in DTYPES:
        for s in SHAPES:
            for p in params:
                w, g = rand(s, dt), rand(s, dt)
                z, n = rand(s, dt), np.abs(rand(s, dt))
                lr, l1, beta = fp(p['lr'], dt), fp(p.get('lamda1', 0.01), dt), fp(p.get('beta', 1), dt)
                wd, rs, c = fp(p.get('wd', 0), dt), fp(p.get('rescale_grad', 1), dt), fp(p.get('clip_gradient', -1), dt)
                gr = g * rs
                if c >= 0:
                    gr = clip(gr, c)
                z2 = z + (gr - ((np.sqrt(n + gr * gr) - np.sqrt(n)) * w) / lr)
                n2 = n + gr * gr
                out = ((sign(z2) * l1 - z2) / ((beta + np.sqrt(n2)) / lr + wd)) * \
                    (np.abs(z2) > l1).astype(dt)
                add(f'ftrl_update/{dt}/{shp(s)}/{pname(p)}', 'ftrl_update', [w, g, z, n], out,
                    [w, None, z2, n2], p)


def sign_cases():
    for dt in DTYPES:
        for s in SHAPES:
            for p in [{'lr': 0.1}, {'lr': 0.05, 'wd': 0.1, 'rescale_grad': 0.5, 'clip_gradient': 0.1}]:
                w, g = rand(s, dt), rand(s, dt)
                g.reshape(-1)[::5] = 0  # sign(0) = 0
                lr, wd = fp(p['lr'], dt), fp(p.get('wd', 0), dt)
                out = (np.dtype(dt).type(1) - lr * wd) * w - lr * sign(g)
                add(f'signsgd_update/{dt}/{shp(s)}/{pname(p)}', 'signsgd_update', [w, g], out, [w, None], p)
            for p in [{'lr': 0.1},
                      {'lr': 0.1, 'momentum': 0.9, 'wd': 0.01, 'wd_lh': 0.1},
                      {'lr': 0.05, 'momentum': 0.8, 'rescale_grad': 0.5, 'clip_gradient': 0.2, 'wd': 0.001}]:
                w, g, m = rand(s, dt), rand(s, dt), rand(s, dt, 0.1)
                g.reshape(-1)[::7] = 0
                if 'momentum' not in p:
                    m.reshape(-1)[::7] = 0  # mom' = -wd*w - g = 0 there: sign 0
                lr, mo, wd = fp(p['lr'], dt), fp(p.get('momentum', 0), dt), fp(p.get('wd', 0), dt)
                rs, c, wdlh = fp(p.get('rescale_grad', 1), dt), fp(p.get('clip_gradient', -1), dt), fp(p.get('wd_lh', 0), dt)
                one = np.dtype(dt).type(1)
                om = one - mo
                if c >= 0:
                    m2 = mo * m - (om * wd) * w - om * clip(rs * g, c)
                else:
                    m2 = mo * m - (om * wd) * w - (om * rs) * g
                out = (one - lr * wdlh) * w + lr * sign(m2)
                add(f'signum_update/{dt}/{shp(s)}/{pname(p)}', 'signum_update', [w, g, m], out,
                    [w, None, m2], p)


def lamb_cases():
    params = [
        {'t': 1, 'wd': 0.0},
        {'t': 3, 'wd': 0.01, 'beta1': 0.8, 'beta2': 0.99, 'epsilon': 1e-5, 'rescale_grad': 0.5},
        {'t': 5, 'wd': 0.1, 'bias_correction': False, 'clip_gradient': 0.3},
    ]
    for dt in DTYPES:
        typ = np.dtype(dt).type
        for s in SHAPES:
            for p in params:
                w, g = rand(s, dt), rand(s, dt)
                mean, var = rand(s, dt, 0.1), np.abs(rand(s, dt, 0.1))
                b1, b2 = fp(p.get('beta1', 0.9), dt), fp(p.get('beta2', 0.999), dt)
                eps, wd = fp(p.get('epsilon', 1e-6), dt), fp(p['wd'], dt)
                rs, c = fp(p.get('rescale_grad', 1), dt), fp(p.get('clip_gradient', -1), dt)
                t = p['t']
                one = typ(1)
                gr = g * rs
                if c >= 0:
                    gr = clip(gr, c)
                m2 = b1 * mean + (one - b1) * gr
                v2 = b2 * var + ((one - b2) * gr) * gr
                if p.get('bias_correction', True):
                    b1t = typ(float(np.float32(p.get('beta1', 0.9))) ** t)
                    b2t = typ(float(np.float32(p.get('beta2', 0.999))) ** t)
                    out = (m2 / (one - b1t)) / (np.sqrt(v2 / (one - b2t)) + eps) + wd * w
                else:
                    out = m2 / (np.sqrt(v2) + eps) + wd * w
                add(f'lamb_update_phase1/{dt}/{shp(s)}/{pname(p)}', 'lamb_update_phase1',
                    [w, g, mean, var], out, [w, None, m2, v2], p)
        for s in SHAPES:
            for p, r1v, r2v in [({'lr': 0.1}, 2.0, 4.0),
                                ({'lr': 0.1, 'lower_bound': 3.0}, 2.0, 4.0),
                                ({'lr': 0.1, 'upper_bound': 1.0}, 2.0, 4.0),
                                ({'lr': 0.1}, 0.0, 4.0),
                                ({'lr': 0.1}, 2.0, 0.0)]:
                w, g = rand(s, dt), rand(s, dt)
                r1, r2 = np.array([r1v], dt), np.array([r2v], dt)
                lr = fp(p['lr'], dt)
                nr1 = typ(r1v)
                if p.get('lower_bound', -1) >= 0:
                    nr1 = max(nr1, fp(p['lower_bound'], dt))
                if p.get('upper_bound', -1) >= 0:
                    nr1 = min(nr1, fp(p['upper_bound'], dt))
                if not (nr1 == 0 or r2v == 0):
                    lr = (lr * nr1) / typ(r2v)
                out = w - lr * g
                add(f'lamb_update_phase2/{dt}/{shp(s)}/{pname(p)},r1={r1v},r2={r2v}', 'lamb_update_phase2',
                    [w, g, r1, r2], out, [w, None, r1, r2], p)


# ---------------------------------------------------------------- multi

def multi_cases():
    shapes = [(3, 4), (7,), (2, 9)]
    for dt in DTYPES:
        for clip_g in [-1.0, 0.4]:
            n = len(shapes)
            lrs, wds = [0.1, 0.05, 0.2], [0.0, 0.01, 0.001]
            base = {'lrs': lrs, 'wds': wds, 'num_weights': n, 'rescale_grad': 0.5, 'clip_gradient': clip_g}
            ins, outs, mut = [], [], []
            for i, s in enumerate(shapes):
                w, g = rand(s, dt), rand(s, dt)
                out, _ = mom_ref(w, g, None, dt, lrs[i], 0, wds[i], 0.5, clip_g)
                ins += [w, g]
                outs.append(out)
                mut += [w, None]
            cases.append(case(f'multi_sgd_update/{dt}/clip={clip_g}', 'multi_sgd_update', ins, outs,
                              params=base, mutated=[None if m is None else arr(m) for m in mut]))
            p = dict(base, momentum=0.9)
            ins, outs, mut = [], [], []
            for i, s in enumerate(shapes):
                w, g, m = rand(s, dt), rand(s, dt), rand(s, dt, 0.1)
                out, m2 = mom_ref(w, g, m, dt, lrs[i], 0.9, wds[i], 0.5, clip_g)
                ins += [w, g, m]
                outs.append(out)
                mut += [w, None, m2]
            cases.append(case(f'multi_sgd_mom_update/{dt}/clip={clip_g}', 'multi_sgd_mom_update', ins, outs,
                              params=p, mutated=[None if m is None else arr(m) for m in mut]))
    for wdt in ['float16', 'float32']:
        tol = {'rtol': 1e-3, 'atol': 1e-3} if wdt == 'float16' else {}
        lrs, wds = [0.1, 0.05], [0.01, 0.0]
        base = {'lrs': lrs, 'wds': wds, 'num_weights': 2, 'clip_gradient': 0.5}
        ins, outs, mut = [], [], []
        for i, s in enumerate(shapes[:2]):
            w32 = rand(s, F32)
            w, g = w32.astype(wdt), rand(s, wdt)
            new32, _ = mom_ref(w32, g.astype(F32), None, 'float32', lrs[i], 0, wds[i], 1, 0.5)
            ins += [w, g, w32]
            outs.append(new32.astype(wdt))
            mut += [w, None, new32]
        cases.append(case(f'multi_mp_sgd_update/{wdt}', 'multi_mp_sgd_update', ins, outs, params=base,
                          mutated=[None if m is None else arr(m) for m in mut], **tol))
        p = dict(base, momentum=0.9, rescale_grad=0.25)
        ins, outs, mut = [], [], []
        for i, s in enumerate(shapes[:2]):
            w32 = rand(s, F32)
            w, g, m = w32.astype(wdt), rand(s, wdt), rand(s, F32, 0.1)
            new32, m2 = mom_ref(w32, g.astype(F32), m, 'float32', lrs[i], 0.9, wds[i], 0.25, 0.5)
            ins += [w, g, m, w32]
            outs.append(new32.astype(wdt))
            mut += [w, None, m2, new32]
        cases.append(case(f'multi_mp_sgd_mom_update/{wdt}', 'multi_mp_sgd_mom_update', ins, outs, params=p,
                          mutated=[None if m is None else arr(m) for m in mut], **tol))
    # One weight with the defaults (num_weights=1).
    w, g = rand((5,), F32), rand((5,), F32)
    out, _ = mom_ref(w, g, None, 'float32', 0.3, 0, 0.1)
    cases.append(case('multi_sgd_update/one-weight', 'multi_sgd_update', [w, g], [out],
                      params={'lrs': '(0.3,)', 'wds': '(0.1,)'}))


def sum_sq_cases():
    for dt in ['float32', 'float64', 'float16']:
        arrays = [rand((3, 4), dt), rand((37,), dt), rand((), dt), rand((2, 3, 5), dt)]
        sums = np.array([np.sum(a.astype(np.float64) ** 2) for a in arrays], F32)
        tol = {'rtol': 1e-5, 'atol': 1e-5} if dt != 'float64' else {'rtol': 1e-6, 'atol': 1e-6}
        cases.append(case(f'multi_sum_sq/{dt}', 'multi_sum_sq', arrays, [sums],
                          params={'num_arrays': len(arrays)}, **tol))
    a = rand((0,), F32)
    cases.append(case('multi_sum_sq/empty-array', 'multi_sum_sq', [a, np.ones((2,), F32)],
                      [np.array([0, 2], F32)], params={'num_arrays': 2}))


def error_cases():
    f = F32
    e = [
        ('sgd_update/error/grad-shape', 'sgd_update', [np.zeros((2, 3), f), np.zeros((3, 2), f)], {'lr': 0.1},
         'at 1-th input (grad): expected (2, 3), got (3, 2)'),
        ('sgd_mom_update/error/mom-shape', 'sgd_mom_update',
         [np.zeros((4,), f), np.zeros((4,), f), np.zeros((5,), f)], {'lr': 0.1},
         'Incompatible attr in node sgd_mom_update at 2-th input (mom): expected (4,), got (5,)'),
        ('adam_update/error/var-shape', 'adam_update',
         [np.zeros((2, 2), f)] * 3 + [np.zeros((2, 3), f)], {'lr': 0.1},
         'at 3-th input (var): expected (2, 2), got (2, 3)'),
        ('sgd_update/error/missing-lr', 'sgd_update', [np.zeros((2,), f)] * 2, {},
         'Required parameter lr of float is not presented'),
        ('adam_update/error/missing-lr', 'adam_update', [np.zeros((2,), f)] * 4, {'beta1': 0.9},
         'Required parameter lr of float is not presented'),
        ('_adamw_update/error/missing-eta', '_adamw_update', [np.zeros((2,), f)] * 4 + [np.ones((1,), f)],
         {'lr': 0.1}, 'Required parameter eta of float is not presented'),
        ('sgd_update/error/unknown-param', 'sgd_update', [np.zeros((2,), f)] * 2, {'lr': 0.1, 'momentum': 0.9},
         "Cannot find argument 'momentum'"),
        ('sgd_update/error/int-weight', 'sgd_update', [np.zeros((2,), np.int32)] * 2, {'lr': 0.1},
         'only support floating point types not int32'),
        ('sgd_update/error/grad-dtype', 'sgd_update', [np.zeros((2,), f), np.zeros((2,), np.float64)],
         {'lr': 0.1}, 'at 1-th input (grad): expected float32, got float64'),
        ('mp_sgd_update/error/weight32-dtype', 'mp_sgd_update',
         [np.zeros((2,), np.float16), np.zeros((2,), np.float16), np.zeros((2,), np.float64)], {'lr': 0.1},
         'Type inconsistent, Provided = float64, inferred type = float32'),
        ('mp_sgd_mom_update/error/weight32-shape', 'mp_sgd_mom_update',
         [np.zeros((3,), f)] * 3 + [np.zeros((4,), f)], {'lr': 0.1},
         'at 3-th input (weight32): expected (3,), got (4,)'),
        ('_adamw_update/error/rescale-size', '_adamw_update', [np.zeros((2,), f)] * 4 + [np.ones((2,), f)],
         {'lr': 0.1, 'eta': 1.0}, 'rescale_grad must hold exactly one value'),
        ('lamb_update_phase1/error/missing-t', 'lamb_update_phase1', [np.zeros((2,), f)] * 4, {'wd': 0.0},
         'Required parameter t of int is not presented'),
        ('lamb_update_phase2/error/r1-shape', 'lamb_update_phase2',
         [np.zeros((3,), f), np.zeros((3,), f), np.zeros((2,), f), np.zeros((1,), f)], {'lr': 0.1},
         'r1 shape incorrect'),
        ('multi_sgd_update/error/lrs-count', 'multi_sgd_update', [np.zeros((2,), f)] * 4,
         {'lrs': [0.1], 'wds': [0.0, 0.0], 'num_weights': 2},
         'Number of learning rates is inconsistent with num_weights'),
        ('multi_sgd_mom_update/error/wds-count', 'multi_sgd_mom_update', [np.zeros((2,), f)] * 3,
         {'lrs': [0.1], 'wds': [0.0, 0.0]}, 'Number of weight decays is inconsistent with num_weights'),
        ('multi_sgd_update/error/grad-shape', 'multi_sgd_update',
         [np.zeros((2,), f), np.zeros((2,), f), np.zeros((3,), f), np.zeros((4,), f)],
         {'lrs': [0.1, 0.1], 'wds': [0.0, 0.0], 'num_weights': 2},
         'at 3-th input (grad_1): expected (3,), got (4,)'),
        ('multi_sum_sq/error/mixed-dtypes', 'multi_sum_sq', [np.zeros((2,), f), np.zeros((2,), np.float64)],
         {'num_arrays': 2}, 'array_1 has type float64 but array_0 has float32'),
    ]
    for name, op, ins, params, msg in e:
        cases.append(case(name, op, ins, params=params, error=msg))


sgd_cases()
mp_cases()
nag_cases()
adam_cases()
adamw_cases()
rmsprop_cases()
ftrl_cases()
sign_cases()
lamb_cases()
multi_cases()
sum_sq_cases()
error_cases()
write('optimizer', cases)
