"""Golden cases for the NN layers family: FullyConnected, Activation, LeakyReLU, softmax,
log_softmax, masked_softmax, SoftmaxOutput (alias Softmax), the regression outputs, smooth_l1,
Dropout, and every backward op they define (_backward_FullyConnected, _backward_Activation, ...).

References: PyTorch (activations, GELU/SELU/ELU/PReLU, softmax and their gradients, computed in
float64 from the case inputs) and NumPy formulas written from MXNet's sources for what PyTorch has
no twin of:
- FullyConnected: out = data_2d . W^T + b (flatten views data as (n, prod(rest)), otherwise the last
  axis); backward dX = dY.W, dW = dY^T.X, db = sum_rows dY.
- _backward_Activation takes (ograd, output[, data]), _backward_LeakyReLU (ograd, data[, gamma],
  output[, mask]) as MXNet's FGradient builds them; the expected values are the true gradients
  (SELU's too: MXNet's selu_grad computes lambda*(alpha + y) below zero, not the derivative).
- softmax with use_length: entries beyond length[i] are 0, gradient 0 there.
- masked_softmax (MXNet CPU): masked entries replaced by the lowest finite value, softmax, then 0;
  backward: ograd masked to 0, softmax gradient, masked to 0.
- masked_log_softmax (MXNet log_softmax.cc, MaskedSoftmaxCompute with masked_neg_inf): the same
  replacement, log_softmax (x - max)/T - log sum exp((x - max)/T) in NumPy float64, then -inf where
  masked (a fully masked row is all -inf); backward: ograd masked to 0, s = its row sum,
  (g - exp(y) s)/T, masked to 0. Built in nn_layers_masked.py from its own seed (appended last).
- SoftmaxOutput backward: (softmax - one_hot(label)) * grad_scale / normalisation, ignore_label,
  smooth_alpha, out_grad, multi_output (softmax over axis 1), probabilities as labels.
- Regression outputs: backward (out - label) * grad_scale / num_output, num_output =
  label.size / label.shape[0]; MAE uses 1 if out - label > 0 else -1.
- smooth_l1 (sigma = scalar): 0.5 (sigma x)^2 if |x| < 1/sigma^2 else |x| - 0.5/sigma^2.
- Dropout: only deterministic cases (not training, p = 0, the backward ograd * mask).

Run with a Python that has torch and numpy (Debian's /usr/bin/python3 with python3-torch):
    /usr/bin/python3 tools/golden/ops/nn_layers.py
"""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
from common import arr, case, write  # noqa: E402

rng = np.random.default_rng(20240611)
torch.set_default_dtype(torch.float64)

FLOATS = ['float32', 'float64']
SELU_LAMBDA = 1.0507009873554805
SELU_ALPHA = 1.6732632423543772


def rand(shape, dtype, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(dtype)


def t64(a):
    return torch.tensor(np.asarray(a, dtype=np.float64), requires_grad=False)


def tol(dtype, loose=False):
    if dtype == 'float64':
        return dict(rtol=1e-11, atol=1e-13)
    return dict(rtol=1e-4, atol=1e-5) if loose else dict(rtol=2e-5, atol=1e-6)


def torch_grad(fn, x, og, *extra):
    """d(sum(fn(x, *extra) * og))/d(x, *extra) in float64."""
    xs = [torch.tensor(np.asarray(v, dtype=np.float64), requires_grad=True) for v in (x, *extra)]
    y = fn(*xs)
    y.backward(t64(og))
    return [v.grad.numpy() for v in xs]


cases = []

# ---------------------------------------------------------------- FullyConnected


def fc_ref(x, w, b, flatten):
    x64 = x.astype(np.float64)
    if flatten:
        x2 = x64.reshape(x.shape[0], -1)
        out_shape = (x.shape[0], w.shape[0])
    else:
        x2 = x64.reshape(-1, x.shape[-1])
        out_shape = tuple(x.shape[:-1]) + (w.shape[0],)
    y = x2 @ w.astype(np.float64).T
    if b is not None:
        y = y + b.astype(np.float64).reshape(1, -1)
    return y.reshape(out_shape), x2


for dt in FLOATS:
    for name, xs, nh, flatten, bias in [
        ('2d', (4, 6), 5, True, 'vec'),
        ('no_bias', (4, 6), 5, True, None),
        ('flatten_3d', (2, 3, 4), 5, True, 'vec'),
        ('noflatten_3d', (2, 3, 4), 5, False, 'vec'),
        ('bias_col', (3, 4), 2, True, 'col'),
        ('1d_data', (6,), 3, True, 'vec'),
        ('tiles', (17, 33), 19, True, 'vec'),
    ]:
        x = rand(xs, dt)
        k = int(np.prod(xs[1:])) if flatten else xs[-1]
        if len(xs) == 1:
            k = 1
        w = rand((nh, k), dt)
        b = None if bias is None else rand((nh,) if bias == 'vec' else (nh, 1), dt)
        y, x2 = fc_ref(x, w, b, flatten)
        params = {'num_hidden': nh, 'flatten': flatten}
        if b is None:
            params['no_bias'] = True
        ins = [x, w] + ([] if b is None else [b])
        cases.append(case(f'FullyConnected_{name}_{dt}', 'FullyConnected', ins, [arr(y, dt)], params,
                          **tol(dt, loose=True)))
        # backward: (ograd, data, weight) -> dX, dW[, db]
        og = rand(y.shape, dt)
        og2 = og.astype(np.float64).reshape(x2.shape[0], nh)
        dx = (og2 @ w.astype(np.float64)).reshape(xs)
        dw = og2.T @ x2
        outs = [arr(dx, dt), arr(dw, dt)]
        if b is not None:
            outs.append(arr(og2.sum(axis=0), dt))
        cases.append(case(f'_backward_FullyConnected_{name}_{dt}', '_backward_FullyConnected', [og, x, w], outs,
                          params, **tol(dt, loose=True)))

x = rand((3, 4), 'float32')
cases += [
    case('FullyConnected_bad_weight_shape', 'FullyConnected',
         [x, rand((5, 4), 'float32'), rand((4,), 'float32')], params={'num_hidden': 4}, error='Shape inconsistent'),
    case('FullyConnected_bad_weight_k', 'FullyConnected',
         [x, rand((4, 5), 'float32'), rand((4,), 'float32')], params={'num_hidden': 4}, error='Shape inconsistent'),
    case('FullyConnected_bad_bias', 'FullyConnected',
         [x, rand((4, 4), 'float32'), rand((3,), 'float32')], params={'num_hidden': 4},
         error='Unexpected shape for bias'),
    case('FullyConnected_bad_num_inputs', 'FullyConnected', [x, rand((4, 4), 'float32')],
         params={'num_hidden': 4}, error='expected 3 input'),
    case('FullyConnected_missing_num_hidden', 'FullyConnected', [x, rand((4, 4), 'float32')],
         params={'no_bias': True}, error='Required parameter num_hidden'),
    case('FullyConnected_bad_dtype', 'FullyConnected',
         [x, rand((4, 4), 'float64')], params={'num_hidden': 4, 'no_bias': True}, error='type inconsistent'),
]

# ---------------------------------------------------------------- Activation

ACT = {
    'relu': F.relu,
    'sigmoid': torch.sigmoid,
    'tanh': torch.tanh,
    'softrelu': lambda v: F.softplus(v, beta=1, threshold=20),
    'softsign': F.softsign,
    'log_sigmoid': F.logsigmoid,
    'mish': F.mish,
}
ACT_USES_DATA = {'relu': False}


def act_input(dt):
    special = np.array([0.0, 1e-3, -1e-3, 25.0, -25.0, 3.0, -3.0, 0.5], dtype=np.float64)
    return np.concatenate([special, rng.uniform(-6, 6, 13)]).reshape(3, 7).astype(dt)


for dt in FLOATS:
    for act, fn in ACT.items():
        x = act_input(dt)
        y = fn(t64(x)).detach().numpy()
        cases.append(case(f'Activation_{act}_{dt}', 'Activation', [x], [arr(y, dt)], {'act_type': act}, **tol(dt)))
        og = rand(x.shape, dt)
        (dx,) = torch_grad(fn, x, og)
        y_dt = y.astype(dt)
        ins = [og, y_dt] + ([] if not ACT_USES_DATA.get(act, True) else [x])
        # softrelu above its threshold (x > 20): MXNet differentiates from the output, 1 - e^-y, where
        # PyTorch returns exactly 1; they differ by e^-20 ~ 2e-9 relative, so float64 gets that much slack.
        t = dict(rtol=1e-8, atol=1e-13) if act == 'softrelu' and dt == 'float64' else tol(dt)
        cases.append(case(f'_backward_Activation_{act}_{dt}', '_backward_Activation', ins, [arr(dx, dt)],
                          {'act_type': act}, **t))

x = act_input('float32')
cases += [
    case('Activation_bad_act_type', 'Activation', [x], params={'act_type': 'swish'}, error="Invalid Input: 'swish'"),
    case('Activation_missing_act_type', 'Activation', [x], error='Required parameter act_type'),
    case('_backward_Activation_bad_num_inputs', '_backward_Activation', [x, x],
         params={'act_type': 'tanh'}, error='expected 3 input'),
    case('_backward_Activation_shape_mismatch', '_backward_Activation', [x, x[:2]],
         params={'act_type': 'relu'}, error='Incompatible attr'),
]

# ---------------------------------------------------------------- LeakyReLU


def leaky_fns(act, slope):
    if act == 'leaky':
        return lambda v: F.leaky_relu(v, negative_slope=slope)
    if act == 'elu':
        return lambda v: F.elu(v, alpha=slope)
    if act == 'selu':
        return F.selu
    if act in ('gelu', 'gelu_erf'):
        return F.gelu
    if act == 'gelu_tanh':
        return lambda v: F.gelu(v, approximate='tanh')
    raise ValueError(act)


for dt in FLOATS:
    for act, slope in [('leaky', 0.25), ('leaky', 0.1), ('elu', 1.0), ('elu', 0.5), ('selu', 0.25),
                       ('gelu', 0.25), ('gelu_erf', 0.25), ('gelu_tanh', 0.25)]:
        x = act_input(dt)
        fn = leaky_fns(act, slope)
        y = fn(t64(x)).detach().numpy()
        params = {'act_type': act, 'slope': slope}
        tag = f'{act}_{str(slope).replace(".", "p")}'
        cases.append(case(f'LeakyReLU_{tag}_{dt}', 'LeakyReLU', [x], [arr(y, dt)], params, **tol(dt)))
        og = rand(x.shape, dt)
        (dx,) = torch_grad(fn, x, og)
        cases.append(case(f'_backward_LeakyReLU_{tag}_{dt}', '_backward_LeakyReLU', [og, x, y.astype(dt)],
                          [arr(dx, dt)], params, **tol(dt)))
    # rrelu outside training: leaky with (lower + upper) / 2 (computed in float like MXNet)
    x = act_input(dt)
    lo, hi = 0.125, 0.334
    s = float(np.float32((np.float32(lo) + np.float32(hi)) / np.float32(2)))
    y = np.where(x > 0, x.astype(np.float64), x.astype(np.float64) * s)
    cases.append(case(f'LeakyReLU_rrelu_eval_{dt}', 'LeakyReLU', [x], [arr(y, dt)], {'act_type': 'rrelu'}, **tol(dt)))
    # rrelu backward with a given mask (the slopes drawn in training)
    mask = rng.uniform(lo, hi, x.shape).astype(dt)
    y = np.where(x > 0, x, x * mask).astype(dt)
    og = rand(x.shape, dt)
    dx = np.where(y > 0, og.astype(np.float64), og.astype(np.float64) * mask)
    cases.append(case(f'_backward_LeakyReLU_rrelu_{dt}', '_backward_LeakyReLU', [og, x, y, mask], [arr(dx, dt)],
                      {'act_type': 'rrelu'}, **tol(dt)))
    # prelu: per-channel gamma on axis 1, shared gamma, 2-d data
    for tag, xs, gs in [('nch', (2, 3, 4), (3,)), ('shared', (2, 3, 4), (1,)), ('2d', (5, 4), (4,)),
                        ('nchw', (2, 2, 3, 2), (2,))]:
        x = rand(xs, dt)
        g = rng.uniform(0.05, 0.5, gs).astype(dt)
        y = F.prelu(t64(x), t64(g)).numpy()
        cases.append(case(f'LeakyReLU_prelu_{tag}_{dt}', 'LeakyReLU', [x, g], [arr(y, dt)], {'act_type': 'prelu'},
                          **tol(dt)))
        og = rand(xs, dt)
        dx, dg = torch_grad(F.prelu, x, og, g)
        cases.append(case(f'_backward_LeakyReLU_prelu_{tag}_{dt}', '_backward_LeakyReLU', [og, x, g, y.astype(dt)],
                          [arr(dx, dt), arr(dg, dt)], {'act_type': 'prelu'}, **tol(dt)))

# catalog section 12 item 28: Gluon PReLU(alpha=[.1, .25, .5]) on [-.1, .1]*3 reshaped to (1, 3, 2)
cases.append(case('LeakyReLU_prelu_catalog_item28', 'LeakyReLU',
                  [np.array([-.1, .1] * 3, dtype='float32').reshape(1, 3, 2), np.array([.1, .25, .5], dtype='float32')],
                  [arr(np.array([[[-.01, .1], [-.025, .1], [-.05, .1]]]), 'float32')], {'act_type': 'prelu'},
                  rtol=1e-6, atol=1e-7))

x = act_input('float32')
cases += [
    case('LeakyReLU_bad_act_type', 'LeakyReLU', [x], params={'act_type': 'swish'}, error="Invalid Input: 'swish'"),
    case('LeakyReLU_prelu_bad_gamma', 'LeakyReLU', [rand((2, 3, 4), 'float32'), rand((4,), 'float32')],
         params={'act_type': 'prelu'}, error='Cannot broadcast gamma to data'),
    case('LeakyReLU_prelu_missing_gamma', 'LeakyReLU', [x], params={'act_type': 'prelu'},
         error='expected 2 input'),
]

# ---------------------------------------------------------------- softmax / log_softmax


def sm_fn(log, axis, temp):
    if log:
        return lambda v: F.log_softmax(v / temp, dim=axis)
    return lambda v: F.softmax(v / temp, dim=axis)


for dt in FLOATS:
    for name, log in [('softmax', False), ('log_softmax', True)]:
        for tag, xs, axis, temp in [('last', (3, 7), -1, None), ('last_even', (2, 8), -1, None),
                                    ('long', (2, 301), -1, None), ('axis0', (4, 3, 2), 0, None),
                                    ('axis1', (2, 5, 3), 1, None), ('temp', (3, 6), -1, 2.5),
                                    ('temp_axis1', (2, 4, 3), 1, 0.5), ('1d', (9,), 0, None)]:
            x = rand(xs, dt, 3.0)
            fn = sm_fn(log, axis, temp or 1.0)
            y = fn(t64(x)).numpy()
            params = {'axis': axis}
            if temp is not None:
                params['temperature'] = temp
            cases.append(case(f'{name}_{tag}_{dt}', name, [x], [arr(y, dt)], params, **tol(dt)))
            og = rand(xs, dt)
            (dx,) = torch_grad(fn, x, og)
            cases.append(case(f'_backward_{name}_{tag}_{dt}', f'_backward_{name}', [og, y.astype(dt)], [arr(dx, dt)],
                              params, **tol(dt)))
        # use_length: only the first length[i] entries of row i take part; the rest is 0.
        x = rand((3, 6), dt, 2.0)
        length = np.array([6, 2, 0], dtype='int32')
        y = np.zeros((3, 6))
        og = rand((3, 6), dt)
        dx = np.zeros((3, 6))
        for i, n in enumerate(length):
            if n == 0:
                continue
            fn = sm_fn(log, -1, 1.0)
            y[i, :n] = fn(t64(x[i, :n])).numpy()
            (d,) = torch_grad(fn, x[i, :n], og[i, :n])
            dx[i, :n] = d
        cases.append(case(f'{name}_use_length_{dt}', name, [x, length], [arr(y, dt)], {'use_length': True},
                          **tol(dt)))
        cases.append(case(f'_backward_{name}_use_length_{dt}', f'_backward_{name}', [og, x, length, y.astype(dt)],
                          [arr(dx, dt)], {'use_length': True}, **tol(dt)))
        # use_length over axis 0 of a 3-d array (length has the data shape without the axis)
        x = rand((4, 2, 3), dt)
        length = np.array([[4, 1, 3], [2, 0, 4]], dtype='int64')
        y = np.zeros((4, 2, 3))
        for i in range(2):
            for k in range(3):
                n = length[i, k]
                if n:
                    y[:n, i, k] = sm_fn(log, 0, 1.0)(t64(x[:n, i, k])).numpy()
        cases.append(case(f'{name}_use_length_axis0_{dt}', name, [x, length], [arr(y, dt)],
                          {'use_length': True, 'axis': 0}, **tol(dt)))
    # dtype override: float32 data, float64 output (backward takes data for its dtype)
    if dt == 'float32':
        for name, log in [('softmax', False), ('log_softmax', True)]:
            x = rand((3, 5), 'float32', 2.0)
            fn = sm_fn(log, -1, 1.0)
            y = fn(t64(x)).numpy()
            cases.append(case(f'{name}_dtype_float64', name, [x], [arr(y, 'float64')], {'dtype': 'float64'},
                              **tol('float64')))
            og = rand((3, 5), 'float64')
            (dx,) = torch_grad(fn, x, og)
            cases.append(case(f'_backward_{name}_dtype_float64', f'_backward_{name}', [og, x, y], [arr(dx, 'float32')],
                              {'dtype': 'float64'}, **tol('float32')))

# catalog section 12 item 19: softmax over a size-1 axis of huge values is exactly 1.
for v, dt in [(1e30, 'float32'), (3.4e38, 'float32'), (1e300, 'float64'), (1.7e308, 'float64')]:
    x = np.array([[v], [-v]], dtype=dt)
    cases.append(case(f'softmax_large_size1_{v:g}_{dt}', 'softmax', [x], [arr(np.ones((2, 1)), dt)], rtol=0, atol=0))
    x = np.array([[v, -v, 0.0], [-v, -v, v]], dtype=dt)
    cases.append(case(f'softmax_large_row_{v:g}_{dt}', 'softmax', [x],
                      [arr(np.array([[1.0, 0, 0], [0, 0, 1.0]]), dt)], rtol=0, atol=0))

x = rand((3, 4), 'float32')
cases += [
    case('softmax_bad_axis', 'softmax', [x], params={'axis': 2}, error='axis 2 exceeds the input dimension of 2'),
    case('softmax_bad_length_shape', 'softmax', [x, np.array([1, 2], dtype='int32')], params={'use_length': True},
         error='Shape inconsistent'),
    case('softmax_length_float', 'softmax', [x, np.array([1, 2, 3], dtype='float32')], params={'use_length': True},
         error='length must be int32 or int64'),
    case('log_softmax_missing_length', 'log_softmax', [x], params={'use_length': True}, error='expected 2 input'),
]

# ---------------------------------------------------------------- masked_softmax


def masked_ref(x, mask, axis, temp, dt):
    lowest = np.finfo(dt).min
    xm = np.where(np.broadcast_to(mask, x.shape), x.astype(np.float64), float(lowest))
    y = F.softmax(t64(xm) / temp, dim=axis).numpy()
    return np.where(np.broadcast_to(mask, x.shape), y, 0.0)


def masked_grad(og, y, mask, axis, temp):
    m = np.broadcast_to(mask, y.shape)
    g = np.where(m, og.astype(np.float64), 0.0)
    y64 = y.astype(np.float64)
    s = (g * y64).sum(axis=axis, keepdims=True)
    return np.where(m, y64 * (g - s) / temp, 0.0)


for dt in FLOATS:
    for tag, xs, ms, axis, temp in [('full_mask', (3, 5), (3, 5), -1, 1.0),
                                    ('bcast_rows', (2, 3, 4), (2, 1, 4), -1, 1.0),
                                    ('axis1', (2, 4, 3), (2, 4, 1), 1, 1.0), ('temp', (3, 6), (3, 6), -1, 2.0)]:
        x = rand(xs, dt, 2.0)
        mask = rng.random(ms) > 0.35
        mask.reshape(-1)[0] = True
        if tag == 'full_mask':
            mask[1, :] = False  # a fully masked row gives zeros
        y = masked_ref(x, mask, axis, temp, dt)
        params = {'axis': axis}
        if temp != 1.0:
            params['temperature'] = temp
        cases.append(case(f'masked_softmax_{tag}_{dt}', 'masked_softmax', [x, mask], [arr(y, dt)], params, **tol(dt)))
        og = rand(xs, dt)
        dx = masked_grad(og, y.astype(dt), mask, axis, temp)
        cases.append(case(f'_backward_masked_softmax_{tag}_{dt}', '_backward_masked_softmax', [og, mask, y.astype(dt)],
                          [arr(dx, dt)], params, **tol(dt)))
x = rand((3, 4), 'float32')
cases += [
    case('masked_softmax_bad_mask_ndim', 'masked_softmax', [x, np.ones((4,), dtype=bool)],
         error='Number of dimensions in data and mask does not match'),
    case('masked_softmax_bad_mask_shape', 'masked_softmax', [x, np.ones((3, 2), dtype=bool)],
         error='Mask cannot be broadcasted from (3, 2) to (3, 4)'),
    case('masked_softmax_mask_not_bool', 'masked_softmax', [x, np.ones((3, 4), dtype='float32')],
         error='mask must be bool'),
]

# ---------------------------------------------------------------- SoftmaxOutput


def softmax_np(x, axis):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def so_grad(y, label, p):
    """MXNet SoftmaxOutput backward for class-index labels on a (n, k) or multi_output (n, k, rest) view."""
    y = y.astype(np.float64)
    gs = p.get('grad_scale', 1.0)
    multi = p.get('multi_output', False)
    norm = p.get('normalization', 'null')
    ignore = int(p.get('ignore_label', -1))
    alpha = p.get('smooth_alpha', 0.0)
    if multi:
        n, k = y.shape[0], y.shape[1]
        y3 = y.reshape(n, k, -1)
    elif p.get('preserve_shape', False):
        k = y.shape[-1]
        y3 = y.reshape(-1, k, 1)
        n = y3.shape[0]
    else:
        n = y.shape[0]
        y3 = y.reshape(n, -1, 1)
        k = y3.shape[1]
    rest = y3.shape[2]
    lab = label.reshape(-1).astype(np.float64)
    g = np.zeros_like(y3)
    for o in range(n):
        for s in range(rest):
            c = int(lab[o * rest + s])
            if p.get('use_ignore', False) and c == ignore:
                continue
            for j in range(k):
                tgt = (1 - alpha if j == c else alpha / (k - 1)) if alpha > 0 else (1.0 if j == c else 0.0)
                g[o, j, s] = y3[o, j, s] - tgt
    if norm == 'batch':
        valid = n if multi else lab.size
    elif norm == 'valid':
        valid = max(1, int(sum(int(v) != ignore for v in lab)))
    else:
        valid = 1
    denom = (rest if multi and norm != 'valid' else 1) * valid
    return (g * (np.float32(gs / denom) if y.dtype == np.float32 else gs / denom)).reshape(y.shape)


for dt in FLOATS:
    x = rand((4, 5), dt, 2.0)
    label = np.array([0, 3, 4, 2], dtype=dt)
    y = softmax_np(x, 1)
    cases.append(case(f'SoftmaxOutput_{dt}', 'SoftmaxOutput', [x, label], [arr(y, dt)], **tol(dt)))
    cases.append(case(f'Softmax_alias_{dt}', 'Softmax', [x, label], [arr(y, dt)], **tol(dt)))
    for tag, p in [('default', {}), ('grad_scale', {'grad_scale': 2.5}),
                   ('ignore', {'use_ignore': True, 'ignore_label': 3}),
                   ('batch', {'normalization': 'batch'}),
                   ('valid', {'normalization': 'valid', 'use_ignore': True, 'ignore_label': 4}),
                   ('smooth', {'smooth_alpha': 0.1}),
                   ('smooth_ignore', {'smooth_alpha': 0.2, 'use_ignore': True, 'ignore_label': 0})]:
        og = rand(x.shape, dt)
        g = so_grad(y.astype(dt), label, p)
        cases.append(case(f'_backward_SoftmaxOutput_{tag}_{dt}', '_backward_SoftmaxOutput',
                          [og, label, y.astype(dt)], [arr(g, dt)], p, **tol(dt)))
    # out_grad: the head gradient multiplies the result
    og = rand(x.shape, dt)
    p = {'out_grad': True, 'grad_scale': 0.5}
    g = so_grad(y.astype(dt), label, p) * og.astype(np.float64)
    cases.append(case(f'_backward_SoftmaxOutput_out_grad_{dt}', '_backward_SoftmaxOutput', [og, label, y.astype(dt)],
                      [arr(g, dt)], p, **tol(dt)))
    # labels as probabilities (same shape as data): (out - label) * grad_scale
    prob = softmax_np(rand((4, 5), dt), 1).astype(dt)
    g = (y.astype(dt).astype(np.float64) - prob) * 1.5
    cases.append(case(f'_backward_SoftmaxOutput_prob_label_{dt}', '_backward_SoftmaxOutput',
                      [og, prob, y.astype(dt)], [arr(g, dt)], {'grad_scale': 1.5}, **tol(dt)))
    cases.append(case(f'SoftmaxOutput_prob_label_{dt}', 'SoftmaxOutput', [x, prob], [arr(y, dt)], **tol(dt)))
    # multi_output: softmax over axis 1 of (n, k, rest), label (n, rest)
    x3 = rand((2, 3, 4), dt, 2.0)
    lab3 = np.array([[0, 1, 2, 1], [2, 2, 0, 1]], dtype=dt)
    y3 = softmax_np(x3, 1)
    cases.append(case(f'SoftmaxOutput_multi_{dt}', 'SoftmaxOutput', [x3, lab3], [arr(y3, dt)],
                      {'multi_output': True}, **tol(dt)))
    for tag, p in [('multi', {'multi_output': True}),
                   ('multi_valid', {'multi_output': True, 'normalization': 'valid', 'use_ignore': True,
                                    'ignore_label': 1}),
                   ('multi_batch', {'multi_output': True, 'normalization': 'batch', 'grad_scale': 3.0})]:
        og = rand(x3.shape, dt)
        g = so_grad(y3.astype(dt), lab3, p)
        cases.append(case(f'_backward_SoftmaxOutput_{tag}_{dt}', '_backward_SoftmaxOutput',
                          [og, lab3, y3.astype(dt)], [arr(g, dt)], p, **tol(dt)))
    # preserve_shape: softmax over the last axis, label = data shape without it
    yp = softmax_np(x3, -1)
    labp = np.array([[0, 3, 2], [1, 1, 3]], dtype=dt)
    cases.append(case(f'SoftmaxOutput_preserve_shape_{dt}', 'SoftmaxOutput', [x3, labp], [arr(yp, dt)],
                      {'preserve_shape': True}, **tol(dt)))
    og = rand(x3.shape, dt)
    cases.append(case(f'_backward_SoftmaxOutput_preserve_shape_{dt}', '_backward_SoftmaxOutput',
                      [og, labp, yp.astype(dt)], [arr(so_grad(yp.astype(dt), labp, {'preserve_shape': True}), dt)],
                      {'preserve_shape': True}, **tol(dt)))

x = rand((4, 5), 'float32')
cases += [
    case('SoftmaxOutput_bad_label_shape', 'SoftmaxOutput', [x, np.zeros((3,), dtype='float32')],
         error='Shape inconsistent, Provided = (3,), inferred shape=(4,)'),
    case('SoftmaxOutput_bad_multi_label', 'SoftmaxOutput', [rand((2, 3, 4), 'float32'), np.zeros((2, 3), 'float32')],
         params={'multi_output': True}, error='Expecting (2, 4) or (2, 4). But got (2, 3)'),
    case('SoftmaxOutput_bad_normalization', 'SoftmaxOutput', [x, np.zeros((4,), 'float32')],
         params={'normalization': 'mean'}, error="Invalid Input: 'mean'"),
    case('SoftmaxOutput_bad_smooth_alpha', 'SoftmaxOutput', [x, np.zeros((4,), 'float32')],
         params={'smooth_alpha': 1.5}, error='exceed bound'),
    case('SoftmaxOutput_missing_label', 'SoftmaxOutput', [x], error='expected 2 input'),
]

# ---------------------------------------------------------------- regression outputs

REG = [('LinearRegressionOutput', '_backward_linear_reg_out', 'linear'),
       ('LogisticRegressionOutput', '_backward_logistic_reg_out', 'logistic'),
       ('MAERegressionOutput', '_backward_mae_reg_out', 'mae')]
for dt in FLOATS:
    for fwd, back, kind in REG:
        for tag, xs, ls, gs in [('2d', (4, 3), (4, 3), 1.0), ('col_label', (5, 1), (5,), 2.0),
                                ('scaled', (3, 2, 2), (3, 4), 0.5)]:
            x = rand(xs, dt)
            label = rand(ls, dt)
            y = 1 / (1 + np.exp(-x.astype(np.float64))) if kind == 'logistic' else x.astype(np.float64)
            params = {} if gs == 1.0 else {'grad_scale': gs}
            cases.append(case(f'{fwd}_{tag}_{dt}', fwd, [x, label], [arr(y, dt)], params, **tol(dt)))
            yd = y.astype(dt)
            num_output = label.size / label.shape[0]
            scale = gs / num_output
            if dt == 'float32':
                scale = float(np.float32(scale))
            diff = yd.astype(np.float64) - label.reshape(xs).astype(np.float64)
            g = (np.where(diff > 0, 1.0, -1.0) if kind == 'mae' else diff) * scale
            cases.append(case(f'{back}_{tag}_{dt}', back, [label, yd], [arr(g, dt)], params, **tol(dt)))
cases += [
    case('LinearRegressionOutput_bad_label', 'LinearRegressionOutput',
         [rand((4, 3), 'float32'), rand((3, 3), 'float32')], error='Shape inconsistent'),
    case('MAERegressionOutput_bad_label_size', 'MAERegressionOutput',
         [rand((4, 3), 'float32'), rand((4, 2), 'float32')], error='Shape inconsistent'),
]

# ---------------------------------------------------------------- smooth_l1

for dt in FLOATS:
    x = np.concatenate([rng.uniform(-3, 3, 16), [0.0, 1.0, -1.0, 0.25]]).reshape(4, 5).astype(dt)
    for sigma in [1.0, 2.0, 0.5]:
        x64 = x.astype(np.float64)
        b2 = sigma * sigma
        y = np.where(x64 > 1 / b2, x64 - 0.5 / b2, np.where(x64 < -1 / b2, -x64 - 0.5 / b2, 0.5 * x64 * x64 * b2))
        cases.append(case(f'smooth_l1_sigma{sigma:g}_{dt}', 'smooth_l1', [x], [arr(y, dt)],
                          {'scalar': sigma, 'is_int': False}, **tol(dt)))

# ---------------------------------------------------------------- Dropout (deterministic cases only)

for dt in FLOATS:
    x = rand((3, 4), dt)
    cases.append(case(f'Dropout_inference_{dt}', 'Dropout', [x], [arr(x, dt)], {'p': 0.5}, rtol=0, atol=0))
    cases.append(case(f'Dropout_train_p0_{dt}', 'Dropout', [x], [arr(x, dt)], {'p': 0.0}, rtol=0, atol=0,
                      isTrain=True))
    cases.append(case(f'Dropout_always_p0_{dt}', 'Dropout', [x], [arr(x, dt)], {'p': 0.0, 'mode': 'always'},
                      rtol=0, atol=0))
    cases.append(case(f'Dropout_inference_axes_{dt}', 'Dropout', [x], [arr(x, dt)], {'p': 0.3, 'axes': (0,)},
                      rtol=0, atol=0))
    og = rand((3, 4), dt)
    mask = np.where(rng.random((3, 4)) < 0.5, 0.0, 2.0).astype(dt)
    cases.append(case(f'_backward_Dropout_{dt}', '_backward_Dropout', [og, mask], [arr(og * mask, dt)], {'p': 0.5},
                      isTrain=True, **tol(dt)))
    # Outside training the forward was a copy (MXNet's dropout_passthrough_): the gradient passes through.
    cases.append(case(f'_backward_Dropout_inference_{dt}', '_backward_Dropout', [og, mask], [arr(og, dt)],
                      {'p': 0.5}, rtol=0, atol=0))
    og = rand((2, 3, 4), dt)
    mask = np.where(rng.random((2, 1, 4)) < 0.25, 0.0, 1 / 0.75).astype(dt)
    cases.append(case(f'_backward_Dropout_axes_{dt}', '_backward_Dropout', [og, mask],
                      [arr(og.astype(np.float64) * mask, dt)], {'p': 0.25, 'axes': (1,)}, isTrain=True, **tol(dt)))
cases += [
    case('Dropout_bad_p', 'Dropout', [rand((2, 2), 'float32')], params={'p': 1.5}, error='exceed bound'),
    case('Dropout_bad_mode', 'Dropout', [rand((2, 2), 'float32')], params={'mode': 'test'},
         error="Invalid Input: 'test'"),
    case('Dropout_bad_axes', 'Dropout', [rand((2, 2), 'float32')], params={'axes': (3,)},
         error='Dropout axis 3 is out of range'),
]

# ---------------------------------------------------------------- masked_log_softmax
# Generated by nn_layers_masked.py from its own random stream (the cases above keep their draws).
from nn_layers_masked import masked_log_softmax_cases  # noqa: E402

cases += masked_log_softmax_cases(case, arr, tol, FLOATS)

write('nn_layers', cases)
