#!/usr/bin/env python3
"""Real `scipy.sparse.save_npz` files, and what SciPy reads back from them, for the tests of
packages/ndarray/src/io/scipy-npz.ts and packages/ndarray/src/sparse/scipy-npz.ts.

Each fixture is written by SciPy itself (`save_npz`, compressed as by default or stored with
`compressed=False`) — except the two marked "numpy.savez", which reproduce layouts other SciPy
versions write (a unicode `format` member, as SciPy < 1.0 could; the `_is_array` flag newer SciPy
adds for sparse arrays) through NumPy directly. Cases cover csr (float32/float64/int8/int32 data,
int32 and int64 index arrays, unsorted columns with duplicates and an explicit zero, nnz = 0, zero
rows, bool data), coo with duplicates, csc with unsorted rows and duplicates, and what @mx refuses
(bsr, dia, complex data: recorded without values).

For each file the JSON records what `scipy.sparse.load_npz` gives: the stored format, dtype and
shape, the dense values (`toarray()`), and the canonical CSR form MXNet makes of it
(`mx.nd.sparse.array(m)` runs `tocsr()`, `sorted_indices()`, `sum_duplicates()`): data, indices,
indptr. Values are small integers times powers of two (sums exact in every dtype used).

Python's zipfile stamps members written through `ZipFile.open(name, 'w')` (as NumPy does)
1980-01-01, so a rerun reproduces the committed bytes.
Writes packages/ndarray/src/io/__fixtures__/scipy/*.npz and
packages/ndarray/src/__golden__/sparse-scipy-npz.json. Run with /usr/bin/python3 (NumPy, SciPy):
    /usr/bin/python3 tools/golden/sparse/scipy_npz.py
"""
import json
import pathlib

import numpy as np
import scipy
import scipy.sparse as sp

ROOT = pathlib.Path(__file__).resolve().parents[3]
FIXTURES = ROOT / 'packages/ndarray/src/io/__fixtures__/scipy'
OUT = ROOT / 'packages/ndarray/src/__golden__/sparse-scipy-npz.json'


def values(rng, n, dtype):
    v = rng.integers(1, 9, size=n) * rng.choice([-1, 1], size=n)
    if np.dtype(dtype).kind == 'f':
        return (v / 4).astype(dtype)
    return v.astype(dtype)


def random_dense(rng, shape, density, dtype):
    dense = np.zeros(shape, dtype=dtype)
    mask = rng.random(shape) < density
    dense[mask] = values(rng, int(mask.sum()), dtype)
    return dense


def number(v):
    return float(v) if isinstance(v, (float, np.floating)) else int(v)


def record(name, m, how, refused=None):
    entry = {
        'file': f'{name}.npz',
        'how': how,
        'format': m.format,
        'dtype': str(m.dtype),
        'shape': list(m.shape),
    }
    if refused is not None:  # only the refusal is tested
        entry['refused'] = refused
        return entry
    c = m.tocsr().sorted_indices()
    c.sum_duplicates()
    entry.update(
        dense=[number(v) for v in m.toarray().reshape(-1)],
        data=[number(v) for v in c.data],
        indices=[int(i) for i in c.indices],
        indptr=[int(i) for i in c.indptr],
        stored={k: str(v.dtype) for k, v in np.load(FIXTURES / f'{name}.npz').items()},
    )
    return entry


def save(name, m, compressed=True):
    sp.save_npz(FIXTURES / f'{name}.npz', m, compressed=compressed)
    back = sp.load_npz(FIXTURES / f'{name}.npz')
    assert back.format == m.format and np.array_equal(back.toarray(), m.toarray())


def savez(name, **arrays):
    np.savez(FIXTURES / f'{name}.npz', **arrays)


def main():
    rng = np.random.default_rng(20240615)
    FIXTURES.mkdir(parents=True, exist_ok=True)
    cases = []

    m = sp.csr_matrix(random_dense(rng, (4, 5), 0.4, np.float32))
    save('csr_float32', m)
    cases.append(record('csr_float32', m, 'save_npz'))

    m = sp.csr_matrix(random_dense(rng, (3, 6), 0.5, np.float64))
    save('csr_float64_stored', m, compressed=False)
    cases.append(record('csr_float64_stored', m, 'save_npz(compressed=False)'))

    # Unsorted columns, a duplicate (2 twice in row 0) and an explicit zero, as SciPy keeps them.
    m = sp.csr_matrix(
        (np.array([1.5, -2, 0.25, 0, 3, 4], dtype=np.float32),
         np.array([2, 0, 2, 1, 4, 3], dtype=np.int32),
         np.array([0, 3, 3, 6], dtype=np.int32)),
        shape=(3, 5))
    assert not m.has_canonical_format
    save('csr_unsorted_duplicates', m)
    cases.append(record('csr_unsorted_duplicates', m, 'save_npz'))

    m = sp.csr_matrix(random_dense(rng, (5, 4), 0.5, np.int32))
    m.indices = m.indices.astype(np.int64)
    m.indptr = m.indptr.astype(np.int64)
    save('csr_int32_int64_indices', m)
    cases.append(record('csr_int32_int64_indices', m, 'save_npz'))

    m = sp.csr_matrix(random_dense(rng, (4, 3), 0.5, np.int8))
    save('csr_int8', m)
    cases.append(record('csr_int8', m, 'save_npz'))

    m = sp.csr_matrix((3, 4), dtype=np.float32)
    save('csr_empty', m)
    cases.append(record('csr_empty', m, 'save_npz'))

    m = sp.csr_matrix((0, 3), dtype=np.float64)
    save('csr_zero_rows', m)
    cases.append(record('csr_zero_rows', m, 'save_npz'))

    m = sp.coo_matrix(
        (np.array([1, 2, 3, 4, 5, 6, -2], dtype=np.int64),
         (np.array([2, 0, 2, 1, 0, 2, 0]), np.array([3, 1, 0, 1, 1, 3, 4]))),
        shape=(4, 5))
    save('coo_duplicates', m)
    cases.append(record('coo_duplicates', m, 'save_npz'))

    # Column 0 lists rows 3, 0 (unsorted); column 2 lists row 1 twice (a duplicate SciPy keeps).
    m = sp.csc_matrix(
        (np.array([0.5, 1, -1.5, 2, 0.75], dtype=np.float32),
         np.array([3, 0, 1, 3, 1], dtype=np.int32),
         np.array([0, 2, 2, 5], dtype=np.int32)),
        shape=(4, 3))
    assert not m.has_canonical_format
    save('csc_unsorted_duplicates', m)
    cases.append(record('csc_unsorted_duplicates', m, 'save_npz'))

    m = sp.bsr_matrix(random_dense(rng, (4, 4), 0.5, np.float32), blocksize=(2, 2))
    save('bsr', m)
    cases.append(record('bsr', m, 'save_npz', refused='bsr'))

    m = sp.dia_matrix(random_dense(rng, (3, 3), 0.6, np.float32))
    save('dia', m)
    cases.append(record('dia', m, 'save_npz', refused='dia'))

    m = sp.csr_matrix(random_dense(rng, (3, 3), 0.5, np.bool_))
    save('csr_bool', m)
    cases.append(record('csr_bool', m, 'save_npz'))

    m = sp.csr_matrix(random_dense(rng, (2, 3), 0.6, np.complex64))
    save('csr_complex64', m)
    cases.append(record('csr_complex64', m, 'save_npz', refused='complex64'))

    # Layouts of other SciPy versions, written through NumPy.
    m = sp.csr_matrix(random_dense(rng, (2, 4), 0.5, np.float32))
    savez('csr_unicode_format', indices=m.indices, indptr=m.indptr, format=np.array('csr'),
          shape=np.array(m.shape), data=m.data)
    cases.append(record('csr_unicode_format', m, "numpy.savez, format '<U3' (SciPy < 1.0)"))

    m = sp.csr_matrix(random_dense(rng, (3, 2), 0.5, np.float64))
    savez('csr_is_array', indices=m.indices, indptr=m.indptr, format=b'csr',
          shape=np.array(m.shape), data=m.data, _is_array=True)
    cases.append(record('csr_is_array', m, 'numpy.savez with _is_array (newer SciPy, sparse arrays)'))

    OUT.parent.mkdir(parents=True, exist_ok=True)
    lines = ',\n'.join(json.dumps(c) for c in cases)
    OUT.write_text(f'{{"scipy": "{scipy.__version__}", "numpy": "{np.__version__}", "cases": [\n{lines}\n]}}\n')
    print(f'wrote {OUT.relative_to(ROOT)}: {len(cases)} files in {FIXTURES.relative_to(ROOT)}')


if __name__ == '__main__':
    main()
