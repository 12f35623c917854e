#!/usr/bin/env python3
"""Golden data for np's products (packages/ndarray/src/np/fns/products.test.ts): dot, vdot, inner,
outer, matmul, tensordot, einsum, kron, cross, trace, computed by Debian's NumPy 1.24.2 — run with
/usr/bin/python3, not pyenv's python3.

Each case is a call as the TypeScript namespace takes it: `fn` (camelCase name), `args` in
TypeScript order (arrays as {"$a": encoded}, options objects as they are) and the expected array
or NumPy's error text (a substring the MXNetError message must contain). MXNet 2.0's rules where
they differ from NumPy's are applied here: `trace` of an integer array keeps its dtype (MXNet's
`_npi_trace`; NumPy sums in int64), of a bool array is int64. Values: NumPy in float64 for float
results (cast after), exact integer arithmetic otherwise.
Writes packages/ndarray/src/np/__golden__/products.json.
"""
import json
import pathlib

import numpy as np

OUT = pathlib.Path(__file__).resolve().parents[3] / 'packages/ndarray/src/np/__golden__/products.json'
rng = np.random.default_rng(1606)


def arr(shape, dtype='float32'):
    if dtype == 'bool':
        return rng.random(shape) < 0.5
    if dtype.startswith('int') or dtype.startswith('uint'):
        return rng.integers(-4 if dtype.startswith('int') else 0, 5, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def enc(a):
    a = np.asarray(a)
    vals = a.ravel().tolist()
    if a.dtype == np.bool_:
        vals = [bool(v) for v in vals]
    return {'shape': list(a.shape), 'dtype': str(a.dtype), 'data': vals}


def A(a):
    return {'$a': enc(a)}


def ref(f, *xs):
    """NumPy's result: float results computed in float64 and cast to NumPy's dtype."""
    out = np.asarray(f(*xs))
    if out.dtype.kind == 'f':
        out = np.asarray(f(*[np.asarray(x).astype(np.float64) if np.asarray(x).dtype.kind == 'f' else x
                             for x in xs])).astype(out.dtype)
    return out


cases = []


def add(fn, args, expect, k=1, grad=False):
    cases.append({'fn': fn, 'args': args, 'expect': enc(expect), 'k': k, 'grad': grad})


def err(fn, args, f):
    try:
        f()
    except Exception as e:  # noqa: BLE001 - NumPy raises ValueError, IndexError, AxisError
        cases.append({'fn': fn, 'args': args, 'error': str(e).split(' [original->remapped]')[0]})
        return
    raise SystemExit(f'{fn}: NumPy accepted {args}')


def binary(fn, npf, pairs, dtypes=('float32',), grad_first=True):
    for sa, sb in pairs:
        for i, dt in enumerate(dtypes):
            da, db = (dt, dt) if isinstance(dt, str) else dt
            a, b = arr(sa, da), arr(sb, db)
            k = max(1, max(a.size, b.size))
            add(fn, [A(a), A(b)], ref(npf, a, b), k, grad=grad_first and i == 0 and da == 'float64')


F64 = ('float64', 'float32', 'int32', ('int32', 'float32'), ('float32', 'float64'), 'bool')

binary('dot', np.dot, [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((2, 3, 4), (4,)),
                       ((2, 3, 4), (5, 4, 2)), ((), (2, 3)), ((2, 3), ()), ((), ()), ((0, 3), (3, 2)),
                       ((2, 0), (0, 3))], F64)
binary('vdot', np.vdot, [((3,), (3,)), ((2, 3), (3, 2)), ((2, 2), (4,)), ((0,), (0,))], ('float64', 'int32'))
binary('inner', np.inner, [((3,), (3,)), ((2, 3), (3,)), ((2, 3), (4, 3)), ((2, 2, 3), (3,)), ((), (2, 3)),
                           ((0, 2), (3, 2))], ('float64', 'float32', 'int64'))
binary('outer', np.outer, [((3,), (4,)), ((2, 2), (3,)), ((), (3,)), ((0,), (3,))], ('float64', 'int32'))
binary('matmul', np.matmul, [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                             ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)), ((2, 1, 3, 4), (5, 4, 2)),
                             ((4, 2, 3), (3,)), ((3,), (4, 3, 2)), ((0, 2, 3), (3, 4)), ((2, 0), (0, 3)),
                             ((1, 17, 33), (2, 33, 9))], F64)
binary('kron', np.kron, [((2,), (3,)), ((2, 2), (3, 2)), ((2,), (2, 3)), ((2, 1, 2), (3, 2)), ((), (3,)),
                         ((0, 2), (2, 2))], ('float64', 'int32', ('int32', 'float32')))

for sa, sb, axes in [((2, 3, 4), (3, 4, 5), 2), ((2, 3), (3, 4), 1), ((2, 3), (4, 5), 0), ((3,), (3,), 1),
                     ((2, 3, 4), (4, 3, 5), [[1, 2], [1, 0]]), ((2, 3, 4), (4, 3), [[-1, 1], [0, -1]]),
                     ((2, 3), (3, 2), [1, 0]), ((3, 4), (4, 3), 0), ((0, 3), (3, 2), 1), ((2, 3), (2, 3), 2)]:
    for dt in ('float64', 'float32', 'int32'):
        a, b = arr(sa, dt), arr(sb, dt)
        add('tensordot', [A(a), A(b), axes], ref(lambda x, y: np.tensordot(x, y, axes), a, b),
            max(a.size, b.size), grad=dt == 'float64')

for subs, shapes in [('ij,jk->ik', [(2, 3), (3, 4)]), ('ii->i', [(3, 3)]), ('ii', [(3, 3)]),
                     ('bij,bjk->bik', [(2, 3, 4), (2, 4, 2)]), ('i,j->ij', [(2,), (3,)]),
                     ('...ij,...jk', [(2, 2, 3), (3, 2)]), ('ij,jk,kl->il', [(2, 3), (3, 4), (4, 2)]),
                     ('ijk->kji', [(2, 3, 4)]), (',ij->ij', [(), (2, 3)])]:
    for opt in (None, 'greedy', 'optimal', True):
        for dt in ('float64', 'int32'):
            ops = [arr(s, dt) for s in shapes]
            args = [subs] + [A(o) for o in ops] + ([] if opt is None else [{'optimize': opt}])
            add('einsum', args, ref(lambda *xs: np.einsum(subs, *xs), *ops), max(o.size for o in ops),
                grad=dt == 'float64' and opt in (None, 'optimal'))
a, b = arr((2, 3), 'int32'), arr((3, 2), 'float32')
add('einsum', ['ij,jk->ik', A(a), A(b)], ref(lambda x, y: np.einsum('ij,jk->ik', x, y), a, b), 3)

CROSS = [((3,), (3,), {}), ((2,), (2,), {}), ((2,), (3,), {}), ((3,), (2,), {}), ((4, 3), (3,), {}),
         ((2, 1, 3), (4, 3), {}), ((3, 4), (3, 4), {'axisa': 0, 'axisb': 0}),
         ((3, 4), (4, 3), {'axisa': 0, 'axisc': 0}), ((3, 2), (3, 2), {'axis': 0}),
         ((2, 3), (2, 3), {'axisc': -2}), ((5, 2), (5, 2), {}), ((0, 3), (3,), {})]
for sa, sb, kw in CROSS:
    for dt in ('float64', 'float32', 'int32'):
        a, b = arr(sa, dt), arr(sb, dt)
        add('cross', [A(a), A(b), kw], ref(lambda x, y: np.cross(x, y, **kw), a, b), 2, grad=dt == 'float64')

TRACE = [((3, 3), 0, 0, 1), ((3, 4), 1, 0, 1), ((4, 3), -1, 0, 1), ((3, 4), 5, 0, 1), ((2, 3, 4), 0, 0, 1),
         ((2, 3, 4), 1, 1, 2), ((2, 3, 4), 0, -1, 0), ((3, 2, 3), -2, 2, 0), ((0, 3), 0, 0, 1), ((2, 0, 0), 0, 1, 2)]
for sa, off, a1, a2 in TRACE:
    for dt in ('float64', 'float32', 'int32', 'bool'):
        a = arr(sa, dt)
        want = np.trace(a.astype(np.float64) if dt.startswith('float') else a, off, a1, a2)
        mx = 'int64' if dt == 'bool' else dt  # MXNet: same dtype (bool sums are int64)
        add('trace', [A(a), off, a1, a2], np.asarray(want).astype(mx), 3, grad=dt == 'float64')

# Errors: NumPy's messages.
z = np.zeros
err('dot', [A(z((2, 3))), A(z((4, 5)))], lambda: np.dot(z((2, 3)), z((4, 5))))
err('dot', [A(z((2, 3))), A(z((2,)))], lambda: np.dot(z((2, 3)), z((2,))))
err('vdot', [A(z((3,))), A(z((4,)))], lambda: np.vdot(z((3,)), z((4,))))
err('inner', [A(z((2, 3))), A(z((2,)))], lambda: np.inner(z((2, 3)), z((2,))))
err('matmul', [A(z((2, 3))), A(z((4, 5)))], lambda: np.matmul(z((2, 3)), z((4, 5))))
err('matmul', [A(z((3,))), A(z((4,)))], lambda: np.matmul(z((3,)), z((4,))))
err('matmul', [A(z((2, 3, 4))), A(z((3, 4, 5)))], lambda: np.matmul(z((2, 3, 4)), z((3, 4, 5))))
err('matmul', [A(z(())), A(z((3,)))], lambda: np.matmul(z(()), z((3,))))
err('tensordot', [A(z((2, 3))), A(z((4, 5))), 1], lambda: np.tensordot(z((2, 3)), z((4, 5)), 1))
err('tensordot', [A(z((2, 3))), A(z((3, 2))), [[0, 1], [0]]], lambda: np.tensordot(z((2, 3)), z((3, 2)), [[0, 1], [0]]))
err('einsum', ['ij,jk->ik', A(z((2, 3))), A(z((4, 5)))], lambda: np.einsum('ij,jk->ik', z((2, 3)), z((4, 5))))
err('einsum', ['ijk', A(z((2, 3)))], lambda: np.einsum('ijk', z((2, 3))))
err('cross', [A(z((4,))), A(z((3,))), {}], lambda: np.cross(z((4,)), z((3,))))
err('cross', [A(z((2, 3))), A(z((3, 3))), {}], lambda: np.cross(z((2, 3)), z((3, 3))))
err('cross', [A(z((3,))), A(z((3,))), {'axisa': 2}], lambda: np.cross(z((3,)), z((3,)), axisa=2))
err('cross', [A(z((3,))), A(z((3,))), {'axisc': 1}], lambda: np.cross(z((3,)), z((3,)), axisc=1))
err('trace', [A(z((3,)))], lambda: np.trace(z((3,))))
err('trace', [A(z((3, 3))), 0, 0, 0], lambda: np.trace(z((3, 3)), 0, 0, 0))
err('trace', [A(z((2, 3))), 0, 5, 1], lambda: np.trace(z((2, 3)), 0, 5, 1))

OUT.parent.mkdir(parents=True, exist_ok=True)
OUT.write_text(json.dumps({'generator': 'tools/golden/np/products.py', 'numpy': np.__version__, 'cases': cases},
                          separators=(',', ':')) + '\n')
print(f'wrote {OUT} ({len(cases)} cases, {sum("error" in c for c in cases)} errors)')
