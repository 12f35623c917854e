#!/usr/bin/env python3
"""Op-level golden cases of the np sort area (MXNet 2.0's _npi_where family and _npi_unique),
computed by Debian's NumPy 1.24.2 (/usr/bin/python3). The where ops broadcast all inputs; x and y
share one dtype (the np layer promotes before the op); _npi_where_scalar2 is float32 as MXNet's.
_npi_unique outputs: unique values, then int64 first indices / inverse / counts as flagged.
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

write('np_sort', cases)
