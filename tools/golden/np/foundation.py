#!/usr/bin/env python3
"""Golden data for np's foundation (packages/ndarray/src/np/foundation.test.ts): the array class's
methods and the first functions (arithmetic with promotion, comparisons, reductions, reshape,
transpose, dot), computed by Debian's NumPy 1.24.2 — run with /usr/bin/python3, not pyenv's python3.

MXNet 2.0's rules where they differ from NumPy's, applied to NumPy's results here:
- results NumPy makes float64 from integer/bool inputs (true division, mean) are the default float,
  float32;
- integer sums keep the input dtype (MXNet's NumpySumType), bool sums are int64;
- JS numbers are weak scalars (NEP 50): an int32 array plus 2 stays int32, plus 2.5 is float64
  (MXNet 2.0's NumpyBinaryScalarType), so scalar cases are computed with NumPy on explicit dtypes.
Writes packages/ndarray/src/np/__golden__/foundation.json.
"""
import json
import pathlib
from functools import partial

import common  # first: it keeps this folder's modules from shadowing the standard library's
import numpy as np
from common import enc

OUT = pathlib.Path(__file__).resolve().parents[3] / 'packages/ndarray/src/np/__golden__/foundation.json'

rng = np.random.default_rng(1616)
arr = partial(common.arr, rng)


cases = []

# Binary arithmetic and comparisons, array (op) array with promotion and broadcasting.
BIN = {
    'add': np.add, 'subtract': np.subtract, 'multiply': np.multiply, 'true_divide': np.true_divide,
    'maximum': np.maximum, 'minimum': np.minimum, 'equal': np.equal, 'not_equal': np.not_equal,
    'greater': np.greater, 'greater_equal': np.greater_equal, 'less': np.less, 'less_equal': np.less_equal,
}
PAIRS = [('float32', 'float32'), ('float32', 'float64'), ('int32', 'float32'), ('int32', 'int64'),
         ('int32', 'int32'), ('bool', 'int32'), ('float16', 'float32')]
SHAPES = [((2, 3), (2, 3)), ((2, 3), (3,)), ((4, 1), (1, 5)), ((), (3,)), ((0, 3), (3,))]
for name, f in BIN.items():
    for (da, db) in PAIRS:
        for (sa, sb) in SHAPES:
            a, b = arr(sa, da), arr(sb, db)
            if name == 'true_divide':
                b = np.where(b == 0, 1, b).astype(db)
            # Arrays of any rank promote by dtype (MXNet 2.0, NEP 50): NumPy 1.24 would treat a
            # 0-d array like a scalar (value-based), so the operands are cast to the promoted dtype.
            p = np.promote_types(a.dtype, b.dtype)
            with np.errstate(all='ignore'):
                r = f(a.astype(p), b.astype(p))
            if name == 'true_divide' and a.dtype.kind in 'bi' and b.dtype.kind in 'bi':
                r = r.astype('float32')  # MXNet: the default float
            cases.append({'kind': 'binary', 'fn': name, 'a': enc(a), 'b': enc(b), 'expect': enc(r)})

# Array (op) JS scalar: weak scalars (NEP 50 / MXNet 2.0's scalar ops).
for name in ['add', 'subtract', 'multiply', 'true_divide', 'less', 'greater_equal']:
    for da in ['float32', 'int32', 'bool', 'float16']:
        for s in [2, 2.5]:
            if da == 'bool' and name == 'subtract':
                continue
            a = arr((2, 3), da)
            kind = 'f' if isinstance(s, float) else 'i'
            if a.dtype.kind == 'f' or (kind == 'i' and a.dtype.kind in 'iu'):
                sdt = a.dtype
            elif kind == 'i':  # bool array, int scalar
                sdt = np.dtype('int64')
            else:  # bool/int array, float scalar: float64
                sdt = np.dtype('float64')
            with np.errstate(all='ignore'):
                r = BIN[name](a.astype(sdt), np.array(s, dtype=sdt))
            if name == 'true_divide' and r.dtype == np.float64 and sdt.kind != 'f':
                r = r.astype('float32')
            for rev in [False, True]:
                rr = r
                if rev:
                    with np.errstate(all='ignore'):
                        if name == 'true_divide' and (a == 0).any():
                            continue
                        rr = BIN[name](np.array(s, dtype=sdt), a.astype(sdt))
                        if name == 'true_divide' and rr.dtype == np.float64 and sdt.kind != 'f':
                            rr = rr.astype('float32')
                cases.append({'kind': 'scalar', 'fn': name, 'a': enc(a), 'scalar': s, 'reverse': rev, 'expect': enc(rr)})

# Reductions.
for fn in ['sum', 'mean', 'max', 'min', 'prod']:
    for dt in ['float32', 'int32', 'bool', 'float64']:
        if fn in ('max', 'min') and dt == 'bool':
            continue
        for shape, axis, keep in [((2, 3, 4), None, False), ((2, 3, 4), 1, False), ((2, 3, 4), (0, 2), True),
                                  ((2, 3, 4), -1, True), ((5,), 0, False), ((), None, False), ((0, 3), 0, False)]:
            if fn in ('max', 'min') and 0 in shape and axis == 0:
                continue
            a = arr(shape, dt)
            r = getattr(np, fn)(a, axis=axis, keepdims=keep)
            r = np.asarray(r)
            if fn in ('sum', 'prod'):
                r = r.astype('int64' if dt == 'bool' else dt)
            if fn == 'mean' and dt in ('int32', 'bool'):
                r = np.mean(a.astype('float32'), axis=axis, keepdims=keep)
            cases.append({'kind': 'reduce', 'fn': fn, 'a': enc(a), 'axis': list(axis) if isinstance(axis, tuple) else axis,
                          'keepdims': keep, 'expect': enc(r)})
for fn in ['argmax', 'argmin']:
    for shape, axis in [((3, 4), None), ((3, 4), 0), ((3, 4), -1), ((6,), None), ((2, 3, 4), 1)]:
        a = arr(shape, 'float32')
        cases.append({'kind': 'reduce', 'fn': fn, 'a': enc(a), 'axis': axis, 'keepdims': False,
                      'expect': enc(np.asarray(getattr(np, fn)(a, axis=axis)).astype('int64'))})

# Shapes and products.
for shape, new in [((2, 3), (3, 2)), ((2, 3), (-1,)), ((2, 3), (1, -1, 3)), ((6,), (2, 3)), ((1,), ())]:
    a = arr(shape, 'float32')
    cases.append({'kind': 'reshape', 'a': enc(a), 'newshape': list(new), 'expect': enc(a.reshape(new))})
for shape, axes in [((2, 3), None), ((2, 3, 4), (1, 0, 2)), ((2, 3, 4), (-1, 0, 1)), ((5,), None)]:
    a = arr(shape, 'float32')
    cases.append({'kind': 'transpose', 'a': enc(a), 'axes': list(axes) if axes else None,
                  'expect': enc(np.transpose(a, axes))})
for sa, sb, da, db in [((3,), (3,), 'float32', 'float32'), ((2, 3), (3,), 'float32', 'float32'),
                       ((2, 3), (3, 4), 'float32', 'float64'), ((3,), (3, 4), 'float32', 'float32'),
                       ((2, 3), (5, 3, 4), 'float32', 'float32'), ((2, 2, 3), (3,), 'float64', 'float64'),
                       ((), (2, 2), 'float32', 'float32')]:
    a, b = arr(sa, da), arr(sb, db)
    cases.append({'kind': 'dot', 'a': enc(a), 'b': enc(b), 'expect': enc(np.dot(a, b))})

# Errors: NumPy's messages.
errors = []
def err(kind, fn, **kw):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        errors.append({'kind': kind, 'message': str(e), **kw})
err('reshape', lambda: np.zeros((2, 3)).reshape((4,)), shape=[2, 3], newshape=[4])
err('reshape', lambda: np.zeros((2, 3)).reshape((-1, -1)), shape=[2, 3], newshape=[-1, -1])
err('reshape', lambda: np.zeros((2, 3)).reshape((4, -1)), shape=[2, 3], newshape=[4, -1])
err('transpose', lambda: np.zeros((2, 3)).transpose((1,)), shape=[2, 3], axes=[1])
err('sum', lambda: np.zeros((2, 3)).sum(axis=2), shape=[2, 3], axis=2)
err('max', lambda: np.zeros((0, 3)).max(), shape=[0, 3], axis=None)
err('dot', lambda: np.dot(np.zeros((2, 3)), np.zeros((4, 2))), shape=[2, 3], b=[4, 2])
err('binary', lambda: np.add(np.zeros((2, 3)), np.zeros((4,))), shape=[2, 3], b=[4])

OUT.parent.mkdir(parents=True, exist_ok=True)
OUT.write_text(json.dumps({'numpy': np.__version__, 'cases': cases, 'errors': errors}, separators=(',', ':'), allow_nan=False) + '\n')
print(f'wrote {OUT} ({len(cases)} cases, {len(errors)} errors)')
