#!/usr/bin/env python3
"""Golden data for the symbol package's executor tests (packages/symbol/src/executor/*.test.ts).

Three references, none computed with @mx code:

1. LeNet (conv 20 5x5 -> tanh -> maxpool 2 -> conv 50 5x5 -> tanh -> maxpool 2 -> flatten -> fc 500
   -> tanh -> fc 10 -> SoftmaxOutput): the softmax output and the gradient of every argument, with
   PyTorch in float64. SoftmaxOutput's gradient (grad_scale 1, normalization 'null') is
   softmax - one_hot(label), i.e. the gradient of the summed cross-entropy.
2. An MLP 784-128-64-10 (relu) with Gluon's SoftmaxCrossEntropyLoss as graph ops
   (-pick(log_softmax(x), label)): the per-sample losses and the gradients for head gradients of
   ones and for given head gradients.
3. The real Gluon export in packages/symbol/src/__fixtures__/gluon-export (MXNet 1.6): logits of four MNIST
   validation digits by an independent NumPy forward pass, with the .params file parsed here from
   MXNet's legacy list format (mxnet-catalog.md section 4).

Inputs and weights of 1 and 2 are generated with xorshift32 (seed per array, the test regenerates
them bit for bit: every value is a 24-bit fraction times a power of two, exact in float32), so the
golden file holds only results; their sums are stored to check the regeneration. The largest weight
gradients (fc1 of each network) are stored as factors: grad = sum_n outer(u[n], v[n]) with u the
gradient at the layer's output and v its input, which the test expands in float64.

Floats are stored as base64 of little-endian float32 (results are rounded from float64 once).
Writes packages/symbol/src/__golden__/executor.json. Run from anywhere, with a Python that has
NumPy and PyTorch (here the system one: /usr/bin/python3):
    python3 tools/golden/graph/executor.py
"""
import base64
import gzip
import json
import pathlib
import struct

import numpy as np
import torch
import torch.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / 'packages/symbol/src/__golden__/executor.json'
FIXTURES = ROOT / 'packages/symbol/src/__fixtures__/gluon-export'
MNIST_VAL = ROOT / 'packages/io/data/mnist/val-images-idx3-ubyte.gz'

torch.set_default_dtype(torch.float64)


def xorshift(seed, n, center, scale):
    """n float32 values ((x >> 8) / 2^24 - center) * scale from xorshift32 (13, 17, 5)."""
    x = seed & 0xFFFFFFFF
    out = np.empty(n, dtype=np.float64)
    for i in range(n):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        out[i] = ((x >> 8) / 16777216.0 - center) * scale
    f = out.astype(np.float32)
    assert np.array_equal(f.astype(np.float64), out), 'values must be exact in float32'
    return f


def b64(a):
    return base64.b64encode(np.ascontiguousarray(a, dtype='<f4').tobytes()).decode('ascii')


def arr(a):
    a = np.asarray(a)
    return {'shape': list(a.shape), 'data': b64(a)}


def gen_inputs(specs):
    """specs: [(name, shape, seed, center, scale)] -> (dict of float32 arrays, JSON descriptions)."""
    values, desc = {}, []
    for name, shape, seed, center, scale in specs:
        v = xorshift(seed, int(np.prod(shape)), center, scale).reshape(shape)
        values[name] = v
        desc.append({'name': name, 'shape': list(shape), 'seed': seed, 'center': center, 'scale': scale,
                     'sum': float(v.astype(np.float64).sum())})
    return values, desc


def t(a, grad=True):
    return torch.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def lenet():
    n = 4
    specs = [
        ('data', (n, 1, 28, 28), 11, 0.0, 1.0),
        ('conv1_weight', (20, 1, 5, 5), 12, 0.5, 0.5),
        ('conv1_bias', (20,), 13, 0.5, 0.25),
        ('conv2_weight', (50, 20, 5, 5), 14, 0.5, 0.125),
        ('conv2_bias', (50,), 15, 0.5, 0.25),
        ('fc1_weight', (500, 800), 16, 0.5, 0.0625),
        ('fc1_bias', (500,), 17, 0.5, 0.25),
        ('fc2_weight', (10, 500), 18, 0.5, 0.125),
        ('fc2_bias', (10,), 19, 0.5, 0.25),
    ]
    v, desc = gen_inputs(specs)
    label = np.array([3, 7, 0, 9], dtype=np.float32)
    p = {k: t(x) for k, x in v.items()}
    c1 = F.conv2d(p['data'], p['conv1_weight'], p['conv1_bias'])
    s1 = F.max_pool2d(torch.tanh(c1), 2, 2)
    c2 = F.conv2d(s1, p['conv2_weight'], p['conv2_bias'])
    s2 = F.max_pool2d(torch.tanh(c2), 2, 2)
    f = s2.reshape(n, -1)
    h = f @ p['fc1_weight'].T + p['fc1_bias']
    h.retain_grad()
    o = torch.tanh(h) @ p['fc2_weight'].T + p['fc2_bias']
    prob = torch.softmax(o, dim=1)
    F.cross_entropy(o, torch.tensor(label.astype(np.int64)), reduction='sum').backward()
    grads = {k: arr(x.grad.numpy()) for k, x in p.items() if k != 'fc1_weight'}
    grads['fc1_weight'] = {'factors': {'u': arr(h.grad.numpy()), 'v': arr(f.detach().numpy())}}
    return {
        'inputs': desc,
        'label': label.tolist(),
        'output': arr(prob.detach().numpy()),
        'grads': grads,
    }


def mlp():
    n = 4
    specs = [
        ('data', (n, 784), 21, 0.0, 1.0),
        ('fc1_weight', (128, 784), 22, 0.5, 0.125),
        ('fc1_bias', (128,), 23, 0.5, 0.25),
        ('fc2_weight', (64, 128), 24, 0.5, 0.25),
        ('fc2_bias', (64,), 25, 0.5, 0.25),
        ('fc3_weight', (10, 64), 26, 0.5, 0.25),
        ('fc3_bias', (10,), 27, 0.5, 0.25),
    ]
    v, desc = gen_inputs(specs)
    label = np.array([1, 4, 9, 2], dtype=np.float32)
    head = np.array([1.0, 0.5, -2.0, 0.25], dtype=np.float32)
    cases = {}
    for key, hg in (('ones', np.ones(n, dtype=np.float32)), ('given', head)):
        p = {k: t(x) for k, x in v.items()}
        h1 = p['data'] @ p['fc1_weight'].T + p['fc1_bias']
        h1.retain_grad()
        a1 = torch.relu(h1)
        a2 = torch.relu(a1 @ p['fc2_weight'].T + p['fc2_bias'])
        o = a2 @ p['fc3_weight'].T + p['fc3_bias']
        loss = -torch.log_softmax(o, dim=1).gather(1, torch.tensor(label.astype(np.int64))[:, None])[:, 0]
        loss.backward(torch.tensor(hg.astype(np.float64)))
        grads = {k: arr(x.grad.numpy()) for k, x in p.items() if k != 'fc1_weight'}
        grads['fc1_weight'] = {'factors': {'u': arr(h1.grad.numpy()), 'v': arr(v['data'])}}
        cases[key] = {'headGrad': head.tolist() if key == 'given' else None, 'grads': grads,
                      'output': arr(loss.detach().numpy())}
    return {'inputs': desc, 'label': label.tolist(), **cases}


# ---- the Gluon export ------------------------------------------------------------------------------

DTYPES = {0: np.float32, 1: np.float64, 2: np.float16, 3: np.uint8, 4: np.int32, 5: np.int8, 6: np.int64}


def load_params(path):
    """MXNet's legacy NDArray list (V2 records, what 1.x nd.save writes), parsed from the bytes."""
    b = path.read_bytes()
    pos = 0

    def take(fmt):
        nonlocal pos
        vals = struct.unpack_from('<' + fmt, b, pos)
        pos += struct.calcsize('<' + fmt)
        return vals

    magic, _reserved, count = take('QQQ')
    assert magic == 0x112, hex(magic)
    arrays = []
    for _ in range(count):
        (rmagic,) = take('I')
        assert rmagic == 0xF993FAC9, hex(rmagic)  # V2
        (stype,) = take('i')
        assert stype == 0, 'dense only'
        (ndim,) = take('i')
        shape = take('q' * ndim)
        _dev_type, _dev_id = take('ii')
        (flag,) = take('i')
        dt = np.dtype(DTYPES[flag]).newbyteorder('<')
        size = int(np.prod(shape))
        arrays.append(np.frombuffer(b, dtype=dt, count=size, offset=pos).reshape(shape).copy())
        pos += size * dt.itemsize
    (nnames,) = take('Q')
    names = []
    for _ in range(nnames):
        (ln,) = take('Q')
        names.append(b[pos:pos + ln].decode('utf-8'))
        pos += ln
    assert pos == len(b), 'trailing bytes'
    return dict(zip(names, arrays))


def conv2d(x, w, bias):
    """Valid convolution, stride 1 (NCHW, OIHW), in float64."""
    n, c, hh, ww = x.shape
    o, _, kh, kw = w.shape
    oh, ow = hh - kh + 1, ww - kw + 1
    cols = np.empty((n, c, kh, kw, oh, ow))
    for i in range(kh):
        for j in range(kw):
            cols[:, :, i, j] = x[:, :, i:i + oh, j:j + ow]
    return np.einsum('nckluv,ockl->nouv', cols, w) + bias[None, :, None, None]


def maxpool2(x):
    n, c, hh, ww = x.shape
    oh, ow = (hh - 2) // 2 + 1, (ww - 2) // 2 + 1  # pooling_convention 'valid'
    x = x[:, :, :oh * 2, :ow * 2].reshape(n, c, oh, 2, ow, 2)
    return x.max(axis=(3, 5))


def fashion():
    params = load_params(FIXTURES / 'fashion-mnist-0039.params')
    g = {k.split(':', 1)[1]: v.astype(np.float64) for k, v in params.items()}
    with gzip.open(MNIST_VAL, 'rb') as fh:
        raw = fh.read()
    _, count, rows, cols = struct.unpack_from('>IIII', raw, 0)
    images = np.frombuffer(raw, dtype=np.uint8, count=4 * rows * cols, offset=16)
    x32 = (images.astype(np.float32) / np.float32(255)).reshape(4, 1, rows, cols)
    x = x32.astype(np.float64)
    pre = 'hybridsequential16_'
    y = np.tanh(conv2d(x, g[pre + 'conv0_weight'], g[pre + 'conv0_bias']))
    y = maxpool2(y).reshape(4, -1)
    y = np.tanh(y @ g[pre + 'dense0_weight'].T + g[pre + 'dense0_bias'])
    y = np.tanh(y @ g[pre + 'dense1_weight'].T + g[pre + 'dense1_bias'])
    return {'data': arr(x32), 'logits': arr(y), 'params': sorted(params.keys())}


def main():
    golden = {'lenet': lenet(), 'mlp': mlp(), 'fashion': fashion()}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(golden, separators=(',', ':')) + '\n')
    print(f'wrote {OUT} ({OUT.stat().st_size} bytes)')


if __name__ == '__main__':
    main()
