"""Golden cases for the np linalg family (MXNet 2.0 np.linalg operators), from NumPy.

Run with Debian's NumPy (the project's reference): /usr/bin/python3 tools/golden/ops/np_linalg.py
Writes packages/conformance/src/__golden__/np_linalg.json.

Reference semantics (MXNet 2.0 src/operator/numpy/linalg/, tensor/la_op.cc), expressed with NumPy:
- _npi_det/_npi_slogdet/_npi_inv are aliases of _linalg_det/_linalg_slogdet/_linalg_inverse
  (float32/float64 only; the hidden LU/pivot outputs are not compared: the runner compares the
  listed, visible outputs). det of a 0x0 matrix is 1 and slogdet (1, 0), as NumPy.
- _npi_solve: b is (..., N) when b.ndim == a.ndim - 1, else (..., N, K); batch dims equal (MXNet
  does not broadcast). float32 with float32 stays float32, anything else float64.
- _npi_cholesky(lower): the lower factor of the lower triangle; lower=False gives U = L^T of the
  matrix mirrored from the upper triangle (NumPy 1.24 has no `upper`, so it is built from L).
- _npi_qr: reduced QR with LAPACK's Householder convention (unique, so compared as is).
- _npi_svd (M <= N): UT, L, V with A = UT diag(L) V and MXNet's sign rule (GesvdVecSign): the
  largest-|.| entry of each row of V positive (first on ties), UT's column flipped with it.
- _npi_eigh/_npi_eigvalsh(UPLO): ascending eigenvalues; eigenvectors (columns) normalised with
  the largest-|.| component positive (@mx's rule, applied to NumPy's vectors here).
- _npi_eig/_npi_eigvals: real eigenvalues sorted ascending (@mx's order), vectors unit length and
  sign-normalised as above; a complex eigenvalue is an MXNetError.
- _npi_pinv(_scalar_rcond): NumPy's pinv; rcond arrays broadcast over the batch.
- _npi_matrix_rank_none_tol: tol = max(s) * max(M, N) * eps with finfoEps32/64 passed as params
  (MXNet's Python layer passes np.finfo eps); _npi_matrix_rank(M, tol) compares s with
  tol[..., None] (MXNet appends that axis; NumPy would not).
float32 cases: the reference is computed in float64 from the float32 inputs and rounded, as the
@mx kernels compute (float64 inside, one rounding on store).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from common import arr, case, write  # noqa: E402

rng = np.random.default_rng(20240616)
cases = []
EPS32 = float(np.finfo(np.float32).eps)
EPS64 = float(np.finfo(np.float64).eps)
TOL = {'float32': (1e-5, 1e-6), 'float64': (1e-9, 1e-11)}


def shape_name(s):
    return 'x'.join(str(d) for d in s) if len(s) else 'scalar'


def well(shape, dtype):
    """Well-conditioned square matrices: random + n*I."""
    n = shape[-1]
    a = rng.standard_normal(shape) + n * np.eye(n)
    return a.astype(dtype)


def spd(shape, dtype):
    n = shape[-1]
    x = rng.standard_normal(shape)
    return (x @ np.swapaxes(x, -1, -2) + n * np.eye(n)).astype(dtype)


def add(name, op, inputs, outputs, params=None, dtype='float64', rtol=None, atol=None, **extra):
    r, a = TOL[dtype]
    outs = [o if isinstance(o, dict) else arr(np.asarray(o).astype(dtype)) for o in outputs]
    cases.append(case(name, op, inputs, outs, params=params, rtol=r if rtol is None else rtol,
                      atol=a if atol is None else atol, **extra))


def add_grad(name, op, inputs, outputs, params=None, dtype='float64'):
    """A backward-op case: float32 inputs are float64 values rounded, so the float64 reference
    differs from the kernel's result by the rounding times the conditioning: looser float32 tolerances."""
    tol = {'rtol': 1e-4, 'atol': 1e-5} if dtype == 'float32' else {}
    add(name, op, inputs, outputs, params=params, dtype=dtype, **tol)


def err(name, op, inputs, message, params=None):
    cases.append(case(name, op, inputs, error=message, params=params))


def col_sign(v):
    """Flip columns of v (..., N, K) so each column's largest-|.| entry is positive."""
    v = v.copy()
    idx = np.argmax(np.abs(v), axis=-2)
    picked = np.take_along_axis(v, idx[..., None, :], axis=-2)
    return v * np.where(picked < 0, -1.0, 1.0)


# ---- LU family ---------------------------------------------------------------------------------
for dt in ('float32', 'float64'):
    for s in [(3, 3), (2, 4, 4), (1, 1), (2, 2, 1, 1), (0, 3, 3), (2, 0, 0)]:
        a = well(s, dt)
        a64 = a.astype(np.float64)
        add(f'_npi_det/{dt}/{shape_name(s)}', '_npi_det', [a], [np.linalg.det(a64)], dtype=dt)
        sign, logdet = np.linalg.slogdet(a64)
        add(f'_npi_slogdet/{dt}/{shape_name(s)}', '_npi_slogdet', [a], [sign, logdet], dtype=dt)
        add(f'_npi_inv/{dt}/{shape_name(s)}', '_npi_inv', [a], [np.linalg.inv(a64)], dtype=dt)
neg = np.array([[1.0, 2.0], [3.0, 4.0]])
add('_linalg_det/float64/negative', '_linalg_det', [neg], [np.linalg.det(neg)])
add('_linalg_slogdet/float64/negative', '_linalg_slogdet', [neg], list(np.linalg.slogdet(neg)))
add('_linalg_inverse/float64/2x2', '_linalg_inverse', [neg], [np.linalg.inv(neg)])
sing = np.array([[1.0, 2.0], [2.0, 4.0]])
# det 0: MXNet stops det's gradient there (A^-1 divides by zero), so the name marks it degenerate.
add('_npi_det/float64/singular-by-zero', '_npi_det', [sing], [np.linalg.det(sing)])
add('_npi_slogdet/float64/singular-logabsdet-inf', '_npi_slogdet', [sing], list(np.linalg.slogdet(sing)))
err('_npi_inv/float64/singular', '_npi_inv', [sing], 'Singular matrix')
err('_npi_inv/float64/batch-one-singular', '_npi_inv', [np.stack([np.eye(2), sing])], 'Singular matrix')
err('_npi_inv/float64/not-square', '_npi_inv', [np.ones((2, 3))], 'Last 2 dimensions of the array must be square')
err('_npi_det/float64/1d', '_npi_det', [np.ones(3)], 'Array must be at least two-dimensional')
err('_npi_det/int32', '_npi_det', [np.eye(2, dtype=np.int32)], 'only supports 32-bit and 64-bit floating point')

for dt in ('float32', 'float64'):
    for sa, sb in [((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (2, 3)), ((2, 3, 3), (2, 3, 4)),
                   ((1, 1), (1,)), ((0, 3, 3), (0, 3)), ((2, 2), (2, 0))]:
        a = well(sa, dt)
        b = rng.standard_normal(sb).astype(dt)
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        if len(sb) == len(sa) - 1:
            x = np.linalg.solve(a64, b64[..., None])[..., 0] if b64.size else np.zeros(sb)
        else:
            x = np.linalg.solve(a64, b64) if b64.size else np.zeros(sb)
        add(f'_npi_solve/{dt}/{shape_name(sa)}-{shape_name(sb)}', '_npi_solve', [a, b], [x], dtype=dt)
ai = np.array([[2, 1], [1, 3]], dtype=np.int32)
bf = np.array([1.0, 2.0], dtype=np.float32)
add('_npi_solve/int32-float32/promotes', '_npi_solve', [ai, bf], [np.linalg.solve(ai.astype(np.float64), bf.astype(np.float64))])
err('_npi_solve/float64/singular', '_npi_solve', [sing, np.ones(2)], 'Singular matrix')
err('_npi_solve/float64/mismatch', '_npi_solve', [np.eye(3), np.ones(2)], "last dimension must be equal")
err('_npi_solve/float64/batch-mismatch', '_npi_solve', [np.ones((2, 3, 3)), np.ones((3, 3))], "dimensions don't match")

for dt in ('float32', 'float64'):
    for s, ind in [((4, 6, 8, 3), 2), ((6, 2, 3), 1), ((2, 2), 1)]:
        n = int(np.prod(s[:ind]))
        a = (rng.standard_normal((n, n)) + n * np.eye(n)).reshape(s).astype(dt)
        add(f'_npi_tensorinv/{dt}/{shape_name(s)}-ind{ind}', '_npi_tensorinv', [a],
            [np.linalg.tensorinv(a.astype(np.float64), ind=ind)], params={'ind': ind}, dtype=dt)
err('_npi_tensorinv/float64/not-square', '_npi_tensorinv', [np.ones((2, 3))], 'a shape must be square', params={'ind': 1})
for dt in ('float32', 'float64'):
    a = (rng.standard_normal((6, 6)) + 6 * np.eye(6)).reshape(2, 3, 6).astype(dt)
    b = rng.standard_normal((2, 3)).astype(dt)
    add(f'_npi_tensorsolve/{dt}/2x3x6', '_npi_tensorsolve', [a, b],
        [np.linalg.tensorsolve(a.astype(np.float64), b.astype(np.float64))], dtype=dt)
    a2 = (rng.standard_normal((6, 6)) + 6 * np.eye(6)).reshape(6, 2, 3).astype(dt)
    add(f'_npi_tensorsolve/{dt}/a_axes0', '_npi_tensorsolve', [a2, b],
        [np.linalg.tensorsolve(a2.astype(np.float64), b.astype(np.float64), axes=(0,))], params={'a_axes': [0]}, dtype=dt)
err('_npi_tensorsolve/float64/singular', '_npi_tensorsolve', [np.zeros((2, 2)), np.ones(2)], 'Singular matrix')

# ---- Cholesky ----------------------------------------------------------------------------------
for dt in ('float32', 'float64'):
    for s in [(3, 3), (2, 4, 4), (1, 1), (3, 1, 1), (0, 2, 2)]:
        a = spd(s, dt)
        a64 = a.astype(np.float64)
        # Only the lower triangle is read: put noise above it.
        noisy = a64 + np.triu(rng.standard_normal(s), 1) if s[-1] > 1 else a64
        add(f'_npi_cholesky/{dt}/{shape_name(s)}', '_npi_cholesky', [noisy.astype(dt)],
            [np.linalg.cholesky(a64)], dtype=dt)
        up = a64 + np.tril(rng.standard_normal(s), -1) if s[-1] > 1 else a64
        add(f'_npi_cholesky/{dt}/{shape_name(s)}-upper', '_npi_cholesky', [up.astype(dt)],
            [np.swapaxes(np.linalg.cholesky(a64), -1, -2)], params={'lower': False}, dtype=dt)
err('_npi_cholesky/float64/not-pd', '_npi_cholesky', [np.array([[1.0, 2.0], [2.0, 1.0]])], 'Matrix is not positive definite')
err('_npi_cholesky/float64/not-square', '_npi_cholesky', [np.ones((2, 3))], 'must be square')

# ---- QR ----------------------------------------------------------------------------------------
for dt in ('float32', 'float64'):
    for s in [(4, 3), (3, 3), (3, 5), (2, 4, 3), (1, 1), (0, 3, 2), (2, 3, 2)]:
        a = rng.standard_normal(s).astype(dt)
        q, r = np.linalg.qr(a.astype(np.float64))
        add(f'_npi_qr/{dt}/{shape_name(s)}', '_npi_qr', [a], [q, r], dtype=dt)
err('_npi_qr/float64/1d', '_npi_qr', [np.ones(3)], 'Array must be at least two-dimensional')

# ---- SVD ---------------------------------------------------------------------------------------
for dt in ('float32', 'float64'):
    for s in [(3, 5), (4, 4), (2, 3, 4), (1, 1), (1, 3), (0, 2, 3)]:
        a = rng.standard_normal(s).astype(dt)
        u, sv, vh = np.linalg.svd(a.astype(np.float64), full_matrices=False)
        if vh.size:
            idx = np.argmax(np.abs(vh), axis=-1)
            flip = np.where(np.take_along_axis(vh, idx[..., None], axis=-1) < 0, -1.0, 1.0)
            vh = vh * flip
            u = u * np.swapaxes(flip, -1, -2)
        add(f'_npi_svd/{dt}/{shape_name(s)}', '_npi_svd', [a], [u, sv, vh], dtype=dt)
err('_npi_svd/float64/tall', '_npi_svd', [np.ones((3, 2))], 'second to last dimension must be less than or equal')

# ---- eigh / eigvalsh ---------------------------------------------------------------------------
for dt in ('float32', 'float64'):
    for s in [(3, 3), (2, 4, 4), (1, 1), (0, 3, 3)]:
        base = rng.standard_normal(s)
        for uplo in ('L', 'U'):
            a = base.astype(dt)
            w, v = np.linalg.eigh(a.astype(np.float64), UPLO=uplo)
            add(f'_npi_eigh/{dt}/{shape_name(s)}-{uplo}', '_npi_eigh', [a], [w, col_sign(v)], params={'UPLO': uplo}, dtype=dt)
            add(f'_npi_eigvalsh/{dt}/{shape_name(s)}-{uplo}', '_npi_eigvalsh', [a],
                [np.linalg.eigvalsh(a.astype(np.float64), UPLO=uplo)], params={'UPLO': uplo}, dtype=dt)

# ---- eig / eigvals (real spectra) --------------------------------------------------------------
for dt in ('float32', 'float64'):
    for s in [(3, 3), (2, 4, 4), (1, 1), (0, 2, 2)]:
        n = s[-1]
        d = np.sort(rng.uniform(-3, 3, s[:-1])) + np.arange(n)  # distinct, spread
        p = rng.standard_normal(s) + n * np.eye(n)
        a = (p @ (d[..., None] * np.linalg.inv(p))).astype(dt) if n else np.zeros(s, dt)
        w, v = np.linalg.eig(a.astype(np.float64))
        w = w.real
        v = v.real
        order = np.argsort(w, axis=-1, kind='stable')
        w = np.take_along_axis(w, order, axis=-1)
        v = np.take_along_axis(v, order[..., None, :], axis=-1)
        add(f'_npi_eig/{dt}/{shape_name(s)}', '_npi_eig', [a], [w, col_sign(v)], dtype=dt)
        add(f'_npi_eigvals/{dt}/{shape_name(s)}', '_npi_eigvals', [a], [w], dtype=dt)
rot = np.array([[0.0, -1.0], [1.0, 0.0]])
err('_npi_eig/float64/complex', '_npi_eig', [rot], 'Complex eigvals is unsupported in linalg')
err('_npi_eigvals/float64/complex', '_npi_eigvals', [rot], 'Complex eigvals is unsupported in linalg')

# ---- pinv, matrix_rank -------------------------------------------------------------------------
deficient = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
for dt in ('float32', 'float64'):
    for s in [(3, 4), (4, 3), (2, 3, 2), (1, 1)]:
        a = rng.standard_normal(s).astype(dt)
        add(f'_npi_pinv_scalar_rcond/{dt}/{shape_name(s)}', '_npi_pinv_scalar_rcond', [a],
            [np.linalg.pinv(a.astype(np.float64))], dtype=dt)
    a = deficient.astype(dt)
    add(f'_npi_pinv_scalar_rcond/{dt}/rank-deficient', '_npi_pinv_scalar_rcond', [a],
        [np.linalg.pinv(a.astype(np.float64), rcond=1e-6)], params={'rcond': 1e-6}, dtype=dt)
    a = rng.standard_normal((2, 3, 4)).astype(dt)
    rc = np.array([1e-15, 0.5], dtype=dt)
    add(f'_npi_pinv/{dt}/rcond-array', '_npi_pinv', [a, rc],
        [np.linalg.pinv(a.astype(np.float64), rcond=rc.astype(np.float64))], dtype=dt)
err('_npi_pinv/float64/rcond-shape', '_npi_pinv', [np.ones((2, 3, 4)), np.ones(3)], 'non-broadcastable')

for dt in ('float32', 'float64'):
    eps = {'finfoEps32': EPS32, 'finfoEps64': EPS64}
    for nm, a in [('full', rng.standard_normal((3, 4))), ('deficient', deficient),
                  ('batched', np.stack([deficient, np.eye(3), np.zeros((3, 3))])), ('1d', np.array([0.0, 1.0])),
                  ('1d-zero', np.zeros(3))]:
        a = a.astype(dt)
        add(f'_npi_matrix_rank_none_tol/{dt}/{nm}', '_npi_matrix_rank_none_tol', [a],
            [arr(np.linalg.matrix_rank(a), 'int64')], params=eps, dtype=dt)
    a = np.stack([deficient, np.diag([1.0, 1e-3, 1e-6])]).astype(dt)
    tol = np.array([1e-10, 1e-4], dtype=dt)
    s = np.linalg.svd(a.astype(np.float64), compute_uv=False)
    add(f'_npi_matrix_rank/{dt}/tol-array', '_npi_matrix_rank', [a, tol],
        [arr(np.count_nonzero(s > tol.astype(np.float64)[..., None], axis=-1), 'int64')], dtype=dt)
err('_npi_matrix_rank_none_tol/float64/empty', '_npi_matrix_rank_none_tol', [np.zeros((0, 3))], 'zero-size')

# ---- backward ops (MXNet 2.0's formulas, written here with NumPy) ---------------------------------
# The hidden LU/pivot inputs of det/slogdet's backward are LAPACK getrf's factors of A (scipy's
# lu_factor: P·A = L·U, 0-based row interchanges) — the @mx kernels' convention for those outputs.
import scipy.linalg  # noqa: E402


def inv_t(a):
    return np.swapaxes(np.linalg.inv(a), -1, -2)


for dt in ('float32', 'float64'):
    a = well((2, 3, 3), dt)
    a64 = a.astype(np.float64)
    lus, pivs = zip(*(scipy.linalg.lu_factor(m) for m in a64))
    lu, piv = np.stack(lus), np.stack(pivs).astype(np.int32)
    det = np.linalg.det(a64)
    dd = rng.standard_normal(2)
    add_grad(f'_backward_linalg_det/{dt}/2x3x3', '_backward_linalg_det',
        [dd.astype(dt), det.astype(dt), lu.astype(dt), piv], [(dd * det)[:, None, None] * inv_t(a64)], dtype=dt)
    sign, logdet = np.linalg.slogdet(a64)
    add_grad(f'_backward_linalg_slogdet/{dt}/2x3x3', '_backward_linalg_slogdet',
        [dd.astype(dt), sign.astype(dt), logdet.astype(dt), lu.astype(dt), piv], [dd[:, None, None] * inv_t(a64)], dtype=dt)
    b = np.linalg.inv(a64)
    db = rng.standard_normal(b.shape)
    bt = np.swapaxes(b, -1, -2)
    add_grad(f'_backward_linalg_inverse/{dt}/2x3x3', '_backward_linalg_inverse', [db.astype(dt), b.astype(dt)],
        [-(bt @ db @ bt)], dtype=dt)
    for sb in [(2, 3), (2, 3, 2)]:
        bb = rng.standard_normal(sb)
        vec = len(sb) == 2
        x = np.linalg.solve(a64, bb[..., None] if vec else bb)
        dx = rng.standard_normal(x.shape)
        dbb = np.linalg.solve(np.swapaxes(a64, -1, -2), dx)
        da = -(dbb @ np.swapaxes(x, -1, -2))
        add_grad(f'_backward_npi_solve/{dt}/{shape_name(sb)}', '_backward_npi_solve',
            [(dx[..., 0] if vec else dx).astype(dt), a, bb.astype(dt), (x[..., 0] if vec else x).astype(dt)],
            [arr(da.astype(dt)), arr((dbb[..., 0] if vec else dbb).astype(dt))], dtype=dt)
    t = (rng.standard_normal((6, 6)) + 6 * np.eye(6)).reshape(2, 3, 6)
    out = np.linalg.tensorinv(t, ind=2)
    dout = rng.standard_normal(out.shape)
    bm = out.reshape(6, 6)
    add_grad(f'_backward_npi_tensorinv/{dt}/2x3x6', '_backward_npi_tensorinv', [dout.astype(dt), out.astype(dt)],
        [(-(bm.T @ dout.reshape(6, 6) @ bm.T)).reshape(t.shape)], params={'ind': 2}, dtype=dt)
    t2 = (rng.standard_normal((6, 6)) + 6 * np.eye(6)).reshape(6, 2, 3)
    rhs = rng.standard_normal((2, 3))
    x = np.linalg.tensorsolve(t2, rhs, axes=(0,))
    dx = rng.standard_normal(x.shape)
    tm = np.moveaxis(t2, 0, -1).reshape(6, 6)
    drhs = np.linalg.solve(tm.T, dx.reshape(6))
    dtm = -np.outer(drhs, x.reshape(6))
    add_grad(f'_backward_npi_tensorsolve/{dt}/a_axes0', '_backward_npi_tensorsolve',
        [dx.astype(dt), t2.astype(dt), rhs.astype(dt), x.astype(dt)],
        [arr(np.moveaxis(dtm.reshape(2, 3, 6), -1, 0).astype(dt)), arr(drhs.reshape(2, 3).astype(dt))],
        params={'a_axes': [0]}, dtype=dt)
    # Cholesky: dA = 1/2 L^-T Phi(L^T dL) L^-1, Phi mirroring the lower triangle (symmetric).
    l = np.linalg.cholesky(spd((2, 3, 3), 'float64'))
    dl = np.tril(rng.standard_normal((2, 3, 3)))
    for lower in (True, False):
        ll, dll = (l, dl) if lower else (np.swapaxes(l, -1, -2), np.swapaxes(dl, -1, -2))
        xm = np.swapaxes(l, -1, -2) @ dl
        xm = np.tril(xm) + np.swapaxes(np.tril(xm, -1), -1, -2)
        li = np.linalg.inv(l)
        ga = 0.5 * np.swapaxes(li, -1, -2) @ xm @ li
        add_grad(f'_backward_linalg_potrf/{dt}/2x3x3-{"lower" if lower else "upper"}', '_backward_linalg_potrf',
            [dll.astype(dt), ll.astype(dt)], [ga], params={'lower': lower}, dtype=dt)
    # QR (MXNet qr_backward), tall and wide.
    def qr_back(dq, dr, q, r):
        m = r @ np.swapaxes(dr, -1, -2) - np.swapaxes(dq, -1, -2) @ q
        m = np.tril(m) + np.swapaxes(np.tril(m, -1), -1, -2)
        rhs = dq + q @ m
        return np.swapaxes(np.linalg.solve(r, np.swapaxes(rhs, -1, -2)), -1, -2)
    for s in [(4, 3), (3, 5)]:
        a = rng.standard_normal(s)
        q, r = np.linalg.qr(a)
        dq = rng.standard_normal(q.shape)
        dr = rng.standard_normal(r.shape)
        mm, nn = s
        if mm >= nn:
            da = qr_back(dq, dr, q, r)
        else:
            u, du, y, dv = r[:, :mm], dr[:, :mm], a[:, mm:], dr[:, mm:]
            da = np.concatenate([qr_back(dq + y @ dv.T, du, q, u), q @ dv], axis=1)
        add_grad(f'_backward_npi_qr/{dt}/{shape_name(s)}', '_backward_npi_qr',
            [dq.astype(dt), dr.astype(dt), a.astype(dt), q.astype(dt), r.astype(dt)], [da], dtype=dt)
    # SVD (MXNet gesvd_backward): dA = UT (dV/L + G V).
    a = rng.standard_normal((2, 3, 4))
    u, sv, v = np.linalg.svd(a, full_matrices=False)
    dut, dsv, dv = (rng.standard_normal(x.shape) for x in (u, sv, v))
    dvs = dv / sv[..., :, None]
    g = dvs @ np.swapaxes(v, -1, -2)
    diag = np.diagonal(g, axis1=-2, axis2=-1).copy()
    g = g * sv[..., None, :] + np.swapaxes(dut, -1, -2) @ u
    li, lj = sv[..., :, None], sv[..., None, :]
    with np.errstate(divide='ignore', invalid='ignore'):
        e = (g - np.swapaxes(g, -1, -2)) / (li - lj) / (li + lj)
    upper = np.triu(np.ones((3, 3), bool), 1)
    gg = np.where(upper, e * lj, 0.0) + np.where(upper.T, np.swapaxes(e, -1, -2) * lj, 0.0)
    gg = gg + np.eye(3) * (dsv - diag)[..., None, :]
    add_grad(f'_backward_npi_svd/{dt}/2x3x4', '_backward_npi_svd',
        [dut.astype(dt), dsv.astype(dt), dv.astype(dt), u.astype(dt), sv.astype(dt), v.astype(dt)],
        [u @ (dvs + gg @ v)], dtype=dt)

write('np_linalg', cases)
