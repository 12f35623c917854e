"""Op-level golden cases of the products MXNet 2.0 registers as ops and @mx lowers onto einsum:
`_npi_matmul`, `_npi_dot`, `_npi_tensordot`, `_npi_tensordot_int_axes`, `_npi_kron`, and
`_npi_trace`, with their backward ops. Imported by np_products.py (which writes them into
packages/conformance/src/__golden__/np_products.json); its own random stream keeps the einsum cases
unchanged.

Reference values: NumPy 1.24 in float64 (float32 cases cast after). Backward cases: the gradient of
sum(ograd * f(a, b)) with respect to each operand, element by element as f with that operand
replaced by a unit tensor (every product here is linear in each operand), so no gradient formula of
ours is involved. Params are MXNet 2.0's (a_axes_summed / b_axes_summed, axes, offset/axis1/axis2).
"""
import numpy as np

rng = np.random.default_rng(20260116)


def _rand(shape, dtype):
    if np.dtype(dtype).kind == 'f':
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(-4, 5, shape).astype(dtype)


FNS = {
    '_npi_matmul': (lambda p: np.matmul, '_backward_np_matmul'),
    '_npi_dot': (lambda p: np.dot, '_backward_npi_dot'),
    '_npi_kron': (lambda p: np.kron, '_backward_npi_kron'),
    '_npi_tensordot': (lambda p: (lambda a, b: np.tensordot(a, b, (p['a_axes_summed'], p['b_axes_summed']))),
                       '_backward_npi_tensordot'),
    '_npi_tensordot_int_axes': (lambda p: (lambda a, b: np.tensordot(a, b, p['axes'])),
                                '_backward_npi_tensordot_int_axes'),
}


def _grads(f, ops, og):
    grads = []
    for i, x in enumerate(ops):
        g = np.zeros(x.shape, dtype=np.float64)
        for idx in np.ndindex(*x.shape):
            e = np.zeros(x.shape, dtype=np.float64)
            e[idx] = 1.0
            args = [o.astype(np.float64) if j != i else e for j, o in enumerate(ops)]
            g[idx] = np.sum(og * f(*args))
        grads.append(g)
    return grads


def lowered_cases(case, tol):
    cases = []

    def add(name, op, shapes, params=None, dtype='float32', backward=True):
        params = params or {}
        f = FNS[op][0](params)
        a, b = (_rand(s, dtype) for s in shapes)
        out = np.asarray(f(a.astype(np.float64), b.astype(np.float64)) if dtype.startswith('float') else f(a, b))
        out = out.astype(dtype)
        k = max(1, max(a.size, b.size))
        cases.append(case(f'{op}_{name}_{dtype}', op, [a, b], [out], params=params, **tol(dtype, k)))
        if backward and dtype == 'float64':
            og = _rand(out.shape, 'float64')
            ga, gb = _grads(f, [a, b], og)
            cases.append(case(f'{FNS[op][1]}_{name}', FNS[op][1], [og, a, b], [ga, gb], params=params,
                              **tol('float64', 8)))

    for dt in ('float32', 'float64', 'int32'):
        add('mm', '_npi_matmul', [(3, 4), (4, 2)], dtype=dt)
        add('dot2d', '_npi_dot', [(3, 4), (4, 2)], dtype=dt)
        add('kron', '_npi_kron', [(2, 3), (2, 2)], dtype=dt)
    add('batch_broadcast', '_npi_matmul', [(2, 1, 3, 4), (3, 4, 2)], dtype='float64')
    add('vec_mat', '_npi_matmul', [(4,), (2, 4, 3)], dtype='float64')
    add('mat_vec', '_npi_matmul', [(2, 3, 4), (4,)], dtype='float64')
    add('vec_vec', '_npi_matmul', [(4,), (4,)], dtype='float64')
    add('zero', '_npi_matmul', [(0, 3), (3, 2)], dtype='float64')
    add('nd', '_npi_dot', [(2, 3, 4), (5, 4, 2)], dtype='float64')
    add('scalar', '_npi_dot', [(), (2, 3)], dtype='float64')
    add('vec', '_npi_dot', [(3,), (3,)], dtype='float64')
    add('pad', '_npi_kron', [(3,), (2, 2)], dtype='float64')
    add('lists', '_npi_tensordot', [(2, 3, 4), (4, 3, 2)], {'a_axes_summed': [1, 2], 'b_axes_summed': [1, 0]},
        dtype='float64')
    add('negative', '_npi_tensordot', [(2, 3), (3, 2)], {'a_axes_summed': [-1], 'b_axes_summed': [0]},
        dtype='float32')
    add('two', '_npi_tensordot_int_axes', [(2, 3, 4), (3, 4, 2)], {'axes': 2}, dtype='float64')
    add('outer', '_npi_tensordot_int_axes', [(2,), (3,)], {'axes': 0}, dtype='float64')
    add('one', '_npi_tensordot_int_axes', [(2, 3), (3, 4)], {'axes': 1}, dtype='int64')

    for name, shape, p in [('main', (3, 3), {}), ('offset', (3, 4), {'offset': 1}),
                           ('below', (4, 3), {'offset': -2}), ('batch', (2, 3, 4), {'axis1': 1, 'axis2': 2}),
                           ('axes_swapped', (3, 2, 3), {'axis1': 2, 'axis2': 0, 'offset': 1}),
                           ('past_end', (2, 3), {'offset': 5})]:
        full = {'offset': 0, 'axis1': 0, 'axis2': 1, **p}
        for dt in ('float32', 'float64', 'int32'):
            a = _rand(shape, dt)
            out = np.trace(a, full['offset'], full['axis1'], full['axis2']).astype(dt)
            cases.append(case(f'_npi_trace_{name}_{dt}', '_npi_trace', [a], [out], params=p, **tol(dt, 4)))
        a = _rand(shape, 'float64')
        og = _rand(np.shape(np.trace(a, full['offset'], full['axis1'], full['axis2'])), 'float64')
        (g,) = _grads(lambda x: np.trace(x, full['offset'], full['axis1'], full['axis2']), [a], og)
        cases.append(case(f'_backward_npi_trace_{name}', '_backward_npi_trace', [og, a], [g], params=p,
                          **tol('float64', 4)))

    def add_error(name, op, shapes, params, f):
        ops = [np.zeros(s, dtype=np.float32) for s in shapes]
        try:
            f(*ops)
        except ValueError as e:
            cases.append(case(f'{op}_error_{name}', op, ops, params=params,
                              error=str(e).split(' [original->remapped]')[0]))
            return
        raise SystemExit(f'{name}: NumPy accepted it')

    add_error('core', '_npi_matmul', [(2, 3), (4, 2)], {}, np.matmul)
    add_error('batch', '_npi_matmul', [(2, 3, 4), (3, 4, 5)], {}, np.matmul)
    add_error('aligned', '_npi_dot', [(2, 3), (4, 5)], {}, np.dot)
    add_error('sum', '_npi_tensordot_int_axes', [(2, 3), (4, 5)], {'axes': 1}, lambda a, b: np.tensordot(a, b, 1))
    add_error('sum', '_npi_tensordot', [(2, 3), (3, 2)], {'a_axes_summed': [0], 'b_axes_summed': [0]},
              lambda a, b: np.tensordot(a, b, ([0], [0])))
    add_error('ndim', '_npi_trace', [(3,)], {}, np.trace)
    return cases
