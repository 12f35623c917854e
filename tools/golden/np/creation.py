#!/usr/bin/env python3
"""Golden data for np's creation functions (packages/ndarray/src/np/fns/creation.test.ts), computed
by Debian's NumPy 1.24.2 — run with /usr/bin/python3, not pyenv's python3.

Each case is a call: {fn (NumPy's name), args (positional, arrays encoded as {"nd": enc}), kwargs
(NumPy's keywords, camelCased by the test), expect (enc, a list of encs, or [enc, step] for
retstep) | error (NumPy's message, an expected substring)}.

MXNet 2.0's rules where they differ from NumPy's, applied here:
- float results without a dtype are the default float, float32 (NumPy: float64) — zeros, ones,
  empty, full with a float value, linspace, logspace, eye, identity, tri, and array/asarray of JS
  data (MXNet's np.array does not infer integer dtypes from lists; asarray of a JS integer is int64);
- arange without a dtype is float32 (MXNet 2.0's _npi_arange default);
- JS cannot tell 2.0 from 2, so full(shape, 2.0) is int64 as full(shape, 2) (not generated).
Writes packages/ndarray/src/np/__golden__/creation.json.
"""
import json
import pathlib
from functools import partial

import common  # first: it keeps this folder's modules from shadowing the standard library's
import numpy as np
from common import enc

OUT = pathlib.Path(__file__).resolve().parents[3] / 'packages/ndarray/src/np/__golden__/creation.json'
rng = np.random.default_rng(1617)
arr = partial(common.arr, rng)


def mx(a, dtype_given):
    """MXNet's default float: float64 results made without a dtype are float32."""
    a = np.asarray(a)
    return a.astype('float32') if dtype_given is None and a.dtype == np.float64 else a


cases = []


def add(fn, args, kwargs, expect):
    cases.append({'fn': fn, 'args': args, 'kwargs': kwargs, 'expect': expect})


def fail(fn, args, kwargs, call):
    try:
        call()
    except Exception as e:  # noqa: BLE001
        cases.append({'fn': fn, 'args': args, 'kwargs': kwargs, 'error': str(e)})
        return
    raise SystemExit(f'{fn}: expected an error')


A = lambda a: {'nd': enc(a)}  # noqa: E731

for fn, f in [('zeros', np.zeros), ('ones', np.ones)]:
    for shape in [3, [2, 3], [], [0, 2], [2, 0, 1]]:
        for dt in [None, 'int32', 'bool', 'float64', 'int64']:
            kw = {} if dt is None else {'dtype': dt}
            add(fn, [shape], kw, enc(mx(f(shape, dtype=dt), dt)))
    fail(fn, [[2, -1]], {}, lambda: f((2, -1)))
    fail(fn, [-3], {}, lambda: f(-3))

for shape, v, dt in [([2, 2], 7, None), ([3], 2.5, None), ([2, 3], True, None), ([2], 2.5, 'int32'),
                     ([], -1, None), ([0, 3], 1.5, None), ([2], 3, 'float64'), ([2], 1e300, None), ([2, 2], 0, 'bool')]:
    kw = {} if dt is None else {'dtype': dt}
    big = isinstance(v, float) and abs(v) > np.finfo(np.float32).max  # MXNet: float64 beyond float32's range
    add('full', [shape, v], kw, enc(np.full(shape, v, dtype=dt) if big else mx(np.full(shape, v, dtype=dt), dt)))
fv = arr((3,), 'int32')
add('full', [[2, 3], A(fv)], {}, enc(np.full((2, 3), fv)))
add('full', [[2, 3], A(fv)], {'dtype': 'float32'}, enc(np.full((2, 3), fv, dtype='float32')))
add('full', [[0, 3], A(fv)], {}, enc(np.full((0, 3), fv)))
fail('full', [[-1], 2], {}, lambda: np.full((-1,), 2))

for fn, f in [('zeros_like', np.zeros_like), ('ones_like', np.ones_like)]:
    for dt in ['float32', 'int32', 'bool', 'float64']:
        a = arr((2, 3), dt)
        add(fn, [A(a)], {}, enc(f(a)))
        add(fn, [A(a)], {'dtype': 'int64'}, enc(f(a, dtype='int64')))
    a = arr((0, 2), 'float32')
    add(fn, [A(a)], {}, enc(f(a)))
    a = arr((2, 3), 'float32')
    add(fn, [A(a)], {'shape': [4]}, enc(f(a, shape=(4,))))
for dt, v, odt in [('float32', 3.5, None), ('int32', 2.7, None), ('int32', 2.5, 'float64'), ('bool', 2, None),
                   ('float64', -1, None)]:
    a = arr((2, 2), dt)
    kw = {} if odt is None else {'dtype': odt}
    add('full_like', [A(a), v], kw, enc(np.full_like(a, v, dtype=odt)))
a = arr((3,), 'float32')
add('full_like', [A(a), 9], {'shape': [2, 2]}, enc(np.full_like(a, 9, shape=(2, 2))))
add('full_like', [A(a), 9], {'shape': [0]}, enc(np.full_like(a, 9, shape=(0,))))
fail('full_like', [A(a), 9], {'shape': [-2]}, lambda: np.full_like(a, 9, shape=(-2,)))

for args, dt in [([5, None, 1], None), ([2, 11, 3], None), ([0, 1, 0.1], None), ([5, 0, -1], 'int64'), ([3, 3, 1], None),
                 ([5, 0, 1], None), ([-1.5, 2.5, 0.5], 'float64'), ([0, 10, 4], 'int32'), ([10, None, 1], 'int64'),
                 ([1, -5, -2], None)]:
    kw = {} if dt is None else {'dtype': dt}
    want = np.arange(0, args[0], args[2], dtype=dt) if args[1] is None else np.arange(*args, dtype=dt)
    add('arange', args, kw, enc(want if dt is not None else want.astype('float32')))
fail('arange', [0, 5, 0], {}, lambda: np.arange(0, 5, 0))

for start, stop, num, kw in [(0, 1, 5, {}), (0, 1, 5, {'endpoint': False}), (2.5, -3, 7, {'dtype': 'float64'}),
                             (0, 10, 4, {'dtype': 'int32'}), (-3, 3, 4, {'endpoint': False, 'dtype': 'int64'}), (-2.5, 1, 3, {'dtype': 'int32'}),
                             (1, 5, 1, {}), (1, 5, 0, {}), (0, 1, 50, {}), (0, 1, 3, {'axis': -1})]:
    want = np.linspace(start, stop, num, **kw)
    add('linspace', [start, stop, num], kw, enc(mx(want, kw.get('dtype'))))
for start, stop, num, kw in [(0, 1, 5, {}), (0, 2, 4, {'endpoint': False}), (1, 5, 1, {}), (0, 1, 0, {})]:
    y, step = np.linspace(start, stop, num, retstep=True, **kw)
    add('linspace', [start, stop, num], {**kw, 'retstep': True},
        [enc(mx(y, None)), None if step != step else float(step)])
fail('linspace', [0, 1, -1], {}, lambda: np.linspace(0, 1, -1))
fail('linspace', [0, 1, 5], {'axis': 1}, lambda: np.linspace(0, 1, 5, axis=1))

for start, stop, num, kw in [(0, 3, 4, {}), (1, 2, 5, {'endpoint': False, 'base': 2.0, 'dtype': 'float64'}),
                             (-1, 1, 3, {}), (0, 2, 3, {'dtype': 'int32'}), (0, 1, 0, {})]:
    add('logspace', [start, stop, num], kw, enc(mx(np.logspace(start, stop, num, **kw), kw.get('dtype'))))
fail('logspace', [0, 1, -2], {}, lambda: np.logspace(0, 1, -2))

for N, M, k, dt in [(3, None, 0, None), (3, 5, 1, None), (4, 2, -1, 'int32'), (3, 3, 5, None), (0, None, 0, None),
                    (2, 0, 0, None), (3, None, 0, 'bool'), (3, 4, -7, 'float64')]:
    kw = {} if dt is None else {'dtype': dt}
    add('eye', [N, M, k], kw, enc(mx(np.eye(N, M, k, dtype=dt or float), dt)))
fail('eye', [-1, None, 0], {}, lambda: np.eye(-1))
for n, dt in [(3, None), (0, None), (2, 'int32')]:
    kw = {} if dt is None else {'dtype': dt}
    add('identity', [n], kw, enc(mx(np.identity(n, dtype=dt or float), dt)))
fail('identity', [-2], {}, lambda: np.identity(-2))
for N, M, k, dt in [(3, None, 0, None), (3, 5, 2, None), (4, 3, -1, 'int32'), (0, 2, 0, None), (3, 3, 0, 'bool'),
                    (-2, None, 0, None)]:
    kw = {} if dt is None else {'dtype': dt}
    add('tri', [N, M, k], kw, enc(mx(np.tri(N, M, k, dtype=dt or float), dt)))

for dims, dt in [([2, 3], None), ([4], 'int32'), ([2, 0, 3], None), ([], None), ([2, 3, 2], 'float32')]:
    kw = {} if dt is None else {'dtype': dt}
    add('indices', [dims], kw, enc(np.indices(dims, dtype=dt or int)))
fail('indices', [[-1, 2]], {}, lambda: np.indices((-1, 2)))

for fn, f in [('tril', np.tril), ('triu', np.triu)]:
    for shape, k, dt in [((4, 4), 0, 'float32'), ((3, 5), 1, 'float64'), ((5, 3), -2, 'int32'), ((2, 3, 4), -1, 'float32'),
                         ((4,), 1, 'float32'), ((3, 3), 7, 'bool'), ((0, 3), 0, 'float32')]:
        a = arr(shape, dt)
        add(fn, [A(a), k], {}, enc(f(a, k)))
    fail(fn, [A(np.array(2.0, 'float32')), 0], {}, lambda: f(np.array(2.0)))

for shape, k, dt in [((4,), 0, 'float32'), ((3,), 2, 'int32'), ((3,), -1, 'float64'), ((3, 3), 0, 'float32'),
                     ((3, 5), 1, 'int64'), ((5, 3), -2, 'float32'), ((3, 3), 4, 'float32'), ((0,), 1, 'float32'),
                     ((2, 0), 0, 'float32'), ((2,), 0, 'bool')]:
    a = arr(shape, dt)
    add('diag', [A(a), k], {}, enc(np.diag(a, k)))
fail('diag', [A(np.zeros((2, 2, 2), 'float32')), 0], {}, lambda: np.diag(np.zeros((2, 2, 2))))
for shape, k, dt in [((3,), 0, 'float32'), ((2, 2), 1, 'float64'), ((2, 3), -2, 'int32'), ((), 1, 'float32'),
                     ((0, 2), 1, 'float32')]:
    a = arr(shape, dt)
    add('diagflat', [A(a), k], {}, enc(np.diagflat(np.asarray(a), k)))

for dt in ['float32', 'int32', 'bool']:
    a = arr((2, 3), dt)
    add('copy', [A(a)], {}, enc(np.copy(a)))
add('copy', [A(arr((0, 3), 'float32'))], {}, enc(np.zeros((0, 3), 'float32')))

x, y, z = arr((3,), 'float32'), arr((2,), 'float32'), arr((4,), 'int32')
for xs, kw in [((x, y), {}), ((x, y), {'indexing': 'ij'}), ((x, y, z), {}), ((x, y, z), {'indexing': 'ij'}),
               ((x,), {}), ((x, y), {'sparse': True}), ((x, y, z), {'sparse': True, 'indexing': 'ij'}),
               ((x, np.zeros((0,), 'float32')), {}), ((arr((2, 2), 'float32'), y), {})]:
    add('meshgrid', [A(v) for v in xs], kw, [enc(g) for g in np.meshgrid(*xs, **kw)])
fail('meshgrid', [A(x), A(y)], {'indexing': 'ab'}, lambda: np.meshgrid(x, y, indexing='ab'))

# array / asarray of JS data: the default float unless dtype (MXNet); asarray of a JS integer is int64.
for data, dt in [([[1, 2], [3, 4]], None), ([1.5, -2.0], None), ([[1, 2]], 'int32'), ([True, False], 'bool'),
                 (3.5, None), ([], None), ([[1, 2], [3, 4]], 'float64')]:
    kw = {} if dt is None else {'dtype': dt}
    want = np.array(data, dtype=dt or 'float32')
    add('array', [data], kw, enc(want))
    add('asarray', [data], kw, enc(want if not isinstance(data, float) else np.asarray(data, 'float32')))
add('asarray', [7], {}, enc(np.asarray(7, 'int64')))
add('asarray', [True], {}, enc(np.asarray(True)))

OUT.parent.mkdir(parents=True, exist_ok=True)
OUT.write_text(json.dumps({'generator': 'tools/golden/np/creation.py', 'numpy': np.__version__, 'cases': cases},
                          separators=(',', ':')) + '\n')
print(f'wrote {len(cases)} cases to {OUT}')
