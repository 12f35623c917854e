#!/usr/bin/env python3
"""Golden std::mt19937 outputs for @mx/storage's MT19937 tests.

NumPy's MT19937 with `_legacy_seeding(int)` is Matsumoto's init_genrand, i.e. what
`std::mt19937::seed(uint32)` does, and `random_raw` returns the tempered 32-bit outputs.
Writes the first 2000 outputs for each seed to
packages/storage/src/resource/__golden__/mt19937.json, then formats it with Biome (the repo lints
JSON too, so the committed file is exactly what a rerun produces).

Rerun from the repository root:  python3 tools/golden/mt19937.py
"""
import json
import pathlib
import subprocess

import numpy

SEEDS = [5489, 0, 1, 42 * 127, 3 + 42 * 127, 4294967295]
COUNT = 2000
ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "packages/storage/src/resource/__golden__/mt19937.json"


def outputs(seed: int) -> list[int]:
    bg = numpy.random.MT19937()
    bg._legacy_seeding(seed)
    return [int(v) for v in bg.random_raw(COUNT)]


def main() -> None:
    first = outputs(5489)[:3]
    assert first == [3499211612, 581869302, 3890346734], first  # std::mt19937 default_seed
    data = {
        "generator": "std::mt19937 (numpy.random.MT19937._legacy_seeding)",
        "numpy": numpy.__version__,
        "count": COUNT,
        "seeds": {str(s): outputs(s) for s in SEEDS},
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    subprocess.run(["pnpm", "exec", "biome", "format", "--write", str(OUT)], cwd=ROOT, check=True)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
