#!/usr/bin/env python3
"""Golden data for the sparse elementwise family (packages/cpu-wasm and packages/ndarray tests),
computed by SciPy and NumPy, never by @mx code:

- binary: elemwise_add / elemwise_sub / elemwise_mul / elemwise_div / _grad_add for every pair of
  storage types (csr, row_sparse, default). CSR (+) CSR is SciPy's `A + B`, `A - B`,
  `A.multiply(B)` (canonical: sorted indices, zero results dropped, as MXNet's CsrCsrOp drops
  them); row_sparse (MXNet-only, defined with NumPy) keeps the union of the stored rows; csr * dense
  keeps the csr structure with NumPy's products at the stored positions; every dense result is
  NumPy's operator on the dense equivalents (0/0 = nan, x/0 = +-inf).
- unary: the zero-preserving ops MXNet registers ..._WITH_RSP_CSR (plus _copy, BlockGrad) and the
  sparse scalar ops, applied by NumPy to the stored values (structure kept), or to the dense
  equivalent where the result is dense.
- add_n: sums of row_sparse arrays (union of the rows, summed in input order in the dtype) and the
  dense-result mixes, by NumPy.

`outStype` is MXNet's output storage type for the signature and `served` whether MXNet computes it
without the storage fallback (transcribed from apache/mxnet src/operator/tensor/elemwise_binary_op
.h, elemwise_binary_op_basic.cc, elemwise_binary_scalar_op_*.cc, elemwise_sum.cc and
elemwise_op_common.h). nan and +-inf are written as the strings 'NaN', 'Infinity', '-Infinity'.
Values are small multiples of 1/8 (exact in float32). Inputs avoid the ties where MXNet's rint
(ties to floor) and round (half away from zero) differ from NumPy's half-to-even.

Writes packages/cpu-wasm/src/__golden__/sparse-elemwise.json (a rerun reproduces it exactly).
Run from anywhere with /usr/bin/python3 (NumPy and SciPy):
    /usr/bin/python3 tools/golden/sparse/elemwise.py
"""
import json
import math
import pathlib

import numpy as np
import scipy.sparse as sp

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / 'packages/cpu-wasm/src/__golden__/sparse-elemwise.json'


def num(v):
    v = float(v)
    if math.isnan(v):
        return 'NaN'
    if math.isinf(v):
        return 'Infinity' if v > 0 else '-Infinity'
    return v


def values(a):
    return [num(v) for v in np.asarray(a).reshape(-1)]


def draw(rng, shape, dtype, lo=-15, hi=16, scale=8):
    """Nonzero multiples of 1/scale in (lo/scale, hi/scale), avoiding .5 ties."""
    v = rng.integers(lo, hi, size=shape)
    v[v == 0] = 1
    v[(v % scale) == scale // 2] += 1
    v[v == 0] = 1
    return (v / scale).astype(dtype)


def csr_dense(rng, shape, density, dtype, **kw):
    vals = draw(rng, shape, dtype, **kw)
    mask = rng.random(shape) < density
    return np.where(mask, vals, np.zeros_like(vals)).astype(dtype)


def rsp_dense(rng, shape, density, dtype, **kw):
    """A row_sparse array: rows chosen with `density`; returns (dense, stored rows)."""
    rows = [r for r in range(shape[0]) if rng.random() < density]
    dense = np.zeros(shape, dtype=dtype)
    if rows:
        dense[rows] = draw(rng, (len(rows),) + tuple(shape[1:]), dtype, **kw)
    return dense, rows


def part_csr(dense):
    m = sp.csr_matrix(dense)
    m.sort_indices()
    return {'stype': 'csr', 'dense': values(dense), 'data': values(m.data),
            'indices': [int(i) for i in m.indices], 'indptr': [int(i) for i in m.indptr]}


def part_csr_of(m):
    m = sp.csr_matrix(m)
    m.sum_duplicates()
    m.sort_indices()
    m.eliminate_zeros()
    return {'stype': 'csr', 'dense': values(m.toarray()), 'data': values(m.data),
            'indices': [int(i) for i in m.indices], 'indptr': [int(i) for i in m.indptr]}


def part_csr_struct(dense, data, indices, indptr):
    return {'stype': 'csr', 'dense': values(dense), 'data': values(data),
            'indices': [int(i) for i in indices], 'indptr': [int(i) for i in indptr]}


def part_rsp(dense, rows):
    return {'stype': 'row_sparse', 'dense': values(dense),
            'data': values(dense[rows]) if rows else [], 'indices': list(rows)}


def part_dense(dense):
    return {'stype': 'default', 'dense': values(dense)}


NP_BINARY = {
    'elemwise_add': np.add,
    'elemwise_sub': np.subtract,
    'elemwise_mul': np.multiply,
    'elemwise_div': np.divide,
    '_grad_add': np.add,
}


def binary_stype(op, a, b):
    """(MXNet output stype, served without fallback) for input stypes a, b."""
    D, R, C = 'default', 'row_sparse', 'csr'
    if op in ('elemwise_add', 'elemwise_sub'):   # PreferDenseStorageType
        if a == b:
            return a, True
        if D in (a, b):
            return D, True
        return D, False
    if op == 'elemwise_mul':                      # PreferSparseStorageType
        if a == b:
            return a, True
        if {a, b} == {R, D}:
            return R, True
        if {a, b} == {C, D}:
            return C, True
        return D, False
    if op == 'elemwise_div':                      # SparseSparseWithDenseResult
        if D in (a, b) or (a == R and b == R):
            return D, True
        return D, False
    if op == '_grad_add':                         # ElemwiseStorageType<2, 1, true, true, true>
        if a == b:
            return a, True
        return D, False
    raise ValueError(op)


def make_input(rng, stype, shape, density, dtype):
    if stype == 'csr':
        d = csr_dense(rng, shape, density, dtype)
        return d, part_csr(d), None
    if stype == 'row_sparse':
        d, rows = rsp_dense(rng, shape, density, dtype)
        return d, part_rsp(d, rows), rows
    d = draw(rng, shape, dtype)
    d[rng.random(shape) < 0.3] = 0  # dense inputs hold zeros too
    return d, part_dense(d), None


def binary_out(op, a, b, pa, pb, rows_a, rows_b, dtype):
    fn = NP_BINARY[op]
    out_stype, served = binary_stype(op, pa['stype'], pb['stype'])
    with np.errstate(all='ignore'):
        dense = fn(a, b).astype(dtype)
    if out_stype == 'default':
        return part_dense(dense), out_stype, served
    if out_stype == 'row_sparse':
        if pa['stype'] == 'row_sparse' and pb['stype'] == 'row_sparse':
            rows = sorted(set(rows_a) | set(rows_b))
        else:
            rows = rows_a if pa['stype'] == 'row_sparse' else rows_b
        return part_rsp(dense, rows), out_stype, served
    # csr
    if pa['stype'] == 'csr' and pb['stype'] == 'csr':
        A, B = sp.csr_matrix(a), sp.csr_matrix(b)
        m = {'elemwise_add': A + B, '_grad_add': A + B, 'elemwise_sub': A - B,
             'elemwise_mul': A.multiply(B)}[op]
        return part_csr_of(m.astype(dtype)), out_stype, served
    # csr * dense: the csr operand's structure, NumPy products at its stored positions
    s = sp.csr_matrix(a if pa['stype'] == 'csr' else b)
    s.sort_indices()
    rows_of = np.repeat(np.arange(s.shape[0]), np.diff(s.indptr))
    data = fn(a[rows_of, s.indices], b[rows_of, s.indices]).astype(dtype)
    return part_csr_struct(dense, data, s.indices, s.indptr), out_stype, served


def binary_cases(rng):
    cases = []
    stypes = ['csr', 'row_sparse', 'default']
    for dtype in ['float32', 'float64']:
        for op in NP_BINARY:
            for sa in stypes:
                for sb in stypes:
                    if sa == 'default' and sb == 'default':
                        continue
                    shapes = [(6, 5)] if 'csr' in (sa, sb) else [(6, 5), (5, 2, 3)]
                    for shape in shapes:
                        for da, db in [(0.4, 0.5), (0.0, 0.5), (1.0, 1.0)]:
                            a, pa, ra = make_input(rng, sa, shape, da, dtype)
                            b, pb, rb = make_input(rng, sb, shape, db, dtype)
                            out, st, served = binary_out(op, a, b, pa, pb, ra, rb, dtype)
                            cases.append({
                                'name': f'{op}({sa}, {sb}) {shape} densities {da}/{db} {dtype}',
                                'op': op, 'dtype': dtype, 'shape': list(shape),
                                'inputs': [pa, pb], 'outStype': st, 'served': served, 'out': out,
                            })
    # Cancellation: CSR results that are zero are dropped; row_sparse rows are kept.
    for dtype in ['float32', 'float64']:
        a = csr_dense(rng, (5, 4), 0.6, dtype)
        b = np.where(rng.random((5, 4)) < 0.5, -a, csr_dense(rng, (5, 4), 0.4, dtype)).astype(dtype)
        for op in ['elemwise_add', 'elemwise_sub']:
            bb = b if op == 'elemwise_add' else -b
            pa, pb = part_csr(a), part_csr(bb)
            out, st, served = binary_out(op, a, bb, pa, pb, None, None, dtype)
            cases.append({'name': f'{op} cancelling entries (csr) {dtype}', 'op': op, 'dtype': dtype,
                          'shape': [5, 4], 'inputs': [pa, pb], 'outStype': st, 'served': served,
                          'out': out})
        d, rows = rsp_dense(rng, (6, 3), 0.7, dtype)
        pr = part_rsp(d, rows)
        out, st, served = binary_out('elemwise_sub', d, d, pr, pr, rows, rows, dtype)
        cases.append({'name': f'elemwise_sub(x, x) keeps the rows (row_sparse) {dtype}',
                      'op': 'elemwise_sub', 'dtype': dtype, 'shape': [6, 3], 'inputs': [pr, pr],
                      'outStype': st, 'served': served, 'out': out})
    # int32 data: integer products and sums.
    for sa, sb in [('csr', 'csr'), ('row_sparse', 'row_sparse'), ('csr', 'default'), ('default', 'row_sparse')]:
        for op in ['elemwise_add', 'elemwise_mul']:
            a, pa, ra = make_input(rng, sa, (4, 6), 0.5, 'float64')
            b, pb, rb = make_input(rng, sb, (4, 6), 0.5, 'float64')
            a, b = (a * 8).astype('int32'), (b * 8).astype('int32')
            pa = part_csr(a) if sa == 'csr' else part_rsp(a, ra) if sa == 'row_sparse' else part_dense(a)
            pb = part_csr(b) if sb == 'csr' else part_rsp(b, rb) if sb == 'row_sparse' else part_dense(b)
            out, st, served = binary_out(op, a, b, pa, pb, ra, rb, 'int32')
            cases.append({'name': f'{op}({sa}, {sb}) int32', 'op': op, 'dtype': 'int32', 'shape': [4, 6],
                          'inputs': [pa, pb], 'outStype': st, 'served': served, 'out': out})
    return cases


# The zero-preserving unary ops (MXNet ..._WITH_RSP_CSR, _copy, BlockGrad) with NumPy's function
# and the input range they are drawn from (lo, hi, scale as in `draw`).
WIDE = (-31, 32, 8)
UNIT = (-7, 8, 8)
POS = (1, 32, 8)
UNARY = {
    'abs': (np.abs, WIDE), 'sign': (np.sign, WIDE), 'negative': (np.negative, WIDE),
    'square': (np.square, WIDE), 'sqrt': (np.sqrt, POS), 'cbrt': (np.cbrt, WIDE),
    'expm1': (np.expm1, UNIT), 'log1p': (np.log1p, UNIT), 'sin': (np.sin, WIDE),
    'tan': (np.tan, UNIT), 'arcsin': (np.arcsin, UNIT), 'arctan': (np.arctan, WIDE),
    'degrees': (np.degrees, WIDE), 'radians': (np.radians, WIDE), 'sinh': (np.sinh, UNIT),
    'tanh': (np.tanh, WIDE), 'arcsinh': (np.arcsinh, WIDE), 'arctanh': (np.arctanh, UNIT),
    'floor': (np.floor, WIDE), 'ceil': (np.ceil, WIDE), 'trunc': (np.trunc, WIDE),
    'rint': (np.rint, WIDE), 'round': (np.round, WIDE), 'fix': (np.fix, WIDE),
    'relu': (lambda x: np.maximum(x, 0), WIDE), '_copy': (lambda x: x.copy(), WIDE),
    'BlockGrad': (lambda x: x.copy(), WIDE),
}


def stored_map(rng, stype, shape, density, dtype, fn, rng_args, out_dtype=None):
    """A sparse input and fn applied to its stored values (structure kept)."""
    lo, hi, scale = rng_args
    out_dtype = out_dtype or dtype
    if stype == 'csr':
        d = csr_dense(rng, shape, density, dtype, lo=lo, hi=hi, scale=scale)
        m = sp.csr_matrix(d)
        m.sort_indices()
        with np.errstate(all='ignore'):
            data = np.asarray(fn(m.data)).astype(out_dtype)
        out_dense = np.zeros(shape, dtype=out_dtype)
        rows_of = np.repeat(np.arange(shape[0]), np.diff(m.indptr))
        out_dense[rows_of, m.indices] = data
        return part_csr(d), part_csr_struct(out_dense, data, m.indices, m.indptr)
    d, rows = rsp_dense(rng, shape, density, dtype, lo=lo, hi=hi, scale=scale)
    with np.errstate(all='ignore'):
        data = np.asarray(fn(d[rows])).astype(out_dtype) if rows else np.zeros((0,) + shape[1:], out_dtype)
    out_dense = np.zeros(shape, dtype=out_dtype)
    if rows:
        out_dense[rows] = data
    return part_rsp(d, rows), {'stype': 'row_sparse', 'dense': values(out_dense), 'data': values(data),
                               'indices': list(rows)}


def unary_cases(rng):
    cases = []
    for dtype in ['float32', 'float64']:
        for op, (fn, r) in UNARY.items():
            layouts = [('csr', (5, 6), 0.0), ('csr', (5, 6), 0.4), ('csr', (5, 6), 1.0),
                       ('row_sparse', (6, 4), 0.4), ('row_sparse', (6, 4), 1.0), ('row_sparse', (4, 2, 3), 0.4)]
            for stype, shape, density in layouts:
                pin, pout = stored_map(rng, stype, shape, density, dtype, fn, r)
                cases.append({'name': f'{op}({stype}) {shape} density {density} {dtype}', 'op': op,
                              'params': {}, 'dtype': dtype, 'shape': list(shape), 'input': pin,
                              'outStype': stype, 'served': True, 'out': pout})
    return cases


def scalar_cases(rng):
    cases = []
    for dtype in ['float32', 'float64']:
        # The scalar in the data dtype, as MXNet's DType(alpha).
        cast = (lambda s, dt=dtype: np.asarray(s, dtype=dt))
        specs = [
            ('_mul_scalar', 2.5, lambda x, s: x * cast(s), 'same'),
            ('_div_scalar', 4.0, lambda x, s: x / cast(s), 'same'),
            ('_div_scalar', 0.0, lambda x, s: x / cast(s), 'same'),
            ('_plus_scalar', 0.0, lambda x, s: x + cast(s), 'same'),
            ('_minus_scalar', 0.0, lambda x, s: x - cast(s), 'same'),
            ('_plus_scalar', 1.5, lambda x, s: x + cast(s), 'dense'),
            ('_minus_scalar', -2.0, lambda x, s: x - cast(s), 'dense'),
            ('_greater_scalar', 0.25, lambda x, s: (x > s).astype(dtype), 'same'),
            ('_lesser_scalar', -0.5, lambda x, s: (x < s).astype(dtype), 'same'),
            ('_not_equal_scalar', 0.0, lambda x, s: (x != s).astype(dtype), 'same'),
            ('_equal_scalar', 0.0, lambda x, s: (x == s).astype(dtype), 'fallback'),
            ('_lesser_equal_scalar', 1.0, lambda x, s: (x <= s).astype(dtype), 'fallback'),
        ]
        for op, scalar, fn, kind in specs:
            for stype, shape in [('csr', (5, 6)), ('row_sparse', (6, 4))]:
                for density in [0.0, 0.5, 1.0]:
                    params = {'scalar': scalar, 'is_int': False}
                    if kind == 'same':
                        pin, pout = stored_map(rng, stype, shape, density, dtype,
                                               lambda x: fn(x, scalar), WIDE)
                        out_stype, served = stype, True
                    else:
                        if stype == 'csr':
                            d = csr_dense(rng, shape, density, dtype, lo=-31, hi=32)
                            pin = part_csr(d)
                        else:
                            d, rows = rsp_dense(rng, shape, density, dtype, lo=-31, hi=32)
                            pin = part_rsp(d, rows)
                        with np.errstate(all='ignore'):
                            pout = part_dense(np.asarray(fn(d, scalar)).astype(dtype))
                        out_stype, served = 'default', kind == 'dense'
                    cases.append({'name': f'{op}({stype}, {scalar}) density {density} {dtype}', 'op': op,
                                  'params': params, 'dtype': dtype, 'shape': list(shape), 'input': pin,
                                  'outStype': out_stype, 'served': served, 'out': pout})
    return cases


def add_n_cases(rng):
    cases = []
    for dtype in ['float32', 'float64']:
        for shape in [(8, 3), (6, 2, 2)]:
            parts, dense, rows_all = [], [], set()
            for density in [0.4, 0.0, 0.6, 1.0]:
                d, rows = rsp_dense(rng, shape, density, dtype)
                parts.append(part_rsp(d, rows))
                dense.append(d)
                rows_all |= set(rows)
            total = dense[0].copy()
            for d in dense[1:]:
                total = (total + d).astype(dtype)
            cases.append({'name': f'add_n of 4 row_sparse {shape} {dtype}', 'dtype': dtype,
                          'shape': list(shape), 'inputs': parts, 'outStype': 'row_sparse', 'served': True,
                          'out': part_rsp(total, sorted(rows_all))})
        # The same rows in every input (each input is used in place).
        d1, rows = rsp_dense(rng, (5, 3), 0.6, dtype)
        d2 = np.zeros_like(d1)
        if rows:
            d2[rows] = draw(rng, (len(rows), 3), dtype)
        cases.append({'name': f'add_n of 2 row_sparse with the same rows {dtype}', 'dtype': dtype,
                      'shape': [5, 3], 'inputs': [part_rsp(d1, rows), part_rsp(d2, rows)],
                      'outStype': 'row_sparse', 'served': True,
                      'out': part_rsp((d1 + d2).astype(dtype), rows)})
        mixes = [
            (['default', 'csr', 'default'], 'default', True),
            (['default', 'row_sparse', 'csr', 'row_sparse', 'default'], 'default', True),
            (['csr', 'csr'], 'default', False),
            (['row_sparse', 'default'], 'default', False),
        ]
        for stypes, out_stype, served in mixes:
            parts, total = [], None
            for st in stypes:
                d, p, _ = make_input(rng, st, (4, 5), 0.5, dtype)
                parts.append(p)
                total = d.copy() if total is None else (total + d).astype(dtype)
            cases.append({'name': f'add_n({", ".join(stypes)}) {dtype}', 'dtype': dtype, 'shape': [4, 5],
                          'inputs': parts, 'outStype': out_stype, 'served': served,
                          'out': part_dense(total)})
    return cases


def main():
    rng = np.random.default_rng(1503)
    golden = {
        'binary': binary_cases(rng),
        'unary': unary_cases(rng) + scalar_cases(rng),
        'addN': add_n_cases(rng),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(golden, indent=None) + '\n')
    print(f"wrote {OUT.relative_to(ROOT)}: {len(golden['binary'])} binary, {len(golden['unary'])} unary/scalar, "
          f"{len(golden['addN'])} add_n cases")


if __name__ == '__main__':
    main()
