"""Golden cases for the np creation family (MXNet 2.0's `_npi_*` creation operators), from NumPy.

Run with Debian's NumPy (the project's reference): /usr/bin/python3 tools/golden/ops/np_creation.py
Writes packages/conformance/src/__golden__/np_creation.json.

Reference semantics (MXNet 2.0 src/operator/numpy/np_init_op.*, np_tri*_op.*, np_matrix_op.*):
- dtype=None is float32 (int64 for _npi_indices); the np layer passes dtypes explicitly.
- _npi_full: value_type 0 fills int_value, 2 double_value (cast as static_cast: ints truncate).
- _npi_arange: ceil((stop - start) / step) elements (0 for an empty range), values start + i*step.
- _npi_linspace / _npi_logspace: NumPy's linspace (element 0 is start, with endpoint the last is
  stop) with NumPy's integer rule (floor; MXNet 2.0 truncates, @mx follows NumPy); logspace is
  base ** linspace cast with astype (toward zero).
- _npi_tril/_npi_triu: a 1-D input is the rows of a square matrix; _backward_tril/_backward_triu
  take [ograd, data] (data gives the shape) and return the masked ograd (summed over rows for 1-D).
- _npi_diag / _npi_diagflat: NumPy's diag / diagflat; backward ops [ograd, data] as above.
Errors carry NumPy's messages (negative dimensions, num < 0, step 0, diag of a 3-d input).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from common import arr, case, write  # noqa: E402

rng = np.random.default_rng(1616)
cases = []


def rand(shape, dtype='float32'):
    if dtype == 'bool':
        return rng.random(shape) < 0.5
    if np.dtype(dtype).kind in 'iu':
        return rng.integers(-5, 6, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return str(e)
    raise SystemExit('expected an error')


# ---- fills ---------------------------------------------------------------------------------------
for shape in [(2, 3), (), (0, 4), (5,)]:
    for dt in ['float32', 'int32', 'bool', 'float64', 'int64']:
        s = 'x'.join(map(str, shape)) or 'scalar'
        cases.append(case(f'_npi_zeros/{s}/{dt}', '_npi_zeros', [], [np.zeros(shape, dt)],
                          params={'shape': list(shape), 'dtype': dt}))
        cases.append(case(f'_npi_ones/{s}/{dt}', '_npi_ones', [], [np.ones(shape, dt)],
                          params={'shape': list(shape), 'dtype': dt}))
cases.append(case('_npi_zeros/default-float32', '_npi_zeros', [], [np.zeros((2,), 'float32')], params={'shape': [2]}))
cases.append(case('_npi_zeros/negative', '_npi_zeros', [], params={'shape': [2, -1]},
                  error=err(lambda: np.zeros((2, -1)))))
for name, v, vt, dt in [('int', 7, 0, 'int64'), ('double', 2.5, 2, 'float32'), ('double-int32', -2.7, 2, 'int32'),
                        ('bool', 1, 0, 'bool'), ('double64', 1e300, 2, 'float64')]:
    p = {'shape': [2, 2], 'dtype': dt, 'value_type': vt, ('int_value' if vt == 0 else 'double_value'): v}
    cases.append(case(f'_npi_full/{name}', '_npi_full', [], [np.full((2, 2), v).astype(dt)], params=p))
cases.append(case('_npi_full/0x3', '_npi_full', [], [np.zeros((0, 3), 'float32')],
                  params={'shape': [0, 3], 'dtype': 'float32', 'double_value': 1.5, 'value_type': 2}))
for dt, fv, out_dt in [('float32', 3.5, None), ('int32', 2.7, None), ('int32', 2.5, 'float64'), ('bool', 2, None)]:
    a = rand((2, 3), dt)
    p = {'fill_value': fv}
    if out_dt:
        p['dtype'] = out_dt
    cases.append(case(f'_npi_full_like/{dt}/{out_dt}', '_npi_full_like', [a],
                      [np.full_like(a, fv, dtype=out_dt)], params=p))
cases.append(case('_npi_full_like/0x2', '_npi_full_like', [np.zeros((0, 2), 'float32')],
                  [np.zeros((0, 2), 'float32')], params={'fill_value': 1}))
for n, dt in [(3, 'float32'), (0, 'float32'), (1, 'int32'), (4, 'bool')]:
    cases.append(case(f'_npi_identity/{n}/{dt}', '_npi_identity', [], [np.identity(n, dt)],
                      params={'shape': [n, n], 'dtype': dt}))
for N, M, k, dt in [(3, None, 0, 'float32'), (3, 5, 1, 'float32'), (4, 2, -1, 'int32'), (3, 3, 5, 'float32'),
                    (3, 4, -7, 'float64'), (0, None, 0, 'float32'), (2, 0, 0, 'float32'), (3, None, 0, 'bool')]:
    p = {'N': N, 'k': k, 'dtype': dt}
    if M is not None:
        p['M'] = M
    cases.append(case(f'_npi_eye/{N}x{M}/k{k}/{dt}', '_npi_eye', [], [np.eye(N, M, k, dtype=dt)], params=p))
cases.append(case('_npi_eye/negative', '_npi_eye', [], params={'N': -1}, error=err(lambda: np.eye(-1))))

# ---- sequences -----------------------------------------------------------------------------------
for start, stop, step, dt in [(0, 5, 1, 'float32'), (2, 11, 3, 'int32'), (0, 1, 0.1, 'float32'), (5, 0, -1, 'int64'),
                              (3, 3, 1, 'float32'), (5, 0, 1, 'float32'), (-1.5, 2.5, 0.5, 'float64'),
                              (0, 10, 4, 'int64')]:
    cases.append(case(f'_npi_arange/{start}:{stop}:{step}/{dt}', '_npi_arange', [], [np.arange(start, stop, step, dtype=dt)],
                      params={'start': start, 'stop': stop, 'step': step, 'dtype': dt}))
cases.append(case('_npi_arange/step0', '_npi_arange', [], params={'start': 0, 'stop': 5, 'step': 0},
                  error=err(lambda: np.arange(0, 5, 0))))
for start, stop, num, endpoint, dt in [(0, 1, 5, True, 'float32'), (0, 1, 5, False, 'float32'), (2.5, -3, 7, True, 'float64'),
                                       (0, 10, 4, True, 'int32'), (-3, 3, 4, False, 'int64'), (-2.5, 1, 3, True, 'int32'), (1, 5, 1, True, 'float32'),
                                       (1, 5, 0, True, 'float32'), (0, 1, 3, True, 'bool')]:
    ints = float(start).is_integer() and float(stop).is_integer()
    p = ({'start_int': int(start), 'stop_int': int(stop), 'value_type': 0} if ints else
         {'start_double': start, 'stop_double': stop, 'value_type': 2})
    p.update({'num': num, 'endpoint': endpoint, 'dtype': dt})
    want = np.linspace(start, stop, num, endpoint=endpoint, dtype=dt)
    cases.append(case(f'_npi_linspace/{start}:{stop}:{num}/{endpoint}/{dt}', '_npi_linspace', [], [want], params=p))
cases.append(case('_npi_linspace/negative', '_npi_linspace', [], params={'num': -1, 'start_int': 0, 'stop_int': 1},
                  error=err(lambda: np.linspace(0, 1, -1))))
for start, stop, num, endpoint, base, dt in [(0, 3, 4, True, 10.0, 'float32'), (1, 2, 5, False, 2.0, 'float64'),
                                             (-1, 1, 3, True, 10.0, 'float32'), (0, 2, 3, True, 10.0, 'int32'),
                                             (0, 1, 0, True, 10.0, 'float32')]:
    want = np.logspace(start, stop, num, endpoint=endpoint, base=base).astype(dt)
    cases.append(case(f'_npi_logspace/{start}:{stop}:{num}/{endpoint}/b{base}/{dt}', '_npi_logspace', [], [want],
                      params={'start': start, 'stop': stop, 'num': num, 'endpoint': endpoint, 'base': base, 'dtype': dt},
                      rtol=1e-6 if dt == 'float32' else 1e-13))
cases.append(case('_npi_logspace/negative', '_npi_logspace', [], params={'start': 0, 'stop': 1, 'num': -2},
                  error=err(lambda: np.logspace(0, 1, -2))))
for dims, dt in [((2, 3), 'int64'), ((4,), 'int32'), ((2, 0, 3), 'int64'), ((), 'int64'), ((2, 3, 2), 'float32')]:
    p = {'dimensions': list(dims), 'dtype': dt}
    cases.append(case(f'_npi_indices/{dims}/{dt}', '_npi_indices', [], [np.indices(dims, dtype=dt)], params=p))
cases.append(case('_npi_indices/negative', '_npi_indices', [], params={'dimensions': [-1, 2]},
                  error=err(lambda: np.indices((-1, 2)))))
for N, M, k, dt in [(3, None, 0, 'float32'), (3, 5, 2, 'float32'), (4, 3, -1, 'int32'), (0, 2, 0, 'float32'), (3, 3, 0, 'bool')]:
    p = {'N': N, 'k': k, 'dtype': dt}
    if M is not None:
        p['M'] = M
    cases.append(case(f'_npi_tri/{N}x{M}/k{k}/{dt}', '_npi_tri', [], [np.tri(N, M, k, dtype=dt)], params=p))
# NumPy's tri(-2) is a 0x0 array (the np layer clamps); the op refuses negative lengths as MXNet does.
cases.append(case('_npi_tri/negative', '_npi_tri', [], params={'N': -2}, error='negative dimensions are not allowed'))

# ---- matrix builders with gradients --------------------------------------------------------------
def place_diag(og, shape, k):
    """The gradient of diag(x, k) for a 2-D x: og on diagonal k of zeros."""
    g = np.zeros(shape, og.dtype)
    r0, c0 = max(0, -k), max(0, k)
    for i in range(og.shape[0]):
        g[r0 + i, c0 + i] = og[i]
    return g


for name, f in [('tril', np.tril), ('triu', np.triu)]:
    op = f'_npi_{name}'
    back = f'_backward_{name}'
    for shape, k, dt in [((4, 4), 0, 'float64'), ((3, 5), 1, 'float64'), ((5, 3), -2, 'float32'), ((2, 3, 4), 0, 'float64'),
                         ((4,), 1, 'float64'), ((3,), -1, 'int32'), ((3, 3), 7, 'float32'), ((3, 3), -9, 'float32'),
                         ((0, 3), 0, 'float32'), ((2, 0, 3), 1, 'float32'), ((3, 3), 0, 'bool'), ((2, 2), 0, 'int64')]:
        x = rand(shape, dt)
        y = f(x, k)
        s = 'x'.join(map(str, shape))
        cases.append(case(f'{op}/{s}/k{k}/{dt}', op, [x], [y], params={'k': k}))
        if dt in ('float32', 'float64'):
            og = rand(y.shape, dt)
            g = f(og, k).sum(axis=0) if len(shape) == 1 else f(og, k)
            cases.append(case(f'{back}/{s}/k{k}/{dt}', back, [og, x], [g.astype(dt)], params={'k': k}))
    cases.append(case(f'{op}/0-d', op, [np.array(2.0, 'float32')], params={'k': 0},
                      error=err(lambda: f(np.array(2.0)))))

for shape, k, dt in [((4,), 0, 'float64'), ((3,), 2, 'float64'), ((3,), -1, 'float32'), ((3, 3), 0, 'float64'),
                     ((3, 5), 1, 'float64'), ((5, 3), -2, 'float32'), ((3, 3), 4, 'float32'), ((0,), 1, 'float32'),
                     ((2, 0), 0, 'float32'), ((3, 3), 0, 'int32'), ((2,), 0, 'bool')]:
    x = rand(shape, dt)
    y = np.diag(x, k)
    s = 'x'.join(map(str, shape))
    cases.append(case(f'_npi_diag/{s}/k{k}/{dt}', '_npi_diag', [x], [y], params={'k': k}))
    if dt in ('float32', 'float64'):
        og = rand(y.shape, dt)
        g = np.diag(og, k) if len(shape) == 1 else place_diag(og, shape, k)
        cases.append(case(f'_backward_npi_diag/{s}/k{k}/{dt}', '_backward_npi_diag', [og, x], [g], params={'k': k}))
for shape in [(2, 2, 2), ()]:
    cases.append(case(f'_npi_diag/{len(shape)}-d', '_npi_diag', [np.zeros(shape, 'float32')], params={'k': 0},
                      error=err(lambda: np.diag(np.zeros(shape)))))

for shape, k, dt in [((3,), 0, 'float64'), ((2, 2), 1, 'float64'), ((2, 3), -2, 'float32'), ((), 1, 'float64'),
                     ((0, 2), 1, 'float32'), ((2, 1, 2), 0, 'int32')]:
    x = rand(shape, dt)
    y = np.diagflat(x, k)
    s = 'x'.join(map(str, shape)) or 'scalar'
    cases.append(case(f'_npi_diagflat/{s}/k{k}/{dt}', '_npi_diagflat', [x], [y], params={'k': k}))
    if dt in ('float32', 'float64'):
        og = rand(y.shape, dt)
        cases.append(case(f'_backward_npi_diagflat/{s}/k{k}/{dt}', '_backward_npi_diagflat', [og, x],
                          [np.diag(og, k).reshape(shape)], params={'k': k}))

write('np_creation', cases)
