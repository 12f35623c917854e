"""Golden cases for the nn seq family: Embedding, SequenceMask, SequenceLast, SequenceReverse,
UpSampling (nearest and bilinear), CTCLoss, and their backward ops.

Expected values come from NumPy (gathers, masks, reversals, repeats, block sums, np.add.at) and
PyTorch (conv_transpose2d for bilinear upsampling, which is MXNet's depthwise Deconvolution;
torch.nn.functional.ctc_loss with reduction='none' on log_softmax of the activations, in float64,
and autograd for the CTC gradient with respect to the activations). MXNet's published CTC values
(test_operator.py::test_ctc_loss, test_ctc_loss_grad, gluon test_loss.py::test_ctc_loss) are
checked against PyTorch's here before the cases are written. CTCLoss cases carry the expected
hidden `grad` output under the extra key "grad" (the conformance runner compares visible outputs
only; the cpu-wasm kernel test reads it).

Needs torch: run with the Debian interpreter that has python3-torch:
    /usr/bin/python3 tools/golden/ops/nn_seq.py
"""
import math
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
from common import arr, case, write  # noqa: E402

rng = np.random.default_rng(20240611)
torch.set_default_dtype(torch.float64)

cases = []


def add(name, op, inputs, outputs, params=None, **kw):
    cases.append(case(name, op, inputs, outputs, params, **kw))


def err(name, op, inputs, params, error):
    cases.append(case(name, op, inputs, params=params, error=error))


def rand(shape, dtype='float32'):
    # Multiples of 1/64: exact in every float dtype and short in JSON.
    return (rng.integers(-256, 256, shape) / 64).astype(dtype)


def trunc_int(a):
    """MXNet's static_cast<int> of an index array."""
    return np.trunc(np.asarray(a, dtype=np.float64)).astype(np.int64)


# ---- Embedding ---------------------------------------------------------------------------------
def embedding(data, weight):
    idx = np.clip(trunc_int(data), 0, weight.shape[0] - 1)
    return weight[idx]


EMB = [
    # (name, data, input_dim, output_dim, weight dtype)
    ('int32-1d', np.array([0, 3, 5, 1, 3], dtype=np.int32), 6, 3, 'float32'),
    ('float32-2d', np.array([[1, 2, 0], [4, 4, 5]], dtype=np.float32), 6, 4, 'float32'),
    ('float64-weight', np.array([[2, 0], [1, 5]], dtype=np.int64), 6, 2, 'float64'),
    ('clip-out-of-range', np.array([-3, 0, 7, 100, 5, -1], dtype=np.int32), 6, 3, 'float32'),
    ('truncate-fractional', np.array([0.9, 2.5, -0.7, 5.99, 6.5], dtype=np.float32), 6, 2, 'float64'),
    ('uint8-3d', np.array([[[1, 2], [3, 0]], [[5, 5], [2, 4]]], dtype=np.uint8), 6, 3, 'float32'),
    ('scalar-index', np.array(4, dtype=np.int32), 6, 5, 'float32'),
    ('empty-index', np.zeros((0, 2), dtype=np.int32), 6, 3, 'float32'),
    ('int32-weight', np.array([1, 0, 2], dtype=np.int32), 3, 4, 'int32'),
    ('wide-rows', np.array([3, 1, 3, 0], dtype=np.int32), 4, 37, 'float32'),
]
for name, d, k, dim, wdt in EMB:
    if wdt == 'int32':
        w = rng.integers(-50, 50, (k, dim)).astype(np.int32)
    else:
        w = rand((k, dim), wdt)
    add(f'Embedding/{name}', 'Embedding', [d, w], [embedding(d, w)],
        {'input_dim': k, 'output_dim': dim, 'dtype': wdt})
d = np.array([2, 0, 1], dtype=np.int32)
w = rand((3, 2))
add('Embedding/string-params', 'Embedding', [d, w], [embedding(d, w)],
    {'input_dim': '3', 'output_dim': '2', 'dtype': 'float32', 'sparse_grad': 'True'})


def embedding_grad(data, og, k, dim):
    gw = np.zeros((k, dim), dtype=np.float64)
    idx = np.clip(trunc_int(data), 0, k - 1).reshape(-1)
    np.add.at(gw, idx, og.reshape(-1, dim).astype(np.float64))
    return gw.astype(og.dtype)


EMB_BACK = [
    ('int32-duplicates', np.array([[0, 3, 3], [5, 3, 0]], dtype=np.int32), 6, 3, 'float32'),
    ('float64', np.array([1, 1, 1, 4], dtype=np.float32), 5, 2, 'float64'),
    ('clip', np.array([-2, 9, 0, 4], dtype=np.int64), 5, 4, 'float32'),
    ('wide-rows', np.array([2, 0, 2, 2, 1], dtype=np.int32), 3, 37, 'float32'),
    ('wide-rows-f64', np.array([2, 0, 2, 1], dtype=np.int32), 3, 9, 'float64'),
    ('scalar-index', np.array(1, dtype=np.float64), 3, 5, 'float32'),
]
for name, d, k, dim, dt in EMB_BACK:
    og = rand(d.shape + (dim,), dt)
    add(f'_backward_Embedding/{name}', '_backward_Embedding', [og, d], [embedding_grad(d, og, k, dim)],
        {'input_dim': k, 'output_dim': dim})


# ---- SequenceMask / SequenceLast / SequenceReverse ---------------------------------------------
def lens_of(raw, T):
    return np.clip(trunc_int(raw), 0, T)


def seq_mask(x, lens, axis, value):
    out = x.copy()
    T = x.shape[axis]
    for b, l in enumerate(lens_of(lens, T)):
        if axis == 0:
            out[l:, b] = value
        else:
            out[b, l:] = value
    return out


def seq_last(x, lens, axis):
    T = x.shape[axis]
    ls = lens_of(lens, T) if lens is not None else np.full(x.shape[1 - axis], T)
    rows = []
    for b, l in enumerate(ls):
        p = max(l - 1, 0)
        rows.append(x[p, b] if axis == 0 else x[b, p])
    return np.stack(rows)


def seq_last_grad(og, x, lens, axis):
    T = x.shape[axis]
    ls = lens_of(lens, T) if lens is not None else np.full(x.shape[1 - axis], T)
    g = np.zeros_like(x)
    for b, l in enumerate(ls):
        p = max(l - 1, 0)
        if axis == 0:
            g[p, b] += og[b]
        else:
            g[b, p] += og[b]
    return g


def seq_reverse(x, lens):
    T = x.shape[0]
    ls = lens_of(lens, T) if lens is not None else np.full(x.shape[1], T)
    out = x.copy()
    for b, l in enumerate(ls):
        out[:l, b] = x[:l, b][::-1]
    return out


SEQ = [
    # (name, shape, axis, lengths or None, length dtype, data dtype)
    ('rank2', (4, 3), 0, [2, 4, 1], 'float32', 'float32'),
    ('rank3', (4, 3, 2), 0, [3, 0, 4], 'int32', 'float32'),
    ('rank4-f64', (3, 2, 2, 3), 0, [1, 2], 'float64', 'float64'),
    ('axis1', (3, 4, 2), 1, [4, 1, 2], 'float32', 'float32'),
    ('axis1-rank2', (2, 5), 1, [3, 5], 'int64', 'float64'),
    ('clamped-lengths', (3, 3, 2), 0, [-2, 7, 2.9], 'float32', 'float32'),
    ('int32-data', (4, 2, 3), 0, [2, 3], 'int32', 'int32'),
    ('no-lengths', (3, 2, 2), 0, None, None, 'float32'),
    ('no-lengths-axis1', (2, 3, 2), 1, None, None, 'float64'),
]
for name, shape, axis, lens, ldt, dt in SEQ:
    x = rand(shape, dt) if dt != 'int32' else rng.integers(-20, 20, shape).astype(np.int32)
    use = lens is not None
    L = np.array(lens, dtype=ldt) if use else None
    ins = [x, L] if use else [x]
    value = -2.5 if dt != 'int32' else 7
    p = {'use_sequence_length': use, 'value': value}
    if axis:
        p['axis'] = axis
    add(f'SequenceMask/{name}', 'SequenceMask', ins,
        [seq_mask(x, L, axis, value) if use else x], p)
    pl = {'use_sequence_length': use}
    if axis:
        pl['axis'] = axis
    add(f'SequenceLast/{name}', 'SequenceLast', ins, [seq_last(x, L, axis)], pl)
    if axis == 0:
        add(f'SequenceReverse/{name}', 'SequenceReverse', ins, [seq_reverse(x, L)],
            {'use_sequence_length': use})
    if dt in ('float32', 'float64'):
        og = rand(shape, dt)
        add(f'_backward_SequenceMask/{name}', '_backward_SequenceMask', [og, L] if use else [og],
            [seq_mask(og, L, axis, 0) if use else og], p)
        ogl = rand(seq_last(x, L, axis).shape, dt)
        add(f'_backward_SequenceLast/{name}', '_backward_SequenceLast',
            [ogl, x, L] if use else [ogl, x], [seq_last_grad(ogl, x, L, axis)], pl)
        if axis == 0:
            add(f'_backward_SequenceReverse/{name}', '_backward_SequenceReverse',
                [og, L] if use else [og], [seq_reverse(og, L)], {'use_sequence_length': use})
x = rand((3, 2, 2))
add('SequenceMask/string-params', 'SequenceMask', [x, np.array([1, 2], dtype=np.float32)],
    [seq_mask(x, np.array([1, 2]), 0, 1.5)],
    {'use_sequence_length': 'True', 'value': '1.5', 'axis': '0'})
# MXNet's documented example: lengths [1, 1, 1] and [1, 2, 3].
x = np.arange(1, 28, dtype=np.float32).reshape(3, 3, 3)
add('SequenceLast/doc-example', 'SequenceLast', [x, np.array([1, 2, 3], dtype=np.float32)],
    [np.array([[1, 2, 3], [13, 14, 15], [25, 26, 27]], dtype=np.float32)], {'use_sequence_length': True})


# ---- UpSampling ------------------------------------------------------------------------------------
def up_nearest(x, s):
    return np.repeat(np.repeat(x, s, axis=2), s, axis=3)


def down_sum(g, s):
    n, c, oh, ow = g.shape
    return g.reshape(n, c, oh // s, s, ow // s, s).sum(axis=(3, 5))


UPN = [
    ('s2', [(1, 2, 3, 3)], 2, 'concat', 'float32'),
    ('s3-f64', [(2, 1, 2, 4)], 3, 'concat', 'float64'),
    ('s1', [(1, 2, 2, 3)], 1, 'concat', 'float32'),
    ('concat-2', [(1, 2, 2, 2), (1, 3, 4, 4)], 2, 'concat', 'float32'),
    ('concat-3-f64', [(2, 1, 2, 3), (2, 2, 2, 3), (2, 1, 4, 6)], 2, 'concat', 'float64'),
    ('sum-2', [(1, 2, 2, 2), (1, 2, 1, 1)], 2, 'sum', 'float32'),
    ('sum-3-f64', [(2, 3, 1, 2), (2, 3, 2, 4), (2, 3, 1, 2)], 4, 'sum', 'float64'),
]
for name, shapes, scale, mode, dt in UPN:
    xs = [rand(s, dt) for s in shapes]
    oh = shapes[0][2] * scale
    ups = [up_nearest(x, oh // x.shape[2]) for x in xs]
    out = sum(ups) if mode == 'sum' else np.concatenate(ups, axis=1)
    p = {'scale': scale, 'sample_type': 'nearest', 'num_args': len(xs)}
    if mode != 'concat' or len(xs) > 1:
        p['multi_input_mode'] = mode
    add(f'UpSampling/nearest/{name}', 'UpSampling', xs, [out.astype(dt)], p)
    og = rand(out.shape, dt)
    grads, c0 = [], 0
    for x in xs:
        s = oh // x.shape[2]
        c = x.shape[1]
        part = og if mode == 'sum' else og[:, c0:c0 + c]
        c0 += c
        grads.append(down_sum(part.astype(np.float64), s).astype(dt))
    add(f'_backward_UpSampling/nearest/{name}', '_backward_UpSampling',
        [og] + (xs if len(xs) > 1 else []), grads, p)
x = np.ones((1, 1, 2, 2), dtype=np.float32)
add('UpSampling/nearest/string-params', 'UpSampling', [x], [up_nearest(x, 2)],
    {'scale': '2', 'sample_type': 'nearest', 'num_args': '1', 'workspace': '1024'})


def bilinear_geom(s):
    return 2 * s - s % 2, s, int(math.ceil((s - 1) / 2))


def up_bilinear(x, w, s, og=None):
    k, st, p = bilinear_geom(s)
    xt = torch.tensor(x.astype(np.float64), requires_grad=True)
    wt = torch.tensor(w.astype(np.float64), requires_grad=True)
    y = F.conv_transpose2d(xt, wt, stride=st, padding=p, groups=x.shape[1])
    if og is None:
        return y.detach().numpy()
    y.backward(torch.tensor(og.astype(np.float64)))
    return y.detach().numpy(), xt.grad.numpy(), wt.grad.numpy()


# MXNet's documented example: ones 3x3, weight ones 4x4, scale 2.
x = np.ones((1, 1, 3, 3), dtype=np.float32)
w = np.ones((1, 1, 4, 4), dtype=np.float32)
doc = np.array([[1, 2, 2, 2, 2, 1]] + [[2, 4, 4, 4, 4, 2]] * 4 + [[1, 2, 2, 2, 2, 1]], dtype=np.float32)
assert np.allclose(up_bilinear(x, w, 2)[0, 0], doc)
add('UpSampling/bilinear/doc-example', 'UpSampling', [x, w], [doc.reshape(1, 1, 6, 6)],
    {'scale': 2, 'sample_type': 'bilinear', 'num_filter': 1, 'num_args': 2})
UPB = [('s2', (1, 2, 3, 3), 2, 'float32'), ('s3-f64', (2, 2, 2, 3), 3, 'float64'),
       ('s4', (1, 3, 2, 2), 4, 'float32'), ('s1', (1, 2, 2, 2), 1, 'float64')]
for name, shape, s, dt in UPB:
    k = bilinear_geom(s)[0]
    x = rand(shape, dt)
    w = rand((shape[1], 1, k, k), dt)
    out_shape = (shape[0], shape[1], shape[2] * s, shape[3] * s)
    og = rand(out_shape, dt)
    y, gx, gw = up_bilinear(x, w, s, og)
    p = {'scale': s, 'sample_type': 'bilinear', 'num_filter': shape[1], 'num_args': 2}
    add(f'UpSampling/bilinear/{name}', 'UpSampling', [x, w], [y.astype(dt)], p)
    add(f'_backward_UpSampling/bilinear/{name}', '_backward_UpSampling', [og, x, w],
        [gx.astype(dt), gw.astype(dt)], p)


# ---- CTCLoss -----------------------------------------------------------------------------------------
def ctc_ref(acts, label_seqs, data_lens, blank):
    """Per-sequence loss and d loss / d activations (zeros past each data length), from PyTorch."""
    T, N, C = acts.shape
    losses = np.zeros(N)
    grads = np.zeros((T, N, C))
    for b in range(N):
        tb = int(data_lens[b])
        seq = list(label_seqs[b])
        if tb == 0:
            continue
        x = torch.tensor(acts[:tb, b:b + 1].astype(np.float64), requires_grad=True)
        lp = F.log_softmax(x, dim=2)
        tgt = torch.tensor(seq, dtype=torch.long)
        loss = F.ctc_loss(lp, tgt, torch.tensor([tb]), torch.tensor([len(seq)]), blank=blank,
                          reduction='none', zero_infinity=True)
        loss.sum().backward()
        losses[b] = loss.item()
        grads[:tb, b] = x.grad.numpy()[:, 0]
    return losses, grads


def ctc_case(name, acts, label, blank_label='first', data_lens=None, label_lens=None, op='CTCLoss',
             seqs=None, dt=None):
    T, N, C = acts.shape
    dt = dt or str(acts.dtype)
    blank = 0 if blank_label == 'first' else C - 1
    pad = 0 if blank_label == 'first' else -1
    if seqs is None:
        seqs = []
        for b in range(N):
            row = [int(v) for v in trunc_int(label[b])]
            n = int(label_lens[b]) if label_lens is not None else (row.index(pad) if pad in row else len(row))
            seqs.append(row[:n])
    dl = data_lens if data_lens is not None else np.full(N, T)
    losses, grads = ctc_ref(acts, seqs, trunc_int(dl), blank)
    p = {}
    ins = [acts, label]
    if blank_label != 'first':
        p['blank_label'] = blank_label
    if data_lens is not None:
        p['use_data_lengths'] = True
        ins.append(data_lens)
    if label_lens is not None:
        p['use_label_lengths'] = True
        ins.append(label_lens)
    add(f'{op}/{name}', op, ins, [losses.astype(dt)], p, grad=arr(grads.astype(dt)),
        **({'rtol': 1e-5, 'atol': 1e-5} if dt == 'float32' else {}))
    return losses, grads


# test_operator.py::test_ctc_loss, test 1 (MXNet: [4.04789, 4.04789], from Torch WarpCTC).
acts = np.array([
    [[1.2, 3.4, 1.2, -0.1, -2.34], [1.2, 3.4, 1.2, -0.1, -2.34]],
    [[0.1, 0.2, 0.3, 0.22, 0.123], [0.1, 0.2, 0.3, 0.22, 0.123]],
    [[-15, -14, -13, -12, -11], [-15, -14, -13, -12, -11]]], dtype=np.float32)
labels = np.array([[2, 3, 0], [2, 3, 0]], dtype=np.float32)
l1, _ = ctc_case('mxnet-test_ctc_loss/1', acts, labels)
assert np.allclose(l1, [4.04789, 4.04789], rtol=1e-5), l1
for alias in ['ctc_loss', '_contrib_CTCLoss', '_contrib_ctc_loss']:
    ctc_case('mxnet-test_ctc_loss/1', acts, labels, op=alias)
# Test 2 (MXNet: [7.3557, 5.4091]) with float labels, test 3 with int32 labels.
acts2 = np.array([
    [[-5, -4, -3, -2, -1], [1.2, 3.4, 1.2, -0.1, -2.34]],
    [[-10, -9, -8, -7, -6], [0.1, 0.2, 0.3, 0.22, 0.123]],
    [[-15, -14, -13, -12, -11], [-15, -14.2, -13.5, -12.2, -11.22]]], dtype=np.float32)
l2, _ = ctc_case('mxnet-test_ctc_loss/2-float-labels', acts2, np.array([[2, 3, 1], [2, 0, 0]], dtype=np.float32))
assert np.allclose(l2, [7.3557, 5.4091], rtol=1e-4), l2
ctc_case('mxnet-test_ctc_loss/3-int32-labels', acts2, np.array([[2, 3, 1], [2, 0, 0]], dtype=np.int32))
ctc_case('mxnet-test_ctc_loss/2-f64', acts2.astype(np.float64), np.array([[2, 3, 1], [2, 0, 0]], dtype=np.int32))

# test_ctc_loss_with_large_classes (6000 classes, [688.02826, 145.34462]): too large for the JSON;
# checked against PyTorch here and by value in the cpu-wasm kernel test.
nc = 6000
big = np.stack([np.roll(np.arange(nc, dtype=np.float32), i) / 13 for i in range(16)], axis=1)
big = big.astype(np.float32).reshape(8, 2, nc)  # (6000, 16) reshaped row-major, as the test does
lb, _ = ctc_ref(big, [[100, 200, 300, 400, 500], [1000, 2000, 3000, 4000]], [8, 8], 0)
assert np.allclose(lb, [688.02826, 145.34462], rtol=1e-6), lb

# Gluon test_loss.py::test_ctc_loss: ones((2, 20, 4)) NTC -> TNC, blank 'last', padding -1.
ones = np.ones((20, 2, 4), dtype=np.float32)
glabel = np.array([[1, 0, -1, -1], [2, 1, 1, -1]], dtype=np.float32)
lg, _ = ctc_case('gluon-test_ctc_loss/padded', ones, glabel, 'last')
assert np.allclose(lg, [18.82820702, 16.50581741], rtol=1e-6), lg  # MXNet computes in float32
ctc_case('gluon-test_ctc_loss/data-lengths', ones, glabel, 'last', data_lens=np.array([20, 20], dtype=np.float32))
ctc_case('gluon-test_ctc_loss/label-lengths', ones, glabel, 'last', label_lens=np.array([2, 3], dtype=np.float32))

# test_ctc_loss_grad (TensorFlow's values): data lengths 5 of 7 steps (NaN past them), label lengths.
probs0 = np.array([
    [0.633766, 0.221185, 0.0917319, 0.0129757, 0.0142857, 0.0260553],
    [0.111121, 0.588392, 0.278779, 0.0055756, 0.00569609, 0.010436],
    [0.0357786, 0.633813, 0.321418, 0.00249248, 0.00272882, 0.0037688],
    [0.0663296, 0.643849, 0.280111, 0.00283995, 0.0035545, 0.00331533],
    [0.458235, 0.396634, 0.123377, 0.00648837, 0.00903441, 0.00623107]], dtype=np.float32)
probs1 = np.array([
    [0.30176, 0.28562, 0.0831517, 0.0862751, 0.0816851, 0.161508],
    [0.24082, 0.397533, 0.0557226, 0.0546814, 0.0557528, 0.19549],
    [0.230246, 0.450868, 0.0389607, 0.038309, 0.0391602, 0.202456],
    [0.280884, 0.429522, 0.0326593, 0.0339046, 0.0326856, 0.190345],
    [0.423286, 0.315517, 0.0338439, 0.0393744, 0.0339315, 0.154046]], dtype=np.float32)
grad0 = np.array([
    [-0.366234, 0.221185, 0.0917319, 0.0129757, 0.0142857, 0.0260553],
    [0.111121, -0.411608, 0.278779, 0.0055756, 0.00569609, 0.010436],
    [0.0357786, 0.633813, -0.678582, 0.00249248, 0.00272882, 0.0037688],
    [0.0663296, -0.356151, 0.280111, 0.00283995, 0.0035545, 0.00331533],
    [-0.541765, 0.396634, 0.123377, 0.00648837, 0.00903441, 0.00623107]])
grad1 = np.array([
    [-0.69824, 0.28562, 0.0831517, 0.0862751, 0.0816851, 0.161508],
    [0.24082, -0.602467, 0.0557226, 0.0546814, 0.0557528, 0.19549],
    [0.230246, 0.450868, 0.0389607, 0.038309, 0.0391602, -0.797544],
    [0.280884, -0.570478, 0.0326593, 0.0339046, 0.0326856, 0.190345],
    [-0.576714, 0.315517, 0.0338439, 0.0393744, 0.0339315, 0.154046]])
with np.errstate(invalid='ignore'):
    tf_in = np.log(np.concatenate([np.stack([probs0, probs1], axis=1),
                                   np.full((2, 2, 6), np.nan, dtype=np.float32)])).astype(np.float32)
tf_grad = np.concatenate([np.stack([grad0, grad1], axis=1), np.zeros((2, 2, 6))])
for bl in ['first', 'last']:
    shift = 1 if bl == 'first' else 0
    pad = 0 if bl == 'first' else -1
    lab = np.array([[0, 1, 2, 1, 0], [0, 1, 1, 0, pad]], dtype=np.float32) + shift  # as MXNet builds it
    acts_tf = np.roll(tf_in, shift, axis=2)
    lt, gt = ctc_case(f'mxnet-test_ctc_loss_grad/{bl}', acts_tf, lab, bl,
                      data_lens=np.array([5, 5], dtype=np.float32), label_lens=np.array([5, 4], dtype=np.float32))
    assert np.allclose(lt, [3.34211, 5.42262], rtol=1e-5), lt
    assert np.allclose(gt, np.roll(tf_grad, shift, axis=2), atol=1e-5), np.abs(gt - np.roll(tf_grad, shift, axis=2)).max()


def random_labels(N, L, C, blank_label, lengths, repeats=True):
    lo, hi = (1, C) if blank_label == 'first' else (0, C - 1)
    pad = 0 if blank_label == 'first' else -1
    lab = np.full((N, L), pad, dtype=np.int64)
    for b in range(N):
        seq = rng.integers(lo, hi, lengths[b])
        if repeats and lengths[b] >= 2:
            seq[1] = seq[0]
        lab[b, :lengths[b]] = seq
    return lab


RANDOM = [
    # (name, T, N, C, label lengths, blank_label, dtype, data lengths, use label lengths, label dtype)
    ('first-f32', 8, 3, 5, [3, 1, 4], 'first', 'float32', None, False, 'int32'),
    ('last-f64', 7, 2, 6, [2, 5], 'last', 'float64', None, False, 'float32'),
    ('data-lengths-f32', 9, 3, 4, [2, 3, 1], 'first', 'float32', [9, 5, 1], False, 'float32'),
    ('both-lengths-f64', 6, 3, 5, [4, 0, 2], 'last', 'float64', [6, 3, 4], True, 'int64'),
    ('empty-labels', 5, 2, 3, [0, 0], 'first', 'float32', None, False, 'int32'),
    ('infeasible', 4, 2, 5, [3, 3], 'first', 'float64', [4, 3], False, 'int32'),
    ('long-f32', 30, 2, 8, [10, 14], 'first', 'float32', None, False, 'int32'),
]
for name, T, N, C, lens, bl, dt, dlens, use_ll, ldt in RANDOM:
    acts = (rng.standard_normal((T, N, C)) * 2).astype(dt)
    L = max(max(lens), 1)
    lab = random_labels(N, L, C, bl, lens)
    if name == 'infeasible':
        lab[1] = [2, 2, 2]   # 3 labels + 2 repeats = 5 > T: loss 0, gradient 0 (warp-ctc)
        lab[0] = [1, 2, 3]
    dl = np.array(dlens, dtype=dt) if dlens is not None else None
    ll = np.array(lens, dtype=ldt) if use_ll else None
    if use_ll:
        # Garbage past each label length must be ignored.
        for b in range(N):
            lab[b, lens[b]:] = 1
    ctc_case(f'random/{name}', acts, lab.astype(ldt), bl, data_lens=dl, label_lens=ll)
ctc_case('string-params', acts2, np.array([[2, 3, 1], [2, 0, 0]], dtype=np.int32), 'first')
cases[-1]['params'] = {'blank_label': 'first', 'use_data_lengths': 'False', 'use_label_lengths': '0'}

# _backward_ctc_loss: ograd[n] * grad[t, n, :].
for dt in ['float32', 'float64']:
    g = rand((4, 3, 5), dt)
    og = rand((3,), dt)
    add(f'_backward_ctc_loss/{dt}', '_backward_ctc_loss', [og, g], [(g * og[None, :, None]).astype(dt)], {})

# ---- bad input ---------------------------------------------------------------------------------------
f32 = lambda *s: np.zeros(s, dtype=np.float32)  # noqa: E731
i32 = lambda *s: np.zeros(s, dtype=np.int32)  # noqa: E731
err('Embedding/bad-weight-shape', 'Embedding', [i32(3), f32(5, 3)],
    {'input_dim': 6, 'output_dim': 3}, 'Shape inconsistent')
err('Embedding/input_dim-0', 'Embedding', [i32(3), f32(0, 3)],
    {'input_dim': 0, 'output_dim': 3}, 'should be greater equal to 1')
err('Embedding/bad-dtype-param', 'Embedding', [i32(3), f32(4, 3)],
    {'input_dim': 4, 'output_dim': 3, 'dtype': 'bool'}, "Invalid Input: 'bool'")
err('_backward_Embedding/int-ograd', '_backward_Embedding', [i32(3, 2), i32(3)],
    {'input_dim': 4, 'output_dim': 2}, 'needs float32 or float64 output gradient')
err('SequenceMask/rank1', 'SequenceMask', [f32(4)], {}, 'The data array must be of rank 2 or greater.')
err('SequenceMask/axis2', 'SequenceMask', [f32(2, 3, 4)], {'axis': 2},
    'Current implementation expects axis to be 0 or 1.')
err('SequenceMask/bad-lengths-shape', 'SequenceMask', [f32(4, 3), f32(4)],
    {'use_sequence_length': True}, 'Shape inconsistent')
err('SequenceLast/axis-neg', 'SequenceLast', [f32(2, 3, 4)], {'axis': -1},
    'Current implementation expects axis to be 0 or 1.')
err('SequenceLast/rank1', 'SequenceLast', [f32(4)], {}, 'The data array must be of rank 2 or greater.')
err('SequenceLast/axis1-bad-lengths', 'SequenceLast', [f32(2, 5, 3), f32(5)],
    {'use_sequence_length': True, 'axis': 1}, 'Shape inconsistent')
err('SequenceReverse/axis1', 'SequenceReverse', [f32(2, 3)], {'axis': 1},
    'Current implementation expects axis to be 0.')
err('_backward_SequenceLast/bad-ograd', '_backward_SequenceLast', [f32(4, 2), f32(3, 2, 2)], {},
    'Shape inconsistent')
err('UpSampling/3d', 'UpSampling', [f32(1, 2, 3)], {'scale': 2, 'sample_type': 'nearest', 'num_args': 1},
    'Input data should be 4D')
err('UpSampling/sum-channels', 'UpSampling', [f32(1, 2, 2, 2), f32(1, 3, 2, 2)],
    {'scale': 2, 'sample_type': 'nearest', 'num_args': 2, 'multi_input_mode': 'sum'},
    'Number of channels must be the same when multi_input_mode==sum')
err('UpSampling/not-dividing', 'UpSampling', [f32(1, 1, 2, 2), f32(1, 1, 3, 3)],
    {'scale': 2, 'sample_type': 'nearest', 'num_args': 2}, 'does not divide output height')
err('UpSampling/scale-0', 'UpSampling', [f32(1, 1, 2, 2)], {'scale': 0, 'sample_type': 'nearest', 'num_args': 1},
    'exceed bound [1,1000]')
err('UpSampling/no-sample-type', 'UpSampling', [f32(1, 1, 2, 2)], {'scale': 2, 'num_args': 1},
    'Required parameter sample_type')
err('UpSampling/bilinear-num-filter', 'UpSampling', [f32(1, 2, 2, 2), f32(2, 1, 4, 4)],
    {'scale': 2, 'sample_type': 'bilinear', 'num_args': 2}, 'num_filter (0) must equal the number of channels (2)')
err('UpSampling/bilinear-weight', 'UpSampling', [f32(1, 2, 2, 2), f32(2, 1, 3, 3)],
    {'scale': 2, 'sample_type': 'bilinear', 'num_filter': 2, 'num_args': 2}, 'Shape inconsistent')
err('CTCLoss/label-longer-than-data', 'CTCLoss', [f32(2, 1, 4), f32(1, 3)], {},
    'The max number of labels cannot exceed the maximum sequence length of the data.')
err('CTCLoss/data-rank2', 'CTCLoss', [f32(3, 4), f32(3, 2)], {}, 'The number of dimensions of data array must be 3.')
err('CTCLoss/label-rank3', 'CTCLoss', [f32(3, 2, 4), f32(2, 1, 1)], {},
    'The number of dimensions of labels array must be 2.')
err('CTCLoss/batch-mismatch', 'CTCLoss', [f32(3, 2, 4), f32(3, 2)], {},
    'The batch size for the labels and data arrays must be the same.')
err('CTCLoss/data-lengths-batch', 'CTCLoss', [f32(3, 2, 4), f32(2, 2), f32(3)], {'use_data_lengths': True},
    'The batch size for the data and data lengths must be the same.')
err('CTCLoss/label-lengths-rank', 'CTCLoss', [f32(3, 2, 4), f32(2, 2), f32(2, 1)], {'use_label_lengths': True},
    'Label length array must be a vector.')
err('CTCLoss/int-data', 'CTCLoss', [i32(3, 2, 4), f32(2, 2)], {}, 'needs float32 or float64 data, got int32')
err('CTCLoss/label-lengths-dtype', 'CTCLoss', [f32(3, 2, 4), f32(2, 2), i32(2)], {'use_label_lengths': True},
    'label_lengths must have the dtype of label (float32), got int32')
err('CTCLoss/data-lengths-dtype', 'CTCLoss', [f32(3, 2, 4), f32(2, 2), i32(2)], {'use_data_lengths': True},
    'data_lengths must have the dtype of data (float32), got int32')
err('CTCLoss/bad-blank', 'CTCLoss', [f32(3, 2, 4), f32(2, 2)], {'blank_label': 'middle'},
    "Invalid Input: 'middle'")

write('nn_seq', cases)
