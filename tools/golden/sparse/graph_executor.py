#!/usr/bin/env python3
"""Golden data for executors and CachedOp with sparse arrays (packages/symbol/src/executor/
sparse.test.ts and packages/symbol/src/cached-op/sparse.test.ts), computed by NumPy and SciPy,
never by @mx code. Each case gives the inputs (sparse ones as SciPy's CSR parts or MXNet's
row_sparse parts: the stored rows and their indices), the head gradients, and the forward outputs
and argument gradients as dense row-major lists:

- fc_csr: out = sigmoid(data @ weight.T + bias) with data a CSR matrix (FullyConnected on csr data
  then sigmoid); gradients of weight and bias for head gradient og.
- rsp_mul: out = sigmoid(data) * w with data a row_sparse array (sigmoid is dense-only in MXNet:
  the storage fallback), and out2 = data + data; gradient of w for head gradients og (out) and
  og2 (out2).
- cast_chain: c = cast_storage(x, 'csr') (an output, as a CSR matrix), e = sigmoid(c) * w,
  r = relu(e); gradients of x and w for head gradients og_c, og_r.
- dot_csr: out = data @ w (dot(csr, dense)); gradient of w = data.T @ og (MXNet: row_sparse), with
  the indices of the rows it stores (the columns data uses).

Values are small integers over 4 (exact in float32). Writes
packages/symbol/src/__golden__/sparse-executor.json (a rerun reproduces it exactly). Run from
anywhere with /usr/bin/python3 (NumPy and SciPy):
    /usr/bin/python3 tools/golden/sparse/graph_executor.py
"""
import json
import pathlib

import numpy as np
import scipy.sparse as sp

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / 'packages/symbol/src/__golden__/sparse-executor.json'


def values(rng, shape):
    v = rng.integers(-8, 9, size=shape).astype(np.float64) / 4
    v[v == 0] = 0.5
    return v


def sparse_matrix(rng, shape, density):
    return np.where(rng.random(shape) < density, values(rng, shape), 0.0)


def flat(a):
    return [float(x) for x in np.asarray(a, dtype=np.float64).reshape(-1)]


def csr_parts(dense):
    m = sp.csr_matrix(dense)
    m.sort_indices()
    return {'shape': list(dense.shape), 'data': flat(m.data), 'indices': [int(i) for i in m.indices],
            'indptr': [int(i) for i in m.indptr]}


def rsp_parts(dense):
    keep = [r for r in range(dense.shape[0]) if np.any(dense[r] != 0)]
    return {'shape': list(dense.shape), 'data': flat(dense[keep]), 'indices': keep}


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def fc_csr(rng):
    data = sparse_matrix(rng, (4, 6), 0.35)
    data[2] = 0  # an empty row
    weight = values(rng, (3, 6))
    bias = values(rng, (3,))
    og = values(rng, (4, 3))
    out = sigmoid(data @ weight.T + bias)
    dz = og * out * (1 - out)
    return {'data': csr_parts(data), 'data_dense': flat(data), 'weight': flat(weight), 'bias': flat(bias),
            'og': flat(og), 'out': flat(out), 'grad_weight': flat(dz.T @ data), 'grad_bias': flat(dz.sum(0))}


def rsp_mul(rng):
    data = np.zeros((5, 3))
    data[1] = values(rng, (3,))
    data[3] = values(rng, (3,))
    w = values(rng, (5, 3))
    og = values(rng, (5, 3))
    og2 = values(rng, (5, 3))
    return {'data': rsp_parts(data), 'data_dense': flat(data), 'w': flat(w), 'og': flat(og), 'og2': flat(og2),
            'out': flat(sigmoid(data) * w), 'out2': flat(data + data), 'grad_w': flat(og * sigmoid(data))}


def cast_chain(rng):
    x = sparse_matrix(rng, (3, 4), 0.5)
    w = values(rng, (3, 4))
    og_c = values(rng, (3, 4))
    og_r = values(rng, (3, 4))
    s = sigmoid(x)
    e = s * w
    r = np.maximum(e, 0)
    de = og_r * (e > 0)
    grad_x = og_c + de * w * s * (1 - s)
    return {'x': flat(x), 'x_csr': csr_parts(x), 'w': flat(w), 'og_c': flat(og_c), 'og_r': flat(og_r),
            'e': flat(e), 'r': flat(r), 'grad_x': flat(grad_x), 'grad_w': flat(de * s)}


def dot_csr(rng):
    data = sparse_matrix(rng, (4, 6), 0.3)
    data[:, 4] = 0  # a column nobody uses: its gradient row is not stored
    w = values(rng, (6, 3))
    og = values(rng, (4, 3))
    grad_w = data.T @ og
    rows = [c for c in range(6) if np.any(data[:, c] != 0)]
    return {'data': csr_parts(data), 'w': flat(w), 'og': flat(og), 'out': flat(data @ w),
            'grad_w': flat(grad_w), 'grad_w_rows': rows}


def main():
    rng = np.random.default_rng(2015)
    cases = {'fc_csr': fc_csr(rng), 'rsp_mul': rsp_mul(rng), 'cast_chain': cast_chain(rng),
             'dot_csr': dot_csr(rng)}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(cases, indent=None) + '\n')
    print(f'wrote {OUT.relative_to(ROOT)}: {len(cases)} cases')


if __name__ == '__main__':
    main()
