"""Golden cases for the np_random family: MXNet 2.0's np samplers (_npi_uniform, _npi_normal,
_npi_gamma, _npi_exponential, _npi_laplace, _npi_logistic, _npi_gumbel, _npi_weibull, _npi_pareto,
_npi_powerd, _npi_rayleigh, _npi_bernoulli, _npi_choice, _npi_multinomial), _shuffle, and gamma's
implicit gradient _backward_gamma_sample.

Sampled values are random (their distributions are tested statistically in
packages/ndarray/src/np/fns/random.test.ts), so a sampler's cases here are of two kinds only:
- bad parameters, the expected text being NumPy 1.24's own ValueError message, taken from the
  exception NumPy raises for the same call (MXNet's wording where NumPy has no such function or
  check: bernoulli's "expect probs", CheckBroadcastable's "operands could not be broadcast");
- degenerate parameters where the sample is a function of the parameters (scale 0 gives loc,
  shape 0 gives 0, low == high gives low, prob 0/1, a one-element population, pvals with a single
  1, one-row shuffles, zero-size outputs); the expected values are NumPy's own samples at those
  parameters (np.random.normal(loc, 0) etc.), which are exact.
Tensor parameters are inputs with the scalar param set to None (MXNet's input1/input2).

_backward_gamma_sample is deterministic: out[j] = sum over the broadcast axes of
ograd * scale * dx/da(a, x / scale), with dx/da = -(dP(a, x)/da) / p(x; a) the implicit
reparameterization gradient of a standard-gamma sample (P the regularized lower incomplete gamma
function, p the density), computed with mpmath at 30 digits.
Run: /usr/bin/python3 tools/golden/ops/np_random.py
"""
import os
import sys

import mpmath as mp
import numpy as np
from scipy import special

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import case, write  # noqa: E402

mp.mp.dps = 30
R = np.random.RandomState(20240611)
cases = []


def numpy_error(f):
    """NumPy's message for the call `f` (which must raise ValueError)."""
    try:
        f()
    except ValueError as e:
        return str(e)
    raise SystemExit(f'expected a ValueError from {f}')


def tag(shape):
    return 'x'.join(map(str, shape)) or 'scalar'


NONE = 'None'

# ---------------------------------------------------------------------------------------------
# Continuous samplers: (op, param names, NumPy function, degenerate parameter values,
# domain checks [(param, bad value)], whether the op has a dtype param).
CONT = [
    ('_npi_uniform', ('low', 'high'), R.uniform, (2.5, 2.5), [], True),
    ('_npi_normal', ('loc', 'scale'), R.normal, (1.5, 0.0), [('scale', -1.0)], True),
    ('_npi_gamma', ('shape', 'scale'), R.gamma, (0.0, 2.0), [('shape', -1.0), ('scale', -0.5)], True),
    ('_npi_exponential', ('scale',), R.exponential, (0.0,), [('scale', -1.0)], False),
    ('_npi_laplace', ('loc', 'scale'), R.laplace, (-3.0, 0.0), [('scale', -2.0)], True),
    ('_npi_logistic', ('loc', 'scale'), R.logistic, (0.25, 0.0), [('scale', -1.0)], False),
    ('_npi_gumbel', ('loc', 'scale'), R.gumbel, (-1.0, 0.0), [('scale', -1.0)], False),
    ('_npi_weibull', ('a',), R.weibull, (0.0,), [('a', -1.0)], False),
    ('_npi_pareto', ('a',), R.pareto, None, [('a', 0.0), ('a', -1.0)], False),
    ('_npi_powerd', ('a',), R.power, None, [('a', 0.0)], False),
    ('_npi_rayleigh', ('scale',), R.rayleigh, (0.0,), [('scale', -1.0)], False),
]
# A valid value per parameter (for the ones a case does not make bad).
OK = {'low': 0.0, 'high': 1.0, 'loc': 0.0, 'scale': 1.0, 'shape': 2.0, 'a': 1.5}


def continuous():
    for op, names, fn, degenerate, checks, has_dtype in CONT:
        out_dt = 'float32'
        # Degenerate scalar parameters: the sample is exact.
        if degenerate is not None:
            for dt in (['float32', 'float64'] if has_dtype else ['float32']):
                size = (2, 3)
                expect = fn(*degenerate, size=size).astype(dt)
                params = {n: v for n, v in zip(names, degenerate)}
                params['size'] = list(size)
                if has_dtype:
                    params['dtype'] = dt
                cases.append(case(f'{op}/degenerate/scalar/{dt}', op, [], [expect], params=params))
            # The same parameters as tensors (input1, input2), broadcast to size.
            shapes = [(2, 1), (1, 3)][:len(names)]
            ins = [np.full(s, v, np.float32) for s, v in zip(shapes, degenerate)]
            params = {n: NONE for n in names}
            params['size'] = [2, 2, 3] if len(names) == 2 else [3, 2, 4]
            expect = fn(*ins, size=tuple(params['size'])).astype(out_dt)
            cases.append(case(f'{op}/degenerate/tensor-broadcast-size', op, ins, [expect], params=params))
            # Tensor parameters without size: the output is their broadcast shape (string params).
            ins = [np.full(s, v, np.float32) for s, v in zip(shapes, degenerate)]
            params = {n: NONE for n in names}
            params['size'] = NONE
            expect = fn(*ins).astype(out_dt)
            cases.append(case(f'{op}/degenerate/tensor-no-size', op, ins, [expect], params=params))
            # One tensor, one scalar (the scale-like second parameter stays a scalar 0; uniform's
            # high would make the sample random again).
            if len(names) == 2 and op != '_npi_uniform':
                loc = np.array([0.5, -2.0, 7.0], np.float32) if degenerate[0] != 0 else np.zeros(3, np.float32)
                params = {names[0]: NONE, names[1]: degenerate[1], 'size': NONE}
                expect = fn(loc, degenerate[1]).astype(out_dt)
                cases.append(case(f'{op}/degenerate/tensor-scalar', op, [loc], [expect], params=params))
        # Zero-size outputs: no draw, no value (valid parameters).
        params = {n: OK[n] for n in names}
        params['size'] = [0, 3]
        cases.append(case(f'{op}/size-0x3', op, [], [np.zeros((0, 3), out_dt)], params=params))
        # Bad parameters: NumPy's message, as a scalar param and as a tensor input.
        for bad_name, bad in checks:
            vals = [bad if n == bad_name else OK[n] for n in names]
            msg = numpy_error(lambda: fn(*vals, size=(3,)))
            params = {n: v for n, v in zip(names, vals)}
            params['size'] = [3]
            cases.append(case(f'{op}/error/{bad_name}={bad}', op, [], params=params, error=msg))
            ins = [np.array([OK[bad_name], bad], np.float32)]
            tvals = [ins[0] if n == bad_name else OK[n] for n in names]
            msg = numpy_error(lambda: fn(*tvals))
            params = {n: (NONE if n == bad_name else OK[n]) for n in names}
            cases.append(case(f'{op}/error/tensor-{bad_name}={bad}', op, ins, params=params, error=msg))
        # A tensor parameter that does not broadcast to size (MXNet CheckBroadcastable's text).
        params = {n: OK[n] for n in names}
        params[names[0]] = NONE
        params['size'] = [2]
        cases.append(case(f'{op}/error/not-broadcastable-to-size', op,
                          [np.full((3,), OK[names[0]], np.float32)], params=params,
                          error='operands could not be broadcast together with shapes (3,) (2,)'))
        params = {n: OK[n] for n in names}
        params['size'] = [2, -1]
        msg = numpy_error(lambda: fn(*[OK[n] for n in names], size=(2, -1)))
        cases.append(case(f'{op}/error/negative-size', op, [], params=params, error=msg))
        if has_dtype:
            params = {n: OK[n] for n in names}
            params.update(size=[2], dtype='int32')
            cases.append(case(f'{op}/error/int-dtype', op, [], params=params, error="Invalid Input: 'int32'"))
    # Two tensor parameters whose shapes do not broadcast together.
    cases.append(case('_npi_normal/error/params-not-broadcastable', '_npi_normal',
                      [np.zeros(3, np.float32), np.ones(2, np.float32)],
                      params={'loc': NONE, 'scale': NONE},
                      error='operands could not be broadcast together with shapes (3,) (2,)'))


# ---------------------------------------------------------------------------------------------
def bernoulli():
    op = '_npi_bernoulli'
    for dt in ('float32', 'float64', 'int32', 'uint8', 'bool'):
        for p in (0.0, 1.0):
            expect = R.binomial(1, p, size=(2, 3)).astype(dt)
            cases.append(case(f'{op}/prob={p}/{dt}', op, [], [expect],
                              params={'prob': p, 'size': [2, 3], 'dtype': dt}))
    # Tensor probabilities (input1) of 0 and 1, broadcast to size; default dtype float32.
    prob = np.array([0.0, 1.0, 1.0, 0.0], np.float32)
    cases.append(case(f'{op}/tensor-prob/size-3x4', op, [prob], [R.binomial(1, prob, (3, 4)).astype('float32')],
                      params={'prob': NONE, 'logit': NONE, 'size': [3, 4]}))
    cases.append(case(f'{op}/tensor-prob/no-size', op, [prob], [R.binomial(1, prob).astype('float32')],
                      params={'prob': NONE, 'logit': NONE}))
    # Logits far enough out that sigmoid(logit) is exactly 0 or 1 in float64.
    logit = np.array([[-800.0], [800.0]], np.float64)
    expect = R.binomial(1, special.expit(logit), (2, 3)).astype('float64')
    cases.append(case(f'{op}/tensor-logit/size-2x3', op, [logit], [expect],
                      params={'prob': NONE, 'logit': NONE, 'is_logit': True, 'size': [2, 3], 'dtype': 'float64'}))
    cases.append(case(f'{op}/scalar-logit', op, [], [R.binomial(1, special.expit(-800.0), (4,)).astype('int32')],
                      params={'logit': -800.0, 'is_logit': True, 'size': [4], 'dtype': 'int32'}))
    cases.append(case(f'{op}/size-0', op, [], [np.zeros((0,), np.float32)], params={'prob': 0.5, 'size': [0]}))
    # MXNet's check (NumPy has no bernoulli): np_bernoulli_op.h.
    msg = 'ValueError: expect probs >= 0 && probs <= 1'
    cases.append(case(f'{op}/error/prob>1', op, [], params={'prob': 1.5, 'size': [2]}, error=msg))
    cases.append(case(f'{op}/error/prob<0', op, [], params={'prob': -0.1, 'size': [2]}, error=msg))
    cases.append(case(f'{op}/error/tensor-prob', op, [np.array([0.5, -0.5], np.float32)],
                      params={'prob': NONE, 'logit': NONE}, error=msg))
    cases.append(case(f'{op}/error/bad-dtype', op, [], params={'prob': 0.5, 'dtype': 'int64'},
                      error="Invalid Input: 'int64'"))


# ---------------------------------------------------------------------------------------------
def choice():
    op = '_npi_choice'
    cases.append(case(f'{op}/a=1/size-3', op, [], [R.choice(1, 3).astype('int64')],
                      params={'a': 1, 'size': [3]}))
    cases.append(case(f'{op}/a=1/no-replace', op, [], [R.choice(1, 1, replace=False).astype('int64')],
                      params={'a': 1, 'size': [1], 'replace': False}))
    cases.append(case(f'{op}/a=1/no-size', op, [], [np.array(R.choice(1), np.int64)], params={'a': 1}))
    p = np.array([0.0, 1.0, 0.0])
    cases.append(case(f'{op}/weighted-one-hot/size-2x2', op, [p],
                      [R.choice(3, (2, 2), p=p).astype('int64')],
                      params={'a': 3, 'size': [2, 2], 'weighted': True}))
    # Population given as a tensor (input1: its length), then p (input2).
    pop = np.array([7.5], np.float32)
    cases.append(case(f'{op}/tensor-population-1/size-4', op, [pop], [R.choice(1, 4).astype('int64')],
                      params={'a': NONE, 'size': [4]}))
    pop = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    p = np.array([0.0, 0.0, 1.0, 0.0])
    cases.append(case(f'{op}/tensor-population/weighted-one-hot', op, [pop, p],
                      [R.choice(4, 3, p=p).astype('int64')],
                      params={'a': NONE, 'size': [3], 'weighted': True}))
    cases.append(case(f'{op}/size-0', op, [], [np.zeros((0,), np.int64)], params={'a': 5, 'size': [0]}))
    cases.append(case(f'{op}/a=0/size-0', op, [], [np.zeros((0,), np.int64)], params={'a': 0, 'size': [0]}))
    errs = [
        ('a=0', {'a': 0, 'size': [3]}, [], lambda: R.choice(0, 3)),
        ('larger-than-population', {'a': 3, 'size': [5], 'replace': False}, [],
         lambda: R.choice(3, 5, replace=False)),
        ('p-sum', {'a': 3, 'size': [2], 'weighted': True}, [np.array([0.5, 0.2, 0.2])],
         lambda: R.choice(3, 2, p=[0.5, 0.2, 0.2])),
        ('p-size', {'a': 3, 'size': [2], 'weighted': True}, [np.array([0.5, 0.5])],
         lambda: R.choice(3, 2, p=[0.5, 0.5])),
        ('p-negative', {'a': 3, 'size': [2], 'weighted': True}, [np.array([1.5, -0.5, 0.0])],
         lambda: R.choice(3, 2, p=[1.5, -0.5, 0.0])),
        ('fewer-non-zero', {'a': 3, 'size': [2], 'replace': False, 'weighted': True},
         [np.array([1.0, 0.0, 0.0])], lambda: R.choice(3, 2, replace=False, p=[1.0, 0.0, 0.0])),
    ]
    for name, params, ins, f in errs:
        cases.append(case(f'{op}/error/{name}', op, ins, params=params, error=numpy_error(f)))
    cases.append(case(f'{op}/error/negative-size', op, [], params={'a': 3, 'size': [-2]},
                      error=numpy_error(lambda: R.choice(3, (-2,)))))


# ---------------------------------------------------------------------------------------------
def multinomial():
    op = '_npi_multinomial'
    cases.append(case(f'{op}/one-hot/size-2', op, [], [R.multinomial(4, [0.0, 1.0, 0.0], 2).astype('int64')],
                      params={'n': 4, 'pvals': [0.0, 1.0, 0.0], 'size': [2]}))
    cases.append(case(f'{op}/one-hot/no-size', op, [], [R.multinomial(3, [0.0, 0.0, 1.0]).astype('int64')],
                      params={'n': 3, 'pvals': '(0.0, 0.0, 1.0)'}))
    # The last category takes 1 - sum(pvals[:-1]) (NumPy), so [0, 0] puts every count there.
    cases.append(case(f'{op}/last-takes-rest', op, [], [R.multinomial(5, [0.0, 0.0], (2, 1)).astype('int64')],
                      params={'n': 5, 'pvals': [0.0, 0.0], 'size': [2, 1]}))
    cases.append(case(f'{op}/n=0', op, [], [R.multinomial(0, [0.3, 0.7], 3).astype('int64')],
                      params={'n': 0, 'pvals': [0.3, 0.7], 'size': [3]}))
    pv = np.array([1.0], np.float64)
    cases.append(case(f'{op}/tensor-pvals', op, [pv], [R.multinomial(6, pv, 2).astype('int64')],
                      params={'n': 6, 'pvals': NONE, 'size': [2]}))
    cases.append(case(f'{op}/size-0', op, [], [np.zeros((0, 2), np.int64)],
                      params={'n': 3, 'pvals': [0.5, 0.5], 'size': [0]}))
    errs = [
        ('n<0', {'n': -1, 'pvals': [0.5, 0.5]}, [], lambda: R.multinomial(-1, [0.5, 0.5])),
        ('pvals-range', {'n': 3, 'pvals': [1.5, -0.5]}, [], lambda: R.multinomial(3, [1.5, -0.5])),
        ('pvals-sum', {'n': 3, 'pvals': [0.7, 0.7, 0.1]}, [], lambda: R.multinomial(3, [0.7, 0.7, 0.1])),
        ('tensor-pvals-range', {'n': 3, 'pvals': NONE}, [np.array([0.5, 1.5])],
         lambda: R.multinomial(3, [0.5, 1.5])),
        ('tensor-pvals-2d', {'n': 3, 'pvals': NONE}, [np.array([[0.5, 0.5]])],
         lambda: R.multinomial(3, [[0.5, 0.5]])),
    ]
    for name, params, ins, f in errs:
        cases.append(case(f'{op}/error/{name}', op, ins, params=params, error=numpy_error(f)))
    cases.append(case(f'{op}/error/missing-n', op, [], params={'pvals': [1.0]}, error='Required parameter n'))


# ---------------------------------------------------------------------------------------------
def shuffle():
    op = '_shuffle'

    def shuffled(x):
        y = x.copy()
        R.shuffle(y)
        return y

    for dt in ('float32', 'float64', 'int32', 'int64', 'uint8', 'bool'):
        x = (np.arange(4).reshape(1, 4) % 2).astype(dt)
        cases.append(case(f'{op}/one-row/{dt}', op, [x], [shuffled(x)]))
    x = np.tile(np.array([[1.5, -2.0]], np.float32), (3, 1))
    cases.append(case(f'{op}/equal-rows/3x2', op, [x], [shuffled(x)]))
    x = np.array([4.0], np.float32)
    cases.append(case(f'{op}/length-1', op, [x], [shuffled(x)]))
    x = np.zeros((0, 3), np.float32)
    cases.append(case(f'{op}/0x3', op, [x], [shuffled(x)]))
    x = np.full((5,), 9, np.int32)
    cases.append(case(f'{op}/alias/_npi_shuffle', '_npi_shuffle', [x], [shuffled(x)]))
    cases.append(case(f'{op}/alias/shuffle', 'shuffle', [x], [shuffled(x)]))


# ---------------------------------------------------------------------------------------------
def dxda(a, x):
    """d x / d a of a standard-gamma sample x with shape a (implicit reparameterization)."""
    a, x = mp.mpf(a), mp.mpf(x)
    d_p = mp.diff(lambda t: mp.gammainc(t, 0, x, regularized=True), a)
    pdf = mp.exp((a - 1) * mp.log(x) - x - mp.loggamma(a))
    return -d_p / pdf


def gamma_backward_expect(og, alpha, x, scale):
    out = np.zeros(alpha.shape, np.float64)
    ab = np.broadcast_to(alpha, x.shape)
    # Index of each sample's alpha element (alpha broadcast, right-aligned, to the samples).
    idx = np.broadcast_to(np.arange(alpha.size).reshape(alpha.shape), x.shape)
    flat = out.reshape(-1)
    for i in np.ndindex(x.shape):
        flat[idx[i]] += float(og[i]) * scale * float(dxda(float(ab[i]), float(x[i]) / scale))
    return out


def gamma_backward():
    op = '_backward_gamma_sample'
    grid = [
        ('same-shape', (4,), (4,), 1.0, 'float64'),
        ('scale-2.5', (2, 3), (2, 3), 2.5, 'float64'),
        ('broadcast-rows', (3,), (4, 3), 1.5, 'float64'),
        ('broadcast-cols', (2, 1), (2, 5), 0.75, 'float64'),
        ('small-shape', (5,), (5,), 1.0, 'float64'),
        ('float32', (3,), (2, 3), 2.0, 'float32'),
    ]
    for name, a_shape, x_shape, scale, dt in grid:
        if name == 'small-shape':
            alpha = np.array([0.2, 0.5, 0.9, 1.0, 3.0])
        else:
            alpha = R.uniform(0.6, 6.0, a_shape)
        # Samples from the distribution itself, away from the far tails where the density underflows.
        x = np.maximum(R.gamma(np.broadcast_to(alpha, x_shape), scale), 1e-3 * scale)
        og = R.uniform(-1.0, 1.0, x_shape)
        alpha, x, og = alpha.astype(dt), x.astype(dt), og.astype(dt)
        expect = gamma_backward_expect(og.astype(np.float64), alpha.astype(np.float64),
                                       x.astype(np.float64), scale).astype(dt)
        tols = {'rtol': 1e-7, 'atol': 1e-9} if dt == 'float64' else {'rtol': 1e-4, 'atol': 1e-5}
        cases.append(case(f'{op}/{name}/{tag(a_shape)}-{tag(x_shape)}', op, [og, alpha, x], [expect],
                          params={'shape': NONE, 'scale': scale, 'size': list(x_shape)}, **tols))
    z = np.zeros((0, 2))
    cases.append(case(f'{op}/zero-size', op, [z, np.ones(2), z], [np.zeros(2)],
                      params={'shape': NONE, 'scale': 1.0}))
    # MXNet 2.0 differentiates gamma w.r.t. a tensor shape with a scalar scale only (np_gamma_op.h).
    cases.append(case(f'{op}/error/tensor-scale', op, [np.ones(2), np.ones(2), np.ones(2)],
                      params={'shape': NONE, 'scale': NONE}, error='ValueError: tensor scale case not supported'))


continuous()
bernoulli()
choice()
multinomial()
shuffle()
gamma_backward()
write('np_random', cases)
