#!/usr/bin/env python3
"""Golden data for @mx/gluon's initializers and metrics (packages/gluon/src/init, src/metric).

Every expected value is computed here with NumPy from the textbook or MXNet-documented formula,
never with @mx code:

init.json
  - xavier: for each (shape, rnd_type, factor_type, magnitude), the bound / standard deviation
    sqrt(magnitude / factor), fans from MXNet's rule (fan_in = shape[1] * prod(shape[2:]),
    fan_out = shape[0] * prod(shape[2:])); msraprelu: magnitude 2 / (1 + slope^2), gaussian.
  - bilinear: the upsampling kernel (f = ceil(w / 2), c = (2f - 1 - f % 2) / 2f) as float32.
  - lstmbias: zeros with rows [h, 2h) (h = rows // 4) set to the forget bias.
  - constant: scalars and arrays broadcast with np.broadcast_to.
  - orthogonal: float32 samples (values exact in float32) and np.linalg.svd's factor (U when
    rows >= cols, else V^T) times the scale; compared up to the sign of each singular vector.
  - dumps: json.dumps([name, kwargs]) for MXNet's constructor keyword arguments.

metric.json
  Batches of labels / predictions (float32-exact values from a seeded RandomState) and, after each
  update, the running value of the metric as MXNet 2.0's gluon.metric defines it:
  accuracy, top-k, binary / multiclass / multilabel F1 and F-beta (micro and macro, from confusion
  counts), MCC, binary accuracy, MAE / MSE / RMSE (per-sample means), cross-entropy (eps as
  max(eps, p), ignore_label, from_logits), 1.x negative log-likelihood (-log(p + eps)), perplexity,
  Pearson (np.corrcoef over everything seen so far), PCC (the confusion-matrix definition of
  test_metric.py's reference), mean pairwise distance, mean cosine similarity, loss.

Run from anywhere with the system Python (NumPy only):
    /usr/bin/python3 tools/golden/gluon/init_metric.py
"""
import json
import math
import pathlib

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / 'packages/gluon/src/__golden__'


def f32(a):
    """float32-exact values as a nested Python list of floats."""
    return np.asarray(a, dtype=np.float32).astype(np.float64).tolist()


def flat(a):
    return np.asarray(a, dtype=np.float64).ravel().tolist()


# ---------------------------------------------------------------------------------------------
# Initializers
# ---------------------------------------------------------------------------------------------

def xavier_scale(shape, factor_type, magnitude):
    hw = float(np.prod(shape[2:])) if len(shape) > 2 else 1.0
    fan_in, fan_out = shape[1] * hw, shape[0] * hw
    factor = {'avg': (fan_in + fan_out) / 2.0, 'in': fan_in, 'out': fan_out}[factor_type]
    return math.sqrt(magnitude / factor)


def bilinear(shape):
    n = int(np.prod(shape))
    w = np.zeros(n, dtype=np.float32)
    f = np.ceil(shape[3] / 2.0)
    c = (2 * f - 1 - f % 2) / (2.0 * f)
    for i in range(n):
        x = i % shape[3]
        y = (i // shape[3]) % shape[2]
        w[i] = (1 - abs(x / f - c)) * (1 - abs(y / f - c))
    return w


def init_golden():
    rs = np.random.RandomState(20240601)
    xavier = []
    for shape in [(64, 32), (32, 16, 3, 3), (200, 50), (10, 40, 5)]:
        for rnd in ['uniform', 'gaussian']:
            for factor in ['avg', 'in', 'out']:
                for magnitude in [3.0, 2.34]:
                    xavier.append({'shape': list(shape), 'rnd_type': rnd, 'factor_type': factor,
                                   'magnitude': magnitude, 'scale': xavier_scale(shape, factor, magnitude)})
    msra = []
    for shape in [(64, 32, 3, 3), (300, 100)]:
        for factor in ['avg', 'in', 'out']:
            for slope in [0.25, 0.0, 1.5]:
                mag = 2.0 / (1 + slope ** 2)
                msra.append({'shape': list(shape), 'factor_type': factor, 'slope': slope,
                             'scale': xavier_scale(shape, factor, mag)})

    bil = [{'shape': list(s), 'values': flat(bilinear(s))}
           for s in [(1, 1, 4, 4), (2, 3, 3, 5), (1, 2, 6, 7), (3, 1, 2, 1)]]

    lstm = []
    for shape, fb in [((12,), 1.0), ((8,), 2.5), ((10,), -1.0), ((8, 3), 0.75), ((3,), 4.0)]:
        a = np.zeros(shape, dtype=np.float32)
        h = int(shape[0] / 4)
        a[h:2 * h] = fb
        lstm.append({'shape': list(shape), 'forget_bias': fb, 'values': flat(a)})

    const = []
    for shape, value in [((2, 3), 0.5), ((4,), -3.25), ((2, 3), [[1.5], [-2.0]]),
                         ((2, 3, 2), [7.0, 8.0]), ((2, 2), [[1.0, 2.0], [3.0, 4.0]])]:
        a = np.empty(shape, dtype=np.float32)
        a[:] = np.broadcast_to(np.asarray(value, dtype=np.float32), shape)
        const.append({'shape': list(shape), 'value': value, 'values': flat(a)})

    ortho = []
    for shape, scale, rand in [((4, 6), 1.414, 'uniform'), ((6, 4), 1.414, 'uniform'),
                               ((5, 5), 0.5, 'normal'), ((3, 2, 2), 2.0, 'uniform'),
                               ((7, 1), 1.0, 'normal'), ((1, 5), 1.0, 'uniform')]:
        rows, cols = shape[0], int(np.prod(shape[1:]))
        if rand == 'uniform':
            tmp = rs.uniform(-1, 1, size=(rows, cols)).astype(np.float32)
        else:
            tmp = rs.normal(0, 1, size=(rows, cols)).astype(np.float32)
        u, _, v = np.linalg.svd(tmp.astype(np.float64), full_matrices=False)
        res = u if u.shape == tmp.shape else v
        ortho.append({'shape': list(shape), 'rows': rows, 'cols': cols, 'scale': scale,
                      'sample': flat(tmp), 'factor': flat(scale * res)})

    configs = [
        ('normal', {'sigma': 0.5}),
        ('uniform', {'scale': 0.07}),
        ('xavier', {'rnd_type': 'uniform', 'factor_type': 'in', 'magnitude': 2.34}),
        ('xavier', {'rnd_type': 'gaussian', 'factor_type': 'out', 'magnitude': 3}),
        ('msraprelu', {'factor_type': 'avg', 'slope': 0.25}),
        ('orthogonal', {'scale': 1.414, 'rand_type': 'uniform'}),
        ('lstmbias', {'forget_bias': 1.5}),
        ('constant', {'value': 0.25}),
        ('constant', {'value': [[1.5, -2.5], [0.125, 4]]}),
        ('zero', {}),
        ('one', {}),
        ('bilinear', {}),
    ]
    dumps = [{'name': n, 'kwargs': k, 'json': json.dumps([n, k])} for n, k in configs]
    return {'xavier': xavier, 'msraprelu': msra, 'bilinear': bil, 'lstmbias': lstm, 'constant': const,
            'orthogonal': ortho, 'dumps': dumps}


# ---------------------------------------------------------------------------------------------
# Metrics
# ---------------------------------------------------------------------------------------------

def probs(rs, n, k):
    x = rs.uniform(0.05, 1.0, size=(n, k))
    return (x / x.sum(axis=1, keepdims=True)).astype(np.float32)


def prf(tp, fp, fn, beta):
    """Per-class precision/recall/F-beta (MXNet 2.0: denominators clipped at 1e-12)."""
    p = tp / np.maximum(tp + fp, 1e-12)
    r = tp / np.maximum(tp + fn, 1e-12)
    f = (1 + beta ** 2) * p * r / np.maximum(beta ** 2 * p + r, 1e-12)
    mp = tp.sum() / max(tp.sum() + fp.sum(), 1e-12)
    mr = tp.sum() / max(tp.sum() + fn.sum(), 1e-12)
    micro = (1 + beta ** 2) * mp * mr / (beta ** 2 * mp + mr) if mp + mr > 0 else 0.0
    return float(f.mean()), float(micro)


def counts(lab, pred):
    """tp, fp, fn, tn per column of 0/1 matrices (n, classes)."""
    tp = ((pred == 1) & (lab == 1)).sum(0).astype(np.float64)
    fp = ((pred == 1) & (lab == 0)).sum(0).astype(np.float64)
    fn = ((pred == 0) & (lab == 1)).sum(0).astype(np.float64)
    tn = ((pred == 0) & (lab == 0)).sum(0).astype(np.float64)
    return tp, fp, fn, tn


def running(batches, value_fn):
    """Value after each update: value_fn over all batches seen so far."""
    return [value_fn(batches[:i + 1]) for i in range(len(batches))]


def case(name, options, batches, value_fn):
    """A metric case: its batches, the running value after each update and each batch's own value."""
    return {'metric': name, 'options': options,
            'batches': [{'labels': [f32(l) for l in b[0]], 'preds': [f32(p) for p in b[1]]} for b in batches],
            'expected': running(batches, value_fn),
            'each': [value_fn([b]) for b in batches]}


def metric_golden():
    rs = np.random.RandomState(7)
    cases = []

    # Accuracy: probabilities vs class labels, labels as (n,) and (n, 1).
    acc_b = []
    for n in [5, 8, 3]:
        acc_b.append(([rs.randint(0, 4, size=n).astype(np.float32)], [probs(rs, n, 4)]))
    acc_b.append(([rs.randint(0, 4, size=(6, 1)).astype(np.float32)], [probs(rs, 6, 4)]))

    def acc_val(seen):
        c = t = 0
        for labels, preds in seen:
            for l, p in zip(labels, preds):
                pl = p.argmax(axis=1) if p.shape != l.shape else p
                c += int((pl.astype(np.int32).ravel() == l.astype(np.int32).ravel()).sum())
                t += l.size
        return c / t
    cases.append(case('acc', {}, acc_b, acc_val))

    # Accuracy on axis 0: predictions (classes, n).
    ax_b = [([rs.randint(0, 3, size=5).astype(np.float32)], [probs(rs, 5, 3).T.copy()]) for _ in range(2)]

    def acc0(seen):
        c = t = 0
        for labels, preds in seen:
            c += int((preds[0].argmax(axis=0) == labels[0].astype(np.int32)).sum())
            t += labels[0].size
        return c / t
    cases.append(case('accuracy', {'axis': 0}, ax_b, acc0))

    # Top-k accuracy (k = 3 of 6 classes), random scores so no ties.
    tk_b = [([rs.randint(0, 6, size=n).astype(np.float32)], [rs.uniform(size=(n, 6)).astype(np.float32)])
            for n in [7, 4, 9]]

    def topk(seen, k=3):
        c = t = 0
        for labels, preds in seen:
            order = np.argsort(-preds[0].astype(np.float64), axis=1)[:, :k]
            c += sum(int(l) in row for l, row in zip(labels[0], order))
            t += labels[0].size
        return c / t
    cases.append(case('top_k_accuracy', {'top_k': 3}, tk_b, topk))

    # Binary F1 / Fbeta / MCC: (n, 2) probabilities, positive = column 1 > threshold.
    bin_b = [([rs.randint(0, 2, size=n).astype(np.float32)], [probs(rs, n, 2)]) for n in [10, 6, 12]]

    def bin_counts(seen, threshold=0.5):
        tot = np.zeros((4, 1))
        for labels, preds in seen:
            lab = labels[0].astype(np.int32).reshape(-1, 1)
            pr = (preds[0][:, 1] > threshold).astype(np.int32).reshape(-1, 1)
            tot += np.array(counts(lab, pr))
        return tot

    def f_bin(beta, avg):
        def fn(seen):
            tp, fp, fnn, _ = bin_counts(seen)
            macro, micro = prf(tp, fp, fnn, beta)
            return macro if avg == 'macro' else micro
        return fn

    def mcc(seen):
        tp, fp, fn, tn = [float(x[0]) for x in bin_counts(seen)]
        terms = [tp + fp, tp + fn, tn + fp, tn + fn]
        denom = np.prod([t for t in terms if t != 0])
        return (tp * tn - fp * fn) / math.sqrt(denom)
    cases.append(case('f1', {'average': 'micro'}, bin_b, f_bin(1, 'micro')))
    cases.append(case('f1', {'average': 'macro'}, bin_b, f_bin(1, 'macro')))
    cases.append(case('fbeta', {'beta': 2}, bin_b, f_bin(2, 'micro')))
    cases.append(case('mcc', {}, bin_b, mcc))

    # Binary F1 with predictions of the label's shape (probabilities of the positive class).
    b1_b = [([rs.randint(0, 2, size=n).astype(np.float32)], [rs.uniform(size=n).astype(np.float32)])
            for n in [9, 5]]

    def f_b1(seen):
        tot = np.zeros((4, 1))
        for labels, preds in seen:
            tot += np.array(counts(labels[0].astype(np.int32).reshape(-1, 1),
                                   (preds[0] > 0.3).astype(np.int32).reshape(-1, 1)))
        return prf(tot[0], tot[1], tot[2], 1)[1]
    cases.append(case('f1', {'threshold': 0.3}, b1_b, f_b1))

    # Multiclass F1 / Fbeta: one-hot of argmax vs one-hot of label.
    mc_b = [([rs.randint(0, 4, size=n).astype(np.float32)], [probs(rs, n, 4)]) for n in [8, 11, 5]]

    def f_mc(beta, avg):
        def fn(seen):
            tot = np.zeros((4, 4))
            for labels, preds in seen:
                eye = np.eye(4, dtype=np.int32)
                tot += np.array(counts(eye[labels[0].astype(np.int32)], eye[preds[0].argmax(axis=1)]))
            macro, micro = prf(tot[0], tot[1], tot[2], beta)
            return macro if avg == 'macro' else micro
        return fn
    for avg in ['micro', 'macro']:
        cases.append(case('f1', {'class_type': 'multiclass', 'average': avg}, mc_b, f_mc(1, avg)))
    cases.append(case('fbeta', {'class_type': 'multiclass', 'average': 'macro', 'beta': 0.5}, mc_b,
                      f_mc(0.5, 'macro')))

    # Multilabel F1: thresholded scores vs 0/1 labels of the same shape.
    ml_b = [([rs.randint(0, 2, size=(n, 3)).astype(np.float32)], [rs.uniform(size=(n, 3)).astype(np.float32)])
            for n in [6, 4, 7]]

    def f_ml(avg):
        def fn(seen):
            tot = np.zeros((4, 3))
            for labels, preds in seen:
                tot += np.array(counts(labels[0].astype(np.int32), (preds[0] > 0.5).astype(np.int32)))
            macro, micro = prf(tot[0], tot[1], tot[2], 1)
            return macro if avg == 'macro' else micro
        return fn
    for avg in ['micro', 'macro']:
        cases.append(case('f1', {'class_type': 'multilabel', 'average': avg}, ml_b, f_ml(avg)))

    # Binary accuracy: scalar threshold and per-class thresholds.
    def bacc(threshold):
        def fn(seen):
            c = t = 0
            for labels, preds in seen:
                pr = (preds[0] > np.asarray(threshold, dtype=np.float32)).astype(np.int32)
                c += int((pr.ravel() == labels[0].astype(np.int32).ravel()).sum())
                t += labels[0].size
            return c / t
        return fn
    cases.append(case('binaryaccuracy', {'threshold': 0.6}, ml_b, bacc(0.6)))
    cases.append(case('binaryaccuracy', {'threshold': [0.3, 0.5, 0.7]}, ml_b, bacc([0.3, 0.5, 0.7])))

    # Regression metrics: (n, 3) and (n,) batches.
    reg_b = [([rs.normal(size=(n, 3)).astype(np.float32)], [rs.normal(size=(n, 3)).astype(np.float32)])
             for n in [4, 7]]
    reg_b.append(([rs.normal(size=(5, 3)).astype(np.float32)], [rs.normal(size=(5, 3)).astype(np.float32)]))

    def per_sample(op):
        def fn(seen):
            s = n = 0
            for labels, preds in seen:
                l, p = labels[0].astype(np.float64), preds[0].astype(np.float64)
                s += op(l - p).reshape(l.shape[0], -1).mean(axis=-1).sum()
                n += l.shape[0]
            return s / n
        return fn
    cases.append(case('mae', {}, reg_b, per_sample(np.abs)))
    cases.append(case('mse', {}, reg_b, per_sample(np.square)))
    cases.append(case('rmse', {}, reg_b, lambda seen: math.sqrt(per_sample(np.square)(seen))))
    r1_b = [([rs.normal(size=n).astype(np.float32)], [rs.normal(size=n).astype(np.float32)]) for n in [6, 3]]
    cases.append(case('mae', {}, r1_b, per_sample(np.abs)))

    def mpd(p):
        def fn(seen):
            s = n = 0
            for labels, preds in seen:
                l = labels[0].astype(np.float64).reshape(labels[0].shape[0], -1)
                q = preds[0].astype(np.float64).reshape(preds[0].shape[0], -1)
                s += (((l - q) ** p).sum(axis=-1) ** (1.0 / p)).sum()
                n += l.shape[0]
            return s / n
        return fn
    cases.append(case('meanpairwisedistance', {}, reg_b, mpd(2)))
    cases.append(case('meanpairwisedistance', {'p': 4}, reg_b, mpd(4)))

    def cos(seen, eps=1e-8):
        s = n = 0
        for labels, preds in seen:
            l, p = labels[0].astype(np.float64), preds[0].astype(np.float64)
            l = l.reshape(1, -1) if l.ndim == 1 else l
            p = p.reshape(1, -1) if p.ndim == 1 else p
            sim = (l * p).sum(-1) / np.maximum(np.linalg.norm(l, axis=-1) * np.linalg.norm(p, axis=-1), eps)
            s += sim.sum()
            n += l.reshape(-1, l.shape[-1]).shape[0]
        return s / n
    cos_b = reg_b + [([rs.normal(size=3).astype(np.float32)], [rs.normal(size=3).astype(np.float32)])]
    cases.append(case('meancosinesimilarity', {}, cos_b, cos))

    # Cross-entropy family. Labels include 2s for the ignore_label case.
    ce_b = [([rs.randint(0, 5, size=n).astype(np.float32)], [probs(rs, n, 5)]) for n in [6, 9, 4]]

    def ce(eps=1e-12, ignore=None, exp=False, logits=False, nll=False):
        def fn(seen):
            s = n = 0.0
            for labels, preds in seen:
                lab = labels[0].astype(np.int64)
                p = preds[0].astype(np.float64)
                if logits:
                    e = np.exp(p - p.max(axis=-1, keepdims=True))
                    p = e / e.sum(axis=-1, keepdims=True)
                picked = p[np.arange(lab.size), lab]
                if nll:
                    s += -np.log(picked + eps).sum()
                    n += lab.size
                    continue
                keep = np.ones(lab.size, dtype=bool) if ignore is None else lab != ignore
                s += -np.log(np.maximum(eps, picked[keep])).sum()
                n += keep.sum()
            return math.exp(s / n) if exp else s / n
        return fn
    cases.append(case('ce', {}, ce_b, ce()))
    cases.append(case('ce', {'ignore_label': 2}, ce_b, ce(ignore=2)))
    cases.append(case('nll_loss', {}, ce_b, ce(nll=True)))
    cases.append(case('perplexity', {}, ce_b, ce(exp=True)))
    cases.append(case('perplexity', {'ignore_label': 2}, ce_b, ce(ignore=2, exp=True)))
    lg_b = [([rs.randint(0, 5, size=n).astype(np.float32)], [rs.normal(scale=2, size=(n, 5)).astype(np.float32)])
            for n in [5, 7]]
    cases.append(case('ce', {'from_logits': True}, lg_b, ce(logits=True)))
    # A zero probability: eps keeps the log finite.
    z_b = [([np.array([0, 1], dtype=np.float32)], [np.array([[0.0, 1.0], [0.5, 0.5]], dtype=np.float32)])]
    cases.append(case('ce', {'eps': 1e-6}, z_b, ce(eps=1e-6)))

    # Pearson correlation over everything seen so far.
    pr_b = [([rs.normal(size=(n, 2)).astype(np.float32)], [rs.normal(size=(n, 2)).astype(np.float32)])
            for n in [5, 8, 3]]
    for b in pr_b:  # correlate predictions with labels a little
        b[1][0][:] = (b[1][0] + 0.7 * b[0][0]).astype(np.float32)

    def pearson(seen):
        l = np.concatenate([b[0][0].astype(np.float64).ravel() for b in seen])
        p = np.concatenate([b[1][0].astype(np.float64).ravel() for b in seen])
        return float(np.corrcoef(p, l)[0, 1])
    cases.append(case('pearsonr', {}, pr_b, pearson))

    # PCC: confusion matrix (rows: prediction, cols: label), reference triple-sum definition.
    pcc_b = [([rs.randint(0, 3, size=n).astype(np.float32)], [probs(rs, n, 3)]) for n in [12, 9, 15]]

    def pcc(seen):
        k = 3
        cm = np.zeros((k, k))
        for labels, preds in seen:
            for i, j in zip(preds[0].argmax(axis=1), labels[0].astype(np.int64)):
                cm[i, j] += 1
        num = sum(cm[a, a] * cm[b, c] - cm[a, b] * cm[c, a] for a in range(k) for b in range(k) for c in range(k))
        d1 = sum(cm[a, :].sum() * sum(cm[f, :].sum() for f in range(k) if f != a) for a in range(k))
        d2 = sum(cm[:, a].sum() * sum(cm[:, g].sum() for g in range(k) if g != a) for a in range(k))
        return num / math.sqrt(d1 * d2)
    cases.append(case('pcc', {}, pcc_b, pcc))

    # Loss: mean of every prediction value.
    loss_b = [([], [rs.uniform(size=(n,)).astype(np.float32), rs.uniform(size=(2, n)).astype(np.float32)])
              for n in [4, 6]]

    def loss(seen):
        s = n = 0
        for _, preds in seen:
            for p in preds:
                s += p.astype(np.float64).sum()
                n += p.size
        return s / n
    cases.append(case('loss', {}, loss_b, loss))

    # MXNet's own test data (tests/python/unittest/test_metric.py): Pearson over two updates, and PCC
    # on batches built from confusion matrices (cm_batch: label i, one-hot prediction j, cm[i][j] times).
    t_pr = [([np.array([[1, 0], [0, 1], [0, 1]], dtype=np.float32)],
             [np.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]], dtype=np.float32)]),
            ([np.array([[1, 0], [0, 1], [0, 1]], dtype=np.float32)],
             [np.array([[1, 2], [3, 2], [4, 6]], dtype=np.float32)])]
    cases.append(case('pearsonr', {}, t_pr, pearson))

    def cm_batch(cm):
        labels, preds = [], []
        for i in range(len(cm)):
            for j in range(len(cm)):
                labels += [i] * cm[i][j]
                preds += [np.eye(len(cm))[j]] * cm[i][j]
        return ([np.array(labels, dtype=np.float32)], [np.array(preds, dtype=np.float32)])
    t_pcc = [cm_batch([[23, 13, 3], [7, 19, 11], [2, 5, 17]]), cm_batch([[4, 1, 0], [2, 6, 1], [0, 3, 8]])]
    cases.append(case('pcc', {}, t_pcc, pcc))

    composite = {'metrics': ['acc', 'f1'], 'batches': case('acc', {}, bin_b, acc_val)['batches'],
                 'expected': [[running(bin_b, acc_val)[i], running(bin_b, f_bin(1, 'micro'))[i]]
                              for i in range(len(bin_b))]}
    return {'cases': cases, 'composite': composite}


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for name, data in [('init.json', init_golden()), ('metric.json', metric_golden())]:
        (OUT / name).write_text(json.dumps(data, separators=(',', ':'), allow_nan=False) + '\n')
        print('wrote', OUT / name)


if __name__ == '__main__':
    main()
