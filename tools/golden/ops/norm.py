"""Golden cases for the normalisation family: BatchNorm (alias _npx_batch_norm), LayerNorm (alias
_npx_layer_norm), InstanceNorm, GroupNorm and their _backward_* ops.

Expected values are NumPy float64 evaluations of MXNet's definitions on the (rounded) inputs:
  * BatchNorm: channel axis `axis` (default 1); training mode (isTrain, no use_global_stats) uses
    the batch mean and the biased batch variance, otherwise moving_mean/moving_var;
    out = (x - mean) / sqrt(var + eps) * gamma + beta with gamma = 1 when fix_gamma (default);
    hidden outputs mean and the *inverse* std 1/sqrt(var + eps) (visible with output_mean_var);
    training mode updates moving = moving * momentum + batch * (1 - momentum) (biased variance,
    MXNet's CPU formula), checked through `mutated`. Defaults eps 1e-3, momentum 0.9.
  * _backward_BatchNorm(ograd, mean, invstd, data, gamma, beta, moving_mean, moving_var): in
    training mode dx = (g - mean(g) - (x - mean) invstd² mean(g (x - mean))) invstd w, otherwise
    dx = g invstd w with the moving statistics; dgamma = Σ g (x - mean) invstd (0 with fix_gamma),
    dbeta = Σ g over the non-channel axes.
  * LayerNorm over `axis` (default -1): hidden mean and std = sqrt(var + eps), data's shape with
    the axis set to 1; eps 1e-5. _backward_LayerNorm(ograd, data, gamma, mean, std).
  * InstanceNorm: per (sample, channel) over the trailing axes, eps 1e-3; hidden mean and var of
    shape (N, C). _backward_InstanceNorm(ograd, mean, var, data, gamma) (the legacy op's order).
  * GroupNorm: (N, G, C/G, ...) groups, per-channel gamma/beta (MXNet 2.0), eps 1e-5; hidden mean
    and std of shape (N, G). _backward_GroupNorm(ograd, data, gamma, mean, std).
Every backward formula is checked here against central differences of the NumPy forward.

The smallest cases of each forward op are plain training/normal-mode cases: the conformance
gradient check runs each op's smallest cases, and outputs whose gradients MXNet blocks
(output_mean_var) or inputs it does not differentiate (BatchNorm's moving statistics, which
eval mode reads) would not match central differences there.

Run: python3 tools/golden/ops/norm.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import arr, case, write  # noqa: E402

RNG = np.random.default_rng(20240612)
FAMILY = 'norm'
CASES = []

TOLS = {
    'float32': dict(rtol=1e-5, atol=2e-6),
    'float64': dict(rtol=1e-10, atol=1e-12),
}
# Gradients cancel (g - mean(g) - ...), so float32 gets an absolute slack.
GTOLS = {
    'float32': dict(rtol=1e-4, atol=2e-5),
    'float64': dict(rtol=1e-9, atol=1e-11),
}


def add(*args, **kw):
    CASES.append(case(*args, **kw))


def rnd(shape, dtype, lo=-2.0, hi=2.0, offset=0.0):
    return (RNG.uniform(lo, hi, size=shape) + offset).astype(dtype)


def f64(a):
    return np.asarray(a, dtype=np.float64)


# ---------------------------------------------------------------- references

def bn_ref(x, gamma, beta, mm, mv, eps=1e-3, momentum=0.9, fix_gamma=True, axis=1,
           train=True, use_global_stats=False):
    x, gamma, beta, mm, mv = map(f64, (x, gamma, beta, mm, mv))
    a = axis % x.ndim
    red = tuple(i for i in range(x.ndim) if i != a)
    bshape = [1] * x.ndim
    bshape[a] = x.shape[a]
    w = np.ones_like(gamma) if fix_gamma else gamma
    if train and not use_global_stats:
        mean = x.mean(axis=red)
        var = ((x - mean.reshape(bshape)) ** 2).mean(axis=red)
        new_mm = mm * momentum + mean * (1 - momentum)
        new_mv = mv * momentum + var * (1 - momentum)
    else:
        mean, var = mm, mv
        new_mm, new_mv = mm, mv
    invstd = 1.0 / np.sqrt(var + eps)
    out = (x - mean.reshape(bshape)) * invstd.reshape(bshape) * w.reshape(bshape) + beta.reshape(bshape)
    return out, mean, invstd, new_mm, new_mv


def bn_backward_ref(g, mean, invstd, x, gamma, mm, mv, eps=1e-3, fix_gamma=True, axis=1,
                    train=True, use_global_stats=False):
    g, mean, invstd, x, gamma, mm, mv = map(f64, (g, mean, invstd, x, gamma, mm, mv))
    a = axis % x.ndim
    red = tuple(i for i in range(x.ndim) if i != a)
    bshape = [1] * x.ndim
    bshape[a] = x.shape[a]
    n = x.size // x.shape[a]
    if not (train and not use_global_stats):
        mean = mm
        invstd = 1.0 / np.sqrt(mv + eps)
    w = np.ones_like(gamma) if fix_gamma else gamma
    xc = x - mean.reshape(bshape)
    sg = g.sum(axis=red)
    sgx = (g * xc).sum(axis=red)
    iw = (invstd * w).reshape(bshape)
    if train and not use_global_stats:
        k = (sgx * invstd * invstd / n).reshape(bshape)
        dx = (g - (sg / n).reshape(bshape) - xc * k) * iw
    else:
        dx = g * iw
    dgamma = np.zeros_like(gamma) if fix_gamma else sgx * invstd
    return dx, dgamma, sg


def ln_ref(x, gamma, beta, axis=-1, eps=1e-5):
    x, gamma, beta = map(f64, (x, gamma, beta))
    a = axis % x.ndim
    bshape = [1] * x.ndim
    bshape[a] = x.shape[a]
    mean = x.mean(axis=a, keepdims=True)
    std = np.sqrt(((x - mean) ** 2).mean(axis=a, keepdims=True) + eps)
    out = (x - mean) / std * gamma.reshape(bshape) + beta.reshape(bshape)
    return out, mean, std


def ln_backward_ref(g, x, gamma, mean, std, axis=-1):
    g, x, gamma, mean, std = map(f64, (g, x, gamma, mean, std))
    a = axis % x.ndim
    bshape = [1] * x.ndim
    bshape[a] = x.shape[a]
    red = tuple(i for i in range(x.ndim) if i != a)
    xh = (x - mean) / std
    w = g * gamma.reshape(bshape) / std
    dx = w - w.mean(axis=a, keepdims=True) - xh * (w * xh).mean(axis=a, keepdims=True)
    return dx, (g * xh).sum(axis=red), g.sum(axis=red)


def gn_ref(x, gamma, beta, groups, eps):
    """(out, mean, var) with mean/var of shape (N, G)."""
    x, gamma, beta = map(f64, (x, gamma, beta))
    n, c = x.shape[:2]
    xg = x.reshape(n, groups, -1)
    mean = xg.mean(axis=2)
    var = ((xg - mean[:, :, None]) ** 2).mean(axis=2)
    xh = ((xg - mean[:, :, None]) / np.sqrt(var + eps)[:, :, None]).reshape(x.shape)
    bshape = [1, c] + [1] * (x.ndim - 2)
    return xh * gamma.reshape(bshape) + beta.reshape(bshape), mean, var


def gn_backward_ref(g, x, gamma, mean, var, groups, eps):
    g, x, gamma, mean, var = map(f64, (g, x, gamma, mean, var))
    n, c = x.shape[:2]
    bshape = [1, c] + [1] * (x.ndim - 2)
    r = 1.0 / np.sqrt(var + eps)
    xg = x.reshape(n, groups, -1)
    xh = ((xg - mean[:, :, None]) * r[:, :, None]).reshape(x.shape)
    dxh = (g * gamma.reshape(bshape)).reshape(n, groups, -1)
    xhg = xh.reshape(n, groups, -1)
    dx = r[:, :, None] * (dxh - dxh.mean(axis=2, keepdims=True)
                          - xhg * (dxh * xhg).mean(axis=2, keepdims=True))
    red = tuple(i for i in range(x.ndim) if i != 1)
    return dx.reshape(x.shape), (g * xh).sum(axis=red), g.sum(axis=red)


# ---------------------------------------------------------------- self-check of the gradients

def numeric_grad(f, xs, i, h=1e-6):
    """d Σ f(xs) / d xs[i] by central differences (f returns the scalar objective)."""
    x = xs[i]
    grad = np.zeros_like(x)
    it = np.nditer(x, flags=['multi_index'])
    for _ in it:
        j = it.multi_index
        old = x[j]
        x[j] = old + h
        fp = f(*xs)
        x[j] = old - h
        fm = f(*xs)
        x[j] = old
        grad[j] = (fp - fm) / (2 * h)
    return grad


def self_check():
    rng = np.random.default_rng(1)
    for axis, fix_gamma in ((1, False), (-1, True), (0, False)):
        x = rng.normal(size=(3, 4, 2))
        gm = rng.normal(size=(x.shape[axis],))
        bt = rng.normal(size=gm.shape)
        mm = rng.normal(size=gm.shape)
        mv = rng.uniform(0.5, 2, size=gm.shape)
        head = rng.normal(size=x.shape)
        for train in (True, False):
            def f(x, gm, bt):
                return (bn_ref(x, gm, bt, mm, mv, fix_gamma=fix_gamma, axis=axis, train=train)[0] * head).sum()
            _, mean, invstd, _, _ = bn_ref(x, gm, bt, mm, mv, fix_gamma=fix_gamma, axis=axis, train=train)
            dx, dg, db = bn_backward_ref(head, mean, invstd, x, gm, mm, mv, fix_gamma=fix_gamma, axis=axis,
                                         train=train)
            for i, want in enumerate((dx, dg, db)):
                got = numeric_grad(f, [x.copy(), gm.copy(), bt.copy()], i)
                assert np.allclose(got, want, rtol=1e-5, atol=1e-6), ('bn', axis, train, i)
    for axis in (-1, 1):
        x = rng.normal(size=(2, 3, 4))
        gm = rng.normal(size=(x.shape[axis],))
        bt = rng.normal(size=gm.shape)
        head = rng.normal(size=x.shape)

        def f(x, gm, bt):
            return (ln_ref(x, gm, bt, axis=axis)[0] * head).sum()
        _, mean, std = ln_ref(x, gm, bt, axis=axis)
        want = ln_backward_ref(head, x, gm, mean, std, axis=axis)
        for i in range(3):
            got = numeric_grad(f, [x.copy(), gm.copy(), bt.copy()], i)
            assert np.allclose(got, want[i], rtol=1e-5, atol=1e-6), ('ln', axis, i)
    for groups in (1, 2, 4):
        x = rng.normal(size=(2, 4, 3))
        gm = rng.normal(size=(4,))
        bt = rng.normal(size=(4,))
        head = rng.normal(size=x.shape)

        def f(x, gm, bt):
            return (gn_ref(x, gm, bt, groups, 1e-5)[0] * head).sum()
        _, mean, var = gn_ref(x, gm, bt, groups, 1e-5)
        want = gn_backward_ref(head, x, gm, mean, var, groups, 1e-5)
        for i in range(3):
            got = numeric_grad(f, [x.copy(), gm.copy(), bt.copy()], i)
            assert np.allclose(got, want[i], rtol=1e-5, atol=1e-6), ('gn', groups, i)


# ---------------------------------------------------------------- BatchNorm

def bn_inputs(shape, axis, dtype, offset=0.0):
    c = shape[axis % len(shape)]
    x = rnd(shape, dtype, offset=offset)
    gamma = rnd((c,), dtype, 0.5, 1.5)
    beta = rnd((c,), dtype, -0.5, 0.5)
    mm = rnd((c,), dtype, -0.5, 0.5)
    mv = rnd((c,), dtype, 0.5, 1.5)
    return x, gamma, beta, mm, mv


def bn_case(name, shape, dtype='float32', train=True, offset=0.0, op='BatchNorm', strings=None, **params):
    """`strings`: the params as MXNet strings (symbol JSON attrs) given to the op instead."""
    axis = params.get('axis', 1)
    x, gamma, beta, mm, mv = bn_inputs(shape, axis, dtype, offset)
    kw = {k: params[k] for k in ('eps', 'momentum', 'fix_gamma', 'axis', 'use_global_stats') if k in params}
    out, mean, invstd, new_mm, new_mv = bn_ref(x, gamma, beta, mm, mv, train=train, **kw)
    outs = [arr(out, dtype)]
    if params.get('output_mean_var'):
        outs += [arr(mean, dtype), arr(invstd, dtype)]
    extra = {}
    if train:
        extra['isTrain'] = True
        extra['mutated'] = [None, None, None, arr(new_mm, dtype), arr(new_mv, dtype)]
    tol = dict(TOLS[dtype])
    if offset:
        tol['atol'] = max(tol['atol'], 1e-5 if dtype == 'float32' else 1e-11)
    add(name, op, [x, gamma, beta, mm, mv], outs, params=strings or params, **tol, **extra)


def bn_backward_case(name, shape, dtype='float32', train=True, **params):
    axis = params.get('axis', 1)
    x, gamma, beta, mm, mv = bn_inputs(shape, axis, dtype)
    kw = {k: params[k] for k in ('eps', 'fix_gamma', 'axis', 'use_global_stats') if k in params}
    _, mean, invstd, _, _ = bn_ref(x, gamma, beta, mm, mv, train=train, **kw)
    mean = mean.astype(dtype)
    invstd = invstd.astype(dtype)
    g = rnd(shape, dtype, -1, 1)
    dx, dg, db = bn_backward_ref(g, mean, invstd, x, gamma, mm, mv, train=train, **kw)
    extra = {'isTrain': True} if train else {}
    add(name, '_backward_BatchNorm', [g, mean, invstd, x, gamma, beta, mm, mv],
        [arr(dx, dtype), arr(dg, dtype), arr(db, dtype)], params=params, **GTOLS[dtype], **extra)


def batch_norm_cases():
    # Small plain training-mode cases first (the gradient check's picks).
    bn_case('bn_train_fix_gamma_f64', (2, 3, 2), 'float64')
    bn_case('bn_train_gamma_f64', (3, 2, 2), 'float64', fix_gamma=False)
    bn_case('bn_train_channel_last_f64', (4, 3), 'float64', axis=-1, fix_gamma=False)
    for dt in ('float32', 'float64'):
        s = dt[-2:]
        bn_case(f'bn_train_nchw_{s}', (2, 3, 4, 5), dt, fix_gamma=False)
        bn_case(f'bn_train_runs_{s}', (2, 3, 4, 6), dt, fix_gamma=False, momentum=0.8)
        bn_case(f'bn_eval_nchw_{s}', (2, 3, 4, 5), dt, train=False, fix_gamma=False)
        bn_case(f'bn_eval_fix_gamma_mean_var_{s}', (2, 3, 4, 5), dt, train=False, output_mean_var=True)
        bn_case(f'bn_train_mean_var_{s}', (2, 4, 3, 3), dt, fix_gamma=False, output_mean_var=True, eps=1e-5)
        bn_case(f'bn_train_nhwc_{s}', (2, 3, 4, 8), dt, axis=-1, fix_gamma=False)
        bn_case(f'bn_train_axis2_{s}', (2, 3, 4, 2), dt, axis=2, fix_gamma=False)
        bn_case(f'bn_train_2d_{s}', (8, 5), dt, fix_gamma=False)
        bn_case(f'bn_train_fold_tail_{s}', (35, 3), dt, axis=-1, fix_gamma=False, momentum=0.5)
        bn_case(f'bn_train_global_stats_{s}', (2, 3, 4), dt, fix_gamma=False, use_global_stats=True)
        bn_case(f'bn_train_axis0_{s}', (3, 2, 4), dt, axis=0, fix_gamma=False, eps=0.01)
    bn_case('bn_npx_alias_train', (2, 3, 3), 'float32', op='_npx_batch_norm', fix_gamma=False)
    bn_case('bn_train_long_runs_offset_f32', (4, 3, 20, 20), 'float32', fix_gamma=False, offset=5.0)
    bn_case('bn_train_long_columns_offset_f32', (300, 6), 'float32', axis=-1, fix_gamma=False, offset=3.0)
    bn_case('bn_train_string_params', (2, 3, 2), 'float32', fix_gamma=False, eps=0.01, momentum=0.75,
            strings={'eps': '0.01', 'momentum': '0.75', 'fix_gamma': 'False', 'axis': '1',
                     'cudnn_off': 'True', 'min_calib_range': 'None', 'output_mean_var': '0'})

    for dt in ('float32', 'float64'):
        s = dt[-2:]
        bn_backward_case(f'bn_backward_train_{s}', (2, 3, 4, 5), dt, fix_gamma=False)
        bn_backward_case(f'bn_backward_train_fix_gamma_{s}', (2, 3, 4, 5), dt)
        bn_backward_case(f'bn_backward_eval_{s}', (2, 3, 4, 5), dt, train=False, fix_gamma=False)
        bn_backward_case(f'bn_backward_nhwc_{s}', (2, 3, 4, 8), dt, axis=-1, fix_gamma=False)
        bn_backward_case(f'bn_backward_2d_{s}', (8, 5), dt, fix_gamma=False)
        bn_backward_case(f'bn_backward_runs_{s}', (2, 3, 4, 6), dt, fix_gamma=False)
        bn_backward_case(f'bn_backward_global_stats_{s}', (2, 3, 4), dt, fix_gamma=False,
                         use_global_stats=True)
    bn_backward_case('bn_backward_fold_tail_f32', (35, 3), 'float32', axis=-1, fix_gamma=False)

    x, gamma, beta, mm, mv = bn_inputs((2, 3, 4), 1, 'float32')
    add('bn_error_gamma_shape', 'BatchNorm', [x, gamma[:2], beta, mm, mv], error='Shape inconsistent')
    add('bn_error_moving_var_shape', 'BatchNorm', [x, gamma, beta, mm, np.ones(4, np.float32)],
        error='moving_var')
    add('bn_error_axis', 'BatchNorm', [x, gamma, beta, mm, mv], params={'axis': 3},
        error='Channel axis out of range')
    add('bn_error_axis_negative', 'BatchNorm', [x, gamma, beta, mm, mv], params={'axis': -4},
        error='Channel axis out of range')
    add('bn_error_int_data', 'BatchNorm', [x.astype(np.int32), gamma, beta, mm, mv],
        error='only supports floating point')
    add('bn_error_param_dtype', 'BatchNorm', [x, gamma.astype(np.float64), beta, mm, mv],
        error='gamma must have dtype float32')
    add('bn_backward_error_gamma_shape', '_backward_BatchNorm',
        [x, mm, mv, x, gamma[:1], beta, mm, mv], error='Shape inconsistent')


# ---------------------------------------------------------------- LayerNorm

def ln_case(name, shape, dtype='float32', offset=0.0, op='LayerNorm', **params):
    axis = params.get('axis', -1)
    c = shape[axis % len(shape)]
    x = rnd(shape, dtype, offset=offset)
    gamma = rnd((c,), dtype, 0.5, 1.5)
    beta = rnd((c,), dtype, -0.5, 0.5)
    kw = {k: params[k] for k in ('axis', 'eps') if k in params}
    out, mean, std = ln_ref(x, gamma, beta, **kw)
    outs = [arr(out, dtype)]
    if params.get('output_mean_var'):
        outs += [arr(mean, dtype), arr(std, dtype)]
    tol = dict(TOLS[dtype])
    if offset:
        tol['atol'] = max(tol['atol'], 2e-5 if dtype == 'float32' else 1e-11)
    add(name, op, [x, gamma, beta], outs, params=params, **tol)


def ln_backward_case(name, shape, dtype='float32', **params):
    axis = params.get('axis', -1)
    c = shape[axis % len(shape)]
    x = rnd(shape, dtype)
    gamma = rnd((c,), dtype, 0.5, 1.5)
    beta = rnd((c,), dtype, -0.5, 0.5)
    _, mean, std = ln_ref(x, gamma, beta, **{k: params[k] for k in ('axis', 'eps') if k in params})
    mean = mean.astype(dtype)
    std = std.astype(dtype)
    g = rnd(shape, dtype, -1, 1)
    dx, dg, db = ln_backward_ref(g, x, gamma, mean, std, axis=axis)
    add(name, '_backward_LayerNorm', [g, x, gamma, mean, std], [arr(dx, dtype), arr(dg, dtype), arr(db, dtype)],
        params=params, **GTOLS[dtype])


def layer_norm_cases():
    ln_case('ln_last_f64', (2, 3), 'float64')
    ln_case('ln_axis0_f64', (3, 2), 'float64', axis=0)
    ln_case('ln_axis1_f64', (2, 3, 2), 'float64', axis=1)
    for dt in ('float32', 'float64'):
        s = dt[-2:]
        ln_case(f'ln_last_{s}', (2, 3, 8), dt)
        ln_case(f'ln_last_long_{s}', (3, 37), dt, eps=1e-3)
        ln_case(f'ln_mean_var_{s}', (2, 3, 5), dt, output_mean_var=True)
        ln_case(f'ln_axis1_{s}', (2, 5, 3), dt, axis=1)
        ln_case(f'ln_axis_m2_mean_var_{s}', (2, 4, 3, 5), dt, axis=-2, output_mean_var=True)
        ln_case(f'ln_axis0_{s}', (4, 6), dt, axis=0)
    ln_case('ln_npx_alias', (2, 4), 'float32', op='_npx_layer_norm')
    ln_case('ln_long_rows_offset_f32', (8, 300), 'float32', offset=4.0)
    for dt in ('float32', 'float64'):
        s = dt[-2:]
        ln_backward_case(f'ln_backward_last_{s}', (2, 3, 8), dt)
        ln_backward_case(f'ln_backward_long_{s}', (5, 37), dt)
        ln_backward_case(f'ln_backward_axis1_{s}', (2, 5, 3), dt, axis=1)
        ln_backward_case(f'ln_backward_axis0_{s}', (4, 6), dt, axis=0, eps=1e-3)
    x = rnd((2, 3, 4), 'float32')
    g4 = rnd((4,), 'float32')
    add('ln_error_axis', 'LayerNorm', [x, g4, g4], params={'axis': 3}, error='Channel axis out of range')
    add('ln_error_gamma_shape', 'LayerNorm', [x, g4[:3], g4], error='Shape inconsistent')
    add('ln_error_beta_shape', 'LayerNorm', [x, g4, rnd((5,), 'float32')], error='beta')
    add('ln_error_dtype', 'LayerNorm', [x, g4.astype(np.float64), g4], error='type inconsistent')


# ---------------------------------------------------------------- InstanceNorm / GroupNorm

def gn_case(name, shape, groups, dtype='float32', op='GroupNorm', **params):
    c = shape[1]
    x = rnd(shape, dtype)
    gamma = rnd((c,), dtype, 0.5, 1.5)
    beta = rnd((c,), dtype, -0.5, 0.5)
    eps = params.get('eps', 1e-3 if op == 'InstanceNorm' else 1e-5)
    out, mean, var = gn_ref(x, gamma, beta, groups, eps)
    outs = [arr(out, dtype)]
    if params.get('output_mean_var'):
        outs += [arr(mean, dtype), arr(np.sqrt(var + eps), dtype)]
    add(name, op, [x, gamma, beta], outs, params=params, **TOLS[dtype])


def gn_backward_case(name, shape, groups, dtype='float32', op='_backward_GroupNorm', **params):
    c = shape[1]
    instance = op == '_backward_InstanceNorm'
    eps = params.get('eps', 1e-3 if instance else 1e-5)
    x = rnd(shape, dtype)
    gamma = rnd((c,), dtype, 0.5, 1.5)
    beta = rnd((c,), dtype, -0.5, 0.5)
    _, mean, var = gn_ref(x, gamma, beta, groups, eps)
    mean = mean.astype(dtype)
    spread = (var if instance else np.sqrt(var + eps)).astype(dtype)
    var_used = f64(spread) if instance else f64(spread) ** 2 - eps
    g = rnd(shape, dtype, -1, 1)
    dx, dg, db = gn_backward_ref(g, x, gamma, mean, var_used, groups, eps)
    ins = [g, mean, spread, x, gamma] if instance else [g, x, gamma, mean, spread]
    add(name, op, ins, [arr(dx, dtype), arr(dg, dtype), arr(db, dtype)], params=params, **GTOLS[dtype])


def group_norm_cases():
    gn_case('in_small_f64', (2, 2, 3), 2, 'float64', op='InstanceNorm')
    gn_case('gn_small_f64', (2, 4, 2), 2, 'float64', num_groups=2)
    gn_case('gn_one_group_f64', (1, 3, 3), 1, 'float64')
    for dt in ('float32', 'float64'):
        s = dt[-2:]
        gn_case(f'in_3d_{s}', (2, 3, 5), 3, dt, op='InstanceNorm')
        gn_case(f'in_4d_{s}', (2, 3, 4, 4), 3, dt, op='InstanceNorm', eps=1e-5)
        gn_case(f'gn_groups3_{s}', (2, 6, 4), 3, dt, num_groups=3)
        gn_case(f'gn_groups2_4d_{s}', (2, 4, 3, 3), 2, dt, num_groups=2, eps=1e-3)
        gn_case(f'gn_mean_var_{s}', (2, 6, 5), 2, dt, num_groups=2, output_mean_var=True)
        gn_case(f'gn_instance_like_{s}', (2, 4, 6), 4, dt, num_groups=4)
    gn_case('gn_long_f32', (2, 8, 40), 2, 'float32', num_groups=2)
    for dt in ('float32', 'float64'):
        s = dt[-2:]
        gn_backward_case(f'in_backward_3d_{s}', (2, 3, 5), 3, dt, op='_backward_InstanceNorm')
        gn_backward_case(f'in_backward_4d_{s}', (2, 3, 4, 4), 3, dt, op='_backward_InstanceNorm', eps=1e-5)
        gn_backward_case(f'gn_backward_groups3_{s}', (2, 6, 4), 3, dt, num_groups=3)
        gn_backward_case(f'gn_backward_groups2_4d_{s}', (2, 4, 3, 3), 2, dt, num_groups=2, eps=1e-3)
        gn_backward_case(f'gn_backward_one_group_{s}', (2, 3, 7), 1, dt)
    x = rnd((2, 6, 4), 'float32')
    g6 = rnd((6,), 'float32')
    add('gn_error_groups', 'GroupNorm', [x, g6, g6], params={'num_groups': 4}, error='divisible by # of groups')
    add('gn_error_rank', 'GroupNorm', [x[:, :, 0], g6, g6], params={'num_groups': 2}, error='at least 3 dims')
    add('gn_error_gamma_shape', 'GroupNorm', [x, g6[:3], g6[:3]], params={'num_groups': 3},
        error='Shape inconsistent')
    add('gn_error_zero_groups', 'GroupNorm', [x, g6, g6], params={'num_groups': 0}, error='num_groups must be positive')
    add('in_error_rank', 'InstanceNorm', [x[:, :, 0], g6, g6], error='rank >= 3')
    add('in_error_gamma_shape', 'InstanceNorm', [x, g6[:4], g6], error='Shape inconsistent')


def main():
    self_check()
    batch_norm_cases()
    layer_norm_cases()
    group_norm_cases()
    write(FAMILY, CASES)


if __name__ == '__main__':
    main()
