"""Golden cases for the elementwise family: unary math, elemwise_*/_* same-shape binary ops,
broadcast_* ops, _*_scalar ops, where, clip and Cast.

Expected values are NumPy's, computed in the input dtype with MXNet's (mshadow's) semantics where
they differ from NumPy's own routine, stated here once:
- integer division truncates toward zero (C), NumPy's // floors;
- mod takes the divisor's sign (= NumPy's mod) and gives 0 for a zero divisor (NumPy: nan);
- transcendental functions on integer arrays are computed in floating point and truncated back;
- comparisons and logic give 1/0 in the operand dtype (legacy ops), not bool;
- round is half away from zero; rint sends ties to floor (rint(1.5) = 1, rint(-1.5) = -2);
  NumPy's rint/round are half to even;
- relu lets NaN through; clip is `x > a_max ? a_max : (x < a_min ? a_min : x)` (NaN passes);
- softsign is x / (1 + |x|), so softsign(inf) is nan, as MXNet computes it;
- _*_scalar ops (MXNet 2.0 NumpyBinaryScalarParam): with is_int=True (default) the scalar is
  converted to the array dtype (truncated for integers); an integer array with is_int=False
  computes and returns float64;
- where's 1-D condition selects whole rows of x / y.
erf, erfinv, gamma and gammaln come from Python's math module (erfinv by Newton's method).
Run: python3 tools/golden/ops/elementwise.py
"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import arr, case, write  # noqa: E402

rng = np.random.default_rng(20240611)
FLOATS = ['float32', 'float64']
cases = []
np.seterr(all='ignore')


def tag(shape):
    return 'x'.join(map(str, shape)) or 'scalar'


def tols(dt, kind):
    """Tolerances: plain arithmetic uses the dtype default; transcendental and special functions
    get explicit looser float64 bounds (backends implement them without libm)."""
    if dt == 'float64' and kind == 'transcendental':
        return {'rtol': 1e-11, 'atol': 1e-13}
    if dt == 'float64' and kind == 'special':
        return {'rtol': 1e-9, 'atol': 1e-12}
    if dt == 'float32' and kind == 'special':
        return {'rtol': 2e-5, 'atol': 1e-6}
    return {}


def vec(f):
    return np.vectorize(f, otypes=[np.float64])


def _erfinv(y):
    if y <= -1 or y >= 1:
        return -math.inf if y == -1 else math.inf if y == 1 else math.nan
    x = 0.0
    for _ in range(100):
        step = (math.erf(x) - y) / (2 / math.sqrt(math.pi) * math.exp(-x * x))
        x -= step
        if abs(step) < 1e-17:
            break
    return x


def _gamma(v):
    try:
        return math.gamma(v)
    except (ValueError, OverflowError):
        return math.inf if v == 0 else math.nan


def _gammaln(v):
    try:
        return math.lgamma(v)
    except (ValueError, OverflowError):
        return math.inf


def f64(fn):
    """A special function computed in float64 and rounded to the input dtype."""
    return lambda x: vec(fn)(x.astype(np.float64)).astype(x.dtype)


def mx_round(x):
    return (np.sign(x) * np.floor(np.abs(x) + x.dtype.type(0.5))).astype(x.dtype)


def mx_rint(x):
    f, c = np.floor(x), np.ceil(x)
    return np.where(x - f <= c - x, f, c).astype(x.dtype)


def sigmoid(x):
    one = x.dtype.type(1)
    return one / (one + np.exp(-x))


GENERAL = [-1.7, -0.6, 0.0, 0.4, 1.2, 2.1]
POSITIVE = [0.25, 0.5, 1.0, 2.0, 3.5, 10.0]
UNIT = [-0.9, -0.5, 0.0, 0.3, 0.7, 0.95]
NONZERO = [-2.0, -0.5, 0.25, 1.0, 3.0, 8.0]
HALVES = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -1.7, 0.2, 2.7]
# name: (numpy function in the input dtype, data, kind, nan/inf probe inputs or None)
UNARY = {
    'abs': (np.abs, GENERAL, 'arith', [-np.inf, np.nan]),
    'sign': (np.sign, GENERAL, 'arith', None),
    'negative': (np.negative, GENERAL, 'arith', [np.inf]),
    'reciprocal': (np.reciprocal, NONZERO, 'arith', [0.0, -np.inf]),
    'square': (np.square, GENERAL, 'arith', None),
    'sqrt': (np.sqrt, POSITIVE, 'transcendental', [-1.0, 0.0, np.inf]),
    'rsqrt': (lambda x: x.dtype.type(1) / np.sqrt(x), POSITIVE, 'transcendental', [0.0, -1.0]),
    'cbrt': (np.cbrt, [-8.0, -0.5, 0.0, 1.0, 3.0, 27.0], 'transcendental', [-np.inf]),
    'rcbrt': (lambda x: x.dtype.type(1) / np.cbrt(x), NONZERO, 'transcendental', [0.0]),
    'exp': (np.exp, [-2.0, -1.0, 0.0, 0.5, 1.0, 3.0], 'transcendental', [np.inf, -np.inf]),
    'expm1': (np.expm1, [-2.0, -1e-4, 0.0, 1e-5, 1.0, 3.0], 'transcendental', [-np.inf]),
    'log': (np.log, POSITIVE, 'transcendental', [0.0, -1.0, np.inf]),
    'log2': (np.log2, POSITIVE, 'transcendental', [0.0, -1.0]),
    'log10': (np.log10, POSITIVE, 'transcendental', [0.0, -1.0]),
    'log1p': (np.log1p, [-0.5, -1e-5, 0.0, 0.5, 3.0, 9.0], 'transcendental', [-1.0, -2.0]),
    'sin': (np.sin, GENERAL, 'transcendental', None),
    'cos': (np.cos, GENERAL, 'transcendental', None),
    'tan': (np.tan, [-1.2, -0.5, 0.0, 0.3, 0.8, 1.1], 'transcendental', None),
    'arcsin': (np.arcsin, UNIT, 'transcendental', [1.5]),
    'arccos': (np.arccos, UNIT, 'transcendental', [-1.5]),
    'arctan': (np.arctan, GENERAL, 'transcendental', [np.inf]),
    'sinh': (np.sinh, GENERAL, 'transcendental', None),
    'cosh': (np.cosh, GENERAL, 'transcendental', None),
    'tanh': (np.tanh, GENERAL, 'transcendental', [np.inf, -np.inf]),
    'arcsinh': (np.arcsinh, GENERAL, 'transcendental', None),
    'arccosh': (np.arccosh, [1.0, 1.5, 2.0, 3.0, 5.0, 10.0], 'transcendental', [0.5]),
    'arctanh': (np.arctanh, UNIT, 'transcendental', [1.0, 2.0]),
    'degrees': (np.degrees, GENERAL, 'transcendental', None),
    'radians': (np.radians, [-180.0, -45.0, 0.0, 30.0, 90.0, 360.0], 'transcendental', None),
    'floor': (np.floor, HALVES, 'arith', [np.nan]),
    'ceil': (np.ceil, HALVES, 'arith', None),
    'trunc': (np.trunc, HALVES, 'arith', None),
    'rint': (mx_rint, HALVES, 'arith', None),
    'round': (mx_round, HALVES, 'arith', None),
    'fix': (np.trunc, HALVES, 'arith', None),
    'relu': (lambda x: np.where(x <= 0, x.dtype.type(0), x), GENERAL, 'arith', [np.nan, -np.inf]),
    'sigmoid': (sigmoid, GENERAL, 'transcendental', [np.inf, -np.inf]),
    'softsign': (lambda x: x / (x.dtype.type(1) + np.abs(x)), GENERAL, 'arith', [np.inf]),
    'erf': (f64(math.erf), [-2.0, -0.5, 0.0, 0.3, 1.0, 3.5], 'special', None),
    'erfinv': (f64(_erfinv), UNIT, 'special', [1.0, -1.0, 2.0]),
    'gamma': (f64(_gamma), [0.5, 1.0, 1.5, 2.5, 3.0, 4.2], 'special', None),
    'gammaln': (f64(_gammaln), [0.1, 0.5, 1.0, 2.5, 3.0, 10.0], 'special', None),
    'logical_not': (lambda x: (x == 0).astype(x.dtype), [-2.0, 0.0, 0.5, 0.0, 1.0, 3.0], 'arith', None),
    '_copy': (lambda x: x.copy(), GENERAL, 'arith', None),
    'BlockGrad': (lambda x: x.copy(), GENERAL, 'arith', None),
}
# Ops also checked on integer arrays (exact in the integer dtype).
INT_UNARY = ['abs', 'sign', 'negative', 'square', 'relu', 'logical_not', '_copy', 'BlockGrad',
             'floor', 'ceil', 'trunc', 'rint', 'round', 'fix']


def unary():
    for name, (fn, data, kind, probes) in UNARY.items():
        for dt in FLOATS:
            x = np.array(data, dtype=dt)
            cases.append(case(f'{name}/{dt}/2x3', name, [x.reshape(2, -1) if x.size == 6 else x.reshape(3, 3)],
                              [fn(x).reshape(2, -1) if x.size == 6 else fn(x).reshape(3, 3)], **tols(dt, kind)))
            s = np.array(data[-1], dtype=dt)
            cases.append(case(f'{name}/{dt}/scalar', name, [s], [fn(s.reshape(1)).reshape(())], **tols(dt, kind)))
            z = np.zeros((0, 2), dtype=dt)
            cases.append(case(f'{name}/{dt}/0x2', name, [z], [z.copy()]))
            if probes and dt == 'float32':
                p = np.array(probes, dtype=dt)
                cases.append(case(f'{name}/{dt}/nan-inf', name, [p], [fn(p)], **tols(dt, kind)))
        if name in INT_UNARY:
            x = np.array([-7, -2, 0, 1, 3, 12], dtype=np.int32).reshape(3, 2)
            want = fn(x.astype(np.float64)).astype(np.int32) if name in ('relu', 'logical_not') else fn(x)
            cases.append(case(f'{name}/int32/3x2', name, [x], [np.asarray(want, dtype=np.int32)]))
    i8 = np.array([-128, -5, 0, 7, 127], dtype=np.int8)
    cases.append(case('abs/int8/wrap', 'abs', [i8], [np.abs(i8)]))
    cases.append(case('negative/int8/wrap', 'negative', [i8], [np.negative(i8)]))
    u8 = np.array([0, 3, 16, 20, 255], dtype=np.uint8)
    cases.append(case('square/uint8/wrap', 'square', [u8], [np.square(u8)]))
    cases.append(case('logical_not/uint8', 'logical_not', [u8], [(u8 == 0).astype(np.uint8)]))
    # Transcendental functions on integers: float math, truncated back.
    xi = np.array([0, 1, 4, 10, 15, 100], dtype=np.int32)
    cases.append(case('sqrt/int32/truncates', 'sqrt', [xi], [np.trunc(np.sqrt(xi.astype(np.float64))).astype(np.int32)]))
    xe = np.array([0, 1, 2, 3], dtype=np.int32)
    cases.append(case('exp/int32/truncates', 'exp', [xe], [np.trunc(np.exp(xe.astype(np.float64))).astype(np.int32)]))
    # Aliases resolve to the same op.
    x = np.array([[0.5, -1.5], [2.0, 4.0]], dtype=np.float32)
    for alias, fn in (('identity', np.copy), ('stop_gradient', np.copy), ('_sparse_abs', np.abs)):
        cases.append(case(f'alias/{alias}', alias, [x], [fn(x)]))


def c_div(a, b):
    """C integer division (truncates toward zero)."""
    q = np.abs(a) // np.abs(b)
    return (np.sign(a) * np.sign(b) * q).astype(a.dtype)


def mx_mod(a, b):
    with np.errstate(all='ignore'):
        r = np.mod(a, np.where(b == 0, 1, b).astype(a.dtype))
    return np.where(b == 0, 0, r).astype(a.dtype)


def as_int(fn):
    """Float math on integers, truncated back to the integer dtype."""
    return lambda a, b: np.trunc(fn(a.astype(np.float64), b.astype(np.float64))).astype(a.dtype)


# stem: (float fn, int fn or None, kind, elemwise name)
BINARY = {
    'add': (np.add, np.add, 'arith', 'elemwise_add'),
    'sub': (np.subtract, np.subtract, 'arith', 'elemwise_sub'),
    'mul': (np.multiply, np.multiply, 'arith', 'elemwise_mul'),
    'div': (np.divide, c_div, 'arith', 'elemwise_div'),
    'mod': (mx_mod, mx_mod, 'arith', '_mod'),
    'power': (np.power, as_int(np.power), 'transcendental', '_power'),
    'maximum': (np.maximum, np.maximum, 'arith', '_maximum'),
    'minimum': (np.minimum, np.minimum, 'arith', '_minimum'),
    'hypot': (np.hypot, as_int(np.hypot), 'transcendental', '_hypot'),
    'equal': (np.equal, np.equal, 'cmp', '_equal'),
    'not_equal': (np.not_equal, np.not_equal, 'cmp', '_not_equal'),
    'greater': (np.greater, np.greater, 'cmp', '_greater'),
    'greater_equal': (np.greater_equal, np.greater_equal, 'cmp', '_greater_equal'),
    'lesser': (np.less, np.less, 'cmp', '_lesser'),
    'lesser_equal': (np.less_equal, np.less_equal, 'cmp', '_lesser_equal'),
    'logical_and': (np.logical_and, np.logical_and, 'cmp', '_logical_and'),
    'logical_or': (np.logical_or, np.logical_or, 'cmp', '_logical_or'),
    'logical_xor': (np.logical_xor, np.logical_xor, 'cmp', '_logical_xor'),
}


def operands(stem, dt, shape_a, shape_b):
    """Inputs in each function's domain: positive bases for power, nonzero divisors, ties for cmp."""
    isint = dt.startswith('int') or dt.startswith('uint')
    if stem == 'power':
        a = rng.integers(0, 5, shape_a) if isint else rng.uniform(0.2, 3.0, shape_a)
        b = rng.integers(0, 4, shape_b) if isint else rng.uniform(-2.0, 3.0, shape_b)
    elif stem in ('div', 'mod'):
        a = rng.integers(-20, 21, shape_a) if isint else rng.uniform(-6.0, 6.0, shape_a)
        b = rng.choice([-7, -3, -2, 2, 3, 5], shape_b) if isint else rng.choice([-2.5, -1.5, 0.75, 1.25, 4.0], shape_b)
    elif BINARY[stem][2] == 'cmp':
        a = rng.integers(-2, 3, shape_a)
        b = rng.integers(-2, 3, shape_b)
    else:
        a = rng.integers(-9, 10, shape_a) if isint else rng.uniform(-4.0, 4.0, shape_a)
        b = rng.integers(-9, 10, shape_b) if isint else rng.uniform(-4.0, 4.0, shape_b)
    return np.asarray(a).astype(dt), np.asarray(b).astype(dt)


def binary_expect(stem, a, b):
    ffn, ifn, kind, _ = BINARY[stem]
    isint = a.dtype.kind in 'iu'
    out = (ifn if isint else ffn)(a, b)
    if kind == 'cmp':
        out = out.astype(a.dtype)
    return np.asarray(out).astype(a.dtype)


BROADCAST_PATTERNS = [((2, 3), (3,)), ((2, 1), (1, 3)), ((3, 1, 2), (4, 1)), ((), (2, 2)),
                      ((0, 3), (1, 3)), ((2, 3), (2, 3)), ((1,), ())]


def binary():
    for stem, (_, _, kind, ename) in BINARY.items():
        for dt in FLOATS + ['int32']:
            for shape in [(2, 3), (), (0, 3)]:
                a, b = operands(stem, dt, shape, shape)
                cases.append(case(f'{ename}/{dt}/{tag(shape)}', ename, [a, b], [binary_expect(stem, a, b)],
                                  **tols(dt, kind)))
            bname = f'broadcast_{stem}'
            for sa, sb in BROADCAST_PATTERNS:
                a, b = operands(stem, dt, sa, sb)
                cases.append(case(f'{bname}/{dt}/{tag(sa)}+{tag(sb)}', bname, [a, b],
                                  [binary_expect(stem, a, b)], **tols(dt, kind)))
    for dt in ('int8', 'uint8'):
        for stem in ('add', 'sub', 'mul'):
            a = np.array([100, 7, 120, 3, 0, 90], dtype=dt).reshape(2, 3)
            b = np.array([100, 9, 5, 3, 1, 2], dtype=dt).reshape(2, 3)
            cases.append(case(f'{BINARY[stem][3]}/{dt}/wrap', BINARY[stem][3], [a, b], [binary_expect(stem, a, b)]))
            cases.append(case(f'broadcast_{stem}/{dt}/wrap', f'broadcast_{stem}', [a, b[:1]],
                              [binary_expect(stem, a, np.broadcast_to(b[:1], a.shape))]))
    # MXNet mod: divisor's sign, 0 for a zero divisor (floats and ints).
    for dt in ('float32', 'int32'):
        a = np.array([7, -7, 7, -7, 5, 0], dtype=dt)
        b = np.array([3, 3, -3, -3, 0, 4], dtype=dt)
        cases.append(case(f'_mod/{dt}/signs-and-zero', '_mod', [a, b], [mx_mod(a, b)]))
    a = np.array([1.0, np.nan, np.inf, -np.inf, 2.0], dtype=np.float32)
    b = np.array([np.nan, np.nan, np.inf, 1.0, 0.0], dtype=np.float32)
    for stem in ('add', 'mul', 'div', 'equal', 'not_equal', 'greater', 'logical_and'):
        cases.append(case(f'broadcast_{stem}/float32/nan-inf', f'broadcast_{stem}', [a, b],
                          [binary_expect(stem, a, b)]))
    for alias in ('_plus', '_Plus', '_add', '_minus', '_Mul', '_Div', 'broadcast_plus', 'broadcast_minus'):
        a = np.array([[1.5, 2.0], [3.0, -4.0]], dtype=np.float32)
        b = np.array([[0.5, -1.0], [2.0, 8.0]], dtype=np.float32)
        fn = {'p': np.add, 'a': np.add, 'P': np.add, 'm': np.subtract, 'M': np.multiply, 'D': np.divide}
        key = alias.replace('broadcast_', '_')[1]
        cases.append(case(f'alias/{alias}', alias, [a, b], [fn[key](a, b)]))
    cases.append(case('_grad_add/float32', '_grad_add', [np.ones((2, 2), np.float32), np.full((2, 2), 2, np.float32)],
                      [np.full((2, 2), 3, np.float32)]))
    # add_n / ElementWiseSum: any number of same-shaped inputs (a composite of elemwise_add kernels).
    rng = np.random.default_rng(11)
    for n in (1, 2, 3, 5):
        for dt in ('float32', 'float64', 'int32'):
            xs = [(rng.standard_normal((3, 4)) * 10).astype(dt) for _ in range(n)]
            cases.append(case(f'add_n/{dt}/n{n}', 'add_n', xs, [np.sum(np.stack(xs), axis=0).astype(dt)],
                              params={'num_args': n}))
    xs = [np.full((2, 3), float(k), np.float32) for k in range(1, 4)]
    cases.append(case('ElementWiseSum/alias', 'ElementWiseSum', xs, [np.full((2, 3), 6, np.float32)],
                      params={'num_args': 3}))
    cases.append(case('add_n/float32/0x2', 'add_n', [np.zeros((0, 2), np.float32)] * 2,
                      [np.zeros((0, 2), np.float32)], params={'num_args': 2}))
    cases.append(case('add_n/bad-shapes', 'add_n', [np.zeros((2, 3), np.float32), np.zeros((3, 2), np.float32)],
                      params={'num_args': 2}, error='Incompatible attr'))


def scalar_fns(isint):
    div = c_div if isint else np.divide
    power = as_int(np.power) if isint else np.power
    hypot = as_int(np.hypot) if isint else np.hypot
    cmp = lambda f: (lambda x, s: f(x, s).astype(x.dtype))  # noqa: E731
    return {
        '_plus_scalar': np.add, '_minus_scalar': np.subtract, '_rminus_scalar': lambda x, s: s - x,
        '_mul_scalar': np.multiply, '_div_scalar': div, '_rdiv_scalar': lambda x, s: div(s, x),
        '_mod_scalar': mx_mod, '_rmod_scalar': lambda x, s: mx_mod(s, x),
        '_power_scalar': power, '_rpower_scalar': lambda x, s: power(s, x),
        '_maximum_scalar': np.maximum, '_minimum_scalar': np.minimum, '_hypot_scalar': hypot,
        '_equal_scalar': cmp(np.equal), '_not_equal_scalar': cmp(np.not_equal),
        '_greater_scalar': cmp(np.greater), '_greater_equal_scalar': cmp(np.greater_equal),
        '_lesser_scalar': cmp(np.less), '_lesser_equal_scalar': cmp(np.less_equal),
        '_logical_and_scalar': cmp(np.logical_and), '_logical_or_scalar': cmp(np.logical_or),
        '_logical_xor_scalar': cmp(np.logical_xor),
    }


def scalar_data(name, isint):
    if name in ('_rdiv_scalar', '_rmod_scalar'):
        return [-7, -2, 1, 3, 5, 12] if isint else [-2.5, -1.0, 0.5, 1.75, 3.0, 4.0]
    if name == '_power_scalar':
        return [0, 1, 2, 3, -2, 5] if isint else [0.5, 1.0, 1.5, 2.0, 3.0, 4.0]
    if name == '_rpower_scalar':
        return [0, 1, 2, 3, 4, 10] if isint else [-2.0, -0.5, 0.0, 1.0, 2.5, 3.0]
    if 'logical' in name or 'equal' in name or 'greater' in name or 'lesser' in name:
        return [-2, 0, 3, 3, 5, 1] if isint else [-2.5, 0.0, 2.5, 2.5, 3.0, 1.0]
    return [-7, -2, 0, 1, 3, 12] if isint else [-2.5, -1.0, 0.0, 0.5, 1.75, 3.0]


def scalar():
    for name in scalar_fns(False):
        for dt in FLOATS + ['int32']:
            isint = dt == 'int32'
            sv = (2 if name == '_rpower_scalar' else 3) if isint else 2.5
            fn = scalar_fns(isint)[name]
            kind = 'transcendental' if 'power' in name or 'hypot' in name else 'arith'
            x = np.array(scalar_data(name, isint), dtype=dt).reshape(2, 3)
            s = np.asarray(sv, dtype=dt)
            cases.append(case(f'{name}/{dt}/2x3', name, [x], [np.asarray(fn(x, s), dtype=dt)],
                              params={'scalar': sv}, **tols(dt, kind)))
            x0 = x.reshape(-1)[-1:].reshape(())
            cases.append(case(f'{name}/{dt}/scalar', name, [x0],
                              [np.asarray(fn(x0.reshape(1), s), dtype=dt).reshape(())],
                              params={'scalar': str(sv)}, **tols(dt, kind)))
            z = np.zeros((0,), dtype=dt)
            cases.append(case(f'{name}/{dt}/0', name, [z], [z.copy()], params={'scalar': sv}))
        if name in ('_plus_scalar', '_mul_scalar', '_div_scalar', '_rdiv_scalar', '_power_scalar',
                    '_greater_scalar', '_equal_scalar', '_maximum_scalar', '_rminus_scalar', '_mod_scalar'):
            # int32 array, non-integer scalar, is_int=False: computes and returns float64.
            x = np.array(scalar_data(name, True), dtype=np.int32)
            want = scalar_fns(False)[name](x.astype(np.float64), np.float64(2.5))
            cases.append(case(f'{name}/int32/is_int-false', name, [x], [np.asarray(want, dtype=np.float64)],
                              params={'scalar': '2.5', 'is_int': 'False'}))
    # is_int=True with a non-integer scalar: MXNet converts the scalar to the array's dtype (truncates).
    x = np.array([-7, -2, 0, 1, 3, 12], dtype=np.int32)
    for name, sv in (('_plus_scalar', 2.5), ('_mul_scalar', -2.7), ('_greater_scalar', 2.9)):
        want = scalar_fns(True)[name](x, np.int32(math.trunc(sv)))
        cases.append(case(f'{name}/int32/truncated-scalar', name, [x], [np.asarray(want, np.int32)],
                          params={'scalar': sv, 'is_int': True}))
    u8 = np.array([250, 3, 7, 0], dtype=np.uint8)
    cases.append(case('_plus_scalar/uint8/wrap', '_plus_scalar', [u8], [u8 + np.uint8(10)], params={'scalar': 10}))
    i8 = np.array([100, -3, 50, 0], dtype=np.int8)
    cases.append(case('_mul_scalar/int8/wrap', '_mul_scalar', [i8], [i8 * np.int8(3)], params={'scalar': 3}))
    f = np.array([1.0, 2.0, 4.0], dtype=np.float32)
    cases.append(case('_div_scalar/float32/by-zero', '_div_scalar', [f], [f / np.float32(0)], params={'scalar': 0}))
    cases.append(case('_mod_scalar/float32/by-zero', '_mod_scalar', [f], [np.zeros(3, np.float32)], params={'scalar': 0}))
    cases.append(case('_PlusScalar/alias', '_PlusScalar', [f], [f + np.float32(1)], params={}))
    cases.append(case('_RMinusScalar/alias', '_RMinusScalar', [f], [np.float32(5) - f], params={'scalar': 5}))


def where():
    for dt, cdt in (('float32', 'float32'), ('float64', 'float64'), ('int32', 'int32'),
                    ('float32', 'uint8'), ('int32', 'float32')):
        c = np.array([[1, 0, 2], [0, 3, 0]], dtype=cdt)
        x = rng.integers(-9, 10, (2, 3)).astype(dt)
        y = rng.integers(-9, 10, (2, 3)).astype(dt)
        cases.append(case(f'where/{dt}/cond-{cdt}', 'where', [c, x, y], [np.where(c != 0, x, y)]))
    c = np.array([1, 0, 1], dtype=np.float32)
    x = np.array([[2, 3], [4, 5], [6, 7]], dtype=np.float32)
    y = np.array([[7, 8], [9, 10], [10, 11]], dtype=np.float32)
    cases.append(case('where/float32/1d-cond', 'where', [c, x, y], [np.array([[2, 3], [9, 10], [6, 7]], np.float32)]))
    c = np.array([0, 1], dtype=np.int32)
    x = np.arange(12, dtype=np.int32).reshape(2, 2, 3)
    cases.append(case('where/int32/1d-cond-3d', 'where', [c, x, -x], [np.where(c.reshape(2, 1, 1) != 0, x, -x)]))
    c = np.array([np.nan, 0.0, -0.0], dtype=np.float32)
    x = np.array([1, 2, 3], dtype=np.float32)
    cases.append(case('where/float32/nan-cond', 'where', [c, x, -x], [np.where(c != 0, x, -x)]))
    z = np.zeros((0, 3), np.float32)
    cases.append(case('where/float32/0x3', 'where', [z, z, z], [z.copy()]))
    s = np.array(1, np.float32)
    cases.append(case('where/float32/scalar', 'where', [s, np.array(4, np.float32), np.array(5, np.float32)],
                      [np.array(4, np.float32)]))
    x = np.zeros((3, 2), np.float32)
    cases.append(case('where/bad-cond-length', 'where', [np.ones(2, np.float32), x, x], error='condition of shape'))
    cases.append(case('where/bad-cond-shape', 'where', [np.ones((3, 1), np.float32), x, x], error='condition of shape'))
    cases.append(case('where/bad-xy', 'where', [x, x, np.zeros((2, 3), np.float32)], error='Incompatible attr'))


def mx_clip(x, lo, hi):
    lo, hi = x.dtype.type(lo), x.dtype.type(hi)
    return np.where(x > hi, hi, np.where(x < lo, lo, x)).astype(x.dtype)


def clip():
    for dt in FLOATS + ['int32', 'int8']:
        x = np.array([-5, -1.5, 0, 0.5, 2, 6.5, 9, 3], dtype=dt).reshape(2, 4)
        lo, hi = (-1, 2) if dt in FLOATS else (0, 6)
        cases.append(case(f'clip/{dt}/2x4', 'clip', [x], [mx_clip(x, lo, hi)], params={'a_min': lo, 'a_max': hi}))
    x = np.array([-5, -1, 0, 3, 9], dtype=np.int32)
    cases.append(case('clip/int32/truncated-bounds', 'clip', [x], [mx_clip(x, -1, 2)],
                      params={'a_min': -1.5, 'a_max': 2.7}))
    p = np.array([np.nan, np.inf, -np.inf, 0.25], dtype=np.float32)
    cases.append(case('clip/float32/nan-inf', 'clip', [p], [mx_clip(p, -1, 1)], params={'a_min': '-1', 'a_max': '1'}))
    x = np.array([0.0, 1.5, 3.0], dtype=np.float32)
    cases.append(case('clip/float32/inverted-bounds', 'clip', [x], [mx_clip(x, 2, 1)], params={'a_min': 2, 'a_max': 1}))
    cases.append(case('clip/float32/0x2', 'clip', [np.zeros((0, 2), np.float32)], [np.zeros((0, 2), np.float32)],
                      params={'a_min': 0, 'a_max': 1}))
    cases.append(case('clip/float64/scalar', 'clip', [np.array(7.5)], [np.array(6.0)], params={'a_min': 0, 'a_max': 6}))
    cases.append(case('clip/missing-a_max', 'clip', [x], error='Required parameter a_max', params={'a_min': 0}))


CASTS = [
    ('float32', 'int32', [0.9, 1.3, -1.7, -0.2, 100.6, -100.6]),
    ('float64', 'float32', [1 / 3, 1e-40, 3.4e38, 1e39, -1e39, 0.1]),
    ('int32', 'float32', [16777217, -3, 0, 2 ** 30 + 1]),
    ('int32', 'int8', [300, -129, 5, 127]),
    ('uint8', 'float32', [0, 200, 255]),
    ('uint8', 'int32', [0, 200, 255]),
    ('int8', 'uint8', [-1, 5, -128, 127]),
    ('float32', 'bool', [0.0, -0.0, 2.5, np.nan, -1.0]),
    ('bool', 'float32', [True, False, True]),
    ('bool', 'int32', [True, False]),
    ('float32', 'float64', [0.1, -2.5, np.inf]),
    ('int64', 'int32', [2 ** 40 + 5, -1, 7]),
    ('int32', 'int64', [-5, 2 ** 31 - 1]),
    ('float32', 'uint8', [0.0, 1.9, 254.5, 37.0]),
    ('float64', 'int64', [-3.9, 2.0 ** 40 + 0.5]),
    ('float32', 'float16', [1e20, 11.1, 0.5, -65504.0]),
    ('float16', 'float32', [0.5, -2.25, 65504.0]),
]


def cast():
    for src, dst, data in CASTS:
        x = np.array(data, dtype=src)
        with np.errstate(all='ignore'):
            y = x.astype(dst)
        cases.append(case(f'Cast/{src}-{dst}', 'Cast', [x], [y], params={'dtype': dst}))
    x = np.array([[1.5, -2.5]], dtype=np.float32)
    cases.append(case('cast/alias', 'cast', [x], [x.astype(np.int32)], params={'dtype': 'int32'}))
    cases.append(case('Cast/0x2', 'Cast', [np.zeros((0, 2), np.float32)], [np.zeros((0, 2), np.int32)],
                      params={'dtype': 'int32'}))
    cases.append(case('Cast/scalar', 'Cast', [np.array(2.75)], [np.array(2.75, np.float32)], params={'dtype': 'float32'}))
    cases.append(case('Cast/bad-dtype', 'Cast', [x], error="Invalid Input: 'float17'", params={'dtype': 'float17'}))
    cases.append(case('Cast/missing-dtype', 'Cast', [x], error='Required parameter dtype', params={}))


def bad_inputs():
    a = np.zeros((2, 3), np.float32)
    cases.append(case('elemwise_add/bad-shapes', 'elemwise_add', [a, a.T.copy()], error='Incompatible attr'))
    cases.append(case('broadcast_add/bad-shapes', 'broadcast_add', [a, np.zeros(4, np.float32)],
                      error='operands could not be broadcast together'))
    cases.append(case('broadcast_maximum/bad-shapes', 'broadcast_maximum',
                      [np.zeros((2, 3, 4), np.float32), np.zeros((3, 1, 3), np.float32)],
                      error='operands could not be broadcast together'))
    cases.append(case('elemwise_mul/bad-dtypes', 'elemwise_mul', [a, a.astype(np.float64)], error='type inconsistent'))
    cases.append(case('_plus_scalar/bad-scalar', '_plus_scalar', [a], error='Invalid Parameter format for scalar',
                      params={'scalar': 'abc'}))
    cases.append(case('_plus_scalar/unknown-param', '_plus_scalar', [a], error="Cannot find argument 'scalr'",
                      params={'scalr': 1}))


unary()
binary()
scalar()
where()
clip()
cast()
bad_inputs()
write('elementwise', cases)
