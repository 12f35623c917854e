#!/usr/bin/env python3
"""Golden data for np's elementwise functions (packages/ndarray/src/np/fns/ufunc.test.ts), computed by
Debian's NumPy 1.24.2 — run with /usr/bin/python3, not pyenv's python3.

MXNet 2.0's rules where they differ from NumPy's, applied to NumPy's results here:
- float functions of integer/bool inputs (sqrt, sin, true_divide, arctan2, copysign, ...) give the
  default float, float32 (NumPy gives float16/float32/float64 by input size);
- arrays of any rank promote by dtype (NEP 50; NumPy 1.24 treats 0-d arrays like scalars), so
  operands are cast to np.promote_types first;
- JS numbers are weak scalars: an int32 array plus 2 stays int32, plus 2.5 is float64;
- ldexp(x1, x2) has x1's float dtype (NumPy's loops), the default float for integer x1.
Values: random data plus NaN/inf/signed zeros/halves for floats; NumPy's error text for errors.
Writes packages/ndarray/src/np/__golden__/ufunc.json.
"""
import json
import pathlib
import warnings

import numpy as np

warnings.simplefilter('ignore')
OUT = pathlib.Path(__file__).resolve().parents[3] / 'packages/ndarray/src/np/__golden__/ufunc.json'
rng = np.random.default_rng(1617)

SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, 1.5, 2.5, -2.5, -0.5, 1.0, -1.0]


def arr(shape, dtype, special=False, lo=-5, hi=6):
    if dtype == 'bool':
        return rng.random(shape) < 0.5
    if dtype.startswith('int') or dtype.startswith('uint'):
        lo2 = 0 if dtype.startswith('uint') else lo
        return rng.integers(lo2, hi, size=shape).astype(dtype)
    a = (rng.standard_normal(shape) * 3).round(2).astype(dtype)
    if special and a.size:
        flat = a.reshape(-1)
        for i, v in enumerate(SPECIAL[: flat.size]):
            flat[i] = v
    return a


def enc(a):
    a = np.asarray(a)
    vals = a.ravel().tolist()
    if a.dtype == np.bool_:
        vals = [bool(v) for v in vals]
    elif a.dtype.kind == 'f':  # JSON has no NaN/Infinity: null and strings; -0 as a string
        vals = [None if v != v else ('Infinity' if v == float('inf') else '-Infinity' if v == -float('inf')
                else ('-0' if v == 0 and np.signbit(v) else v)) for v in vals]
    return {'shape': list(a.shape), 'dtype': str(a.dtype), 'data': vals}


FLOAT_RULE = {'true_divide', 'copysign', 'arctan2', 'hypot', 'ldexp', 'logaddexp'}
BINARY = {
    'add': np.add, 'subtract': np.subtract, 'multiply': np.multiply, 'true_divide': np.true_divide,
    'floor_divide': np.floor_divide, 'remainder': np.remainder, 'power': np.power, 'maximum': np.maximum,
    'minimum': np.minimum, 'fmax': np.fmax, 'fmin': np.fmin, 'fmod': np.fmod, 'copysign': np.copysign,
    'arctan2': np.arctan2, 'hypot': np.hypot, 'ldexp': np.ldexp, 'logaddexp': np.logaddexp,
    'equal': np.equal, 'not_equal': np.not_equal, 'greater': np.greater, 'greater_equal': np.greater_equal,
    'less': np.less, 'less_equal': np.less_equal, 'logical_and': np.logical_and, 'logical_or': np.logical_or,
    'logical_xor': np.logical_xor,
}
INTEGER = {'bitwise_and': np.bitwise_and, 'bitwise_or': np.bitwise_or, 'bitwise_xor': np.bitwise_xor,
           'left_shift': np.left_shift, 'right_shift': np.right_shift, 'gcd': np.gcd, 'lcm': np.lcm}
PAIRS = [('float32', 'float32'), ('float64', 'float32'), ('int32', 'float32'), ('int32', 'int64'), ('int8', 'int8'),
         ('uint8', 'int32'), ('int8', 'uint8'), ('bool', 'bool'), ('bool', 'int32'), ('float16', 'float16'),
         ('float16', 'int8')]
SHAPES = [((2, 3), (2, 3)), ((2, 3), (3,)), ((4, 1), (1, 5)), ((), (3,)), ((0, 3), (3,))]
NO_BOOL = {'subtract', 'power', 'floor_divide', 'remainder', 'fmod'}  # NumPy refuses or MXNet differs

cases = []


def mxnet_float(r, da, db=None):
    """MXNet's default float for float functions of non-float inputs."""
    kinds = {np.dtype(da).kind} | ({np.dtype(db).kind} if db else set())
    if r.dtype.kind == 'f' and 'f' not in kinds:
        return r.astype('float32')
    return r


def binary_ref(name, a, b):
    f = BINARY.get(name) or INTEGER[name]
    if name == 'ldexp':
        t = a.dtype if a.dtype.kind == 'f' else np.dtype('float32')
        r = np.ldexp(a.astype(t), b.astype('int32'))
        return r.astype(t)
    p = np.promote_types(a.dtype, b.dtype)
    if name in FLOAT_RULE and p.kind != 'f':
        return f(a.astype('float64'), b.astype('float64')).astype('float32')
    with np.errstate(all='ignore'):
        r = f(a.astype(p), b.astype(p))
    return np.asarray(r)


for name in BINARY:
    for (da, db) in PAIRS:
        if 'bool' in (da, db) and name in NO_BOOL:
            continue
        if name == 'ldexp' and db.startswith('float'):
            continue
        shapes = SHAPES if (da, db) == ('float32', 'float32') or (da, db) == ('int32', 'float32') else SHAPES[1:2]
        for (sa, sb) in shapes:
            special = da.startswith('float') and name not in ('fmod', 'floor_divide', 'remainder', 'power')
            a = arr(sa, da, special=special)
            b = arr(sb, db, special=False)
            if name == 'power' and np.dtype(db).kind in 'iu':
                b = np.abs(b) % 4
                b = b.astype(db)
            if name == 'ldexp':
                b = (np.abs(b.astype('int64')) % 5).astype(db)
            r = binary_ref(name, a, b)
            cases.append({'kind': 'binary', 'fn': name, 'a': enc(a), 'b': enc(b), 'expect': enc(r)})

for name in INTEGER:
    for (da, db) in [('int32', 'int32'), ('int8', 'int64'), ('uint8', 'uint8'), ('bool', 'bool'), ('int64', 'int32')]:
        if da == 'bool' and name not in ('bitwise_and', 'bitwise_or', 'bitwise_xor'):
            continue
        for (sa, sb) in SHAPES[:4]:
            a = arr(sa, da, lo=-20, hi=21)
            b = arr(sb, db, lo=0, hi=6) if 'shift' in name else arr(sb, db, lo=-20, hi=21)
            cases.append({'kind': 'binary', 'fn': name, 'a': enc(a), 'b': enc(b), 'expect': enc(binary_ref(name, a, b))})

# Array (op) JS scalar: weak scalars; reversed (scalar op array).
for name in ['add', 'subtract', 'multiply', 'true_divide', 'floor_divide', 'remainder', 'power', 'maximum', 'fmin',
             'fmod', 'copysign', 'arctan2', 'hypot', 'logaddexp', 'less', 'greater_equal', 'equal',
             'logical_and', 'bitwise_and', 'left_shift', 'gcd']:
    for da in ['float32', 'int32', 'uint8', 'float16', 'bool']:
        for s in [2, 2.5, -3]:
            integer = name in INTEGER
            if integer and (isinstance(s, float) or da.startswith('float') or s < 0):
                continue
            if da == 'bool' and name in NO_BOOL | {'left_shift', 'gcd'}:
                continue
            if da == 'uint8' and s < 0:
                continue
            a = arr((2, 3), da)
            kind = 'f' if isinstance(s, float) else 'i'
            if a.dtype.kind == 'f' or (kind == 'i' and a.dtype.kind in 'iu'):
                sdt = a.dtype
            elif kind == 'i':
                sdt = np.dtype('int64')
            else:
                sdt = np.dtype('float64')
            for rev in [False, True]:
                if rev and name in ('left_shift',):
                    continue
                x, y = (a.astype(sdt), np.array(s, dtype=sdt))
                if rev:
                    x, y = y, x
                if name == 'power' and sdt.kind in 'iu' and (y < 0).any():
                    continue
                r = binary_ref(name, np.asarray(x), np.asarray(y))
                r = r.reshape(a.shape) if r.shape != a.shape else r
                if name in FLOAT_RULE and sdt.kind != 'f':
                    r = r.astype('float32')
                cases.append({'kind': 'scalar', 'fn': name, 'a': enc(a), 'scalar': s, 'reverse': rev, 'expect': enc(r)})

UNARY = ['negative', 'positive', 'absolute', 'fabs', 'sign', 'square', 'reciprocal', 'rint', 'fix', 'floor', 'ceil',
         'trunc', 'exp', 'expm1', 'exp2', 'log', 'log2', 'log10', 'log1p', 'sqrt', 'cbrt', 'sin', 'cos', 'tan',
         'arcsin', 'arccos', 'arctan', 'sinh', 'cosh', 'tanh', 'arcsinh', 'arccosh', 'arctanh', 'degrees', 'radians',
         'rad2deg', 'deg2rad', 'logical_not', 'isnan', 'isinf', 'isposinf', 'isneginf', 'isfinite', 'invert']
SAME = {'negative', 'positive', 'absolute', 'sign', 'square', 'reciprocal'}
for name in UNARY:
    f = getattr(np, name)
    for dt in ['float32', 'float64', 'float16', 'int32', 'int8', 'uint8', 'int64', 'bool']:
        if name in SAME and dt == 'bool' and name != 'absolute':
            continue
        if name == 'reciprocal' and not dt.startswith('float'):
            continue
        if name == 'invert' and dt.startswith('float'):
            continue
        if name in ('isposinf', 'isneginf') and not dt.startswith('float'):
            continue  # NumPy 1.24's isposinf refuses integers
        for shape in ([(2, 6), (), (0,)] if dt == 'float32' else [(2, 6)]):
            a = arr(shape, dt, special=True)
            if name in ('arccosh',) and dt.startswith('float'):
                a = np.abs(a) + np.asarray(1, dtype=dt)
            with np.errstate(all='ignore'):
                r = np.asarray(f(a))
            if name not in SAME and r.dtype.kind == 'f' and a.dtype.kind != 'f':
                r = np.asarray(f(a.astype('float64'))).astype('float32')
            cases.append({'kind': 'unary', 'fn': name, 'a': enc(a), 'expect': enc(r)})

# around / round (half to even), clip, nan_to_num.
for dt, decs in [('float32', [0, 1, 2, -1]), ('float64', [0, 1, 3, -2]), ('float16', [0, 1]), ('int32', [0, 1, -1]),
                 ('int64', [-1])]:
    for d in decs:
        a = arr((3, 4), dt, special=True)
        if dt.startswith('int'):
            a = (a * 5).astype(dt)
        else:
            a = (a * np.asarray(10.0 ** -max(d, 0), dtype=dt)).astype(dt)
            a.reshape(-1)[:4] = np.array([0.125, 2.5, -2.5, 0.375], dtype=dt) * (10.0 ** -d if d >= 0 else 10.0 ** -d)
        cases.append({'kind': 'around', 'a': enc(a), 'decimals': d, 'expect': enc(np.around(a, d))})
for dt, lo, hi in [('float32', -1.0, 2.0), ('float64', None, 0.5), ('int32', 0, None), ('float32', -np.inf, 0.0)]:
    a = arr((3, 4), dt, special=dt.startswith('float'))
    bound = lambda v: None if v is None else ('-Infinity' if v == -np.inf else float(v))  # noqa: E731
    cases.append({'kind': 'clip', 'a': enc(a), 'min': bound(lo), 'max': bound(hi), 'expect': enc(np.clip(a, lo, hi))})
for dt, kw in [('float32', {}), ('float64', {'nan': 1.5, 'posinf': 9.0, 'neginf': -9.0}), ('float16', {}),
               ('int32', {}), ('float32', {'nan': -1.0})]:
    a = arr((2, 6), dt, special=True)
    cases.append({'kind': 'nan_to_num', 'a': enc(a), 'kwargs': kw, 'expect': enc(np.nan_to_num(a, **kw))})

# isclose / allclose / array_equal.
CLOSE = [
    (np.array([1.0, 1e10, np.nan, np.inf, -np.inf, 1e-8, 0.0]), np.array([1.00001, 1.00001e10, np.nan, np.inf, np.inf, 0, 1e-9]), {}),
    (np.array([1.0, np.nan]), np.array([1.0, np.nan]), {'equal_nan': True}),
    (np.array([[1.0, 2.0], [3.0, 4.0]], dtype='float32'), np.array([1.0, 2.1], dtype='float32'), {'rtol': 0.1}),
    (np.array([1, 2, 3], dtype='int32'), np.array([1, 2, 4], dtype='int32'), {'atol': 1.0}),
    (np.array([100.0, 1.0]), np.array([101.0, 1.0]), {'rtol': 0.0, 'atol': 0.5}),
    (np.zeros((0, 3)), np.zeros((3,)), {}),
]
for a, b, kw in CLOSE:
    cases.append({'kind': 'isclose', 'a': enc(a), 'b': enc(b), 'kwargs': kw, 'expect': enc(np.isclose(a, b, **kw))})
    cases.append({'kind': 'allclose', 'a': enc(a), 'b': enc(b), 'kwargs': kw,
                  'expect': enc(np.array(np.allclose(a, b, **kw)))})
for a, b, kw in [(np.array([1, 2]), np.array([1, 2]), {}), (np.array([1, 2]), np.array([1, 3]), {}),
                 (np.array([1, 2]), np.array([[1, 2]]), {}), (np.array([1.0, np.nan]), np.array([1.0, np.nan]), {}),
                 (np.array([1.0, np.nan]), np.array([1.0, np.nan]), {'equal_nan': True})]:
    cases.append({'kind': 'array_equal', 'a': enc(a), 'b': enc(b), 'kwargs': kw,
                  'expect': enc(np.array(np.array_equal(a, b, **kw)))})

# out=: the result written into an existing array (cast with same_kind).
for name, da, db, do in [('add', 'int32', 'int32', 'float32'), ('multiply', 'float32', 'float32', 'float64'),
                         ('sqrt', 'float32', None, 'float32'), ('less', 'float32', 'float32', 'int32')]:
    a = np.abs(arr((2, 3), da))
    b = arr((2, 3), db) if db else None
    r = getattr(np, name)(a, b) if b is not None else getattr(np, name)(a)
    cases.append({'kind': 'out', 'fn': name, 'a': enc(a), 'b': enc(b) if b is not None else None,
                  'outDtype': do, 'expect': enc(r.astype(do))})

# Errors: NumPy's messages.
def err(kind, fn, thunk, **kw):
    try:
        thunk()
    except Exception as e:  # noqa: BLE001
        cases.append({'kind': 'error', 'sub': kind, 'fn': fn, 'error': str(e), **kw})
        return
    raise AssertionError(f'{fn} did not raise')


e23, e3 = arr((2, 3), 'float32'), arr((3,), 'float32')
e4 = arr((4,), 'float32')
err('binary', 'add', lambda: np.add(e23, e4), a=enc(e23), b=enc(e4))
err('binary', 'less', lambda: np.less(e23, e4), a=enc(e23), b=enc(e4))
eb = arr((3,), 'bool')
err('unary', 'negative', lambda: np.negative(eb), a=enc(eb))
err('binary', 'bitwise_and', lambda: np.bitwise_and(e3, e3), a=enc(e3), b=enc(e3))
err('unary', 'invert', lambda: np.invert(e3), a=enc(e3))
err('out', 'add', lambda: np.add(e23, e23, out=np.empty((3,), 'float32')), a=enc(e23), b=enc(e23),
    outShape=[3], outDtype='float32')
err('out', 'add', lambda: np.add(e23, e23, out=np.empty((2, 3), 'int32')), a=enc(e23), b=enc(e23),
    outShape=[2, 3], outDtype='int32')
err('clip', 'clip', lambda: np.clip(e3, None, None), a=enc(e3))

OUT.parent.mkdir(parents=True, exist_ok=True)
OUT.write_text(json.dumps({'numpy': np.__version__, 'cases': cases}, separators=(',', ':'), allow_nan=False) + '\n')
print(f'wrote {len(cases)} cases to {OUT}')
