#!/usr/bin/env python3
"""Golden data for the sparse dot family (packages/cpu-wasm and packages/ndarray tests), computed by
SciPy and NumPy, never by @mx code:

- csr_dns: `A @ B` for a scipy.sparse csr A and a dense B (MXNet dot(csr, default) -> default), and
  `A.T @ C` (dot(csr, default, transpose_a=True)): dense, and as MXNet's row_sparse output, whose
  rows are the distinct column indices of A (np.unique(A.indices)) holding those rows of A.T @ C;
- csr_rsp: A @ R and A.T @ R for a row_sparse R (its dense form, its stored rows); the row_sparse
  result keeps the columns used by the rows of A that R stores; and the gradients of A @ R;
- dns_csr: X @ A (dense) and MXNet's csr form of it (DotDnsCsrCsrImpl: every row holds all the
  columns A uses, np.unique(A.indices), explicit zeros included), and Y @ A.T (dense);
- gradients of dot: C @ B.T (the dense gradient of a csr lhs, head gradient C) and X.T @ Y (the
  dense gradient of a csr rhs, head gradient Y); the rhs gradient of dot(csr, dense) is A.T @ C;
- fc: FullyConnected with csr data, out = A @ W.T + b, and its gradients for a head gradient G:
  dW = G.T @ A, db = G.sum(0), dX = G @ W.

Shapes include zero-size ones and widths that are not multiples of the SIMD tiles; densities 0,
~0.3 and 1; float32 and float64. Values are small integers / 4 (sums exact in float32), stored as
JSON numbers. Writes packages/cpu-wasm/src/__golden__/sparse-dot.json (a rerun reproduces it).
Run from anywhere with /usr/bin/python3 (NumPy and SciPy):
    /usr/bin/python3 tools/golden/sparse/dot.py
"""
import json
import pathlib

import numpy as np
import scipy.sparse as sp

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / 'packages/cpu-wasm/src/__golden__/sparse-dot.json'


def values(rng, shape, dtype):
    v = rng.integers(-8, 9, size=shape).astype(dtype) / np.asarray(4, dtype=dtype)
    v[v == 0] = 0.5
    return v


def sparse_matrix(rng, shape, density, dtype):
    mask = rng.random(shape) < density
    dense = np.where(mask, values(rng, shape, dtype), np.zeros(shape, dtype=dtype)).astype(dtype)
    m = sp.csr_matrix(dense)
    m.sort_indices()
    return m


def flat(a):
    return [float(x) for x in np.asarray(a).reshape(-1)]


def ints(a):
    return [int(x) for x in np.asarray(a).reshape(-1)]


def csr_parts(m):
    return {'data': flat(m.data), 'indices': ints(m.indices), 'indptr': ints(m.indptr)}


def used_columns(m, rows=None):
    """Distinct column indices of the rows `rows` (all when None), sorted."""
    if rows is None:
        return np.unique(m.indices)
    cols = [m.indices[m.indptr[r]:m.indptr[r + 1]] for r in rows]
    return np.unique(np.concatenate(cols)) if cols else np.zeros(0, dtype=np.int64)


def csr_dns_case(rng, m, k, n, density, dtype):
    a = sparse_matrix(rng, (m, k), density, dtype)
    b = values(rng, (k, n), dtype)
    c = values(rng, (m, n), dtype)
    at_c = np.asarray(a.T @ c, dtype=dtype).reshape(k, n)
    rows = used_columns(a)
    return {
        'name': f'csr {m}x{k} density {density} · dense {k}x{n} {dtype}',
        'dtype': dtype, 'shape': [m, k], **csr_parts(a),
        'rhs': flat(b), 'rhsShape': [k, n],
        'out': flat(np.asarray(a @ b, dtype=dtype)),
        'rhsT': flat(c), 'rhsTShape': [m, n],
        'outT': flat(at_c),
        'outTRsp': {'indices': ints(rows), 'data': flat(at_c[rows])},
        # _backward_dot of dot(A, B) with head gradient C: the (dense) gradient of A, C @ B.T.
        'lhsGrad': flat(np.asarray(c @ b.T, dtype=dtype)),
    }


def csr_rsp_case(rng, m, k, n, density, kept, dtype):
    a = sparse_matrix(rng, (m, k), density, dtype)
    case = {'name': f'csr {m}x{k} density {density} · row_sparse ({kept} rows kept) {dtype}',
            'dtype': dtype, 'shape': [m, k], **csr_parts(a)}
    for key, rows_total in [('rhs', k), ('rhsT', m)]:
        idx = np.sort(rng.choice(rows_total, size=min(kept, rows_total), replace=False))
        dense = np.zeros((rows_total, n), dtype=dtype)
        dense[idx] = values(rng, (len(idx), n), dtype)
        case[key] = {'shape': [rows_total, n], 'indices': ints(idx), 'data': flat(dense[idx])}
        if key == 'rhs':
            case['out'] = flat(np.asarray(a @ dense, dtype=dtype))
            # _backward_dot of dot(A, R) with head gradient G: d A = G @ R.T (dense), d R = A.T @ G
            # (row_sparse over the columns A uses).
            g = values(rng, (m, n), dtype)
            grad_r = np.asarray(a.T @ g, dtype=dtype).reshape(k, n)
            used = used_columns(a)
            case['ograd'] = flat(g)
            case['lhsGrad'] = flat(np.asarray(g @ dense.T, dtype=dtype))
            case['rhsGradRsp'] = {'indices': ints(used), 'data': flat(grad_r[used])}
        else:
            full = np.asarray(a.T @ dense, dtype=dtype).reshape(k, n)
            rows = used_columns(a, idx)
            case['outT'] = flat(full)
            case['outTRsp'] = {'indices': ints(rows), 'data': flat(full[rows])}
    return case


def dns_csr_case(rng, p, m, k, density, dtype):
    a = sparse_matrix(rng, (m, k), density, dtype)
    x = values(rng, (p, m), dtype)
    y = values(rng, (p, k), dtype)
    prod = np.asarray(x @ a.toarray(), dtype=dtype).reshape(p, k)
    nnc = used_columns(a)
    return {
        'name': f'dense {p}x{m} · csr {m}x{k} density {density} {dtype}',
        'dtype': dtype, 'shape': [m, k], **csr_parts(a),
        'lhs': flat(x), 'lhsShape': [p, m],
        'out': flat(prod),
        'outCsr': {
            'data': flat(prod[:, nnc]),
            'indices': ints(np.tile(nnc, p)),
            'indptr': [i * len(nnc) for i in range(p + 1)],
        },
        'lhsT': flat(y), 'lhsTShape': [p, k],
        'outT': flat(np.asarray(y @ a.toarray().T, dtype=dtype)),
        # _backward_dot of dot(X, A) with head gradient Y: the (dense) gradient of A, X.T @ Y.
        'rhsGrad': flat(np.asarray(x.T @ y, dtype=dtype)),
    }


def fc_case(rng, m, k, h, density, dtype):
    a = sparse_matrix(rng, (m, k), density, dtype)
    w = values(rng, (h, k), dtype)
    b = values(rng, (h,), dtype)
    g = values(rng, (m, h), dtype)
    d = a.toarray()
    return {
        'name': f'FullyConnected csr {m}x{k} density {density}, num_hidden {h} {dtype}',
        'dtype': dtype, 'shape': [m, k], **csr_parts(a), 'numHidden': h,
        'weight': flat(w), 'bias': flat(b), 'ograd': flat(g),
        'out': flat(d @ w.T + b),
        'dweight': flat(g.T @ d), 'dbias': flat(g.sum(axis=0)), 'ddata': flat(g @ w),
    }


def main():
    rng = np.random.default_rng(1503)
    dtypes = ['float32', 'float64']
    densities = [0.0, 0.3, 1.0]
    csr_dns = [csr_dns_case(rng, m, k, n, d, t)
               for t in dtypes
               for (m, k, n) in [(0, 3, 4), (3, 0, 4), (4, 5, 0), (1, 1, 1), (4, 5, 3),
                                 (7, 3, 37), (16, 9, 64), (6, 40, 9), (5, 8, 33)]
               for d in densities]
    csr_dns.append(csr_dns_case(rng, 64, 96, 70, 0.05, 'float32'))
    csr_rsp = [csr_rsp_case(rng, m, k, n, d, kept, t)
               for t in dtypes
               for (m, k, n, kept) in [(4, 6, 5, 3), (9, 7, 17, 0), (5, 5, 4, 5)]
               for d in densities]
    dns_csr = [dns_csr_case(rng, p, m, k, d, t)
               for t in dtypes
               for (p, m, k) in [(0, 3, 4), (3, 4, 0), (1, 1, 1), (3, 5, 7), (6, 9, 13)]
               for d in densities]
    fc = [fc_case(rng, m, k, h, d, t)
          for t in dtypes
          for (m, k, h) in [(4, 7, 3), (9, 20, 37), (0, 4, 2)]
          for d in densities]
    # Hashed-feature shapes (far fewer nonzeros than columns, a narrow dense side): the csrᵀ path
    # that ranks columns through a bitmap (@mx/cpu-wasm dot-small.ts). Own generator, so the cases
    # above stay byte-identical.
    wide = np.random.default_rng(2611)
    csr_dns += [csr_dns_case(wide, m, k, n, d, t)
                for t in dtypes
                for (m, k, n, d) in [(8, 4096, 1, 0.002), (16, 2048, 3, 0.01), (5, 1000, 4, 0.003)]]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({'csr_dns': csr_dns, 'csr_rsp': csr_rsp, 'dns_csr': dns_csr, 'fc': fc},
                              indent=None) + '\n')
    print(f'wrote {OUT.relative_to(ROOT)}: {len(csr_dns)} csr·dense, {len(csr_rsp)} csr·rsp, '
          f'{len(dns_csr)} dense·csr, {len(fc)} FullyConnected cases')


if __name__ == '__main__':
    main()
