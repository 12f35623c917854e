#!/usr/bin/env python3
"""Golden data for the sparse reduce-and-select family (packages/cpu-wasm kernel tests and
packages/ndarray NDArray-level tests), computed by SciPy and NumPy, never by @mx code:

- csr: for each CSR matrix (zero-size shapes, densities 0, ~0.3 and 1; float32, float64, int32),
  `dense.sum/mean(axis)` (mean of integers truncates toward zero, as MXNet's integer division),
  the sum over all axes (the dense fallback's answer), and for floats `np.linalg.norm` over all
  axes and per axis; SciPy's `getnnz()`, `getnnz(axis=0)`, `getnnz(axis=1)`;
- getnnz: CSR matrices holding explicit zeros, built from their parts (SciPy counts them);
- rsp_norm: `np.linalg.norm` of row_sparse arrays (1-D, 2-D, 3-D) over all axes;
- retain (MXNet `sparse.retain`, defined by NumPy row selection): the output stores exactly the
  requested rows (sorted, without repeats) — a row the input lacks is an explicit zero row — and
  nothing when the input stores no rows or no row is requested; its gradient is the head
  gradient's rows at the requested indices;
- square_sum (MXNet `_square_sum`): `(x**2).sum(axis)`, the row_sparse result of axis 1 with
  keepdims (the input's stored rows), and the gradient `2 * x * ograd` on the stored rows;
- slice: SciPy `m[r0:r1, c0:c1]` (sorted indices) for begin/end pairs incl. None, negative and
  out-of-range bounds, next to the NumPy slice of the dense matrix;
- where: `np.where(cond != 0, x, y)` for CSR conditions (explicit zeros in the condition included).

Values are small integers times powers of two (exact in float32) except norms, which are stored
rounded to the dtype. NaN (a mean over an empty axis) is stored as the string 'nan'.
Writes packages/cpu-wasm/src/__golden__/sparse-reduce.json (a rerun reproduces it exactly).
Run from anywhere with /usr/bin/python3 (NumPy and SciPy):
    /usr/bin/python3 tools/golden/sparse/reduce.py
"""
import json
import math
import pathlib

import numpy as np
import scipy.sparse as sp

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / 'packages/cpu-wasm/src/__golden__/sparse-reduce.json'


def dense_matrix(rng, shape, density, dtype):
    if dtype == 'int32':
        values = rng.integers(-8, 9, size=shape).astype(dtype)
        values[values == 0] = 3
    else:
        values = rng.integers(-8, 9, size=shape).astype(dtype) / np.asarray(4, dtype=dtype)
        values[values == 0] = 0.5  # density decides the zeros, not the draw
    mask = rng.random(shape) < density
    return np.where(mask, values, np.zeros_like(values)).astype(dtype)


def num(v):
    v = float(v)
    return 'nan' if math.isnan(v) else v


def as_list(a):
    return [num(v) for v in np.asarray(a).reshape(-1)]


def ints(a):
    return [int(v) for v in np.asarray(a).reshape(-1)]


def csr_parts(m):
    m.sort_indices()
    return {'data': as_list(m.data), 'indices': ints(m.indices), 'indptr': ints(m.indptr)}


def rsp_parts(dense):
    rows = dense.reshape(dense.shape[0], -1) if dense.shape[0] > 0 else dense.reshape(0, 0)
    keep = [r for r in range(dense.shape[0]) if np.any(rows[r] != 0)]
    return {'indices': keep, 'data': as_list(dense[keep]) if keep else []}


def int_mean(s, n):
    # MXNet divides the integer sum by the count in integer arithmetic (truncating toward zero).
    return [int(np.fix(v / n)) for v in np.asarray(s).reshape(-1)] if n > 0 else None


def csr_case(rng, shape, density, dtype):
    dense = dense_matrix(rng, shape, density, dtype)
    m = sp.csr_matrix(dense)
    case = {
        'name': f'csr {shape} density {density} {dtype}',
        'dtype': dtype,
        'shape': list(shape),
        'dense': as_list(dense),
        **csr_parts(m),
        'sum0': as_list(dense.sum(axis=0, dtype=dtype)),
        'sum1': as_list(dense.sum(axis=1, dtype=dtype)),
        'sumAll': as_list([dense.sum(dtype=dtype)]),
        'getnnz': [int(m.getnnz())],
        'getnnz0': ints(m.getnnz(axis=0)),
        'getnnz1': ints(m.getnnz(axis=1)),
    }
    if dtype == 'int32':
        case['mean0'] = int_mean(dense.sum(axis=0), shape[0])
        case['mean1'] = int_mean(dense.sum(axis=1), shape[1])
    else:
        with np.errstate(invalid='ignore', divide='ignore'):
            case['mean0'] = as_list((dense.sum(axis=0, dtype='float64') / shape[0]).astype(dtype))
            case['mean1'] = as_list((dense.sum(axis=1, dtype='float64') / shape[1]).astype(dtype))
        d64 = dense.astype('float64')
        case['normAll'] = as_list([np.float64(np.linalg.norm(d64.reshape(-1))).astype(dtype)])
        case['norm0'] = as_list(np.linalg.norm(d64, axis=0).astype(dtype))
        case['norm1'] = as_list(np.linalg.norm(d64, axis=1).astype(dtype))
    return case


def explicit_zero_cases():
    out = []
    for dtype in ['float32', 'float64']:
        data = np.array([0, 2, 0, 0, 5, -1], dtype=dtype)
        indices = np.array([1, 3, 0, 2, 4, 0])
        indptr = np.array([0, 2, 2, 5, 6])
        m = sp.csr_matrix((data, indices, indptr), shape=(4, 5))
        out.append({
            'name': f'csr (4, 5) with explicit zeros {dtype}',
            'dtype': dtype,
            'shape': [4, 5],
            'dense': as_list(m.toarray()),
            'data': as_list(data),
            'indices': ints(indices),
            'indptr': ints(indptr),
            'getnnz': [int(m.getnnz())],
            'getnnz0': ints(m.getnnz(axis=0)),
            'getnnz1': ints(m.getnnz(axis=1)),
        })
    return out


def rsp_norm_case(rng, shape, density, dtype):
    dense = dense_matrix(rng, shape, density, dtype)
    return {
        'name': f'row_sparse {shape} density {density} {dtype}',
        'dtype': dtype,
        'shape': list(shape),
        'dense': as_list(dense),
        **rsp_parts(dense),
        'normAll': as_list([np.float64(np.linalg.norm(dense.astype('float64').reshape(-1))).astype(dtype)]),
    }


def retain_case(rng, shape, density, dtype, request, label):
    dense = dense_matrix(rng, shape, density, dtype)
    parts = rsp_parts(dense)
    rows = sorted(set(request))
    stored = parts['indices']
    out_rows = rows if (stored and rows) else []
    kept = np.zeros_like(dense)
    for r in out_rows:
        kept[r] = dense[r]
    ograd = dense_matrix(rng, shape, 1.0, dtype)
    return {
        'name': f'retain {label} of row_sparse {shape} density {density} {dtype}',
        'dtype': dtype,
        'shape': list(shape),
        'dense': as_list(dense),
        **parts,
        'retain': list(request),
        'outIndices': out_rows,
        'outData': as_list(dense[out_rows]) if out_rows else [],
        'outDense': as_list(kept),
        'ograd': as_list(ograd),
        'gradIndices': rows,
        'gradData': as_list(ograd[rows]) if rows else [],
    }


def retain_cases(rng):
    out = []
    for dtype in ['float32', 'int32']:
        for shape in [(6, 4), (7,), (5, 2, 3)]:
            n = shape[0]
            for density in [0.0, 0.5, 1.0]:
                out.append(retain_case(rng, shape, density, dtype, [0, 2, n - 1], 'a sorted subset'))
                out.append(retain_case(rng, shape, density, dtype, list(range(n)), 'every row'))
                out.append(retain_case(rng, shape, density, dtype, [], 'no row'))
                out.append(retain_case(rng, shape, density, dtype, [n - 1, 1, 1, 0], 'unsorted repeated rows'))
    return out


def square_sum_case(rng, shape, density, dtype):
    dense = dense_matrix(rng, shape, density, dtype)
    parts = rsp_parts(dense)
    sq = dense.astype('float64') ** 2
    stored = parts['indices']
    og0 = dense_matrix(rng, (shape[1],), 1.0, dtype)
    og1 = dense_matrix(rng, (shape[0],), 1.0, dtype)
    grad0 = (2 * dense.astype('float64') * og0[None, :].astype('float64')).astype(dtype)
    grad1 = (2 * dense.astype('float64') * og1[:, None].astype('float64')).astype(dtype)
    return {
        'name': f'square_sum of row_sparse {shape} density {density} {dtype}',
        'dtype': dtype,
        'shape': list(shape),
        'dense': as_list(dense),
        **parts,
        'axis0': as_list(sq.sum(axis=0).astype(dtype)),
        'axis1': as_list(sq.sum(axis=1).astype(dtype)),
        'keepIndices': stored,
        'keepData': as_list(sq.sum(axis=1)[stored].astype(dtype)) if stored else [],
        'ograd0': as_list(og0),
        'grad0Data': as_list(grad0[stored]) if stored else [],
        'ograd1': as_list(og1),
        'grad1Data': as_list(grad1[stored]) if stored else [],
    }


SLICES = [
    ('rows', [1], [5]),
    ('rows and columns', [1, 1], [5, 4]),
    ('negative bounds', [-3, -4], [None, -1]),
    ('None bounds', [None, 2], [None, None]),
    ('an empty row range', [2], [2]),
    ('an empty column range', [0, 3], [None, 3]),
    ('bounds past the end (clamped)', [0, 0], [100, 100]),
    ('every column from 0', [0, 0], [3, None]),
]


def slice_cases(rng):
    out = []
    matrices = [('float32', s, d) for s in [(7, 5), (4, 6), (0, 3)] for d in [0.0, 0.4, 1.0]]
    for dtype, shape, density in [*matrices, ('float64', (7, 5), 0.4)]:
        dense = dense_matrix(rng, shape, density, dtype)
        m = sp.csr_matrix(dense)
        for label, begin, end in SLICES:
            rs = slice(begin[0], end[0])
            cs = slice(begin[1], end[1]) if len(begin) > 1 else slice(None)
            sub = m[rs, cs].tocsr()
            expect = dense[rs, cs]
            out.append({
                'name': f'slice {label} of csr {shape} density {density} {dtype}',
                'dtype': dtype,
                'shape': list(shape),
                'dense': as_list(dense),
                **csr_parts(m),
                'begin': begin,
                'end': end,
                'outShape': list(expect.shape),
                'outDense': as_list(expect),
                'out': csr_parts(sub),
            })
    return out


def where_cases(rng):
    out = []
    for dtype in ['float32', 'float64']:
        for shape in [(4, 5), (0, 3), (3, 3)]:
            for density in [0.0, 0.4, 1.0]:
                cond = dense_matrix(rng, shape, density, dtype)
                m = sp.csr_matrix(cond)
                x = dense_matrix(rng, shape, 1.0, dtype)
                y = dense_matrix(rng, shape, 1.0, dtype)
                out.append({
                    'name': f'where csr {shape} density {density} {dtype}',
                    'dtype': dtype,
                    'shape': list(shape),
                    'cond': {'dense': as_list(cond), **csr_parts(m)},
                    'x': as_list(x),
                    'y': as_list(y),
                    'expected': as_list(np.where(cond != 0, x, y)),
                })
        # A stored zero in the condition selects y, as a missing entry does.
        data = np.array([0, 1, 0], dtype=dtype)
        m = sp.csr_matrix((data, np.array([0, 1, 2]), np.array([0, 2, 3])), shape=(2, 3))
        cond = m.toarray()
        x = dense_matrix(rng, (2, 3), 1.0, dtype)
        y = dense_matrix(rng, (2, 3), 1.0, dtype)
        out.append({
            'name': f'where csr with stored zeros {dtype}',
            'dtype': dtype,
            'shape': [2, 3],
            'cond': {'dense': as_list(cond), 'data': as_list(data), 'indices': [0, 1, 2], 'indptr': [0, 2, 3]},
            'x': as_list(x),
            'y': as_list(y),
            'expected': as_list(np.where(cond != 0, x, y)),
        })
    return out


def main():
    rng = np.random.default_rng(1503)
    csr = [csr_case(rng, s, d, t)
           for t in ['float32', 'float64', 'int32']
           for s in [(0, 3), (3, 0), (1, 1), (4, 5), (16, 9)]
           for d in [0.0, 0.3, 1.0]]
    rsp_norm = [rsp_norm_case(rng, s, d, t)
                for t in ['float32', 'float64']
                for s in [(0, 4), (5,), (6, 4), (4, 2, 3)]
                for d in [0.0, 0.3, 1.0]]
    square = [square_sum_case(rng, s, d, t)
              for t in ['float32', 'float64']
              for s in [(6, 4), (5, 3), (0, 3), (3, 0)]
              for d in [0.0, 0.5, 1.0]]
    golden = {
        'csr': csr,
        'getnnz': explicit_zero_cases(),
        'rsp_norm': rsp_norm,
        'retain': retain_cases(rng),
        'square_sum': square,
        'slice': slice_cases(rng),
        'where': where_cases(rng),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(golden, indent=None) + '\n')
    counts = ', '.join(f'{len(v)} {k}' for k, v in golden.items())
    print(f'wrote {OUT.relative_to(ROOT)}: {counts}')


if __name__ == '__main__':
    main()
