#!/usr/bin/env python3
"""Golden data for np's sorting, searching and set functions (packages/ndarray/src/np/fns/sort.test.ts),
computed by Debian's NumPy 1.24.2 — run with /usr/bin/python3, not pyenv's python3.

MXNet 2.0's rules where they differ from NumPy's, applied here:
- where with two float scalars gives the default float, float32 (MXNet's _npi_where_scalar2);
- argsort inputs have no ties (NumPy's default quicksort does not fix the order of ties; @mx sorts
  stably), except the stable-kind cases where NumPy's kind='stable' is the reference.
- searchsorted compares in NumPy's common dtype, Python scalars typed int64/float64 (NumPy 1.24 does not
  look at their values here), which @mx follows; the result is int64.
Case: {fn, args: [value], kwargs: {k: value}, expect: enc | [enc, ...]} or {…, error: substring};
value = {"arr": enc} for an array, else plain JSON. partition/argpartition results are not unique
(NumPy's order inside each side is unspecified), so their cases go to a second list, `partition`:
{fn, args, kwargs, expect: NumPy's result, sorted: np.sort of the lanes, kth: positions, axis: the
lane axis of the result (0 when flattened)} plus, for argpartition, values: the input gathered by
NumPy's indices; the test checks the partition contract against them.
Writes packages/ndarray/src/np/__golden__/sort.json.
"""
import json
import pathlib
import warnings
from functools import partial

import common  # first: it keeps this folder's modules from shadowing the standard library's
import numpy as np
from common import camel, enc, val

OUT = pathlib.Path(__file__).resolve().parents[3] / 'packages/ndarray/src/np/__golden__/sort.json'
rng = np.random.default_rng(1605)
warnings.simplefilter('ignore')

arr = partial(common.arr, rng)
book = common.CallCases()
cases, add, err = book.cases, book.add, book.err


F32 = 'float32'


def specials(n, dtype):
    """n values with ties and (floats) NaN, +-inf and -0."""
    if dtype.startswith('float'):
        a = (rng.standard_normal(n) * 100).astype(dtype)
        a[rng.random(n) < 0.2] = 1.5
        sp = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], dtype=dtype)
        a[rng.integers(0, n, 8)] = sp[rng.integers(0, 5, 8)]
        return a
    info = np.iinfo(dtype)
    a = rng.integers(max(info.min, -2**40), min(info.max, 2**40), size=n, endpoint=True).astype(dtype)
    a[rng.integers(0, n, 10)] = a[0]
    return a


def perm(shape, dtype):
    """Distinct values (no ties) of `shape`."""
    n = int(np.prod(shape))
    if dtype == 'bool':
        return None
    v = rng.permutation(n).astype(dtype if n < 100 or dtype not in ('int8', 'uint8') else 'int32')
    if dtype.startswith('float'):
        v = (v - n / 2) * 0.5
    return v.astype(dtype).reshape(shape)


# sort: dtypes, axes (None flattens), zero-size, 0-d, long lanes (the radix path) with specials.
for dt in ['float32', 'float64', 'float16', 'int8', 'uint8', 'int32', 'int64', 'bool']:
    for shape, axis in [((7,), -1), ((3, 4), 0), ((3, 4), 1), ((2, 3, 4), -2), ((3, 4), None), ((0,), -1),
                        ((2, 0), 1), ((), None)]:
        a = arr(shape, dt, nan=True)
        add('sort', [a], {'axis': axis}, np.sort(a, axis=axis))
for dt in ['float32', 'float64', 'int32', 'int64']:
    a = specials(300, dt).reshape(3, 100)
    add('sort', [a], {}, np.sort(a))
    add('sort', [a], {'axis': None}, np.sort(a, axis=None))
    add('sort', [a], {'axis': 0}, np.sort(a, axis=0))
    add('sort', [a], {'kind': 'stable'}, np.sort(a, kind='stable'))
err('sort', [np.float32(1.5)], {'axis': -1}, lambda: np.sort(np.float32(1.5), axis=-1))
err('sort', [arr((3, 4), F32)], {'axis': 2}, lambda: np.sort(np.zeros((3, 4)), axis=2))
a = arr((3, 4), F32)
add('msort', [a], {}, np.sort(a, axis=0))

# argsort: inputs without ties (any order of ties is NumPy-valid); stable kind with ties.
for dt in ['float32', 'float64', 'int8', 'int32', 'int64', 'uint8', 'float16']:
    for shape, axis in [((9,), -1), ((3, 5), 0), ((3, 5), 1), ((2, 3, 4), 1), ((3, 5), None), ((0, 2), 0)]:
        a = perm(shape, dt)
        add('argsort', [a], {'axis': axis}, np.argsort(a, axis=axis))
for dt in ['float32', 'float64', 'int32', 'int64']:
    a = specials(400, dt).reshape(2, 200)
    add('argsort', [a], {'kind': 'stable'}, np.argsort(a, kind='stable'))
    b = perm((2, 300), dt)
    add('argsort', [b], {}, np.argsort(b))
a = np.array([True, False, True, False, False])
add('argsort', [a], {'kind': 'stable'}, np.argsort(a, kind='stable'))
err('argsort', [arr((3,), F32)], {'axis': 1}, lambda: np.argsort(np.zeros(3), axis=1))

# nonzero / flatnonzero / argwhere.
for dt in ['float32', 'int32', 'bool', 'int64']:
    for shape in [(7,), (3, 4), (2, 3, 4), (0, 3), ()]:
        a = arr(shape, dt)
        if dt != 'bool' and a.size:
            a.reshape(-1)[rng.random(a.size) < 0.4] = 0
        if shape != ():
            add('nonzero', [a], {}, list(np.nonzero(a)))
        add('flatnonzero', [a], {}, np.flatnonzero(a))
        add('argwhere', [a], {}, np.argwhere(a))
add('nonzero', [np.zeros((2, 3), F32)], {}, list(np.nonzero(np.zeros((2, 3)))))
add('nonzero', [np.array(3.5, F32)], {}, [np.array([0])])
add('nonzero', [np.array(0, 'int32')], {}, [np.array([], 'int64')])

# where: three arrays with broadcasting and promotion, scalars, the 1-argument form, errors.
cond = rng.random((3, 1)) < 0.5
for xd, yd in [(F32, F32), (F32, 'int32'), ('int32', 'int64'), ('bool', 'int8'), ('float64', F32)]:
    x = arr((1, 4), xd)
    y = arr((4,), yd)
    add('where', [cond, x, y], {}, np.where(cond, x, y))
c2 = arr((2, 3), 'int32')
x2 = arr((2, 3), F32)
y2 = arr((2, 3), F32)
add('where', [c2, x2, y2], {}, np.where(c2, x2, y2))
x3 = arr((3, 4), F32)
add('where', [cond, x3, 2.5], {}, np.where(cond, x3, np.float32(2.5)))
xi = arr((3, 4), 'int32')
add('where', [cond, 7, xi], {}, np.where(cond, np.int32(7), xi))
add('where', [cond, xi, 1.5], {}, np.where(cond, xi, 1.5))
add('where', [cond, 1.5, -2.5], {}, np.where(cond, 1.5, -2.5).astype(F32))
add('where', [cond, 1, 2], {}, np.where(cond, 1, 2))
add('where', [c2], {}, list(np.where(c2)))
add('where', [arr((0, 2), 'bool'), arr((0, 2), F32), arr((0, 2), F32)], {}, np.zeros((0, 2), F32))
err('where', [cond, arr((2, 4), F32), arr((4,), F32)], {},
    lambda: np.where(cond, np.zeros((2, 4)), np.zeros(4)))

# take: axis None / given, modes, scalar and 2-D indices, errors.
a = arr((3, 4), F32)
for idx, axis, mode in [(np.array([0, 2, 1]), None, 'raise'), (np.array([[0, 1], [3, 2]]), 1, 'raise'),
                        (np.array([-1, 0]), 0, 'raise'), (np.array([5, -7, 1]), 1, 'wrap'),
                        (np.array([5, -7, 1]), 1, 'clip'), (np.array([13, -1]), None, 'clip'),
                        (np.array([], 'int64'), 0, 'raise'), (2, 1, 'raise'), (np.array([1, 0]), -1, 'raise')]:
    add('take', [a, idx], {'axis': axis, 'mode': mode}, np.take(a, idx, axis=axis, mode=mode))
for dt in ['int32', 'int64', 'bool', 'float64']:
    b = arr((2, 3, 2), dt)
    add('take', [b, np.array([1, 0, 1], 'int32')], {'axis': 1}, np.take(b, np.array([1, 0, 1]), axis=1))
err('take', [a, np.array([3])], {'axis': 0}, lambda: np.take(a, np.array([3]), axis=0))
err('take', [a, np.array([0, -5])], {'axis': 1}, lambda: np.take(a, np.array([0, -5]), axis=1))
err('take', [a, np.array([0])], {'axis': 2}, lambda: np.take(a, np.array([0]), axis=2))

# unique: flattened (radix path for long inputs), flags, axis, NaN collapsing, bool, empty.
for dt in ['int32', 'int64', 'float32', 'float64', 'int8', 'bool', 'float16', 'uint8']:
    a = arr((4, 6), dt, nan=True)
    add('unique', [a], {}, np.unique(a))
    add('unique', [a], {'return_index': True, 'return_inverse': True, 'return_counts': True},
        list(np.unique(a, return_index=True, return_inverse=True, return_counts=True)))
for dt in ['int32', 'int64', 'float32', 'float64']:
    a = specials(500, dt)
    add('unique', [a], {}, np.unique(a))
    add('unique', [a], {'return_counts': True}, list(np.unique(a, return_counts=True)))
    add('unique', [a], {'return_inverse': True}, list(np.unique(a, return_inverse=True)))
    add('unique', [a], {'return_index': True}, list(np.unique(a, return_index=True)))
b = rng.integers(0, 3, (6, 3)).astype('int32')
b[4] = b[1]
for axis in [0, 1, -1]:
    add('unique', [b], {'axis': axis, 'return_index': True, 'return_inverse': True, 'return_counts': True},
        list(np.unique(b, axis=axis, return_index=True, return_inverse=True, return_counts=True)))
add('unique', [np.zeros((0,), F32)], {}, np.unique(np.zeros((0,), F32)))
add('unique', [np.array(2.5, F32)], {}, np.unique(np.array(2.5, F32)))
err('unique', [b], {'axis': 2}, lambda: np.unique(b, axis=2))

# extract.
cnd = arr((3, 4), 'int32')
add('extract', [cnd, a := arr((3, 4), F32)], {}, np.extract(cnd, a))
add('extract', [np.mod(np.arange(6).reshape(2, 3), 2) == 0, np.arange(6, dtype='int64').reshape(2, 3)], {},
    np.extract(np.mod(np.arange(6).reshape(2, 3), 2) == 0, np.arange(6).reshape(2, 3)))

# searchsorted: dtypes, ties, NaN/inf, both sides, 0-d / zero-size v, empty a, promotion, sorter.
def sorted_1d(n, dt):
    if dt == 'bool':
        return np.sort(rng.random(n) < 0.5)
    a = specials(n, dt) if n >= 8 and dt.startswith('float') else arr((n,), dt)
    return np.sort(a)


def probe(a, shape, dt):
    v = arr(shape, dt)
    if a.size and v.size:
        pick = rng.random(v.size) < 0.4
        v.reshape(-1)[pick] = a[rng.integers(0, a.size, int(pick.sum()))]
    if dt.startswith('float') and v.size >= 3:
        v.reshape(-1)[:3] = np.array([np.nan, np.inf, -np.inf], dt)
    return v


for dt in ['float32', 'float64', 'float16', 'int8', 'uint8', 'int32', 'int64', 'bool']:
    for n, vs in [(12, (9,)), (20, (3, 4)), (5, ()), (7, (0,)), (0, (3,))]:
        a = sorted_1d(n, dt)
        v = probe(a, vs, dt)
        for side in ['left', 'right']:
            add('searchsorted', [a, v], {'side': side}, np.searchsorted(a, v, side=side))
a = sorted_1d(15, 'float32')
q = arr((2, 5), F32)
add('searchsorted', [a, q], {}, np.searchsorted(a, q))
for a, v in [(np.array([0.1, 0.5, 2.0], F32), 0.1), (np.array([1, 2, 3, 3, 9], 'int8'), 300),
             (np.array([1, 2, 3, 3, 9], 'int8'), -300), (np.array([0, 2, 200], 'uint8'), -1),
             (np.array([-4, 0, 7, 7, 12], 'int64'), 2.5), (np.array([-4, 0, 7, 7, 12], 'int32'), 7),
             (np.array([0.5, 1.5, 2.5], F32), 2), (np.array([0.5, 1.5, np.nan], 'float64'), [1, 2.5, 7]),
             (np.array([1, 5, 9], 'int32'), np.array([[1.5], [9.0]], F32)),
             (np.array([False, True, True]), np.array([0.5, 1.0], F32))]:
    for side in ['left', 'right']:
        add('searchsorted', [a, v], {'side': side}, np.searchsorted(a, v, side=side))
u = arr((10,), 'float64', nan=True)
srt = np.argsort(u, kind='stable')
q = probe(np.sort(u), (6,), 'float64')
for side in ['left', 'right']:
    add('searchsorted', [u, q], {'side': side, 'sorter': srt}, np.searchsorted(u, q, side=side, sorter=srt))
ui = np.array([5, 1, 4, 1, 3], 'int32')
add('searchsorted', [ui, [1, 2, 6]], {'sorter': [1, 3, 4, 2, 0]},
    np.searchsorted(ui, [1, 2, 6], sorter=[1, 3, 4, 2, 0]))
err('searchsorted', [np.zeros((2, 2), F32), 1], {}, lambda: np.searchsorted(np.zeros((2, 2)), 1))
err('searchsorted', [np.array(1.5, F32), 1], {}, lambda: np.searchsorted(np.array(1.5), 1))
err('searchsorted', [np.zeros(3, F32), 1], {'side': 'middle'},
    lambda: np.searchsorted(np.zeros(3), 1, side='middle'))
err('searchsorted', [ui, 1], {'sorter': [0, 1]}, lambda: np.searchsorted(ui, 1, sorter=[0, 1]))
err('searchsorted', [ui, 1], {'sorter': np.array([0.0, 1, 2, 3, 4])},
    lambda: np.searchsorted(ui, 1, sorter=np.array([0.0, 1, 2, 3, 4])))

# partition / argpartition: contract cases (below) and errors with NumPy's text.
partition = []


def lanes_sorted(a, axis):
    return np.sort(a, axis=axis)


def pcase(fn, a, kth, **kw):
    axis = kw.get('axis', -1)
    r = getattr(np, fn)(a, kth, **kw)
    flat = a.reshape(-1) if axis is None else a
    ax = 0 if axis is None else axis % max(a.ndim, 1)
    if fn == 'argpartition' and a.ndim == 0:
        flat, ax = a.reshape(1), 0
    n = flat.shape[ax] if flat.ndim else 1
    ks = [k % n for k in np.atleast_1d(kth).tolist()] if n else []
    c = {'fn': fn, 'args': [val(a), val(kth) if not isinstance(kth, list) else kth], 'kwargs': camel(kw),
         'expect': enc(r), 'sorted': enc(np.sort(flat, axis=ax)), 'kth': ks, 'axis': ax}
    if fn == 'argpartition':
        c['values'] = enc(np.take_along_axis(flat, r, axis=ax))
    partition.append(c)


for fn in ['partition', 'argpartition']:
    for dt in ['float32', 'float64', 'float16', 'int8', 'uint8', 'int32', 'int64', 'bool']:
        a = arr((3, 9), dt, nan=True)
        if dt != 'bool':
            a[1] = a[1, 0]  # a lane of ties
        pcase(fn, a, 4)
        pcase(fn, a, [0, -1], axis=1)
        pcase(fn, a, -2, axis=0)
        pcase(fn, a, [3, 10, 20], axis=None)
    s = specials(200, 'float32').reshape(2, 100)
    pcase(fn, s, [0, 50, -1])
    pcase(fn, specials(300, 'int64'), 150)
    b = arr((2, 3, 5), 'float32', nan=True)
    pcase(fn, b, [1, 2], axis=1)
    pcase(fn, b, 4, axis=-1)
    pcase(fn, b, [0, 1, 2, 3, 4])
    pcase(fn, arr((7,), 'int32'), True)
    pcase(fn, np.zeros((0,), F32), 0)
    pcase(fn, np.zeros((3, 0), F32), 5, axis=0)
pcase('argpartition', np.array(2.5, F32), 0)
for fn in ['partition', 'argpartition']:
    f = getattr(np, fn)
    a4 = np.arange(4, dtype='int32')
    err(fn, [a4, 5], {}, lambda: f(a4, 5))
    err(fn, [a4, -5], {}, lambda: f(a4, -5))
    err(fn, [a4, [1, 4]], {}, lambda: f(a4, [1, 4]))
    err(fn, [a4, 1.5], {}, lambda: f(a4, 1.5))
    err(fn, [a4, []], {}, lambda: f(a4, []))
    err(fn, [a4, [[1, 2]]], {}, lambda: f(a4, [[1, 2]]))
    err(fn, [a4, 1], {'kind': 'quicksort'}, lambda: f(a4, 1, kind='quicksort'))
    err(fn, [a4, 1], {'order': 'x'}, lambda: f(a4, 1, order='x'))
    m = arr((3, 4), F32)
    err(fn, [m, 1], {'axis': 2}, lambda: f(m, 1, axis=2))
    err(fn, [m, 3], {'axis': 0}, lambda: f(m, 3, axis=0))
err('partition', [np.array(2.5, F32), 0], {}, lambda: np.partition(np.array(2.5, F32), 0))
err('argpartition', [np.array(2.5, F32), 1], {}, lambda: np.argpartition(np.array(2.5, F32), 1))

for c in cases:
    c['fn'] = ''.join(w if i == 0 else w.capitalize() for i, w in enumerate(c['fn'].split('_')))
    c['kwargs'] = camel(c['kwargs'])
OUT.write_text(json.dumps({'generator': 'tools/golden/np/sort.py', 'numpy': np.__version__, 'cases': cases,
                           'partition': partition}) + '\n')
print(f'{len(cases)} cases, {len(partition)} partition cases -> {OUT}')
