"""Golden data for the np products area: `_npi_einsum`, its backward, and einsum's parser and planner.

Writes (run with Debian's NumPy 1.24: /usr/bin/python3 tools/golden/ops/np_products.py):
- packages/conformance/src/__golden__/np_products.json: op-level cases of `_npi_einsum` (params
  num_args, subscripts, optimize as MXNet 2.0's) and `_backward_npi_einsum`, plus bad-input cases
  whose `error` is NumPy's own message.
- packages/ops/src/defs/np/__golden__/einsum_parse.json: (subscripts, shapes) -> NumPy's output shape
  or its ValueError text, curated and random strings, for the pure parser's test.
- packages/ops/src/defs/np/__golden__/einsum_path.json: `np.einsum_path` for greedy and optimal:
  the path, each step's removed labels, scaling and BLAS verdict, the FLOP counts, for the planner.

Reference values: np.einsum in float64 (float32 cases are cast after). Backward cases: the gradient
of sum(ograd * einsum(...)) with respect to each operand, computed element by element as the
einsum with that operand replaced by a unit tensor (einsum is linear in each operand), so no
gradient formula of ours is involved.
"""
import json
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from common import ROOT, case, write  # noqa: E402

rng = np.random.default_rng(20250116)
OPS_GOLDEN = os.path.join(ROOT, 'packages', 'ops', 'src', 'defs', 'np', '__golden__')
LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'


def rand(shape, dtype):
    if np.dtype(dtype).kind == 'f':
        return rng.standard_normal(shape).astype(dtype)
    if np.dtype(dtype).kind == 'b':
        return rng.random(shape) < 0.5
    if np.dtype(dtype).kind == 'u':
        return rng.integers(0, 5, shape).astype(dtype)
    return rng.integers(-4, 5, shape).astype(dtype)


def tol(dtype, k=1):
    if dtype == 'float64':
        return dict(rtol=1e-10, atol=1e-12 * max(1, k))
    if dtype == 'float32':
        return dict(rtol=1e-4, atol=1e-5 * max(1, k) ** 0.5)
    return dict(rtol=0.0, atol=0.0)


def params(subs, n, optimize=0):
    p = {'num_args': n, 'subscripts': subs}
    if optimize:
        p['optimize'] = optimize
    return p


cases = []


def reference(subs, ops):
    dt = np.result_type(*ops)
    if dt.kind == 'f':
        out = np.einsum(subs, *[o.astype(np.float64) for o in ops]).astype(dt)
    else:
        out = np.einsum(subs, *ops)
    return np.asarray(out, dtype=dt)


def add(name, subs, shapes, dtypes='float32', optimize=0):
    if isinstance(dtypes, str):
        dtypes = [dtypes] * len(shapes)
    ops = [rand(s, d) for s, d in zip(shapes, dtypes)]
    out = reference(subs, ops)
    k = max([1] + [int(np.prod(s)) for s in shapes]) // max(1, out.size)
    cases.append(case(f'einsum_{name}', '_npi_einsum', ops, [out], params=params(subs, len(ops), optimize),
                      **tol(str(out.dtype), k)))


def add_error(name, subs, shapes, optimize=0):
    ops = [np.zeros(s, dtype=np.float32) for s in shapes]
    try:
        np.einsum(subs, *ops)
    except ValueError as e:
        cases.append(case(f'einsum_error_{name}', '_npi_einsum', ops, params=params(subs, len(ops), optimize),
                          error=str(e)))
        return
    raise SystemExit(f'{name}: NumPy accepted {subs!r}')


# Explicit and implicit, the common products.
add('matmul', 'ij,jk->ik', [(3, 4), (4, 5)])
add('matmul_implicit', 'ij,jk', [(3, 4), (4, 5)])
add('matmul_f64', 'ij,jk->ik', [(5, 7), (7, 3)], 'float64')
add('matmul_out_transposed', 'ij,jk->ki', [(3, 4), (4, 5)])
add('matmul_lhs_transposed', 'ji,jk->ik', [(4, 3), (4, 5)])
add('matmul_rhs_transposed', 'ij,kj->ik', [(3, 4), (5, 4)])
add('bmm', 'bij,bjk->bik', [(2, 3, 4), (2, 4, 5)])
add('bmm_f64', 'bij,bjk->bik', [(3, 5, 2), (3, 2, 4)], 'float64')
add('bmm_batch_last', 'ijb,jkb->bik', [(3, 4, 2), (4, 5, 2)])
add('bmm_batch_middle', 'ibj,bjk->ibk', [(3, 2, 4), (2, 4, 5)])
add('matvec', 'ij,j->i', [(4, 6), (6,)])
add('vecmat', 'i,ij->j', [(4,), (4, 6)])
add('inner', 'i,i->', [(7,)] * 2)
add('inner_implicit', 'i,i', [(7,)] * 2)
add('outer', 'i,j->ij', [(3,), (4,)])
add('outer_implicit', 'i,j', [(3,), (4,)])
add('outer_3d', 'ij,k->ikj', [(2, 3), (4,)])
add('hadamard', 'ij,ij->ij', [(3, 4)] * 2)
add('hadamard_sum_rows', 'ij,ij->i', [(3, 4)] * 2)
add('tensordot_2axes', 'ijk,jkl->il', [(2, 3, 4), (3, 4, 5)])
add('contract_two_split', 'ajbk,jckb->ac', [(2, 3, 2, 4), (3, 2, 4, 2)])
add('uppercase', 'iJ,Jk->ik', [(3, 4), (4, 2)])
add('uppercase_implicit_order', 'iI', [(2, 3)])
add('spaces', ' ij , jk -> ik ', [(3, 4), (4, 5)])
# One operand: transpose, sums, diagonal, trace.
add('transpose', 'ij->ji', [(3, 4)])
add('implicit_transpose', 'ba', [(3, 4)])
add('permute_3d', 'ijk->kij', [(2, 3, 4)])
add('sum_all', 'ij->', [(3, 4)])
add('sum_axis0', 'ij->j', [(3, 4)])
add('sum_axis1_f64', 'ij->i', [(3, 4)], 'float64')
add('trace', 'ii', [(4, 4)])
add('trace_explicit', 'ii->', [(4, 4)])
add('diagonal', 'ii->i', [(4, 4)])
add('batch_diagonal', 'bii->bi', [(2, 3, 3)])
add('batch_trace', '...ii->...', [(2, 3, 3)])
add('diag_3d', 'iii->i', [(3, 3, 3)])
add('diag_keep_other', 'iji->ij', [(3, 2, 3)])
add('copy', 'ij->ij', [(2, 3)])
add('identity_implicit', 'ij', [(2, 3)])
# Repeated labels across and within operands.
add('diag_times_vec', 'ii,i->i', [(3, 3), (3,)])
add('trace_of_product', 'ij,ji->', [(3, 4), (4, 3)])
add('diag_of_product', 'ij,ji->i', [(3, 4), (4, 3)])
add('sum_only_in_lhs', 'ijk,jl->il', [(2, 3, 4), (3, 5)])
add('sum_only_in_both', 'ij,kl->', [(2, 3), (4, 5)])
# Ellipsis and broadcasting.
add('ellipsis_matmul', '...ij,...jk->...ik', [(2, 3, 4), (2, 4, 5)])
add('ellipsis_broadcast', '...ij,...jk->...ik', [(2, 1, 3, 4), (5, 4, 2)])
add('ellipsis_implicit', '...ij,...jk', [(2, 3, 4), (4, 5)])
add('ellipsis_front', 'i...->...', [(3, 2, 4)])
add('ellipsis_middle', 'i...j->...', [(3, 2, 4, 5)])
add('ellipsis_only', '...', [(2, 3)])
add('ellipsis_sum_to_scalar_ops', 'i...,i...->...', [(3, 2), (3, 2)])
add('ellipsis_mixed_rank', 'ij...,j...->i...', [(2, 3, 4), (3, 1)])
add('ellipsis_empty', '...i,...i->...', [(3,), (3,)])
add('ellipsis_output_transposed', '...i->i...', [(2, 3, 4)])
add('broadcast_label_dim1', 'ij,ij->ij', [(1, 3), (2, 3)])
add('broadcast_contracted_dim1', 'ij,jk->ik', [(2, 1), (4, 5)])
add('broadcast_batch_dim1', 'bij,bjk->bik', [(1, 3, 4), (2, 4, 5)])
add('scalar_operand', ',ij->ij', [(), (2, 3)])
add('scalars', ',->', [(), ()])
add('scalar_implicit', '', [()])
# Zero-size.
add('zero_m', 'ij,jk->ik', [(0, 3), (3, 4)])
add('zero_k', 'ij,jk->ik', [(2, 0), (0, 4)])
add('zero_sum', 'i->', [(0,)])
add('zero_batch', 'bij,bjk->bik', [(0, 3, 4), (0, 4, 5)])
add('zero_diagonal', 'ii->i', [(0, 0)])
add('zero_broadcast', '...i,...i->...', [(0, 3), (1, 3)])
# Dtypes: integers, bool, promotion.
add('int32', 'ij,jk->ik', [(3, 4), (4, 2)], 'int32')
add('int64', 'ij,jk->ik', [(3, 4), (4, 2)], 'int64')
add('int8_wraps', 'i,i->', [(40,), (40,)], 'int8')
add('uint8', 'ij->i', [(3, 4)], 'uint8')
add('bool', 'ij,jk->ik', [(3, 4), (4, 2)], 'bool')
add('bool_trace', 'ii', [(3, 3)], 'bool')
add('mixed_f32_f64', 'ij,jk->ik', [(3, 4), (4, 2)], ['float32', 'float64'])
add('mixed_i32_f32', 'ij,jk->ik', [(3, 4), (4, 2)], ['int32', 'float32'])
add('mixed_i8_u8', 'ij,jk->ik', [(3, 4), (4, 2)], ['int8', 'uint8'])
add('mixed_bool_i32', 'i,i->i', [(5,), (5,)], ['bool', 'int32'])
add('mixed_i64_f64', 'ij,j->i', [(3, 4), (4,)], ['int64', 'float64'])
add('mixed_three', 'i,i,i->', [(4,)] * 3, ['int8', 'int32', 'float32'])
# Several operands, each path search.
for opt in (0, 1, 2):
    add(f'chain3_opt{opt}', 'ij,jk,kl->il', [(3, 4), (4, 5), (5, 2)], optimize=opt)
    add(f'chain4_opt{opt}', 'ab,bc,cd,de->ae', [(2, 6), (6, 3), (3, 7), (7, 2)], optimize=opt)
    add(f'star_opt{opt}', 'ia,ib,ic->abc', [(5, 2), (5, 3), (5, 2)], optimize=opt)
    add(f'mixed_contract_opt{opt}', 'ijk,jl,kl->il', [(2, 3, 4), (3, 5), (4, 5)], optimize=opt)
    add(f'numpy_doc_opt{opt}', 'ea,fb,abcd,gc,hd->efgh', [(3, 2), (3, 2), (2, 2, 2, 2), (3, 2), (3, 2)],
        optimize=opt)
    add(f'outer3_opt{opt}', 'i,j,k->ijk', [(2,), (3,), (2,)], optimize=opt)
    add(f'trace_chain_opt{opt}', 'ij,jk,ki->', [(3, 4), (4, 2), (2, 3)], optimize=opt)
    add(f'ellipsis3_opt{opt}', '...ij,...jk,...kl->...il', [(2, 3, 4), (1, 4, 2), (2, 2, 3)], optimize=opt)
    add(f'diag3_opt{opt}', 'ii,ij,jk->ik', [(3, 3), (3, 4), (4, 2)], optimize=opt)
    add(f'f64_chain_opt{opt}', 'ij,jk,kl,lm->im', [(2, 3), (3, 9), (9, 4), (4, 2)], 'float64', optimize=opt)
add('int_chain_greedy', 'ij,jk,kl->il', [(3, 4), (4, 5), (5, 2)], 'int32', optimize=1)
add('bmm_larger', 'bij,bjk->bik', [(2, 17, 33), (2, 33, 9)])
add('bmm_larger_greedy', 'bij,bjk->bik', [(2, 9, 17), (2, 17, 5)], optimize=1)
add('matmul_odd', 'ik,kj->ij', [(17, 33), (33, 9)])

# Bad input: NumPy's messages.
add_error('too_many_subscripts', 'ijk', [(2, 3)])
add_error('too_few_subscripts', 'ij', [(2, 3, 4)])
add_error('invalid_char', 'i1', [(2, 3)])
add_error('invalid_output_char', 'ij->i$', [(2, 3)])
add_error('output_not_in_input', 'ij->k', [(2, 3)])
add_error('output_repeated', 'ij->ii', [(3, 3)])
add_error('more_terms_than_operands', 'ij,jk->ik', [(2, 3)])
add_error('more_operands_than_terms', 'i->', [(3,), (3,)])
add_error('mismatch', 'ij,jk->ik', [(2, 3), (4, 5)])
add_error('mismatch_elementwise', 'ab,ab->ab', [(2, 3), (3, 2)])
add_error('mismatch_ellipsis', '...i,...i', [(2, 3), (4, 3)])
add_error('collapse_single', 'ii->i', [(2, 3)])
add_error('collapse_operand', 'ii', [(2, 3)])
add_error('collapse_dim1', 'ii,ii->i', [(3, 1), (3, 3)])
add_error('bad_dot', 'i..j', [(3,)])
add_error('two_ellipses', 'i...j...', [(2, 3)])
add_error('bad_output_dot', 'i->.', [(2,)])
add_error('output_needs_ellipsis', '...i->i', [(2, 3)])
add_error('bad_arrow', 'ij-k', [(2, 2)])
add_error('lone_gt', 'ij->j>', [(2, 2)])
add_error('no_output_subscripts_for_dims', '->i', [(2,)])


def grad_reference(subs, ops, og):
    """d sum(og * einsum(subs, *ops)) / d ops[i], element by element (einsum is linear in ops[i])."""
    grads = []
    for i, x in enumerate(ops):
        g = np.zeros(x.shape, dtype=np.float64)
        for idx in np.ndindex(*x.shape):
            e = np.zeros(x.shape, dtype=np.float64)
            e[idx] = 1.0
            args = [o.astype(np.float64) if j != i else e for j, o in enumerate(ops)]
            g[idx] = np.sum(og * np.einsum(subs, *args))
        grads.append(g)
    return grads


def add_backward(name, subs, shapes, dtype='float64', optimize=0):
    ops = [rand(s, dtype) for s in shapes]
    out = np.einsum(subs, *[o.astype(np.float64) for o in ops])
    og = rand(np.shape(out), dtype)
    grads = [g.astype(dtype) for g in grad_reference(subs, ops, og.astype(np.float64))]
    cases.append(case(f'einsum_backward_{name}', '_backward_npi_einsum', [og] + ops, grads,
                      params=params(subs, len(ops), optimize), **tol(dtype, 8)))


add_backward('matmul', 'ij,jk->ik', [(3, 4), (4, 2)])
add_backward('matmul_f32', 'ij,jk->ik', [(3, 4), (4, 2)], 'float32')
add_backward('bmm', 'bij,bjk->bik', [(2, 3, 4), (2, 4, 2)])
add_backward('bmm_greedy', 'bij,bjk->bik', [(2, 3, 4), (2, 4, 2)], optimize=1)
add_backward('implicit_transposed', 'ji,jk', [(4, 3), (4, 2)])
add_backward('trace', 'ii', [(3, 3)])
add_backward('diagonal', 'ii->i', [(3, 3)])
add_backward('diag_keep_other', 'iji->ij', [(3, 2, 3)])
add_backward('sum_only_in_lhs', 'ijk,jl->il', [(2, 3, 2), (3, 2)])
add_backward('outer', 'i,j->ij', [(3,), (2,)])
add_backward('free_label', 'ij,k->i', [(2, 3), (2,)])
add_backward('broadcast_dim1', 'ij,ij->ij', [(1, 3), (2, 3)])
add_backward('broadcast_contracted_dim1', 'ij,jk->ik', [(2, 1), (4, 3)])
add_backward('broadcast_ellipsis', '...ij,...jk->...ik', [(2, 1, 2, 3), (3, 3, 2)])
add_backward('chain3', 'ij,jk,kl->il', [(2, 3), (3, 4), (4, 2)])
add_backward('chain3_greedy', 'ij,jk,kl->il', [(2, 3), (3, 4), (4, 2)], optimize=1)
add_backward('diag_chain_optimal', 'ii,ij,jk->ik', [(3, 3), (3, 2), (2, 2)], optimize=2)
add_backward('scalar_operand', ',i->i', [(), (3,)])
add_backward('zero_size', 'ij,jk->ik', [(0, 2), (2, 3)])

# The products MXNet 2.0 registers as ops of their own, lowered onto einsum (np_products_lowered.py;
# its own random stream, so the einsum cases above stay as they were).
from np_products_lowered import lowered_cases  # noqa: E402

cases += lowered_cases(case, tol)

write('np_products', cases)


# ---- the parser: curated and random strings --------------------------------------------------
def parse_outcome(subs, shapes):
    ops = [np.zeros(s, dtype=np.float32) for s in shapes]
    try:
        return {'shape': list(np.einsum(subs, *ops).shape)}
    except ValueError as e:
        return {'error': str(e)}


parse_cases = []
for c in cases:
    if c['op'] == '_npi_einsum':
        subs = c['params']['subscripts']
        shapes = [x['shape'] for x in c['inputs']]
        parse_cases.append({'subscripts': subs, 'shapes': shapes, **parse_outcome(subs, shapes)})

prng = np.random.default_rng(7)
ALPHABET = list('ijkIJ') + [',', '->', '...', '.', ' ', '-', '>', '1']
for _ in range(600):
    n_tok = int(prng.integers(0, 9))
    subs = ''.join(ALPHABET[int(prng.integers(0, len(ALPHABET)))] for _ in range(n_tok))
    nop = int(prng.integers(1, 4))
    shapes = [tuple(int(prng.choice([0, 1, 2, 3])) for _ in range(int(prng.integers(0, 4)))) for _ in range(nop)]
    parse_cases.append({'subscripts': subs, 'shapes': [list(s) for s in shapes], **parse_outcome(subs, shapes)})
# Random well-formed strings (so that not every random case is an error).
for _ in range(500):
    nop = int(prng.integers(1, 4))
    terms, shapes = [], []
    size = {c: int(prng.choice([1, 2, 3])) for c in 'abcdAB'}
    for _ in range(nop):
        k = int(prng.integers(0, 4))
        term = ''.join(prng.choice(list('abcdAB')) for _ in range(k))
        ell = prng.random() < 0.3
        eshape = [int(prng.choice([1, 2])) for _ in range(int(prng.integers(0, 3)))] if ell else []
        if ell:
            at = int(prng.integers(0, k + 1))
            shape = [size[c] for c in term[:at]] + eshape + [size[c] for c in term[at:]]
            term = term[:at] + '...' + term[at:]
        else:
            shape = [size[c] for c in term]
        if prng.random() < 0.15 and shape:
            shape[int(prng.integers(0, len(shape)))] = int(prng.choice([1, 4]))
        terms.append(term)
        shapes.append(shape)
    subs = ','.join(terms)
    if prng.random() < 0.5:
        letters = sorted(set(''.join(terms)) - {'.'})
        prng.shuffle(letters)
        out = ''.join(letters[:int(prng.integers(0, len(letters) + 1))])
        if any('...' in t for t in terms) or prng.random() < 0.1:
            out = '...' + out if prng.random() < 0.7 else out + '...'
        subs += '->' + out
    parse_cases.append({'subscripts': subs, 'shapes': shapes, **parse_outcome(subs, shapes)})

os.makedirs(OPS_GOLDEN, exist_ok=True)
with open(os.path.join(OPS_GOLDEN, 'einsum_parse.json'), 'w') as f:
    json.dump({'generator': 'tools/golden/ops/np_products.py', 'numpy': np.__version__, 'cases': parse_cases}, f,
              separators=(',', ':'))
    f.write('\n')
print(f'wrote {len(parse_cases)} parser cases to packages/ops/src/defs/np/__golden__/einsum_parse.json')


# ---- the planner: np.einsum_path ------------------------------------------------------------
def ids(s):
    return sorted(LETTERS.index(c) for c in s)


def path_case(subs, shapes, optimize):
    ops = [np.zeros(s) for s in shapes]
    path, text = np.einsum_path(subs, *ops, optimize=optimize)
    _, contractions = np.einsum_path(subs, *ops, optimize=optimize, einsum_call=True)
    num = lambda label: float(re.search(label + r':\s*([0-9.e+-]+)', text).group(1))  # noqa: E731
    lines = text.split('-' * 74)[-1].strip().splitlines()
    scal = [int(line.split()[0]) for line in lines]
    opt = optimize if isinstance(optimize, str) else optimize[0]
    limit = None if isinstance(optimize, str) else optimize[1]
    return {
        'subscripts': subs, 'shapes': [list(s) for s in shapes], 'optimize': opt, 'memoryLimit': limit,
        'path': [list(p) for p in path[1:]],
        'steps': [{'removed': ids(c[1]), 'blas': bool(c[4]), 'scaling': s} for c, s in zip(contractions, scal)],
        'naiveCost': num('Naive FLOP count'), 'optimizedCost': num('Optimized FLOP count'),
        'naiveScaling': int(num('Naive scaling')), 'optimizedScaling': int(num('Optimized scaling')),
        'largestIntermediate': num('Largest intermediate'),
    }


PATHS = [
    ('ij,jk,kl->il', [(2, 3), (3, 4), (4, 5)]),
    ('ij,jk,kl->il', [(50, 3), (3, 40), (40, 2)]),
    ('ea,fb,abcd,gc,hd->efgh', [(10, 10), (10, 10), (10, 10, 10, 10), (10, 10), (10, 10)]),
    ('ea,fb,abcd,gc,hd->efgh', [(3, 5), (4, 6), (5, 6, 7, 8), (2, 7), (9, 8)]),
    ('abc,bcd,cde,def->af', [(4, 5, 6), (5, 6, 7), (6, 7, 3), (7, 3, 2)]),
    ('ijk,ilm,njm,nlk,abc->', [(2, 4, 8)] * 5),
    ('ab,bc,cd,de,ef->af', [(8, 2), (2, 8), (8, 2), (2, 8), (8, 2)]),
    ('i,j,k->ijk', [(2,), (3,), (4,)]),
    ('ij,jk,ki->', [(5, 6), (6, 7), (7, 5)]),
    ('ii,ij,jk->ik', [(4, 4), (4, 5), (5, 3)]),
    ('ij,ij,ij->ij', [(3, 4), (1, 4), (3, 1)]),
    ('...ij,...jk,...kl->...il', [(2, 3, 4), (1, 4, 5), (2, 5, 6)]),
    ('ab,cd,ef->abcdef', [(2, 2), (2, 2), (2, 2)]),
    ('ab,bc,ca,cd,de->e', [(6, 7), (7, 8), (8, 6), (8, 9), (9, 3)]),
    ('a,b,c,d,ab,bc,cd->a', [(4,), (5,), (6,), (7,), (4, 5), (5, 6), (6, 7)]),
    ('ij,jk->ik', [(3, 4), (4, 5)]),
    ('ij->', [(3, 4)]),
    ('ij,kl->', [(3, 4), (5, 6)]),
    ('ij,jk,kl,lm,mn->in', [(3, 30), (30, 2), (2, 40), (40, 5), (5, 3)]),
    ('bik,bkj,bjl->bil', [(8, 16, 32), (8, 32, 4), (8, 4, 64)]),
]
path_cases = []
for subs, shapes in PATHS:
    for opt in ('greedy', 'optimal'):
        path_cases.append(path_case(subs, shapes, opt))
path_cases.append(path_case('ea,fb,abcd,gc,hd->efgh', [(10, 10), (10, 10), (10, 10, 10, 10), (10, 10), (10, 10)],
                            ('greedy', 1000)))
path_cases.append(path_case('ab,bc,cd,de,ef->af', [(8, 2), (2, 8), (8, 2), (2, 8), (8, 2)], ('optimal', 10)))
with open(os.path.join(OPS_GOLDEN, 'einsum_path.json'), 'w') as f:
    json.dump({'generator': 'tools/golden/ops/np_products.py', 'numpy': np.__version__, 'cases': path_cases}, f,
              separators=(',', ':'))
    f.write('\n')
print(f'wrote {len(path_cases)} path cases to packages/ops/src/defs/np/__golden__/einsum_path.json')
