#!/usr/bin/env python3
"""A Gluon 2.0-style parameter file for packages/gluon/src/block/npz.test.ts.

MXNet 2.0's `HybridBlock.save_parameters` (with the NumPy semantics on) writes `npx.savez`: a
standard NumPy .npz archive whose member names are the structural parameter names
(`fc1.weight`). NumPy writes the same format, so this file stands in for one written by MXNet 2.0.
The values are fixed (sin/cos of the index) so the test can check them element by element.

Run with Debian's python3-numpy:
    /usr/bin/python3 tools/golden/gluon/npz_params.py
"""
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
OUT = ROOT / 'packages/gluon/src/__fixtures__/mlp-2.0.npz'


def values(shape, phase):
    n = int(np.prod(shape))
    return np.sin(np.arange(n, dtype=np.float64) * 0.37 + phase).astype(np.float32).reshape(shape)


def main():
    params = {
        'fc1.weight': values((8, 5), 0.0),
        'fc1.bias': values((8,), 1.0),
        'fc2.weight': values((3, 8), 2.0),
        'fc2.bias': values((3,), 3.0),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez(OUT, **params)
    print(f'wrote {OUT}')


if __name__ == '__main__':
    main()
