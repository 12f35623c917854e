#!/usr/bin/env python3
"""Golden data for cast_storage and sparse creation (packages/cpu-wasm and packages/ndarray tests),
computed by SciPy and NumPy, never by @mx code:

- csr: for each dense matrix (several shapes incl. zero-size ones, densities 0, ~0.3 and 1,
  float32 and float64), `scipy.sparse.csr_matrix(dense)` with sorted indices (canonical form) —
  its data, indices and indptr are what dense -> csr must produce, and the dense matrix is what
  csr -> dense must give back;
- row_sparse (MXNet-only, defined by NumPy): the indices of the rows holding a nonzero and those
  rows' values, for 1-D, 2-D and 3-D arrays;
- coo: `csr_matrix((data, (row, col)), shape)` with duplicate entries (summed by SciPy) and
  unsorted input, canonicalised with `sum_duplicates()`.

Values are small integers times powers of two (exact in float32), stored as JSON numbers.
Writes packages/cpu-wasm/src/__golden__/sparse-cast-storage.json (a rerun reproduces it exactly).
Run from anywhere with /usr/bin/python3 (NumPy and SciPy):
    /usr/bin/python3 tools/golden/sparse/cast_storage.py
"""
import json
import pathlib

import numpy as np
import scipy.sparse as sp

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / 'packages/cpu-wasm/src/__golden__/sparse-cast-storage.json'


def dense_matrix(rng, shape, density, dtype):
    values = rng.integers(-8, 9, size=shape).astype(dtype) / np.asarray(4, dtype=dtype)
    values[values == 0] = 0.5  # density decides the zeros, not the draw
    mask = rng.random(shape) < density
    return np.where(mask, values, np.zeros_like(values)).astype(dtype)


def as_list(a):
    return [float(v) for v in np.asarray(a).reshape(-1)]


def csr_case(rng, shape, density, dtype):
    dense = dense_matrix(rng, shape, density, dtype)
    m = sp.csr_matrix(dense)
    m.sort_indices()
    return {
        'name': f'csr {shape} density {density} {dtype}',
        'dtype': dtype,
        'shape': list(shape),
        'dense': as_list(dense),
        'data': as_list(m.data),
        'indices': [int(i) for i in m.indices],
        'indptr': [int(i) for i in m.indptr],
    }


def rsp_case(rng, shape, density, dtype):
    dense = dense_matrix(rng, shape, density, dtype)
    rows = dense.reshape(shape[0], -1) if shape[0] > 0 else dense.reshape(0, 0)
    keep = [r for r in range(shape[0]) if np.any(rows[r] != 0)]
    return {
        'name': f'row_sparse {shape} density {density} {dtype}',
        'dtype': dtype,
        'shape': list(shape),
        'dense': as_list(dense),
        'data': as_list(dense[keep]) if keep else [],
        'indices': keep,
    }


def coo_cases():
    out = []
    for dtype in ['float32', 'float64']:
        data = np.array([1, 2, 3, 4, 5, 6, -2], dtype=dtype)
        row = np.array([2, 0, 2, 1, 0, 2, 0])
        col = np.array([3, 1, 0, 1, 1, 3, 4])
        m = sp.csr_matrix((data, (row, col)), shape=(4, 5))
        m.sum_duplicates()
        out.append({
            'name': f'coo with duplicates {dtype}',
            'dtype': dtype,
            'shape': [4, 5],
            'coo': {'data': as_list(data), 'row': row.tolist(), 'col': col.tolist()},
            'dense': as_list(m.toarray()),
            'data': as_list(m.data),
            'indices': [int(i) for i in m.indices],
            'indptr': [int(i) for i in m.indptr],
        })
    return out


def main():
    rng = np.random.default_rng(15)
    csr = [csr_case(rng, s, d, t)
           for t in ['float32', 'float64']
           for s in [(0, 0), (0, 3), (3, 0), (1, 1), (4, 5), (7, 3), (16, 9)]
           for d in [0.0, 0.3, 1.0]]
    rsp = [rsp_case(rng, s, d, t)
           for t in ['float32', 'float64']
           for s in [(0, 4), (5,), (6, 4), (4, 2, 3), (12, 7)]
           for d in [0.0, 0.3, 1.0]]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({'csr': csr, 'row_sparse': rsp, 'coo': coo_cases()}, indent=None) + '\n')
    print(f'wrote {OUT.relative_to(ROOT)}: {len(csr)} csr, {len(rsp)} row_sparse cases')


if __name__ == '__main__':
    main()
