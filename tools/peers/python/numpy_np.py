#!/usr/bin/env python3
"""NumPy's side of the np benchmark (packages/ndarray/bench/np.ts): times NumPy on the very arrays
the benchmark built, read from the files it wrote, so both sides compute on the same numbers in the
same run. A long-lived process: after loading it prints one JSON line (`{"ready": true, ...}` or
`{"skip": reason}`), then answers each stdin line `run <workload> <count>` with
`{"times_ms": [...], "checksum": x}`; it exits at end of input. Run with /usr/bin/python3 (Debian's
NumPy 1.24.2, the project's reference).

Files in the directory given as the only argument (little-endian): meta.json with the shapes,
einsum_a.f32, einsum_b.f32, sort.f32, unique.i32, mask_x.f32, mask_m.u8, take_x.f32, take_i.i64.
"""
import json
import pathlib
import sys
import time


def main():
    try:
        import numpy as np
    except ImportError as e:
        print(json.dumps({'skip': f'NumPy not importable by {sys.executable}: {e}'}), flush=True)
        return
    d = pathlib.Path(sys.argv[1])
    meta = json.loads((d / 'meta.json').read_text())
    f32 = lambda n, shape: np.fromfile(d / n, dtype='<f4').reshape(shape)  # noqa: E731
    a = f32('einsum_a.f32', meta['einsum_a'])
    b = f32('einsum_b.f32', meta['einsum_b'])
    s = np.fromfile(d / 'sort.f32', dtype='<f4')
    u = np.fromfile(d / 'unique.i32', dtype='<i4')
    mx = np.fromfile(d / 'mask_x.f32', dtype='<f4')
    mm = np.fromfile(d / 'mask_m.u8', dtype='u1').astype(bool)
    tx = f32('take_x.f32', meta['take_x'])
    ti = np.fromfile(d / 'take_i.i64', dtype='<i8')
    work = {
        'einsum': lambda: np.einsum('bij,bjk->bik', a, b),
        'matmul': lambda: np.matmul(a, b),
        'sort': lambda: np.sort(s),
        'unique': lambda: np.unique(u),
        'mask': lambda: mx[mm],
        'take': lambda: np.take(tx, ti, axis=0),
    }
    print(json.dumps({'ready': True, 'numpy': np.__version__}), flush=True)
    for line in sys.stdin:
        parts = line.split()
        if len(parts) != 3 or parts[0] != 'run' or parts[1] not in work:
            print(json.dumps({'error': f'bad command {line.strip()!r}'}), flush=True)
            continue
        f = work[parts[1]]
        times = []
        out = None
        for _ in range(int(parts[2])):
            t0 = time.perf_counter()
            out = f()
            times.append((time.perf_counter() - t0) * 1e3)
        checksum = float(np.asarray(out, dtype=np.float64).sum()) if out is not None else 0.0
        print(json.dumps({'times_ms': times, 'checksum': checksum}), flush=True)


if __name__ == '__main__':
    main()
