"""Golden cases for cpu-wasm's SimpleOp expression compiler (packages/cpu-wasm/src/codegen).

Each case gives an expression tree (the @mx/ops `Expr` JSON: {"k": "unary", "fn": "exp", "a": ...})
in params.expr instead of a real op; the codegen tests define a throwaway op per case. The cases
are marked `skip` for the conformance runner (no registered op has these names).

Reference semantics are MXNet's mshadow functors (see packages/ops/src/expr.ts), computed here with
NumPy/SciPy: integer arithmetic wraps in the dtype, int div/mod by zero give 0, mod takes the
divisor's sign, transcendental functions on integers run in float64 and truncate back (saturating,
NaN -> 0), comparisons/logic give 1/0 in the operand dtype, rint ties toward floor, round ties away
from zero, sign(nan) = 0. Float32 references are computed in float64 from the float32 inputs and
rounded once.

    python3 tools/golden/ops/codegen.py
"""
import math
import os
import sys

import numpy as np
import scipy.special as sp

sys.path.insert(0, os.path.dirname(__file__))
from common import ROOT, arr, case, write  # noqa: E402

SKIP = 'codegen-internal expression case: run by packages/cpu-wasm/src/codegen tests'
# The Cast matrix is a real op, but this file stays internal (conformance ships elementwise.json's Cast
# cases); drop this skip to ship the full 13x13 matrix to every backend.
CAST_SKIP = 'cpu-wasm Cast conversion matrix: run by packages/cpu-wasm/src/codegen tests'
FLOATS = ['float32', 'float64']
INTS = ['int32', 'int64', 'int8', 'uint8', 'bool']
INFO = {'int32': (32, True), 'int64': (64, True), 'int8': (8, True), 'uint8': (8, False)}

UNARY = ['neg', 'abs', 'sign', 'square', 'sqrt', 'rsqrt', 'cbrt', 'rcbrt', 'reciprocal', 'exp', 'expm1',
         'log', 'log2', 'log10', 'log1p', 'sin', 'cos', 'tan', 'arcsin', 'arccos', 'arctan', 'sinh', 'cosh',
         'tanh', 'arcsinh', 'arccosh', 'arctanh', 'floor', 'ceil', 'trunc', 'rint', 'round', 'erf', 'erfinv',
         'gamma', 'gammaln', 'digamma', 'not', 'isnan', 'isinf', 'isfinite']
BINARY = ['add', 'sub', 'mul', 'div', 'mod', 'pow', 'max', 'min', 'hypot', 'arctan2', 'eq', 'ne', 'gt', 'ge',
          'lt', 'le', 'and', 'or', 'xor']
FLOAT_FN = {'sqrt', 'rsqrt', 'cbrt', 'rcbrt', 'reciprocal', 'exp', 'expm1', 'log', 'log2', 'log10', 'log1p',
            'sin', 'cos', 'tan', 'arcsin', 'arccos', 'arctan', 'sinh', 'cosh', 'tanh', 'arcsinh', 'arccosh',
            'arctanh', 'erf', 'erfinv', 'gamma', 'gammaln', 'digamma', 'pow', 'hypot', 'arctan2'}


def X(i=0):
    return {'k': 'input', 'index': i}


def C(v):
    return {'k': 'const', 'value': v}


def P(name):
    return {'k': 'param', 'name': name}


def U(fn, a):
    return {'k': 'unary', 'fn': fn, 'a': a}


def B(fn, a, b):
    return {'k': 'binary', 'fn': fn, 'a': a, 'b': b}


def S(c, a, b):
    return {'k': 'select', 'cond': c, 'a': a, 'b': b}


def mx_rint(x):
    fl, ce = np.floor(x), np.ceil(x)
    return np.where((x - fl) <= (ce - x), fl, ce)


def mx_round(x):
    t = np.trunc(x)
    with np.errstate(invalid='ignore'):
        return np.where(np.abs(x - t) >= 0.5, t + np.copysign(1.0, x), t)


def fmod(x, y):
    with np.errstate(all='ignore'):
        return float(np.fmod(x, y))


def mx_mod(a, b):
    out = np.zeros(np.broadcast(a, b).shape)
    for idx, (x, y) in enumerate(zip(np.broadcast_to(a, out.shape).flat, np.broadcast_to(b, out.shape).flat)):
        x, y = float(x), float(y)
        if y == 0:
            r = 0.0
        elif y < 0:
            if x < 0:
                r = -fmod(-x, -y)
            elif x == 0:
                r = -0.0
            else:
                f = fmod(x, -y)
                r = f + (y if f != 0 else 0.0)
                r = -r if r == 0 else r
        elif x < 0:
            f = fmod(-x, y)
            r = -f + (y if f != 0 else 0.0)
        else:
            r = fmod(x, y)
        out.flat[idx] = r
    return out


def f64_unary(fn, x):
    """float64 reference of a unary fn (x float64 array)."""
    with np.errstate(all='ignore'):
        return {
            'neg': lambda: -x, 'abs': lambda: np.abs(x),
            'sign': lambda: np.where(x > 0, 1.0, np.where(x < 0, -1.0, 0.0)),
            'square': lambda: x * x, 'sqrt': lambda: np.sqrt(x), 'rsqrt': lambda: 1 / np.sqrt(x),
            'cbrt': lambda: np.cbrt(x), 'rcbrt': lambda: 1 / np.cbrt(x), 'reciprocal': lambda: 1 / x,
            'exp': lambda: np.exp(x), 'expm1': lambda: np.expm1(x), 'log': lambda: np.log(x),
            'log2': lambda: np.log2(x), 'log10': lambda: np.log10(x), 'log1p': lambda: np.log1p(x),
            'sin': lambda: np.sin(x), 'cos': lambda: np.cos(x), 'tan': lambda: np.tan(x),
            'arcsin': lambda: np.arcsin(x), 'arccos': lambda: np.arccos(x), 'arctan': lambda: np.arctan(x),
            'sinh': lambda: np.sinh(x), 'cosh': lambda: np.cosh(x), 'tanh': lambda: np.tanh(x),
            'arcsinh': lambda: np.arcsinh(x), 'arccosh': lambda: np.arccosh(x), 'arctanh': lambda: np.arctanh(x),
            'floor': lambda: np.floor(x), 'ceil': lambda: np.ceil(x), 'trunc': lambda: np.trunc(x),
            'rint': lambda: mx_rint(x), 'round': lambda: mx_round(x), 'erf': lambda: sp.erf(x),
            'erfinv': lambda: sp.erfinv(x), 'gamma': lambda: sp.gamma(x), 'gammaln': lambda: np.where(x == -np.inf, np.inf, sp.gammaln(x)),  # C lgamma(-inf) = +inf
            'digamma': lambda: sp.psi(x),
            'not': lambda: (x == 0).astype(float), 'isnan': lambda: np.isnan(x).astype(float),
            'isinf': lambda: np.isinf(x).astype(float), 'isfinite': lambda: np.isfinite(x).astype(float),
        }[fn]()


def f64_binary(fn, a, b):
    with np.errstate(all='ignore'):
        return {
            'add': lambda: a + b, 'sub': lambda: a - b, 'mul': lambda: a * b, 'div': lambda: a / b,
            'mod': lambda: mx_mod(a, b), 'pow': lambda: np.power(a, b), 'max': lambda: np.maximum(a, b),
            'min': lambda: np.minimum(a, b), 'hypot': lambda: np.hypot(a, b), 'arctan2': lambda: np.arctan2(a, b),
            'eq': lambda: (a == b) * 1.0, 'ne': lambda: (a != b) * 1.0, 'gt': lambda: (a > b) * 1.0,
            'ge': lambda: (a >= b) * 1.0, 'lt': lambda: (a < b) * 1.0, 'le': lambda: (a <= b) * 1.0,
            'and': lambda: ((a != 0) & (b != 0)) * 1.0, 'or': lambda: ((a != 0) | (b != 0)) * 1.0,
            'xor': lambda: ((a != 0) ^ (b != 0)) * 1.0,
        }[fn]()


def wrap(v, dtype):
    """Python ints -> dtype with two's-complement wrap (bool: != 0)."""
    if dtype == 'bool':
        return np.array([x != 0 for x in v], dtype=bool)
    bits, signed = INFO[dtype]
    m = 1 << bits
    out = []
    for x in v:
        x %= m
        if signed and x >= m // 2:
            x -= m
        out.append(x)
    return np.array(out, dtype=dtype)


def sat_int(v, dtype):
    """float64 -> int as wasm trunc_sat to i32/i64, then wrapped to 8 bits; bool is != 0."""
    if dtype == 'bool':
        return np.array([x != 0 for x in v], dtype=bool)  # NaN != 0 is True
    bits = 64 if dtype == 'int64' else 32
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    ints = []
    for x in v:
        if math.isnan(x):
            ints.append(0)
        elif x >= hi:
            ints.append(hi)
        elif x <= lo:
            ints.append(lo)
        else:
            ints.append(int(math.trunc(x)))
    return wrap(ints, dtype)


def int_unary(fn, x, dtype):
    xs = [int(v) for v in x.reshape(-1)]
    if fn in FLOAT_FN:
        return sat_int(f64_unary(fn, np.array(xs, dtype=np.float64)), dtype).reshape(x.shape)
    unsigned = dtype in ('uint8', 'bool')
    r = {
        'neg': lambda v: -v, 'abs': lambda v: v if unsigned else abs(v), 'sign': lambda v: (v > 0) - (v < 0),
        'square': lambda v: v * v, 'floor': lambda v: v, 'ceil': lambda v: v, 'trunc': lambda v: v,
        'rint': lambda v: v, 'round': lambda v: v, 'not': lambda v: int(v == 0), 'isnan': lambda v: 0,
        'isinf': lambda v: 0, 'isfinite': lambda v: 1,
    }[fn]
    return wrap([r(v) for v in xs], dtype).reshape(x.shape)


def int_binary(fn, a, b, dtype):
    shape = np.broadcast(a, b).shape
    xs = [int(v) for v in np.broadcast_to(a, shape).flat]
    ys = [int(v) for v in np.broadcast_to(b, shape).flat]
    if fn in FLOAT_FN:
        return sat_int(f64_binary(fn, np.array(xs, float), np.array(ys, float)), dtype).reshape(shape)

    def div(x, y):
        if y == 0:
            return 0
        q = abs(x) // abs(y)
        return q if (x < 0) == (y < 0) else -q

    r = {
        'add': lambda x, y: x + y, 'sub': lambda x, y: x - y, 'mul': lambda x, y: x * y, 'div': div,
        'mod': lambda x, y: x % y if y != 0 else 0, 'max': max, 'min': min,
        'eq': lambda x, y: int(x == y), 'ne': lambda x, y: int(x != y), 'gt': lambda x, y: int(x > y),
        'ge': lambda x, y: int(x >= y), 'lt': lambda x, y: int(x < y), 'le': lambda x, y: int(x <= y),
        'and': lambda x, y: int(x != 0 and y != 0), 'or': lambda x, y: int(x != 0 or y != 0),
        'xor': lambda x, y: int((x != 0) != (y != 0)),
    }[fn]
    return wrap([r(x, y) for x, y in zip(xs, ys)], dtype).reshape(shape)


def ref_unary(fn, x, dtype):
    if dtype in FLOATS:
        return f64_unary(fn, x.astype(np.float64)).astype(dtype)
    return int_unary(fn, x, dtype)


def ref_binary(fn, a, b, dtype):
    if dtype in FLOATS:
        return f64_binary(fn, a.astype(np.float64), b.astype(np.float64)).astype(dtype)
    return int_binary(fn, a, b, dtype)


DOMAIN = {  # float input ranges where the function is defined and well conditioned
    'sqrt': (0.01, 9), 'rsqrt': (0.01, 9), 'log': (0.01, 20), 'log2': (0.01, 20), 'log10': (0.01, 20),
    'log1p': (-0.9, 20), 'arcsin': (-0.99, 0.99), 'arccos': (-0.99, 0.99), 'arctanh': (-0.95, 0.95),
    'arccosh': (1.01, 20), 'erfinv': (-0.999, 0.999), 'gamma': (0.05, 8), 'gammaln': (0.05, 30), 'digamma': (-3.7, 12),
    'tan': (-1.4, 1.4), 'exp': (-80, 80), 'expm1': (-10, 10), 'sinh': (-10, 10), 'cosh': (-10, 10),
    'reciprocal': (0.1, 10), 'rcbrt': (0.1, 10), 'tanh': (-12, 12), 'erf': (-6.5, 6.5),
}
INT_DOMAIN = {'gamma': (1, 6), 'gammaln': (1, 6), 'digamma': (1, 9), 'arccosh': (1, 6), 'exp': (0, 6), 'sinh': (0, 6), 'cosh': (0, 6)}
FLOAT_SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5, 2.5]


def tol(dtype, fn):
    if dtype == 'float32':
        return (2e-6, 1e-6) if fn in ('erfinv', 'gamma', 'gammaln', 'digamma', 'tan', 'expm1') else (1e-6, 1e-7)
    if dtype == 'float64':
        return (1e-12, 1e-13) if fn in ('erfinv', 'gamma', 'gammaln', 'digamma', 'erf') else (1e-14, 1e-15)
    return (0, 0)


def unary_cases(rng):
    out = []
    for fn in UNARY:
        for dt in FLOATS + INTS:
            if dt in FLOATS:
                lo, hi = DOMAIN.get(fn, (-6, 6))
                x = rng.uniform(lo, hi, size=(3, 7)).astype(dt)
                if fn in ('rint', 'round', 'floor', 'ceil', 'trunc', 'sign'):
                    x.flat[:6] = np.array([0.5, -0.5, 1.5, -2.5, 2.5, 0.49999997], dtype=dt)
            elif dt == 'bool':
                x = rng.integers(0, 2, size=(2, 9)).astype(bool)
            else:
                lo, hi = INT_DOMAIN.get(fn, (-5, 10) if dt != 'uint8' else (0, 15))
                if dt == 'uint8':
                    lo = max(lo, 0)
                x = rng.integers(lo, hi + 1, size=(2, 9)).astype(dt)
                if fn in ('neg', 'abs', 'square', 'sign') and dt in INFO:
                    bits, signed = INFO[dt]
                    x.flat[0] = -(1 << (bits - 1)) if signed else (1 << bits) - 1
            y = ref_unary(fn, x, dt)
            r, a = tol(dt, fn)
            out.append(case(f'{fn}_{dt}', 'expr', [x], [y], params={'expr': U(fn, X())}, rtol=r, atol=a, skip=SKIP))
        for dt in FLOATS:
            x = np.array(FLOAT_SPECIALS, dtype=dt)
            y = ref_unary(fn, x, dt)
            r, a = tol(dt, fn)
            out.append(case(f'{fn}_{dt}_special', 'expr', [x], [y], params={'expr': U(fn, X())}, rtol=r,
                            atol=a, skip=SKIP))
    return out


def binary_cases(rng):
    out = []
    for fn in BINARY:
        for dt in FLOATS + INTS:
            if dt in FLOATS:
                a = rng.uniform(-6, 6, size=(4, 5)).astype(dt)
                b = rng.uniform(-6, 6, size=(4, 5)).astype(dt)
                if fn == 'pow':
                    a = np.abs(a) + np.asarray(0.1, dt)
                    b = (b / 2).astype(dt)
                b.flat[0] = 0 if fn in ('div', 'mod') else b.flat[0]
                b.flat[1] = a.flat[1]
            elif dt == 'bool':
                a = rng.integers(0, 2, size=(4, 5)).astype(bool)
                b = rng.integers(0, 2, size=(4, 5)).astype(bool)
            else:
                lo = 0 if dt == 'uint8' else -9
                a = rng.integers(lo, 10, size=(4, 5)).astype(dt)
                b = rng.integers(lo, 10, size=(4, 5)).astype(dt)
                if fn == 'pow':
                    a, b = np.abs(a).astype(dt), rng.integers(0, 4, size=(4, 5)).astype(dt)
                b.flat[0] = 0
                b.flat[1] = a.flat[1]
                if dt in INFO and INFO[dt][1] and fn in ('div', 'mod', 'mul', 'add', 'sub'):
                    a.flat[2] = -(1 << (INFO[dt][0] - 1))
                    b.flat[2] = -1
            y = ref_binary(fn, a, b, dt)
            r, t = tol(dt, fn)
            out.append(case(f'{fn}_{dt}', 'expr', [a, b], [y], params={'expr': B(fn, X(0), X(1))}, rtol=r,
                            atol=t, skip=SKIP))
        for dt in FLOATS:
            sv = np.array(FLOAT_SPECIALS, dtype=dt)
            a = np.repeat(sv, len(sv)).astype(dt)
            b = np.tile(sv, len(sv)).astype(dt)
            y = ref_binary(fn, a, b, dt)
            r, t = tol(dt, fn)
            out.append(case(f'{fn}_{dt}_special', 'expr', [a, b], [y], params={'expr': B(fn, X(0), X(1))},
                            rtol=r, atol=t, skip=SKIP))
    return out


SIGMOID = B('div', C(1), B('add', C(1), U('exp', U('neg', X()))))


def structure_cases(rng):
    out = []
    add = B('add', X(0), X(1))
    patterns = [
        ((7, 5), (5,)), ((7, 5), (7, 1)), ((1, 5), (7, 1)), ((3, 4, 5), (4, 1)), ((2, 3, 4, 5), (3, 1, 5)),
        ((2, 1, 4, 1, 3), (1, 5, 1, 2, 1)), ((37,), ()), ((), (37,)), ((6, 1), (1,)), ((4, 33), (33,)),
        ((2, 3, 4, 5, 6), (1, 3, 1, 5, 1)), ((64, 3), (64, 1)), ((0, 3), (3,)), ((2, 0), (2, 1)), ((), ()),
    ]
    for i, (sa, sb) in enumerate(patterns):
        for dt in ('float32', 'int32', 'float64', 'int8'):
            a = (rng.uniform(-5, 5, sa) if dt.startswith('f') else rng.integers(-50, 50, sa)).astype(dt)
            b = (rng.uniform(-5, 5, sb) if dt.startswith('f') else rng.integers(-50, 50, sb)).astype(dt)
            y = (a.astype(np.int64) + b).astype(dt) if dt == 'int8' else a + b
            out.append(case(f'bcast{i}_{dt}', 'expr', [a, b], [y], params={'expr': add, 'broadcast': True},
                            rtol=0 if dt.startswith('i') else 1e-6, atol=0, skip=SKIP))
    # Three inputs with a select, broadcast.
    c = rng.integers(0, 2, (4, 1)).astype('float32')
    a = rng.uniform(-1, 1, (4, 6)).astype('float32')
    b = rng.uniform(-1, 1, (6,)).astype('float32')
    out.append(case('select_bcast', 'expr', [c, a, b], [np.where(c != 0, a, b)],
                    params={'expr': S(X(0), X(1), X(2)), 'broadcast': True}, skip=SKIP))
    # Mixed dtypes: float condition picks int values; float comparison written to a bool output.
    cf = np.array([0.0, 0.5, -1.0, 0.0, np.nan], dtype='float32')
    xi = np.array([1, 2, 3, 4, 5], dtype='int32')
    yi = np.array([-1, -2, -3, -4, -5], dtype='int32')
    out.append(case('select_mixed', 'expr', [cf, xi, yi], [np.where(cf != 0, xi, yi)],
                    params={'expr': S(X(0), X(1), X(2))}, out_dtype='int32', skip=SKIP))
    fa = np.array([1.5, 2.0, np.nan, -1.0], dtype='float32')
    fb = np.array([1.0, 2.0, 1.0, 3.0], dtype='float32')
    out.append(case('compare_to_bool', 'expr', [fa, fb], [fa >= fb], params={'expr': B('ge', X(0), X(1))},
                    out_dtype='bool', skip=SKIP))
    # Params and constants, sigmoid chains, long vectors (SIMD body + tail), req=add, inplace.
    for dt in ('float32', 'float64', 'int32', 'int64', 'int8', 'uint8'):
        n = 131
        x = (rng.uniform(-8, 8, n) if dt.startswith('f') else rng.integers(0 if dt == 'uint8' else -60, 60, n)).astype(dt)
        p = 2.5
        cp = np.asarray(p, dtype=dt) if dt.startswith('f') else np.asarray(int(p), dtype=dt)
        y = (x.astype(np.float64) * float(cp) + 3).astype(dt) if dt.startswith('f') else wrap(
            [int(v) * int(cp) + 3 for v in x], dt)
        out.append(case(f'param_{dt}', 'expr', [x], [y], params={'expr': B('add', B('mul', X(), P('scalar')), C(3)),
                                                                   'scalar': p}, rtol=1e-6, atol=0, skip=SKIP))
        init = (rng.uniform(-1, 1, n) if dt.startswith('f') else rng.integers(0, 5, n)).astype(dt)
        acc = (init.astype(np.float64) + x.astype(np.float64) * x.astype(np.float64)).astype(dt) if dt.startswith('f') else wrap(
            [int(i) + int(v) * int(v) for i, v in zip(init, x)], dt)
        out.append(case(f'req_add_{dt}', 'expr', [x], [acc], params={'expr': U('square', X())}, req='add',
                        out_init=arr(init), rtol=1e-6, atol=1e-6, skip=SKIP))
    for dt in FLOATS:
        x = rng.uniform(-10, 10, 1027).astype(dt)
        y = (1 / (1 + np.exp(-x.astype(np.float64)))).astype(dt)
        out.append(case(f'sigmoid_{dt}_long', 'expr', [x], [y], params={'expr': SIGMOID}, rtol=1e-6 if dt == 'float32' else 1e-14,
                        atol=0, skip=SKIP))
        y2 = (np.tanh(x.astype(np.float64)) * 0.5 + x.astype(np.float64) * x.astype(np.float64)).astype(dt)
        out.append(case(f'chain_{dt}_long', 'expr', [x], [y2],
                        params={'expr': B('add', B('mul', U('tanh', X()), C(0.5)), B('mul', X(), X()))},
                        rtol=1e-6 if dt == 'float32' else 1e-14, atol=1e-6 if dt == 'float32' else 1e-14, skip=SKIP))
        ex = np.concatenate([rng.uniform(-104, 89, 300), rng.uniform(-1, 1, 100)]).astype(dt)
        if dt == 'float64':
            ex = np.concatenate([rng.uniform(-745, 709, 300), rng.uniform(-1, 1, 100)])
        out.append(case(f'exp_{dt}_range', 'expr', [ex], [np.exp(ex.astype(np.float64)).astype(dt)],
                        params={'expr': U('exp', X())}, rtol=2e-7 if dt == 'float32' else 1e-15,
                        atol=1.5e-45 if dt == 'float32' else 5e-324, skip=SKIP))
        lx = np.exp(rng.uniform(-80, 80, 400)).astype(dt)
        out.append(case(f'log_{dt}_range', 'expr', [lx], [np.log(lx.astype(np.float64)).astype(dt)],
                        params={'expr': U('log', X())}, rtol=2e-7 if dt == 'float32' else 1e-15, atol=0, skip=SKIP))
    # Bad input: shapes that do not broadcast.
    out.append(case('bad_broadcast', 'expr', [np.zeros((2, 3), 'float32'), np.zeros((4,), 'float32')],
                    params={'expr': B('add', X(0), X(1)), 'broadcast': True}, error='could not be broadcast', skip=SKIP))
    out.append(case('bad_shapes_no_broadcast', 'expr', [np.zeros((2, 3), 'float32'), np.zeros((3,), 'float32')],
                    params={'expr': B('add', X(0), X(1))}, error='shapes must be equal', skip=SKIP))
    return out


ALL_DTYPES = ['float32', 'float64', 'float16', 'bfloat16', 'uint8', 'int8', 'int16', 'uint16', 'int32', 'uint32',
              'int64', 'uint64', 'bool']
CAST_VALUES = [0, 1, -1, 2.5, -3.75, 7.9, -7.9, 100.25, 127, -128, 200, 255, 1000.5, -1000.5, 65504, 65519, 65520,
               70000, 1e10, -1e10, 0.1, 1e-5, 3e-8, 6e-8, 1 + 2 ** -11, 1 + 3 * 2 ** -11, 2049, 2051, 1 + 2 ** -8,
               1 + 3 * 2 ** -8, 3.3895313892515355e38, 1.5e-40, np.nan, np.inf, -np.inf]


def bf16_bits(x32):
    b = np.asarray(x32, np.float32).view(np.uint32).astype(np.uint64)
    r = ((b + 0x7fff + ((b >> 16) & 1)) >> 16) & 0xffff
    nan = np.isnan(np.asarray(x32, np.float32))
    return np.where(nan, ((b >> 16) & 0x8000) | 0x7fc0, r).astype(np.uint32)


def bf16_value(bits):
    return (np.asarray(bits, np.uint32) << 16).view(np.float32)


def as_dtype(v, dt):
    """float64 values -> dtype's values (as float64 / int), None where v cannot be that dtype exactly-ish."""
    v = np.asarray(v, np.float64)
    if dt == 'bfloat16':
        return bf16_value(bf16_bits(v.astype(np.float32))).astype(np.float64)
    with np.errstate(all='ignore'):
        return v.astype(dt)


def in_range(v, dt):
    if dt in ('float32', 'float64', 'float16', 'bfloat16', 'bool'):
        return True
    if not np.isfinite(v):
        return False
    info = np.iinfo(dt)
    t = math.trunc(v)
    return info.min <= t <= min(info.max, 2 ** 53)


def enc(values, dt):
    if dt == 'bfloat16':
        return {'shape': [len(values)], 'dtype': 'bfloat16',
                'data': [(_f(x)) for x in np.asarray(values, np.float64)]}
    return arr(np.asarray(values).astype(dt))


def _f(x):
    return 'nan' if math.isnan(x) else ('inf' if x == np.inf else ('-inf' if x == -np.inf else float(x)))


def cast_cases():
    out = []
    for src in ALL_DTYPES:
        for dst in ALL_DTYPES:
            vals = []
            for v in CAST_VALUES:
                if src not in ('float32', 'float64', 'float16', 'bfloat16', 'bool'):
                    if not in_range(v, src):
                        continue
                    v = math.trunc(v)
                sv = float(as_dtype([v], src)[0]) if src != 'bool' else float(v != 0)
                if src in ('int64', 'uint64') and abs(sv) > 2 ** 53:
                    continue
                if not in_range(sv, dst) or (dst.startswith('u') and sv <= -1) or (dst == 'uint64' and sv < 0):
                    continue
                if dst == 'uint64' and src.startswith('int') and sv < 0:
                    continue
                vals.append(sv)
            if src == 'bool':
                vals = [0.0, 1.0, 1.0, 0.0]
            srcv = np.array(vals, np.float64)
            if dst == 'bfloat16':
                ref = {'shape': [len(vals)], 'dtype': 'bfloat16',
                       'data': [_f(x) for x in bf16_value(bf16_bits(srcv.astype(np.float32)))]}
            elif dst == 'bool':
                ref = arr(srcv != 0)
            elif src in ('float32', 'float64', 'float16', 'bfloat16'):
                with np.errstate(all='ignore'):
                    ref = arr(np.asarray(srcv.astype(src) if src != 'bfloat16' else srcv).astype(dst))
            else:
                ref = arr(np.array([int(x) for x in srcv], dtype=np.int64 if src != 'uint64' else np.uint64).astype(dst))
            inp = enc(srcv if src != 'bool' else (srcv != 0), src) if src != 'bfloat16' else enc(srcv, src)
            out.append(case(f'Cast/{src}->{dst}', 'Cast', [inp], [ref], params={'dtype': dst}, rtol=0, atol=0,
                            skip=CAST_SKIP))
    return out


def main():
    rng = np.random.default_rng(20240611)
    cases = unary_cases(rng) + binary_cases(rng) + structure_cases(rng) + cast_cases()
    write('codegen', cases, os.path.join(ROOT, 'packages', 'cpu-wasm', 'src', 'codegen', '__golden__'))


if __name__ == '__main__':
    main()
