#!/usr/bin/env python3
"""Golden data for @mx/base's tests, computed by NumPy:

- dtypes: itemsize, kind and `.str` descriptor of every NumPy dtype @mx names;
- broadcast: `numpy.broadcast_shapes` over random shape tuples (or the fact that it raises);
- size: the element count of each shape (`numpy.prod`, with () -> 1).

Writes packages/base/src/__golden__/base.json, then formats it with Biome so a rerun reproduces
the committed file exactly.  Rerun from the repository root:  python3 tools/golden/base.py
"""
import json
import pathlib
import random
import subprocess

import numpy

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "packages/base/src/__golden__/base.json"
NAMES = ["float32", "float64", "float16", "uint8", "int32", "int8", "int64", "bool",
         "int16", "uint16", "uint32", "uint64"]


def dtypes():
    return {n: {"itemsize": numpy.dtype(n).itemsize, "kind": numpy.dtype(n).kind,
                "str": numpy.dtype(n).str} for n in NAMES}


def random_shape(rng):
    ndim = rng.randint(0, 4)
    return tuple(rng.choice([0, 1, 1, 2, 3, 5]) for _ in range(ndim))


def broadcast(rng, count=300):
    cases = []
    for _ in range(count):
        shapes = [random_shape(rng) for _ in range(rng.randint(1, 3))]
        try:
            out = list(numpy.broadcast_shapes(*shapes))
        except ValueError:
            out = None
        cases.append({"shapes": [list(s) for s in shapes], "out": out})
    return cases


def main():
    rng = random.Random(20261121)
    sizes = [{"shape": list(s), "size": int(numpy.prod(s, dtype=numpy.int64))}
             for s in (random_shape(rng) for _ in range(50))]
    data = {"numpy": numpy.__version__, "dtypes": dtypes(), "broadcast": broadcast(rng), "size": sizes}
    OUT.write_text(json.dumps(data) + "\n")
    subprocess.run(["npx", "biome", "format", "--write", str(OUT)], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
