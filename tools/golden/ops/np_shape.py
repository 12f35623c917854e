"""Golden cases for the np shape family (MXNet 2.0's _npi_ joining, splitting, axis and
rearranging operators), from NumPy.

Run with Debian's NumPy (the project's reference): /usr/bin/python3 tools/golden/ops/np_shape.py
Writes packages/conformance/src/__golden__/np_shape.json.

Reference semantics (MXNet 2.0 src/operator/numpy/np_matrix_op*, np_pad_op, np_repeat_op,
tensor/matrix_op.cc aliases), expressed with NumPy:
- _npi_concatenate(num_args, dim): np.concatenate(axis=dim); dim=None flattens. _npi_stack: np.stack.
- _npi_vstack/_npi_hstack/_npi_dstack/_npi_column_stack: the NumPy functions (same dtype inputs:
  the np layer casts before calling them, as MXNet's Python does).
- _npi_split/_npi_array_split/_npi_hsplit/_npi_dsplit(indices, axis, sections): indices carry
  MXNet's leading 0 (its FFI prepends it); sections split as np.array_split.
- _npi_swapaxes(dim1, dim2), _npi_expand_dims(axis), _npi_tile(reps), _npi_repeat(repeats, axis):
  MXNet's aliases of SwapAxis, expand_dims, tile, repeat.
- _npi_moveaxis(source, destination), _npi_rollaxis(axis, start), _npi_flip(axis),
  _npi_broadcast_to(shape), _npi_squeeze(axis), _npi_atleast_{1,2,3}d(num_args): NumPy.
- _npi_roll(shift, axis), _npi_rot90(k, axes), _npi_repeats(repeats, axis): NumPy.
- _npi_pad(pad_width, mode, constant_values): np.pad with one scalar constant.
Backward ops get cases whose outputs are the adjoint computed with NumPy (np.add.at).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from common import arr, case, write  # noqa: E402

rng = np.random.default_rng(16016)
cases = []
DTYPES = ['float32', 'float64', 'int32', 'int64', 'uint8', 'bool', 'float16']


def data(shape, dtype='float32'):
    if dtype == 'bool':
        return rng.random(shape) < 0.5
    if dtype in ('int32', 'int64', 'int8'):
        return rng.integers(-9, 10, size=shape).astype(dtype)
    if dtype == 'uint8':
        return rng.integers(0, 20, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def sname(s):
    return 'x'.join(str(d) for d in s) if len(s) else 'scalar'


def add(name, op, inputs, outputs, params=None, **kw):
    cases.append(case(name, op, inputs, outputs if isinstance(outputs, list) else [outputs], params=params, **kw))


def err(name, op, inputs, message, params=None):
    cases.append(case(name, op, inputs, error=message, params=params))


# ---- joins ----------------------------------------------------------------------------------------
for dt in DTYPES:
    a, b = data((2, 3), dt), data((4, 3), dt)
    add(f'_npi_concatenate/{dt}/axis0', '_npi_concatenate', [a, b], np.concatenate([a, b], 0), {'num_args': 2, 'dim': 0})
for shapes, axis in [([(2, 3), (2, 1), (2, 0)], 1), ([(2, 3, 4), (2, 3, 4)], -1), ([(3,), (0,)], 0),
                     ([(2, 3), (3,)], None), ([(2, 2)], 0), ([(), (2,)], None)]:
    xs = [data(s) for s in shapes]
    add(f'_npi_concatenate/float32/{"-".join(sname(s) for s in shapes)}/axis{axis}', '_npi_concatenate', xs,
        np.concatenate(xs, axis=axis), {'num_args': len(xs), 'dim': axis})
err('_npi_concatenate/mismatch', '_npi_concatenate', [data((2, 3)), data((3, 2))], 'Incompatible input shape',
    {'num_args': 2, 'dim': 0})
for shapes, axis in [([(2, 3), (2, 3), (2, 3)], 0), ([(2, 3), (2, 3)], -1), ([(), ()], 0), ([(0, 2), (0, 2)], 1)]:
    xs = [data(s) for s in shapes]
    add(f'_npi_stack/float32/{"-".join(sname(s) for s in shapes)}/axis{axis}', '_npi_stack', xs,
        np.stack(xs, axis=axis), {'num_args': len(xs), 'axis': axis})
GROUPS = {
    '_npi_vstack': [[(3,), (3,)], [(2, 3), (4, 3)], [(), ()], [(2, 3, 2), (1, 3, 2)], [(0, 3), (3,)]],
    '_npi_hstack': [[(3,), (2,)], [(2, 3), (2, 1)], [(), ()], [(2, 3, 2), (2, 1, 2)]],
    '_npi_dstack': [[(3,), (3,)], [(2, 3), (2, 3)], [(), ()], [(2, 3, 2), (2, 3, 1)]],
    '_npi_column_stack': [[(3,), (3,)], [(2, 3), (2,)], [(), ()], [(2, 3, 2), (2, 1, 2)]],
}
for fn, op in [(np.vstack, '_npi_vstack'), (np.hstack, '_npi_hstack'), (np.dstack, '_npi_dstack'),
               (np.column_stack, '_npi_column_stack')]:
    for shapes in GROUPS[op]:
        for dt in (['float32', 'int32', 'bool'] if len(shapes[0]) == 1 else ['float32']):
            xs = [data(s, dt) for s in shapes]
            add(f'{op}/{dt}/{"-".join(sname(s) for s in shapes)}', op, xs, fn(xs), {'num_args': len(xs)})

# ---- splits ---------------------------------------------------------------------------------------
for dt in ['float32', 'int64', 'bool']:
    x = data((6, 4), dt)
    add(f'_npi_split/{dt}/sections3', '_npi_split', [x], np.split(x, 3, axis=0),
        {'indices': [], 'axis': 0, 'sections': 3})
x = data((5, 7))
for ind, axis in [((2, 5), 1), ((0, 3), 0), ((-2,), 1), ((4, 2), 1), ((3, 10), 1), ((), 0)]:
    outs = np.split(x, list(ind), axis=axis)
    add(f'_npi_split/float32/indices{"_".join(map(str, ind)) or "none"}/axis{axis}', '_npi_split', [x], outs,
        {'indices': [0, *ind], 'axis': axis, 'sections': 0})
for n, axis in [(3, 1), (4, 0), (7, 1), (2, -1)]:
    outs = np.array_split(x, n, axis=axis)
    add(f'_npi_array_split/float32/sections{n}/axis{axis}', '_npi_array_split', [x], outs,
        {'indices': [], 'axis': axis, 'sections': n})
z = data((0, 3))
add('_npi_array_split/float32/0x3-sections2', '_npi_array_split', [z], np.array_split(z, 2, axis=0),
    {'indices': [], 'axis': 0, 'sections': 2})
for shape in [(6,), (2, 6), (2, 6, 3)]:
    x = data(shape)
    add(f'_npi_hsplit/float32/{sname(shape)}', '_npi_hsplit', [x], np.hsplit(x, 3), {'indices': [], 'axis': 0, 'sections': 3})
x = data((2, 3, 4))
add('_npi_dsplit/float32/2x3x4', '_npi_dsplit', [x], np.dsplit(x, [1, 3]), {'indices': [0, 1, 3], 'axis': 2, 'sections': 0})
err('_npi_hsplit/0d', '_npi_hsplit', [data(())], 'hsplit only works on arrays of 1 or more dimensions',
    {'indices': [], 'axis': 0, 'sections': 1})
err('_npi_dsplit/2d', '_npi_dsplit', [data((2, 2))], 'dsplit only works on arrays of 3 or more dimensions',
    {'indices': [], 'axis': 2, 'sections': 1})
err('_npi_split/axis-out-of-range', '_npi_split', [data((2, 2))], 'out of bounds', {'indices': [], 'axis': 2, 'sections': 1})

# ---- axes -----------------------------------------------------------------------------------------
x = data((2, 3, 4))
for d1, d2 in [(0, 2), (-1, 0), (1, 1)]:
    add(f'_npi_swapaxes/float32/{d1}_{d2}', '_npi_swapaxes', [x], np.swapaxes(x, d1, d2), {'dim1': d1, 'dim2': d2})
for ax in [0, 3, -1, -4]:
    add(f'_npi_expand_dims/float32/axis{ax}', '_npi_expand_dims', [x], np.expand_dims(x, ax), {'axis': ax})
for src, dst in [((0,), (2,)), ((0, 1), (-1, -2)), ((2,), (0,)), ((), ())]:
    add(f'_npi_moveaxis/float32/{"_".join(map(str, src)) or "none"}-{"_".join(map(str, dst)) or "none"}',
        '_npi_moveaxis', [x], np.moveaxis(x, src, dst), {'source': list(src), 'destination': list(dst)})
err('_npi_moveaxis/mismatch', '_npi_moveaxis', [x], '`source` and `destination` arguments must have the same number of elements',
    {'source': [0], 'destination': [1, 2]})
err('_npi_moveaxis/repeated', '_npi_moveaxis', [x], 'repeated axis', {'source': [0, 0], 'destination': [1, 2]})
for ax, st in [(2, 0), (0, 3), (1, -1), (-1, 1), (1, 1)]:
    add(f'_npi_rollaxis/float32/{ax}_{st}', '_npi_rollaxis', [x], np.rollaxis(x, ax, st), {'axis': ax, 'start': st})
err('_npi_rollaxis/start', '_npi_rollaxis', [x], "'start' arg requires -3 <= start < 4", {'axis': 0, 'start': 5})
for dt in ['float32', 'int32', 'bool']:
    y = data((2, 3, 4), dt)
    for ax in [None, (0,), (1, 2), (-1,)]:
        add(f'_npi_flip/{dt}/{"all" if ax is None else "_".join(map(str, ax))}', '_npi_flip', [y],
            np.flip(y, ax), {'axis': None if ax is None else list(ax)})
for s, t in [((3,), (2, 3)), ((2, 1), (2, 4)), ((), (2, 2)), ((1,), (0,)), ((1, 3), (4, 0, 3)), ((2, 3), (2, 3))]:
    y = data(s)
    add(f'_npi_broadcast_to/float32/{sname(s)}-to-{sname(t)}', '_npi_broadcast_to', [y], np.broadcast_to(y, t), {'shape': list(t)})
err('_npi_broadcast_to/bad', '_npi_broadcast_to', [data((3,))], 'operands could not be broadcast together with remapped shapes',
    {'shape': [4]})
for s, ax in [((1, 3, 1), None), ((1, 3, 1), (0,)), ((1, 3, 1), (-1, 0)), ((1,), None), ((), None), ((0, 1), (1,))]:
    y = data(s)
    add(f'_npi_squeeze/float32/{sname(s)}/{"all" if ax is None else "_".join(map(str, ax))}', '_npi_squeeze', [y],
        np.squeeze(y, ax), {'axis': None if ax is None else list(ax)})
err('_npi_squeeze/not-one', '_npi_squeeze', [data((2, 1))], 'cannot select an axis to squeeze out which has size not equal to one',
    {'axis': [0]})
for n, fn in [(1, np.atleast_1d), (2, np.atleast_2d), (3, np.atleast_3d)]:
    ys = [data(()), data((3,)), data((2, 3)), data((2, 3, 1, 2))]
    add(f'_npi_atleast_{n}d/float32/mixed', f'_npi_atleast_{n}d', ys, list(fn(*ys)), {'num_args': len(ys)})
for dt in ['float32', 'int32']:
    y = data((2, 3), dt)
    for reps in [(2,), (2, 1, 3), (0, 2), ()]:
        add(f'_npi_tile/{dt}/reps{"_".join(map(str, reps)) or "none"}', '_npi_tile', [y], np.tile(y, reps), {'reps': list(reps)})
    add(f'_npi_repeat/{dt}/3-axis1', '_npi_repeat', [y], np.repeat(y, 3, axis=1), {'repeats': 3, 'axis': 1})

# ---- roll, rot90, repeats, pad --------------------------------------------------------------------
for dt in ['float32', 'int64', 'bool', 'float16']:
    y = data((3, 4, 5), dt)
    for shift, axis in [((2,), None), ((1,), (0,)), ((-3, 7), (1, 2)), ((2,), (0, 2)), ((1, 1), (1, 1)), ((0,), (1,))]:
        r = np.roll(y, shift if len(shift) > 1 else shift[0], axis=axis)
        add(f'_npi_roll/{dt}/{"_".join(map(str, shift))}/{"none" if axis is None else "_".join(map(str, axis))}', '_npi_roll',
            [y], r, {'shift': list(shift), 'axis': None if axis is None else list(axis)})
add('_npi_roll/float32/0x3', '_npi_roll', [data((0, 3))], np.roll(data((0, 3)), 1, axis=1), {'shift': [1], 'axis': [1]})
add('_npi_roll/float32/scalar', '_npi_roll', [np.array(2.5, dtype='float32')], np.array(2.5, dtype='float32'), {'shift': [3], 'axis': None})
err('_npi_roll/mismatch', '_npi_roll', [data((3, 4))], 'shape mismatch', {'shift': [1, 2, 3], 'axis': [0, 1]})
for dt in ['float32', 'int32', 'float64']:
    y = data((2, 3, 4), dt)
    for k, axes in [(1, (0, 1)), (2, (0, 1)), (3, (0, 1)), (-1, (1, 2)), (5, (2, 0)), (0, (0, 1))]:
        add(f'_npi_rot90/{dt}/k{k}/{axes[0]}_{axes[1]}', '_npi_rot90', [y], np.rot90(y, k, axes), {'k': k, 'axes': list(axes)})
err('_npi_rot90/same-axes', '_npi_rot90', [data((2, 3))], 'Axes must be different.', {'k': 1, 'axes': [1, 1]})
err('_npi_rot90/out-of-range', '_npi_rot90', [data((2, 3))], 'out of range for array of ndim=2.', {'k': 1, 'axes': [0, 5]})
for dt in ['float32', 'int32', 'bool']:
    y = data((2, 3), dt)
    for rep, axis in [((2,), None), ((1, 0, 3), 1), ((2, 1), 0), ((0,), 0), ((1, 2, 1, 1, 3, 1), None)]:
        add(f'_npi_repeats/{dt}/{"_".join(map(str, rep))}/{axis}', '_npi_repeats', [y],
            np.repeat(y, rep if len(rep) > 1 else rep[0], axis=axis), {'repeats': list(rep), 'axis': axis})
err('_npi_repeats/bad-count', '_npi_repeats', [data((2, 3))], 'operands could not be broadcast', {'repeats': [1, 2], 'axis': 1})
err('_npi_repeats/negative', '_npi_repeats', [data((2, 3))], 'negative', {'repeats': [-1], 'axis': 1})

PADS = [((1, 2), (0, 3)), ((2, 2),), ((3, 4), (5, 1))]
for mode in ['constant', 'edge', 'reflect', 'symmetric', 'maximum', 'minimum']:
    for dt in ['float32', 'int32', 'float64']:
        y = data((3, 4), dt)
        for pw in PADS:
            kw = {'constant_values': 1.5} if mode == 'constant' else {}
            r = np.pad(y, pw, mode=mode, **kw)
            add(f'_npi_pad/{dt}/{mode}/{"_".join(str(v) for row in pw for v in row)}', '_npi_pad', [y], r,
                {'pad_width': [list(p) for p in pw], 'mode': mode, **({'constant_values': 1.5} if mode == 'constant' else {})})
y = data((2, 3, 2))
for mode in ['constant', 'reflect', 'maximum']:
    add(f'_npi_pad/float32/{mode}/3d', '_npi_pad', [y], np.pad(y, ((1, 0), (2, 3), (1, 1)), mode=mode),
        {'pad_width': [[1, 0], [2, 3], [1, 1]], 'mode': mode})
add('_npi_pad/float32/constant/0x3', '_npi_pad', [data((0, 3))], np.pad(data((0, 3)), 1), {'pad_width': [[1, 1]], 'mode': 'constant'})
y1 = data((4,))
add('_npi_pad/float32/edge/1d', '_npi_pad', [y1], np.pad(y1, (2, 3), 'edge'), {'pad_width': [[2, 3]], 'mode': 'edge'})
err('_npi_pad/empty-axis', '_npi_pad', [data((0, 3))], "can't extend empty axis 0 using modes other than 'constant' or 'empty'",
    {'pad_width': [[1, 1], [0, 0]], 'mode': 'edge'})
err('_npi_pad/negative', '_npi_pad', [data((2, 3))], "index can't contain negative values", {'pad_width': [[1, -1]], 'mode': 'constant'})


# ---- backward ops (adjoints with np.add.at) -------------------------------------------------------
def adjoint(shape, index_fn, og):
    """Sum og into an array of `shape` at the input positions `index_fn` gives for each output position."""
    g = np.zeros(shape, dtype=og.dtype)
    for pos in np.ndindex(*og.shape):
        src = index_fn(pos)
        if src is not None:
            g[src] += og[pos]
    return g


for rep, axis in [((2,), None), ((1, 0, 3), 1), ((2, 1), 0)]:
    x = data((2, 3), 'float64')
    out = np.repeat(x, rep if len(rep) > 1 else rep[0], axis=axis)
    og = data(out.shape, 'float64')
    idx = np.repeat(np.arange(x.size).reshape(x.shape), rep if len(rep) > 1 else rep[0], axis=axis)
    g = np.zeros(x.size)
    np.add.at(g, idx.reshape(-1), og.reshape(-1))
    add(f'_backward_npi_repeats/float64/{"_".join(map(str, rep))}/{axis}', '_backward_npi_repeats', [og, x], g.reshape(x.shape),
        {'repeats': list(rep), 'axis': axis})
for mode in ['constant', 'edge', 'reflect', 'symmetric']:
    x = data((3, 4), 'float64')
    pw = ((2, 3), (4, 1))
    idx = np.pad(np.arange(x.size).reshape(x.shape), pw, mode=mode, **({'constant_values': -1} if mode == 'constant' else {}))
    og = data(idx.shape, 'float64')
    g = np.zeros(x.size)
    keep = idx.reshape(-1) >= 0
    np.add.at(g, idx.reshape(-1)[keep], og.reshape(-1)[keep])
    add(f'_backward_npi_pad/float64/{mode}', '_backward_npi_pad', [og], g.reshape(x.shape),
        {'pad_width': [list(p) for p in pw], 'mode': mode})
x = data((5, 7), 'float64')
parts = np.split(x, [4, 2], axis=1)
ogs = [data(p.shape, 'float64') for p in parts]
g = np.zeros_like(x)
for (s, e), o in zip([(0, 4), (4, 4), (2, 7)], ogs):
    g[:, s:e] += o
add('_split_v2_backward/float64/overlap', '_split_v2_backward', [*ogs, x], g, {'indices': [0, 4, 2], 'axis': 1, 'sections': 0})
x = data((2, 6), 'float64')
ogs = [data((2, 2), 'float64') for _ in range(3)]
add('_npi_hsplit_backward/float64/2x6', '_npi_hsplit_backward', [*ogs, x], np.concatenate(ogs, axis=1),
    {'indices': [], 'axis': 0, 'sections': 3})
for op, fn, shapes in [('_backward_np_vstack', np.vstack, [(3,), (2, 3)]), ('_backward_np_column_stack', np.column_stack, [(3,), (3, 2)]),
                       ('_backward_np_dstack', np.dstack, [(2,), (1, 2)]), ('_backward_np_concat', None, [(2, 2), (3,)])]:
    xs = [data(s, 'float64') for s in shapes]
    out = fn(xs) if fn else np.concatenate([a.reshape(-1) for a in xs])
    og = data(out.shape, 'float64')
    if fn is None:
        sizes = np.cumsum([a.size for a in xs])[:-1]
        grads = [p.reshape(a.shape) for p, a in zip(np.split(og, sizes), xs)]
        params = {'num_args': 2, 'dim': None}
    elif fn is np.vstack:
        grads = [og[0:1].reshape(3), og[1:]]
        params = {'num_args': 2}
    elif fn is np.column_stack:
        grads = [og[:, 0], og[:, 1:]]
        params = {'num_args': 2}
    else:
        grads = [og[:, :, 0].reshape(2), og[:, :, 1]]
        params = {'num_args': 2}
    add(f'{op}/float64/{"-".join(sname(s) for s in shapes)}', op, [og, *xs], grads, params)
for shapes in [[(2, 3), (2, 2)], [(2,), (3,)]]:
    xs = [data(s, 'float64') for s in shapes]
    og = data(np.hstack(xs).shape, 'float64')
    cut = shapes[0][1] if len(shapes[0]) > 1 else shapes[0][0]
    grads = [og[:, :cut], og[:, cut:]] if len(shapes[0]) > 1 else [og[:cut], og[cut:]]
    add(f'_backward_np_hstack/float64/{"-".join(sname(s) for s in shapes)}', '_backward_np_hstack', [og, *xs], grads,
        {'num_args': 2})
for ax, st in [(2, 0), (0, 3), (1, 0)]:
    fwd = np.rollaxis(np.zeros((2, 3, 4)), ax, st)
    og = data(fwd.shape, 'float64')
    # The gradient puts og back in the input's layout: the inverse of the forward permutation
    # (the input's dims are distinct, so the output's dims name the input axes).
    order = [(2, 3, 4).index(d) for d in fwd.shape]
    back = np.transpose(og, np.argsort(order))
    add(f'_npi_rollaxis_backward/float64/{ax}_{st}', '_npi_rollaxis_backward', [og], back, {'axis': ax, 'start': st})

# Gradient-check cases (float64, small): the forward ops above in float64.
for op, ins, params in [
    ('_npi_concatenate', [data((2, 3), 'float64'), data((2, 2), 'float64')], {'num_args': 2, 'dim': 1}),
    ('_npi_concatenate', [data((2, 3), 'float64'), data((3,), 'float64')], {'num_args': 2, 'dim': None}),
    ('_npi_vstack', [data((3,), 'float64'), data((2, 3), 'float64')], {'num_args': 2}),
    ('_npi_hstack', [data((2,), 'float64'), data((3,), 'float64')], {'num_args': 2}),
    ('_npi_dstack', [data((2, 2), 'float64'), data((2, 2), 'float64')], {'num_args': 2}),
    ('_npi_column_stack', [data((3,), 'float64'), data((3, 2), 'float64')], {'num_args': 2}),
    ('_npi_split', [data((5, 4), 'float64')], {'indices': [0, 1, 3], 'axis': 0, 'sections': 0}),
    ('_npi_array_split', [data((5, 4), 'float64')], {'indices': [], 'axis': 0, 'sections': 3}),
    ('_npi_roll', [data((3, 4), 'float64')], {'shift': [1, -2], 'axis': [0, 1]}),
    ('_npi_rot90', [data((3, 4), 'float64')], {'k': 1, 'axes': [0, 1]}),
    ('_npi_repeats', [data((2, 3), 'float64')], {'repeats': [1, 0, 2], 'axis': 1}),
    ('_npi_pad', [data((3, 3), 'float64')], {'pad_width': [[1, 2], [2, 1]], 'mode': 'reflect'}),
    ('_npi_pad', [data((3, 3), 'float64')], {'pad_width': [[1, 2], [2, 1]], 'mode': 'edge'}),
    ('_npi_moveaxis', [data((2, 3, 4), 'float64')], {'source': [0], 'destination': [2]}),
    ('_npi_rollaxis', [data((2, 3, 4), 'float64')], {'axis': 2, 'start': 0}),
    ('_npi_flip', [data((2, 3), 'float64')], {'axis': [1]}),
    ('_npi_broadcast_to', [data((3,), 'float64')], {'shape': [2, 3]}),
    ('_npi_squeeze', [data((1, 3), 'float64')], {'axis': None}),
    ('_npi_atleast_2d', [data((3,), 'float64')], {'num_args': 1}),
]:
    x = ins
    if op == '_npi_concatenate':
        out = np.concatenate(x, axis=params['dim'])
    elif op in ('_npi_vstack', '_npi_hstack', '_npi_dstack', '_npi_column_stack'):
        out = getattr(np, op[5:])(x)
    elif op == '_npi_split':
        out = np.split(x[0], params['indices'][1:], axis=0)
    elif op == '_npi_array_split':
        out = np.array_split(x[0], 3, axis=0)
    elif op == '_npi_roll':
        out = np.roll(x[0], params['shift'], axis=params['axis'])
    elif op == '_npi_rot90':
        out = np.rot90(x[0], 1, (0, 1))
    elif op == '_npi_repeats':
        out = np.repeat(x[0], params['repeats'], axis=1)
    elif op == '_npi_pad':
        out = np.pad(x[0], params['pad_width'], mode=params['mode'])
    elif op == '_npi_moveaxis':
        out = np.moveaxis(x[0], 0, 2)
    elif op == '_npi_rollaxis':
        out = np.rollaxis(x[0], 2, 0)
    elif op == '_npi_flip':
        out = np.flip(x[0], 1)
    elif op == '_npi_broadcast_to':
        out = np.broadcast_to(x[0], (2, 3))
    elif op == '_npi_squeeze':
        out = np.squeeze(x[0])
    else:
        out = np.atleast_2d(x[0])
    tag = params.get('mode', params.get('dim', 'x'))
    add(f'{op}/float64/grad-{tag}', op, x, out if isinstance(out, list) else [out], params)

# ---- _npx_reshape: MXNet 2.0's codes; the expected shapes are MXNet's own (test_numpy_op.py,
# test_npx_reshape), the values NumPy's reshape to them ---------------------------------------------
NPX_RESHAPE = [
    [(2, 3, 5, 5), (-2, -1), False, (2, 75)],
    [(2, 3, 5, 5), (-2, -2, -1), False, (2, 3, 25)],
    [(5, 3, 4, 5), (-2, -1, -2), False, (5, 15, 4)],
    [(2, 3, 5, 4), (-1, -2, -2), False, (8, 3, 5)],
    [(2, 3, 5, 5), (-2, -2, -2, -2), False, (2, 3, 5, 5)],
    [(2, 1, 4, 5), (-2, -3, -2, -2), False, (2, 4, 5)],
    [(1, 1, 4, 1), (-3, -3, -2, -2), False, (4, 1)],
    [(1, 1, 1, 1), (-3, -3, -3, -3), False, ()],
    [(2, 4, 5, 3), (-1, 2, 2, 1), False, (30, 2, 2, 1)],
    [(2, 3, 5, 6), (-4,), False, (2, 3, 5, 6)],
    [(2, 3, 5, 6), (6, 1, -4), False, (6, 1, 5, 6)],
    [(2, 3, 5, 6), (-5, -5), False, (6, 30)],
    [(2, 3, 5, 6), (-5, -1), False, (6, 30)],
    [(64,), (-6, 16, 4), False, (16, 4)],
    [(64,), (-6, 16, -1), False, (16, 4)],
    [(64, 1, 2, 3), (-6, 16, -1, -4), False, (16, 4, 1, 2, 3)],
    [(8, 5, 4, 6), (-4, -1, 3, -6), True, (8, 5, 4, 2, 3)],
]
for i, (shape, newshape, reverse, expect) in enumerate(NPX_RESHAPE):
    for dt in (['float32', 'int64', 'bool', 'float16'] if i == 0 else ['float32']):
        x = data(shape, dt)
        add(f'_npx_reshape/{dt}/{sname(shape)}/{newshape}/{reverse}', '_npx_reshape', [x], x.reshape(expect),
            {'newshape': list(newshape), 'reverse': reverse})
x = data((2, 3, 4), 'float64')
add('_npx_reshape/float64/grad-codes', '_npx_reshape', [x], x.reshape(6, 2, 2), {'newshape': [-5, -6, 2, -1]})
x = data((4, 6))
add('_npx_reshape/alias-npi', '_npi_reshape', [x], x.reshape(3, 8), {'newshape': [3, -1]})
add('_npx_reshape/plain', '_npx_reshape', [x], x.reshape(2, 12), {'newshape': [2, 12]})
add('_npx_reshape/zero-size', '_npx_reshape', [np.zeros((0, 3), 'float32')], np.zeros((3, 0), 'float32'),
    {'newshape': [3, 0]})
err('_npx_reshape/error/size', '_npx_reshape', [x], 'Cannot reshape array of shape (4,6) into shape (5,-1)',
    {'newshape': [5, -1]})
err('_npx_reshape/error/two-unknown', '_npx_reshape', [x], 'Can only specify one unknown dimension',
    {'newshape': [-1, -1]})
err('_npx_reshape/error/skip-non-1', '_npx_reshape', [x], '-3 index should only be used to skip dimension size 1',
    {'newshape': [-3, -2]})
err('_npx_reshape/error/split', '_npx_reshape', [x], 'Split dims 5, 0 do not divide original dim 4',
    {'newshape': [-6, 5, -1, -2]})
err('_npx_reshape/error/merge', '_npx_reshape', [x], 'Not enough dimensions left for the product',
    {'newshape': [-2, -5]})
err('_npx_reshape/error/code', '_npx_reshape', [x], 'greater than or equal to -6', {'newshape': [-7, 24]})

write('np_shape', [c for c in cases if c is not None])
