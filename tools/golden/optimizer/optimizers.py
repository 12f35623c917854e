#!/usr/bin/env python3
"""Golden data for @mx/optimizer's tests (packages/optimizer/src/*.test.ts), none computed with @mx code.

1. Optimizer trajectories (optimizers.json): for every optimizer, weights after each of 6+ updates
   and the final states, with weight decay, rescale_grad, clip_gradient and a learning-rate schedule.
   Expected values come from:
   - torch.optim (float64) where its update equals MXNet's: SGD without momentum (any schedule, the
     gradient pre-clipped as MXNet clips rescale_grad*grad), SGD with momentum and NAG at a constant
     rate (MXNet's `mom = momentum*mom - lr*g; w += mom` is torch's buffer times -lr only while lr
     does not change), Adam/AdamW/RMSProp/AdaGrad with epsilon 0 (torch adds epsilon after the bias
     correction / outside the square root), Adamax with eps 0 and Adadelta (lr 1, no wd). Not NAdam:
     torch 1.13 multiplies mu twice into its mu_product_next, so it is not MXNet's Nadam.
     Each torch trajectory is also run through the NumPy rule, and the two must agree to 1e-10.
   - otherwise a NumPy float64 re-implementation of MXNet's rule (mxnet_rules.py), which is also
     what proves the torch equivalences above.
   Multi-precision cases use float16 weights and gradients (float16 values stored as floats): the
   rule runs on the float32 master copy and the expected weight is that copy rounded to float16.
2. Scheduler values (schedulers.json): Factor/MultiFactor/Poly/Cosine schedulers, with and without
   warmup, called at ascending and at jumping update counts (the first two are stateful in MXNet).

Inputs are float32 (or float16) values from NumPy's RandomState, stored exactly in the JSON. A seed
is skipped when a value sits within 1e-4 of a discontinuity (a clip bound, FTRL's lamda1, the sign
of Signum's momentum), so float32 rounding cannot flip a branch.
Writes packages/optimizer/src/__golden__/{optimizers,schedulers}.json (a rerun reproduces them).
Run from anywhere with the system Python (NumPy, PyTorch):  /usr/bin/python3 tools/golden/optimizer/optimizers.py
"""
import json
import pathlib
import sys

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from mxnet_rules import RULES, STATE_FIRST_MP, Book, make_scheduler  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / 'packages/optimizer/src/__golden__'
STEPS = 6
COMMON = {'wd': 0.05, 'rescaleGrad': 0.5, 'clipGradient': 0.6}


def fac(base, step=2, factor=0.5, **kw):
    return {'type': 'factor', 'options': {'step': step, 'factor': factor, 'baseLr': base, **kw}}


def mfac(base, steps=(2, 4), factor=0.5, **kw):
    return {'type': 'multifactor', 'options': {'step': list(steps), 'factor': factor, 'baseLr': base, **kw}}


def poly(base, max_update=8, pwr=2, final=0.0, **kw):
    return {'type': 'poly', 'options': {'maxUpdate': max_update, 'pwr': pwr, 'finalLr': final, 'baseLr': base, **kw}}


def cos(base, max_update=10, final=0.0, **kw):
    return {'type': 'cosine', 'options': {'maxUpdate': max_update, 'finalLr': final, 'baseLr': base, **kw}}


def case(name, kind, options, scheduler=None, torch_ref=None, params=None, order=None, lr_mult=(), wd_mult=()):
    return {'name': name, 'optimizer': kind, 'options': options, 'scheduler': scheduler, 'torch': torch_ref,
            'params': params or [{'index': 0}], 'order': order, 'lrMult': list(lr_mult), 'wdMult': list(wd_mult)}


F16 = {'multiPrecision': True}
CASES = [
    case('sgd', 'sgd', {'learningRate': 0.1, **COMMON}, fac(0.1), torch_ref='sgd'),
    case('sgd_momentum', 'sgd', {'learningRate': 0.1, 'momentum': 0.9, **COMMON},
         mfac(0.1, warmupSteps=2, warmupBeginLr=0.05)),
    case('sgd_momentum_torch', 'sgd', {'learningRate': 0.1, 'momentum': 0.9, **COMMON}, torch_ref='sgd'),
    case('nag', 'nag', {'learningRate': 0.1, 'momentum': 0.9, **COMMON}, poly(0.1, final=0.01)),
    case('nag_torch', 'nag', {'learningRate': 0.1, 'momentum': 0.9, **COMMON}, torch_ref='nag'),
    case('signum', 'signum', {'learningRate': 0.01, 'momentum': 0.9, 'wdLh': 0.1, **COMMON},
         cos(0.01, max_update=6, final=0.001)),
    case('signsgd', 'signum', {'learningRate': 0.01, 'momentum': 0.0, **COMMON}, fac(0.01)),
    case('adam', 'adam', {'learningRate': 0.01, **COMMON},
         cos(0.01, final=0.001, warmupSteps=2, warmupBeginLr=0.001)),
    case('adam_torch', 'adam', {'learningRate': 0.01, 'epsilon': 0.0, 'wd': 0.05, 'rescaleGrad': 0.5},
         fac(0.01), torch_ref='adam'),
    case('adam_begin_num_update', 'adam', {'learningRate': 0.01, 'beginNumUpdate': 3, **COMMON}, fac(0.01)),
    case('adamw', 'adamw', {'learningRate': 0.01, **COMMON, 'wd': 0.1}, fac(0.01)),
    case('adamw_no_bias_correction', 'adamw', {'learningRate': 0.01, 'correctBias': False, **COMMON}, fac(0.01)),
    case('adamw_torch', 'adamw', {'learningRate': 0.01, 'epsilon': 0.0, 'rescaleGrad': 0.5}, fac(0.01),
         torch_ref='adamw'),
    case('rmsprop', 'rmsprop', {'learningRate': 0.01, 'clipWeights': 0.9, **COMMON}, fac(0.01)),
    case('rmsprop_centered', 'rmsprop', {'learningRate': 0.01, 'centered': True, 'clipWeights': 0.9, **COMMON},
         mfac(0.01)),
    case('rmsprop_torch', 'rmsprop', {'learningRate': 0.01, 'epsilon': 0.0, 'wd': 0.05, 'rescaleGrad': 0.5},
         fac(0.01), torch_ref='rmsprop'),
    case('rmsprop_centered_torch', 'rmsprop',
         {'learningRate': 0.01, 'centered': True, 'epsilon': 0.0, 'wd': 0.05, 'rescaleGrad': 0.5},
         torch_ref='rmsprop'),
    case('adagrad', 'adagrad', {'learningRate': 0.1, **COMMON}, fac(0.1)),
    case('adagrad_torch', 'adagrad', {'learningRate': 0.1, 'eps': 0.0, 'rescaleGrad': 0.5, 'clipGradient': 0.6},
         fac(0.1), torch_ref='adagrad'),
    case('adadelta', 'adadelta', {**COMMON}, fac(0.1)),
    case('adadelta_torch', 'adadelta', {'rescaleGrad': 0.5, 'clipGradient': 0.6}, torch_ref='adadelta'),
    case('adamax', 'adamax', {'learningRate': 0.01, **COMMON}, fac(0.01)),
    case('adamax_torch', 'adamax', {'learningRate': 0.01, 'wd': 0.05, 'rescaleGrad': 0.5}, mfac(0.01),
         torch_ref='adamax'),
    case('nadam', 'nadam', {'learningRate': 0.01, **COMMON}, fac(0.01)),
    case('nadam_two_weights', 'nadam', {'learningRate': 0.01, **COMMON}, fac(0.01),
         params=[{'index': 0}, {'index': 1, 'shape': [5]}], order=[0, 1] * STEPS),
    case('ftrl', 'ftrl', {'lamda1': 0.01, 'beta': 1.0, **COMMON}, fac(0.1)),
    case('lamb', 'lamb', {'learningRate': 0.01, 'lowerBound': 0.1, 'upperBound': 1.5, **COMMON}, fac(0.01)),
    case('lamb_no_bias_correction', 'lamb', {'learningRate': 0.01, 'biasCorrection': False, **COMMON}, fac(0.01)),
    case('lars', 'lars', {'learningRate': 0.1, 'momentum': 0.9, 'eta': 0.02, 'eps': 1e-3,
                          'paramIdx2Name': {'0': 'fc_weight', '1': 'fc_bias'}, **COMMON}, mfac(0.1),
         params=[{'index': 0}, {'index': 1, 'shape': [4]}], order=[0, 1] * STEPS),
    case('lars_no_momentum', 'lars', {'learningRate': 0.1, 'eta': 0.02, **COMMON}, fac(0.1)),
    case('sgd_lr_wd_mult', 'sgd',
         {'learningRate': 0.1, 'momentum': 0.5, **COMMON,
          'paramIdx2Name': {'0': 'fc1_weight', '1': 'fc1_bias', '2': 'bn_gamma'}}, fac(0.1),
         params=[{'index': 0}, {'index': 1, 'shape': [4]}, {'index': 2, 'shape': [4]}], order=[0, 1, 2] * STEPS,
         lr_mult=[[0, 0.5], ['fc1_bias', 2.0]], wd_mult=[['bn_gamma', 0.5]]),
    case('sgd_momentum_mp', 'sgd', {'learningRate': 0.1, 'momentum': 0.9, **COMMON, **F16}, fac(0.1),
         params=[{'index': 0, 'dtype': 'float16'}]),
    case('sgd_mp', 'sgd', {'learningRate': 0.1, **COMMON, **F16}, fac(0.1), params=[{'index': 0, 'dtype': 'float16'}]),
    case('nag_mp', 'nag', {'learningRate': 0.1, 'momentum': 0.9, **COMMON, **F16}, fac(0.1),
         params=[{'index': 0, 'dtype': 'float16'}]),
    case('adam_mp', 'adam', {'learningRate': 0.01, **COMMON, **F16}, fac(0.01), params=[{'index': 0, 'dtype': 'float16'}]),
    case('adamw_mp', 'adamw', {'learningRate': 0.01, **COMMON, **F16}, fac(0.01),
         params=[{'index': 0, 'dtype': 'float16'}]),
    case('lamb_mp', 'lamb', {'learningRate': 0.01, **COMMON, **F16}, fac(0.01), params=[{'index': 0, 'dtype': 'float16'}]),
]


def margin_ok(x, c):
    return c is None or np.min(np.abs(np.abs(x) - c)) > 1e-4


def run_rule(c, data):
    """The NumPy rule over the case: [(index, weight after)], final states {index: [arrays]}."""
    kind, o = c['optimizer'], c['options']
    state_fn, rule = RULES[kind]
    idx2name = {int(k): v for k, v in o.get('paramIdx2Name', {}).items()}
    book = Book(kind, o, make_scheduler(c['scheduler']), idx2name, c['lrMult'], c['wdMult'])
    w = {i: v['weight'].astype(np.float64) for i, v in data.items()}
    s = {i: state_fn(o, w[i]) for i in data}
    used = {i: 0 for i in data}
    out = []
    for i in c['order']:
        g = data[i]['grads'][used[i]].astype(np.float64)
        used[i] += 1
        rg, clip_at = o.get('rescaleGrad', 1.0), o.get('clipGradient')
        if not (margin_ok(rg * g, clip_at) and margin_ok(rg * g + book.wd_of(i) * w[i], clip_at)):
            raise AssertionError('gradient too close to the clip bound')
        w[i], s[i] = rule(book, o, i, w[i], g, s[i])
        shown = w[i].astype(np.float16).astype(np.float64) if data[i]['dtype'] == 'float16' else w[i]
        out.append((i, shown))
    states = {}
    for i in data:
        leaves = list(s[i])
        if data[i]['dtype'] == 'float16' and o.get('multiPrecision'):
            leaves = leaves + [w[i]] if kind in STATE_FIRST_MP else [w[i]] + leaves
        states[i] = leaves
    return out, states


def run_torch(c, data):
    """torch.optim over a one-weight case (float64), the learning rate set before every step."""
    kind, o = c['torch'], c['options']
    sched = make_scheduler(c['scheduler'])
    (i, d), = data.items()
    p = torch.tensor(d['weight'].astype(np.float64), requires_grad=True)
    lr0 = o.get('learningRate', 1.0)
    wd, rg, clip_at = o.get('wd', 0.0), o.get('rescaleGrad', 1.0), o.get('clipGradient')
    make = {
        'sgd': lambda: torch.optim.SGD([p], lr=lr0, momentum=o.get('momentum', 0.0), weight_decay=wd),
        'nag': lambda: torch.optim.SGD([p], lr=lr0, momentum=o['momentum'], nesterov=True, weight_decay=wd),
        'adam': lambda: torch.optim.Adam([p], lr=lr0, eps=0.0, weight_decay=wd),
        'adamw': lambda: torch.optim.AdamW([p], lr=lr0, eps=0.0, weight_decay=0.0),
        'rmsprop': lambda: torch.optim.RMSprop([p], lr=lr0, alpha=0.9, eps=0.0, weight_decay=wd,
                                               centered=o.get('centered', False),
                                               momentum=0.9 if o.get('centered') else 0.0),
        'adagrad': lambda: torch.optim.Adagrad([p], lr=lr0, eps=0.0),
        'adadelta': lambda: torch.optim.Adadelta([p], lr=1.0, rho=0.9, eps=1e-5),
        'adamax': lambda: torch.optim.Adamax([p], lr=lr0, eps=0.0, weight_decay=wd),
    }
    opt = make[kind]()
    out = []
    for k, g in enumerate(d['grads'], start=1):
        if sched is not None:
            for group in opt.param_groups:
                group['lr'] = sched(k)
        g = rg * g.astype(np.float64)
        if clip_at is not None:  # only cases where MXNet clips rescale_grad*grad alone
            g = np.clip(g, -clip_at, clip_at)
        p.grad = torch.tensor(g)
        opt.step()
        out.append((i, p.detach().numpy().copy()))
    return out


def make_data(c, seed):
    rng = np.random.RandomState(seed)
    counts = {p['index']: c['order'].count(p['index']) for p in c['params']}
    data = {}
    for p in c['params']:
        shape, dtype = tuple(p.get('shape', [3, 4])), p.get('dtype', 'float32')
        w = rng.uniform(-1, 1, shape).astype(dtype)
        grads = [(rng.randn(*shape) * 1.5).astype(dtype) for _ in range(counts[p['index']])]
        data[p['index']] = {'weight': w, 'grads': grads, 'dtype': dtype, 'shape': list(shape)}
    return data


def trajectory_case(c, base_seed):
    c = dict(c)
    c['order'] = c['order'] or [p['index'] for p in c['params']] * STEPS
    for seed in range(base_seed, base_seed + 100):
        data = make_data(c, seed)
        try:
            ref, states = run_rule(c, data)
        except AssertionError:
            continue
        source = 'numpy (MXNet rule)'
        if c['torch'] is not None:
            tref = run_torch(c, data)
            err = max(float(np.max(np.abs(a[1] - b[1]))) for a, b in zip(ref, tref))
            assert err < 1e-10, f"{c['name']}: torch and the MXNet rule differ by {err}"
            ref, source = tref, f"torch.optim ({c['torch']}), equal to the MXNet rule to {err:.1e}"
        break
    else:
        raise RuntimeError(f"{c['name']}: no seed without a value at a discontinuity")
    fl = lambda a: [float(x) for x in np.asarray(a).ravel()]  # noqa: E731
    return {
        'name': c['name'], 'optimizer': c['optimizer'], 'options': c['options'], 'scheduler': c['scheduler'],
        'lrMult': c['lrMult'], 'wdMult': c['wdMult'], 'order': c['order'], 'seed': seed, 'source': source,
        'params': [{'index': i, 'shape': d['shape'], 'dtype': d['dtype'], 'weight': fl(d['weight']),
                    'grads': [fl(g) for g in d['grads']]} for i, d in data.items()],
        'expected': [{'index': i, 'weight': fl(w)} for i, w in ref],
        'states': [{'index': i, 'leaves': [fl(x) for x in leaves]} for i, leaves in states.items()],
    }


SCHEDULES = [
    ('factor', fac(1.0, step=3, factor=0.5, stopFactorLr=0.01), list(range(0, 41))),
    ('factor_jumps', fac(1.0, step=3, factor=0.5, stopFactorLr=0.01), [0, 1, 50, 3, 7, 100, 2, 4]),
    ('factor_warmup_linear', fac(0.5, step=5, factor=0.9, warmupSteps=4, warmupBeginLr=0.1), list(range(0, 31))),
    ('factor_warmup_constant', fac(0.5, step=5, factor=0.9, warmupSteps=4, warmupBeginLr=0.1,
                                   warmupMode='constant'), list(range(0, 31))),
    ('multifactor', mfac(2.0, steps=(3, 7, 12), factor=0.3, warmupSteps=2, warmupBeginLr=0.5), list(range(0, 21))),
    ('multifactor_jumps', mfac(2.0, steps=(3, 7, 12), factor=0.3), [0, 20, 5, 8, 13]),
    ('poly', poly(1.0, max_update=20, pwr=3, final=0.1, warmupSteps=4, warmupBeginLr=0.0), list(range(0, 26))),
    ('poly_fractional_power', poly(0.8, max_update=15, pwr=1.5), list(range(0, 18))),
    ('poly_jumps', poly(1.0, max_update=20, pwr=2, final=0.1), [0, 10, 30, 5, 21]),
    ('cosine', cos(1.0, max_update=20, final=0.05, warmupSteps=5, warmupBeginLr=0.2, warmupMode='constant'),
     list(range(0, 26))),
    ('cosine_linear_warmup', cos(0.3, max_update=12, warmupSteps=3), list(range(0, 15))),
    ('cosine_jumps', cos(1.0, max_update=20, final=0.05), [25, 3, 7, 30, 20]),
]


def schedules():
    out = []
    for name, spec, calls in SCHEDULES:
        s = make_scheduler(spec)
        out.append({'name': name, 'type': spec['type'], 'options': spec['options'], 'calls': calls,
                    'values': [float(s(n)) for n in calls]})
    return out


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    torch.set_default_dtype(torch.float64)
    cases = [trajectory_case(c, 1000 + 17 * k) for k, c in enumerate(CASES)]
    doc = {'generator': 'tools/golden/optimizer/optimizers.py', 'steps': STEPS, 'cases': cases}
    (OUT / 'optimizers.json').write_text(json.dumps(doc, indent=1) + '\n')
    sdoc = {'generator': 'tools/golden/optimizer/optimizers.py', 'schedules': schedules()}
    (OUT / 'schedulers.json').write_text(json.dumps(sdoc, indent=1) + '\n')
    for c in cases:
        print(f"{c['name']:28s} seed {c['seed']}  {c['source']}")


if __name__ == '__main__':
    main()
