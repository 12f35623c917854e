#!/usr/bin/env python3
"""Golden data for @mx/gluon's losses (packages/gluon/src/loss).

Each case names a loss class, its constructor options (camelCase, as the TypeScript API takes
them), the forward arguments in order (float32-exact inputs from a seeded RandomState; `null` for
an argument left out), the per-sample loss and the gradient of sum(loss) with respect to the first
argument. Every expected value is computed here in float64, never with @mx code:

- with PyTorch's own losses where they are MXNet 2.0's definition: mse_loss (times MXNet's 1/2),
  l1_loss, binary_cross_entropy_with_logits (also with pos_weight), cross_entropy (class indices
  and probabilities), smooth_l1_loss (MXNet's Huber with beta = rho), soft_margin_loss (signed
  logistic), poisson_nll_loss, cosine_embedding_loss and ctc_loss (blank = last channel);
- otherwise with MXNet's documented formula written with torch tensors, so autograd gives the
  gradient: from_sigmoid BCE with eps 1e-12 inside the logs, KL divergence with log(label + 1e-12),
  (squared) hinge, triplet (sum of squared distances, then relu(. + margin)) and SDML;
- then, as MXNet's gluon.loss does, times sample_weight (broadcast) and weight, and the mean over
  every axis but batch_axis.

One deliberate difference: with compute_full, MXNet multiplies the Stirling term by (target > 1),
which gives NaN (0 * -inf) where target is 0; torch's poisson_nll_loss (and @mx) give 0 there, and
the targets here include 0, 1 and 2.

Inputs avoid the kinks of relu/abs/where so the gradient is unique. Also written: the CTC value
from MXNet's test_loss.py (ones((2, 20, 4)), labels [[1, 0, -1, -1], [2, 1, 1, -1]]), recomputed.

Run from anywhere with the system Python (NumPy and PyTorch):
    /usr/bin/python3 tools/golden/gluon/loss.py
"""
import json
import math
import pathlib

import numpy as np
import torch
import torch.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / 'packages/gluon/src/__golden__/loss.json'

torch.set_default_dtype(torch.float64)
rs = np.random.RandomState(20240917)


def f32(a):
    """float32-exact float64 array."""
    return np.asarray(a, dtype=np.float32).astype(np.float64)


def uniform(shape, lo=-2.0, hi=2.0):
    return f32(rs.uniform(lo, hi, size=shape))


def arr(a, dtype='float32'):
    a = np.asarray(a)
    return {'shape': list(a.shape), 'dtype': dtype, 'data': a.astype(np.float64).ravel().tolist()}


def batch_mean(loss, batch_axis):
    axes = [d for d in range(loss.dim()) if d != batch_axis % loss.dim()]
    return loss.mean(dim=axes) if axes else loss


def weighting(loss, weight, sample_weight):
    if sample_weight is not None:
        loss = loss * torch.tensor(sample_weight)
    if weight is not None:
        loss = loss * weight
    return loss


def case(cls, options, args, fn, grad_arg=0, dtypes=None):
    """Runs fn on torch copies of args (args[grad_arg] requiring grad); records out and grad."""
    ts = [None if a is None else torch.tensor(a, requires_grad=(i == grad_arg)) for i, a in enumerate(args)]
    out = fn(*ts)
    out.sum().backward()
    dtypes = dtypes or {}
    return {
        'loss': cls,
        'options': options,
        'args': [None if a is None else arr(a, dtypes.get(i, 'float32')) for i, a in enumerate(args)],
        'out': arr(out.detach().numpy()),
        'grad': arr(ts[grad_arg].grad.numpy()),
    }


def pointwise(elem, weight=None, sample_weight=None, batch_axis=0):
    """MXNet's recipe for the element-wise losses: reshape label like pred, weight, batch mean."""

    def fn(pred, label, *_):
        loss = elem(pred, label.reshape(pred.shape))
        return batch_mean(weighting(loss, weight, sample_weight), batch_axis)

    return fn


def opts(**kw):
    return {k: v for k, v in kw.items() if v is not None}


def regression_cases():
    out = []
    for cls, elem, scale in [
        ('L2Loss', lambda p, y: F.mse_loss(p, y, reduction='none'), 0.5),
        ('L1Loss', lambda p, y: F.l1_loss(p, y, reduction='none'), 1.0),
    ]:
        configs = [
            ((4, 5), (4, 5), None, None, 0),
            ((4, 5), (4, 5), 0.5, (4, 1), 0),
            ((4, 1), (4,), None, None, 0),
            ((3, 4, 2), (3, 4, 2), None, None, 1),
            ((2, 3, 4), (2, 12), 2.0, (2, 1, 1), 0),
        ]
        for pshape, lshape, weight, swshape, batch_axis in configs:
            pred, label = uniform(pshape), uniform(lshape)
            sw = None if swshape is None else uniform(swshape, 0.1, 2.0)
            # L2Loss's default weight is 1 and MXNet applies weight / 2.
            w_eff = (1.0 if weight is None else weight) * scale if cls == 'L2Loss' else weight
            out.append(case(cls, opts(weight=weight, batchAxis=batch_axis or None),
                            [pred, label] + ([sw] if sw is not None else []),
                            pointwise(elem, w_eff, sw, batch_axis)))
    # Huber = smooth L1 with beta = rho; differences on both sides of rho, none at it.
    for rho, weight, sw_shape in [(1.0, None, None), (0.5, 0.25, (4, 1)), (2.0, None, None)]:
        pred = uniform((4, 6), -3, 3)
        label = uniform((4, 6), -3, 3)
        sw = None if sw_shape is None else uniform(sw_shape, 0.1, 2.0)
        elem = (lambda r: lambda p, y: F.smooth_l1_loss(p, y, reduction='none', beta=r))(rho)
        out.append(case('HuberLoss', opts(rho=rho if rho != 1.0 else None, weight=weight),
                        [pred, label] + ([sw] if sw is not None else []), pointwise(elem, weight, sw)))
    return out


def bce_cases():
    out = []
    label = f32(rs.uniform(0, 1, size=(4, 5)))
    logits = uniform((4, 5), -4, 4)
    logits[0, 0], logits[1, 1] = 20.0, -25.0  # the stable formula must stay finite
    pos = uniform((1, 5), 0.5, 3.0)
    sw = uniform((4, 1), 0.1, 2.0)

    def logits_fn(weight, sample_weight, pos_weight):
        def fn(pred, y, *_):
            pw = None if pos_weight is None else torch.tensor(pos_weight)
            loss = F.binary_cross_entropy_with_logits(pred, y.reshape(pred.shape), pos_weight=pw, reduction='none')
            return batch_mean(weighting(loss, weight, sample_weight), 0)
        return fn

    out.append(case('SigmoidBinaryCrossEntropyLoss', {}, [logits, label], logits_fn(None, None, None)))
    out.append(case('SigmoidBinaryCrossEntropyLoss', {'weight': 0.5}, [logits, label, sw],
                    logits_fn(0.5, sw, None)))
    out.append(case('SigmoidBinaryCrossEntropyLoss', {}, [logits, label, None, pos],
                    logits_fn(None, None, pos)))
    out.append(case('SigmoidBinaryCrossEntropyLoss', {}, [logits, label.reshape(20)],
                    logits_fn(None, None, None)))

    probs = f32(rs.uniform(0.05, 0.95, size=(4, 5)))

    def sigmoid_fn(weight, sample_weight, pos_weight):
        def fn(p, y, *_):
            y = y.reshape(p.shape)
            pos_term = torch.log(p + 1e-12) * y
            if pos_weight is not None:
                pos_term = pos_term * torch.tensor(pos_weight)
            loss = -(pos_term + torch.log(1.0 - p + 1e-12) * (1.0 - y))
            return batch_mean(weighting(loss, weight, sample_weight), 0)
        return fn

    out.append(case('SigmoidBinaryCrossEntropyLoss', {'fromSigmoid': True}, [probs, label],
                    sigmoid_fn(None, None, None)))
    out.append(case('SigmoidBinaryCrossEntropyLoss', {'fromSigmoid': True, 'weight': 2.0},
                    [probs, label, sw, pos], sigmoid_fn(2.0, sw, pos)))
    return out


def softmax_ce_cases():
    out = []

    def sparse_fn(axis, weight, sample_weight, from_logits):
        def fn(pred, label, *_):
            logp = pred if from_logits else F.log_softmax(pred, dim=axis)
            idx = label.long().unsqueeze(axis % pred.dim())
            loss = -torch.gather(logp, axis % pred.dim(), idx)  # keepdims, as MXNet's pick
            return batch_mean(weighting(loss, weight, sample_weight), 0)
        return fn

    pred = uniform((4, 5), -3, 3)
    label = np.array([0, 3, 4, 1], dtype=np.float64)
    sw = uniform((4, 1), 0.1, 2.0)
    out.append(case('SoftmaxCrossEntropyLoss', {}, [pred, label], sparse_fn(-1, None, None, False)))
    # torch's cross_entropy agrees (a check of the gather formulation above).
    ref = F.cross_entropy(torch.tensor(pred), torch.tensor(label).long(), reduction='none').numpy()
    assert np.allclose(ref, out[-1]['out']['data'], rtol=1e-12)
    out.append(case('SoftmaxCrossEntropyLoss', {'weight': 0.5}, [pred, label, sw],
                    sparse_fn(-1, 0.5, sw, False)))
    out.append(case('SoftmaxCrossEntropyLoss', {}, [pred, label], sparse_fn(-1, None, None, False),
                    dtypes={1: 'int32'}))
    logp = F.log_softmax(torch.tensor(pred), dim=-1).numpy()
    out.append(case('SoftmaxCrossEntropyLoss', {'fromLogits': True}, [f32(logp), label],
                    sparse_fn(-1, None, None, True)))
    pred3 = uniform((2, 3, 4), -3, 3)
    label3 = np.array([[0, 2, 1, 1], [2, 0, 0, 1]], dtype=np.float64)
    out.append(case('SoftmaxCrossEntropyLoss', {'axis': 1}, [pred3, label3], sparse_fn(1, None, None, False)))

    def dense_fn(axis, weight):
        def fn(pred, label, *_):
            loss = -(F.log_softmax(pred, dim=axis) * label.reshape(pred.shape)).sum(dim=axis, keepdim=True)
            return batch_mean(weighting(loss, weight, None), 0)
        return fn

    dense = f32(F.softmax(torch.tensor(uniform((4, 5))), dim=-1).numpy())
    out.append(case('SoftmaxCrossEntropyLoss', {'sparseLabel': False, 'weight': 1.5}, [pred, dense],
                    dense_fn(-1, 1.5)))
    ref = 1.5 * F.cross_entropy(torch.tensor(pred), torch.tensor(dense), reduction='none').numpy()
    assert np.allclose(ref, out[-1]['out']['data'], rtol=1e-12)
    return out


def kl_cases():
    out = []

    def fn_for(from_logits, axis, weight, sample_weight):
        def fn(pred, label, *_):
            logp = pred if from_logits else F.log_softmax(pred, dim=axis)
            loss = label * (torch.log(label + 1e-12) - logp)
            return batch_mean(weighting(loss, weight, sample_weight), 0)
        return fn

    label = f32(F.softmax(torch.tensor(uniform((4, 5))), dim=-1).numpy())
    logits = uniform((4, 5), -3, 3)
    logp = f32(F.log_softmax(torch.tensor(logits), dim=-1).numpy())
    sw = uniform((4, 1), 0.1, 2.0)
    out.append(case('KLDivLoss', {}, [logp, label], fn_for(True, -1, None, None)))
    out.append(case('KLDivLoss', {'fromLogits': False}, [logits, label], fn_for(False, -1, None, None)))
    out.append(case('KLDivLoss', {'weight': 0.5}, [logp, label, sw], fn_for(True, -1, 0.5, sw)))
    label_ax = f32(F.softmax(torch.tensor(uniform((2, 3, 4))), dim=1).numpy())
    logits_ax = uniform((2, 3, 4), -3, 3)
    out.append(case('KLDivLoss', {'fromLogits': False, 'axis': 1}, [logits_ax, label_ax],
                    fn_for(False, 1, None, None)))
    return out


def margin_cases():
    out = []
    signs = np.where(rs.uniform(size=(4, 5)) < 0.5, -1.0, 1.0)
    pred = uniform((4, 5), -2.5, 2.5)
    sw = uniform((4, 1), 0.1, 2.0)
    for margin, weight, w in [(None, None, None), (2.0, 0.25, sw)]:
        m = 1.0 if margin is None else margin
        hinge = (lambda mm: lambda p, y: F.relu(mm - p * y))(m)
        sq = (lambda mm: lambda p, y: F.relu(mm - p * y) ** 2)(m)
        args = [pred, signs] + ([w] if w is not None else [])
        out.append(case('HingeLoss', opts(margin=margin, weight=weight), args, pointwise(hinge, weight, w)))
        out.append(case('SquaredHingeLoss', opts(margin=margin, weight=weight), args, pointwise(sq, weight, w)))
    # Logistic: signed labels = torch's soft margin loss; binary = BCE with logits.
    soft = lambda p, y: F.soft_margin_loss(p, y, reduction='none')  # noqa: E731
    out.append(case('LogisticLoss', {}, [pred, signs], pointwise(soft)))
    out.append(case('LogisticLoss', {'weight': 3.0}, [pred, signs, sw], pointwise(soft, 3.0, sw)))
    binary = (signs + 1) / 2
    bce = lambda p, y: F.binary_cross_entropy_with_logits(p, y, reduction='none')  # noqa: E731
    out.append(case('LogisticLoss', {'labelFormat': 'binary'}, [pred, binary], pointwise(bce)))
    return out


def triplet_cases():
    out = []
    pred, pos, neg = uniform((4, 5)), uniform((4, 5)), uniform((4, 5))
    sw = uniform((4,), 0.1, 2.0)

    def fn_for(margin, weight, sample_weight, batch_axis=0):
        def fn(p, a, b, *_):
            a, b = a.reshape(p.shape), b.reshape(p.shape)
            axes = [d for d in range(p.dim()) if d != batch_axis]
            loss = F.relu(((a - p) ** 2 - (b - p) ** 2).sum(dim=axes) + margin)
            return weighting(loss, weight, sample_weight)
        return fn

    out.append(case('TripletLoss', {}, [pred, pos, neg], fn_for(1.0, None, None)))
    out.append(case('TripletLoss', {'margin': 3.0, 'weight': 0.5}, [pred, pos, neg.reshape(20), sw],
                    fn_for(3.0, 0.5, sw)))
    p3, a3, b3 = uniform((3, 4, 2)), uniform((3, 4, 2)), uniform((3, 4, 2))
    out.append(case('TripletLoss', {'margin': 2.0, 'batchAxis': 1}, [p3, a3, b3], fn_for(2.0, None, None, 1)))
    return out


def poisson_cases():
    out = []
    target = f32(rs.randint(0, 6, size=(4, 5)))
    target[0, :3] = [0.0, 1.0, 2.0]
    log_rate = uniform((4, 5), -1.5, 1.5)
    rate = f32(rs.uniform(0.2, 4.0, size=(4, 5)))
    sw = uniform((4, 1), 0.1, 2.0)

    def fn_for(log_input, full, weight, sample_weight):
        def fn(pred, y, *_):
            loss = F.poisson_nll_loss(pred, y.reshape(pred.shape), log_input=log_input, full=full,
                                      eps=1e-8, reduction='none')
            return batch_mean(weighting(loss, weight, sample_weight), 0)
        return fn

    out.append(case('PoissonNLLLoss', {}, [log_rate, target], fn_for(True, False, None, None)))
    out.append(case('PoissonNLLLoss', {'fromLogits': False}, [rate, target], fn_for(False, False, None, None)))
    out.append(case('PoissonNLLLoss', {'computeFull': True, 'weight': 0.5}, [log_rate, target, sw],
                    fn_for(True, True, 0.5, sw)))
    out.append(case('PoissonNLLLoss', {'fromLogits': False, 'computeFull': True}, [rate, target],
                    fn_for(False, True, None, None)))
    return out


def cosine_cases():
    out = []
    a, b = uniform((4, 5)), uniform((4, 5))
    b[1] = f32(0.9 * a[1] + 0.05)  # a similar pair
    label = np.array([1.0, 1.0, -1.0, -1.0])
    sw = uniform((4, 1), 0.1, 2.0)

    def fn_for(margin, weight, sample_weight):
        def fn(x1, x2, y, *_):
            loss = F.cosine_embedding_loss(x1, x2, y, margin=margin, reduction='none').reshape(-1, 1)
            return batch_mean(weighting(loss, weight, sample_weight), 0)
        return fn

    out.append(case('CosineEmbeddingLoss', {}, [a, b, label], fn_for(0.0, None, None)))
    out.append(case('CosineEmbeddingLoss', {'margin': 0.2, 'weight': 2.0}, [a, b, label, sw],
                    fn_for(0.2, 2.0, sw)))
    return out


def sdml_cases():
    out = []

    def fn_for(smoothing):
        def fn(x1, x2):
            n = x1.shape[0]
            gold = torch.eye(n)
            labels = gold * (1 - smoothing) + (1 - gold) * smoothing / (n - 1)
            dist = ((x1.unsqueeze(1) - x2.unsqueeze(0)) ** 2).sum(dim=2)
            logp = F.log_softmax(-dist, dim=1)
            return (labels * (torch.log(labels + 1e-12) - logp)).mean(dim=1)
        return fn

    x1, x2 = uniform((4, 3), -1, 1), uniform((4, 3), -1, 1)
    out.append(case('SDMLLoss', {}, [x1, x2], fn_for(0.3)))
    out.append(case('SDMLLoss', {'smoothingParameter': 0.1}, [x1, x2], fn_for(0.1)))
    return out


def ctc_cases():
    out = []
    n, t, c = 2, 20, 4
    labels = np.array([[1, 0, -1, -1], [2, 1, 1, -1]], dtype=np.float64)

    def fn_for(layout, label_layout, pred_len, label_len, weight, sample_weight):
        def fn(pred, label, *_):
            ntc = pred if layout == 'NTC' else pred.transpose(0, 1)
            lab = label if label_layout == 'NT' else label.transpose(0, 1)
            logp = F.log_softmax(ntc, dim=2).transpose(0, 1)  # (T, N, C)
            lab_np = lab.detach().numpy()
            ll = label_len if label_len is not None else [int((row >= 0).sum()) for row in lab_np]
            pl = pred_len if pred_len is not None else [ntc.shape[1]] * ntc.shape[0]
            targets = torch.tensor(np.maximum(lab_np, 0)).long()
            loss = F.ctc_loss(logp, targets, torch.tensor(pl), torch.tensor(ll), blank=c - 1,
                              reduction='none', zero_infinity=False)
            return weighting(loss, weight, sample_weight)
        return fn

    pred = uniform((n, t, c), -2, 2)
    out.append(case('CTCLoss', {}, [pred, labels], fn_for('NTC', 'NT', None, None, None, None)))
    tnc = np.ascontiguousarray(pred.transpose(1, 0, 2))
    out.append(case('CTCLoss', {'layout': 'TNC', 'labelLayout': 'TN'}, [tnc, labels.T.copy()],
                    fn_for('TNC', 'TN', None, None, None, None)))
    # Lengths: the second sequence is 15 steps, the first has label length 1 (label 1 only).
    sw = uniform((2,), 0.5, 2.0)
    out.append(case('CTCLoss', {'weight': 0.5}, [pred, labels, np.array([20.0, 15.0]), np.array([1.0, 3.0]), sw],
                    fn_for('NTC', 'NT', [20, 15], [1, 3], 0.5, sw)))
    out.append(case('CTCLoss', {}, [pred, labels, None, np.array([2.0, 2.0])],
                    fn_for('NTC', 'NT', None, [2, 2], None, None)))
    ones = np.ones((n, t, c))
    out.append(case('CTCLoss', {}, [ones, labels], fn_for('NTC', 'NT', None, None, None, None)))
    # MXNet's test_loss.py::test_ctc_loss expects these for the ones input.
    assert np.allclose(out[-1]["out"]["data"], [18.82820702, 16.50581741], rtol=1e-6)
    return out


def main():
    cases = (regression_cases() + bce_cases() + softmax_ce_cases() + kl_cases() + margin_cases()
             + triplet_cases() + poisson_cases() + cosine_cases() + sdml_cases() + ctc_cases())
    for c in cases:
        for k in ('out', 'grad'):
            assert all(math.isfinite(v) for v in c[k]['data']), (c['loss'], k)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    # One case per line: diffs of a rerun stay readable.
    lines = ',\n'.join(json.dumps(c, separators=(',', ':')) for c in cases)
    OUT.write_text('{"cases":[\n' + lines + '\n]}\n')
    print(f'wrote {len(cases)} cases to {OUT.relative_to(ROOT)}')


if __name__ == '__main__':
    main()
