#!/usr/bin/env python3
"""Op-level golden cases of the np sort area (MXNet 2.0's _npi_where family and _npi_unique, and @mx's
_npi_searchsorted),
computed by Debian's NumPy 1.24.2 (/usr/bin/python3). The where ops broadcast all inputs; x and y
share one dtype (the np layer promotes before the op); _npi_where_scalar2 is float32 as MXNet's.
_npi_unique outputs: unique values, then int64 first indices / inverse / counts as flagged.
_npi_searchsorted: a is 1-D and sorted in NumPy's order (NaN last), v any shape of a's dtype (the np
layer casts both to their common dtype); int64 output as NumPy's, int32 with dtype='int32'.
Writes packages/conformance/src/__golden__/np_sort.json.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
from common import arr, case, write  # noqa: E402

rng = np.random.default_rng(1606)
cases = []


def vals(shape, dtype):
    if dtype == 'bool':
        return rng.random(shape) < 0.5
    if np.dtype(dtype).kind in 'iu':
        return rng.integers(0, 5, size=shape).astype(dtype)
    return (rng.standard_normal(shape) * 2).astype(dtype)


for dt in ['float32', 'float64', 'int32', 'int64']:
    for cs, xs, ys in [((2, 3), (2, 3), (2, 3)), ((3, 1), (1, 4), (4,)), ((4,), (3, 4), (1,)), ((0, 2), (0, 2), (2,))]:
        c = vals(cs, 'bool')
        x = vals(xs, dt)
        y = vals(ys, dt)
        cases.append(case(f'_npi_where/{dt}/{cs}{xs}{ys}', '_npi_where', [arr(c), arr(x), arr(y)],
                          [arr(np.where(c, x, y))]))
    c = vals((3, 4), 'float32')
    c[c < 0] = 0
    y = vals((4,), dt)
    cases.append(case(f'_npi_where_lscalar/{dt}', '_npi_where_lscalar', [arr(c), arr(y)],
                      [arr(np.where(c, np.asarray(2, dt), y).astype(dt))], params={'scalar': 2.0}))
    cases.append(case(f'_npi_where_rscalar/{dt}', '_npi_where_rscalar', [arr(c), arr(y)],
                      [arr(np.where(c, y, np.asarray(-1, dt)).astype(dt))], params={'scalar': -1.0}))
c = vals((2, 3), 'int32')
cases.append(case('_npi_where_scalar2/int32-cond', '_npi_where_scalar2', [arr(c)],
                  [arr(np.where(c, 1.5, -2.5).astype('float32'))], params={'x': 1.5, 'y': -2.5}))
cases.append(case('_npi_where/broadcast-error', '_npi_where',
                  [arr(vals((3,), 'bool')), arr(vals((2, 4), 'float32')), arr(vals((4,), 'float32'))],
                  error='operands could not be broadcast together'))
cases.append(case('_npi_where/dtype-error', '_npi_where',
                  [arr(vals((3,), 'bool')), arr(vals((3,), 'float32')), arr(vals((3,), 'int32'))],
                  error='float32'))

for dt in ['float32', 'int32', 'int64', 'float64', 'uint8']:
    a = vals((5, 7), dt)
    u, i, inv, cnt = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
    cases.append(case(f'_npi_unique/{dt}', '_npi_unique', [arr(a)], [arr(u)]))
    cases.append(case(f'_npi_unique/{dt}/all', '_npi_unique', [arr(a)],
                      [arr(u), arr(i, 'int64'), arr(inv, 'int64'), arr(cnt, 'int64')],
                      params={'return_index': True, 'return_inverse': True, 'return_counts': True}))
b = rng.integers(0, 2, (5, 3)).astype('int32')
u, inv = np.unique(b, axis=0, return_inverse=True)
cases.append(case('_npi_unique/axis0', '_npi_unique', [arr(b)], [arr(u), arr(inv, 'int64')],
                  params={'axis': 0, 'return_inverse': True}))
big = rng.integers(-1000, 1000, 5000).astype('int32')
cases.append(case('_npi_unique/int32-5000', '_npi_unique', [arr(big)], [arr(np.unique(big))]))
cases.append(case('_npi_unique/empty', '_npi_unique', [arr(np.zeros((0,), 'float32'))],
                  [arr(np.zeros((0,), 'float32'))]))



def sorted_a(n, dt, ties=True, specials=False):
    """A sorted 1-D array of n elements (ties; NaN/inf/-0 for floats when `specials`)."""
    if np.dtype(dt).kind in 'iu':
        lo = 0 if np.dtype(dt).kind == 'u' else -50
        a = rng.integers(lo, 50, size=n).astype(dt)
    else:
        a = (rng.standard_normal(n) * 10).astype(dt)
    if ties and n > 3:
        a[rng.integers(0, n, n // 3)] = a[0]
    if specials and n >= 6:
        a[:4] = np.array([np.nan, np.inf, -np.inf, -0.0], dt)
        a[4] = np.nan
    return np.sort(a)


def probes(a, shape, dt):
    """Values of `shape` mixing a's own elements (ties) with new ones."""
    n = int(np.prod(shape))
    if np.dtype(dt).kind in 'iu':
        lo = 0 if np.dtype(dt).kind == 'u' else -60
        v = rng.integers(lo, 60, size=n).astype(dt)
    else:
        v = (rng.standard_normal(n) * 12).astype(dt)
    if a.size and n:
        pick = rng.random(n) < 0.4
        v[pick] = a[rng.integers(0, a.size, int(pick.sum()))]
    return v.reshape(shape)


for dt in ['float32', 'float64', 'int32', 'int64', 'int8', 'uint8']:
    floats = np.dtype(dt).kind == 'f'
    for n, vs in [(17, (23,)), (9, (3, 4)), (1, (5,)), (40, (2, 3, 4)), (6, ()), (8, (0,)), (0, (4,)), (0, ())]:
        a = sorted_a(n, dt, specials=floats)
        v = probes(a, vs, dt)
        if floats and v.size >= 4:
            v.reshape(-1)[:4] = np.array([np.nan, np.inf, -np.inf, 0.0], dt)
        for side in ['left', 'right']:
            cases.append(case(f'_npi_searchsorted/{dt}/{n}/{vs}/{side}', '_npi_searchsorted', [arr(a), arr(v)],
                              [arr(np.searchsorted(a, v, side=side), 'int64')], params={'side': side}))
for dt in ['float32', 'int32']:
    a = sorted_a(30, dt)
    v = probes(a, (6, 5), dt)
    cases.append(case(f'_npi_searchsorted/{dt}/out-int32', '_npi_searchsorted', [arr(a), arr(v)],
                      [arr(np.searchsorted(a, v, side='right'), 'int32')], params={'side': 'right', 'dtype': 'int32'}))
a = np.full(7, np.nan, 'float32')
v = np.array([np.nan, 1.0, np.inf], 'float32')
for side in ['left', 'right']:
    cases.append(case(f'_npi_searchsorted/all-nan/{side}', '_npi_searchsorted', [arr(a), arr(v)],
                      [arr(np.searchsorted(a, v, side=side), 'int64')], params={'side': side}))
big = np.sort(rng.integers(-10000, 10000, 3000).astype('int64'))
vb = rng.integers(-11000, 11000, 2500).astype('int64')
cases.append(case('_npi_searchsorted/int64-3000', '_npi_searchsorted', [arr(big), arr(vb)],
                  [arr(np.searchsorted(big, vb), 'int64')]))
cases.append(case('_npi_searchsorted/a-2d-error', '_npi_searchsorted',
                  [arr(np.zeros((2, 3), 'float32')), arr(np.zeros(4, 'float32'))], error='a must be a 1-D array'))
cases.append(case('_npi_searchsorted/a-0d-error', '_npi_searchsorted',
                  [arr(np.zeros((), 'float32')), arr(np.zeros(4, 'float32'))], error='a must be a 1-D array'))
cases.append(case('_npi_searchsorted/dtype-error', '_npi_searchsorted',
                  [arr(np.zeros(3, 'float32')), arr(np.zeros(4, 'int32'))], error='a and v must have one dtype'))
cases.append(case('_npi_searchsorted/side-error', '_npi_searchsorted',
                  [arr(np.zeros(3, 'float32')), arr(np.zeros(4, 'float32'))], params={'side': 'middle'},
                  error='middle'))

write('np_sort', cases)
