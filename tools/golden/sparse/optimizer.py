#!/usr/bin/env python3
"""Golden data for the optimizer updates with row_sparse gradients, computed by NumPy from MXNet
1.9.1's formulas, never by @mx code:

- the cpu kernels of src/operator/optimizer_op-inl.h / optimizer_op.cc (SGDDnsRspKernel with the
  standard path's `weight *= 1 - lr*wd`, SGDMomDnsRspDnsKernel and SGDMomStdDnsRspDnsKernel,
  AdamDnsRspDnsKernel and AdamStdDnsRspDnsKernel, FtrlDnsRspDnsKernel, AdagradDnsRspDnsKernel) and
  src/operator/contrib/optimizer_op-inl.h (GroupAdagradDnsRspKernel), transcribed element-wise
  in their operation order. Arrays and parameters are NumPy scalars/arrays of the kernel's DType
  (parameters are float32 `float` fields cast to DType), so float32 results round after every
  operation exactly as MXNet's float kernels do;
- which update runs follows the FComputeEx dispatch: lazy (only the rows in grad.indices) when
  lazy_update is true and the states have the weight's storage type, the standard update (every
  row, a zero gradient where grad stores none) otherwise; ftrl_update and the adagrad ops are lazy;
- optimizer trajectories (python/mxnet/optimizer/optimizer.py and contrib.py of 1.9.1: SGD, Adam
  with its bias correction folded into lr, AdaGrad's sparse branch, Ftrl, GroupAdaGrad's sparse and
  dense branches) over several steps with row_sparse gradients.

Writes packages/cpu-wasm/src/__golden__/sparse-optimizer.json (kernel cases, also read by
packages/ndarray's sparse optimizer test) and packages/optimizer/src/__golden__/sparse-optimizers.json
(trajectories). A rerun reproduces both exactly. Run from anywhere with /usr/bin/python3:
    /usr/bin/python3 tools/golden/sparse/optimizer.py
"""
import json
import math
import pathlib

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT_KERNELS = ROOT / 'packages/cpu-wasm/src/__golden__/sparse-optimizer.json'
OUT_OPTIMIZERS = ROOT / 'packages/optimizer/src/__golden__/sparse-optimizers.json'

DT = {'float32': np.float32, 'float64': np.float64}


# ---- MXNet's element operations -------------------------------------------------------------------

def clip(x, c):
    """mshadow_op::clip::Map(x, bound): NaN passes through."""
    return np.where(x > c, c, np.where(x < -c, -c, x)).astype(x.dtype)


def sign(x):
    return np.where(x < 0, -1, np.where(x > 0, 1, 0)).astype(x.dtype)


class Param:
    """The op's parameters as DType scalars (MXNet `float` fields cast with static_cast<DType>)."""

    def __init__(self, params, dtype):
        self.raw = params
        self.dt = DT[dtype]
        for k, v in params.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                setattr(self, k, self.dt(np.float32(v)))

    def get(self, k, default):
        return getattr(self, k, self.dt(np.float32(default)))


# ---- the kernels (one row-loop each, on dense weight/state copies holding every row) ---------------

def sgd(p, w, idx, g, lazy):
    dt = p.dt
    lr, wd = p.lr, p.get('wd', 0)
    rescale, c = p.get('rescale_grad', 1), p.get('clip_gradient', -1)
    if not lazy:
        # static_cast<DType>(1 - param.lr * param.wd): float arithmetic, then DType.
        f = np.float32(np.float32(1) - np.float32(p.raw['lr']) * np.float32(p.raw.get('wd', 0)))
        w[:] = w * dt(f)
        wd = dt(0)
    decay = dt(1) - lr * wd
    for i, row in enumerate(idx):
        if c >= 0:
            w[row] = decay * w[row] - lr * clip(rescale * g[i], c)
        else:
            w[row] = decay * w[row] - (lr * rescale) * g[i]


def mom_row(p, w, mom, row, grow):
    lr, momentum, wd = p.lr, p.get('momentum', 0), p.get('wd', 0)
    rescale, c = p.get('rescale_grad', 1), p.get('clip_gradient', -1)
    rate = lr * wd
    if c >= 0:
        mom[row] = momentum * mom[row] - rate * w[row] - lr * clip(rescale * grow, c)
    else:
        mom[row] = momentum * mom[row] - rate * w[row] - lr * rescale * grow
    w[row] = w[row] + mom[row]


def sgd_mom(p, w, idx, g, states, lazy):
    (mom,) = states
    if lazy:
        for i, row in enumerate(idx):
            mom_row(p, w, mom, row, g[i])
        return
    pos = {row: i for i, row in enumerate(idx)}
    for row in range(w.shape[0]):
        grow = g[pos[row]] if row in pos else np.zeros(w.shape[1:], dtype=w.dtype)
        mom_row(p, w, mom, row, grow)


def adam_row(p, w, mean, var, row, grow, std):
    dt = p.dt
    lr, wd, b1, b2, eps = p.lr, p.get('wd', 0), p.get('beta1', 0.9), p.get('beta2', 0.999), p.get('epsilon', 1e-8)
    rescale, c = p.get('rescale_grad', 1), p.get('clip_gradient', -1)
    one = dt(1)
    gr = w[row] * wd if grow is None else grow * rescale + w[row] * wd
    if c >= 0:
        cg = clip(gr, c)
        mean[row] = b1 * mean[row] + (one - b1) * cg
        var[row] = b2 * var[row] + (one - b2) * (cg * cg)
    elif std:
        mean[row] = b1 * mean[row] + (one - b1) * gr
        var[row] = b2 * var[row] + (one - b2) * (gr * gr)
    else:
        mean[row] = b1 * mean[row] + (one - b1) * gr
        var[row] = b2 * var[row] + (one - b2) * gr * gr
    w[row] = w[row] - lr * mean[row] / (np.sqrt(var[row]) + eps)


def adam(p, w, idx, g, states, lazy):
    mean, var = states
    if lazy:
        for i, row in enumerate(idx):
            adam_row(p, w, mean, var, row, g[i], False)
        return
    pos = {row: i for i, row in enumerate(idx)}
    for row in range(w.shape[0]):
        adam_row(p, w, mean, var, row, g[pos[row]] if row in pos else None, True)


def ftrl(p, w, idx, g, states):
    z, n = states
    lr, l1, beta, wd = p.lr, p.get('lamda1', 0.01), p.get('beta', 1), p.get('wd', 0)
    rescale, c = p.get('rescale_grad', 1), p.get('clip_gradient', -1)
    for i, row in enumerate(idx):
        gr = g[i] * rescale
        cg = clip(gr, c) if c >= 0 else gr
        z[row] += cg - (np.sqrt(n[row] + cg * cg) - np.sqrt(n[row])) * w[row] / lr
        n[row] += cg * cg
        w[row] = (sign(z[row]) * l1 - z[row]) / ((beta + np.sqrt(n[row])) / lr + wd) \
            * (np.abs(z[row]) > l1).astype(w.dtype)


def ftrl_dense(p, w, gdense, states):
    """FtrlUpdateKernel (the dense fallback of a dense weight with a row_sparse gradient)."""
    ftrl(p, w, list(range(w.shape[0])), gdense, states)


def adagrad(p, w, idx, g, states):
    (h,) = states
    lr, eps = p.lr, p.get('epsilon', 1e-7)
    rescale, c = p.get('rescale_grad', 1), p.get('clip_gradient', -1)
    for i, row in enumerate(idx):
        gr = g[i] * rescale
        if c >= 0:
            gr = clip(gr, c)
        h[row] += gr * gr
        div = gr / np.sqrt(h[row] + eps)
        w[row] = w[row] - div * lr


def group_adagrad(p, w, idx, g, states):
    (h,) = states
    dt = p.dt
    lr, eps = p.lr, p.get('epsilon', 1e-5)
    rescale, c = p.get('rescale_grad', 1), p.get('clip_gradient', -1)
    row_len = int(np.prod(w.shape[1:]))
    hf = h.reshape(-1)
    for i, row in enumerate(idx):
        gr = (g[i] * rescale).reshape(-1)
        if c >= 0:
            gr = clip(gr, c)
        ssq = dt(0)
        for x in gr:
            ssq = ssq + x * x
        hf[row] += ssq / dt(row_len)
        wr = w[row].reshape(-1)
        wr[:] = wr - lr * gr / np.sqrt(hf[row] + eps)


def apply(op, p, w, idx, g, states, lazy):
    if op == 'sgd_update':
        sgd(p, w, idx, g, lazy)
    elif op == 'sgd_mom_update':
        sgd_mom(p, w, idx, g, states, lazy)
    elif op == 'adam_update':
        adam(p, w, idx, g, states, lazy)
    elif op == 'ftrl_update':
        ftrl(p, w, idx, g, states)
    elif op == '_sparse_adagrad_update':
        adagrad(p, w, idx, g, states)
    elif op == '_contrib_group_adagrad_update':
        group_adagrad(p, w, idx, g, states)
    else:
        raise ValueError(op)


# ---- kernel cases ---------------------------------------------------------------------------------

STATES = {'sgd_update': 0, 'sgd_mom_update': 1, 'adam_update': 2, 'ftrl_update': 2,
          '_sparse_adagrad_update': 1, '_contrib_group_adagrad_update': 1}


def flat(a):
    return [float(v) for v in np.asarray(a).reshape(-1)]


def kernel_case(rng, op, dtype, shape, grad_kind, params, weight_stype, state_stype, aux):
    dt = DT[dtype]
    rows = shape[0]
    w = rng.uniform(-2, 2, size=shape).astype(dt)
    if grad_kind == 'empty':
        idx = []
    elif grad_kind == 'dense':
        idx = list(range(rows))
    else:
        idx = sorted(rng.choice(rows, size=max(1, rows // 2), replace=False).tolist())
    g = rng.uniform(-3, 3, size=(len(idx),) + tuple(shape[1:])).astype(dt)
    state_shape = (rows, 1) if op == '_contrib_group_adagrad_update' else shape
    n_states = STATES[op]
    if op == 'ftrl_update':
        states = [rng.uniform(-1, 1, size=state_shape).astype(dt), rng.uniform(0, 2, size=state_shape).astype(dt)]
    elif op in ('_sparse_adagrad_update', '_contrib_group_adagrad_update'):
        states = [rng.uniform(0, 2, size=state_shape).astype(dt)]
    elif op == 'adam_update':
        states = [rng.uniform(-1, 1, size=state_shape).astype(dt), rng.uniform(0, 1, size=state_shape).astype(dt)]
    else:
        states = [rng.uniform(-1, 1, size=state_shape).astype(dt) for _ in range(n_states)]
    lazy = bool(params.get('lazy_update', True)) and (n_states == 0 or state_stype == weight_stype)
    if op in ('ftrl_update', '_sparse_adagrad_update', '_contrib_group_adagrad_update'):
        lazy = True
    p = Param(params, dtype)
    w2 = w.copy()
    s2 = [s.copy() for s in states]
    apply(op, p, w2, idx, g, s2, lazy)
    return {
        'name': f'{op} {dtype} {list(shape)} grad {grad_kind} weight {weight_stype} states {state_stype} '
                f'{aux} {"lazy" if lazy else "standard"} {json.dumps(params, sort_keys=True)}',
        'op': op,
        'dtype': dtype,
        'aux': aux,
        'shape': list(shape),
        'stateShape': list(state_shape),
        'params': params,
        'weightStype': weight_stype,
        'stateStype': state_stype,
        'lazy': lazy,
        'weight': flat(w),
        'grad': {'indices': idx, 'data': flat(g)},
        'states': [flat(s) for s in states],
        'expected': {'weight': flat(w2), 'states': [flat(s) for s in s2]},
    }


def kernel_cases(rng):
    cases = []
    shapes = [(6, 3), (5,), (4, 2, 3)]
    common = [
        {'lr': 0.1},
        {'lr': 0.05, 'wd': 0.1, 'rescale_grad': 0.5, 'clip_gradient': 0.6},
        {'lr': 0.2, 'wd': 0.01, 'rescale_grad': 2.0},
    ]
    for op, extra in [('sgd_update', {}), ('sgd_mom_update', {'momentum': 0.9}),
                      ('adam_update', {'beta1': 0.8, 'beta2': 0.95, 'epsilon': 1e-6})]:
        for dtype in ['float32', 'float64']:
            for k, base in enumerate(common):
                for lazy in [True, False]:
                    for grad_kind in ['rows', 'empty', 'dense']:
                        shape = shapes[(k + (grad_kind == 'dense')) % len(shapes)]
                        params = {**base, **extra, 'lazy_update': lazy}
                        aux = 'int64' if (k + lazy) % 2 == 0 else 'int32'
                        stypes = [('default', 'default'), ('row_sparse', 'row_sparse')]
                        if op != 'sgd_update':
                            stypes.append(('row_sparse', 'default'))
                        for ws, ss in stypes:
                            if op == 'sgd_update':
                                ss = ws
                            cases.append(kernel_case(rng, op, dtype, shape, grad_kind, params, ws, ss, aux))
    for op, params_list in [
        ('ftrl_update', [{'lr': 0.1}, {'lr': 0.3, 'lamda1': 0.2, 'beta': 0.5, 'wd': 0.1,
                                         'rescale_grad': 0.5, 'clip_gradient': 0.8}]),
        ('_sparse_adagrad_update', [{'lr': 0.1}, {'lr': 0.3, 'epsilon': 1e-3, 'rescale_grad': 2.0,
                                                    'clip_gradient': 1.5}]),
        ('_contrib_group_adagrad_update', [{'lr': 0.1}, {'lr': 0.3, 'epsilon': 1e-3, 'rescale_grad': 2.0,
                                                           'clip_gradient': 1.5}]),
    ]:
        for dtype in ['float32', 'float64']:
            for k, params in enumerate(params_list):
                for grad_kind in ['rows', 'empty', 'dense']:
                    shape = [(6, 3), (4, 2, 3)][k] if op != 'ftrl_update' else [(6, 3), (5,)][k]
                    aux = 'int64' if k == 0 else 'int32'
                    stypes = ['row_sparse'] if op == 'ftrl_update' else ['default', 'row_sparse']
                    for st in stypes:
                        cases.append(kernel_case(rng, op, dtype, shape, grad_kind, params, st, st, aux))
    return cases


# ---- optimizer trajectories (python/mxnet/optimizer of 1.9.1) -------------------------------------

def trajectory(rng, name, optimizer, options, shape, weight_stype, steps, grad_kind='rows'):
    """Weights and states after each update; float32 throughout (MXNet's default dtype)."""
    rows = shape[0]
    w = rng.uniform(-1, 1, size=shape).astype(np.float32)
    weight0 = flat(w)
    grads = []
    for t in range(steps):
        if grad_kind in ('dense', 'dense-array'):
            idx = list(range(rows))
        elif grad_kind == 'alternating' and t % 2 == 1:
            idx = []
        else:
            idx = sorted(rng.choice(rows, size=max(1, rows // 3), replace=False).tolist())
        grads.append({'indices': idx,
                      'data': rng.uniform(-2, 2, size=(len(idx),) + tuple(shape[1:])).astype(np.float32)})
    lr = options.get('learningRate', 0.01)
    wd = options.get('wd', 0.0)
    rescale = options.get('rescaleGrad', 1.0)
    clip_g = options.get('clipGradient')
    lazy = options.get('lazyUpdate', True)
    kw = {'rescale_grad': rescale}
    if clip_g:
        kw['clip_gradient'] = clip_g
    # State storage as MXNet's create_state: weight.stype when lazy (SGD, Adam) or always (others).
    state_stype = weight_stype if (lazy or optimizer not in ('sgd', 'adam')) else 'default'
    if optimizer == 'sgd':
        momentum = options.get('momentum', 0.0)
        states = [np.zeros(shape, np.float32)] if momentum else []
    elif optimizer == 'adam':
        states = [np.zeros(shape, np.float32), np.zeros(shape, np.float32)]
    elif optimizer == 'ftrl':
        states = [np.zeros(shape, np.float32), np.zeros(shape, np.float32)]
        lr = options.get('learningRate', 0.1)
    elif optimizer == 'groupadagrad':
        states = [np.zeros((rows, 1), np.float32)]
    else:  # adagrad
        states = [np.zeros(shape, np.float32)]
    history = []
    for t, gr in enumerate(grads, start=1):
        idx, g = gr['indices'], gr['data']
        if optimizer == 'sgd':
            params = {'lr': lr, 'wd': wd, **kw, 'lazy_update': lazy}
            if momentum:
                params['momentum'] = momentum
                run_lazy = lazy and state_stype == weight_stype
                sgd_mom(Param(params, 'float32'), w, idx, g, states, run_lazy)
            else:
                sgd(Param(params, 'float32'), w, idx, g, lazy)
        elif optimizer == 'adam':
            b1, b2 = options.get('beta1', 0.9), options.get('beta2', 0.999)
            eps = options.get('epsilon', 1e-8)
            lr_t = lr * math.sqrt(1. - b2 ** t) / (1. - b1 ** t)
            params = {'lr': lr_t, 'wd': wd, 'beta1': b1, 'beta2': b2, 'epsilon': eps, **kw}
            adam(Param(params, 'float32'), w, idx, g, states, lazy and state_stype == weight_stype)
        elif optimizer == 'adagrad':
            params = {'lr': lr, 'wd': wd, 'epsilon': options.get('eps', 1e-7), **kw}
            adagrad(Param(params, 'float32'), w, idx, g, states)
        elif optimizer == 'ftrl':
            params = {'lr': lr, 'wd': wd, 'lamda1': options.get('lamda1', 0.01), 'beta': options.get('beta', 1),
                      **kw}
            if weight_stype == 'row_sparse':
                ftrl(Param(params, 'float32'), w, idx, g, states)
            else:
                gd = np.zeros(shape, np.float32)
                gd[idx] = g
                ftrl_dense(Param(params, 'float32'), w, gd, states)
        elif optimizer == 'groupadagrad' and grad_kind == 'dense-array':
            # contrib.py's dense branch, NumPy ops in its order (float32 arrays, Python floats).
            eps = options.get('eps', 1e-5)
            gd = g * np.float32(rescale)
            if clip_g is not None:
                gd = np.clip(gd, np.float32(-clip_g), np.float32(clip_g))
            states[0][:] += np.mean(np.square(gd), axis=1, keepdims=True)
            w[:] -= np.float32(lr) * gd / np.sqrt(states[0] + np.float32(eps))
        elif optimizer == 'groupadagrad':
            eps = options.get('eps', 1e-5)
            params = {'lr': lr, 'epsilon': eps, **kw}
            group_adagrad(Param(params, 'float32'), w, idx, g, states)
        history.append({'weight': flat(w), 'states': [flat(s) for s in states]})
    return {
        'name': name,
        'optimizer': optimizer,
        'options': options,
        'shape': list(shape),
        'weightStype': weight_stype,
        'stateStype': state_stype,
        'weight0': weight0,
        'denseGrads': grad_kind == 'dense-array',
        'grads': [{'indices': gr['indices'], 'data': flat(gr['data'])} for gr in grads],
        'steps': history,
    }


def optimizer_cases(rng):
    specs = [
        ('SGD lazy, wd, momentum, dense weight', 'sgd',
         {'learningRate': 0.1, 'wd': 0.01, 'momentum': 0.9, 'rescaleGrad': 0.5}, (8, 3), 'default', 'rows'),
        ('SGD standard (lazyUpdate false), momentum', 'sgd',
         {'learningRate': 0.1, 'wd': 0.01, 'momentum': 0.9, 'lazyUpdate': False}, (8, 3), 'default', 'rows'),
        ('SGD lazy without momentum, wd, clip', 'sgd',
         {'learningRate': 0.2, 'wd': 0.05, 'clipGradient': 0.5}, (6, 2), 'default', 'alternating'),
        ('SGD standard without momentum, wd', 'sgd',
         {'learningRate': 0.2, 'wd': 0.05, 'lazyUpdate': False}, (6, 2), 'default', 'alternating'),
        ('SGD lazy, row_sparse weight and momentum', 'sgd',
         {'learningRate': 0.1, 'wd': 0.01, 'momentum': 0.5}, (7, 2), 'row_sparse', 'rows'),
        ('SGD standard, row_sparse weight, dense momentum', 'sgd',
         {'learningRate': 0.1, 'wd': 0.01, 'momentum': 0.5, 'lazyUpdate': False}, (7, 2), 'row_sparse', 'rows'),
        ('Adam lazy, wd, clip', 'adam',
         {'learningRate': 0.01, 'wd': 0.01, 'clipGradient': 1.0}, (8, 3), 'default', 'rows'),
        ('Adam standard', 'adam',
         {'learningRate': 0.01, 'wd': 0.01, 'lazyUpdate': False}, (8, 3), 'default', 'alternating'),
        ('Adam lazy, row_sparse weight', 'adam',
         {'learningRate': 0.05, 'rescaleGrad': 0.25}, (6, 4), 'row_sparse', 'rows'),
        ('AdaGrad sparse', 'adagrad',
         {'learningRate': 0.1, 'rescaleGrad': 0.5, 'clipGradient': 0.75}, (8, 3), 'default', 'rows'),
        ('AdaGrad sparse, row_sparse weight', 'adagrad',
         {'learningRate': 0.1, 'eps': 1e-5}, (5, 2), 'row_sparse', 'rows'),
        ('Ftrl, row_sparse weight and states', 'ftrl',
         {'learningRate': 0.1, 'lamda1': 0.01, 'wd': 0.01}, (8, 3), 'row_sparse', 'rows'),
        ('Ftrl, dense weight (standard update through the dense fallback)', 'ftrl',
         {'learningRate': 0.1, 'lamda1': 0.01, 'beta': 0.5}, (6, 2), 'default', 'rows'),
        ('GroupAdaGrad sparse', 'groupadagrad',
         {'learningRate': 0.1, 'rescaleGrad': 0.5}, (8, 3), 'default', 'rows'),
        ('GroupAdaGrad sparse, row_sparse weight and history', 'groupadagrad',
         {'learningRate': 0.1, 'clipGradient': 0.5}, (6, 4), 'row_sparse', 'rows'),
        ('GroupAdaGrad dense gradient (composed ops)', 'groupadagrad',
         {'learningRate': 0.1, 'rescaleGrad': 0.5, 'clipGradient': 0.75}, (5, 3), 'default', 'dense-array'),
    ]
    return [trajectory(np.random.default_rng(rng.integers(1 << 30)), name, opt, options, shape, ws, 4, kind)
            for name, opt, options, shape, ws, kind in specs]


def main():
    rng = np.random.default_rng(1504)
    kernels = kernel_cases(rng)
    OUT_KERNELS.parent.mkdir(parents=True, exist_ok=True)
    OUT_KERNELS.write_text(json.dumps({'cases': kernels}, indent=None) + '\n')
    optimizers = optimizer_cases(rng)
    OUT_OPTIMIZERS.parent.mkdir(parents=True, exist_ok=True)
    OUT_OPTIMIZERS.write_text(json.dumps({'cases': optimizers}, indent=None) + '\n')
    print(f'wrote {OUT_KERNELS.relative_to(ROOT)}: {len(kernels)} kernel cases; '
          f'{OUT_OPTIMIZERS.relative_to(ROOT)}: {len(optimizers)} trajectories')


if __name__ == '__main__':
    main()
