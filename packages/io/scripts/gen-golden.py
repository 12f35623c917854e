#!/usr/bin/env python3
"""Golden shuffles for @mx/io's tests, from the real implementations (never from our own code).

- `std_shuffle`: the order MXNet's MNISTIter gives its images, std::shuffle(0..n-1,
  std::mt19937(seed)), from std-shuffle.cc built with the system's g++ (libstdc++; the version is
  recorded: libstdc++ has changed the algorithm between versions, and MXNet inherits whatever it
  was built with).
- `numpy_shuffle`: NDArrayIter's shuffles, `np.random.seed(seed)` then `np.random.shuffle(idx)`
  once per reset on the same index array (python/mxnet/io/io.py), from NumPy's legacy RandomState.

Large permutations are stored as head, tail and a weighted sum, to keep the file small.
Rerun from the repository root:  python3 packages/io/scripts/gen-golden.py
"""
import json
import pathlib
import subprocess
import tempfile

import numpy

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "src" / "__golden__" / "shuffles.json"
FULL_LIMIT = 1000


def summarize(perm: list[int]) -> dict:
    entry = {"n": len(perm), "weighted": sum((i + 1) * v for i, v in enumerate(perm))}
    if len(perm) <= FULL_LIMIT:
        entry["perm"] = perm
    else:
        entry["head"] = perm[:64]
        entry["tail"] = perm[-64:]
    return entry


def std_shuffles() -> tuple[str, list[dict]]:
    with tempfile.TemporaryDirectory() as tmp:
        exe = pathlib.Path(tmp) / "std-shuffle"
        subprocess.run(["g++", "-O2", "-std=c++17", "-o", str(exe), str(HERE / "std-shuffle.cc")], check=True)
        version = subprocess.run(["g++", "-dumpfullversion"], capture_output=True, text=True, check=True)
        cases = []
        for n in [1, 2, 3, 4, 5, 10, 11, 64, 100, 1000, 7000, 65535, 65536, 70000]:
            for seed in [0, 1, 10, 42, -1, 2147483647]:
                if n > 1000 and seed not in (0, 10):
                    continue
                out = subprocess.run([str(exe), str(n), str(seed)], capture_output=True, text=True, check=True)
                perm = [int(x) for x in out.stdout.split()]
                cases.append({"seed": seed, **summarize(perm)})
        return f"libstdc++ (g++ {version.stdout.strip()})", cases


def numpy_shuffles() -> list[dict]:
    cases = []
    for n, seed, resets in [(1, 0, 2), (2, 3, 3), (10, 0, 3), (10, 7, 3), (100, 42, 2), (1000, 1, 2), (5000, 2, 2)]:
        numpy.random.seed(seed)
        idx = numpy.arange(n)
        data_order = numpy.arange(n)  # which original row sits at each position (io.py reorders the data)
        epochs = []
        for _ in range(resets):
            numpy.random.shuffle(idx)
            data_order = data_order[idx]
            epochs.append({"idx": summarize([int(v) for v in idx]), "order": summarize([int(v) for v in data_order])})
        cases.append({"n": n, "seed": seed, "epochs": epochs})
    return cases


def main() -> None:
    library, std_cases = std_shuffles()
    golden = {
        "std_shuffle": {"library": library, "cases": std_cases},
        "numpy_shuffle": {"numpy": numpy.__version__, "cases": numpy_shuffles()},
    }
    OUT.write_text(json.dumps(golden, separators=(",", ":")) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
