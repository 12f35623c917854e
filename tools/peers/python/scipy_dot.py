#!/usr/bin/env python3
"""SciPy's side of the sparse dot benchmark (packages/ndarray/bench/sparse-dot.ts): times
`A @ B` (scipy.sparse csr times a dense matrix) and `A.T @ C` on the very matrices the benchmark
built, read from the files it wrote, so both sides multiply the same numbers in the same run.

A long-lived process, so the benchmark can interleave batches of its own runs with SciPy's on a
noisy machine: after loading it prints one JSON line (`{"ready": true, ...}`, or `{"skip": reason}`
when NumPy/SciPy are missing), then answers each stdin line `run <op> <count>` (op: `csr_dense` or
`csrT_dense`) with `{"times_ms": [...], "checksum": sum}`; it exits at end of input.

Files in the directory given as the only argument: meta.json {rows, cols, n}, indptr.i64,
indices.i64, data.f32, rhs.f32 (cols x n), rhsT.f32 (rows x n), all little-endian. SciPy keeps the
index arrays as it builds them from int64 input (csr_matrix picks int32 when the values fit).
Run with /usr/bin/python3.
"""
import json
import pathlib
import sys
import time


def main():
    try:
        import numpy as np
        import scipy
        import scipy.sparse as sp
    except ImportError as e:  # the benchmark reports ours alone
        print(json.dumps({'skip': f'NumPy/SciPy not importable by {sys.executable}: {e}'}), flush=True)
        return
    d = pathlib.Path(sys.argv[1])
    meta = json.loads((d / 'meta.json').read_text())
    rows, cols, n = meta['rows'], meta['cols'], meta['n']
    indptr = np.fromfile(d / 'indptr.i64', dtype='<i8')
    indices = np.fromfile(d / 'indices.i64', dtype='<i8')
    data = np.fromfile(d / 'data.f32', dtype='<f4')
    a = sp.csr_matrix((data, indices, indptr), shape=(rows, cols))
    ops = {
        'csr_dense': (a, np.fromfile(d / 'rhs.f32', dtype='<f4').reshape(cols, n)),
        'csrT_dense': (a.T, np.fromfile(d / 'rhsT.f32', dtype='<f4').reshape(rows, n)),
    }
    print(json.dumps({'ready': True, 'scipy': scipy.__version__, 'numpy': np.__version__,
                      'nnz': int(a.nnz), 'indexDtype': str(a.indices.dtype)}), flush=True)
    for line in sys.stdin:
        parts = line.split()
        if len(parts) != 3 or parts[0] != 'run' or parts[1] not in ops:
            print(json.dumps({'error': f'bad command {line.strip()!r}'}), flush=True)
            continue
        lhs, rhs = ops[parts[1]]
        times = []
        out = None
        for _ in range(int(parts[2])):
            t0 = time.perf_counter()
            out = lhs @ rhs
            times.append((time.perf_counter() - t0) * 1e3)
        checksum = float(np.asarray(out, dtype=np.float64).sum()) if out is not None else 0.0
        print(json.dumps({'times_ms': times, 'checksum': checksum}), flush=True)


if __name__ == '__main__':
    main()
