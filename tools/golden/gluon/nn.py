#!/usr/bin/env python3
"""Golden data for @mx/gluon's layers (packages/gluon/src/nn/*.test.ts except basic.test.ts).

Every expected value is computed here in float64 with PyTorch (conv, pooling, normalization,
activations) or NumPy (what PyTorch lacks in MXNet's form: LayerNorm on another axis, MXNet's
pixel shuffle for 1-D/3-D and unequal factors, the running statistics of BatchNorm), never with
@mx code.

Each case holds the layer's options in the TypeScript spelling (the test builds the layer from
them), the input `x`, the parameter values the test writes with `setData` after `initialize`, a
head gradient `head`, the output `y`, and the gradients of sum(y * head) with respect to the input
and the parameters. Inputs and parameters are sin(0.61 * i + seed) * scale rounded to float32, so
the stored values are exactly what both sides compute with; results are rounded from float64.

BatchNorm follows MXNet's conventions, converted from PyTorch's where they differ:
  - momentum: moving = moving * momentum + batch * (1 - momentum), momentum 0.9 here,
    where PyTorch's momentum is the weight of the batch value;
  - the moving variance takes the biased batch variance (MXNet's CPU kernel), where PyTorch
    folds in the unbiased one; both are computed here with NumPy from the batch;
  - scale=False is fix_gamma: gamma is taken as 1.

Writes packages/gluon/src/__golden__/nn-{conv,pool,norm,act,misc}.json. Run from anywhere with
the system Python (NumPy and PyTorch):
    /usr/bin/python3 tools/golden/gluon/nn.py
"""
import json
import pathlib

import numpy as np
import torch
import torch.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / 'packages/gluon/src/__golden__'

torch.set_default_dtype(torch.float64)


def vals(shape, seed, scale=1.0):
    """float32 values sin(0.61 * i + seed) * scale, as float64."""
    n = int(np.prod(shape))
    v = (np.sin(0.61 * np.arange(n) + seed) * scale).astype(np.float32)
    return v.astype(np.float64).reshape(shape)


def enc(a):
    a = np.asarray(a, dtype=np.float64)
    return {'shape': list(a.shape), 'data': a.astype(np.float32).astype(np.float64).ravel().tolist()}


def tt(a):
    return torch.tensor(a, requires_grad=True)


def run(fn, x, params, seed):
    """y = fn(x, params); gradients of sum(y * head) for x and every parameter."""
    tx = tt(x)
    tp = {k: tt(v) for k, v in params.items()}
    y = fn(tx, tp)
    head = vals(tuple(y.shape), seed + 50, 1.0)
    (y * torch.tensor(head)).sum().backward()
    grads = {'x': enc(tx.grad.numpy())}
    for k, v in tp.items():
        grads[k] = enc(v.grad.numpy() if v.grad is not None else np.zeros(v.shape))
    return {
        'x': enc(x),
        'params': {k: enc(v) for k, v in params.items()},
        'head': enc(head),
        'y': enc(y.detach().numpy()),
        'grads': grads,
    }


def tup(v, n):
    return tuple(v) if isinstance(v, (list, tuple)) else (v,) * n


# ---------------------------------------------------------------------------------------------
# Convolution
# ---------------------------------------------------------------------------------------------

def conv_case(cls, dims, x_shape, channels, kernel, opts, seed):
    transpose = cls.endswith('Transpose')
    k = tup(kernel, dims)
    groups = opts.get('groups', 1)
    cin = x_shape[1]
    wshape = (cin, channels // groups) + k if transpose else (channels, cin // groups) + k
    params = {'weight': vals(wshape, seed + 1, 0.5)}
    if opts.get('useBias', True):
        params['bias'] = vals((channels,), seed + 2, 0.5)
    x = vals(x_shape, seed, 1.0)
    stride = tup(opts.get('strides', 1), dims)
    pad = tup(opts.get('padding', 0), dims)
    dil = tup(opts.get('dilation', 1), dims)
    act = opts.get('activation')

    def fn(tx, tp):
        b = tp.get('bias')
        if transpose:
            op = [F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d][dims - 1]
            out = op(tx, tp['weight'], b, stride=stride, padding=pad,
                     output_padding=tup(opts.get('outputPadding', 0), dims), groups=groups, dilation=dil)
        else:
            op = [F.conv1d, F.conv2d, F.conv3d][dims - 1]
            out = op(tx, tp['weight'], b, stride=stride, padding=pad, dilation=dil, groups=groups)
        if act == 'relu':
            out = torch.relu(out)
        elif act == 'tanh':
            out = torch.tanh(out)
        return out

    case = run(fn, x, params, seed)
    case.update({'cls': cls, 'channels': channels, 'kernelSize': kernel, 'options': opts})
    return case


def conv():
    return {
        'conv1d': conv_case('Conv1D', 1, (2, 4, 9), 6, 3, {'strides': 2, 'padding': 1, 'groups': 2}, 10),
        'conv2d': conv_case('Conv2D', 2, (2, 3, 7, 6), 4, [3, 2],
                            {'strides': [2, 1], 'padding': [1, 0], 'dilation': [1, 2], 'activation': 'tanh'}, 20),
        'conv3d': conv_case('Conv3D', 3, (1, 2, 5, 4, 4), 3, 2, {'padding': 1, 'useBias': False}, 30),
        'conv1d_transpose': conv_case('Conv1DTranspose', 1, (2, 4, 5), 3, 3,
                                      {'strides': 2, 'padding': 1, 'outputPadding': 1}, 40),
        'conv2d_transpose': conv_case('Conv2DTranspose', 2, (1, 4, 3, 4), 6, [3, 3],
                                      {'strides': 2, 'padding': 1, 'outputPadding': [1, 0], 'groups': 2}, 50),
        'conv3d_transpose': conv_case('Conv3DTranspose', 3, (1, 2, 2, 3, 3), 2, 2,
                                      {'strides': 2, 'dilation': 1, 'activation': 'relu'}, 60),
    }


# ---------------------------------------------------------------------------------------------
# Pooling
# ---------------------------------------------------------------------------------------------

def pool_case(cls, x_shape, opts, seed):
    dims = len(x_shape) - 2
    x = vals(x_shape, seed, 1.0)
    glob = cls.startswith('Global')
    kind = 'max' if 'Max' in cls else 'avg'

    def fn(tx, _):
        axes = tuple(range(2, 2 + dims))
        if glob:
            return tx.amax(dim=axes, keepdim=True) if kind == 'max' else tx.mean(dim=axes, keepdim=True)
        k = tup(opts.get('poolSize', 2), dims)
        s = tup(opts['strides'], dims) if opts.get('strides') is not None else k
        p = tup(opts.get('padding', 0), dims)
        ceil = opts.get('ceilMode', False)
        if kind == 'max':
            op = [F.max_pool1d, F.max_pool2d, F.max_pool3d][dims - 1]
            return op(tx, k, s, p, ceil_mode=ceil)
        op = [F.avg_pool1d, F.avg_pool2d, F.avg_pool3d][dims - 1]
        return op(tx, k, s, p, ceil_mode=ceil, count_include_pad=opts.get('countIncludePad', True))

    case = run(fn, x, {}, seed)
    case.update({'cls': cls, 'options': opts})
    return case


def pool():
    return {
        'maxpool1d': pool_case('MaxPool1D', (2, 3, 8), {'poolSize': 3, 'strides': 2, 'padding': 1}, 100),
        'maxpool2d_ceil': pool_case('MaxPool2D', (1, 2, 7, 7), {'poolSize': 3, 'strides': 2, 'ceilMode': True}, 110),
        'maxpool3d': pool_case('MaxPool3D', (1, 2, 4, 4, 4), {}, 120),
        'avgpool1d': pool_case('AvgPool1D', (2, 2, 9), {'poolSize': 4, 'strides': 2}, 130),
        'avgpool2d_pad': pool_case('AvgPool2D', (1, 2, 5, 6), {'poolSize': [3, 2], 'strides': [2, 2], 'padding': [1, 1]}, 140),
        'avgpool2d_pad_exclude': pool_case('AvgPool2D', (1, 2, 5, 6),
                                           {'poolSize': 3, 'strides': 2, 'padding': 1, 'countIncludePad': False}, 150),
        'avgpool3d': pool_case('AvgPool3D', (1, 1, 4, 6, 4), {'poolSize': [2, 3, 2]}, 160),
        'global_maxpool1d': pool_case('GlobalMaxPool1D', (2, 3, 7), {}, 170),
        'global_maxpool2d': pool_case('GlobalMaxPool2D', (2, 3, 4, 5), {}, 180),
        'global_maxpool3d': pool_case('GlobalMaxPool3D', (1, 2, 3, 3, 4), {}, 190),
        'global_avgpool1d': pool_case('GlobalAvgPool1D', (2, 3, 7), {}, 200),
        'global_avgpool2d': pool_case('GlobalAvgPool2D', (2, 3, 4, 5), {}, 210),
        'global_avgpool3d': pool_case('GlobalAvgPool3D', (1, 2, 3, 3, 4), {}, 220),
    }


# ---------------------------------------------------------------------------------------------
# Normalization
# ---------------------------------------------------------------------------------------------

def bcast(v, ndim, axis):
    shape = [1] * ndim
    shape[axis] = -1
    return v.reshape(shape)


def batchnorm_case(x_shape, opts, train, seed):
    ndim = len(x_shape)
    axis = opts.get('axis', 1) % ndim
    c = x_shape[axis]
    eps = opts.get('epsilon', 1e-5)
    mom = opts.get('momentum', 0.9)
    scale = opts.get('scale', True)
    x = vals(x_shape, seed, 2.0) + 0.5
    params = {'gamma': vals((c,), seed + 1, 0.5) + 1.0, 'beta': vals((c,), seed + 2, 0.5)}
    running_mean = vals((c,), seed + 3, 0.2)
    running_var = vals((c,), seed + 4, 0.3) + 1.0
    red = tuple(i for i in range(ndim) if i != axis)

    def fn(tx, tp):
        g = tp['gamma'] if scale else torch.ones(c)
        if train:
            mean = tx.mean(dim=red, keepdim=True)
            var = ((tx - mean) ** 2).mean(dim=red, keepdim=True)
        else:
            mean = bcast(torch.tensor(running_mean), ndim, axis)
            var = bcast(torch.tensor(running_var), ndim, axis)
        return (tx - mean) / torch.sqrt(var + eps) * bcast(g, ndim, axis) + bcast(tp['beta'], ndim, axis)

    case = run(fn, x, params, seed)
    # Cross-check the training-mode output with PyTorch's own batch_norm (same formula).
    if train:
        perm = (0, axis) + tuple(i for i in range(1, ndim) if i != axis) if axis != 1 else tuple(range(ndim))
        xt = torch.tensor(x).permute(*perm) if axis != 1 else torch.tensor(x)
        ref = F.batch_norm(xt, None, None, torch.tensor(params['gamma']) if scale else None,
                           torch.tensor(params['beta']), training=True, eps=eps)
        inv = np.argsort(perm)
        ref = ref.permute(*inv).numpy()
        assert np.allclose(ref, np.array(case['y']['data']).reshape(ref.shape), atol=1e-5)
    batch_mean = x.mean(axis=red)
    batch_var = x.var(axis=red)  # biased, as MXNet's CPU kernel
    if train:
        case['running_mean_after'] = enc(running_mean * mom + batch_mean * (1 - mom))
        case['running_var_after'] = enc(running_var * mom + batch_var * (1 - mom))
    else:
        case['running_mean_after'] = enc(running_mean)
        case['running_var_after'] = enc(running_var)
    case['params']['running_mean'] = enc(running_mean)
    case['params']['running_var'] = enc(running_var)
    case.update({'cls': 'BatchNorm', 'options': opts, 'train': train})
    return case


def layernorm_case(x_shape, opts, seed):
    ndim = len(x_shape)
    axis = opts.get('axis', -1) % ndim
    c = x_shape[axis]
    eps = opts.get('epsilon', 1e-5)
    x = vals(x_shape, seed, 1.5)
    params = {'gamma': vals((c,), seed + 1, 0.5) + 1.0, 'beta': vals((c,), seed + 2, 0.5)}

    def fn(tx, tp):
        mean = tx.mean(dim=axis, keepdim=True)
        var = ((tx - mean) ** 2).mean(dim=axis, keepdim=True)
        return (tx - mean) / torch.sqrt(var + eps) * bcast(tp['gamma'], ndim, axis) + bcast(tp['beta'], ndim, axis)

    case = run(fn, x, params, seed)
    if axis == ndim - 1:
        ref = F.layer_norm(torch.tensor(x), (c,), torch.tensor(params['gamma']), torch.tensor(params['beta']), eps)
        assert np.allclose(ref.numpy().ravel(), case['y']['data'], atol=1e-5)
    case.update({'cls': 'LayerNorm', 'options': opts})
    return case


def groupnorm_case(x_shape, opts, seed):
    c = x_shape[1]
    x = vals(x_shape, seed, 1.5)
    params = {'gamma': vals((c,), seed + 1, 0.5) + 1.0, 'beta': vals((c,), seed + 2, 0.5)}

    def fn(tx, tp):
        return F.group_norm(tx, opts['numGroups'], tp['gamma'], tp['beta'], opts.get('epsilon', 1e-5))

    case = run(fn, x, params, seed)
    case.update({'cls': 'GroupNorm', 'options': opts})
    return case


def instancenorm_case(x_shape, opts, seed):
    ndim = len(x_shape)
    axis = opts.get('axis', 1)
    c = x_shape[axis]
    x = vals(x_shape, seed, 1.5)
    params = {'gamma': vals((c,), seed + 1, 0.5) + 1.0, 'beta': vals((c,), seed + 2, 0.5)}

    def fn(tx, tp):
        xt = tx.transpose(1, axis)
        out = F.instance_norm(xt, weight=tp['gamma'], bias=tp['beta'], eps=opts.get('epsilon', 1e-5))
        return out.transpose(1, axis)

    case = run(fn, x, params, seed)
    case.update({'cls': 'InstanceNorm', 'options': opts, 'ndim': ndim})
    return case


def norm():
    return {
        'batchnorm_train': batchnorm_case((4, 3, 5), {}, True, 300),
        'batchnorm_train_nhwc': batchnorm_case((2, 3, 2, 4), {'axis': -1, 'momentum': 0.8, 'epsilon': 1e-3}, True, 310),
        'batchnorm_train_noscale': batchnorm_case((3, 2, 4), {'scale': False}, True, 320),
        'batchnorm_predict': batchnorm_case((4, 3, 5), {}, False, 330),
        'layernorm': layernorm_case((2, 3, 6), {}, 340),
        'layernorm_axis1': layernorm_case((2, 5, 3), {'axis': 1, 'epsilon': 1e-3}, 350),
        'groupnorm': groupnorm_case((2, 6, 4, 3), {'numGroups': 3}, 360),
        'instancenorm': instancenorm_case((2, 3, 5, 4), {}, 370),
        'instancenorm_axis2': instancenorm_case((2, 5, 3, 4), {'axis': 2}, 380),
    }


# ---------------------------------------------------------------------------------------------
# Activations
# ---------------------------------------------------------------------------------------------

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_LAMBDA = 1.0507009873554804934193349852946


def act_case(cls, args, fn, seed, params=None, x_shape=(2, 3, 4)):
    x = vals(x_shape, seed, 3.0)
    case = run(fn, x, params or {}, seed)
    case.update({'cls': cls, 'args': args})
    return case


def act():
    return {
        'leakyrelu': act_case('LeakyReLU', [0.1], lambda x, _: F.leaky_relu(x, 0.1), 400),
        'prelu_shared': act_case('PReLU', [{}], lambda x, p: F.prelu(x, p['alpha']), 410,
                                 {'alpha': np.array([0.3])}),
        'prelu_channels': act_case('PReLU', [{'inChannels': 3}], lambda x, p: F.prelu(x, p['alpha']), 420,
                                   {'alpha': np.array([0.1, -0.2, 0.5])}),
        'elu': act_case('ELU', [0.7], lambda x, _: F.elu(x, 0.7), 430),
        'selu': act_case('SELU', [], lambda x, _: SELU_LAMBDA * torch.where(
            x > 0, x, SELU_ALPHA * (torch.exp(x) - 1)), 440),
        'gelu_erf': act_case('GELU', [], lambda x, _: F.gelu(x), 450),
        'gelu_tanh': act_case('GELU', ['tanh'], lambda x, _: F.gelu(x, approximate='tanh'), 460),
        'swish': act_case('Swish', [1.5], lambda x, _: x * torch.sigmoid(1.5 * x), 470),
        'silu': act_case('SiLU', [], lambda x, _: F.silu(x), 480),
    }


# ---------------------------------------------------------------------------------------------
# Embedding, padding, pixel shuffle, concatenation
# ---------------------------------------------------------------------------------------------

def pixel_shuffle(x, factors):
    """MXNet's PixelShuffleND on a NumPy array or a tensor: channel c * prod(f) + (i1 ... in) goes to
    the spatial offsets (i1 ... in) of channel c."""
    n, cf = x.shape[:2]
    sp = tuple(x.shape[2:])
    d = len(factors)
    c = cf // int(np.prod(factors))
    y = x.reshape((n, c) + tuple(factors) + sp)
    # (N, C, f1..fd, s1..sd) -> (N, C, s1, f1, ..., sd, fd)
    perm = [0, 1]
    for i in range(d):
        perm += [2 + d + i, 2 + i]
    y = y.permute(*perm) if isinstance(y, torch.Tensor) else y.transpose(perm)
    return y.reshape((n, c) + tuple(s * f for s, f in zip(sp, factors)))


def misc():
    out = {}
    # Embedding: indices as float32 (MXNet's input dtype), weight gradient by index-add.
    idx = np.array([[1, 4, 0], [4, 2, 4]], dtype=np.float64)
    w = vals((5, 3), 500, 1.0)
    head = vals((2, 3, 3), 550, 1.0)
    y = w[idx.astype(np.int64)]
    gw = np.zeros_like(w)
    np.add.at(gw, idx.astype(np.int64).ravel(), head.reshape(-1, 3))
    tw = tt(w)
    ty = F.embedding(torch.tensor(idx.astype(np.int64)), tw)
    (ty * torch.tensor(head)).sum().backward()
    assert np.allclose(tw.grad.numpy(), gw)
    out['embedding'] = {'cls': 'Embedding', 'args': [5, 3], 'x': enc(idx), 'params': {'weight': enc(w)},
                        'head': enc(head), 'y': enc(y), 'grads': {'weight': enc(gw)}}

    x = vals((1, 2, 4, 5), 510, 1.0)
    out['reflectionpad2d'] = run(lambda tx, _: F.pad(tx, (2, 2, 2, 2), mode='reflect'), x, {}, 510)
    out['reflectionpad2d'].update({'cls': 'ReflectionPad2D', 'args': [2]})

    for name, cls, shape, factor, seed in (
        ('pixelshuffle1d', 'PixelShuffle1D', (2, 6, 3), [3], 520),
        ('pixelshuffle2d', 'PixelShuffle2D', (1, 12, 2, 3), [2, 3], 530),
        ('pixelshuffle3d', 'PixelShuffle3D', (1, 24, 2, 1, 2), [2, 3, 2], 540),
    ):
        x = vals(shape, seed, 1.0)
        case = run(lambda tx, _, f=factor: pixel_shuffle(tx, f), x, {}, seed)
        # Independently: the gradient of a permutation is the head gradient permuted back.
        head = np.array(case['head']['data']).reshape(case['head']['shape'])
        perm = pixel_shuffle(np.arange(x.size).reshape(shape), factor).ravel()
        gx = np.zeros(x.size)
        gx[perm] = head.ravel()
        assert np.array_equal(np.array(case['grads']['x']['data']), gx.astype(np.float32).astype(np.float64))
        case.update({'cls': cls, 'args': [factor if len(factor) > 1 else factor[0]]})
        out[name] = case
    # PyTorch's pixel_shuffle agrees for equal 2-D factors.
    x = vals((1, 8, 2, 3), 560, 1.0)
    assert np.allclose(pixel_shuffle(x, [2, 2]), F.pixel_shuffle(torch.tensor(x), 2).numpy())

    # HybridConcatenate(axis=-1) of Dense(4) and Identity on (3, 5) data, and axis=1 of two Dense.
    x = vals((3, 5), 570, 1.0)
    w1, b1 = vals((4, 5), 571, 0.5), vals((4,), 572, 0.5)
    w2, b2 = vals((2, 5), 573, 0.5), vals((2,), 574, 0.5)
    out['concatenate'] = {'x': enc(x), 'params': {'0.weight': enc(w1), '0.bias': enc(b1)},
                          'y': enc(np.concatenate([x @ w1.T + b1, x], axis=-1))}
    out['concatenate_two'] = {'x': enc(x), 'params': {'0.weight': enc(w1), '0.bias': enc(b1),
                                                      '1.weight': enc(w2), '1.bias': enc(b2)},
                              'y': enc(np.concatenate([x @ w1.T + b1, x @ w2.T + b2], axis=1))}
    return out


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for name, gen in (('conv', conv), ('pool', pool), ('norm', norm), ('act', act), ('misc', misc)):
        path = OUT / f'nn-{name}.json'
        path.write_text(json.dumps(gen(), separators=(',', ':')) + '\n')
        print(f'wrote {path.relative_to(ROOT)} ({path.stat().st_size} bytes)')


if __name__ == '__main__':
    main()
