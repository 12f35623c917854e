"""Golden cases for the shape family (Reshape, Flatten, expand_dims, squeeze, transpose, SwapAxis,
broadcast_to/axis/like, Concat, stack, SliceChannel, _split_v2, slice, slice_axis, slice_like, take,
pick, one_hot, tile, repeat, reverse, Pad, diag), reshape_like, and the backward ops gradients use
(_backward_slice/_slice_axis/_slice_like/_Concat/_take/_pick/_tile/_repeat/_Pad/_diag, and
_backward_Cast, which is a cast to the second input's dtype).

A backward op's expected value is the adjoint of the NumPy forward: zeros with the slice assigned,
np.add.at for gathers, sums over tiles/repeats, and for Pad and diag Jᵀ·ograd with J's columns
computed by np.pad / np.diag / np.diagonal on unit arrays.

Expected values come from NumPy: reshape/transpose/broadcast_to/concatenate/stack/split/slicing/
take/take_along_axis/tile/repeat/flip/pad/diag/diagonal. MXNet-only conventions (reshape codes,
0 in broadcast_to, repeat with 0 repeats giving (0,), legacy squeeze keeping one axis) are spelled
out as the NumPy call they mean. Bad-input cases give a substring of the expected MXNetError.
Run: python3 tools/golden/ops/shape.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from common import case, write  # noqa: E402

rng = np.random.default_rng(20240603)
DTYPES = ['float32', 'float64', 'int32', 'int64', 'int8', 'uint8', 'bool', 'float16']


def rand(shape, dtype='float32'):
    dt = np.dtype(dtype)
    if dt.kind == 'f':
        # Multiples of 1/64: exact in every float dtype and short in JSON.
        return (rng.integers(-640, 640, shape) / 64).astype(dtype)
    if dt.kind == 'b':
        return rng.integers(0, 2, shape).astype(bool)
    if dt.kind == 'u':
        return rng.integers(0, 200, shape).astype(dtype)
    return rng.integers(-50, 50, shape).astype(dtype)


def seq(shape, dtype='float32'):
    return np.arange(int(np.prod(shape)), dtype='float64').reshape(shape).astype(dtype)


cases = []


def add(name, op, inputs, outputs=None, params=None, **kw):
    cases.append(case(name, op, inputs, outputs, params, **kw))


def err(name, op, inputs, params, error):
    cases.append(case(name, op, inputs, params=params, error=error))


# ---- Reshape ---------------------------------------------------------------------------------
RESHAPES = [
    ((2, 3, 4), (4, 0, 2), False, (4, 3, 2)),
    ((2, 3, 4), (2, 0, 0), False, (2, 3, 4)),
    ((2, 3, 4), (6, 1, -1), False, (6, 1, 4)),
    ((2, 3, 4), (3, -1, 8), False, (3, 1, 8)),
    ((2, 3, 4), (-1,), False, (24,)),
    ((2, 3, 4), (-2,), False, (2, 3, 4)),
    ((2, 3, 4), (2, -2), False, (2, 3, 4)),
    ((2, 3, 4), (-2, 1, 1), False, (2, 3, 4, 1, 1)),
    ((2, 3, 4), (-3, 4), False, (6, 4)),
    ((2, 3, 4, 5), (-3, -3), False, (6, 20)),
    ((2, 3, 4), (0, -3), False, (2, 12)),
    ((2, 3, 4), (-3, -2), False, (6, 4)),
    ((2, 3, 4), (-4, 1, 2, -2), False, (1, 2, 3, 4)),
    ((2, 3, 4), (2, -4, -1, 3, -2), False, (2, 1, 3, 4)),
    ((10, 5, 4), (-1, 0), True, (50, 4)),
    ((10, 5, 4), (-1, 0), False, (40, 5)),
    ((10, 10), (-1,), False, (100,)),  # catalog §12 item 26: works
    ((0, 3), (-1,), False, (0,)),
    ((0, 3), (3, -1), False, (3, 0)),
    ((), (1, 1), False, (1, 1)),
]
for i, (ish, spec, rev, osh) in enumerate(RESHAPES):
    x = rand(ish)
    p = {'shape': list(spec)}
    if rev:
        p['reverse'] = True
    add(f'Reshape/{i}/{ish}->{spec}{"/rev" if rev else ""}', 'Reshape', [x], [x.reshape(osh)], p)
x = rand((2, 3, 4))
add('Reshape/string-params', 'Reshape', [x], [x.reshape(4, 3, 2)], {'shape': '(4, 0, 2)', 'reverse': 'False'})
add('reshape/alias', 'reshape', [x], [x.reshape(6, 4)], {'shape': [6, -1]})
add('Reshape/legacy-target_shape', 'Reshape', [x], [x.reshape(6, 4)], {'target_shape': [6, 0]})
for dt in DTYPES:
    x = rand((3, 4), dt)
    add(f'Reshape/dtype/{dt}', 'Reshape', [x], [x.reshape(2, 6)], {'shape': [2, -1]})
x10 = rand((10, 10))
err('Reshape/err/size-(1,)', 'Reshape', [x10], {'shape': [1]}, 'Target shape size is different to source')
err('Reshape/err/size-(-1,3)', 'Reshape', [x10], {'shape': [-1, 3]}, 'Target shape size is different to source')
err('Reshape/err/two-infer', 'Reshape', [x10], {'shape': [-1, -1]}, 'One and only one dim can be inferred')
err('Reshape/err/split-both-infer', 'Reshape', [x10], {'shape': [-4, -1, -1, 0]}, 'Split dims cannot both be -1')
err('Reshape/err/split-not-divide', 'Reshape', [x10], {'shape': [-4, 3, 4, 0]}, 'do not divide original dim 10')
err('Reshape/err/bad-code', 'Reshape', [x10], {'shape': [-7, 10]}, 'invalid shape code -7')
err('Reshape/err/bad-param', 'Reshape', [x10], {'shape': [10, 10], 'shapes': [1]}, "Cannot find argument 'shapes'")

# ---- Flatten / expand_dims / squeeze ---------------------------------------------------------
for sh in [(2, 3, 4), (5,), (0, 3), (2, 0, 3), (3, 1)]:
    x = rand(sh)
    add(f'Flatten/{sh}', 'Flatten', [x], [x.reshape(sh[0], -1) if sh[0] else x.reshape(0, int(np.prod(sh[1:])))])
x = rand((2, 3, 4), 'int32')
add('flatten/alias/int32', 'flatten', [x], [x.reshape(2, 12)])
err('Flatten/err/0-d', 'Flatten', [np.float32(1)], {}, 'at least 1 dimension')

for ax in [0, 1, 2, -1, -3]:
    x = rand((2, 3))
    add(f'expand_dims/axis={ax}', 'expand_dims', [x], [np.expand_dims(x, ax)], {'axis': ax})
add('expand_dims/0-d', 'expand_dims', [np.float32(2.5)], [np.array([2.5], 'float32')], {'axis': 0})
add('expand_dims/zero-size', 'expand_dims', [rand((0, 2))], [np.zeros((0, 1, 2), 'float32')], {'axis': 1})
err('expand_dims/err/axis=3', 'expand_dims', [rand((2, 3))], {'axis': 3}, 'axis must be in the range [-3, 2]')
err('expand_dims/err/axis=-4', 'expand_dims', [rand((2, 3))], {'axis': -4}, 'axis must be in the range')

x = rand((1, 3, 1, 2))
add('squeeze/all', 'squeeze', [x], [np.squeeze(x)])
add('squeeze/axis=0', 'squeeze', [x], [np.squeeze(x, 0)], {'axis': [0]})
add('squeeze/axis=(0,2)', 'squeeze', [x], [np.squeeze(x, (0, 2))], {'axis': [0, 2]})
add('squeeze/axis=-2', 'squeeze', [x], [np.squeeze(x, -2)], {'axis': '(-2,)'})
# MXNet's legacy squeeze keeps one axis when all are squeezed out: (1, 1) -> (1,).
add('squeeze/all-ones-keeps-one', 'squeeze', [np.array([[7.0]], 'float32')], [np.array([7.0], 'float32')])
add('squeeze/zero-size', 'squeeze', [rand((0, 1, 2))], [np.zeros((0, 2), 'float32')])
err('squeeze/err/not-one', 'squeeze', [x], {'axis': [1]}, 'cannot select an axis to squeeze out which has size=3')
err('squeeze/err/out-of-range', 'squeeze', [x], {'axis': [4]}, 'axis 4 is out of bounds for array of dimension 4')

# ---- transpose / SwapAxis --------------------------------------------------------------------
for sh, axes in [((2, 3), ()), ((2, 3, 4), ()), ((2, 3, 4), (1, 0, 2)), ((2, 3, 4), (2, 0, 1)),
                 ((2, 3, 4), (0, 2, 1)), ((2, 3, 4), (-1, 0, 1)), ((2, 3, 4, 5), (0, 2, 3, 1)),
                 ((3, 1, 4, 1, 2), (4, 2, 0, 3, 1)), ((40, 70), (1, 0)), ((3, 33, 65), (0, 2, 1)),
                 ((0, 3), (1, 0)), ((5,), (0,))]:
    x = rand(sh)
    add(f'transpose/{sh}/{axes}', 'transpose', [x], [np.transpose(x, axes or None)], {'axes': list(axes)})
for dt in DTYPES:
    x = rand((17, 40), dt)
    add(f'transpose/dtype/{dt}', 'transpose', [x], [x.T])
    x = rand((2, 3, 4), dt)
    add(f'transpose/dtype3/{dt}', 'transpose', [x], [np.transpose(x, (2, 0, 1))], {'axes': [2, 0, 1]})
add('transpose/0-d', 'transpose', [np.float32(3)], [np.float32(3)])
X = np.array([[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]], 'float32')
# catalog §12 item 10: moveaxis(X, 0, 2) and moveaxis(X, 2, 0) through transpose.
add('transpose/moveaxis(X,0,2)', 'transpose', [X], [np.moveaxis(X, 0, 2)], {'axes': [1, 2, 0]})
add('transpose/moveaxis(X,2,0)', 'transpose', [X], [np.moveaxis(X, 2, 0)], {'axes': [2, 0, 1]})
err('transpose/err/length', 'transpose', [rand((2, 3))], {'axes': [0, 1, 2]}, 'has 3 entries but the input has 2 dimensions')
err('transpose/err/repeat', 'transpose', [rand((2, 3))], {'axes': [0, 0]}, 'repeated axis 0')
err('transpose/err/range', 'transpose', [rand((2, 3))], {'axes': [0, 2]}, 'out of bounds for array of dimension 2')

for d1, d2 in [(0, 2), (2, 0), (1, -1), (0, 0), (-3, 1)]:
    x = rand((2, 3, 4))
    add(f'SwapAxis/{d1},{d2}', 'SwapAxis', [x], [np.swapaxes(x, d1, d2)], {'dim1': d1, 'dim2': d2})
x = rand((4, 5), 'int64')
add('swapaxes/alias/int64', 'swapaxes', [x], [x.T], {'dim1': 0, 'dim2': 1})
err('SwapAxis/err/range', 'SwapAxis', [rand((2, 3))], {'dim1': 0, 'dim2': 2}, 'dim2 2 is out of bounds')

# ---- broadcasts -------------------------------------------------------------------------------
for ish, tgt, osh in [((1, 3), (4, 3), (4, 3)), ((2, 1, 1), (2, 3, 4), (2, 3, 4)), ((2, 1), (0, 5), (2, 5)),
                      ((1, 0), (3, 0), (3, 0)), ((3,), (3,), (3,)), ((1, 1), (70, 33), (70, 33))]:
    x = rand(ish)
    add(f'broadcast_to/{ish}->{tgt}', 'broadcast_to', [x], [np.broadcast_to(x, osh)], {'shape': list(tgt)})
for dt in DTYPES:
    x = rand((3, 1), dt)
    add(f'broadcast_to/dtype/{dt}', 'broadcast_to', [x], [np.broadcast_to(x, (3, 5))], {'shape': [3, 5]})
err('broadcast_to/err/ndim', 'broadcast_to', [rand((2, 3))], {'shape': [4, 2, 3]}, 'cannot be broadcasted to (4, 2, 3)')
err('broadcast_to/err/dim', 'broadcast_to', [rand((2, 3))], {'shape': [4, 3]}, 'Array cannot be broadcasted from (2, 3) to (4, 3)')

x = rand((1, 3, 1))
add('broadcast_axis/(0,2)', 'broadcast_axis', [x], [np.broadcast_to(x, (2, 3, 4))], {'axis': [0, 2], 'size': [2, 4]})
add('broadcast_axes/alias/-1', 'broadcast_axes', [x], [np.broadcast_to(x, (1, 3, 5))], {'axis': [-1], 'size': [5]})
err('broadcast_axis/err/not-one', 'broadcast_axis', [x], {'axis': [1], 'size': [4]}, 'Broadcasting axis must have size 1')
err('broadcast_axis/err/len', 'broadcast_axis', [x], {'axis': [0, 2], 'size': [4]}, 'axis and size must have the same length')

x = rand((1, 3))
add('broadcast_like/full', 'broadcast_like', [x, rand((4, 3))], [np.broadcast_to(x, (4, 3))])
add('broadcast_like/axes', 'broadcast_like', [x, rand((2, 3, 5))], [np.broadcast_to(x, (5, 3))],
    {'lhs_axes': [0], 'rhs_axes': [2]})
err('broadcast_like/err', 'broadcast_like', [rand((2, 3)), rand((4, 3))], {}, 'Array cannot be broadcasted from (2, 3) to (4, 3)')

# ---- Concat / stack / split ----------------------------------------------------------------
a, b, c = rand((2, 3)), rand((2, 4)), rand((2, 1))
add('Concat/dim=1/3-inputs', 'Concat', [a, b, c], [np.concatenate([a, b, c], 1)], {'num_args': 3})
a2, b2 = rand((1, 3)), rand((4, 3))
add('Concat/dim=0', 'Concat', [a2, b2], [np.concatenate([a2, b2], 0)], {'num_args': 2, 'dim': 0})
add('concat/alias/dim=-1', 'concat', [a, b], [np.concatenate([a, b], -1)], {'num_args': 2, 'dim': -1})
add('Concat/num_args=1', 'Concat', [a], [a], {'num_args': 1})
add('Concat/zero-size-input', 'Concat', [a, rand((2, 0))], [a], {'num_args': 2})
big = [rand((3, 40, 20)), rand((3, 10, 20))]
add('Concat/big-runs', 'Concat', big, [np.concatenate(big, 1)], {'num_args': 2})
for dt in DTYPES:
    p, q = rand((2, 2, 3), dt), rand((2, 1, 3), dt)
    add(f'Concat/dtype/{dt}', 'Concat', [p, q], [np.concatenate([p, q], 1)], {'num_args': 2})
err('Concat/err/mismatch', 'Concat', [rand((2, 3)), rand((3, 3))], {'num_args': 2}, 'Incompatible input shape')
err('Concat/err/dim', 'Concat', [rand((2, 3)), rand((2, 3))], {'num_args': 2, 'dim': 2}, 'dim 2 is out of bounds')

for ax in [0, 1, 2, -1]:
    xs = [rand((2, 3)) for _ in range(3)]
    add(f'stack/axis={ax}', 'stack', xs, [np.stack(xs, ax)], {'num_args': 3, 'axis': ax})
for dt in ['float64', 'int8', 'float16', 'bool']:
    xs = [rand((2, 2), dt) for _ in range(2)]
    add(f'stack/dtype/{dt}', 'stack', xs, [np.stack(xs, 1)], {'num_args': 2, 'axis': 1})
err('stack/err/mismatch', 'stack', [rand((2, 3)), rand((3, 2))], {'num_args': 2}, 'All input shapes must be the same')

x = rand((4, 6))
add('SliceChannel/axis=1', 'SliceChannel', [x], np.split(x, 3, 1), {'num_outputs': 3})
add('split/alias/axis=0', 'split', [x], np.split(x, 2, 0), {'num_outputs': 2, 'axis': 0})
add('SliceChannel/axis=-1', 'SliceChannel', [x], np.split(x, 2, -1), {'num_outputs': 2, 'axis': -1})
x3 = rand((2, 3, 2))
add('SliceChannel/squeeze', 'SliceChannel', [x3], [s.squeeze(1) for s in np.split(x3, 3, 1)],
    {'num_outputs': 3, 'squeeze_axis': True})
for dt in ['int64', 'uint8', 'float16']:
    x = rand((2, 4), dt)
    add(f'SliceChannel/dtype/{dt}', 'SliceChannel', [x], np.split(x, 2, 1), {'num_outputs': 2})
err('SliceChannel/err/divide', 'SliceChannel', [rand((4, 6))], {'num_outputs': 4}, '4 does not evenly divide 6')
err('SliceChannel/err/squeeze', 'SliceChannel', [rand((4, 6))], {'num_outputs': 2, 'squeeze_axis': 1},
    'If squeeze axis is True, the size of the sliced axis must be the same as num_outputs')

x = rand((2, 5))
add('_split_v2/indices', '_split_v2', [x], np.split(x, [2, 3], 1), {'indices': [0, 2, 3]})
x = rand((4, 3))
add('_split_v2/sections', '_split_v2', [x], np.split(x, 2, 0), {'indices': [], 'sections': 2, 'axis': 0})
x = rand((3, 2))
add('_split_v2/squeeze', '_split_v2', [x], [s.squeeze(0) for s in np.split(x, 3, 0)],
    {'indices': [0, 1, 2], 'axis': 0, 'squeeze_axis': True})
err('_split_v2/err/order', '_split_v2', [rand((2, 5))], {'indices': [0, 3, 2]}, 'is not less than end')

# ---- slice / slice_axis / slice_like ---------------------------------------------------------
N = None
SLICES = [
    ((3, 4), (0, 1), (2, 3), ()), ((3, 4), (N, 1), (N, 3), ()), ((3, 4), (-2,), (N,), ()),
    ((5, 6), (0, 1), (5, 6), (2, 2)), ((5,), (N,), (N,), (-1,)), ((5, 6), (4, N), (0, N), (-2, N)),
    ((5,), (-10,), (10,), ()), ((5,), (3,), (1,), ()), ((5,), (10,), (N,), (-1,)), ((5,), (-10,), (N,), (-1,)),
    ((4, 5, 6), (1, N, -1), (N, 3, 0), (1, 2, -2)), ((0, 3), (0,), (N,), ()), ((6, 70), (N, 3), (N, 67), (N, 1)),
]
for i, (sh, bg, en, st) in enumerate(SLICES):
    x = rand(sh)
    idx = tuple(slice(bg[k], en[k], st[k] if st else None) for k in range(len(bg)))
    p = {'begin': list(bg), 'end': list(en)}
    if st:
        p['step'] = list(st)
    add(f'slice/{i}/{sh}/{bg}:{en}:{st}', 'slice', [x], [x[idx]], p)
for dt in DTYPES:
    x = rand((4, 5), dt)
    add(f'slice/dtype/{dt}', 'slice', [x], [x[1:4:2, ::-2]], {'begin': [1, N], 'end': [4, N], 'step': [2, -2]})
x = rand((3, 4))
add('crop/alias', 'crop', [x], [x[1:, :2]], {'begin': '(1, None)', 'end': '(None, 2)'})
err('slice/err/step0', 'slice', [x], {'begin': [0], 'end': [2], 'step': [0]}, 'step[0] cannot be 0')
err('slice/err/len', 'slice', [x], {'begin': [0, 1], 'end': [2]}, 'begin and end must have the same length')
err('slice/err/too-many', 'slice', [x], {'begin': [0, 0, 0], 'end': [1, 1, 1]}, 'Slicing axis exceeds data dimensions')

x = rand((3, 5, 2))
for ax, bg, en in [(1, 1, 3), (1, 2, None), (0, -2, None), (-1, 0, 1), (1, -4, -1)]:
    sl = [slice(None)] * 3
    sl[ax] = slice(bg, en)
    add(f'slice_axis/{ax}/{bg}:{en}', 'slice_axis', [x], [x[tuple(sl)]], {'axis': ax, 'begin': bg, 'end': en})
err('slice_axis/err/begin>=end', 'slice_axis', [x], {'axis': 1, 'begin': 3, 'end': 2}, 'Invalid begin, end')
err('slice_axis/err/end', 'slice_axis', [x], {'axis': 1, 'begin': 0, 'end': 7}, 'Invalid end for end=7 as axis_size is 5')
err('slice_axis/err/axis', 'slice_axis', [x], {'axis': 3, 'begin': 0, 'end': 1}, 'axis 3 is out of bounds')
err('slice_axis/err/end-required', 'slice_axis', [x], {'axis': 0, 'begin': 0}, 'Required parameter end')

x = rand((3, 4))
add('slice_like/all', 'slice_like', [x, rand((2, 3))], [x[:2, :3]])
add('slice_like/axes=(1,)', 'slice_like', [x, rand((2, 3))], [x[:, :3]], {'axes': [1]})
add('slice_like/axes=(-1,)', 'slice_like', [x, rand((5, 2))], [x[:, :2]], {'axes': [-1]})
err('slice_like/err/too-big', 'slice_like', [x, rand((4, 3))], {}, 'exceeds limit of input with size 3')

# ---- take / pick / one_hot -------------------------------------------------------------------
a = rand((4, 3))
add('take/axis=0', 'take', [a, np.array([0, 2, 1], 'int32')], [np.take(a, [0, 2, 1], 0)])
add('take/axis=1', 'take', [a, np.array([2, 0], 'int64')], [np.take(a, [2, 0], 1)], {'axis': 1})
add('take/axis=-1/2-d-idx', 'take', [a, np.array([[0, 1], [2, 2]], 'float32')], [np.take(a, [[0, 1], [2, 2]], -1)],
    {'axis': -1})
add('take/clip', 'take', [a, np.array([-1, 5, 3], 'int32')], [np.take(a, [-1, 5, 3], 0, mode='clip')])
add('take/wrap', 'take', [a, np.array([-1, 5, 7], 'int32')], [np.take(a, [-1, 5, 7], 0, mode='wrap')], {'mode': 'wrap'})
add('take/float-idx-truncates', 'take', [a, np.array([0.9, 2.7], 'float64')], [np.take(a, [0, 2], 0)])
add('take/empty-idx', 'take', [a, np.zeros((0,), 'int32')], [np.zeros((0, 3), 'float32')])
add('take/raise-ok', 'take', [a, np.array([3, 0], 'int32')], [np.take(a, [3, 0], 0)], {'mode': 'raise'})
v = rand((6,))
add('take/1-d', 'take', [v, np.array([5, 0, 0], 'int32')], [v[[5, 0, 0]]])
a3 = rand((2, 30, 24))
add('take/big-blocks', 'take', [a3, np.array([29, 0, 7], 'int32')], [np.take(a3, [29, 0, 7], 1)], {'axis': 1})
for dt in DTYPES:
    x = rand((3, 4), dt)
    add(f'take/dtype/{dt}', 'take', [x, np.array([2, 0], 'int32')], [np.take(x, [2, 0], 0)])
err('take/err/raise', 'take', [a, np.array([0, 4], 'int32')], {'mode': 'raise'}, 'Take indices contains indices out of bound')
err('take/err/raise-negative', 'take', [a, np.array([-1], 'int32')], {'mode': 'raise'}, 'out of bound')
err('take/err/axis', 'take', [a, np.array([0], 'int32')], {'axis': 2}, 'Axis should be in the range of [-r, r-1]')
err('take/err/mode', 'take', [a, np.array([0], 'int32')], {'mode': 'nearest'}, "Invalid Input: 'nearest'")

x = rand((3, 4))
i1 = np.array([0, 2, 1], 'int32')
add('pick/axis=-1', 'pick', [x, i1], [np.take_along_axis(x, i1[:, None], 1)[:, 0]])
i0 = np.array([2, 0, 1, 1], 'float32')
add('pick/axis=0', 'pick', [x, i0], [np.take_along_axis(x, i0.astype(int)[None, :], 0)[0]], {'axis': 0})
add('pick/keepdims', 'pick', [x, i1.reshape(3, 1)], [np.take_along_axis(x, i1[:, None], 1)], {'keepdims': True})
ic = np.array([-3, 9, 2], 'int64')
add('pick/clip', 'pick', [x, ic], [np.take_along_axis(x, np.clip(ic, 0, 3)[:, None], 1)[:, 0]])
add('pick/wrap', 'pick', [x, ic], [np.take_along_axis(x, np.mod(ic, 4)[:, None], 1)[:, 0]], {'mode': 'wrap'})
for dt in ['float64', 'int64', 'int8', 'float16', 'bool']:
    y = rand((2, 3), dt)
    add(f'pick/dtype/{dt}', 'pick', [y, np.array([1, 2], 'int32')], [y[[0, 1], [1, 2]]])
err('pick/err/axis', 'pick', [x, i1], {'axis': 2}, 'axis 2 is out of bounds')
err('pick/err/index-shape', 'pick', [x, np.array([0, 1], 'int32')], {}, 'Shape inconsistent')
err('pick/err/axis-none', 'pick', [x, i1], {'axis': None}, 'axis=None is not supported by pick')

ind = np.array([1, 0, 2], 'int32')
add('one_hot/basic', 'one_hot', [ind], [np.eye(3, dtype='float32')[ind]], {'depth': 3})
ind2 = np.array([[1, -1], [3, 0]], 'float32')
oh = np.zeros((2, 2, 3), 'float32')
for (r_, c_), k in np.ndenumerate(ind2):
    if 0 <= k < 3:
        oh[r_, c_, int(k)] = 1
add('one_hot/out-of-range', 'one_hot', [ind2], [oh], {'depth': 3})
add('one_hot/on-off-int32', 'one_hot', [ind], [np.where(np.eye(4)[ind] > 0, 5, -2).astype('int32')],
    {'depth': 4, 'on_value': 5, 'off_value': -2, 'dtype': 'int32'})
add('one_hot/float64', 'one_hot', [np.array([0, 1], 'int64')], [np.eye(2)[[0, 1]] * 2.5], {'depth': 2, 'on_value': 2.5, 'dtype': 'float64'})
add('one_hot/float16', 'one_hot', [np.array([1], 'int32')], [np.array([[0, 1]], 'float16')], {'depth': 2, 'dtype': 'float16'})

# ---- tile / repeat / reverse -----------------------------------------------------------------
x = rand((2, 3))
for reps in [(2,), (2, 2), (2, 1, 2), (1,), (), (0, 2), (3, 1)]:
    add(f'tile/{reps}', 'tile', [x], [np.tile(x, reps) if reps else x], {'reps': list(reps)})
add('tile/0-d', 'tile', [np.float32(4)], [np.tile(np.float32(4), (3,))], {'reps': [3]})
for dt in ['float64', 'int64', 'uint8', 'float16', 'bool']:
    y = rand((2, 2), dt)
    add(f'tile/dtype/{dt}', 'tile', [y], [np.tile(y, (2, 3))], {'reps': [2, 3]})
err('tile/err/negative', 'tile', [x], {'reps': [-1]}, 'reps must be non-negative')

for rep, ax in [(2, None), (3, 0), (2, 1), (2, -1)]:
    add(f'repeat/{rep}/{ax}', 'repeat', [x], [np.repeat(x, rep, ax)], {'repeats': rep, 'axis': ax})
add('repeat/zero', 'repeat', [x], [np.zeros((0,), 'float32')], {'repeats': 0, 'axis': 1})
for dt in ['int32', 'int8', 'float16']:
    y = rand((2, 2), dt)
    add(f'repeat/dtype/{dt}', 'repeat', [y], [np.repeat(y, 2, 0)], {'repeats': 2, 'axis': 0})
err('repeat/err/negative', 'repeat', [x], {'repeats': -1}, 'repeats cannot be a negative number')
err('repeat/err/axis', 'repeat', [x], {'repeats': 2, 'axis': 2}, 'axis = 2 out of bounds')

x = rand((3, 4, 2))
for axes in [(0,), (1,), (0, 1), (-1,), (0, 1, 2), (1, 1)]:
    exp = x
    for a_ in axes:
        exp = np.flip(exp, a_)
    add(f'reverse/{axes}', 'reverse', [x], [exp], {'axis': list(axes)})
for dt in ['float64', 'int64', 'int8', 'float16']:
    y = rand((3, 5), dt)
    add(f'flip/alias/dtype/{dt}', 'flip', [y], [y[:, ::-1]], {'axis': [1]})
err('reverse/err/axis', 'reverse', [x], {'axis': [3]}, 'axis 3 is out of bounds')

# ---- Pad / diag ------------------------------------------------------------------------------
x = rand((1, 2, 3, 3))
pw = (0, 0, 0, 0, 1, 2, 2, 1)
npw = [(pw[2 * i], pw[2 * i + 1]) for i in range(4)]
add('Pad/constant', 'Pad', [x], [np.pad(x, npw, constant_values=1.5)], {'mode': 'constant', 'pad_width': list(pw), 'constant_value': 1.5})
add('Pad/edge', 'Pad', [x], [np.pad(x, npw, mode='edge')], {'mode': 'edge', 'pad_width': list(pw)})
add('pad/alias/reflect', 'pad', [x], [np.pad(x, npw, mode='reflect')], {'mode': 'reflect', 'pad_width': list(pw)})
x5 = rand((1, 1, 3, 4, 2))
pw5 = (0, 0, 0, 0, 2, 1, 0, 3, 1, 1)
npw5 = [(pw5[2 * i], pw5[2 * i + 1]) for i in range(5)]
for mode in ['constant', 'edge', 'reflect']:
    exp = np.pad(x5, npw5, mode=mode) if mode != 'constant' else np.pad(x5, npw5)
    add(f'Pad/5-d/{mode}', 'Pad', [x5], [exp], {'mode': mode, 'pad_width': list(pw5)})
for dt in ['float64', 'int32', 'int64', 'uint8', 'float16']:
    y = rand((1, 1, 2, 3), dt)
    p4 = [(0, 0), (0, 0), (1, 1), (2, 1)]
    add(f'Pad/dtype/{dt}/edge', 'Pad', [y], [np.pad(y, p4, mode='edge')], {'mode': 'edge', 'pad_width': [0, 0, 0, 0, 1, 1, 2, 1]})
    add(f'Pad/dtype/{dt}/constant', 'Pad', [y], [np.pad(y, p4, constant_values=3)],
        {'mode': 'constant', 'pad_width': [0, 0, 0, 0, 1, 1, 2, 1], 'constant_value': 3})
err('Pad/err/3-d', 'Pad', [rand((2, 3, 3))], {'mode': 'constant', 'pad_width': [0, 0, 0, 0, 1, 1]}, 'only supports 4-D or 5-D input')
err('Pad/err/first-axes', 'Pad', [x], {'mode': 'constant', 'pad_width': [0, 0, 1, 0, 1, 1, 1, 1]},
    'expects padding on the first two axes to be zero')
err('Pad/err/spec-length', 'Pad', [x], {'mode': 'edge', 'pad_width': [0, 0, 0, 0, 1, 1]}, 'Input shape vs padding spec mismatch')
err('Pad/err/reflect-size', 'Pad', [x], {'mode': 'reflect', 'pad_width': [0, 0, 0, 0, 3, 0, 0, 0]},
    'only supports padding sizes smaller than the input size')
err('Pad/err/mode-required', 'Pad', [x], {'pad_width': list(pw)}, 'Required parameter mode')

v = rand((3,))
for k in [0, 1, -2]:
    add(f'diag/1-d/k={k}', 'diag', [v], [np.diag(v, k)], {'k': k})
m = rand((3, 4))
for k in [0, 1, -1, 5, -3]:
    add(f'diag/2-d/k={k}', 'diag', [m], [np.diagonal(m, k).copy()], {'k': k})
t = rand((2, 3, 4))
add('diag/3-d/axes=1,2', 'diag', [t], [np.diagonal(t, 1, 1, 2).copy()], {'k': 1, 'axis1': 1, 'axis2': 2})
add('diag/3-d/axes=-1,0', 'diag', [t], [np.diagonal(t, -1, -1, 0).copy()], {'k': -1, 'axis1': -1, 'axis2': 0})
for dt in ['int64', 'int8', 'float16', 'bool']:
    y = rand((3, 3), dt)
    add(f'diag/dtype/{dt}', 'diag', [y], [np.diagonal(y).copy()])
    w = rand((2,), dt)
    add(f'diag/dtype/{dt}/1-d', 'diag', [w], [np.diag(w, 1)], {'k': 1})
err('diag/err/same-axis', 'diag', [t], {'axis1': 1, 'axis2': -2}, 'axis1 and axis2 cannot refer to the same axis')
err('diag/err/0-d', 'diag', [np.float32(1)], {}, 'Input must be 1- or 2-d')

# ---- reshape_like and the backward ops ---------------------------------------------------------
brng = np.random.default_rng(20240917)


def brand(shape, dtype='float32'):
    dt = np.dtype(dtype)
    if dt.kind == 'f':
        return (brng.integers(-640, 640, shape) / 64).astype(dtype)
    return brng.integers(-50, 50, shape).astype(dtype)


def adjoint(f, in_shape, og):
    """Jᵀ·og for the linear map f (a NumPy forward), one unit input at a time."""
    out = np.zeros(int(np.prod(in_shape)), dtype=np.float64)
    for i in range(out.size):
        e = np.zeros(out.size)
        e[i] = 1
        out[i] = np.sum(f(e.reshape(in_shape)) * og.astype(np.float64))
    return out.reshape(in_shape).astype(og.dtype)


for lb, le, rb, re_, ls, rs, want in [
    (None, None, None, None, (6,), (2, 3), (2, 3)),
    (0, 1, 0, 2, (30, 7), (15, 2, 4), (15, 2, 7)),
    (0, 2, 1, 2, (3, 5), (1, 15, 4), (15,)),
    (-1, None, 1, None, (30, 12), (4, 2, 2, 3), (30, 2, 2, 3)),
]:
    p = {k: v for k, v in [('lhs_begin', lb), ('lhs_end', le), ('rhs_begin', rb), ('rhs_end', re_)] if v is not None}
    for dt in ['float32', 'int64']:
        a = brand(ls, dt)
        add(f'reshape_like/{ls}->{want}/{dt}', 'reshape_like', [a, brand(rs, 'float64')], [a.reshape(want)], p)
add('_npx_reshape_like/alias', '_npx_reshape_like', [seq((4,)), seq((2, 2), 'int32')], [seq((2, 2))])
err('reshape_like/err/size', 'reshape_like', [seq((6,)), seq((2, 2))], {}, 'Cannot reshape lhs with shape (6,)')
err('reshape_like/err/range', 'reshape_like', [seq((6,)), seq((2, 3))], {'lhs_begin': 1, 'lhs_end': 1},
    'Invalid begin, end, get lhs_begin=1, lhs_end=1')
err('reshape_like/err/end', 'reshape_like', [seq((6,)), seq((2, 3))], {'rhs_end': 3},
    'Invalid end for rhs_end=3 as dimension number is 2')

# _backward_slice: zeros with ograd assigned to the slice.
for dt in ['float32', 'float64', 'int32', 'int64']:
    d = brand((4, 3, 5), dt)
    for name, p, sl in [
        ('basic', {'begin': [1, 0], 'end': [3, 2]}, (slice(1, 3), slice(0, 2))),
        ('steps', {'begin': [None, 2, 4], 'end': [None, None, 0], 'step': [2, -1, -2]},
         (slice(None, None, 2), slice(2, None, -1), slice(4, 0, -2))),
        ('negative', {'begin': [-2], 'end': [None]}, (slice(-2, None),)),
    ]:
        og = brand(d[sl].shape, dt)
        y = np.zeros_like(d)
        y[sl] = og
        add(f'_backward_slice/{name}/{dt}', '_backward_slice', [og, d], [y], p)
err('_backward_slice/err/ograd', '_backward_slice', [brand((2, 2)), brand((4, 3))], {'begin': [1], 'end': [3]},
    'ograd has shape (2, 2) but slice gives (2, 3)')
err('_backward_slice/err/step', '_backward_slice', [brand((2, 3)), brand((4, 3))],
    {'begin': [1], 'end': [3], 'step': [0]}, 'step[0] cannot be 0')

for dt in ['float32', 'int32']:
    d = brand((3, 5), dt)
    for axis, b, e in [(1, 1, 4), (-2, -2, None), (0, 0, 1)]:
        sl = [slice(None)] * 2
        sl[axis] = slice(b, e)
        og = brand(d[tuple(sl)].shape, dt)
        y = np.zeros_like(d)
        y[tuple(sl)] = og
        add(f'_backward_slice_axis/{axis},{b},{e}/{dt}', '_backward_slice_axis', [og, d], [y],
            {'axis': axis, 'begin': b, 'end': e})
err('_backward_slice_axis/err/end', '_backward_slice_axis', [brand((3, 2)), brand((3, 5))],
    {'axis': 1, 'begin': 4, 'end': 2}, 'Invalid begin, end')

for dt in ['float64', 'int64']:
    d = brand((4, 3, 2), dt)
    for axes, oshape in [([], (2, 3, 1)), ([0, -1], (3, 3, 1)), ([1], (4, 2, 2))]:
        og = brand(oshape, dt)
        y = np.zeros_like(d)
        y[tuple(slice(0, n) for n in oshape)] = og
        add(f'_backward_slice_like/{axes}/{dt}', '_backward_slice_like', [og, d], [y], {'axes': axes})
err('_backward_slice_like/err/big', '_backward_slice_like', [brand((5, 3)), brand((4, 3))], {},
    'exceeds limit of input')

# _backward_Concat: ograd split into the inputs' pieces.
for dt in ['float32', 'int32']:
    for dim, shapes in [(1, [(2, 1), (2, 3), (2, 2)]), (0, [(1, 3), (2, 3)]), (-1, [(2, 2, 1), (2, 2, 2)])]:
        likes = [brand(sh, 'float64') for sh in shapes]
        og = brand(np.concatenate([np.zeros(sh) for sh in shapes], axis=dim).shape, dt)
        cuts = np.cumsum([sh[dim] for sh in shapes])[:-1]
        add(f'_backward_Concat/dim={dim}/{len(shapes)}/{dt}', '_backward_Concat', [og] + likes,
            list(np.split(og, cuts, axis=dim)), {'num_args': len(shapes), 'dim': dim})
err('_backward_Concat/err/ograd', '_backward_Concat', [brand((2, 5)), brand((2, 1)), brand((2, 3))],
    {'num_args': 2, 'dim': 1}, 'ograd has shape (2, 5) but Concat gives (2, 4)')

# _backward_take / _backward_pick: scatter-adds (repeated indices accumulate).
for dt in ['float32', 'float64', 'int32', 'int64']:
    a = brand((3, 4), dt)
    for axis, mode, idx in [(0, 'clip', [[0, 2], [2, 5]]), (1, 'wrap', [-1, 3, 7, 0, 3]), (-1, 'raise', [1, 1, 2])]:
        ind = np.array(idx, dtype=np.int32)
        k = a.shape[axis]
        res = np.clip(ind, 0, k - 1) if mode != 'wrap' else np.mod(ind, k)
        og = brand(np.take(a, res, axis=axis).shape, dt)
        y = np.zeros_like(a)
        ax = axis % a.ndim
        for pos in np.ndindex(*og.shape):
            src = list(pos[:ax]) + [res[pos[ax:ax + ind.ndim]]] + list(pos[ax + ind.ndim:])
            y[tuple(src)] += og[pos]
        add(f'_backward_take/axis={axis}/{mode}/{dt}', '_backward_take', [og, ind, a], [y],
            {'axis': axis, 'mode': mode})
ind = np.array([0.0, 2.7, 2.0], dtype=np.float32)
og = brand((3, 16), 'float32')
y = np.zeros((4, 16), np.float32)
for i, j in enumerate([0, 2, 2]):
    y[j] += og[i]
add('_backward_take/float-indices/big-blocks', '_backward_take', [og, ind, brand((4, 16))], [y], {})
err('_backward_take/err/axis', '_backward_take', [brand((2,)), np.zeros((2,), np.int32), brand((3,))],
    {'axis': 1}, 'Axis should be in the range of [-r, r-1]')

for dt in ['float32', 'float64', 'int32', 'int64']:
    d = brand((3, 4), dt)
    for axis, keep, mode, idx in [(1, False, 'clip', [0, 3, 9]), (0, True, 'wrap', [[-1, 2, 5, 0]]),
                                  (-1, True, 'clip', [[1], [-2], [2]])]:
        ind = np.array(idx, dtype=np.int32)
        k = d.shape[axis]
        res = np.clip(ind, 0, k - 1) if mode == 'clip' else np.mod(ind, k)
        res_k = res if keep else np.expand_dims(res, axis)
        og = brand(ind.shape, dt)
        og_k = og if keep else np.expand_dims(og, axis)
        y = np.zeros_like(d)
        np.put_along_axis(y, res_k, og_k, axis=axis)
        add(f'_backward_pick/axis={axis}/{keep}/{mode}/{dt}', '_backward_pick', [og, ind, d], [y],
            {'axis': axis, 'keepdims': keep, 'mode': mode})
err('_backward_pick/err/ograd', '_backward_pick', [brand((4,)), np.zeros((3,), np.int32), brand((3, 4))],
    {'axis': 1}, 'ograd has shape (4,) but pick gives (3,)')

# _backward_tile / _backward_repeat: sums over the copies.
for dt in ['float32', 'float64', 'int32', 'int64']:
    d = brand((2, 3), dt)
    for reps in [(2,), (2, 1, 3), (1, 2), (3, 2)]:
        og = brand(np.tile(d, reps).shape, dt)
        y = adjoint(lambda e, r=reps: np.tile(e, r), d.shape, og) if dt.startswith('float') else None
        if y is None:
            n = max(d.ndim, len(reps))
            r_ = (1,) * (n - len(reps)) + tuple(reps)
            dd = (1,) * (n - d.ndim) + d.shape
            y = og.reshape([v for pair in zip(r_, dd) for v in pair]).sum(axis=tuple(range(0, 2 * n, 2)))
            y = y.reshape(d.shape).astype(dt)
        add(f'_backward_tile/{reps}/{dt}', '_backward_tile', [og, d], [y], {'reps': list(reps)})
    for p in [{'repeats': 2}, {'repeats': 3, 'axis': 1}, {'repeats': 2, 'axis': -2}, {'repeats': 0}]:
        og = brand(np.repeat(d, p['repeats'], p.get('axis')).shape, dt)
        if p['repeats'] == 0:
            y = np.zeros_like(d)
        elif p.get('axis') is None:
            y = og.reshape(-1, p['repeats']).sum(axis=1, dtype=dt).reshape(d.shape)
        else:
            ax = p['axis'] % d.ndim
            sh = list(d.shape[:ax + 1]) + [p['repeats']] + list(d.shape[ax + 1:])
            y = og.reshape(sh).sum(axis=ax + 1, dtype=dt)
        add(f'_backward_repeat/{p}/{dt}', '_backward_repeat', [og, d], [y.astype(dt)], p)
err('_backward_tile/err/ograd', '_backward_tile', [brand((4, 4)), brand((2, 3))], {'reps': [2, 1]},
    'ograd has shape (4, 4) but tile gives (4, 3)')
err('_backward_repeat/err/negative', '_backward_repeat', [brand((2,)), brand((2,))], {'repeats': -1},
    'repeats cannot be a negative number')

# _backward_Pad: Jᵀ·ograd through np.pad (edge and reflect fold the border back).
for dt in ['float32', 'float64']:
    for shape, pw in [((1, 2, 3, 4), (0, 0, 0, 0, 1, 2, 2, 1)), ((1, 1, 3, 2, 3), (0, 0, 0, 0, 2, 1, 0, 1, 1, 2))]:
        npw = [(pw[2 * i], pw[2 * i + 1]) for i in range(len(shape))]
        for mode in ['constant', 'edge', 'reflect']:
            if mode == 'reflect' and any(pw[2 * i] >= shape[i] or pw[2 * i + 1] >= shape[i] for i in range(len(shape))):
                continue
            og = brand(np.pad(np.zeros(shape), npw).shape, dt)
            y = adjoint(lambda e, m=mode, q=npw: np.pad(e, q, mode=m), shape, og)
            add(f'_backward_Pad/{len(shape)}-d/{mode}/{dt}', '_backward_Pad', [og], [y],
                {'mode': mode, 'pad_width': list(pw)})
err('_backward_Pad/err/3-d', '_backward_Pad', [brand((2, 3, 3))], {'mode': 'constant', 'pad_width': [0, 0, 0, 0, 1, 1]},
    'only supports 4-D or 5-D input')
err('_backward_Pad/err/small', '_backward_Pad', [brand((1, 1, 2, 2))],
    {'mode': 'edge', 'pad_width': [0, 0, 0, 0, 2, 1, 0, 0]}, 'is smaller than pad_width')
err('_backward_Pad/err/reflect', '_backward_Pad', [brand((1, 1, 5, 2))],
    {'mode': 'reflect', 'pad_width': [0, 0, 0, 0, 2, 1, 0, 0]}, 'only supports padding sizes smaller')

# _backward_diag: Jᵀ·ograd through np.diag / np.diagonal.
for dt in ['float32', 'float64', 'int32']:
    for shape, p in [((3,), {'k': 0}), ((3,), {'k': 1}), ((2,), {'k': -2}), ((3, 4), {'k': 0}), ((3, 4), {'k': 2}),
                     ((3, 4), {'k': -1}), ((2, 3, 4), {'k': 1, 'axis1': 1, 'axis2': 2}),
                     ((2, 3, 4), {'k': -1, 'axis1': -1, 'axis2': 0})]:
        if len(shape) == 1:
            f = lambda e, k=p['k']: np.diag(e, k)
        else:
            f = lambda e, q=p: np.diagonal(e, q['k'], q.get('axis1', 0), q.get('axis2', 1))
        og = brand(f(np.zeros(shape)).shape, dt)
        y = adjoint(f, shape, og).astype(dt)
        add(f'_backward_diag/{shape}/{p}/{dt}', '_backward_diag', [og, brand(shape, 'float64')], [y], p)
err('_backward_diag/err/axes', '_backward_diag', [brand((3,)), brand((3, 3))], {'axis1': 0, 'axis2': -2},
    'axis1 and axis2 cannot refer to the same axis')
err('_backward_diag/err/ograd', '_backward_diag', [brand((2,)), brand((3, 3))], {},
    'ograd has shape (2,) but diag gives (3,)')

# _backward_Cast: ograd cast to the dtype of data (data's values unused).
for src, to in [('float32', 'float64'), ('float64', 'float32'), ('float32', 'int32'), ('float64', 'float16'),
                ('int32', 'float32')]:
    og = brand((2, 3), src)
    add(f'_backward_Cast/{src}->{to}', '_backward_Cast', [og, brand((2, 3), to)], [og.astype(to)])
err('_backward_Cast/err/shape', '_backward_Cast', [brand((2, 3)), brand((3, 2), 'float64')], {},
    'does not match data of shape (3, 2)')

write('shape', cases)
