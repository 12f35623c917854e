"""Golden cases for the np reduce family (MXNet 2.0 np reduction/statistics operators), from NumPy.

Run with Debian's NumPy (the project's reference): /usr/bin/python3 tools/golden/ops/np_reduce.py
Writes packages/conformance/src/__golden__/np_reduce.json.

Reference semantics (MXNet 2.0 src/operator/numpy/np_broadcast_reduce_op*.cc, np_moments_op.cc,
np_percentile_op.cc, np_bincount_op.cc, np_diff.cc, tensor/histogram.cc), expressed with NumPy:
- _npi_sum/_npi_prod/_npi_mean/_npi_max/_npi_min: NumPy's reductions with NumPy shapes (a full
  reduction is 0-d); dtype (NumpySumType) converts the input first, so integer sums keep the dtype
  and wrap; initial is NumPy's.
- _npi_std/_npi_var: the visible output (the hidden mean is not compared).
- _npi_percentile: NumPy's percentile with `method`; the result is float64 for float64 input, else
  float32. _npi_bincount's output length is `minlength` (the np layer passes max + 1).
- backward ops: the formulas of the gradients (ograd spread over the reduced axes; moments
  2 (a - mean)/(N - ddof) and (a - mean)/((N - ddof) std); average w/sum(w) and (a - avg)/sum(w);
  diff's adjoint), computed in float64 and rounded.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from common import arr, case, write  # noqa: E402

rng = np.random.default_rng(20240604)
cases = []
F32, F64 = 'float32', 'float64'


def data(shape, dtype=F64, lo=-3.0, hi=3.0):
    if dtype.startswith('int'):
        return rng.integers(-4, 5, size=shape).astype(dtype)
    return rng.uniform(lo, hi, size=shape).astype(dtype)


def sn(s):
    return 'x'.join(map(str, s)) if len(s) else 'scalar'


def ax(axis):
    return list(axis) if isinstance(axis, tuple) else axis


def tolerances(dt):
    return (1e-5, 1e-6) if dt == F32 else (1e-9, 1e-11)


# Value reductions.
RED = {'_npi_sum': np.sum, '_npi_prod': np.prod, '_npi_mean': np.mean, '_npi_max': np.max, '_npi_min': np.min}
for op, f in RED.items():
    for dt in [F32, F64, 'int32']:
        for shape, axis, keep in [((2, 3, 4), None, False), ((2, 3, 4), 1, True), ((2, 3, 4), (0, 2), False),
                                  ((3, 4), -1, False), ((5,), 0, False), ((), None, False)]:
            a = data(shape, dt, 0.5, 1.5) if op == '_npi_prod' else data(shape, dt)
            r = np.asarray(f(a, axis=axis, keepdims=keep)).astype(dt)
            if op == '_npi_mean' and dt == 'int32':
                r = np.asarray(np.mean(a.astype(F32), axis=axis, keepdims=keep))
            params = {'axis': ax(axis), 'keepdims': keep}
            if op == '_npi_mean' and dt == 'int32':
                params['dtype'] = F32
            rt, at = tolerances(r.dtype)
            # A dtype change has no composite kernel on webgpu (the np layer casts first there).
            extra = {'backends': ['cpu-wasm']} if 'dtype' in params else {}
            cases.append(case(f'{op}/{dt}/{sn(shape)}/axis={axis}/keep={keep}', op, [a], [r], params, rt, at, **extra))
    if op in ('_npi_sum', '_npi_prod'):
        a = data((3, 4), 'int32')
        cases.append(case(f'{op}/dtype=float64', op, [a], [getattr(np, op[5:])(a, axis=1, dtype=F64)],
                          {'axis': [1], 'dtype': F64}))
        b = rng.random((2, 3)) < 0.5
        cases.append(case(f'{op}/bool', op, [b], [np.asarray(getattr(np, op[5:])(b)).astype('int64')], {}))
for op, init in [('_npi_sum', 2.5), ('_npi_max', 10.0), ('_npi_min', -10.0)]:
    a = data((3, 4), F32)
    cases.append(case(f'{op}/initial', op, [a], [RED[op](a, axis=0, initial=init)], {'axis': [0], 'initial': init},
                      backends=['cpu-wasm']))
cases.append(case('_npi_max/0x3/initial', '_npi_max', [np.zeros((0, 3))], [np.full((3,), -1.0)],
                  {'axis': [0], 'initial': -1.0}, backends=['cpu-wasm']))
cases.append(case('_npi_max/0x3/error', '_npi_max', [np.zeros((0, 3))], error='zero-size array to reduction operation maximum',
                  params={'axis': [0]}))
cases.append(case('_npi_sum/axis-out-of-range', '_npi_sum', [np.zeros((2, 3))], error='axis 2 is out of bounds',
                  params={'axis': [2]}))
cases.append(case('_npi_amax/alias', '_npi_amax', [np.array([1.0, 5.0, 2.0])], [np.array(5.0)], {}))
for op, f in [('_npi_all', np.all), ('_npi_any', np.any)]:
    for shape, axis in [((3, 4), None), ((3, 4), 1), ((2, 3, 4), (0, 2)), ((0, 3), 0)]:
        a = (rng.random(shape) < (0.8 if op == '_npi_all' else 0.2)).astype(F32)
        cases.append(case(f'{op}/{sn(shape)}/axis={axis}', op, [a], [np.asarray(f(a, axis=axis))], {'axis': ax(axis)}))

# Backward ops of sum / mean.
for op, mean in [('_backward_npi_sum', False), ('_backward_np_mean', True)]:
    for shape, axis, keep in [((2, 3, 4), None, False), ((2, 3, 4), (0, 2), True), ((3, 4), 1, False)]:
        a = data(shape, F32)
        og = data(np.sum(a, axis=axis, keepdims=keep).shape, F32)
        n = a.size // max(og.size, 1)
        g = np.broadcast_to(np.sum(a * 0, axis=axis, keepdims=True) + og.reshape(np.sum(a, axis=axis, keepdims=True).shape), shape)
        if mean:
            g = g / n
        cases.append(case(f'{op}/{sn(shape)}/axis={axis}', op, [og, a], [np.ascontiguousarray(g).astype(F32)],
                          {'axis': ax(axis), 'keepdims': keep}))

# Moments.
for op, f in [('_npi_std', np.std), ('_npi_var', np.var)]:
    for dt in [F32, F64]:
        for shape, axis, keep, ddof in [((3, 4), None, False, 0), ((3, 4), 1, False, 1), ((2, 3, 4), (0, 2), True, 0),
                                        ((5,), 0, False, 1)]:
            a = data(shape, dt)
            r = f(a.astype(F64), axis=axis, keepdims=keep, ddof=ddof).astype(dt)
            rt, at = tolerances(dt)
            cases.append(case(f'{op}/{dt}/{sn(shape)}/axis={axis}/ddof={ddof}', op, [a], [r],
                              {'axis': ax(axis), 'keepdims': keep, 'ddof': ddof}, rt, at))
    a = data((3, 4), 'int32')
    cases.append(case(f'{op}/int32/dtype=float32', op, [a], [f(a, axis=0).astype(F32)], {'axis': [0], 'dtype': F32}))
    back = '_backward_npi_std' if op == '_npi_std' else '_backward_npi_var'
    for shape, axis, ddof in [((3, 4), 1, 0), ((2, 3, 4), (0, 2), 1)]:
        a = data(shape)
        m = a.mean(axis=axis, keepdims=True)
        out = f(a, axis=axis, ddof=ddof, keepdims=True)
        og = data(out.shape)
        nn = a.size // out.size - ddof
        g = og * (a - m) / (nn * out) if op == '_npi_std' else og * 2 * (a - m) / nn
        small = out.reshape(np.sum(a, axis=axis).shape)
        cases.append(case(f'{back}/{sn(shape)}/axis={axis}', back,
                          [og.reshape(small.shape), a, small, m.reshape(small.shape)], [g],
                          {'axis': ax(axis), 'ddof': ddof}))

# Average.
for shape, axis, wshape in [((3, 4), None, None), ((3, 4), (1,), None), ((3, 4), (0,), (3, 4)), ((2, 3, 4), (2,), (4,)),
                            ((2, 3, 4), (0, 2), (2, 3, 4))]:
    a = data(shape)
    weighted = wshape is not None
    w = rng.uniform(0.5, 2.0, size=wshape) if weighted else None
    axis_np = None if axis is None else (axis[0] if len(axis) == 1 else axis)
    r, s = np.average(a, axis=axis_np, weights=w, returned=True)
    ins = [a, w] if weighted else [a]
    p = {'axis': None if axis is None else list(axis), 'returned': True, 'weighted': weighted}
    cases.append(case(f'_npi_average/{sn(shape)}/axis={axis}/w={wshape}', '_npi_average', ins,
                      [np.asarray(r), np.broadcast_to(np.asarray(s), np.shape(r)).copy()], p))
    og = data(np.shape(r))
    ogs = data(np.shape(r))
    keep = np.sum(a, axis=axis_np, keepdims=True).shape
    wf = np.ones(shape) if w is None else (w if w.shape == a.shape else w.reshape([-1 if i == axis[0] else 1 for i in range(a.ndim)]))
    wf = np.broadcast_to(wf, shape)
    sw = np.sum(wf, axis=axis_np, keepdims=True)
    da = np.broadcast_to(og.reshape(keep), shape) * wf / sw
    outs = [da]
    if weighted:
        dw = np.broadcast_to(og.reshape(keep), shape) * (a - np.asarray(r).reshape(keep)) / sw + np.broadcast_to(ogs.reshape(keep), shape)
        if w.shape != a.shape:
            dw = dw.sum(axis=tuple(i for i in range(a.ndim) if i != axis[0]))
        outs.append(dw)
    cases.append(case(f'_backward_np_average/{sn(shape)}/axis={axis}/w={wshape}', '_backward_np_average',
                      [og, ogs] + ins + [np.asarray(r), np.broadcast_to(np.asarray(s), np.shape(r)).copy()], outs,
                      {'axis': None if axis is None else list(axis), 'returned': True, 'weighted': weighted}))
cases.append(case('_npi_average/1d-weights-no-axis', '_npi_average', [data((3, 4)), np.ones(4)],
                  error='Axis must be specified when shapes of a and weights differ', params={'weighted': True}))

# Percentile.
for method in ['linear', 'lower', 'higher', 'midpoint', 'nearest']:
    for dt in [F32, F64]:
        for shape, axis, keep in [((9,), None, False), ((4, 6), (1,), False), ((3, 4, 5), (0, 2), True)]:
            a = data(shape, dt)
            q = float(rng.choice([0, 12.5, 50, 77, 100]))
            r = np.asarray(np.percentile(a, q, axis=axis, keepdims=keep, method=method)).astype(dt)
            cases.append(case(f'_npi_percentile/{method}/{dt}/{sn(shape)}/q={q}', '_npi_percentile', [a], [r],
                              {'axis': ax(axis), 'interpolation': method, 'keepdims': keep, 'q_scalar': q}))
            qa = np.array([10.0, 50.0, 95.0])
            r = np.asarray(np.percentile(a, qa, axis=axis, keepdims=keep, method=method)).astype(dt)
            cases.append(case(f'_npi_percentile/{method}/{dt}/{sn(shape)}/q-array', '_npi_percentile', [a, qa], [r],
                              {'axis': ax(axis), 'interpolation': method, 'keepdims': keep}))
a = data((5,), 'int32')
cases.append(case('_npi_percentile/int32', '_npi_percentile', [a], [np.asarray(np.percentile(a, 40)).astype(F32)],
                  {'q_scalar': 40.0}))

# bincount / histogram / diff.
x = rng.integers(0, 6, size=15).astype('int32')
cases.append(case('_npi_bincount/int32', '_npi_bincount', [x], [np.bincount(x, minlength=8)], {'minlength': 8}))
w = data((15,))
cases.append(case('_npi_bincount/weights', '_npi_bincount', [x, w], [np.bincount(x, weights=w, minlength=6)],
                  {'minlength': 6, 'has_weights': True}))
cases.append(case('_npi_bincount/2d', '_npi_bincount', [x.reshape(3, 5)], error='object too deep', params={'minlength': 6}))
for dt in [F32, F64]:
    a = data((40,), dt)
    h, e = np.histogram(a, bins=6, range=(-2.0, 2.5))
    cases.append(case(f'_npi_histogram/{dt}/bin_cnt', '_npi_histogram', [a], [h.astype('int64'), e.astype(dt)],
                      {'bin_cnt': 6, 'range': [-2.0, 2.5]}))
    edges = np.array([-3.0, -1.0, 0.0, 0.25, 3.0], dt)
    h, e = np.histogram(a, bins=edges)
    cases.append(case(f'_histogram/{dt}/edges', '_histogram', [a, edges], [h.astype('int64'), e], {}))
cases.append(case('_histogram/bad-range', '_histogram', [data((5,))], error='max must be larger than min',
                  params={'bin_cnt': 3, 'range': [2.0, 1.0]}))
for dt in [F32, F64, 'int32']:
    for shape, n, axis in [((6,), 1, -1), ((3, 5), 2, 1), ((4, 3), 1, 0), ((3,), 4, 0)]:
        a = data(shape, dt)
        cases.append(case(f'_npi_diff/{dt}/{sn(shape)}/n={n}/axis={axis}', '_npi_diff', [a], [np.diff(a, n=n, axis=axis)],
                          {'n': n, 'axis': axis}))
for shape, n, axis in [((6,), 1, -1), ((3, 5), 2, 1), ((4, 3), 1, 0)]:
    a = data(shape)
    og = data(np.diff(a, n=n, axis=axis).shape)
    # The adjoint: d/dx sum(og * diff(x)) via the transposed difference matrix.
    L = shape[axis]
    D = np.eye(L)
    for _ in range(n):
        D = D[1:] - D[:-1]
    g = np.moveaxis(np.tensordot(np.moveaxis(og, axis, -1), D, axes=([-1], [0])), -1, axis)
    cases.append(case(f'_backward_npi_diff/{sn(shape)}/n={n}', '_backward_npi_diff', [og, a], [g], {'n': n, 'axis': axis}))
cases.append(case('_npi_diff/0d', '_npi_diff', [np.array(1.0)], error='out of bounds', params={}))

# cumsum under MXNet 2.0's name.
a = data((3, 4), F32)
cases.append(case('_npi_cumsum/axis=1', '_npi_cumsum', [a], [np.cumsum(a, axis=1)], {'axis': 1}))
cases.append(case('_npi_cumsum/flat', '_npi_cumsum', [a], [np.cumsum(a)], {}))

write('np_reduce', cases)
