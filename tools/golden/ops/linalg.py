"""Golden cases for the linalg family: dot, batch_dot, _linalg_gemm2 (alias linalg_gemm2).

Reference semantics (MXNet src/operator/tensor/dot-inl.h, la_op.h) expressed with NumPy:
- dot: lhs (..., k) . rhs (k, ...). transpose_a views lhs as (lhs.shape[0], rest) and contracts its
  first axis (result starts with lhs.shape[1:]); transpose_b views rhs as (rest, rhs.shape[-1]) and
  contracts its last axis (result ends with rhs.shape[:-1]). Two vectors give shape (1,).
- batch_dot: (B..., m, k) . (B..., k, n), equal ndim >= 3.
- linalg_gemm2: alpha * op(A) . op(B); rows on `axis`, columns on the last axis, other axes batch.
- _backward_dot(ograd, lhs, rhs): dot's gradients [d lhs, d rhs] on the same 2-D views:
  d op(A) = dC . op(B)^T, d op(B) = op(A)^T . dC, transposed back where the flags transposed.
Run: python3 tools/golden/ops/linalg.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from common import arr, case, write  # noqa: E402

rng = np.random.default_rng(20240603)


def rand(shape, dtype):
    return rng.standard_normal(shape).astype(dtype)


def ref_dot(a, b, ta=False, tb=False):
    """MXNet dot via its 2-D views, computed in float64."""
    a64 = a.astype(np.float64)
    b64 = b.astype(np.float64)
    if a.ndim == 1 and b.ndim == 1:
        return np.array([np.dot(a64, b64)])
    size = lambda s: int(np.prod(s, dtype=np.int64))  # noqa: E731
    if ta:
        A = a64.reshape(a.shape[0], size(a.shape[1:])).T
        lead = list(a.shape[1:]) if a.ndim > 1 else []
    else:
        A = a64.reshape(size(a.shape[:-1]), a.shape[-1])
        lead = list(a.shape[:-1]) if a.ndim > 1 else []
    if tb:
        B = b64.reshape(size(b.shape[:-1]), b.shape[-1]).T
        tail = list(b.shape[:-1]) if b.ndim > 1 else []
    else:
        B = b64.reshape(b.shape[0], size(b.shape[1:]))
        tail = list(b.shape[1:]) if b.ndim > 1 else []
    if A.shape[1] != B.shape[0]:  # zero-size mismatch MXNet lets through: all zeros
        out = np.zeros((A.shape[0], B.shape[1]))
    else:
        out = A @ B
    return out.reshape(lead + tail)


def tol_for(dtype, k):
    if dtype == 'float64':
        return dict(rtol=1e-10, atol=1e-12)
    return dict(rtol=1e-4, atol=1e-5 * max(1, k) ** 0.5)


cases = []


def add_dot(name, ls, rs, dtype='float32', ta=False, tb=False):
    a = rand(ls, dtype)
    b = rand(rs, dtype)
    out = ref_dot(a, b, ta, tb).astype(dtype)
    k = (ls[0] if ta else ls[-1]) if len(ls) else 1
    params = {}
    if ta:
        params['transpose_a'] = True
    if tb:
        params['transpose_b'] = True
    cases.append(case(name, 'dot', [a, b], [out], params=params, **tol_for(dtype, k)))


for dt in ('float32', 'float64'):
    add_dot(f'dot_vec_vec_{dt}', (7,), (7,), dt)
    add_dot(f'dot_2d_{dt}', (5, 6), (6, 3), dt)
    add_dot(f'dot_2d_ta_{dt}', (6, 5), (6, 3), dt, ta=True)
    add_dot(f'dot_2d_tb_{dt}', (5, 6), (3, 6), dt, tb=True)
    add_dot(f'dot_2d_ta_tb_{dt}', (6, 5), (3, 6), dt, ta=True, tb=True)
    add_dot(f'dot_nd_{dt}', (2, 3, 4), (4, 5), dt)
    add_dot(f'dot_nd_rhs_{dt}', (3, 4), (4, 2, 5), dt)
    add_dot(f'dot_nd_nd_{dt}', (2, 3, 4), (4, 2, 2), dt)
    add_dot(f'dot_nd_ta_{dt}', (4, 2, 3), (4, 5), dt, ta=True)
    add_dot(f'dot_nd_tb_{dt}', (6, 4), (2, 3, 4), dt, tb=True)
    add_dot(f'dot_nd_ta_tb_{dt}', (4, 2, 3), (5, 2, 4), dt, ta=True, tb=True)
add_dot('dot_vec_mat', (3,), (3, 4))
add_dot('dot_mat_vec', (4, 3), (3,))
add_dot('dot_vec_ta_mat', (3,), (3, 4), ta=True)
add_dot('dot_mat_vec_tb', (4, 3), (3,), tb=True)
# Odd sizes around the register tiles and blocking.
for (m, k, n) in [(1, 1, 1), (3, 5, 7), (17, 33, 9), (63, 65, 7), (9, 129, 17), (13, 300, 5)]:
    add_dot(f'dot_odd_{m}x{k}x{n}', (m, k), (k, n))
    add_dot(f'dot_odd_{m}x{k}x{n}_ta_tb', (k, m), (n, k), ta=True, tb=True)
add_dot('dot_odd_f64_ta', (65, 17), (65, 9), 'float64', ta=True)
# Zero-size.
add_dot('dot_zero_m', (0, 3), (3, 4))
add_dot('dot_zero_n', (2, 3), (3, 0))
add_dot('dot_zero_k', (2, 0), (0, 4))
add_dot('dot_zero_k_mismatch', (2, 0), (3, 4))


def add_batch(name, ls, rs, dtype='float32', ta=False, tb=False):
    a = rand(ls, dtype)
    b = rand(rs, dtype)
    A = np.swapaxes(a, -1, -2) if ta else a
    B = np.swapaxes(b, -1, -2) if tb else b
    out = np.matmul(A.astype(np.float64), B.astype(np.float64)).astype(dtype)
    params = {}
    if ta:
        params['transpose_a'] = True
    if tb:
        params['transpose_b'] = True
    cases.append(case(name, 'batch_dot', [a, b], [out], params=params, **tol_for(dtype, A.shape[-1])))


for dt in ('float32', 'float64'):
    add_batch(f'batch_dot_{dt}', (3, 4, 5), (3, 5, 2), dt)
    add_batch(f'batch_dot_ta_{dt}', (3, 5, 4), (3, 5, 2), dt, ta=True)
    add_batch(f'batch_dot_tb_{dt}', (3, 4, 5), (3, 2, 5), dt, tb=True)
    add_batch(f'batch_dot_ta_tb_{dt}', (3, 5, 4), (3, 2, 5), dt, ta=True, tb=True)
add_batch('batch_dot_4d', (2, 3, 4, 5), (2, 3, 5, 6))
add_batch('batch_dot_odd', (2, 17, 33), (2, 33, 9))
add_batch('batch_dot_zero_batch', (0, 3, 4), (0, 4, 5))
add_batch('batch_dot_zero_k', (2, 3, 0), (2, 0, 5))


def add_gemm2(name, ashape, bshape, dtype='float32', ta=False, tb=False, alpha=1.0, axis=-2, op='_linalg_gemm2'):
    a = rand(ashape, dtype)
    b = rand(bshape, dtype)
    A = np.moveaxis(a.astype(np.float64), axis, -2)
    B = np.moveaxis(b.astype(np.float64), axis, -2)
    if ta:
        A = np.swapaxes(A, -1, -2)
    if tb:
        B = np.swapaxes(B, -1, -2)
    out = alpha * np.matmul(A, B)
    out = np.moveaxis(out, -2, axis).astype(dtype)
    params = {}
    if ta:
        params['transpose_a'] = True
    if tb:
        params['transpose_b'] = True
    if alpha != 1.0:
        params['alpha'] = alpha
    if axis != -2:
        params['axis'] = axis
    cases.append(case(name, op, [a, b], [out], params=params, **tol_for(dtype, A.shape[-1])))


for dt in ('float32', 'float64'):
    add_gemm2(f'gemm2_{dt}', (4, 5), (5, 3), dt)
    add_gemm2(f'gemm2_alpha_tb_{dt}', (4, 5), (3, 5), dt, tb=True, alpha=2.0)
    add_gemm2(f'gemm2_ta_{dt}', (5, 4), (5, 3), dt, ta=True, alpha=-0.5)
    add_gemm2(f'gemm2_batch_{dt}', (2, 3, 4, 5), (2, 3, 5, 2), dt)
add_gemm2('gemm2_alias', (3, 4), (4, 2), op='linalg_gemm2', alpha=3.0)
add_gemm2('gemm2_axis1', (2, 4, 3, 5), (2, 5, 3, 6), axis=1)
add_gemm2('gemm2_axis1_ta_tb', (2, 5, 3, 4), (2, 6, 3, 5), axis=1, ta=True, tb=True)
add_gemm2('gemm2_axis0', (4, 3, 5), (5, 3, 2), axis=0, alpha=0.25)
add_gemm2('gemm2_axis_neg3', (2, 4, 3, 5), (2, 5, 3, 6), axis=-3)
add_gemm2('gemm2_mxnet_doc', (2, 1, 2), (2, 1, 2), tb=True, alpha=2.0)
add_gemm2('gemm2_odd', (17, 33), (33, 9), alpha=1.5)

# _backward_dot, with its own generator so the cases above stay unchanged.
brng = np.random.default_rng(20240917)


def views(a, b, ta, tb):
    """MXNet's 2-D views of dot's operands: A stored (ma, na), B stored (mb, nb)."""
    size = lambda s: int(np.prod(s, dtype=np.int64))  # noqa: E731
    A = a.reshape(a.shape[0], size(a.shape[1:])) if ta else a.reshape(size(a.shape[:-1]), a.shape[-1])
    B = b.reshape(size(b.shape[:-1]), b.shape[-1]) if tb else b.reshape(b.shape[0], size(b.shape[1:]))
    return A, B


def add_backward_dot(name, ls, rs, dtype, ta=False, tb=False):
    a = brng.standard_normal(ls).astype(dtype)
    b = brng.standard_normal(rs).astype(dtype)
    c = ref_dot(a, b, ta, tb)
    og = brng.standard_normal(c.shape).astype(dtype)
    A, B = views(a.astype(np.float64), b.astype(np.float64), ta, tb)
    opA = A.T if ta else A
    opB = B.T if tb else B
    dC = og.astype(np.float64).reshape(opA.shape[0], opB.shape[1])
    dopA = dC @ opB.T
    dopB = opA.T @ dC
    dA = (dopA.T if ta else dopA).reshape(ls).astype(dtype)
    dB = (dopB.T if tb else dopB).reshape(rs).astype(dtype)
    params = {'transpose_a': ta, 'transpose_b': tb}
    k = opA.shape[1]
    cases.append(case(name, '_backward_dot', [og, a, b], [dA, dB], params=params,
                      **tol_for(dtype, max(k, opA.shape[0], opB.shape[1]))))


for dt in ('float32', 'float64'):
    for ta in (False, True):
        for tb in (False, True):
            add_backward_dot(f'_backward_dot_2d_{int(ta)}{int(tb)}_{dt}', (4, 3) if ta else (3, 4),
                             (5, 4) if tb else (4, 5), dt, ta, tb)
            add_backward_dot(f'_backward_dot_nd_{int(ta)}{int(tb)}_{dt}', (4, 2, 3) if ta else (2, 3, 4),
                             (2, 3, 4) if tb else (4, 2, 3), dt, ta, tb)
    add_backward_dot(f'_backward_dot_vec_vec_{dt}', (5,), (5,), dt)
    add_backward_dot(f'_backward_dot_vec_mat_{dt}', (3,), (3, 2, 2), dt)
    add_backward_dot(f'_backward_dot_mat_vec_{dt}', (2, 2, 3), (3,), dt)
add_backward_dot('_backward_dot_odd_f32', (17, 33), (33, 9), 'float32')

# Bad input.
f32 = lambda s: arr(np.zeros(s, np.float32))  # noqa: E731
cases += [
    case('dot_bad_k', 'dot', [f32((2, 3)), f32((4, 5))], error='dot shape error'),
    case('dot_bad_k_tb', 'dot', [f32((2, 3)), f32((5, 4))], params={'transpose_b': True}, error='dot shape error'),
    case('dot_bad_vectors', 'dot', [f32((3,)), f32((4,))], error='dot shape error'),
    case('dot_bad_transpose_vectors', 'dot', [f32((3,)), f32((3,))], params={'transpose_a': True},
         error='Cannot transpose vectors'),
    case('dot_bad_scalar', 'dot', [f32(()), f32((3,))], error='scalar tensor is not supported'),
    case('dot_bad_dtype', 'dot', [arr(np.zeros((2, 3), np.int32)), arr(np.zeros((3, 2), np.int32))],
         error='is not supported by'),
    case('dot_bad_param', 'dot', [f32((2, 3)), f32((3, 2))], params={'transpose_c': True},
         error="Cannot find argument 'transpose_c'"),
    case('batch_dot_bad_ndim', 'batch_dot', [f32((3, 4)), f32((4, 5))], error='N >= 3'),
    case('batch_dot_bad_batch', 'batch_dot', [f32((2, 3, 4)), f32((3, 4, 5))], error='leading batch dimensions'),
    case('batch_dot_bad_k', 'batch_dot', [f32((2, 3, 4)), f32((2, 5, 6))], error='batch_dot shape error'),
    case('gemm2_bad_k', '_linalg_gemm2', [f32((2, 3)), f32((4, 5))], error='Incompatible matrix dimensions'),
    case('gemm2_bad_axis', '_linalg_gemm2', [f32((2, 3)), f32((3, 5))], params={'axis': -1}, error='Invalid row axis'),
    case('gemm2_bad_batch', '_linalg_gemm2', [f32((2, 3, 4)), f32((3, 4, 5))],
         error='Shapes of inputs 0, 1 must be the same'),
    case('_backward_dot_bad_ograd', '_backward_dot', [f32((2, 4)), f32((2, 3)), f32((3, 5))],
         error='shape inconsistent: ograd is (2, 4) but inferred (2, 5)'),
    case('_backward_dot_bad_k', '_backward_dot', [f32((2, 5)), f32((2, 3)), f32((4, 5))], error='dot shape error'),
    case('_backward_dot_bad_dtype', '_backward_dot',
         [arr(np.zeros((2, 2), np.int32)), arr(np.zeros((2, 3), np.int32)), arr(np.zeros((3, 2), np.int32))],
         error='is not supported by'),
    case('gemm2_bad_dtype', '_linalg_gemm2', [arr(np.zeros((2, 2), np.uint8)), arr(np.zeros((2, 2), np.uint8))],
         error='is not supported by'),
]

write('linalg', cases)
