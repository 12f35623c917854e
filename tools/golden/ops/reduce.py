"""Golden cases for the reduce family: sum, mean, prod, max, min, nansum, nanprod, norm, argmax,
argmin, sort, argsort, topk and _np_cumsum (alias cumsum), and the backward ops gradients use:
_broadcast_backward (sum down to a broadcast source's shape), _backward_sum / _backward_mean
(broadcast a reduction's gradient back; mean divides by the count) and _backward_topk (scatter
back to the sorted positions, np.put_along_axis).

Expected values are NumPy's, computed the way MXNet's legacy ops define the result:
  * reductions keep the input dtype (integer sums/products wrap: np.sum(..., dtype=x.dtype));
    integer mean is the wrapped sum divided with truncation toward zero (C++ integer division);
  * a full reduction without keepdims has shape (1,) (MXNet ReduceAxesShapeImpl), never ();
  * argmax/argmin return indices in the input dtype; ties → first index; NaN → first NaN (NumPy);
  * sort/argsort/topk are stable (NumPy kind='stable'); NaN sorts last ascending, and descending
    order is the reverse ranking with ties kept in input order;
  * cumsum casts to the output dtype and accumulates sequentially in it (np.cumsum(x.astype(dt))).
Float32 sums are compared with an atol that grows with the number of reduced terms, because NumPy's
pairwise order and the kernel's blocked order round differently.

Run: python3 tools/golden/ops/reduce.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import arr, case, write  # noqa: E402

RNG = np.random.default_rng(20240603)
FAMILY = 'reduce'


def data(shape, dtype, kind='signed'):
    dt = np.dtype(dtype)
    if dt.kind == 'f':
        if kind == 'prod':
            return RNG.uniform(0.5, 1.5, size=shape).astype(dt)
        return RNG.uniform(-2, 2, size=shape).astype(dt)
    if dt == np.uint8:
        hi = 4 if kind == 'prod' else 256
        return RNG.integers(0, hi, size=shape).astype(dt)
    if dt == np.int8:
        lo, hi = (-3, 4) if kind == 'prod' else (-128, 128)
        return RNG.integers(lo, hi, size=shape).astype(dt)
    if kind == 'prod':
        return RNG.integers(-3, 4, size=shape).astype(dt)
    big = 2 ** 31 - 1 if dt == np.int32 else 2 ** 40
    if kind == 'wrap':
        return RNG.integers(-big, big, size=shape).astype(dt)
    return RNG.integers(-1000, 1000, size=shape).astype(dt)


# ---------------------------------------------------------------- shape rules (MXNet's)

def reduce_axes(ndim, axis, exclude):
    """Reduced axes as a sorted tuple (MXNet: None or () means all)."""
    if axis is None:
        return tuple(range(ndim))
    ax = (axis,) if isinstance(axis, int) else tuple(axis)
    if len(ax) == 0:
        return tuple(range(ndim))
    ax = sorted(a + ndim if a < 0 else a for a in ax)
    if exclude:
        return tuple(i for i in range(ndim) if i not in ax)
    return tuple(ax)


def mx_reduce_shape(shape, axis, keepdims, exclude):
    ndim = len(shape)
    all_axes = axis is None or (not isinstance(axis, int) and len(axis) == 0)
    if all_axes:
        return [1] * ndim if keepdims else [1]
    red = reduce_axes(ndim, axis, exclude)
    if keepdims:
        return [1 if i in red else d for i, d in enumerate(shape)]
    kept = [d for i, d in enumerate(shape) if i not in red]
    return kept if kept else [1]


# ---------------------------------------------------------------- references

def ref_reduce(op, x, axis, keepdims, exclude, ord_=2):
    red = reduce_axes(x.ndim, axis, exclude)
    dt = x.dtype
    with np.errstate(all='ignore'):
        if op == 'sum':
            y = np.sum(x, axis=red, dtype=dt, keepdims=True)
        elif op == 'nansum':
            y = np.nansum(x, axis=red, dtype=dt, keepdims=True)
        elif op == 'prod':
            y = np.prod(x, axis=red, dtype=dt, keepdims=True)
        elif op == 'nanprod':
            y = np.nanprod(x, axis=red, dtype=dt, keepdims=True)
        elif op == 'max':
            y = np.max(x, axis=red, keepdims=True)
        elif op == 'min':
            y = np.min(x, axis=red, keepdims=True)
        elif op == 'mean':
            count = int(np.prod([x.shape[a] for a in red])) if red else 1
            if dt.kind == 'f':
                y = (np.sum(x, axis=red, dtype=dt, keepdims=True) / dt.type(count)).astype(dt)
            else:
                s = np.sum(x, axis=red, dtype=dt, keepdims=True).astype(np.int64)
                y = (np.sign(s) * (np.abs(s) // max(count, 1))).astype(dt)
        elif op == 'norm':
            if ord_ == 1:
                y = np.sum(np.abs(x), axis=red, dtype=dt, keepdims=True)
            else:
                y = np.sqrt(np.sum(x * x, axis=red, dtype=dt, keepdims=True)).astype(dt)
        else:
            raise ValueError(op)
    return np.asarray(y, dtype=dt).reshape(mx_reduce_shape(x.shape, axis, keepdims, exclude))


def stable_order(x, axis, ascend):
    """Stable argsort along axis; descending keeps ties in input order (NaN first)."""
    if ascend:
        return np.argsort(x, axis=axis, kind='stable')
    n = x.shape[axis]
    rev = np.flip(x, axis=axis)
    return (n - 1) - np.flip(np.argsort(rev, axis=axis, kind='stable'), axis=axis)


def ref_topk(x, axis, k, ascend):
    """(values, indices) of the first k in the stable order; axis None flattens."""
    if axis is None:
        x = x.reshape(-1)
        axis = 0
    order = stable_order(x, axis, ascend)
    n = x.shape[axis]
    k = n if k < 1 else k
    idx = np.take(order, np.arange(k), axis=axis)
    vals = np.take_along_axis(x, idx, axis=axis)
    return vals, idx


# ---------------------------------------------------------------- case builders

CASES = []


def add(*args, **kw):
    CASES.append(case(*args, **kw))


def f32_tol(x, axis, exclude):
    """rtol/atol for float32 sums: atol grows with the number of reduced terms (values in [-2, 2])."""
    red = reduce_axes(x.ndim, axis, exclude)
    count = int(np.prod([x.shape[a] for a in red])) if red else 1
    return 1e-5, 4e-7 * max(count, 1) * 2


AXIS_VARIANTS = [
    ('all', dict(axis=None)),
    ('ax0', dict(axis=0)),
    ('axneg1', dict(axis=-1)),
    ('ax02', dict(axis=[0, 2])),
    ('ax1_keep', dict(axis=1, keepdims=True)),
    ('all_keep', dict(axis=None, keepdims=True)),
    ('ex1', dict(axis=[1], exclude=True)),
    ('ex02_keep', dict(axis=[0, -1], exclude=True, keepdims=True)),
    ('empty_tuple', dict(axis=[])),
    ('str_ax12', dict(axis='(1, 2)', keepdims='True')),
]

VALUE_OPS = ['sum', 'mean', 'prod', 'max', 'min', 'nansum', 'nanprod']


def value_cases():
    for op in VALUE_OPS:
        for dt in ['float32', 'float64', 'int32', 'int8', 'uint8', 'int64']:
            variants = AXIS_VARIANTS if dt in ('float32', 'int32') else AXIS_VARIANTS[:4]
            kind = 'prod' if 'prod' in op else ('wrap' if dt in ('int32', 'int8', 'uint8') else 'signed')
            x = data((3, 4, 5), dt, kind)
            for vname, p in variants:
                axis = p.get('axis')
                if isinstance(axis, str):
                    axis_v, keep, ex = (1, 2), True, False
                else:
                    axis_v, keep, ex = axis, p.get('keepdims', False), p.get('exclude', False)
                y = ref_reduce(op, x, axis_v, keep, ex)
                extra = {}
                if dt == 'float32':
                    extra = dict(zip(('rtol', 'atol'), f32_tol(x, axis_v, ex)))
                    if 'prod' in op:
                        extra = dict(rtol=1e-5, atol=1e-6)
                add(f'{op}_{dt}_{vname}', op, [x], [y], params=p, **extra)
        # odd / larger shapes that exercise every SIMD tail (float32/float64)
        for dt in ['float32', 'float64']:
            kind = 'prod' if 'prod' in op else 'signed'
            for shape, axis in [((13, 67), 1), ((67, 13), 0), ((2, 9, 3, 7), (1, 3)), ((1, 1, 131), None)]:
                x = data(shape, dt, kind)
                y = ref_reduce(op, x, axis, False, False)
                extra = dict(zip(('rtol', 'atol'), f32_tol(x, axis, False))) if dt == 'float32' else {}
                if 'prod' in op:
                    extra = dict(rtol=1e-4 if dt == 'float32' else 1e-12, atol=0)
                add(f'{op}_{dt}_{"x".join(map(str, shape))}_ax{axis}', op, [x], [y], params={'axis': axis}, **extra)
        # zero-size and zero-dim
        if op not in ('max', 'min'):
            for dt in ['float32', 'int32']:
                x = np.zeros((0, 3), dtype=dt)
                for vname, p in [('ax0', dict(axis=0)), ('ax1', dict(axis=1)), ('all', dict())]:
                    y = ref_reduce(op, x, p.get('axis'), False, False)
                    if op == 'mean' and dt == 'int32':
                        y = np.zeros_like(y)
                    add(f'{op}_{dt}_empty_{vname}', op, [x], [y], params=p)
        x0 = np.array(2.5 if op != 'min' else -1.5, dtype=np.float32)
        add(f'{op}_zerodim', op, [x0], [ref_reduce(op, x0, None, False, False)])
        add(f'{op}_zerodim_keep', op, [x0], [ref_reduce(op, x0, None, True, False)], params={'keepdims': True})
        # NaN handling
        xn = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, 2.0], [4.0, 5.0, 6.0]], dtype=np.float32)
        for ax in (None, 0, 1):
            add(f'{op}_nan_ax{ax}', op, [xn], [ref_reduce(op, xn, ax, False, False)], params={'axis': ax})


def norm_cases():
    for dt in ['float32', 'float64']:
        x = data((3, 4, 5), dt)
        for ord_ in (1, 2):
            for vname, p in AXIS_VARIANTS[:6]:
                axis = p.get('axis')
                keep = p.get('keepdims', False)
                y = ref_reduce('norm', x, axis, keep, False, ord_)
                extra = dict(zip(('rtol', 'atol'), f32_tol(x, axis, False))) if dt == 'float32' else {}
                add(f'norm_{dt}_ord{ord_}_{vname}', 'norm', [x], [y], params=dict(p, ord=ord_), **extra)
    x = data((4, 6), 'float32')
    add('norm_out_dtype_f64', 'norm', [x], [ref_reduce('norm', x.astype(np.float64), 1, False, False)],
        params={'axis': 1, 'out_dtype': 'float64'}, rtol=1e-6, atol=1e-7)
    add('norm_empty', 'norm', [np.zeros((0, 4), np.float32)], [np.zeros((4,), np.float32)], params={'axis': 0})


def index_cases():
    for op, fn in [('argmax', np.argmax), ('argmin', np.argmin)]:
        for dt in ['float32', 'float64', 'int32', 'uint8']:
            x = data((4, 5, 6), dt)
            for ax, keep in [(None, False), (0, False), (-1, False), (1, True), (None, True)]:
                if ax is None:
                    y = np.array([fn(x)], dtype=dt)
                    if keep:
                        y = y.reshape(1, 1, 1)
                else:
                    y = fn(x, axis=ax, keepdims=keep).astype(dt)
                add(f'{op}_{dt}_ax{ax}_keep{int(keep)}', op, [x], [y], params={'axis': ax, 'keepdims': keep})
        ties = np.array([[1, 3, 3, 0], [2, 2, 2, 2], [5, 1, 5, 1]], dtype=np.float32)
        add(f'{op}_ties', op, [ties], [fn(ties, axis=1).astype(np.float32)], params={'axis': 1})
        xn = np.array([[1.0, np.nan, 3.0, np.nan], [2.0, 0.0, 9.0, -1.0]], dtype=np.float32)
        add(f'{op}_nan', op, [xn], [fn(xn, axis=1).astype(np.float32)], params={'axis': 1})
        add(f'{op}_1d', op, [np.array([3, 9, 2], np.float32)], [np.array([fn([3, 9, 2])], np.float32)],
            params={'axis': 0})
        x0 = np.array(7.0, np.float32)
        add(f'{op}_zerodim', op, [x0], [np.array([0], np.float32)])
        add(f'{op}_zerosize_rows', op, [np.zeros((0, 3), np.float32)], [np.zeros((0,), np.float32)],
            params={'axis': 1})


def ordering_cases():
    for dt in ['float32', 'float64', 'int32', 'int8', 'uint8']:
        x = data((3, 4, 5), dt)
        # ties: a small value range forces many equal keys
        xt = RNG.integers(0, 3, size=(4, 7)).astype(dt)
        for name, xx, axis in [('r', x, -1), ('r_ax0', x, 0), ('r_ax1', x, 1), ('r_flat', x, None), ('ties', xt, -1)]:
            for asc in (True, False):
                order = stable_order(xx.reshape(-1) if axis is None else xx, 0 if axis is None else axis, asc)
                flat = xx.reshape(-1) if axis is None else xx
                vals = np.take_along_axis(flat, order, axis=0 if axis is None else axis)
                add(f'sort_{dt}_{name}_asc{int(asc)}', 'sort', [xx], [vals], params={'axis': axis, 'is_ascend': asc})
                add(f'argsort_{dt}_{name}_asc{int(asc)}', 'argsort', [xx], [order.astype(np.float32)],
                    params={'axis': axis, 'is_ascend': asc})
        for k, ret, asc, axis in [(1, 'indices', False, -1), (3, 'value', False, -1), (2, 'both', True, 0),
                                  (2, 'mask', False, 1), (0, 'value', True, -1), (4, 'both', False, None)]:
            vals, idx = ref_topk(x, axis, k, asc)
            p = {'k': k, 'ret_typ': ret, 'is_ascend': asc, 'axis': axis}
            if ret == 'indices':
                outs = [idx.astype(np.float32)]
            elif ret == 'value':
                outs = [vals]
            elif ret == 'both':
                outs = [vals, idx.astype(np.float32)]
            else:
                mask = np.zeros_like(x)
                np.put_along_axis(mask, idx, 1, axis=axis)
                outs = [mask]
            add(f'topk_{dt}_k{k}_{ret}_asc{int(asc)}_ax{axis}', 'topk', [x], outs, params=p)
    # index dtypes
    x = data((3, 6), 'float32')
    for idt in ['int32', 'int64', 'uint8', 'float64']:
        order = stable_order(x, 1, True)
        add(f'argsort_dtype_{idt}', 'argsort', [x], [order.astype(idt)], params={'dtype': idt})
        vals, idx = ref_topk(x, -1, 2, False)
        add(f'topk_dtype_{idt}', 'topk', [x], [idx.astype(idt)], params={'k': 2, 'dtype': idt})
    # NaN placement (float)
    xn = np.array([[3.0, np.nan, -1.0, np.nan, 2.0, -np.inf, np.inf, 0.0]], dtype=np.float32)
    for asc in (True, False):
        order = stable_order(xn, 1, asc)
        add(f'sort_nan_asc{int(asc)}', 'sort', [xn], [np.take_along_axis(xn, order, 1)], params={'is_ascend': asc})
        add(f'argsort_nan_asc{int(asc)}', 'argsort', [xn], [order.astype(np.float32)], params={'is_ascend': asc})
        vals, idx = ref_topk(xn, -1, 3, asc)
        add(f'topk_nan_asc{int(asc)}', 'topk', [xn], [vals, idx.astype(np.float32)],
            params={'k': 3, 'ret_typ': 'both', 'is_ascend': asc})
    # zero-size, 1-d, zero-dim flattened
    add('sort_empty', 'sort', [np.zeros((0, 4), np.float32)], [np.zeros((0, 4), np.float32)])
    add('argsort_empty', 'argsort', [np.zeros((2, 0), np.float32)], [np.zeros((2, 0), np.float32)], params={'axis': 0})
    add('sort_zerodim_flat', 'sort', [np.array(4.0, np.float32)], [np.array([4.0], np.float32)], params={'axis': None})
    add('topk_str_params', 'topk', [x], [ref_topk(x, 0, 2, True)[0]],
        params={'axis': '0', 'k': '2', 'ret_typ': 'value', 'is_ascend': 'True'})


def cumsum_cases():
    for dt in ['float32', 'float64', 'int32', 'int8', 'uint8', 'int64']:
        x = data((3, 4, 5), dt, 'wrap' if dt in ('int8', 'uint8') else 'signed')
        for axis in (None, 0, 1, -1):
            y = np.cumsum(x.astype(dt), axis=axis, dtype=dt) if axis is not None else np.cumsum(x.reshape(-1), dtype=dt)
            add(f'cumsum_{dt}_ax{axis}', '_np_cumsum', [x], [y], params={'axis': axis}, rtol=0, atol=0)
    x = data((4, 5), 'int32')
    add('cumsum_dtype_f64', 'cumsum', [x], [np.cumsum(x.astype(np.float64), axis=1)],
        params={'axis': 1, 'dtype': 'float64'})
    x = data((4, 5), 'float32')
    add('cumsum_dtype_int32', 'cumsum', [x], [np.cumsum(np.trunc(x).astype(np.int32), axis=0, dtype=np.int32)],
        params={'axis': 0, 'dtype': 'int32'})
    add('cumsum_empty', 'cumsum', [np.zeros((0, 3), np.float32)], [np.zeros((0, 3), np.float32)], params={'axis': 0})
    add('cumsum_zerodim', 'cumsum', [np.array(5.0, np.float32)], [np.array([5.0], np.float32)])
    xn = np.array([1.0, np.nan, 2.0], np.float32)
    add('cumsum_nan', 'cumsum', [xn], [np.cumsum(xn)], params={'axis': 0})


def error_cases():
    x = data((2, 3, 4), 'float32')
    err = [
        ('err_sum_axis_out_of_range', 'sum', x, {'axis': 3}, 'Reduction axis 3 Exceeds input dimensions (2, 3, 4)'),
        ('err_sum_axis_negative_out_of_range', 'sum', x, {'axis': -4}, 'Exceeds input dimensions (2, 3, 4)'),
        ('err_sum_duplicate_axes', 'sum', x, {'axis': [1, 1]}, 'Reduction axes have duplicates'),
        ('err_mean_duplicate_neg_axes', 'mean', x, {'axis': [2, -1]}, 'Reduction axes have duplicates'),
        ('err_max_empty', 'max', np.zeros((0, 3), np.float32), {}, "Reduction input's size should > 0"),
        ('err_min_empty_axis', 'min', np.zeros((2, 0), np.float32), {'axis': 0}, "Reduction input's size should > 0"),
        ('err_prod_axis_zerodim', 'prod', np.array(1.0, np.float32), {'axis': 0}, 'Exceeds input dimensions ()'),
        ('err_sum_bad_keepdims', 'sum', x, {'keepdims': 'maybe'}, 'Invalid Parameter format for keepdims'),
        ('err_sum_unknown_param', 'sum', x, {'axes': 1}, "Cannot find argument 'axes'"),
        ('err_argmax_axis', 'argmax', x, {'axis': 3}, 'axis 3 exceeds the input dimension of 3'),
        ('err_argmin_empty_axis', 'argmin', np.zeros((2, 0), np.float32), {'axis': 1},
         'along axis = 1 of zero dim-size is not allowed'),
        ('err_argmax_empty', 'argmax', np.zeros((0, 2), np.float32), {}, 'attempt to search an empty sequence'),
        ('err_norm_ord', 'norm', x, {'ord': 3}, 'norm only supports ord=1 and ord=2'),
        ('err_norm_axis', 'norm', x, {'axis': 5}, 'Reduction axis 5 Exceeds input dimensions'),
        ('err_topk_k_too_big', 'topk', x, {'k': 5}, 'k must be smaller than 4, get k = 5'),
        ('err_topk_axis', 'topk', x, {'axis': 3}, 'Invalid axis! axis should be between 0 and 3, found axis=3'),
        ('err_topk_ret_typ', 'topk', x, {'ret_typ': 'values'}, "Invalid Input: 'values'"),
        ('err_sort_axis', 'sort', x, {'axis': -4}, 'Invalid axis!'),
        ('err_sort_zerodim', 'sort', np.array(1.0, np.float32), {}, 'Invalid axis!'),
        ('err_argsort_index_dtype', 'argsort', np.zeros((300,), np.float32), {'dtype': 'uint8'},
         'does not have a sufficient precision'),
        ('err_cumsum_axis', '_np_cumsum', x, {'axis': 3}, 'axis 3 is out of bounds for array of dimension 3'),
        ('err_cumsum_dtype', 'cumsum', x, {'dtype': 'uint8'}, "Invalid Input: 'uint8'"),
    ]
    for name, op, xx, p, msg in err:
        add(name, op, [xx], params=p, error=msg)


def backward_cases():
    """Backward ops of the family, with their own generator so the cases above stay unchanged."""
    r = np.random.default_rng(20240917)

    def rnd(shape, dt):
        if np.dtype(dt).kind == 'f':
            return r.uniform(-2, 2, size=shape).astype(dt)
        return r.integers(-50, 50, size=shape).astype(dt)

    # _broadcast_backward(grad, like): NumPy-broadcast source `like`, summed back to its shape.
    def bb(grad, like_shape):
        n = grad.ndim
        ls = tuple(like_shape)
        pad = (1,) * (n - len(ls)) + ls if n >= len(ls) else ls[len(ls) - n:]
        axes = tuple(i for i in range(n) if pad[i] == 1 and grad.shape[i] != 1)
        return np.sum(grad, axis=axes, keepdims=True, dtype=grad.dtype).reshape(like_shape)

    for dt in ['float32', 'float64', 'int32', 'int64']:
        for gs, ls in [((2, 3, 4), (3, 1)), ((2, 3), (2, 3)), ((4, 5), (1,)), ((3,), (1, 3)), ((2, 1, 3), (1, 1, 1)),
                       ((5, 2, 3), (5, 1, 3))]:
            g = rnd(gs, dt)
            like = rnd(ls, 'float32')
            add(f'_broadcast_backward_{dt}_{"x".join(map(str, gs))}_to_{"x".join(map(str, ls))}',
                '_broadcast_backward', [g, like], [bb(g, ls)])
    g = np.zeros((0, 3), np.float32)
    add('_broadcast_backward_empty', '_broadcast_backward', [g, np.zeros((1, 3), np.float64)],
        [np.zeros((1, 3), np.float32)])
    # Long enough rows for the SIMD loops.
    g = rnd((8, 3, 40), 'float32')
    add('_broadcast_backward_f32_large', '_broadcast_backward', [g, np.zeros((3, 1), np.float32)], [bb(g, (3, 1))],
        rtol=1e-5, atol=1e-3)
    add('err__broadcast_backward_shape', '_broadcast_backward', [rnd((2, 3), 'float32'), rnd((4,), 'float32')],
        error='does not broadcast to')
    add('err__broadcast_backward_rank', '_broadcast_backward', [rnd((2, 3), 'float32'), rnd((2, 2, 3), 'float32')],
        error='cannot sum a gradient of shape (2, 3) down to shape (2, 2, 3)')

    # _backward_sum / _backward_mean(ograd, data): ograd reshaped to keepdims form, broadcast.
    for op in ['_backward_sum', '_backward_mean']:
        for dt in ['float32', 'float64', 'int32', 'int64']:
            x = rnd((3, 4, 5), dt)
            for vname, p in AXIS_VARIANTS[:8]:
                axis, keep, ex = p.get('axis'), p.get('keepdims', False), p.get('exclude', False)
                oshape = mx_reduce_shape(x.shape, axis, keep, ex)
                red = reduce_axes(x.ndim, axis, ex)
                og = rnd(oshape, dt)
                kshape = [1 if i in red else d for i, d in enumerate(x.shape)]
                y = np.broadcast_to(og.reshape(kshape), x.shape)
                if op == '_backward_mean':
                    count = int(np.prod([x.shape[a] for a in red]))
                    if np.dtype(dt).kind == 'f':
                        y = (y / dt_type(dt)(count)).astype(dt)
                    else:
                        y = (np.sign(y) * (np.abs(y.astype(np.int64)) // count)).astype(dt)
                add(f'{op}_{dt}_{vname}', op, [og, x], [np.ascontiguousarray(y)], params=p)
        add(f'err_{op}_ograd_shape', op, [rnd((3, 5), 'float32'), rnd((3, 4, 5), 'float32')], params={'axis': 0},
            error='ograd has shape (3, 5)')
        add(f'err_{op}_axis', op, [rnd((3,), 'float32'), rnd((3, 4), 'float32')], params={'axis': 2},
            error='Reduction axis 2 Exceeds input dimensions (3, 4)')

    # _backward_topk(ograd, indices, data): zeros with ograd put back at the indices along the axis.
    for dt in ['float32', 'float64', 'int32']:
        x = rnd((3, 5), dt)
        for name, p in [('k2', {'k': 2}), ('k3_ax0', {'k': 3, 'axis': 0}), ('all', {'k': 0, 'axis': -1}),
                        ('flat', {'k': 4, 'axis': None}), ('asc', {'k': 2, 'is_ascend': True})]:
            axis = p.get('axis', -1)
            vals, idx = ref_topk(x, axis, p['k'], p.get('is_ascend', False))
            og = rnd(vals.shape, dt)
            flat = x.reshape(-1) if axis is None else x
            y = np.zeros_like(flat)
            np.put_along_axis(y, idx, og, axis=0 if axis is None else axis)
            for idt in ['float32', 'int32']:
                add(f'_backward_topk_{dt}_{name}_idx_{idt}', '_backward_topk', [og, idx.astype(idt), x],
                    [y.reshape(x.shape)], params={**p, 'ret_typ': 'value'})
    add('err__backward_topk_k', '_backward_topk', [rnd((3, 9), 'float32'), np.zeros((3, 9), np.int32),
                                                   rnd((3, 5), 'float32')], params={'k': 9},
        error='k must be smaller than 5, get k = 9')
    add('err__backward_topk_ograd', '_backward_topk', [rnd((3, 3), 'float32'), np.zeros((3, 2), np.int32),
                                                       rnd((3, 5), 'float32')], params={'k': 2},
        error='ograd has shape (3, 3)')


def dt_type(dt):
    return np.dtype(dt).type


def compact(cases):
    """Write float32 values with 9 significant digits (exact for float32) to keep the file small."""
    for c in cases:
        for a in c['inputs'] + c.get('outputs', []):
            if a['dtype'] == 'float32':
                a['data'] = [float(f'{v:.9g}') if isinstance(v, float) else v for v in a['data']]


def main():
    value_cases()
    norm_cases()
    index_cases()
    ordering_cases()
    cumsum_cases()
    error_cases()
    backward_cases()
    compact(CASES)
    write(FAMILY, CASES)


if __name__ == '__main__':
    main()
