"""Golden cases for the np misc family (MXNet 2.0's index helpers and small numerics), from NumPy.

Run with Debian's NumPy (the project's reference): /usr/bin/python3 tools/golden/ops/np_misc.py
Writes packages/conformance/src/__golden__/np_misc.json.

Reference semantics (MXNet 2.0 src/operator/numpy/np_matrix_op.*, np_window_op.*,
np_polynomial_op.*, np_ediff1d_op.*, np_interp_op.*, np_fill_diagonal_op.*, tensor/ravel.*):
- _npi_diagonal(offset, axis1, axis2) is NumPy's diagonal; _backward_npi_diagonal takes
  [ograd, data] (data gives the shape) and puts ograd on that diagonal of zeros.
- _npi_tril_indices(n, k, m): NumPy's tril_indices as int64; _npi_diag_indices_from: an
  (ndim, n) int64 array whose rows are NumPy's diag_indices_from; _unravel_index (alias
  _npi_unravel_index): NumPy's unravel_index stacked, in the indices' dtype (MXNet's ElemwiseType).
- windows: NumPy's hanning / hamming / blackman cast to dtype (default float32).
- _npi_polyval: NumPy's polyval with p and x of one dtype; _npi_backward_polyval: [ograd, p, x] →
  [Σ_j x_j^(deg-i) g_j, p'(x) g].
- _npi_ediff1d: NumPy's ediff1d; array to_begin / to_end are inputs 2 and 3 (begin first).
- _npi_interp: NumPy's interp in float64 (x as input 3, or x_scalar with x_is_scalar).
- _npi_fill_diagonal: a copy of a with NumPy's fill_diagonal(val, wrap) applied.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from common import case, write  # noqa: E402

rng = np.random.default_rng(1617)
cases = []


def rand(shape, dtype='float64'):
    if np.dtype(dtype).kind in 'iu':
        return rng.integers(-5, 6, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return str(e)
    raise SystemExit('expected an error')


# ---- diagonal ------------------------------------------------------------------------------------
for shape, off, a1, a2, dt in [((3, 4), 0, 0, 1, 'float64'), ((3, 4), 1, 0, 1, 'float32'), ((4, 3), -2, 0, 1, 'int32'),
                               ((2, 3, 4), 0, -1, 0, 'float64'), ((2, 3, 4), 1, 1, 2, 'int64'), ((3, 3), 5, 0, 1, 'float64'),
                               ((0, 3), 0, 0, 1, 'float32'), ((2, 2, 2, 2), -1, 3, 1, 'float64')]:
    x = rand(shape, dt)
    name = f'{"x".join(map(str, shape))}/o{off}/a{a1}{a2}/{dt}'
    p = {'offset': off, 'axis1': a1, 'axis2': a2}
    d = np.diagonal(x, off, a1, a2)
    cases.append(case(f'_npi_diagonal/{name}', '_npi_diagonal', [x], [d.copy()], params=p))
    if dt in ('float64', 'float32'):
        og = rand(d.shape, dt)
        gv = np.zeros(shape, dt)
        # Place og on the diagonal: diagonal() of the gradient equals og, zeros elsewhere.
        idx = np.arange(x.size).reshape(shape)
        flat = np.diagonal(idx, off, a1, a2).ravel()
        gv.ravel()[flat] = og.ravel()
        cases.append(case(f'_backward_npi_diagonal/{name}', '_backward_npi_diagonal', [og, x], [gv], params=p))
cases.append(case('_npi_diagonal/1d', '_npi_diagonal', [rand((3,), 'float32')], params={},
                  error=err(lambda: np.diagonal(np.zeros(3)))))
cases.append(case('_npi_diagonal/same-axes', '_npi_diagonal', [rand((3, 3), 'float32')], params={'axis1': 1, 'axis2': -1},
                  error=err(lambda: np.diagonal(np.zeros((3, 3)), 0, 1, -1))))
cases.append(case('_npi_diagonal/axis-range', '_npi_diagonal', [rand((3, 3), 'float32')], params={'axis2': 2},
                  error=err(lambda: np.diagonal(np.zeros((3, 3)), 0, 0, 2))))

# ---- index generators ----------------------------------------------------------------------------
for n, k, m in [(3, 0, 3), (4, 1, 3), (3, -1, 5), (0, 0, 0), (2, -5, 2), (3, 10, 2)]:
    r, c = np.tril_indices(n, k, m)
    cases.append(case(f'_npi_tril_indices/{n}x{m}/k{k}', '_npi_tril_indices', [], [r.astype('int64'), c.astype('int64')],
                      params={'n': n, 'k': k, 'm': m}))
for shape in [(3, 3), (2, 2, 2), (0, 0), (1, 1)]:
    x = rand(shape)
    want = np.stack(np.diag_indices_from(x)).astype('int64') if shape[0] > 0 else np.zeros((len(shape), 0), 'int64')
    cases.append(case(f'_npi_diag_indices_from/{"x".join(map(str, shape))}', '_npi_diag_indices_from', [x], [want]))
cases.append(case('_npi_diag_indices_from/unequal', '_npi_diag_indices_from', [rand((2, 3))],
                  error=err(lambda: np.diag_indices_from(np.zeros((2, 3))))))
cases.append(case('_npi_diag_indices_from/1d', '_npi_diag_indices_from', [rand((3,))],
                  error=err(lambda: np.diag_indices_from(np.zeros(3)))))
for idx, shape, dt in [([22, 41, 37], (7, 6), 'int64'), ([[22, 41, 37], [10, 11, 15]], (7, 6), 'int64'),
                       (1621, (6, 7, 8, 9), 'int64'), ([0, 5, 3], (2, 3), 'int32'), ([], (4, 5), 'int64'),
                       ([0.0, 7.0], (3, 4), 'float32')]:
    x = np.array(idx, dtype=dt)
    want = np.stack(np.unravel_index(x.astype('int64'), shape)).astype(dt)
    cases.append(case(f'_unravel_index/{"x".join(map(str, shape))}/{x.size}/{dt}', '_unravel_index', [x], [want],
                      params={'shape': list(shape)}))
cases.append(case('_npi_unravel_index/alias', '_npi_unravel_index', [np.array([3, 4], 'int64')],
                  [np.stack(np.unravel_index([3, 4], (2, 3))).astype('int64')], params={'shape': [2, 3]}))
cases.append(case('_unravel_index/out-of-bounds', '_unravel_index', [np.array([1, 6], 'int64')], params={'shape': [2, 3]},
                  error=err(lambda: np.unravel_index([1, 6], (2, 3)))))


def filled(a, val, wrap=False):
    b = a.copy()
    np.fill_diagonal(b, val, wrap)
    return b


for shape, val, wrap, dt in [((3, 3), [5.0], False, 'float64'), ((5, 3), [1.0, 2.0], False, 'float32'),
                             ((7, 3), [9.0], True, 'float64'), ((3, 5), [-1.5], True, 'int32'),
                             ((2, 2, 2), [4.0, 8.0], False, 'int64'), ((0, 0), [1.0], False, 'float32')]:
    x = rand(shape, dt)
    cases.append(case(f'_npi_fill_diagonal/{"x".join(map(str, shape))}/{len(val)}/{wrap}/{dt}', '_npi_fill_diagonal',
                      [x], [filled(x, val, wrap)], params={'val': val, 'wrap': wrap}))
cases.append(case('_npi_fill_diagonal/1d', '_npi_fill_diagonal', [rand((3,))], params={'val': [1.0]},
                  error=err(lambda: np.fill_diagonal(np.zeros(3), 1.0))))
cases.append(case('_npi_fill_diagonal/unequal-3d', '_npi_fill_diagonal', [rand((2, 3, 2))], params={'val': [1.0]},
                  error=err(lambda: np.fill_diagonal(np.zeros((2, 3, 2)), 1.0))))

# ---- windows -------------------------------------------------------------------------------------
for name, f in [('_npi_hanning', np.hanning), ('_npi_hamming', np.hamming), ('_npi_blackman', np.blackman)]:
    for M in [0, 1, 2, 5, 12, -3]:
        for dt in ['float32', 'float64']:
            cases.append(case(f'{name}/{M}/{dt}', name, [], [f(M).astype(dt)], params={'M': M, 'dtype': dt}, atol=1e-6 if dt == 'float32' else 1e-14))
    cases.append(case(f'{name}/default', name, [], [f(6).astype('float32')], params={'M': 6}, atol=1e-6))

# ---- polyval -------------------------------------------------------------------------------------
for pshape, xshape, dt in [((3,), (4,), 'float64'), ((1,), (2, 3), 'float64'), ((5,), (), 'float64'),
                           ((4,), (3, 2), 'float32'), ((3,), (5,), 'int64'), ((0,), (3,), 'float64'), ((2,), (0,), 'float64')]:
    p = rand(pshape, dt)
    x = rand(xshape, dt)
    y = np.asarray(np.polyval(p, x)).astype(dt) if pshape[0] > 0 else np.zeros(xshape, dt)
    nm = f'{pshape[0]}/{"x".join(map(str, xshape)) or "scalar"}/{dt}'
    cases.append(case(f'_npi_polyval/{nm}', '_npi_polyval', [p, x], [y], grad=dt == 'float64'))
    if dt == 'float64' and pshape[0] > 0:
        g = rand(xshape)
        deg = pshape[0] - 1
        gp = np.array([np.sum(x ** (deg - i) * g) for i in range(pshape[0])])
        gx = np.polyval(np.polyder(p), x) * g if deg > 0 else np.zeros(xshape)
        cases.append(case(f'_npi_backward_polyval/{nm}', '_npi_backward_polyval', [g, p, x], [gp, np.asarray(gx)]))
cases.append(case('_npi_polyval/2d-p', '_npi_polyval', [rand((2, 2)), rand((3,))],
                  error='p must be a 1-D array of coefficients'))

# ---- ediff1d -------------------------------------------------------------------------------------
def ediff_case(nm, x, begin, end, dt):
    ins = [x]
    p = {'to_begin_arr_given': isinstance(begin, np.ndarray), 'to_end_arr_given': isinstance(end, np.ndarray)}
    if isinstance(begin, np.ndarray):
        ins.append(begin)
    elif begin is not None:
        p['to_begin_scalar'] = begin
    if isinstance(end, np.ndarray):
        ins.append(end)
    elif end is not None:
        p['to_end_scalar'] = end
    y = np.ediff1d(x, to_end=end, to_begin=begin).astype(dt)
    cases.append(case(f'_npi_ediff1d/{nm}', '_npi_ediff1d', ins, [y], params=p, grad=dt == 'float64'))
    if dt == 'float64':
        g = rand(y.shape)
        nb = 0 if begin is None else np.asarray(begin).size
        n = x.size
        gx = np.zeros(n)
        for i in range(n):
            gx[i] = (g[nb + i - 1] if i > 0 else 0) - (g[nb + i] if i < n - 1 else 0)
        outs = [gx.reshape(x.shape)]
        if isinstance(begin, np.ndarray):
            outs.append(g[:nb].reshape(begin.shape))
        if isinstance(end, np.ndarray):
            outs.append(g[nb + max(n - 1, 0):].reshape(end.shape))
        cases.append(case(f'_npi_backward_ediff1d/{nm}', '_npi_backward_ediff1d', [g, *ins], outs, params=p))


ediff_case('plain', rand((5,)), None, None, 'float64')
ediff_case('2d-scalars', rand((2, 3)), -1.5, 2.0, 'float64')
ediff_case('arrays', rand((4,)), rand((2,)), rand((3,)), 'float64')
ediff_case('begin-array-end-scalar', rand((3,)), rand((2, 1)), 7.0, 'float64')
ediff_case('end-array', rand((3,)), None, rand((1,)), 'float64')
ediff_case('int32', rand((6,), 'int32'), 4, None, 'int32')
ediff_case('float32-arrays', rand((3,), 'float32'), rand((1,), 'float32'), rand((2,), 'float32'), 'float32')
ediff_case('single', rand((1,)), None, 3.0, 'float64')
ediff_case('empty', rand((0,)), None, None, 'float64')

# ---- interp --------------------------------------------------------------------------------------
xp = np.array([1.0, 2.0, 3.0, 5.0])
fp = np.array([3.0, 2.0, 0.0, 4.0])
x = np.array([0.0, 1.0, 1.5, 2.72, 3.14, 5.0, 6.0])
base = {'left': None, 'right': None, 'period': None, 'x_scalar': 0.0, 'x_is_scalar': False}
cases.append(case('_npi_interp/plain', '_npi_interp', [xp, fp, x], [np.interp(x, xp, fp)], params=base))
cases.append(case('_npi_interp/left-right', '_npi_interp', [xp, fp, x], [np.interp(x, xp, fp, -1.0, 9.0)],
                  params={**base, 'left': -1.0, 'right': 9.0}))
cases.append(case('_npi_interp/scalar', '_npi_interp', [xp, fp], [np.asarray(np.interp(2.5, xp, fp))],
                  params={**base, 'x_scalar': 2.5, 'x_is_scalar': True}))
cases.append(case('_npi_interp/2d-x', '_npi_interp', [xp, fp, x[:6].reshape(2, 3)],
                  [np.interp(x[:6].reshape(2, 3), xp, fp)], params=base))
xpp = np.array([190.0, -190.0, 350.0, -350.0])
fpp = np.array([5.0, 10.0, 3.0, 4.0])
xq = np.array([-180.0, -170.0, -185.0, 185.0, -10.0, -5.0, 0.0, 365.0])
cases.append(case('_npi_interp/period', '_npi_interp', [xpp, fpp, xq], [np.interp(xq, xpp, fpp, period=360)],
                  params={**base, 'period': 360.0}))
cases.append(case('_npi_interp/one-point', '_npi_interp', [np.array([2.0]), np.array([7.0]), x],
                  [np.interp(x, [2.0], [7.0])], params=base))
cases.append(case('_npi_interp/length-mismatch', '_npi_interp', [xp, fp[:3], x], params=base,
                  error=err(lambda: np.interp(x, xp, fp[:3]))))
cases.append(case('_npi_interp/empty', '_npi_interp', [np.zeros(0), np.zeros(0), x], params=base,
                  error=err(lambda: np.interp(x, np.zeros(0), np.zeros(0)))))
cases.append(case('_npi_interp/period-zero', '_npi_interp', [xp, fp, x], params={**base, 'period': 0.0},
                  error=err(lambda: np.interp(x, xp, fp, period=0))))

write('np_misc', cases)
