#!/usr/bin/env python3
"""Golden data for np's reductions and statistics (packages/ndarray/src/np/fns/reduce.test.ts),
computed by Debian's NumPy 1.24.2 — run with /usr/bin/python3, not pyenv's python3.

MXNet 2.0's rules where they differ from NumPy's, applied to NumPy's results here:
- results NumPy makes float64 from integer/bool inputs (mean, std, var, average, percentile,
  quantile, median, nanmean…) are the default float, float32 (computed from the data as NumPy does,
  then cast);
- integer sums/products/cumsums keep the input dtype (NumpySumType), bool ones are int64;
- bincount with weights keeps the weights' dtype (NumPy: float64); histogram of integers bins the
  data as the default float;
- percentile of float16 is float32 (MXNet's NumpyPercentileType).
Zero-size inputs give NumPy's values (nan for mean/std/var, 0 for sum) without its warnings.
Case: {fn, args: [value], kwargs: {k: value}, expect: enc | [enc, ...]} or {…, error: substring};
value = {"arr": enc} for an array, else plain JSON. Writes packages/ndarray/src/np/__golden__/reduce.json.
"""
import json
import pathlib
import warnings
from functools import partial

import common  # first: it keeps this folder's modules from shadowing the standard library's
import numpy as np
from common import camel, enc

OUT = pathlib.Path(__file__).resolve().parents[3] / 'packages/ndarray/src/np/__golden__/reduce.json'
rng = np.random.default_rng(1604)
warnings.simplefilter('ignore')

arr = partial(common.arr, rng)
book = common.CallCases()
cases, add, err = book.cases, book.add, book.err


F32 = 'float32'
is_int = lambda a: a.dtype.kind in 'biu'  # noqa: E731
SHAPES = [((2, 3, 4), None, False), ((2, 3, 4), 1, False), ((2, 3, 4), (0, 2), True), ((2, 3, 4), -1, True),
          ((5,), 0, False), ((), None, False), ((0, 3), 0, False), ((0, 3), 1, True)]


# sum / prod / mean / max / min / amax / amin, with dtype and initial.
for fn in ['sum', 'prod', 'mean', 'max', 'min', 'amax', 'amin']:
    for dt in ['float32', 'float64', 'int32', 'int64', 'bool']:
        for shape, axis, keep in SHAPES:
            if fn in ('max', 'min', 'amax', 'amin') and 0 in shape:
                continue
            if fn in ('max', 'min', 'amax', 'amin') and dt == 'bool':
                continue
            a = arr(shape, dt)
            r = np.asarray(getattr(np, fn)(a, axis=axis, keepdims=keep))
            if fn in ('sum', 'prod'):
                r = r.astype('int64' if dt == 'bool' else dt)
            if fn == 'mean' and is_int(a):
                r = np.mean(a.astype(F32), axis=axis, keepdims=keep)
            add(fn, [a], {'axis': axis, 'keepdims': keep}, r)
for fn, init in [('sum', 10.0), ('prod', 2.0), ('max', 100.0), ('min', -100.0)]:
    a = arr((3, 4), F32)
    add(fn, [a], {'axis': 1, 'initial': init}, getattr(np, fn)(a, axis=1, initial=init))
a = arr((0, 3), F32)
add('max', [a], {'axis': 0, 'initial': -1.0}, np.max(a, axis=0, initial=-1.0))
for fn in ['sum', 'mean', 'prod']:
    a = arr((3, 4), 'int32')
    add(fn, [a], {'axis': 0, 'dtype': 'float64'}, getattr(np, fn)(a, axis=0, dtype='float64'))
a = arr((2, 3), F32)
add('sum', [a], {'axis': ()}, np.sum(a, axis=()))
err('max', [arr((0, 3), F32)], {'axis': 0}, lambda: np.max(np.zeros((0, 3)), axis=0))
err('sum', [arr((2, 3), F32)], {'axis': 2}, lambda: np.sum(np.zeros((2, 3)), axis=2))
err('sum', [arr((2, 3), F32)], {'axis': -3}, lambda: np.sum(np.zeros((2, 3)), axis=-3))

# all / any / count_nonzero / ptp / cumsum.
for fn in ['all', 'any', 'count_nonzero']:
    for dt in ['bool', 'float32', 'int32']:
        for shape, axis, keep in SHAPES:
            a = arr(shape, dt)
            if dt == 'float32' and a.size:
                a.reshape(-1)[::3] = 0
                if fn != 'count_nonzero':
                    a.reshape(-1)[1::5] = np.nan
            r = np.asarray(getattr(np, fn)(a, axis=axis, keepdims=keep))
            if fn == 'count_nonzero':
                r = r.astype('int64')
            add(fn, [a], {'axis': axis, 'keepdims': keep}, r)
for dt in ['float32', 'int32', 'float64']:
    for shape, axis, keep in SHAPES[:5]:
        a = arr(shape, dt)
        add('ptp', [a], {'axis': axis, 'keepdims': keep}, np.ptp(a, axis=axis, keepdims=keep))
err('ptp', [arr((3,), 'bool')], {}, lambda: np.ptp(np.array([True, False])))
for dt in ['float32', 'float64', 'int32', 'int64', 'bool']:
    for shape, axis in [((2, 3, 4), None), ((2, 3, 4), 1), ((2, 3, 4), -1), ((5,), 0), ((), None), ((0, 3), 0)]:
        a = arr(shape, dt)
        r = np.cumsum(a, axis=axis)
        r = r.astype('int64' if dt == 'bool' else dt)
        add('cumsum', [a], {'axis': axis}, r)
a = arr((3, 4), 'int32')
add('cumsum', [a], {'axis': 1, 'dtype': 'float64'}, np.cumsum(a, axis=1, dtype='float64'))
err('cumsum', [arr((2, 3), F32)], {'axis': 2}, lambda: np.cumsum(np.zeros((2, 3)), axis=2))

# std / var.
for fn in ['std', 'var']:
    for dt in ['float32', 'float64', 'int32', 'bool']:
        for shape, axis, keep in SHAPES:
            for ddof in [0, 1]:
                a = arr(shape, dt)
                r = np.asarray(getattr(np, fn)(a, axis=axis, keepdims=keep, ddof=ddof))
                if is_int(a):
                    r = r.astype(F32)
                add(fn, [a], {'axis': axis, 'keepdims': keep, 'ddof': ddof}, r)
    a = arr((3, 4), F32)
    add(fn, [a], {'axis': 0, 'dtype': 'float64'}, getattr(np, fn)(a, axis=0, dtype='float64'))
err('std', [arr((2, 3), F32)], {'axis': 5}, lambda: np.std(np.zeros((2, 3)), axis=5))

# average.
for dt in ['float32', 'float64', 'int32']:
    a = arr((3, 4), dt)
    add('average', [a], {}, np.asarray(np.average(a)).astype(F32 if is_int(a) else dt))
    add('average', [a], {'axis': 1}, np.average(a, axis=1).astype(F32 if is_int(a) else dt))
    w = np.abs(arr((3, 4), dt)) + 1
    add('average', [a], {'axis': 0, 'weights': w}, np.average(a, axis=0, weights=w).astype(F32 if is_int(a) else dt))
    w1 = (np.abs(arr((4,), dt)) + 1).astype(dt)
    r, s = np.average(a, axis=1, weights=w1, returned=True)
    add('average', [a], {'axis': 1, 'weights': w1, 'returned': True},
        [r.astype(F32 if is_int(a) else dt), s.astype(F32 if is_int(a) else dt)])
a = arr((2, 3, 4), F32)
w = np.abs(arr((2, 3, 4), F32)) + 1
add('average', [a], {'axis': (0, 2), 'weights': w}, np.average(a, axis=(0, 2), weights=w))
add('average', [a], {'weights': w}, np.asarray(np.average(a, weights=w)))
err('average', [a], {'weights': arr((4,), F32)}, lambda: np.average(a, weights=np.ones(4)))
err('average', [a], {'axis': 2, 'weights': arr((3, 4), F32)}, lambda: np.average(a, axis=2, weights=np.ones((3, 4))))
err('average', [a], {'axis': 1, 'weights': arr((4,), F32)}, lambda: np.average(a, axis=1, weights=np.ones(4)))
z = np.zeros((4,), F32)
err('average', [a], {'axis': 2, 'weights': z}, lambda: np.average(a, axis=2, weights=z))

# percentile / quantile / median.
for fn, qs in [('percentile', [0, 25, 50, 90, 100, 37.5]), ('quantile', [0, 0.25, 0.5, 0.9, 1])]:
    for method in ['linear', 'lower', 'higher', 'midpoint', 'nearest']:
        for dt in ['float32', 'float64', 'int32']:
            for shape, axis, keep in [((7,), None, False), ((4, 6), 1, False), ((3, 4, 5), (0, 2), True),
                                      ((3, 4), -2, False), ((2, 5), None, True)]:
                a = arr(shape, dt)
                for q in [qs[int(rng.integers(len(qs)))], np.array(qs, dtype='float64')]:
                    r = getattr(np, fn)(a, q, axis=axis, keepdims=keep, method=method)
                    r = np.asarray(r).astype('float64' if dt == 'float64' else F32)
                    add(fn, [a, q], {'axis': axis, 'keepdims': keep, 'method': method}, r)
a = arr((4, 5), F32, nan=True)
add('percentile', [a, 30.0], {'axis': 1}, np.percentile(a, 30.0, axis=1).astype(F32))
err('percentile', [arr((4,), F32), 101], {}, lambda: np.percentile(np.zeros(4), 101))
err('quantile', [arr((4,), F32), 1.5], {}, lambda: np.quantile(np.zeros(4), 1.5))
for dt in ['float32', 'float64', 'int32']:
    for shape, axis, keep in [((7,), None, False), ((4, 6), 1, False), ((4, 6), 0, True), ((3, 4, 5), (0, 2), False)]:
        a = arr(shape, dt)
        add('median', [a], {'axis': axis, 'keepdims': keep},
            np.asarray(np.median(a, axis=axis, keepdims=keep)).astype('float64' if dt == 'float64' else F32))

# nan functions.
for fn in ['nansum', 'nanprod', 'nanmean', 'nanmax', 'nanmin', 'nanvar', 'nanstd']:
    for dt in ['float32', 'float64', 'int32']:
        for shape, axis, keep in [((4, 5), None, False), ((4, 5), 1, False), ((4, 5), 0, True), ((2, 3, 4), (0, 2), False)]:
            a = arr(shape, dt, nan=True)
            r = np.asarray(getattr(np, fn)(a, axis=axis, keepdims=keep))
            if is_int(a) and fn in ('nanmean', 'nanvar', 'nanstd'):
                r = r.astype(F32)
            if fn in ('nansum', 'nanprod'):
                r = r.astype(dt)  # MXNet: integer sums keep the dtype
            add(fn, [a], {'axis': axis, 'keepdims': keep}, r)
a = np.array([[np.nan, np.nan], [1.0, np.nan]], F32)
for fn in ['nanmax', 'nanmin', 'nanmean', 'nansum', 'nanvar']:
    add(fn, [a], {'axis': 1}, getattr(np, fn)(a, axis=1))
a = arr((4, 5), F32, nan=True)
add('nanvar', [a], {'axis': 1, 'ddof': 1}, np.nanvar(a, axis=1, ddof=1))
add('nanstd', [a], {'axis': 0, 'ddof': 1, 'keepdims': True}, np.nanstd(a, axis=0, ddof=1, keepdims=True))
err('nanmax', [arr((0, 3), F32)], {'axis': 0}, lambda: np.nanmax(np.zeros((0, 3)), axis=0))

# bincount / histogram / diff.
for dt in ['int32', 'int64', 'uint8']:
    x = rng.integers(0, 7, size=12).astype(dt)
    add('bincount', [x], {}, np.bincount(x))
    add('bincount', [x], {'minlength': 10}, np.bincount(x, minlength=10))
    w = arr((12,), F32)
    add('bincount', [x], {'weights': w}, np.bincount(x, weights=w).astype(F32))
add('bincount', [np.zeros(0, 'int64')], {'minlength': 3}, np.bincount(np.zeros(0, 'int64'), minlength=3))
err('bincount', [np.array([1, -1, 2])], {}, lambda: np.bincount(np.array([1, -1, 2])))
err('bincount', [np.array([1.0, 2.0])], {}, lambda: np.bincount(np.array([1.0, 2.0])))
err('bincount', [np.array([[1, 2]])], {}, lambda: np.bincount(np.array([[1, 2]])))
for dt in ['float32', 'float64']:
    a = arr((50,), dt)
    for bins, rg in [(5, (-3.0, 3.0)), (10, None), (7, (0.0, 1.0)), (3, (-1.0, 4.5))]:
        h, e = np.histogram(a, bins=bins, range=rg)
        add('histogram', [a], {'bins': bins, 'range': rg}, [h.astype('int64'), e.astype(dt)])
    edges = np.array([-4.0, -1.0, 0.0, 0.5, 2.0, 5.0], dt)
    h, e = np.histogram(a, bins=edges)
    add('histogram', [a], {'bins': edges}, [h.astype('int64'), e])
a = np.array([1.0, 1.0, 1.0], F32)
h, e = np.histogram(a, bins=4)
add('histogram', [a], {'bins': 4}, [h.astype('int64'), e.astype(F32)])
err('histogram', [arr((5,), F32)], {'bins': 3, 'range': (2.0, 1.0)},
    lambda: np.histogram(np.zeros(5), bins=3, range=(2.0, 1.0)))
err('histogram', [arr((5,), F32)], {'bins': np.array([1.0, 0.0, 2.0])},
    lambda: np.histogram(np.zeros(5), bins=np.array([1.0, 0.0, 2.0])))
for dt in ['float32', 'float64', 'int32', 'int64']:
    for shape, n, axis in [((6,), 1, -1), ((6,), 2, 0), ((3, 5), 1, 0), ((3, 5), 3, -1), ((2, 3, 4), 2, 1), ((3,), 5, 0),
                           ((4,), 0, 0)]:
        a = arr(shape, dt)
        add('diff', [a], {'n': n, 'axis': axis}, np.diff(a, n=n, axis=axis))
err('diff', [np.float32(1.0)], {}, lambda: np.diff(np.float32(1.0)))
err('diff', [arr((3,), F32)], {'n': -1}, lambda: np.diff(np.zeros(3), n=-1))
err('diff', [arr((3,), F32)], {'axis': 1}, lambda: np.diff(np.zeros(3), axis=1))

for c in cases:
    c['fn'] = ''.join(w if i == 0 else w.capitalize() for i, w in enumerate(c['fn'].split('_')))
    c['kwargs'] = camel(c['kwargs'])
OUT.write_text(json.dumps({'generator': 'tools/golden/np/reduce.py', 'numpy': np.__version__, 'cases': cases}) + '\n')
print(f'{len(cases)} cases -> {OUT}')
