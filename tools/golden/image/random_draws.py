#!/usr/bin/env python3
"""Golden random draws for @mx/io's ImageRandom (packages/io/src/image/random.test.ts).

MXNet's image augmenters draw from Python's `random` module and from NumPy's global legacy
generator. For each seed this records, from CPython and NumPy themselves, a fixed script of calls
(the ones the augmenters make: random, uniform, randint, shuffle, np.random.normal) with their
results, after `random.seed(python_seed); np.random.seed(numpy_seed)`.

Writes packages/io/src/__golden__/image-random.json. Rerun from anywhere with the system Python:
    python3 tools/golden/image/random_draws.py
"""
import json
import pathlib
import platform
import random

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / 'packages/io/src/__golden__/image-random.json'

SEEDS = [(0, 0), (1, 1), (42, 42), (12345, 12345), (-5, 5), (2**32 + 7, 7), (2**40 + 3, 4294967295)]

SCRIPT = (
    [('random', [])] * 6
    + [('uniform', [-0.4, 0.4]), ('uniform', [0.08, 1.0]), ('uniform', [-0.2876820724517809, 0.28768207245178085])]
    + [('randint', [0, k]) for k in [0, 1, 2, 3, 4, 5, 7, 8, 100, 151, 255, 276, 2**31, 2**32 - 1, 2**32, 2**33 + 5]]
    + [('randint', [-3, 3]), ('randint', [10, 10])]
    + [('shuffle', [n]) for n in [0, 1, 2, 3, 5, 10]]
    + [('normal', [0.0, 0.1])] * 5
    + [('random', []), ('normal', [1.5, 2.0]), ('randint', [0, 4])] * 3
)


def run(py_seed, np_seed):
    random.seed(py_seed)
    np.random.seed(np_seed)
    out = []
    for op, args in SCRIPT:
        if op == 'random':
            res = random.random()
        elif op == 'uniform':
            res = random.uniform(*args)
        elif op == 'randint':
            res = random.randint(*args)
        elif op == 'shuffle':
            items = list(range(args[0]))
            random.shuffle(items)
            res = items
        else:
            res = float(np.random.normal(args[0], args[1]))
        out.append({'op': op, 'args': args, 'result': res})
    return out


def main():
    golden = {
        'generator': f'CPython {platform.python_version()} random, NumPy {np.__version__} legacy RandomState',
        'cases': [{'python': p, 'numpy': n, 'calls': run(p, n)} for p, n in SEEDS],
    }
    OUT.write_text(json.dumps(golden) + '\n')
    print(f'wrote {OUT}')


if __name__ == '__main__':
    main()
