"""Golden cases for the sparse-storage family (cast_storage) as the conformance suite runs ops: on
dense inputs, every output read back as its dense values (a CSRNDArray's or RowSparseNDArray's
`data()` is its dense matrix). Casting changes storage, never values, so the expected output is
the input itself, computed by NumPy for matrices with rows and columns of zeros (what CSR and
row_sparse drop) and fully dense ones. The parts of the sparse arrays (indptr, indices, data) are
checked against SciPy by tools/golden/sparse/cast_storage.py and @mx/cpu-wasm's kernel tests.
Bad-input cases: csr needs a 2-D shape, row_sparse at least one axis.
Run: python3 tools/golden/ops/sparse.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from common import case, write  # noqa: E402

rng = np.random.default_rng(20261126)
cases = []


def sparse_matrix(shape, density, dtype):
    # Multiples of 1/64 (exact in float32 and float64); zeros where the mask is off.
    values = (rng.integers(1, 640, shape) / 64).astype(dtype)
    mask = rng.random(shape) < density
    return np.where(mask, values, 0).astype(dtype)


for dtype in ['float32', 'float64']:
    for shape, density in [((4, 5), 0.3), ((3, 3), 1.0), ((2, 6), 0.0), ((5, 1), 0.5)]:
        x = sparse_matrix(shape, density, dtype)
        for stype in ['default', 'csr', 'row_sparse']:
            name = f'{stype}_{dtype}_{shape[0]}x{shape[1]}_d{density}'
            cases.append(case(name, 'cast_storage', [x], [x.copy()], {'stype': stype}))
    for shape in [(2, 3, 4), (6,)]:
        x = sparse_matrix(shape, 0.4, dtype)
        for stype in ['default', 'row_sparse']:
            name = f'{stype}_{dtype}_{"x".join(map(str, shape))}'
            cases.append(case(name, 'cast_storage', [x], [x.copy()], {'stype': stype}))

cases.append(case('csr_3d', 'cast_storage', [np.zeros((2, 2, 2), 'float32')], params={'stype': 'csr'},
                  error='csr needs a 2-D shape'))
cases.append(case('csr_1d', 'cast_storage', [np.zeros((4,), 'float32')], params={'stype': 'csr'},
                  error='csr needs a 2-D shape'))

# The sparse-only ops (their sparse kernels and gradients are checked against SciPy/NumPy by
# tools/golden/sparse/reduce.py): refused on dense inputs at the call, as MXNet's storage inference
# does; `_backward_sparse_retain` (dense head gradient) keeps the listed rows.
x = sparse_matrix((4, 3), 0.5, 'float32')
cases.append(case('retain_dense_data', '_sparse_retain', [x, np.array([0, 2], 'int64')],
                  error='row_sparse data array and dense indices'))
cases.append(case('square_sum_dense', '_square_sum', [x], params={'axis': 1}, error='takes a row_sparse array'))
cases.append(case('backward_square_sum_dense', '_backward_square_sum', [x[:, 0].copy(), x], params={'axis': 1},
                  error='row_sparse data'))
cases.append(case('getnnz_dense', '_contrib_getnnz', [x], error='only supports CSR'))
og = sparse_matrix((5, 3), 1.0, 'float32')
g = np.zeros_like(og)
g[[0, 3]] = og[[0, 3]]
cases.append(case('backward_retain', '_backward_sparse_retain', [og, np.array([3, 0], 'int64')], [g]))
# The sparse AdaGrad updates have sparse kernels only (MXNet registers FComputeEx alone): a dense
# gradient is refused at the call (group AdaGrad infers all-dense as dense, as MXNet, and then finds
# no dense kernel); their row_sparse updates are checked by tools/golden/sparse/optimizer.py.
w = sparse_matrix((3, 2), 1.0, 'float32')
cases.append(case('adagrad_dense_grad', '_sparse_adagrad_update', [w, w.copy(), np.ones((3, 2), 'float32')],
                  params={'lr': 0.1}, error='updates with a row_sparse gradient'))
cases.append(case('group_adagrad_dense_grad', '_contrib_group_adagrad_update',
                  [w, w.copy(), np.ones((3, 1), 'float32')], params={'lr': 0.1},
                  error='has no kernel'))

write('sparse', cases)
