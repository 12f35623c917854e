"""Golden cases for the np indexing family (operators of packages/ops/src/defs/np/indexing/):
_contrib_boolean_mask (alias _npi_boolean_mask) and its backward, _npx_nonzero (alias _npi_nonzero),
gather_nd (aliases _npi_gather_nd, _npx_gather_nd) and its scatter-add backward _backward_gather_nd,
_scatter_set_nd, _slice_assign, _slice_assign_scalar, _npi_boolean_mask_assign_scalar, _npi_boolean_mask_assign_tensor
and its value gradient _backward_npi_boolean_mask_assign_tensor_value.

Each op's value is the NumPy expression of MXNet's definition:
  boolean_mask(data, index, axis)      np.compress(index != 0, data, axis)
  its backward (ograd, data, index)    zeros of data's shape with ograd at the kept positions, and
                                       zeros of the mask (output 1)
  nonzero(x)                           np.argwhere(x) as int64, shape (count, ndim)
  gather_nd(data, indices)             data[tuple(indices)]   (negative indices wrap)
  _backward_gather_nd(g, ind; shape)   np.add.at(zeros(shape), tuple(ind), g) (duplicates add up)
  _scatter_set_nd(lhs, rhs, ind)       lhs.copy(); [tuple(ind)] = rhs      (duplicates: last wins)
  _slice_assign(lhs, rhs; b, e, s)     lhs.copy(); [slices] = rhs            (None = open end)
  _slice_assign_scalar(x; scalar, ..)  x.copy(); [slices] = scalar
  mask assign scalar/tensor            x.copy(); [(:,) * start_axis + (mask,)] = value
  its value gradient (g, mask, value)  d sum(g * assign(x, mask, value)) / d value, element by
                                       element: assign unit values into zeros and dot with g (so
                                       NumPy's broadcasting decides which elements each value feeds)
Error texts are NumPy's where NumPy raises the same error (taken from the raised exception), the
operators' own MXNetError texts otherwise. Float64 cases with distinct indices serve the numeric
gradient check of each differentiable op; duplicate-index writes use integer dtypes (the value
kept is the last, so a float case would have a gradient with respect to an overwritten value that
central differences see as zero).
Run: /usr/bin/python3 tools/golden/ops/np_indexing.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from common import case, write  # noqa: E402

rng = np.random.default_rng(20240716)
DTYPES = ['float32', 'float64', 'int32', 'int64', 'int8', 'uint8', 'bool', 'float16']
N = None

cases = []


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


def add(name, op, inputs, outputs, params=None, **kw):
    cases.append(case(name, op, inputs, outputs, params, **kw))


def err(name, op, inputs, params, error):
    cases.append(case(name, op, inputs, params=params, error=error))


def numpy_error(fn):
    """The message NumPy raises for `fn()` (first line)."""
    try:
        fn()
    except (IndexError, ValueError, TypeError) as e:
        return str(e).split('\n')[0]
    raise SystemExit('expected NumPy to raise')


def mask_key(start_axis, mask):
    return (slice(None),) * start_axis + (mask,)


# ---- _contrib_boolean_mask / _npi_boolean_mask ---------------------------------------------------
def bmask(data, index, axis):
    return np.compress(np.asarray(index) != 0, data, axis=axis)


for sh, ax in [((4,), 0), ((4, 3), 0), ((3, 4), 1), ((2, 3, 4), 1), ((2, 3, 4), -1), ((2, 3, 4), 2),
               ((2, 3, 4), -3), ((5, 2), 0)]:
    x = rand(sh, 'float64')
    m = rand((sh[ax],), 'bool')
    add(f'boolean_mask/{sh}/axis={ax}', '_contrib_boolean_mask', [x, m], [bmask(x, m, ax)], {'axis': ax})
x = rand((4, 3))
add('boolean_mask/all-false', '_contrib_boolean_mask', [x, np.zeros(4, bool)], [x[:0]], {'axis': 0})
add('boolean_mask/all-true', '_contrib_boolean_mask', [x, np.ones(3, bool)], [x], {'axis': 1})
add('boolean_mask/zero-size-data', '_contrib_boolean_mask', [rand((0, 3)), np.zeros(0, bool)],
    [np.zeros((0, 3), 'float32')], {'axis': 0})
add('boolean_mask/zero-size-trailing', '_contrib_boolean_mask',
    [rand((3, 0)), np.array([True, False, True])], [np.zeros((2, 0), 'float32')], {'axis': 0})
# Masks of any dtype: nonzero is true (NaN too, -0.0 not).
mi = np.array([0, 3, -1, 0], 'int32')
add('boolean_mask/int32-mask', '_contrib_boolean_mask', [x, mi], [bmask(x, mi, 0)], {'axis': 0})
mf = np.array([-0.0, np.nan, 0.5, 0.0], 'float32')
add('boolean_mask/float-mask-with-nan', '_contrib_boolean_mask', [x, mf], [bmask(x, mf, 0)], {'axis': 0})
for dt in DTYPES:
    xd = rand((5, 2), dt)
    m = np.array([True, False, True, True, False])
    add(f'boolean_mask/dtype/{dt}', '_contrib_boolean_mask', [xd, m], [bmask(xd, m, 0)], {'axis': 0})
xd = rand((3, 4), 'float64')
m = np.array([False, True, True])
add('_npi_boolean_mask/alias', '_npi_boolean_mask', [xd, m], [bmask(xd, m, 0)])
x = rand((3, 4))
err('boolean_mask/err/length', '_contrib_boolean_mask', [x, np.ones(4, bool)], {'axis': 0},
    numpy_error(lambda: x[np.ones(4, bool)]))
err('boolean_mask/err/length-axis1', '_contrib_boolean_mask', [x, np.ones(3, bool)], {'axis': 1},
    numpy_error(lambda: x[:, np.ones(3, bool)]).replace('dimension 0', 'dimension 1'))
err('boolean_mask/err/2-d-mask', '_contrib_boolean_mask', [x, np.ones((3, 4), bool)], {'axis': 0},
    'the mask must be 1-D, got 2 dimensions')
err('boolean_mask/err/axis', '_contrib_boolean_mask', [x, np.ones(3, bool)], {'axis': 2},
    'axis 2 is out of bounds for array of dimension 2')
err('boolean_mask/err/0-d', '_contrib_boolean_mask', [np.float32(1), np.ones(1, bool)], {'axis': 0},
    'boolean_mask needs data with at least 1 dimension')

# ---- _backward_contrib_boolean_mask ---------------------------------------------------------------
def bmask_backward(g, data, index, axis):
    dx = np.zeros_like(data)
    key = (slice(None),) * (axis % data.ndim) + (np.asarray(index) != 0,)
    dx[key] = g
    return [dx, np.zeros_like(index)]


for sh, ax, mdt in [((4, 3), 0, 'bool'), ((2, 3, 4), 1, 'bool'), ((2, 3, 4), -1, 'int32'),
                    ((5,), 0, 'float32')]:
    d = rand(sh, 'float64')
    m = rand((sh[ax],), mdt)
    m.reshape(-1)[0] = 1
    g = rand(bmask(d, m, ax).shape, 'float64')
    add(f'_backward_contrib_boolean_mask/{sh}/axis={ax}/mask-{mdt}', '_backward_contrib_boolean_mask',
        [g, d, m], bmask_backward(g, d, m, ax), {'axis': ax})
d = rand((3, 2), 'float32')
add('_backward_contrib_boolean_mask/all-false', '_backward_contrib_boolean_mask',
    [np.zeros((0, 2), 'float32'), d, np.zeros(3, bool)], [np.zeros((3, 2), 'float32'), np.zeros(3, bool)],
    {'axis': 0})

# ---- _npx_nonzero / _npi_nonzero ------------------------------------------------------------------
for sh in [(5,), (3, 4), (2, 3, 4), (2, 1, 3, 2)]:
    x = rand(sh, 'int32') * rng.integers(0, 2, sh).astype('int32')
    add(f'nonzero/{sh}', '_npx_nonzero', [x], [np.argwhere(x).astype('int64')])
for dt in DTYPES:
    x = rand((3, 4), dt) * rng.integers(0, 2, (3, 4)).astype(dt)
    add(f'nonzero/dtype/{dt}', '_npx_nonzero', [x], [np.argwhere(x).astype('int64')])
xf = np.array([[0.0, -0.0, np.nan], [np.inf, 1e-30, 0.0]], 'float32')
add('nonzero/nan-inf-negzero', '_npx_nonzero', [xf], [np.argwhere(xf).astype('int64')])
add('nonzero/all-zero', '_npx_nonzero', [np.zeros((2, 3), 'float32')], [np.zeros((0, 2), 'int64')])
add('nonzero/zero-size', '_npx_nonzero', [np.zeros((0, 3), 'float32')], [np.zeros((0, 2), 'int64')])
add('nonzero/0-d-true', '_npx_nonzero', [np.float32(2)], [np.argwhere(np.float32(2)).astype('int64')])
add('nonzero/0-d-false', '_npx_nonzero', [np.int32(0)], [np.argwhere(np.int32(0)).astype('int64')])
x = rand((2, 3), 'bool')
add('_npi_nonzero/alias', '_npi_nonzero', [x], [np.argwhere(x).astype('int64')])

# ---- gather_nd ------------------------------------------------------------------------------------
def gnd(data, ind):
    return data[tuple(ind.astype(np.int64))]


GATHERS = [  # data shape, indices shape (M, Y...)
    ((3, 4), (2, 5)), ((3, 4), (1, 2)), ((3, 4, 2), (2, 2, 3)), ((3, 4, 2), (3, 4)),
    ((5,), (1, 3)), ((2, 3, 4), (1, 2, 2)), ((4, 3), (2, 0)),
]
for i, (dsh, ish) in enumerate(GATHERS):
    x = rand(dsh, 'float64')
    m = ish[0]
    ind = np.stack([rng.integers(-dsh[j], dsh[j], ish[1:]) for j in range(m)]).astype('int32')
    add(f'gather_nd/{i}/{dsh}/{ish}', 'gather_nd', [x, ind], [gnd(x, ind)])
x = rand((4, 3), 'float64')
ind = np.array([[0, 3, 0, -4], [1, 2, 1, 0]], 'int64')
add('gather_nd/duplicates/int64-indices', 'gather_nd', [x, ind], [gnd(x, ind)])
indf = np.array([[2.0, 0.0], [1.0, 2.0]], 'float32')
add('gather_nd/float-indices', 'gather_nd', [x, indf], [gnd(x, indf)])
add('gather_nd/zero-size-data-block', 'gather_nd', [rand((3, 0)), np.array([[1, 2]], 'int32')],
    [np.zeros((2, 0), 'float32')])
for dt in DTYPES:
    xd = rand((3, 4), dt)
    ind = np.array([[2, 0, -1], [3, 1, 0]], 'int32')
    add(f'gather_nd/dtype/{dt}', 'gather_nd', [xd, ind], [gnd(xd, ind)])
xd = rand((3, 4), 'float64')
ind = np.array([[1, 2]], 'int32')
add('_npi_gather_nd/alias', '_npi_gather_nd', [xd, ind], [gnd(xd, ind)])
add('_npx_gather_nd/alias', '_npx_gather_nd', [xd, ind], [gnd(xd, ind)])
x = rand((3, 4))
err('gather_nd/err/out-of-range', 'gather_nd', [x, np.array([[0, 3], [1, 4]], 'int32')], {},
    numpy_error(lambda: x[(np.array([0, 3]), np.array([1, 4]))]))
err('gather_nd/err/out-of-range-negative', 'gather_nd', [x, np.array([[-4, 0]], 'int32')], {},
    numpy_error(lambda: x[(np.array([-4, 0]),)]))
err('gather_nd/err/1-d-indices', 'gather_nd', [x, np.array([0, 1], 'int32')], {},
    'gather_nd requires index tensor to have at least 2 dimensions')
err('gather_nd/err/too-many-indices', 'gather_nd', [x, np.zeros((3, 2), 'int32')], {},
    'Number of indices exceeds data dimension')

# ---- _backward_gather_nd (scatter-add) -----------------------------------------------------------
def scatter_add(g, ind, shape):
    out = np.zeros(shape, g.dtype)
    np.add.at(out, tuple(ind.astype(np.int64)), g)
    return out


for i, (osh, ind) in enumerate([
    ((3, 4), np.array([[0, 2, 0, -1], [1, 3, 1, 0]])),  # (0, 1) twice
    ((3, 4), np.array([[1, 1, 1]])),  # one row three times
    ((2, 3, 2), np.array([[[0, 1], [1, 0]], [[2, 2], [-1, 2]]])),
    ((5,), np.array([[0, 4, 0, 0, -5]])),
]):
    ind = ind.astype('int32')
    blk = ind.shape[1:] + osh[ind.shape[0]:]
    g = rand(blk, 'float64')
    add(f'_backward_gather_nd/{i}/{osh}', '_backward_gather_nd', [g, ind], [scatter_add(g, ind, osh)],
        {'shape': list(osh)})
ind = np.array([[0, 0, 2], [1, 1, 0]], 'int64')
for dt in ['float32', 'int32', 'int64']:
    g = rand((3,), dt)
    add(f'_backward_gather_nd/dtype/{dt}', '_backward_gather_nd', [g, ind], [scatter_add(g, ind, (3, 2))],
        {'shape': [3, 2]})
# The 3-input form (shape empty; the third input's shape is the output's).
g = rand((3,), 'float64')
like = rand((3, 2), 'float64')
add('_backward_gather_nd/like-input', '_backward_gather_nd', [g, ind, like], [scatter_add(g, ind, (3, 2))])
err('_backward_gather_nd/err/out-of-range', '_backward_gather_nd',
    [rand((2,)), np.array([[0, 3]], 'int32')], {'shape': [3]}, 'index 3 is out of bounds for axis 0 with size 3')
err('_backward_gather_nd/err/shapes', '_backward_gather_nd',
    [rand((3,)), np.array([[0, 1]], 'int32')], {'shape': [3]},
    'Invalid data, indices, and output shape combination for scatter_nd')

# ---- _scatter_set_nd ------------------------------------------------------------------------------
def scatter_set(lhs, rhs, ind):
    out = lhs.copy()
    out[tuple(ind.astype(np.int64))] = rhs
    return out


for i, (osh, ind) in enumerate([
    ((3, 4), np.array([[0, 2, 1], [1, 3, -1]])),
    ((3, 4), np.array([[2, 0]])),
    ((2, 3, 2), np.array([[[0, 1]], [[2, -3]]])),
    ((4,), np.array([[3, -4]])),
]):
    ind = ind.astype('int32')
    lhs = rand(osh, 'float64')
    rhs = rand(ind.shape[1:] + osh[ind.shape[0]:], 'float64')
    add(f'_scatter_set_nd/{i}/{osh}', '_scatter_set_nd', [lhs, rhs, ind], [scatter_set(lhs, rhs, ind)],
        {'shape': list(osh)})
# Repeated index tuples keep the last value (integer data: see the docstring).
lhs = rand((3, 2), 'int32')
ind = np.array([[1, 0, 1], [1, 1, 1]], 'int32')
rhs = np.array([5, 6, 7], 'int32')
add('_scatter_set_nd/duplicates-last-wins/int32', '_scatter_set_nd', [lhs, rhs, ind],
    [scatter_set(lhs, rhs, ind)], {'shape': [3, 2]})
for dt in DTYPES:
    lhs = rand((3, 2), dt)
    rhs = rand((2,), dt)
    ind = np.array([[2, 0], [0, 1]], 'int64')
    add(f'_scatter_set_nd/dtype/{dt}', '_scatter_set_nd', [lhs, rhs, ind], [scatter_set(lhs, rhs, ind)],
        {'shape': [3, 2]})
lhs = rand((3, 2), 'float64')
rv = rand((1,), 'float64')
add('_npi_scatter_set_nd/alias', '_npi_scatter_set_nd', [lhs, rv, np.array([[1], [1]], 'int32')],
    [scatter_set(lhs, rv, np.array([[1], [1]]))], {'shape': [3, 2]})
lhs = rand((3, 2))
err('_scatter_set_nd/err/out-of-range', '_scatter_set_nd', [lhs, rand((1,)), np.array([[3], [0]], 'int32')],
    {'shape': [3, 2]}, numpy_error(lambda: lhs.__setitem__((np.array([3]), np.array([0])), 1.0)))
err('_scatter_set_nd/err/shapes', '_scatter_set_nd', [lhs, rand((3,)), np.array([[0, 1], [0, 1]], 'int32')],
    {'shape': [3, 2]}, 'Invalid data, indices, and output shape combination for scatter_nd')

# ---- _slice_assign / _slice_assign_scalar ---------------------------------------------------------
SLICES = [  # shape, begin, end, step
    ((4, 5), (1, 0), (3, 5), ()), ((4, 5), (N, 1), (N, 4), (N, 2)), ((6,), (N,), (N,), (-1,)),
    ((6,), (5,), (0,), (-2,)), ((6,), (-1,), (N,), (-3,)), ((4, 5), (3, -1), (N, 0), (-1, -2)),
    ((2, 3, 4), (1,), (2,), ()), ((2, 3, 4), (N, 2, -1), (N, 0, N), (1, -1, -3)),
    ((6,), (-10,), (10,), ()), ((6,), (4,), (2,), ()), ((0, 3), (0,), (N,), ()),
]


def region(bg, en, st):
    return tuple(slice(bg[k], en[k], st[k] if st else None) for k in range(len(bg)))


for i, (sh, bg, en, st) in enumerate(SLICES):
    key = region(bg, en, st)
    lhs = rand(sh, 'float64')
    rhs = rand(lhs[key].shape, 'float64')
    out = lhs.copy()
    out[key] = rhs
    p = {'begin': list(bg), 'end': list(en)}
    if st:
        p['step'] = list(st)
    add(f'_slice_assign/{i}/{sh}/{bg}:{en}:{st}', '_slice_assign', [lhs, rhs], [out], p)
    s = float(rand((), 'float64'))
    out = lhs.copy()
    out[key] = s
    add(f'_slice_assign_scalar/{i}/{sh}/{bg}:{en}:{st}', '_slice_assign_scalar', [lhs], [out],
        {**p, 'scalar': s})
for dt in DTYPES:
    lhs = rand((4, 5), dt)
    rhs = rand((2, 3), dt)
    out = lhs.copy()
    out[1:4:2, ::-2] = rhs
    p = {'begin': [1, N], 'end': [4, N], 'step': [2, -2]}
    add(f'_slice_assign/dtype/{dt}', '_slice_assign', [lhs, rhs], [out], p)
    out = lhs.copy()
    out[1:4:2, ::-2] = 1
    add(f'_slice_assign_scalar/dtype/{dt}', '_slice_assign_scalar', [lhs], [out], {**p, 'scalar': 1})
lhs = rand((3, 4), 'float64')
rhs = rand((2, 4), 'float64')
out = lhs.copy()
out[1:] = rhs
add('_npi_slice_assign/alias', '_npi_slice_assign', [lhs, rhs], [out], {'begin': '(1,)', 'end': '(None,)'})
add('_crop_assign/alias', '_crop_assign', [lhs, rhs], [out], {'begin': [1], 'end': [N]})
out = lhs.copy()
out[:, ::3] = -2.5
add('_npi_slice_assign_scalar/alias', '_npi_slice_assign_scalar', [lhs], [out],
    {'begin': [N, N], 'end': [N, N], 'step': [N, 3], 'scalar': -2.5})
add('_crop_assign_scalar/alias', '_crop_assign_scalar', [lhs], [out],
    {'begin': [N, N], 'end': [N, N], 'step': [N, 3], 'scalar': -2.5})
lhs = rand((4, 5))
err('_slice_assign/err/rhs-shape', '_slice_assign', [lhs, rand((3, 5))], {'begin': [1], 'end': [3]},
    'Shape inconsistent, Provided = (3, 5), inferred shape=(2, 5) for input 1')
err('_slice_assign/err/step0', '_slice_assign', [lhs, rand((2, 5))], {'begin': [0], 'end': [2], 'step': [0]},
    'step[0] cannot be 0')
err('_slice_assign_scalar/err/step0', '_slice_assign_scalar', [lhs], {'begin': [0], 'end': [2], 'step': [0]},
    'step[0] cannot be 0')
err('_slice_assign_scalar/err/too-many', '_slice_assign_scalar', [lhs],
    {'begin': [0, 0, 0], 'end': [1, 1, 1]}, 'Slicing axis exceeds data dimensions')

# ---- _npi_boolean_mask_assign_scalar / _tensor --------------------------------------------------
def mask_set(data, mask, value, s):
    out = data.copy()
    out[mask_key(s, mask)] = value
    return out


for sh, msh, s in [((4,), (4,), 0), ((3, 4), (3,), 0), ((3, 4), (4,), 1), ((3, 4), (3, 4), 0),
                   ((2, 3, 4), (3, 4), 1), ((2, 3, 4), (3,), 1), ((2, 3, 4), (2, 3), 0)]:
    x = rand(sh, 'float64')
    m = rand(msh, 'bool')
    m.reshape(-1)[0] = True
    add(f'_npi_boolean_mask_assign_scalar/{sh}/mask{msh}/start={s}', '_npi_boolean_mask_assign_scalar',
        [x, m], [mask_set(x, m, 2.5, s)], {'value': 2.5, 'start_axis': s})
    cnt = int(m.sum())
    region_shape = sh[:s] + (cnt,) + sh[s + len(msh):]
    v = rand(region_shape, 'float64')
    add(f'_npi_boolean_mask_assign_tensor/{sh}/mask{msh}/start={s}', '_npi_boolean_mask_assign_tensor',
        [x, m, v], [mask_set(x, m, v.reshape(sh[:s] + (cnt,) + sh[s + len(msh):]), s)], {'start_axis': s})
x = rand((3, 4), 'float64')
m = np.array([True, False, True])
# Broadcast values: one element, the trailing block, a count of 1.
for nm, v in [('one-element', rand((1,), 'float64')), ('0-d', rand((), 'float64')),
              ('trailing-row', rand((4,), 'float64')), ('count-1', rand((1, 4), 'float64'))]:
    add(f'_npi_boolean_mask_assign_tensor/broadcast/{nm}', '_npi_boolean_mask_assign_tensor',
        [x, m, v], [mask_set(x, m, v, 0)], {'start_axis': 0})
m1 = np.array([True, False, True, True])
v = rand((3, 1), 'float64')
add('_npi_boolean_mask_assign_tensor/broadcast/lead-full-trail-none', '_npi_boolean_mask_assign_tensor',
    [x, m1, v], [mask_set(x, m1, v, 1)], {'start_axis': 1})
# Broadcasting along some leading (or trailing) axes and not others.
x3 = rand((2, 3, 4), 'float64')
m4 = np.array([True, True, False, True])
v = rand((1, 3, 1), 'float64')
add('_npi_boolean_mask_assign_tensor/broadcast/lead-mixed', '_npi_boolean_mask_assign_tensor',
    [x3, m4, v], [mask_set(x3, m4, v, 2)], {'start_axis': 2})
m2 = np.array([False, True])
v = rand((1, 1, 4), 'float64')
add('_npi_boolean_mask_assign_tensor/broadcast/trail-mixed', '_npi_boolean_mask_assign_tensor',
    [x3, m2, v], [mask_set(x3, m2, v, 0)], {'start_axis': 0})
add('_npi_boolean_mask_assign_scalar/all-false', '_npi_boolean_mask_assign_scalar',
    [x, np.zeros(3, bool)], [x], {'value': 9})
add('_npi_boolean_mask_assign_tensor/all-false', '_npi_boolean_mask_assign_tensor',
    [x, np.zeros(3, bool), rand((1,), 'float64')], [x])
mi = np.array([0, 2, -1], 'int32')
add('_npi_boolean_mask_assign_scalar/int-mask', '_npi_boolean_mask_assign_scalar',
    [x, mi], [mask_set(x, mi != 0, -1.0, 0)], {'value': -1})
for dt in DTYPES:
    xd = rand((3, 2), dt)
    m = np.array([False, True, True])
    val = np.array(1, dt)
    add(f'_npi_boolean_mask_assign_scalar/dtype/{dt}', '_npi_boolean_mask_assign_scalar',
        [xd, m], [mask_set(xd, m, val, 0)], {'value': 1})
    v = rand((2, 2), dt)
    add(f'_npi_boolean_mask_assign_tensor/dtype/{dt}', '_npi_boolean_mask_assign_tensor',
        [xd, m, v], [mask_set(xd, m, v, 0)])
x = rand((3, 4))
m = np.array([True, False, True])
err('_npi_boolean_mask_assign_scalar/err/mask-shape', '_npi_boolean_mask_assign_scalar',
    [x, np.ones(4, bool)], {'value': 1}, numpy_error(lambda: x.copy().__setitem__(np.ones(4, bool), 1)))
err('_npi_boolean_mask_assign_tensor/err/mask-shape', '_npi_boolean_mask_assign_tensor',
    [x, np.ones(2, bool), rand((1,))], {}, numpy_error(lambda: x.copy().__setitem__(np.ones(2, bool), 1)))
err('_npi_boolean_mask_assign_scalar/err/mask-too-long', '_npi_boolean_mask_assign_scalar',
    [x, np.ones(4, bool)], {'value': 1, 'start_axis': 2},
    'start_axis 2 with a 1-D mask does not fit data of 2 dimensions')
# The count of true elements (2) against the value's: NumPy's messages. A mask over every axis is
# NumPy's 1-D boolean assignment, which counts values; any other mask reports the broadcast to
# the indexing result (lead..., count, trail...).
x1 = rand((3,))
v = rand((3,))
err('_npi_boolean_mask_assign_tensor/err/count', '_npi_boolean_mask_assign_tensor',
    [x1, m, v], {}, numpy_error(lambda: x1.copy().__setitem__(m, v)))
v = rand((3, 4))
err('_npi_boolean_mask_assign_tensor/err/count-2-d', '_npi_boolean_mask_assign_tensor',
    [x, m, v], {}, numpy_error(lambda: x.copy().__setitem__(m, v)))
m4 = np.array([True, False, True, True])
v = rand((3, 2))
err('_npi_boolean_mask_assign_tensor/err/count-start-axis-1', '_npi_boolean_mask_assign_tensor',
    [x, m4, v], {'start_axis': 1}, numpy_error(lambda: x.copy().__setitem__((slice(None), m4), v)))
x24 = rand((2, 3, 4))
v = rand((3, 1))
err('_npi_boolean_mask_assign_tensor/err/count-3-d-trailing', '_npi_boolean_mask_assign_tensor',
    [x24, m, v], {'start_axis': 1}, numpy_error(lambda: x24.copy().__setitem__((slice(None), m), v)))
mfull = np.array([[True, False, True, False], [False, False, True, True], [True, True, False, False]])
v = rand((5,))
err('_npi_boolean_mask_assign_tensor/err/count-full-mask-2-d', '_npi_boolean_mask_assign_tensor',
    [x, mfull, v], {}, numpy_error(lambda: x.copy().__setitem__(mfull, v)))
v = rand((2, 3))
err('_npi_boolean_mask_assign_tensor/err/full-mask-2-d-value', '_npi_boolean_mask_assign_tensor',
    [x, mfull, v], {}, numpy_error(lambda: x.copy().__setitem__(mfull, v)))
err('_npi_boolean_mask_assign_tensor/err/value-shape', '_npi_boolean_mask_assign_tensor',
    [x, m, rand((2, 3))], {}, 'shape mismatch of value with input at dimension 1')
err('_npi_boolean_mask_assign_tensor/err/dtype', '_npi_boolean_mask_assign_tensor',
    [x, m, rand((2, 4), 'float64')], {}, 'value has dtype float64, data float32')

# ---- _backward_npi_boolean_mask_assign_tensor_value ---------------------------------------------
VALUE_GRAD = '_backward_npi_boolean_mask_assign_tensor_value'


def value_grad(g, mask, vshape, s):
    """d sum(g * assign(x, mask, v)) / dv, one value element at a time (assign is linear in v)."""
    out = np.zeros(int(np.prod(vshape)), 'float64')
    for j in range(out.size):
        unit = np.zeros(out.size, 'float64')
        unit[j] = 1
        out[j] = (mask_set(np.zeros(g.shape, 'float64'), np.asarray(mask) != 0, unit.reshape(vshape), s) * g).sum()
    return out.reshape(vshape)


def add_value_grad(name, g, mask, vshape, s, dtype='float64'):
    v = np.zeros(vshape, dtype)  # read for its shape only
    add(f'{VALUE_GRAD}/{name}', VALUE_GRAD, [g.astype(dtype), mask, v],
        [value_grad(g.astype(dtype).astype('float64'), mask, vshape, s).astype(dtype)], {'start_axis': s})


for sh, msh, s in [((4,), (4,), 0), ((3, 4), (3,), 0), ((3, 4), (4,), 1), ((3, 4), (3, 4), 0),
                   ((2, 3, 4), (3, 4), 1), ((2, 3, 4), (3,), 1), ((2, 3, 4), (2, 3), 0)]:
    m = rand(msh, 'bool')
    m.reshape(-1)[0] = True
    cnt = int(m.sum())
    add_value_grad(f'{sh}/mask{msh}/start={s}', rand(sh, 'float64'), m, sh[:s] + (cnt,) + sh[s + len(msh):], s)
g = rand((3, 4), 'float64')
m = np.array([True, False, True])
for nm, vsh in [('one-element', (1,)), ('0-d', ()), ('trailing-row', (4,)), ('count-1', (1, 4)),
                ('count-only', (2, 1)), ('1-1-1', (1, 1, 1))]:
    add_value_grad(f'broadcast/{nm}', g, m, vsh, 0)
add_value_grad('broadcast/lead-full-trail-none', g, np.array([True, False, True, True]), (3, 1), 1)
g3 = rand((2, 3, 4), 'float64')
add_value_grad('broadcast/lead-mixed', g3, np.array([True, True, False, True]), (1, 3, 1), 2)
add_value_grad('broadcast/trail-mixed', g3, np.array([False, True]), (1, 1, 4), 0)
add_value_grad('broadcast/middle-mask-count-1', g3, np.array([True, False, True]), (2, 1, 4), 1)
add_value_grad('all-false', g, np.zeros(3, bool), (1,), 0)
add_value_grad('all-false-empty-value', g, np.zeros(3, bool), (0, 4), 0)
add_value_grad('int-mask', g, np.array([0, 2, -1], 'int32'), (2, 4), 0)
for dt in ['float32', 'float16', 'int32', 'int64']:
    add_value_grad(f'dtype/{dt}', rand((3, 2), 'float64'), np.array([False, True, True]), (2,), 0, dt)
err(f'{VALUE_GRAD}/err/count-2-d', VALUE_GRAD, [g, m, np.zeros((3, 4))], {},
    numpy_error(lambda: g.copy().__setitem__(m, np.zeros((3, 4)))))
err(f'{VALUE_GRAD}/err/count', VALUE_GRAD, [g[0], np.array([True, False, True, True]), np.zeros(2)], {},
    numpy_error(lambda: g[0].copy().__setitem__(np.array([True, False, True, True]), np.zeros(2))))
err(f'{VALUE_GRAD}/err/mask-shape', VALUE_GRAD, [g, np.ones(2, bool), np.zeros(1)], {},
    numpy_error(lambda: g.copy().__setitem__(np.ones(2, bool), 1)))

if __name__ == '__main__':
    write('np_indexing', cases)
