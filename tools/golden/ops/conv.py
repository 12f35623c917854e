"""Golden cases for the conv family: Convolution, Deconvolution, Pooling and their _backward_ ops.

Reference values:
- Convolution / Deconvolution: PyTorch (torch.nn.functional.conv1d/2d/3d, conv_transpose1d/2d/3d),
  computed in float64 from the case's (dtype-rounded) inputs; gradients by torch.autograd.
  MXNet's weight layouts equal PyTorch's ((F, C/g, k...) and (C, F/g, k...)); Deconvolution's
  target_shape is turned into pad/adj exactly as MXNet's InferPad does.
- Pooling: a direct NumPy implementation of MXNet's pool.h (windows clipped to the input, `full` =
  ceil, `same` = ceil(x/stride) with pad 0, count_include_pad default true, lp with p 1/2/3, max
  gradient to the first maximum in row-major window order), cross-checked against PyTorch
  (max_pool*, avg_pool*, lp_pool*, autograd) wherever PyTorch defines the same thing.
Inputs are multiples of 1/64 (exact in float32, short in JSON). Shapes are small but every
parameter is covered, in float32 and float64, plus bad-input cases (error substrings).
Run: /usr/bin/python3 tools/golden/ops/conv.py   (needs numpy and torch)
"""
import itertools
import math
import os
import sys

import numpy as np
import torch
import torch.nn.functional as TF

sys.path.insert(0, os.path.dirname(__file__))
from common import arr, case, write  # noqa: E402

rng = np.random.default_rng(20240611)
torch.manual_seed(0)
cases = []


def rand(shape, dtype, lo=-128, hi=128, positive=False):
    if positive:
        v = rng.integers(8, hi, size=shape) / 64.0
    else:
        v = rng.integers(lo, hi, size=shape) / 64.0
    return v.astype(dtype)


def t64(a):
    return torch.tensor(np.asarray(a, dtype=np.float64), dtype=torch.float64)


def tol(dtype, terms):
    if dtype == 'float64':
        return dict(rtol=1e-10, atol=1e-11)
    return dict(rtol=2e-4, atol=2e-5 * max(1.0, math.sqrt(terms)))


def fmt_tuple(v):
    return '(' + ', '.join(str(x) for x in v) + (',)' if len(v) == 1 else ')')


# ---- Convolution ---------------------------------------------------------------------------------

CONV = {1: TF.conv1d, 2: TF.conv2d, 3: TF.conv3d}
DECONV = {1: TF.conv_transpose1d, 2: TF.conv_transpose2d, 3: TF.conv_transpose3d}


def conv_case(name, dshape, num_filter, kernel, stride=None, pad=None, dilate=None, groups=1, no_bias=False,
              dtype='float32', string_params=False, extra=None, backward=True):
    nd = len(kernel)
    c = dshape[1]
    x = rand(dshape, dtype)
    w = rand((num_filter, c // groups) + tuple(kernel), dtype)
    b = rand((num_filter,), dtype)
    st = stride or (1,) * nd
    pd = pad or (0,) * nd
    dl = dilate or (1,) * nd
    xt, wt, bt = t64(x).requires_grad_(), t64(w).requires_grad_(), t64(b).requires_grad_()
    y = CONV[nd](xt, wt, None if no_bias else bt, stride=st, padding=pd, dilation=dl, groups=groups)
    params = {'kernel': fmt_tuple(kernel) if string_params else list(kernel),
              'num_filter': str(num_filter) if string_params else num_filter}
    if stride is not None:
        params['stride'] = fmt_tuple(stride) if string_params else list(stride)
    if pad is not None:
        params['pad'] = fmt_tuple(pad) if string_params else list(pad)
    if dilate is not None:
        params['dilate'] = fmt_tuple(dilate) if string_params else list(dilate)
    if groups != 1:
        params['num_group'] = groups
    if no_bias:
        params['no_bias'] = 'True' if string_params else True
    params.update(extra or {})
    terms = (c // groups) * int(np.prod(kernel))
    ins = [x, w] if no_bias else [x, w, b]
    cases.append(case(f'conv_{name}_{dtype}', 'Convolution', ins, [y.detach().numpy().astype(dtype)],
                      params=params, **tol(dtype, terms)))
    if not backward:
        return
    og = rand(tuple(y.shape), dtype)
    y.backward(t64(og))
    outs = [xt.grad.numpy().astype(dtype), wt.grad.numpy().astype(dtype)]
    if not no_bias:
        outs.append(bt.grad.numpy().astype(dtype))
    bterms = max(terms, dshape[0] * int(np.prod(y.shape[2:])), num_filter)
    cases.append(case(f'conv_bwd_{name}_{dtype}', '_backward_Convolution', [og] + ins, outs,
                      params=params, **tol(dtype, bterms)))


for dt in ('float32', 'float64'):
    # 1-D
    conv_case('1d_k3', (2, 3, 10), 4, (3,), dtype=dt)
    conv_case('1d_s2_p1_d2', (2, 4, 11), 6, (3,), stride=(2,), pad=(1,), dilate=(2,), groups=2, dtype=dt)
    # 2-D
    conv_case('2d_k3_p1', (2, 3, 7, 6), 4, (3, 3), pad=(1, 1), dtype=dt)
    conv_case('2d_k32_s21_p10_d12_g2', (2, 4, 9, 8), 6, (3, 2), stride=(2, 1), pad=(1, 0), dilate=(1, 2),
              groups=2, dtype=dt)
    conv_case('2d_1x1', (1, 8, 5, 6), 5, (1, 1), dtype=dt)
    conv_case('2d_1x1_s2', (2, 4, 7, 7), 3, (1, 1), stride=(2, 2), dtype=dt)
    conv_case('2d_s2_p2_nobias', (3, 3, 9, 11), 5, (3, 3), stride=(2, 2), pad=(2, 1), no_bias=True, dtype=dt)
    conv_case('2d_depthwise', (2, 4, 6, 6), 4, (3, 3), pad=(1, 1), groups=4, dtype=dt)
    conv_case('2d_k5_lenet', (2, 1, 12, 12), 4, (5, 5), dtype=dt)
    conv_case('2d_s3_d2', (1, 2, 13, 12), 3, (2, 3), stride=(3, 2), dilate=(2, 2), pad=(1, 2), dtype=dt)
    # 3-D
    conv_case('3d_k232_s121_p110', (1, 2, 5, 6, 4), 3, (2, 3, 2), stride=(1, 2, 1), pad=(1, 1, 0), dtype=dt)
    conv_case('3d_g2_nobias', (2, 4, 4, 4, 4), 4, (3, 3, 3), pad=(1, 1, 1), groups=2, no_bias=True, dtype=dt)
# MXNet string forms of the params, the ignored cuDNN/workspace params, explicit layouts.
conv_case('2d_strings', (1, 2, 6, 5), 3, (3, 2), stride=(1, 2), pad=(1, 0), dtype='float32', string_params=True,
          extra={'workspace': '512', 'cudnn_tune': 'fastest', 'cudnn_off': 'True', 'layout': 'NCHW'})
conv_case('1d_layout', (2, 2, 8), 3, (3,), dtype='float64', extra={'layout': 'NCW'}, backward=False)
conv_case('3d_layout', (1, 1, 4, 4, 4), 2, (2, 2, 2), dtype='float64', extra={'layout': 'NCDHW'}, backward=False)

# Bad input.
x4 = rand((1, 3, 5, 5), 'float32')
w_ok = rand((4, 3, 3, 3), 'float32')
b4 = rand((4,), 'float32')
cases.append(case('conv_err_kernel_exceeds_input', 'Convolution', [x4, rand((4, 3, 7, 7), 'float32'), b4],
                  params={'kernel': [7, 7], 'num_filter': 4}, error='kernel size exceed input'))
cases.append(case('conv_err_group_channels', 'Convolution', [x4, rand((4, 1, 3, 3), 'float32'), b4],
                  params={'kernel': [3, 3], 'num_filter': 4, 'num_group': 2},
                  error='input num_filter must divide group size'))
cases.append(case('conv_err_group_filters', 'Convolution', [rand((1, 4, 5, 5), 'float32'), rand((3, 2, 3, 3), 'float32'),
                                                            rand((3,), 'float32')],
                  params={'kernel': [3, 3], 'num_filter': 3, 'num_group': 2},
                  error='output num_filter must divide group size'))
cases.append(case('conv_err_weight_shape', 'Convolution', [x4, rand((4, 2, 3, 3), 'float32'), b4],
                  params={'kernel': [3, 3], 'num_filter': 4}, error='weight shape mismatch'))
cases.append(case('conv_err_bias_shape', 'Convolution', [x4, w_ok, rand((5,), 'float32')],
                  params={'kernel': [3, 3], 'num_filter': 4}, error='bias shape mismatch'))
cases.append(case('conv_err_layout_nhwc', 'Convolution', [x4, w_ok, b4],
                  params={'kernel': [3, 3], 'num_filter': 4, 'layout': 'NHWC'},
                  error='only support NCW, NCHW and NCDHW layout'))
cases.append(case('conv_err_data_rank', 'Convolution', [rand((3, 5, 5), 'float32'), w_ok, b4],
                  params={'kernel': [3, 3], 'num_filter': 4}, error='Input data should be 4D'))
cases.append(case('conv_err_stride_len', 'Convolution', [x4, w_ok, b4],
                  params={'kernel': [3, 3], 'num_filter': 4, 'stride': [1]},
                  error='Stride must have the same number of dimensions with kernel_size'))
cases.append(case('conv_err_3d_dilate', 'Convolution',
                  [rand((1, 1, 5, 5, 5), 'float32'), rand((2, 1, 2, 2, 2), 'float32'), rand((2,), 'float32')],
                  params={'kernel': [2, 2, 2], 'num_filter': 2, 'dilate': [2, 1, 1]},
                  error='Dilate is not supported in 3d convolution'))
cases.append(case('conv_err_4d_kernel', 'Convolution', [x4, w_ok, b4],
                  params={'kernel': [1, 1, 1, 1], 'num_filter': 4}, error='4D convolution not supported'))
cases.append(case('conv_bwd_err_ograd_shape', '_backward_Convolution',
                  [rand((1, 4, 2, 2), 'float32'), x4, w_ok, b4],
                  params={'kernel': [3, 3], 'num_filter': 4}, error='ograd shape mismatch'))


# ---- Deconvolution -------------------------------------------------------------------------------

def infer_pad(in_spatial, kernel, stride, dilate, pad, adj, target):
    if target is None or not any(t != 0 for t in target):
        return list(pad), list(adj)
    pads, adjs = [], []
    for i, x in enumerate(in_spatial):
        total = stride[i] * (x - 1) + 1 + (kernel[i] - 1) * dilate[i]
        o = total - target[i]
        adjs.append(o % 2)
        pads.append((o + 1) // 2)
    return pads, adjs


def deconv_case(name, dshape, num_filter, kernel, stride=None, pad=None, dilate=None, adj=None, target=None,
                groups=1, no_bias=True, dtype='float32'):
    nd = len(kernel)
    c = dshape[1]
    x = rand(dshape, dtype)
    w = rand((c, num_filter // groups) + tuple(kernel), dtype)
    b = rand((num_filter,), dtype)
    st = stride or (1,) * nd
    dl = dilate or (1,) * nd
    pd, aj = infer_pad(dshape[2:], kernel, st, dl, pad or (0,) * nd, adj or (0,) * nd, target)
    xt, wt, bt = t64(x).requires_grad_(), t64(w).requires_grad_(), t64(b).requires_grad_()
    y = DECONV[nd](xt, wt, None if no_bias else bt, stride=st, padding=pd, output_padding=aj, groups=groups,
                   dilation=dl)
    if target is not None:
        assert list(y.shape[2:]) == list(target), (y.shape, target)
    params = {'kernel': list(kernel), 'num_filter': num_filter}
    for k, v in (('stride', stride), ('pad', pad), ('dilate', dilate), ('adj', adj), ('target_shape', target)):
        if v is not None:
            params[k] = list(v)
    if groups != 1:
        params['num_group'] = groups
    if not no_bias:
        params['no_bias'] = False
    terms = c * int(np.prod(kernel))
    ins = [x, w] if no_bias else [x, w, b]
    cases.append(case(f'deconv_{name}_{dtype}', 'Deconvolution', ins, [y.detach().numpy().astype(dtype)],
                      params=params, **tol(dtype, terms)))
    og = rand(tuple(y.shape), dtype)
    y.backward(t64(og))
    outs = [xt.grad.numpy().astype(dtype), wt.grad.numpy().astype(dtype)]
    if not no_bias:
        outs.append(bt.grad.numpy().astype(dtype))
    bterms = max(terms, dshape[0] * int(np.prod(y.shape[2:])))
    cases.append(case(f'deconv_bwd_{name}_{dtype}', '_backward_Deconvolution', [og] + ins, outs,
                      params=params, **tol(dtype, bterms)))


for dt in ('float32', 'float64'):
    deconv_case('1d_k3_s2', (2, 3, 5), 4, (3,), stride=(2,), dtype=dt)
    deconv_case('1d_p1_adj1_bias', (1, 2, 6), 3, (4,), stride=(3,), pad=(1,), adj=(1,), no_bias=False, dtype=dt)
    deconv_case('2d_k3_s2_p1_adj1', (2, 3, 4, 5), 4, (3, 3), stride=(2, 2), pad=(1, 1), adj=(1, 1), dtype=dt)
    deconv_case('2d_g2_d2_bias', (1, 4, 4, 4), 6, (3, 2), stride=(1, 2), dilate=(2, 1), groups=2, no_bias=False,
                dtype=dt)
    deconv_case('2d_target_shape', (1, 2, 4, 3), 3, (4, 4), stride=(2, 2), target=(8, 6), dtype=dt)
    deconv_case('2d_target_odd', (1, 2, 3, 3), 2, (3, 3), stride=(2, 2), target=(6, 5), no_bias=False, dtype=dt)
    deconv_case('3d_k2_s2', (1, 2, 2, 3, 2), 2, (2, 2, 2), stride=(2, 2, 2), pad=(0, 1, 0), dtype=dt)
deconv_case('2d_1x1', (2, 5, 3, 3), 4, (1, 1), dtype='float32')

xd = rand((1, 2, 4, 4), 'float32')
wd = rand((2, 3, 3, 3), 'float32')
cases.append(case('deconv_err_adj', 'Deconvolution', [xd, wd],
                  params={'kernel': [3, 3], 'num_filter': 3, 'stride': [2, 2], 'adj': [2, 0]},
                  error='must be smaller than stride'))
cases.append(case('deconv_err_target', 'Deconvolution', [xd, wd],
                  params={'kernel': [3, 3], 'num_filter': 3, 'target_shape': [20, 20]},
                  error='too big target shape'))
cases.append(case('deconv_err_weight', 'Deconvolution', [xd, rand((3, 3, 3, 3), 'float32')],
                  params={'kernel': [3, 3], 'num_filter': 3}, error='weight shape mismatch'))
cases.append(case('deconv_err_layout', 'Deconvolution', [xd, wd],
                  params={'kernel': [3, 3], 'num_filter': 3, 'layout': 'NHWC'},
                  error='only support NCW, NCHW and NCDHW layout'))


# ---- Pooling -------------------------------------------------------------------------------------

LOWEST = {'float32': float(np.finfo(np.float32).min), 'float64': float(np.finfo(np.float64).min)}


def pool_out(x, k, s, p, conv):
    padded = x + 2 * p
    if conv == 'valid':
        return 1 + (padded - k) // s
    if conv == 'full':
        return 1 + int(math.ceil((padded - k) / s))
    return int(math.ceil(padded / s))


def mx_pool(x, kernel, stride, pad, pool_type, conv='valid', cip=True, p=None, global_pool=False):
    """MXNet pool.h on channel-first float64 data; returns (y, backward(dy) -> dx)."""
    sp = x.shape[2:]
    nd = len(sp)
    if global_pool:
        kernel, stride, pad = tuple(sp), (1,) * nd, (0,) * nd
    out = tuple(1 if global_pool else pool_out(sp[i], kernel[i], stride[i], pad[i], conv) for i in range(nd))
    y = np.zeros(x.shape[:2] + out)
    wins = {}
    for o in itertools.product(*[range(n) for n in out]):
        starts = [o[i] * stride[i] - pad[i] for i in range(nd)]
        ends = [min(starts[i] + kernel[i], sp[i]) for i in range(nd)]
        full = [min(starts[i] + kernel[i], sp[i] + pad[i]) - starts[i] for i in range(nd)]
        cs = [max(s, 0) for s in starts]
        sl = tuple(slice(cs[i], ends[i]) for i in range(nd))
        size = int(np.prod(full)) if cip else int(np.prod([max(0, ends[i] - cs[i]) for i in range(nd)]))
        wins[o] = (sl, size)
        win = x[(slice(None), slice(None)) + sl]
        flat = win.reshape(x.shape[0], x.shape[1], -1)
        if pool_type == 'max':
            v = flat.max(axis=2) if flat.shape[2] else np.full(x.shape[:2], -np.inf)
        elif pool_type == 'avg':
            v = flat.sum(axis=2) / size
        elif pool_type == 'sum':
            v = flat.sum(axis=2)
        else:
            s = (flat ** p).sum(axis=2)
            v = s if p == 1 else np.sqrt(s) if p == 2 else np.cbrt(s)
        y[(slice(None), slice(None)) + o] = v

    def backward(dy):
        dx = np.zeros_like(x)
        for o, (sl, size) in wins.items():
            g = dy[(slice(None), slice(None)) + o]
            win = x[(slice(None), slice(None)) + sl]
            shape = win.shape
            flat = win.reshape(shape[0], shape[1], -1)
            yo = y[(slice(None), slice(None)) + o]
            if pool_type == 'max':
                contrib = np.zeros_like(flat)
                for n in range(shape[0]):
                    for c in range(shape[1]):
                        hit = np.nonzero(flat[n, c] == yo[n, c])[0]
                        if hit.size:
                            contrib[n, c, hit[0]] = g[n, c]
            elif pool_type == 'avg':
                contrib = np.broadcast_to((g / size)[:, :, None], flat.shape)
            elif pool_type == 'sum' or p == 1:
                contrib = np.broadcast_to(g[:, :, None], flat.shape)
            else:
                ratio = flat / yo[:, :, None]
                contrib = g[:, :, None] * ratio ** (p - 1)
            dx[(slice(None), slice(None)) + sl] += contrib.reshape(shape)
        return dx

    return y, backward


TORCH_CHECKED = [0]
TORCH_MAX = {1: TF.max_pool1d, 2: TF.max_pool2d, 3: TF.max_pool3d}
TORCH_AVG = {1: TF.avg_pool1d, 2: TF.avg_pool2d, 3: TF.avg_pool3d}


def torch_check(x64, y, dx, dy, kernel, stride, pad, pool_type, conv, cip, p, global_pool):
    """Cross-check the NumPy reference with PyTorch where PyTorch defines the same operation."""
    nd = x64.ndim - 2
    if global_pool:
        kernel, stride, pad, conv = tuple(x64.shape[2:]), (1,) * nd, (0,) * nd, 'valid'
    if conv == 'same':
        return
    ceil = conv == 'full'
    if ceil:
        # PyTorch drops a last window starting in the right padding; MXNet's `full` keeps it.
        for i in range(nd):
            o = pool_out(x64.shape[2 + i], kernel[i], stride[i], pad[i], 'full')
            if (o - 1) * stride[i] >= x64.shape[2 + i] + pad[i]:
                return
    if any(pad[i] * 2 > kernel[i] for i in range(nd)):
        return
    xt = torch.tensor(x64, requires_grad=True)
    if pool_type == 'max':
        yt = TORCH_MAX[nd](xt, kernel, stride, pad, ceil_mode=ceil)
    elif pool_type in ('avg', 'sum'):
        if nd == 1 and not cip:
            return
        yt = TORCH_AVG[nd](xt, kernel, stride, pad, ceil_mode=ceil, count_include_pad=cip)
        if pool_type == 'sum':
            if any(pad) or ceil:
                return
            yt = yt * float(np.prod(kernel))
    else:
        if any(pad) or ceil or nd == 3:
            return
        fn = TF.lp_pool1d if nd == 1 else TF.lp_pool2d
        yt = fn(xt, float(p), kernel if nd == 2 else kernel[0], stride if nd == 2 else stride[0])
    assert np.allclose(yt.detach().numpy(), y, rtol=1e-10, atol=1e-10), 'forward differs from PyTorch'
    yt.backward(torch.tensor(dy))
    assert np.allclose(xt.grad.numpy(), dx, rtol=1e-9, atol=1e-10), 'backward differs from PyTorch'
    TORCH_CHECKED[0] += 1


def pool_case(name, dshape, kernel=None, stride=None, pad=None, pool_type='max', conv=None, cip=None, p=None,
              global_pool=False, layout=None, dtype='float32', positive=False, ties=False):
    if ties:
        x = (rng.integers(-2, 3, size=dshape) / 2.0).astype(dtype)
    else:
        x = rand(dshape, dtype, positive=positive)
    cl = layout is not None and not layout.startswith('NC')
    nd = len(dshape) - 2
    perm = (0, nd + 1) + tuple(range(1, nd + 1))  # channel-last -> channel-first
    inv = (0,) + tuple(range(2, nd + 2)) + (1,)
    xc = np.transpose(x, perm) if cl else x
    x64 = xc.astype(np.float64)
    k = tuple(kernel) if kernel else None
    st = tuple(stride) if stride else (1,) * nd
    pd = tuple(pad) if pad else (0,) * nd
    cip_v = True if cip is None else cip
    y, bwd = mx_pool(x64, k, st, pd, pool_type, conv or 'valid', cip_v, p, global_pool)
    dy = rand(y.shape, dtype)
    dy64 = dy.astype(np.float64)
    dx = bwd(dy64)
    if not ties:
        torch_check(x64, y, dx, dy64, k or (), st, pd, pool_type, conv or 'valid', cip_v, p, global_pool)
    y_dt = y.astype(dtype)
    # The backward reads the forward output as the kernel produced it (rounded to the dtype).
    y_in = y_dt.astype(np.float64)
    if pool_type == 'lp' and p in (2, 3):
        dx = _lp_grad(x64, y_in, dy64, k, st, pd, global_pool, p)
    if cl:
        y_dt = np.transpose(y_dt, inv)
        dy_out = np.transpose(dy, inv)
        dx = np.transpose(dx, inv)
        y_in_out = np.transpose(y_in, inv)
    else:
        dy_out = dy
        y_in_out = y_in
    params = {'pool_type': pool_type} if pool_type != 'max' or global_pool else {}
    if kernel is not None:
        params['kernel'] = list(kernel)
    if stride is not None:
        params['stride'] = list(stride)
    if pad is not None:
        params['pad'] = list(pad)
    if conv is not None:
        params['pooling_convention'] = conv
    if cip is not None:
        params['count_include_pad'] = cip
    if p is not None:
        params['p_value'] = p
    if global_pool:
        params['global_pool'] = True
    if layout is not None:
        params['layout'] = layout
    terms = int(np.prod(kernel)) if kernel else int(np.prod(dshape[2:]))
    t = tol(dtype, terms)
    cases.append(case(f'pool_{name}_{dtype}', 'Pooling', [x], [y_dt], params=params, **t))
    cases.append(case(f'pool_bwd_{name}_{dtype}', '_backward_Pooling',
                      [dy_out, x, y_in_out.astype(dtype)], [dx.astype(dtype)], params=params, **t))


def _lp_grad(x, y, dy, kernel, stride, pad, global_pool, p=None):
    sp = x.shape[2:]
    nd = len(sp)
    if global_pool:
        kernel, stride, pad = tuple(sp), (1,) * nd, (0,) * nd
    dx = np.zeros_like(x)
    for o in itertools.product(*[range(n) for n in y.shape[2:]]):
        starts = [o[i] * stride[i] - pad[i] for i in range(nd)]
        sl = tuple(slice(max(starts[i], 0), min(starts[i] + kernel[i], sp[i])) for i in range(nd))
        yo = y[(slice(None), slice(None)) + o]
        g = dy[(slice(None), slice(None)) + o]
        win = x[(slice(None), slice(None)) + sl]
        ratio = win / yo.reshape(yo.shape + (1,) * nd)
        contrib = g.reshape(g.shape + (1,) * nd) * ratio ** (p - 1)
        contrib = np.where(yo.reshape(yo.shape + (1,) * nd) == 0, 0.0, contrib)
        dx[(slice(None), slice(None)) + sl] += contrib
    return dx


for dt in ('float32', 'float64'):
    pool_case('max_2x2_s2_lenet', (2, 3, 8, 8), (2, 2), (2, 2), dtype=dt)
    pool_case('max_3x3_s1_p1', (1, 2, 7, 9), (3, 3), (1, 1), (1, 1), dtype=dt)
    pool_case('max_3x3_s2_p1_full', (1, 2, 8, 7), (3, 3), (2, 2), (1, 1), conv='full', dtype=dt)
    pool_case('max_1d_k3_s2', (2, 3, 11), (3,), (2,), (1,), dtype=dt)
    pool_case('max_3d', (1, 2, 4, 5, 6), (2, 3, 2), (2, 1, 2), (0, 1, 1), dtype=dt)
    pool_case('max_global', (2, 3, 5, 4), pool_type='max', global_pool=True, dtype=dt)
    pool_case('max_ties', (1, 2, 6, 6), (3, 3), (2, 2), (1, 1), dtype=dt, ties=True)
    pool_case('max_s3_k2', (1, 2, 7, 11), (2, 2), (3, 3), dtype=dt)
    pool_case('avg_3x3_s2_p1', (2, 2, 7, 8), (3, 3), (2, 2), (1, 1), pool_type='avg', dtype=dt)
    pool_case('avg_3x3_s2_p1_nopad', (2, 2, 7, 8), (3, 3), (2, 2), (1, 1), pool_type='avg', cip=False, dtype=dt)
    pool_case('avg_full_cip', (1, 2, 8, 9), (3, 2), (2, 3), (1, 1), pool_type='avg', conv='full', cip=True,
              dtype=dt)
    pool_case('avg_full_nocip', (1, 2, 8, 9), (3, 3), (2, 2), (1, 1), pool_type='avg', conv='full', cip=False,
              dtype=dt)
    pool_case('avg_2x2_s2', (2, 3, 8, 8), (2, 2), (2, 2), pool_type='avg', dtype=dt)
    pool_case('avg_1d', (2, 2, 10), (4,), (3,), (1,), pool_type='avg', dtype=dt)
    pool_case('avg_3d_nocip', (1, 2, 5, 4, 6), (3, 2, 3), (2, 2, 2), (1, 0, 1), pool_type='avg', cip=False,
              dtype=dt)
    pool_case('avg_global', (2, 3, 6, 5), pool_type='avg', global_pool=True, dtype=dt)
    pool_case('sum_2x2', (1, 3, 6, 7), (2, 3), (1, 2), pool_type='sum', dtype=dt)
    pool_case('sum_pad_full', (1, 2, 7, 7), (3, 3), (2, 2), (1, 1), pool_type='sum', conv='full', dtype=dt)
    pool_case('lp1', (1, 2, 6, 6), (2, 2), (2, 2), pool_type='lp', p=1, dtype=dt)
    pool_case('lp2', (1, 2, 7, 6), (3, 2), (2, 2), pool_type='lp', p=2, dtype=dt)
    pool_case('lp2_pad', (1, 2, 7, 6), (3, 3), (2, 2), (1, 1), pool_type='lp', p=2, dtype=dt)
    pool_case('lp3', (1, 2, 6, 7), (2, 3), (2, 2), pool_type='lp', p=3, dtype=dt, positive=True)
    pool_case('lp2_1d', (2, 2, 9), (3,), (2,), pool_type='lp', p=2, dtype=dt)
    pool_case('same_1d', (2, 2, 10), (3,), (3,), conv='same', dtype=dt)
    pool_case('max_nhwc', (2, 6, 5, 3), (3, 2), (2, 1), (1, 0), layout='NHWC', dtype=dt)
    pool_case('avg_nwc', (2, 9, 3), (3,), (2,), (1,), pool_type='avg', layout='NWC', dtype=dt)
    pool_case('max_ndhwc', (1, 4, 4, 5, 2), (2, 2, 3), (2, 2, 1), layout='NDHWC', dtype=dt)
    pool_case('avg_global_nhwc', (2, 4, 3, 3), pool_type='avg', global_pool=True, layout='NHWC', dtype=dt)
pool_case('max_layout_nchw', (1, 2, 5, 5), (2, 2), (1, 1), layout='NCHW', dtype='float32')
pool_case('avg_same_1d_stride2', (1, 3, 9), (2,), (2,), pool_type='avg', conv='same', dtype='float64')

xp = rand((1, 2, 5, 5), 'float32')
cases.append(case('pool_err_kernel_exceeds', 'Pooling', [xp], params={'kernel': [6, 6]},
                  error='kernel size (6) exceeds input (5 padded to 5)'))
cases.append(case('pool_err_lp_without_p', 'Pooling', [xp], params={'kernel': [2, 2], 'pool_type': 'lp'},
                  error='p_value is required for Lp pooling'))
cases.append(case('pool_err_lp_p4', 'Pooling', [xp], params={'kernel': [2, 2], 'pool_type': 'lp', 'p_value': 4},
                  error='p value of 4 is not supported'))
cases.append(case('pool_err_same_2d', 'Pooling', [xp], params={'kernel': [2, 2], 'pooling_convention': 'same'},
                  error="Currently 'same' supports Max Pooling 1-D"))
cases.append(case('pool_err_same_pad', 'Pooling', [rand((1, 2, 6), 'float32')],
                  params={'kernel': [2], 'pad': [1], 'pooling_convention': 'same'},
                  error='Same pooling convention disables the use of pad parameter'))
cases.append(case('pool_err_data_rank', 'Pooling', [rand((2, 5), 'float32')], params={'kernel': [2]},
                  error='Pooling: Input data should be  3D'))
cases.append(case('pool_err_kernel_rank', 'Pooling', [xp], params={'kernel': [2]},
                  error='needs 3-D data'))
cases.append(case('pool_err_no_kernel', 'Pooling', [xp], params={},
                  error='kernel is required unless global_pool is set'))
cases.append(case('pool_err_layout_rank', 'Pooling', [xp], params={'kernel': [2, 2], 'layout': 'NCW'},
                  error='Need 2D layout'))
cases.append(case('pool_bwd_err_output_shape', '_backward_Pooling',
                  [rand((1, 2, 2, 2), 'float32'), xp, rand((1, 2, 3, 3), 'float32')],
                  params={'kernel': [2, 2], 'stride': [2, 2]}, error='output shape mismatch'))

print(f'{TORCH_CHECKED[0]} pooling cases cross-checked against PyTorch')
write('conv', cases)
