#!/usr/bin/env python3
"""Golden data for np's misc functions and np.linalg's array-API names
(packages/ndarray/src/np/fns/misc.test.ts), computed by Debian's NumPy 1.24.2 — run with
/usr/bin/python3, not pyenv's python3.

Cases are calls as the TypeScript namespace takes them (`fn`, `linalg.`-prefixed for np.linalg;
`args` in TypeScript order, arrays as {"$a": encoded}), with the expected array(s) (`expect`, a
list for tuple results), plain JS values (`value`), or NumPy's error text (`error`); `grad` marks
float64 cases for the numeric gradient check.

MXNet 2.0's rules applied to NumPy's results here: float functions of integers give the default
float (float32); integer sums keep their dtype (`vecdot`, `trace`); index results are int64 and
`unravel_index` keeps the indices' dtype; windows default to float32; `interp` is float64.
NumPy 1.24 has no array-API linalg names: `vecdot` is `sum(a * b, axis)`, `vector_norm` is norm
of the reduced axes taken as one vector (keepdims keeps each), `matrix_transpose` is swapaxes,
`linalg.diagonal` is diagonal of the last two axes, `linalg.trace` is trace of axes 0 and 1
(MXNet 2.0's), `svdvals` is svd's s.
Writes packages/ndarray/src/np/__golden__/misc.json.
"""
import json
import pathlib

import numpy as np

OUT = pathlib.Path(__file__).resolve().parents[3] / 'packages/ndarray/src/np/__golden__/misc.json'
rng = np.random.default_rng(1618)
cases = []


def enc(a):
    a = np.asarray(a)
    vals = a.ravel().tolist()
    if a.dtype == np.bool_:
        vals = [bool(v) for v in vals]
    return {'shape': list(a.shape), 'dtype': str(a.dtype), 'data': vals}


def A(a):
    return {'$a': enc(a)}


def rand(shape, dtype='float64', lo=-3, hi=4):
    if np.dtype(dtype).kind in 'iu':
        return rng.integers(lo, hi, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def flt(dt):
    return dt if dt in ('float32', 'float64') else 'float32'


def add(fn, args, expect, grad=False):
    exp = [enc(e) for e in expect] if isinstance(expect, (list, tuple)) else enc(expect)
    cases.append({'fn': fn, 'args': args, 'expect': exp, 'grad': grad})


def value(fn, args, v):
    cases.append({'fn': fn, 'args': args, 'value': v})


def err(fn, args, f, part=None):
    try:
        f()
    except Exception as e:  # noqa: BLE001
        assert part is None or part in str(e), str(e)
        cases.append({'fn': fn, 'args': args, 'error': part or str(e)})
        return
    raise SystemExit(f'{fn}: NumPy accepted {args}')


# ---- array-API aliases ---------------------------------------------------------------------------
u = rng.uniform(-0.9, 0.9, (2, 3))
for name, f, x in [('acos', np.arccos, u), ('asin', np.arcsin, u), ('atan', np.arctan, u * 3),
                   ('atanh', np.arctanh, u), ('asinh', np.arcsinh, u * 4), ('acosh', np.arccosh, 1 + np.abs(u) * 3)]:
    for dt in ('float64', 'float32'):
        add(name, [A(x.astype(dt))], f(x.astype(dt)))
    ints = np.array([1, 2] if name == 'acosh' else [0, 0] if name == 'atanh' else [1, 0], 'int64')
    add(name, [A(ints)], f(ints).astype('float32'))
add('atan2', [A(u), A(u[::-1])], np.arctan2(u, u[::-1]))
add('atan2', [A(u[0]), A(u.astype('float32'))], np.arctan2(u[0], u.astype('float32')))
xi = np.array([[13, 0, -7]], 'int32')
add('bitwiseInvert', [A(xi)], np.invert(xi))
add('bitwiseInvert', [A(np.array([True, False]))], np.invert(np.array([True, False])))
add('pow', [A(np.array([2, 3, 4], 'int64')), 3], np.power(np.array([2, 3, 4], 'int64'), 3))
add('pow', [A(np.abs(u) + 0.5), A(u)], np.power(np.abs(u) + 0.5, u))
add('round_', [A(np.array([0.5, 1.5, 2.5, -2.5, 1.234]))], np.round_(np.array([0.5, 1.5, 2.5, -2.5, 1.234])))
add('round_', [A(np.array([1.2345, 12.5])), 2], np.round_(np.array([1.2345, 12.5]), 2))
err('bitwiseInvert', [A(u)], lambda: np.invert(u))

# ---- diagonal ------------------------------------------------------------------------------------
for shape, off, a1, a2, dt in [((3, 4), 0, 0, 1, 'float64'), ((3, 4), -1, 1, 0, 'float64'), ((2, 3, 4), 1, -1, 0, 'float64'),
                               ((3, 3), 7, 0, 1, 'int64'), ((0, 2), 0, 0, 1, 'float32'), ((2, 2, 3), 0, 0, 2, 'bool')]:
    x = rand(shape, dt) if dt != 'bool' else rng.random(shape) < 0.5
    add('diagonal', [A(x), off, a1, a2], np.diagonal(x, off, a1, a2).copy(), grad=dt == 'float64')
err('diagonal', [A(rand((3,)))], lambda: np.diagonal(rand((3,))))
err('diagonal', [A(rand((3, 3))), 0, 0, 0], lambda: np.diagonal(rand((3, 3)), 0, 0, 0))
err('diagonal', [A(rand((3, 3))), 0, 0, -3], lambda: np.diagonal(rand((3, 3)), 0, 0, -3))

# ---- index helpers -------------------------------------------------------------------------------
I64 = lambda t: [np.asarray(x, 'int64') for x in t]  # noqa: E731
for n, k, m in [(4, 0, None), (3, 1, 5), (4, -2, 2), (0, 0, None), (3, 5, None)]:
    add('trilIndices', [n, k, m], I64(np.tril_indices(n, k, m)))
    add('triuIndices', [n, k, m], I64(np.triu_indices(n, k, m)))
for shape, k in [((3, 3), 0), ((2, 5), 1), ((4, 2), -1)]:
    add('triuIndicesFrom', [A(rand(shape)), k], I64(np.triu_indices_from(rand(shape), k)))
err('triuIndicesFrom', [A(rand((2, 2, 2)))], lambda: np.triu_indices_from(rand((2, 2, 2))))
for shape in [(3, 3), (2, 2, 2, 2), (1, 1)]:
    add('diagIndicesFrom', [A(rand(shape))], I64(np.diag_indices_from(rand(shape))))
err('diagIndicesFrom', [A(rand((2, 3)))], lambda: np.diag_indices_from(rand((2, 3))))
err('diagIndicesFrom', [A(rand((3,)))], lambda: np.diag_indices_from(rand((3,))))
for idx, shape in [([22, 41, 37], [7, 6]), ([[3, 5], [0, 1]], [2, 3]), ([], [4, 5])]:
    x = np.array(idx, 'int64')
    add('unravelIndex', [A(x), shape], I64(np.unravel_index(x, shape)))
value('unravelIndex', [1621, [6, 7, 8, 9]], [int(v) for v in np.unravel_index(1621, (6, 7, 8, 9))])
value('unravelIndex', [5, 6], [int(v) for v in np.unravel_index(5, 6)])
err('unravelIndex', [24, [2, 3, 4]], lambda: np.unravel_index(24, (2, 3, 4)))
err('unravelIndex', [A(np.array([1, 7], 'int64')), [2, 3]], lambda: np.unravel_index([1, 7], (2, 3)))
cases.append({'fn': 'unravelIndex', 'args': [A(np.array([1], 'int64')), [2, 3], 'F'],
              'error': 'Do not support column-major (Fortran-style) order at this moment'})

# ---- windows, interp, polyval, ediff1d -----------------------------------------------------------
for name, f in [('hanning', np.hanning), ('hamming', np.hamming), ('blackman', np.blackman)]:
    for M in (0, 1, 4, 9, -2):
        add(name, [M], f(M).astype('float32'))
    add(name, [6, {'dtype': 'float64'}], f(6))
xp = np.array([1.0, 2.0, 3.0, 4.5])
fp = np.array([3.0, 2.0, 0.0, 1.0])
xq = np.array([[0.0, 1.0, 1.5], [2.72, 4.5, 6.0]])
add('interp', [A(xq), A(xp), A(fp)], np.interp(xq, xp, fp))
add('interp', [A(xq.astype('float32')), A(xp.astype('int64')), A(fp)], np.interp(xq.astype('float32'), xp, fp))
add('interp', [A(xq), A(xp), A(fp), {'left': -5.0, 'right': 5.0}], np.interp(xq, xp, fp, -5.0, 5.0))
add('interp', [2.5, A(xp), A(fp)], np.asarray(np.interp(2.5, xp, fp)))
add('interp', [A(np.array([-180.0, -170.0, 185.0, 365.0])), A(np.array([190.0, -190.0, 350.0, -350.0])),
               A(np.array([5.0, 10.0, 3.0, 4.0])), {'period': 360}],
    np.interp([-180.0, -170.0, 185.0, 365.0], [190.0, -190.0, 350.0, -350.0], [5.0, 10.0, 3.0, 4.0], period=360))
err('interp', [A(xq), A(xp), A(fp[:2])], lambda: np.interp(xq, xp, fp[:2]))
err('interp', [A(xq), A(xp), A(fp), {'period': 0}], lambda: np.interp(xq, xp, fp, period=0))
for p, x in [(rand((3,)), rand((2, 2))), (rand((1,)), rand((4,))), (rand((4,)), rand(()))]:
    add('polyval', [A(p), A(x)], np.asarray(np.polyval(p, x)), grad=True)
pi = np.array([3, 0, 1], 'int64')
add('polyval', [A(pi), A(np.array([5, -2], 'int64'))], np.polyval(pi, np.array([5, -2])))
add('polyval', [A(pi), A(np.array([0.5], 'float32'))], np.polyval(pi, np.array([0.5])).astype('float64'))
value('polyval', [[3, 0, 1], 5], int(np.polyval([3, 0, 1], 5)))
for x, end, begin in [(rand((5,)), None, None), (rand((2, 3)), A(rand((2,))), -1.5), (rand((4,)), 2.0, A(rand((1, 2)))),
                      (rand((1,)), None, 3.0)]:
    dec = lambda v: np.array(v['$a']['data']).reshape(v['$a']['shape']) if isinstance(v, dict) else v  # noqa: E731
    add('ediff1d', [A(x), end, begin], np.ediff1d(x, dec(end), dec(begin)), grad=True)
xi = np.array([1, 2, 4, 7, 0], 'int32')
add('ediff1d', [A(xi), A(np.array([88, 99], 'int32')), -99], np.ediff1d(xi, np.array([88, 99], 'int32'), -99))

# ---- np.linalg array-API names -------------------------------------------------------------------
a = rand((3, 4))
b = rand((4, 2))
add('linalg.tensordot', [A(a), A(b), 1], np.tensordot(a, b, 1), grad=True)
t1, t2 = rand((2, 3, 4)), rand((3, 4, 5))
add('linalg.tensordot', [A(t1), A(t2)], np.tensordot(t1, t2))
add('linalg.outer', [A(a[0]), A(b)], np.outer(a[0], b), grad=True)
sq = rand((3, 3, 2))
add('linalg.trace', [A(sq)], np.trace(sq, 0, 0, 1), grad=True)
add('linalg.trace', [A(sq), 1], np.trace(sq, 1, 0, 1))
add('linalg.trace', [A(np.arange(9).reshape(3, 3))], np.trace(np.arange(9).reshape(3, 3)))
v3, w3 = rand((4, 3)), rand((4, 3))
add('linalg.cross', [A(v3), A(w3)], np.cross(v3, w3), grad=True)
add('linalg.cross', [A(v3.T.copy()), A(w3.T.copy()), 0], np.cross(v3.T, w3.T, axis=0))
err('linalg.cross', [A(rand((4, 4))), A(rand((4, 4)))], lambda: np.cross(rand((4, 4)), rand((4, 4))))
m4 = rand((2, 3, 4))
add('linalg.matrixTranspose', [A(m4)], np.swapaxes(m4, -1, -2), grad=True)
mi = rand((2, 3), 'int32')
add('linalg.matrixTranspose', [A(mi)], mi.T)
cases.append({'fn': 'linalg.matrixTranspose', 'args': [A(rand((3,)))],
              'error': 'x must be at least 2-dimensional for matrix_transpose'})
add('linalg.diagonal', [A(a), 1], np.diagonal(a, 1), grad=True)
add('linalg.diagonal', [A(m4), -1], np.diagonal(m4, -1, -2, -1), grad=True)
err('linalg.diagonal', [A(rand((3,)))], lambda: np.diagonal(rand((3,))))
for x in [rand((3, 3)), rand((2, 4, 3)), rand((3, 2), 'int32')]:
    add('linalg.svdvals', [A(x)], np.linalg.svd(x.astype('float64'), compute_uv=False).astype(flt(str(x.dtype))))
vd_a, vd_b = rand((2, 3)), rand((3,))
add('linalg.vecdot', [A(vd_a), A(vd_b)], np.sum(vd_a * vd_b, axis=-1), grad=True)
vd_c = rand((2, 1))
add('linalg.vecdot', [A(vd_a), A(vd_c), 0], np.sum(vd_a * vd_c, axis=0))
vi = rand((2, 3), 'int64')
add('linalg.vecdot', [A(vi), A(vi)], np.sum(vi * vi, axis=-1))
n3 = rand((2, 3, 4))
add('linalg.vectorNorm', [A(n3)], np.asarray(np.linalg.norm(n3.ravel())), grad=True)
add('linalg.vectorNorm', [A(n3), {'axis': 1}], np.linalg.norm(n3, axis=1), grad=True)
add('linalg.vectorNorm', [A(n3), {'axis': [0, 2], 'ord': 1}],
    np.linalg.norm(np.transpose(n3, (0, 2, 1)).reshape(8, 3), ord=1, axis=0), grad=True)
add('linalg.vectorNorm', [A(n3), {'axis': [-1, 0], 'keepdims': True, 'ord': {'$n': 'inf'}}],
    np.max(np.abs(n3), axis=(0, 2), keepdims=True))
add('linalg.vectorNorm', [A(n3), {'keepdims': True}], np.sqrt(np.sum(n3 ** 2, keepdims=True)))
vi32 = rand((2, 3), 'int32')
add('linalg.vectorNorm', [A(vi32)], np.asarray(np.linalg.norm(vi32.ravel().astype('float64'))).astype('float32'))
add('linalg.matrixNorm', [A(n3)], np.linalg.norm(n3, axis=(-2, -1)), grad=True)
add('linalg.matrixNorm', [A(n3), {'ord': 1, 'axis': [0, 2], 'keepdims': True}],
    np.linalg.norm(n3, ord=1, axis=(0, 2), keepdims=True))
add('linalg.matrixNorm', [A(n3), {'ord': 'nuc'}], np.linalg.norm(n3, ord='nuc', axis=(-2, -1)))
cases.append({'fn': 'linalg.matrixNorm', 'args': [A(n3), {'axis': 1}],
              'error': 'The axis of matrix_norm must be a 2-tuple of ints'})

OUT.parent.mkdir(parents=True, exist_ok=True)
OUT.write_text(json.dumps({'generator': 'tools/golden/np/misc.py', 'numpy': np.__version__, 'cases': cases},
                          separators=(',', ':')) + '\n')
print(f'wrote {OUT} ({len(cases)} cases, {sum("error" in c for c in cases)} errors)')
