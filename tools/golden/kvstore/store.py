#!/usr/bin/env python3
"""Golden data for @mx/kvstore's push/pull tests (packages/kvstore/src/*.test.ts), none computed with
@mx code.

1. `sums`: float32 values pushed for one key from several arrays. MXNet sums them with
   ElementwiseSum: the first value plus each further one, in push order, in float32; `sequential` is
   that sum in NumPy float32, `exact` the float64 sum rounded once (a check on the first: they agree
   to a few ulps).
2. `sgd`: a store with MXNet's SGD (momentum, weight decay, rescale_grad) set as its optimizer;
   every step pushes one gradient per device for key 3 and pulls the weight. MXNet's
   sgd_mom_update (src/operator/optimizer_op-inl.h, SGDMomKernel):
       mom = momentum * mom - lr * wd * weight - lr * rescale_grad * grad
       weight = weight + mom
   with grad the pushed sum, in float64 (the test allows float32 rounding). Momentum starts at 0.

Inputs are NumPy RandomState float32 draws, stored exactly. Writes
packages/kvstore/src/__golden__/store.json (a rerun reproduces it exactly). Run from anywhere with the
system Python (NumPy):  /usr/bin/python3 tools/golden/kvstore/store.py
"""
import json
import pathlib

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / 'packages/kvstore/src/__golden__/store.json'


def floats(a):
    return [float(x) for x in np.asarray(a).ravel()]


def sums(rng):
    out = []
    for count, shape in ((2, (3, 4)), (3, (17,)), (4, (2, 3, 5))):
        values = [(rng.standard_normal(shape) * 3).astype(np.float32) for _ in range(count)]
        seq = values[0].copy()
        for v in values[1:]:
            seq = (seq + v).astype(np.float32)
        exact = np.sum([v.astype(np.float64) for v in values], axis=0).astype(np.float32)
        assert np.allclose(seq, exact, rtol=1e-6, atol=1e-6)
        out.append({'shape': list(shape), 'values': [floats(v) for v in values],
                    'sequential': floats(seq), 'exact': floats(exact)})
    return out


def sgd(rng, devices=2, steps=4):
    shape = (2, 5)
    lr, momentum, wd, rescale = 0.1, 0.9, 0.01, 0.5
    weight = rng.standard_normal(shape).astype(np.float32)
    w = weight.astype(np.float64)
    mom = np.zeros(shape)
    out_steps = []
    for _ in range(steps):
        grads = [rng.standard_normal(shape).astype(np.float32) for _ in range(devices)]
        g = np.sum([x.astype(np.float64) for x in grads], axis=0)
        mom = momentum * mom - lr * wd * w - lr * rescale * g
        w = w + mom
        out_steps.append({'grads': [floats(x) for x in grads], 'weight': floats(w)})
    return {'shape': list(shape), 'options': {'learningRate': lr, 'momentum': momentum, 'wd': wd,
                                              'rescaleGrad': rescale},
            'weight': floats(weight), 'steps': out_steps}


def main():
    rng = np.random.RandomState(8675309)
    data = {'sums': sums(rng), 'sgd': sgd(rng)}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(data, separators=(',', ':')) + '\n')
    print(f'wrote {OUT}')


if __name__ == '__main__':
    main()
