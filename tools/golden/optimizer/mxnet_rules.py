"""NumPy float64 re-implementations of MXNet's optimizer update rules and learning-rate schedulers.

Written from MXNet 1.9.1's documented formulas and kernels (python/mxnet/optimizer/optimizer.py,
python/mxnet/lr_scheduler.py, src/operator/optimizer_op-inl.h, src/operator/contrib/adamw-inl.h) and
2.0's optimizer/adamW.py (AdamW, which 1.x lacks): the golden references for @mx/optimizer's tests.
Nothing here runs @mx code. Every rule keeps MXNet's bookkeeping quirks (per-index update counts, the
scheduler called with the global num_update, wd_mult 0 for names not ending in _weight/_gamma,
Nadam's optimizer-wide momentum schedule, LARS's momentum correction) because the TypeScript
optimizers must reproduce them; where a kernel applies clipping, weight decay or epsilon at a
particular place, the rule does the same.
"""
import math

import numpy as np


# ---- learning-rate schedulers (python/mxnet/lr_scheduler.py semantics) -----------------------------

class Scheduler:
    def __init__(self, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0.0, warmup_mode='linear'):
        self.base_lr = base_lr
        self.warmup_steps = warmup_steps
        self.warmup_final_lr = base_lr  # fixed at construction (MXNet quirk)
        self.warmup_begin_lr = warmup_begin_lr
        self.warmup_mode = warmup_mode

    def warmup(self, n):
        if self.warmup_mode == 'constant':
            return self.warmup_begin_lr
        return self.warmup_begin_lr + (self.warmup_final_lr - self.warmup_begin_lr) * n / self.warmup_steps


class Factor(Scheduler):
    def __init__(self, step, factor=1.0, stop_factor_lr=1e-8, **kw):
        super().__init__(**kw)
        self.step, self.factor, self.stop, self.count = step, factor, stop_factor_lr, 0

    def __call__(self, n):
        if n < self.warmup_steps:
            return self.warmup(n)
        while n > self.count + self.step:  # stateful: base_lr decays and never comes back
            self.count += self.step
            self.base_lr *= self.factor
            if self.base_lr < self.stop:
                self.base_lr = self.stop
        return self.base_lr


class MultiFactor(Scheduler):
    def __init__(self, step, factor=1.0, **kw):
        super().__init__(**kw)
        self.steps, self.factor, self.k = list(step), factor, 0

    def __call__(self, n):
        if n < self.warmup_steps:
            return self.warmup(n)
        while self.k < len(self.steps) and n > self.steps[self.k]:
            self.k += 1
            self.base_lr *= self.factor
        return self.base_lr


class Poly(Scheduler):
    def __init__(self, max_update, pwr=2, final_lr=0.0, **kw):
        super().__init__(**kw)
        self.orig, self.max_update, self.pwr, self.final = self.base_lr, max_update, pwr, final_lr
        self.max_steps = max_update - self.warmup_steps

    def __call__(self, n):
        if n < self.warmup_steps:
            return self.warmup(n)
        if n <= self.max_update:  # past max_update the last value sticks
            frac = 1.0 - (n - self.warmup_steps) / self.max_steps
            self.base_lr = self.final + (self.orig - self.final) * frac ** self.pwr
        return self.base_lr


class Cosine(Scheduler):
    def __init__(self, max_update, final_lr=0.0, **kw):
        super().__init__(**kw)
        self.orig, self.max_update, self.final = self.base_lr, max_update, final_lr
        self.max_steps = max_update - self.warmup_steps

    def __call__(self, n):
        if n < self.warmup_steps:
            return self.warmup(n)
        if n <= self.max_update:
            c = math.cos(math.pi * (n - self.warmup_steps) / self.max_steps)
            self.base_lr = self.final + (self.orig - self.final) * (1 + c) / 2
        return self.base_lr


SNAKE = {'baseLr': 'base_lr', 'warmupSteps': 'warmup_steps', 'warmupBeginLr': 'warmup_begin_lr',
         'warmupMode': 'warmup_mode', 'stopFactorLr': 'stop_factor_lr', 'maxUpdate': 'max_update',
         'finalLr': 'final_lr', 'pwr': 'pwr', 'step': 'step', 'factor': 'factor'}
KINDS = {'factor': Factor, 'multifactor': MultiFactor, 'poly': Poly, 'cosine': Cosine}


def make_scheduler(spec):
    """A scheduler from the golden file's {type, options} (camelCase keys, as the TS test passes them)."""
    if spec is None:
        return None
    return KINDS[spec['type']](**{SNAKE[k]: v for k, v in spec['options'].items()})


# Default learning rates of the optimizers whose constructors have one (the others default to None).
DEFAULT_LR = {'signum': 0.01, 'adam': 0.001, 'adamw': 0.001, 'rmsprop': 0.001, 'adamax': 0.002,
              'nadam': 0.001, 'lamb': 0.001, 'ftrl': 0.1}


# ---- the optimizer bookkeeping (Optimizer base class) ---------------------------------------------

def clip(x, c):
    return np.clip(x, -c, c)


class Book:
    """num_update, per-index counts, lr/wd with their multipliers and the 1.x wd_mult name rule."""

    def __init__(self, kind, o, sched, idx2name, lr_mult, wd_mult):
        self.sched = sched
        # The constructor's learning_rate: the optimizer's own default when it has one (Adam 0.001...),
        # else None (0.01 without a scheduler). A value given to the base class overrides the
        # scheduler's base_lr; Ftrl keeps learning_rate to itself, so its scheduler is never touched.
        given = o.get('learningRate', DEFAULT_LR.get(kind))
        self.lr = 0.01 if given is None else given
        if sched is not None and given is not None and kind != 'ftrl' and sched.base_lr != given:
            sched.base_lr = given
        self.wd = o.get('wd', 0.0)
        self.begin = o.get('beginNumUpdate', 0)
        self.num_update = self.begin
        self.counts = {}
        self.idx2name = idx2name
        self.lr_mult = dict(lr_mult)
        self.wd_mult = {}
        for n in idx2name.values():
            # 1.x set_wd_mult: wd only for *_weight and *_gamma; LARS's override: only *_weight.
            keep = n.endswith('_weight') or (kind != 'lars' and n.endswith('_gamma'))
            if not keep:
                self.wd_mult[n] = 0.0
        self.wd_mult.update(wd_mult)

    def count(self, i):
        self.counts[i] = self.counts.get(i, self.begin) + 1
        self.num_update = max(self.num_update, self.counts[i])
        return self.counts[i]

    def base_lr(self):
        return self.sched(self.num_update) if self.sched is not None else self.lr

    def mult(self, table, i):
        if i in table:
            return table[i]
        if i in self.idx2name:
            return table.get(self.idx2name[i], 1.0)
        return 1.0

    def lr_of(self, i, base=None):
        return (self.base_lr() if base is None else base) * self.mult(self.lr_mult, i)

    def wd_of(self, i):
        return self.wd * self.mult(self.wd_mult, i)


# ---- update rules: rule(book, opts, index, weight, grad, state) -> (weight, state) -------------------
# States are lists of float64 arrays in MXNet's order; `None` where MXNet keeps no state.

def sgd_state(o, w):
    return [np.zeros_like(w)] if o.get('momentum', 0.0) != 0 else []


def sgd(b, o, i, w, g, s):
    b.count(i)
    return sgd_apply(b, o, i, w, g, s, b.lr_of(i), o.get('momentum', 0.0))


def sgd_apply(b, o, i, w, g, s, lr, m):
    """sgd_update / sgd_mom_update with the given lr and momentum."""
    wd, rg, c = b.wd_of(i), o.get('rescaleGrad', 1.0), o.get('clipGradient')
    gg = clip(rg * g, c) if c else rg * g
    if s:
        mom = m * s[0] - lr * wd * w - lr * gg
        return w + mom, [mom]
    return (1 - lr * wd) * w - lr * gg, s


def nag(b, o, i, w, g, s):
    if not s:
        return sgd(b, o, i, w, g, s)
    b.count(i)
    lr, wd, rg, c, m = b.lr_of(i), b.wd_of(i), o.get('rescaleGrad', 1.0), o.get('clipGradient'), o['momentum']
    gg = (clip(rg * g, c) if c else rg * g) + wd * w
    mom0 = m * s[0]
    w = w - mom0 + (m + 1) * (mom0 - lr * gg)
    return w, [mom0 - lr * gg]


def signum_state(o, w):
    return [np.zeros_like(w)] if o.get('momentum', 0.9) != 0 else []


def signum(b, o, i, w, g, s):
    b.count(i)
    lr, wd, rg, c = b.lr_of(i), b.wd_of(i), o.get('rescaleGrad', 1.0), o.get('clipGradient')
    if not s:  # signsgd_update: rescale and clip have no effect
        return (1 - lr * wd) * w - lr * np.sign(g), s
    m, wd_lh = o.get('momentum', 0.9), o.get('wdLh', 0.0)
    gg = clip(rg * g, c) if c else rg * g
    mom = m * s[0] - (1 - m) * wd * w - (1 - m) * gg
    assert np.min(np.abs(mom)) > 1e-6, 'signum: momentum too close to 0 for a stable sign'
    return (1 - lr * wd_lh) * w + lr * np.sign(mom), [mom]


def two_state(o, w):
    return [np.zeros_like(w), np.zeros_like(w)]


def adam(b, o, i, w, g, s):
    t = b.count(i)
    lr, wd, rg, c = b.lr_of(i), b.wd_of(i), o.get('rescaleGrad', 1.0), o.get('clipGradient')
    b1, b2, eps = o.get('beta1', 0.9), o.get('beta2', 0.999), o.get('epsilon', 1e-8)
    lr = lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
    gg = rg * g + wd * w
    gg = clip(gg, c) if c else gg
    m = b1 * s[0] + (1 - b1) * gg
    v = b2 * s[1] + (1 - b2) * gg * gg
    return w - lr * m / (np.sqrt(v) + eps), [m, v]


def adamw(b, o, i, w, g, s):
    t = b.count(i)
    lr, wd, rg, c = b.lr_of(i), b.wd_of(i), o.get('rescaleGrad', 1.0), o.get('clipGradient')
    b1, b2, eps = o.get('beta1', 0.9), o.get('beta2', 0.999), o.get('epsilon', 1e-6)
    eta = lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t) if o.get('correctBias', True) else lr
    gg = clip(rg * g, c) if c else rg * g
    m = b1 * s[0] + (1 - b1) * gg
    v = b2 * s[1] + (1 - b2) * gg * gg
    return w - eta * (m / (np.sqrt(v) + eps) + wd * w), [m, v]


def rmsprop_state(o, w):
    return [np.zeros_like(w) for _ in range(3 if o.get('centered', False) else 1)]


def rmsprop(b, o, i, w, g, s):
    b.count(i)
    lr, wd, rg, c = b.lr_of(i), b.wd_of(i), o.get('rescaleGrad', 1.0), o.get('clipGradient')
    g1, g2, eps, cw = o.get('gamma1', 0.9), o.get('gamma2', 0.9), o.get('epsilon', 1e-8), o.get('clipWeights')
    gg = rg * g + wd * w
    gg = clip(gg, c) if c else gg
    n = (1 - g1) * gg * gg + g1 * s[0]
    if not o.get('centered', False):
        w = w - lr * (gg / np.sqrt(n + eps))
        return (clip(w, cw) if cw else w), [n]
    gbar = (1 - g1) * gg + g1 * s[1]
    delta = g2 * s[2] - lr * gg / np.sqrt(n - gbar * gbar + eps)
    w = w + delta
    return (clip(w, cw) if cw else w), [n, gbar, delta]


def one_state(o, w):
    return [np.zeros_like(w)]


def adagrad(b, o, i, w, g, s):
    b.count(i)
    lr, wd, rg, c, eps = b.lr_of(i), b.wd_of(i), o.get('rescaleGrad', 1.0), o.get('clipGradient'), o.get('eps', 1e-7)
    gg = rg * g
    gg = clip(gg, c) if c is not None else gg
    h = s[0] + gg * gg
    div = gg / np.sqrt(h + eps)
    return w + (div + w * wd) * -lr, [h]


def adadelta(b, o, i, w, g, s):
    wd = b.wd_of(i)
    b.count(i)
    rg, c, rho, eps = o.get('rescaleGrad', 1.0), o.get('clipGradient'), o.get('rho', 0.9), o.get('epsilon', 1e-5)
    gg = rg * g
    gg = clip(gg, c) if c is not None else gg
    acc_g = rho * s[0] + (1 - rho) * gg * gg
    delta = np.sqrt(s[1] + eps) / np.sqrt(acc_g + eps) * gg
    acc_d = rho * s[1] + (1 - rho) * delta * delta
    return w - (delta + wd * w), [acc_g, acc_d]


def ftrl(b, o, i, w, g, s):
    b.count(i)
    wd, lr = b.wd_of(i), b.lr_of(i)
    rg, c, l1, beta = o.get('rescaleGrad', 1.0), o.get('clipGradient'), o.get('lamda1', 0.01), o.get('beta', 1.0)
    gg = clip(rg * g, c) if c else rg * g
    z = s[0] + gg - (np.sqrt(s[1] + gg * gg) - np.sqrt(s[1])) * w / lr
    n = s[1] + gg * gg
    assert np.min(np.abs(np.abs(z) - l1)) > 1e-4, 'ftrl: |z| too close to lamda1'
    w = (np.sign(z) * l1 - z) / ((beta + np.sqrt(n)) / lr + wd) * (np.abs(z) > l1)
    return w, [z, n]


def adamax(b, o, i, w, g, s):
    t = b.count(i)
    lr, wd, rg, c = b.lr_of(i), b.wd_of(i), o.get('rescaleGrad', 1.0), o.get('clipGradient')
    b1, b2 = o.get('beta1', 0.9), o.get('beta2', 0.999)
    lr = lr / (1 - b1 ** t)
    gg = rg * g + wd * w
    gg = clip(gg, c) if c is not None else gg
    m = b1 * s[0] + (1 - b1) * gg
    u = np.maximum(b2 * s[1], np.abs(gg))
    return w - lr * m / u, [m, u]


def nadam(b, o, i, w, g, s):
    t = b.count(i)
    lr, wd, rg, c = b.lr_of(i), b.wd_of(i), o.get('rescaleGrad', 1.0), o.get('clipGradient')
    b1, b2, eps, sd = o.get('beta1', 0.9), o.get('beta2', 0.999), o.get('epsilon', 1e-8), o.get('scheduleDecay', 0.004)
    gg = rg * g + wd * w
    gg = clip(gg, c) if c is not None else gg
    mt = b1 * (1 - 0.5 * 0.96 ** (t * sd))
    mt1 = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * sd))
    # m_schedule is one value for the whole optimizer (MXNet), not one per weight.
    b.m_schedule = getattr(b, 'm_schedule', 1.0) * mt
    m_next = b.m_schedule * mt1
    m = b1 * s[0] + (1 - b1) * gg
    v = b2 * s[1] + (1 - b2) * gg * gg
    m_bar = (1 - mt) * (gg / (1 - b.m_schedule)) + mt1 * (m / (1 - m_next))
    v_prime = v / (1 - b2 ** t)
    return w - lr * m_bar / (np.sqrt(v_prime) + eps), [m, v]


def lamb(b, o, i, w, g, s):
    t = b.count(i)
    lr, wd, rg, c = b.lr_of(i), b.wd_of(i), o.get('rescaleGrad', 1.0), o.get('clipGradient')
    b1, b2, eps = o.get('beta1', 0.9), o.get('beta2', 0.999), o.get('epsilon', 1e-6)
    gg = clip(rg * g, c) if c else rg * g
    m = b1 * s[0] + (1 - b1) * gg
    v = b2 * s[1] + (1 - b2) * gg * gg
    if o.get('biasCorrection', True):
        upd = (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps) + wd * w
    else:
        upd = m / (np.sqrt(v) + eps) + wd * w
    r1 = np.linalg.norm(w)
    if o.get('lowerBound'):
        r1 = max(r1, o['lowerBound'])
    if o.get('upperBound'):
        r1 = min(r1, o['upperBound'])
    r2 = np.linalg.norm(upd)
    ratio = 1.0 if r1 == 0 or r2 == 0 else r1 / r2
    return w - lr * ratio * upd, [m, v]


def lars(b, o, i, w, g, s):
    b.count(i)
    base = b.base_lr()
    cur = getattr(b, 'cur_lr', None)
    b.last_lr = base if cur is None else cur
    b.cur_lr = base
    lr, wd, rg = b.lr_of(i, base), b.wd_of(i), o.get('rescaleGrad', 1.0)
    m = o.get('momentum', 0.0)
    if m > 0 and o.get('momentumCorrection', True) and b.last_lr != 0:
        m = m * (b.cur_lr / b.last_lr)
    name = b.idx2name.get(i, str(i))
    if not (name.endswith('gamma') or name.endswith('beta') or name.endswith('bias')):
        wn, gn = np.linalg.norm(w), np.linalg.norm(g) * rg
        if wn > 0 and gn > 0:
            lr = lr * o.get('eta', 0.001) * wn / (gn + wd * wn + o.get('eps', 0.0))
    return sgd_apply(b, o, i, w, g, s, lr, m)


RULES = {
    'sgd': (sgd_state, sgd), 'nag': (sgd_state, nag), 'signum': (signum_state, signum),
    'adam': (two_state, adam), 'adamw': (two_state, adamw), 'rmsprop': (rmsprop_state, rmsprop),
    'adagrad': (one_state, adagrad), 'adadelta': (two_state, adadelta), 'ftrl': (two_state, ftrl),
    'adamax': (two_state, adamax), 'nadam': (two_state, nadam), 'lamb': (two_state, lamb),
    'lars': (sgd_state, lars),
}
# Optimizers whose multi-precision state is (state, weight32) rather than MXNet's base (weight32, state).
STATE_FIRST_MP = {'sgd', 'nag', 'lars'}
