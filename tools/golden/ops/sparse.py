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

write('sparse', cases)
