#!/usr/bin/env python3
"""Golden data for np.linalg (packages/ndarray/src/np/fns/linalg.test.ts), computed by Debian's
NumPy 1.24.2 — run with /usr/bin/python3, not pyenv's python3.

Cases are calls as the TypeScript namespace takes them (`fn` without the `linalg.` prefix, `args`
in TypeScript order, arrays as {"$a": encoded}, inf as {"$n": "inf"}), with either the expected
array(s) (`expect`, a list for tuple results), an invariant check (`check`: 'qr', 'svd', 'eigh',
'eig' — factors are not unique, so the test checks reconstruction, orthogonality and NumPy's
eigen/singular values given in `expect`), or NumPy's error text (`error`).

MXNet 2.0's dtype rules, applied to NumPy's float64 results here:
- det, slogdet, inv, cholesky, svd (la_op): float32 stays float32, float64 stays float64, integer
  inputs give the default float (float32), as MXNet's default-float rule;
- solve, qr, eig*, pinv, matrix_rank's input, tensorinv, tensorsolve, lstsq (numpy linalg ops):
  float32 (all inputs) stays float32, anything else is float64;
- norm of integers: the default float; matrix_power keeps integer dtypes for n >= 0.
Writes packages/ndarray/src/np/__golden__/linalg.json.
"""
import json
import pathlib

import numpy as np

OUT = pathlib.Path(__file__).resolve().parents[3] / 'packages/ndarray/src/np/__golden__/linalg.json'
rng = np.random.default_rng(1607)
F64 = np.float64


def enc(a):
    a = np.asarray(a)
    vals = a.ravel().tolist()
    if a.dtype == np.bool_:
        vals = [bool(v) for v in vals]
    return {'shape': list(a.shape), 'dtype': str(a.dtype), 'data': vals}


def A(a):
    return {'$a': enc(a)}


def mat(shape, dtype='float64', spd=False, well=True):
    """Random matrices; `well`: diagonally dominated (well conditioned); `spd`: symmetric positive definite."""
    if dtype.startswith('int'):
        x = rng.integers(-3, 4, size=shape)
        if well and len(shape) >= 2 and shape[-1] == shape[-2]:
            x = x + 8 * np.eye(shape[-1], dtype=np.int64)
        return x.astype(dtype)
    x = rng.standard_normal(shape)
    if spd:
        x = x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])
    elif well and len(shape) >= 2 and shape[-1] == shape[-2]:
        x = x + 3 * np.eye(shape[-1])
    return x.astype(dtype)


def la(dt):
    return dt if dt in ('float32', 'float64') else 'float32'


def npt(*dts):
    return 'float32' if all(d == 'float32' for d in dts) else 'float64'


cases = []


def add(fn, args, expect, grad=False, check=None, k=1):
    exp = [enc(e) for e in expect] if isinstance(expect, (list, tuple)) else enc(expect)
    c = {'fn': fn, 'args': args, 'expect': exp, 'k': k, 'grad': grad}
    if check:
        c['check'] = check
    cases.append(c)


def err(fn, args, f, part=None):
    """NumPy's message for a bad call (or `part` of it, where the rest depends on NumPy's evaluation order)."""
    try:
        f()
    except Exception as e:  # noqa: BLE001 - LinAlgError, ValueError, TypeError
        assert part is None or part in str(e)
        cases.append({'fn': fn, 'args': args, 'error': part or str(e)})
        return
    raise SystemExit(f'{fn}: NumPy accepted {args}')


F = lambda x: np.asarray(x, dtype=F64)  # noqa: E731

SQ = [(3, 3), (1, 1), (2, 4, 4), (0, 0), (2, 0, 0), (5, 5)]
for shape in SQ:
    for dt in ('float64', 'float32', 'int32'):
        a = mat(shape, dt)
        g = dt == 'float64' and 0 not in shape
        add('det', [A(a)], np.linalg.det(F(a)).astype(la(dt)), grad=g)
        sign, logdet = np.linalg.slogdet(F(a))
        add('slogdet', [A(a)], [sign.astype(la(dt)), logdet.astype(la(dt))], grad=g)
        add('inv', [A(a)], np.linalg.inv(F(a)).astype(la(dt)), grad=g)
        b = mat(shape[:-1] + (2,), dt)
        add('solve', [A(a), A(b)], np.linalg.solve(F(a), F(b)).astype(npt(dt, dt)), grad=g)
        bv = mat(shape[:-1], dt)
        add('solve', [A(a), A(bv)], np.linalg.solve(F(a), F(bv)[..., None])[..., 0].astype(npt(dt, dt)))
        s = mat(shape, dt if dt != 'int32' else 'float64', spd=True) if 0 not in shape else mat(shape, 'float64')
        add('cholesky', [A(s)], np.linalg.cholesky(F(s)).astype(la(str(s.dtype))),
            grad=dt == 'float64' and shape == (1, 1))
        add('cholesky', [A(s), {'upper': True}], np.swapaxes(np.linalg.cholesky(F(s)), -1, -2).astype(la(str(s.dtype))))
        add('eigvalsh', [A(s)], np.linalg.eigvalsh(F(s)).astype(npt(str(s.dtype))))
        add('eigvalsh', [A(s), 'U'], np.linalg.eigvalsh(F(s), 'U').astype(npt(str(s.dtype))))
        add('eigh', [A(s)], [np.linalg.eigvalsh(F(s)).astype(npt(str(s.dtype)))], check='eigh')
        if 0 not in shape:
            sym = s  # real eigenvalues for eig: symmetric input
            w = np.sort(np.linalg.eigvals(F(sym)).real, axis=-1)
            add('eigvals', [A(sym)], w.astype(npt(str(sym.dtype))))
            add('eig', [A(sym)], [w.astype(npt(str(sym.dtype)))], check='eig')
tri = np.array([[2.0, 1.0, 0.0], [0.0, 3.0, 1.0], [0.0, 0.0, -1.0]])
add('eigvals', [A(tri)], np.sort(np.linalg.eigvals(tri).real))
add('eig', [A(tri)], [np.sort(np.linalg.eigvals(tri).real)], check='eig')

for shape in [(3, 3), (4, 2), (2, 4), (2, 3, 2), (1, 1), (3, 1)]:
    for dt in ('float64', 'float32', 'int32'):
        a = mat(shape, dt)
        add('qr', [A(a)], [np.linalg.qr(F(a))[1].astype(npt(dt))], check='qr')
        add('svd', [A(a)], [np.linalg.svd(F(a), compute_uv=False).astype(la(dt))], check='svd')
        add('svd', [A(a), {'computeUv': False}], np.linalg.svd(F(a), compute_uv=False).astype(la(dt)))
        add('pinv', [A(a)], np.linalg.pinv(F(a)).astype(npt(dt)))
        add('matrixRank', [A(a)], np.asarray(np.linalg.matrix_rank(F(a))).astype('int64'))
        add('norm', [A(a)], np.asarray(np.linalg.norm(F(a))).astype(la(dt)), grad=dt == 'float64')
low = np.outer([1.0, 2.0, 3.0], [1.0, -1.0, 2.0])
add('matrixRank', [A(low)], np.asarray(np.linalg.matrix_rank(low)).astype('int64'))
add('matrixRank', [A(low), 0.5], np.asarray(np.linalg.matrix_rank(low, 0.5)).astype('int64'))
add('matrixRank', [A(np.ones(4))], np.asarray(np.linalg.matrix_rank(np.ones(4))).astype('int64'))
add('matrixRank', [A(np.zeros(4))], np.asarray(np.linalg.matrix_rank(np.zeros(4))).astype('int64'))
add('pinv', [A(low)], np.linalg.pinv(low))
add('pinv', [A(low), 0.9], np.linalg.pinv(low, 0.9))

# tensorinv / tensorsolve
t4 = mat((4, 6), 'float64')
t4 = (t4 @ t4.T + 4 * np.eye(4)).reshape(4, 2, 2)
t6 = mat((6, 6)).reshape(6, 2, 3)
for a, ind in [(t6, 1), (mat((2, 3, 6)), 2), (mat((4, 4)), 1)]:
    for dt in ('float64', 'float32'):
        x = a.astype(dt)
        add('tensorinv', [A(x), ind], np.linalg.tensorinv(F(x), ind).astype(npt(dt)), grad=dt == 'float64' and ind == 1)
a = mat((6, 2, 3))
b = mat((6,))
add('tensorsolve', [A(a), A(b)], np.linalg.tensorsolve(a, b), grad=True)
a2 = mat((2, 3, 6))
bb = mat((2, 3))
add('tensorsolve', [A(a2), A(bb)], np.linalg.tensorsolve(a2, bb))
a3 = mat((3, 6, 2))
b3 = mat((6,))
add('tensorsolve', [A(a3), A(b3), [0, 2]], np.linalg.tensorsolve(a3, b3, (0, 2)))

# norm
v = mat((5,))
m = mat((3, 4))
m3 = mat((2, 3, 4))
for ord_ in [None, 2, 1, 0, -1, 3, 0.5, 'inf', '-inf', -2]:
    o = np.inf if ord_ == 'inf' else -np.inf if ord_ == '-inf' else ord_
    add('norm', [A(v), {'ord': ord_}], np.asarray(np.linalg.norm(v, o)), grad=ord_ not in (0, 'inf', '-inf'))
    add('norm', [A(m3), {'ord': ord_, 'axis': -1, 'keepdims': True}],
        np.asarray(np.linalg.norm(m3, o, axis=-1, keepdims=True)))
    add('norm', [A(m), {'ord': ord_, 'axis': 0}], np.asarray(np.linalg.norm(m, o, axis=0)))
for ord_ in [None, 'fro', 'nuc', 'inf', '-inf', 1, -1, 2, -2]:
    o = np.inf if ord_ == 'inf' else -np.inf if ord_ == '-inf' else ord_
    add('norm', [A(m), {'ord': ord_}], np.asarray(np.linalg.norm(m, o)), grad=True)
    add('norm', [A(m3), {'ord': ord_, 'axis': [2, 1]}], np.asarray(np.linalg.norm(m3, o, axis=(2, 1))))
    add('norm', [A(m3), {'ord': ord_, 'axis': [0, -1], 'keepdims': True}],
        np.asarray(np.linalg.norm(m3, o, axis=(0, -1), keepdims=True)))
add('norm', [A(m3)], np.asarray(np.linalg.norm(m3)))
add('norm', [A(m3), {'keepdims': True}], np.asarray(np.linalg.norm(m3, keepdims=True)))
add('norm', [A(m.astype('float32')), {'ord': 'nuc'}], np.asarray(np.linalg.norm(m, 'nuc')).astype('float32'))
add('norm', [A(np.arange(6).reshape(2, 3).astype('int32')), {'axis': 1}],
    np.linalg.norm(np.arange(6).reshape(2, 3), axis=1).astype('float32'))
add('norm', [A(np.zeros((0, 3)))], np.asarray(np.linalg.norm(np.zeros((0, 3)))))

# matrix_power, multi_dot, lstsq
for n in [0, 1, 2, 3, 5, -1, -3]:
    for dt in ('float64', 'int32'):
        if dt == 'int32' and n < 0:
            continue
        a = mat((2, 3, 3), dt) if dt == 'float64' else rng.integers(-2, 3, (3, 3)).astype(dt)
        want = np.linalg.matrix_power(F(a), n)
        add('matrixPower', [A(a), n], want.astype(dt if n >= 0 else la(dt)), grad=dt == 'float64' and n != 0, k=9)
ai = rng.integers(-2, 3, (3, 3)).astype('int32') + 4 * np.eye(3, dtype='int32')
add('matrixPower', [A(ai), -2], np.linalg.matrix_power(F(ai), -2).astype('float32'))
for shapes in [[(3, 4), (4, 2)], [(4,), (4, 3), (3, 2)], [(2, 5), (5, 3), (3, 6), (6,)], [(3,), (3, 2), (2, 5), (5, 3), (3,)],
               [(10, 2), (2, 8), (8, 3), (3, 9)]]:
    xs = [mat(s) for s in shapes]
    add('multiDot', [[A(x) for x in xs]], np.linalg.multi_dot(xs), grad=len(xs) <= 3, k=10)
xs = [mat((2, 3), 'float32'), mat((3, 2), 'int32')]
add('multiDot', [[A(x) for x in xs]], np.linalg.multi_dot([F(x) for x in xs]).astype('float64'))

for ash, bsh, rc in [((5, 3), (5,), 'warn'), ((5, 3), (5, 2), None), ((3, 5), (3,), 'warn'), ((4, 4), (4, 2), 'warn'),
                     ((5, 3), (5, 1), 0.1)]:
    for dt in ('float64', 'float32'):
        a, b = mat(ash, dt, well=False), mat(bsh, dt)
        x, res, rank, s = np.linalg.lstsq(F(a), F(b), rcond=(-1 if rc == 'warn' else rc))
        args = [A(a), A(b)] + ([] if rc == 'warn' else [rc])
        add('lstsq', args, [x.astype(dt), np.asarray(res).astype(dt), np.asarray(rank, dtype='int64'), s.astype(dt)], k=5)
deficient = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
x, res, rank, s = np.linalg.lstsq(deficient, np.array([1.0, 2.0, 3.5]), rcond=None)
add('lstsq', [A(deficient), A(np.array([1.0, 2.0, 3.5])), None], [x, res, np.asarray(rank, dtype='int64'), s])

# Errors: NumPy's messages.
z = np.zeros
sing = np.array([[1.0, 2.0], [2.0, 4.0]])
err('inv', [A(sing)], lambda: np.linalg.inv(sing))
err('solve', [A(sing), A(np.ones(2))], lambda: np.linalg.solve(sing, np.ones(2)))
err('det', [A(z((2, 3)))], lambda: np.linalg.det(z((2, 3))))
err('det', [A(z((3,)))], lambda: np.linalg.det(z((3,))))
err('cholesky', [A(-np.eye(2))], lambda: np.linalg.cholesky(-np.eye(2)))
err('norm', [A(z((3,))), {'ord': 'fro'}], lambda: np.linalg.norm(z((3,)), 'fro'))
err('norm', [A(z((2, 3))), {'ord': 3, 'axis': [0, 1]}], lambda: np.linalg.norm(z((2, 3)), 3, (0, 1)))
err('norm', [A(z((2, 3, 4))), {'ord': 2}], lambda: np.linalg.norm(z((2, 3, 4)), 2))
err('norm', [A(z((2, 3))), {'axis': [1, 1]}], lambda: np.linalg.norm(z((2, 3)), axis=(1, 1)))
err('norm', [A(z((2, 3))), {'axis': 2}], lambda: np.linalg.norm(z((2, 3)), axis=2))
err('matrixPower', [A(z((2, 3))), 2], lambda: np.linalg.matrix_power(z((2, 3)), 2))
err('matrixPower', [A(z((2, 2))), 1.5], lambda: np.linalg.matrix_power(z((2, 2)), 1.5))
err('multiDot', [[A(z((2, 2)))]], lambda: np.linalg.multi_dot([z((2, 2))]))
err('multiDot', [[A(z((2, 3))), A(z((3, 4, 5))), A(z((5,)))]], lambda: np.linalg.multi_dot([z((2, 3)), z((3, 4, 5)), z((5,))]))
err('multiDot', [[A(z((2, 3))), A(z((4, 3))), A(z((3,)))]], lambda: np.linalg.multi_dot([z((2, 3)), z((4, 3)), z((3,))]), 'not aligned')
xs = [mat((2, 3)), mat((4, 3, 2))]
add('multiDot', [[A(x) for x in xs]], np.linalg.multi_dot(xs))
err('tensorinv', [A(z((2, 3))), 1], lambda: np.linalg.tensorinv(z((2, 3)), 1))
err('eigvalsh', [A(z((2, 3)))], lambda: np.linalg.eigvalsh(z((2, 3))))
cases.append({'fn': 'qr', 'args': [A(z((2, 2))), 'complete'], 'error': "Only default mode='reduced' is implemented."})
cases.append({'fn': 'pinv', 'args': [A(z((2, 2))), 1e-15, True], 'error': 'hermitian is not supported yet...'})

OUT.parent.mkdir(parents=True, exist_ok=True)
OUT.write_text(json.dumps({'generator': 'tools/golden/np/linalg.py', 'numpy': np.__version__, 'cases': cases},
                          separators=(',', ':')) + '\n')
print(f'wrote {OUT} ({len(cases)} cases, {sum("error" in c for c in cases)} errors)')
