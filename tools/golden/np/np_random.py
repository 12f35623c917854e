#!/usr/bin/env python3
"""Golden data for np.random (packages/ndarray/src/np/fns/random.test.ts). Never NumPy's stream:
random values cannot be compared, so this records what a correct sampler must satisfy, from
SciPy 1.10 and Debian's NumPy 1.24.2 (run with /usr/bin/python3, not pyenv's python3):

- distributions: for each (function, parameters), SciPy's mean, variance and the variance of the
  sample variance (mu4 - sigma^4) for moment tolerances, the quantiles ppf(k / M), k = 1..M-1, for a
  Kolmogorov-Smirnov statistic against the exact CDF (D on that grid is within 1/M of the true D),
  and the KS critical value kstwo.ppf(1 - ALPHA, n) for the sample size;
- discrete distributions: the category probabilities and the chi-square critical value
  chi2.ppf(1 - ALPHA, k - 1);
- shapes and dtypes of `size` and broadcast array parameters (NumPy's shapes; MXNet 2.0's dtypes:
  the default float32 for uniform/normal/gamma/laplace/beta/chisquare/lognormal, float32 for the
  fixed-dtype samplers, int64 for randint/choice/multinomial/permutation);
- errors: NumPy's ValueError text (str(e)) as the expected substring;
- gamma's implicit reparameterization gradient dx/da = -(dP(a, x)/da) / pdf(x; a) from mpmath
  (50 digits), for the `_backward_gamma_sample` kernel.
Writes packages/ndarray/src/np/__golden__/random.json.
"""
import json
import pathlib
import sys

# This file is named random.py: drop its folder from the path so `import random` (NumPy's secrets
# module imports it) finds the standard library.
sys.path = [p for p in sys.path if pathlib.Path(p or '.').resolve() != pathlib.Path(__file__).resolve().parent]

import mpmath  # noqa: E402
import numpy as np  # noqa: E402
import scipy  # noqa: E402
from scipy import stats  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parents[3] / 'packages/ndarray/src/np/__golden__/random.json'
ALPHA = 1e-3
M = 500  # quantile grid
N = 20000  # samples per KS / moment case

# (fn, positional args, scipy frozen distribution, output dtype by MXNet's rule)
CONT = [
    ('uniform', [-2.0, 3.0], stats.uniform(loc=-2, scale=5), 'float32'),
    ('normal', [1.5, 2.0], stats.norm(loc=1.5, scale=2.0), 'float32'),
    ('gamma', [0.5, 2.0], stats.gamma(a=0.5, scale=2.0), 'float32'),
    ('gamma', [3.0, 1.5], stats.gamma(a=3.0, scale=1.5), 'float32'),
    ('exponential', [2.0], stats.expon(scale=2.0), 'float32'),
    ('laplace', [0.5, 1.5], stats.laplace(loc=0.5, scale=1.5), 'float32'),
    ('logistic', [1.0, 0.5], stats.logistic(loc=1.0, scale=0.5), 'float32'),
    ('gumbel', [1.0, 2.0], stats.gumbel_r(loc=1.0, scale=2.0), 'float32'),
    ('weibull', [1.5], stats.weibull_min(c=1.5), 'float32'),
    ('pareto', [5.0], stats.lomax(c=5.0), 'float32'),
    ('power', [3.0], stats.powerlaw(a=3.0), 'float32'),
    ('rayleigh', [2.0], stats.rayleigh(scale=2.0), 'float32'),
    ('lognormal', [0.2, 0.5], stats.lognorm(s=0.5, scale=np.exp(0.2)), 'float32'),
    ('beta', [2.0, 3.0], stats.beta(2.0, 3.0), 'float32'),
    ('chisquare', [4.0], stats.chi2(df=4.0), 'float32'),
    ('f', [5.0, 12.0], stats.f(5.0, 12.0), 'float32'),
    ('rand', [], stats.uniform(), 'float32'),
    ('randn', [], stats.norm(), 'float32'),
]

dists = []
for fn, args, d, dtype in CONT:
    mean, var = float(d.mean()), float(d.var())
    mu4 = float(d.expect(lambda x: (x - mean) ** 4))
    dists.append({
        'fn': fn, 'args': args, 'n': N, 'dtype': dtype,
        'mean': mean, 'var': var, 'varOfVar': mu4 - var * var,
        'quantiles': [float('%.9g' % q) for q in d.ppf(np.arange(1, M) / M)],
        'ksCritical': float(stats.kstwo.ppf(1 - ALPHA, N)),
    })

# Discrete: probabilities per category; chi-square critical value with k - 1 degrees of freedom.
def chi_crit(k):
    return float(stats.chi2.ppf(1 - ALPHA, k - 1))

discrete = [
    {'fn': 'randint', 'args': [-3, 5], 'n': N, 'dtype': 'int64', 'values': list(range(-3, 5)),
     'probs': [1 / 8] * 8, 'chiCritical': chi_crit(8)},
    {'fn': 'choice', 'args': [5], 'kwargs': {'p': [0.1, 0.2, 0.3, 0.15, 0.25]}, 'n': N, 'dtype': 'int64',
     'values': list(range(5)), 'probs': [0.1, 0.2, 0.3, 0.15, 0.25], 'chiCritical': chi_crit(5)},
    {'fn': 'choice', 'args': [6], 'kwargs': {}, 'n': N, 'dtype': 'int64',
     'values': list(range(6)), 'probs': [1 / 6] * 6, 'chiCritical': chi_crit(6)},
]
# Multinomial counts: each category's count is Binomial(n, p_k); its mean and variance.
multinomial = {'n': 10, 'pvals': [0.2, 0.3, 0.5], 'size': 5000,
               'mean': [10 * p for p in [0.2, 0.3, 0.5]], 'var': [10 * p * (1 - p) for p in [0.2, 0.3, 0.5]]}
# Sampling without replacement: the first draw's distribution and the all-distinct property.
noreplace = {'a': 5, 'size': 3, 'p': [0.4, 0.3, 0.1, 0.1, 0.1], 'trials': 2000,
             'firstProbs': [0.4, 0.3, 0.1, 0.1, 0.1], 'chiCritical': chi_crit(5)}
# A permutation of range(k): each position is uniform over the k values.
permutation = {'k': 4, 'trials': 3000, 'chiCritical': chi_crit(4)}

# Shapes: NumPy's result shape for size / broadcast array parameters (values irrelevant).
def shape_case(fn, args, size):
    f = getattr(np.random, fn)
    out = f(*args) if size == 'omit' else f(*args, size=size)
    return list(np.shape(out))

shape_cases = []
for fn, args, size in [
    ('normal', [0.0, 1.0], 'omit'), ('normal', [0.0, 1.0], 5), ('normal', [0.0, 1.0], [2, 3]),
    ('normal', [[[0.0], [1.0]], [1.0, 2.0, 3.0]], 'omit'), ('normal', [[0.0, 1.0, 2.0], 1.0], [4, 3]),
    ('normal', [0.0, 1.0], [0, 3]), ('uniform', [[0.0, 1.0], 2.0], 'omit'), ('uniform', [0.0, [[1.0], [2.0]]], [3, 2, 4]),
    ('gamma', [[1.0, 2.0], 1.0], 'omit'), ('exponential', [[1.0, 2.0, 3.0]], [2, 3]), ('rayleigh', [1.0], [3]),
    ('weibull', [[1.0, 2.0]], 'omit'), ('pareto', [2.0], [2, 2]), ('power', [[2.0, 3.0]], [4, 2]),
    ('logistic', [[0.0, 1.0], 1.0], 'omit'), ('gumbel', [0.0, [1.0, 2.0]], [3, 2]), ('laplace', [0.0, 1.0], [2, 0]),
    ('beta', [2.0, 3.0], [3]), ('chisquare', [[2.0, 3.0]], 'omit'), ('lognormal', [0.0, 1.0], [2]),
]:
    npargs = [np.array(a) if isinstance(a, list) else a for a in args]
    shape_cases.append({'fn': fn, 'args': args, 'size': None if size == 'omit' else size,
                        'shape': shape_case(fn, npargs, size)})
for fn, args, size in [('randint', [0, 5], [2, 3]), ('randint', [5], 'omit'), ('choice', [5], [2, 2]),
                       ('choice', [5], 'omit')]:
    shape_cases.append({'fn': fn, 'args': args, 'size': None if size == 'omit' else size,
                        'shape': shape_case(fn, args, size)})


def err(f):
    try:
        f()
    except Exception as e:  # NumPy's ValueError text
        return str(e).split('\n')[0]
    raise AssertionError('no error')

r = np.random
error_cases = [
    ('normal', [0.0, -1.0], {}, lambda: r.normal(0, -1)),
    ('gamma', [-1.0], {}, lambda: r.gamma(-1.0)),
    ('gamma', [1.0, -1.0], {}, lambda: r.gamma(1.0, -1.0)),
    ('exponential', [-1.0], {}, lambda: r.exponential(-1.0)),
    ('laplace', [0.0, -1.0], {}, lambda: r.laplace(0, -1)),
    ('logistic', [0.0, -1.0], {}, lambda: r.logistic(0, -1)),
    ('gumbel', [0.0, -1.0], {}, lambda: r.gumbel(0, -1)),
    ('weibull', [-1.0], {}, lambda: r.weibull(-1.0)),
    ('pareto', [0.0], {}, lambda: r.pareto(0.0)),
    ('power', [0.0], {}, lambda: r.power(0.0)),
    ('rayleigh', [-1.0], {}, lambda: r.rayleigh(-1.0)),
    ('chisquare', [0.0], {}, lambda: r.chisquare(0.0)),
    ('beta', [0.0, 1.0], {}, lambda: r.beta(0.0, 1.0)),
    ('f', [0.0, 1.0], {}, lambda: r.f(0.0, 1.0)),
    ('randint', [5, 3], {}, lambda: r.randint(5, 3)),
    ('randint', [0], {}, lambda: r.randint(0)),
    ('normal', [0.0, 1.0, -1], {}, lambda: r.normal(0, 1, size=-1)),
    ('choice', [5, 6], {'replace': False}, lambda: r.choice(5, 6, replace=False)),
    ('choice', [[[1, 2], [3, 4]]], {}, lambda: r.choice([[1, 2], [3, 4]])),
    ('choice', [3], {'p': [0.5, 0.5]}, lambda: r.choice(3, p=[0.5, 0.5])),
    ('choice', [3], {'p': [0.5, 0.6, -0.1]}, lambda: r.choice(3, p=[0.5, 0.6, -0.1])),
    ('choice', [3], {'p': [0.2, 0.2, 0.2]}, lambda: r.choice(3, p=[0.2, 0.2, 0.2])),
    ('choice', [0, 2], {}, lambda: r.choice(0, 2)),
    ('multinomial', [3, [0.6, 0.6, 0.1]], {}, lambda: r.multinomial(3, [0.6, 0.6, 0.1])),
    ('multinomial', [-1, [0.5, 0.5]], {}, lambda: r.multinomial(-1, [0.5, 0.5])),
]
errors = [{'fn': fn, 'args': args, 'kwargs': kw, 'error': err(f)} for fn, args, kw, f in error_cases]

# Gamma's implicit gradient dx/da at (a, x), x a standard-gamma value, from mpmath.
mpmath.mp.dps = 50
def implicit(a, x):
    a, x = mpmath.mpf(a), mpmath.mpf(x)
    dP = mpmath.diff(lambda s: mpmath.gammainc(s, 0, x, regularized=True), a)
    pdf = x ** (a - 1) * mpmath.exp(-x) / mpmath.gamma(a)
    return float(-dP / pdf)

gamma_grad = [{'a': a, 'x': x, 'dxda': implicit(a, x)}
              for a, x in [(0.5, 0.1), (0.5, 1.2), (1.0, 0.7), (2.0, 0.5), (2.0, 3.5), (3.0, 2.5),
                           (5.0, 9.0), (9.0, 9.2), (20.0, 14.0), (20.0, 27.0)]]

doc = {
    'generator': 'tools/golden/np/np_random.py',
    'numpy': np.__version__, 'scipy': scipy.__version__, 'alpha': ALPHA, 'grid': M,
    'continuous': dists, 'discrete': discrete, 'multinomial': multinomial, 'noReplace': noreplace,
    'permutation': permutation, 'shapes': shape_cases, 'errors': errors, 'gammaGrad': gamma_grad,
}
OUT.parent.mkdir(parents=True, exist_ok=True)
OUT.write_text(json.dumps(doc, indent=1) + '\n')
print(f'wrote {OUT} ({len(dists)} continuous, {len(shape_cases)} shapes, {len(errors)} errors)')
