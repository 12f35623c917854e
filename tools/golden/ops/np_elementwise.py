"""Golden cases for MXNet 2.0's NumPy elementwise ops (`_npi_*` ufunc ops), computed by NumPy 1.24.2.

Semantics (MXNet 2.0 src/operator/numpy/np_elemwise_*.cc, with NumPy's values):
- binary array ops broadcast and promote the two dtypes (np.promote_types); float functions of
  integers (true_divide, arctan2, hypot, copysign, ldexp, logaddexp) give float32, MXNet's default;
- `_npi_*_scalar(x, scalar, is_int)`: the array's dtype, float64 for an integer array with a
  non-integer scalar (NumpyBinaryScalarType); `_npi_r*_scalar` is scalar op x;
- comparisons and logic give bool; unary float functions of integers give float32;
- `_npi_around` rounds half to even; `_npi_nan_to_num` takes explicit posinf/neginf here.
Float64 cases of the differentiable ops feed the conformance gradient check.
Run: /usr/bin/python3 tools/golden/ops/np_elementwise.py
"""
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from common import arr, case, write  # noqa: E402

warnings.simplefilter('ignore')
rng = np.random.default_rng(20240617)


def rand(shape, dtype, lo=-3.0, hi=3.0):
    if dtype == 'bool':
        return rng.random(shape) < 0.5
    if np.dtype(dtype).kind in 'iu':
        return rng.integers(0 if np.dtype(dtype).kind == 'u' else -5, 6, size=shape).astype(dtype)
    return rng.uniform(lo, hi, size=shape).astype(dtype)


FLOAT = {'true_divide', 'copysign', 'arctan2', 'hypot', 'ldexp', 'logaddexp'}
BIN = {
    'add': np.add, 'subtract': np.subtract, 'multiply': np.multiply, 'true_divide': np.true_divide,
    'mod': np.remainder, 'floor_divide': np.floor_divide, 'power': np.power, 'maximum': np.maximum,
    'minimum': np.minimum, 'fmax': np.fmax, 'fmin': np.fmin, 'fmod': np.fmod, 'copysign': np.copysign,
    'arctan2': np.arctan2, 'hypot': np.hypot, 'ldexp': lambda a, b: a * np.power(np.asarray(2.0, a.dtype), b),
    'logaddexp': np.logaddexp, 'equal': np.equal, 'not_equal': np.not_equal, 'greater': np.greater,
    'greater_equal': np.greater_equal, 'less': np.less, 'less_equal': np.less_equal,
    'logical_and': np.logical_and, 'logical_or': np.logical_or, 'logical_xor': np.logical_xor,
}
REVERSED = {'subtract', 'true_divide', 'mod', 'floor_divide', 'power', 'fmod', 'copysign', 'arctan2', 'ldexp'}
SELECTS = {'mod', 'fmod', 'copysign', 'logaddexp', 'maximum', 'minimum', 'fmax', 'fmin', 'equal', 'not_equal', 'greater', 'greater_equal', 'less',
           'less_equal', 'logical_and', 'logical_or', 'logical_xor'}
SMOOTH = {'add', 'subtract', 'multiply', 'true_divide', 'power', 'arctan2', 'hypot', 'ldexp', 'logaddexp'}


def ref(name, a, b):
    p = np.promote_types(a.dtype, b.dtype)
    if name in FLOAT and p.kind != 'f':
        return BIN[name](a.astype('float64'), b.astype('float64')).astype('float32')
    return np.asarray(BIN[name](a.astype(p), b.astype(p)))


cases = []
for name in BIN:
    op = f'_npi_{name}'
    for da, db, sa, sb in [('float32', 'float32', (2, 3), (3,)), ('int32', 'float32', (2, 1), (1, 4)),
                           ('float64', 'float64', (3, 2), (3, 2)), ('int32', 'int64', (4,), ()),
                           ('float32', 'float32', (0, 3), (3,))]:
        pos = name in ('power', 'hypot', 'mod', 'fmod', 'floor_divide', 'true_divide')
        a = rand(sa, da, 0.5 if pos else -3.0, 3.0)
        b = rand(sb, db, 0.5 if pos else -3.0, 3.0)
        if name == 'power' and np.dtype(db).kind in 'iu':
            b = np.abs(b) % 3
            b = b.astype(db)
        if np.dtype(db).kind in 'iu' and name in ('mod', 'fmod', 'floor_divide', 'true_divide'):
            b = np.where(b == 0, 2, b).astype(db)
        tol = {'rtol': 1e-5, 'atol': 1e-6} if ref(name, a, b).dtype == np.float32 else {}
        if da != db and 'float32' in (da, db):
            # int32 (op) float32 -> float64: the compilers compute a subexpression over the float32
            # input alone (2 ** x2 in ldexp) in float32 before promoting; NumPy casts first.
            tol = {'rtol': 1e-6, 'atol': 1e-7}
        cases.append(case(f'{op}/{da}{list(sa)}-{db}{list(sb)}', op, [a, b], [ref(name, a, b)], **tol))
    # Scalar forms (float64: exact compute dtype, usable by the gradient check).
    x = rand((2, 3), 'float64', 0.5, 3.0)
    for s in [2.0, 0.5]:
        sc = {'scalar': s, 'is_int': float(s).is_integer()}
        cases.append(case(f'{op}_scalar/float64-{s}', f'{op}_scalar', [x], [ref(name, x, np.array(s))], params=sc))
        if name in REVERSED:
            cases.append(case(f'_npi_r{name}_scalar/float64-{s}', f'_npi_r{name}_scalar', [x],
                              [ref(name, np.array(s), x)], params=sc))
    xi = rand((2, 3), 'int32')
    xi = np.where(xi == 0, 1, xi).astype('int32')
    # An integer array with a non-integer scalar computes in float64 (NumpyBinaryScalarType).
    r = ref(name, xi.astype('float64'), np.array(2.5))
    extra = {}
    if name in SELECTS:
        extra['skip'] = ('the SimpleOp compilers type a select condition / bool-output comparison in the '
                         "input's integer kind, truncating the float scalar; the np layer casts the array to "
                         'float64 first (ufunc.test.ts covers it)')
    cases.append(case(f'{op}_scalar/int32-2.5', f'{op}_scalar', [xi], [r], params={'scalar': 2.5, 'is_int': False},
                      rtol=1e-5, atol=1e-6, **extra))

# Unary ops.
UN = ['negative', 'reciprocal', 'absolute', 'sign', 'square', 'rint', 'ceil', 'floor', 'trunc', 'fix', 'sqrt', 'cbrt',
      'exp', 'log', 'log10', 'log2', 'log1p', 'expm1', 'sin', 'cos', 'tan', 'arcsin', 'arccos', 'arctan', 'degrees',
      'radians', 'rad2deg', 'deg2rad', 'sinh', 'cosh', 'tanh', 'arcsinh', 'arccosh', 'arctanh', 'logical_not',
      'isnan', 'isinf', 'isposinf', 'isneginf', 'isfinite']
DOMAIN = {'sqrt': (0.1, 3), 'log': (0.1, 3), 'log10': (0.1, 3), 'log2': (0.1, 3), 'log1p': (-0.5, 3),
          'arcsin': (-0.9, 0.9), 'arccos': (-0.9, 0.9), 'arctanh': (-0.9, 0.9), 'arccosh': (1.1, 3),
          'reciprocal': (0.5, 3)}
for name in UN:
    op = f'_npi_{name}'
    lo, hi = DOMAIN.get(name, (-3.0, 3.0))
    f = getattr(np, name)
    for dt in ['float64', 'float32']:
        x = rand((2, 3), dt, lo, hi)
        if name in ('rint', 'isnan', 'isinf', 'isposinf', 'isneginf', 'isfinite', 'sign'):
            x = np.array([0.5, 1.5, -2.5, np.nan, np.inf, -np.inf], dtype=dt).reshape(2, 3)
        tol = {'rtol': 1e-5, 'atol': 1e-6} if dt == 'float32' else {}
        cases.append(case(f'{op}/{dt}', op, [x], [np.asarray(f(x))], **tol))
    if name not in ('negative', 'reciprocal', 'absolute', 'sign', 'square'):
        xi = np.array([[1, 2, 3], [0, 4, 5]], dtype='int32') if name not in ('arccosh',) else np.array([[1, 2, 3]], 'int32')
        if name in ('arcsin', 'arccos', 'arctanh'):
            xi = np.array([[0, 0, 0]], 'int32')
        r = np.asarray(f(xi.astype('float64')))
        r = r if r.dtype == np.bool_ else r.astype('float32')
        cases.append(case(f'{op}/int32', op, [xi], [r], rtol=1e-5, atol=1e-6))
cases.append(case('_npi_negative/int8', '_npi_negative', [np.array([1, -128, 5], 'int8')],
                  [np.negative(np.array([1, -128, 5], 'int8'))]))
xr = np.array([0.125, 2.5, -2.5, 1.35, 15.0, 25.0])
for d in [0, 1, 2, -1]:
    cases.append(case(f'_npi_around/decimals={d}', '_npi_around', [xr], [np.around(xr, d)], params={'decimals': d}))
xn = np.array([np.nan, np.inf, -np.inf, 1.0])
cases.append(case('_npi_nan_to_num/float64', '_npi_nan_to_num', [xn],
                  [np.nan_to_num(xn, nan=2.0, posinf=9.0, neginf=-9.0)],
                  params={'nan': 2.0, 'posinf': 9.0, 'neginf': -9.0}))
cases.append(case('_npi_nan_to_num/finite', '_npi_nan_to_num', [xr], [xr], params={'posinf': 1.0, 'neginf': -1.0}))
cases.append(case('_npi_copy/int64', '_npi_copy', [np.array([1, 2, 3])], [np.array([1, 2, 3])]))
# Float cases for the gradient check (values off clip's kinks).
xc = np.array([-1.3, -0.2, 0.4, 0.9, 1.6, 0.05])
cases.append(case('_npi_copy/float64', '_npi_copy', [xc], [xc.copy()]))
cases.append(case('_npi_clip/float64', '_npi_clip', [xc], [np.clip(xc, -0.5, 1.0)], params={'a_min': -0.5, 'a_max': 1.0}))
cases.append(case('_npi_clip/float32', '_npi_clip', [xc.astype('float32')],
                  [np.clip(xc, -1.0, 0.5).astype('float32')], params={'a_min': -1.0, 'a_max': 0.5}))

# Integer ops.
INT = {'bitwise_and': np.bitwise_and, 'bitwise_or': np.bitwise_or, 'bitwise_xor': np.bitwise_xor,
       'bitwise_left_shift': np.left_shift, 'bitwise_right_shift': np.right_shift, 'gcd': np.gcd, 'lcm': np.lcm}
for name, f in INT.items():
    op = f'_npi_{name}'
    shift = 'shift' in name
    for da, db in [('int32', 'int32'), ('int8', 'int64'), ('uint8', 'uint8')]:
        a = rng.integers(-20 if da != 'uint8' else 0, 21, size=(2, 3)).astype(da)
        b = rng.integers(0 if shift or db == 'uint8' else -20, 6 if shift else 21, size=(3,)).astype(db)
        p = np.promote_types(a.dtype, b.dtype)
        cases.append(case(f'{op}/{da}-{db}', op, [a, b], [f(a.astype(p), b.astype(p))]))
    a = rng.integers(-20, 21, size=(2, 3)).astype('int32')
    cases.append(case(f'{op}_scalar/int32', f'{op}_scalar', [a], [f(a, np.int32(3))], params={'scalar': 3}))
    if shift:
        cases.append(case(f'_npi_r{name}_scalar/int32', f'_npi_r{name}_scalar', [np.abs(a) % 5],
                          [f(np.int32(3), np.abs(a) % 5)], params={'scalar': 3}))
    cases.append(case(f'{op}/float-error', op, [rand((2,), 'float32'), rand((2,), 'float32')],
                      error=f"ufunc '{name}' not supported for the input types"))
for dt in ['int32', 'bool', 'uint8']:
    a = rand((2, 3), dt)
    cases.append(case(f'_npi_bitwise_not/{dt}', '_npi_bitwise_not', [a], [np.invert(a)]))
ba, bb = rand((2, 3), 'bool'), rand((3,), 'bool')
cases.append(case('_npi_bitwise_and/bool', '_npi_bitwise_and', [ba, bb], [np.bitwise_and(ba, bb)]))

# Errors.
cases.append(case('_npi_add/broadcast-error', '_npi_add', [rand((2, 3), 'float32'), rand((4,), 'float32')],
                  error='operands could not be broadcast together with shapes (2,3) (4,)'))
cases.append(case('_npi_less/broadcast-error', '_npi_less', [rand((2, 3), 'float32'), rand((2,), 'float32')],
                  error='operands could not be broadcast together with shapes (2,3) (2,)'))

write('np_elementwise', cases)
