#!/usr/bin/env python3
"""Golden data for `npx`'s neural-network functions (packages/ndarray/src/np/fns/npx.test.ts):
each case is the function's inputs and options (camelCase, as the TypeScript call takes them) and
the result computed by NumPy 1.24.2 / PyTorch (Debian's, via /usr/bin/python3) from MXNet 2.0's
definitions of the operators. Writes packages/ndarray/src/np/__golden__/npx.json.
"""
import json
import pathlib

import numpy as np
import torch

OUT = pathlib.Path(__file__).resolve().parents[3] / 'packages/ndarray/src/np/__golden__/npx.json'
rng = np.random.default_rng(2020)


def enc(a):
    a = np.asarray(a)
    return {'shape': list(a.shape), 'dtype': str(a.dtype), 'data': a.ravel().tolist()}


def r(*shape):
    return rng.standard_normal(shape).astype('float32')


cases = []


def case(fn, args, options, expect):
    cases.append({'fn': fn, 'args': [enc(a) for a in args], 'options': options,
                  'expect': [enc(e) for e in (expect if isinstance(expect, list) else [expect])]})


x = r(2, 5)
e = np.exp(x - x.max(axis=-1, keepdims=True))
case('softmax', [x], {}, e / e.sum(-1, keepdims=True))
e0 = np.exp(x / 2 - (x / 2).max(axis=0, keepdims=True))
case('softmax', [x], {'axis': 0, 'temperature': 2.0}, e0 / e0.sum(0, keepdims=True))
case('logSoftmax', [x], {}, x - x.max(-1, keepdims=True) - np.log(np.exp(x - x.max(-1, keepdims=True)).sum(-1, keepdims=True)))

d, w, b = r(3, 4), r(6, 4), r(6)
case('fullyConnected', [d, w, b], {'numHidden': 6}, d @ w.T + b)
case('fullyConnected', [d, w], {'numHidden': 6}, d @ w.T)
d3 = r(2, 3, 4)
case('fullyConnected', [d3, w, b], {'numHidden': 6, 'flatten': False}, d3 @ w.T + b)
case('activation', [x], {'actType': 'tanh'}, np.tanh(x))
case('relu', [x], {}, np.maximum(x, 0))
case('sigmoid', [x], {}, 1 / (1 + np.exp(-x)))

idx = np.array([1, 0, 3], dtype='float32')
case('oneHot', [idx], {'depth': 4}, np.eye(4, dtype='float32')[idx.astype(int)])
data = r(3, 4)
pick_idx = np.array([0, 3, 1], dtype='float32')
case('pick', [data, pick_idx], {'axis': 1}, data[np.arange(3), pick_idx.astype(int)])
case('topk', [data], {'k': 2, 'retTyp': 'value'}, -np.sort(-data, axis=-1)[:, :2])
case('batchDot', [r(2, 3, 4), r(2, 4, 5)], {}, None)  # expect filled below
a, bb = cases[-1]['args']
A = np.array(a['data'], dtype='float32').reshape(a['shape'])
B = np.array(bb['data'], dtype='float32').reshape(bb['shape'])
cases[-1]['expect'] = [enc(A @ B)]

emb_w = r(5, 3)
tok = np.array([[0, 4], [2, 2]], dtype='float32')
case('embedding', [tok, emb_w], {'inputDim': 5, 'outputDim': 3}, emb_w[tok.astype(int)])

ln = r(2, 6)
g, be = r(6), r(6)
mu = ln.mean(-1, keepdims=True)
var = ln.var(-1, keepdims=True)
case('layerNorm', [ln, g, be], {'eps': 1e-5}, (ln - mu) / np.sqrt(var + 1e-5) * g + be)

img, k, kb = r(1, 2, 5, 5), r(3, 2, 3, 3), r(3)
conv = torch.nn.functional.conv2d(torch.from_numpy(img), torch.from_numpy(k), torch.from_numpy(kb), stride=1, padding=1).numpy()
case('convolution', [img, k, kb], {'kernel': [3, 3], 'pad': [1, 1], 'numFilter': 3}, conv)
pool = torch.nn.functional.max_pool2d(torch.from_numpy(img), 2, 2).numpy()
case('pooling', [img], {'kernel': [2, 2], 'stride': [2, 2], 'poolType': 'max'}, pool)

seq = r(4, 2, 3)
lens = np.array([2, 4], dtype='float32')
masked = seq.copy()
for bi, L in enumerate(lens.astype(int)):
    masked[L:, bi, :] = -1.0
case('sequenceMask', [seq, lens], {'value': -1.0}, masked)

# arange_like: MXNet's range_fwd (start + (i // repeat) * step in the input's dtype) over the input's
# shape, or as long as one axis.
al = r(2, 3)
case('arangeLike', [al], {}, np.arange(6, dtype='float32').reshape(2, 3))
case('arangeLike', [al], {'start': 1.5, 'step': -0.5, 'repeat': 2, 'axis': -1},
     np.float32(1.5) + (np.arange(3) // 2).astype('float32') * np.float32(-0.5))

# masked_log_softmax (MXNet 2.0): masked inputs become the dtype's lowest value, log-softmax over
# the axis with temperature, then masked outputs are -inf ("-inf" in the JSON).
def masked_log_softmax(x, mask, axis=-1, temperature=1.0):
    xm = np.where(mask, x, np.finfo(x.dtype).min).astype('float64') / temperature
    sh = xm - xm.max(axis=axis, keepdims=True)
    ls = sh - np.log(np.exp(sh).sum(axis=axis, keepdims=True))
    return np.where(mask, ls, -np.inf).astype(x.dtype)


mx_ = r(3, 5)
mk = rng.random((3, 5)) < 0.6
mk[0, :] = False
mk[1, 2] = True
case('maskedLogSoftmax', [mx_, mk], {}, masked_log_softmax(mx_, mk))
mk2 = rng.random((1, 5)) < 0.7
mk2[0, 0] = True
case('maskedLogSoftmax', [mx_, mk2], {'temperature': 2.0}, masked_log_softmax(mx_, mk2, temperature=2.0))
mk3 = rng.random((3, 1)) < 2
case('maskedLogSoftmax', [mx_, mk3], {'axis': 0}, masked_log_softmax(mx_, mk3, axis=0))

for c in cases:
    for e in c['expect']:
        e['data'] = ['-inf' if v == -np.inf else v for v in e['data']]

OUT.parent.mkdir(parents=True, exist_ok=True)
OUT.write_text(json.dumps({'numpy': np.__version__, 'torch': torch.__version__, 'cases': cases},
                          separators=(',', ':'), allow_nan=False) + '\n')
print(f'wrote {OUT} ({len(cases)} cases)')
