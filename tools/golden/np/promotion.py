#!/usr/bin/env python3
"""Golden data for @mx/base's NumPy dtype promotion (packages/base/src/dtype-promotion.test.ts).

What NumPy itself says, for the 13 dtypes of @mx/base's DType table:

- `pairs`: np.promote_types(a, b) for every ordered pair (13 x 13), or null where NumPy has no
  common dtype (the TypeError text is kept in `errors`).
- `triples`: np.result_type(a, b, c) over dtypes only (no scalars, so NumPy 1.24's value-based
  scalar rule plays no part), for every ordered triple: checks how @mx folds several operands.

bfloat16 is not a NumPy dtype: it comes from ml_dtypes, which registers it with NumPy together with
its casts, so np.promote_types answers for it as for the built-in types (the plan in
docs/design/np.md takes bfloat16's rules from ml_dtypes).

Scalar (weak Python number) rules are not recorded here: NumPy 1.24 promotes Python scalars by value
(the rule NEP 50 replaced in NumPy 2), so the test writes those cases by hand from NEP 50's table.

Run with Debian's NumPy 1.24.2 (the project's reference), not pyenv's python3 (NumPy 2.x), and
ml_dtypes 0.5.4 on the path (0.6 needs NumPy 2). ml_dtypes is not a Debian package; unpack its wheel:
    mkdir -p /tmp/mld && (cd /tmp/mld && unzip -qo /path/to/ml_dtypes-0.5.4-cp311-*.whl)
    PYTHONPATH=/tmp/mld /usr/bin/python3 tools/golden/np/promotion.py
Writes packages/base/src/__golden__/np-promotion.json.
"""
import itertools
import json
import pathlib

import ml_dtypes
import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / 'packages/base/src/__golden__/np-promotion.json'

# In MXNet flag order, as @mx/base's ALL_DTYPES lists them.
NAMES = ['float32', 'float64', 'float16', 'uint8', 'int32', 'int8', 'int64', 'bool', 'int16',
         'uint16', 'uint32', 'uint64', 'bfloat16']


def np_dtype(name):
    return np.dtype(ml_dtypes.bfloat16) if name == 'bfloat16' else np.dtype(name)


def mx_name(d):
    name = 'bool' if d == np.bool_ else str(d)
    assert name in NAMES, name
    return name


def promote(*names):
    """(result name, None) or (None, NumPy's error text)."""
    try:
        if len(names) == 2:
            return mx_name(np.promote_types(*map(np_dtype, names))), None
        return mx_name(np.result_type(*map(np_dtype, names))), None
    except TypeError as e:
        return None, str(e)


def main():
    pairs, errors, triples = {}, {}, {}
    for a, b in itertools.product(NAMES, repeat=2):
        r, err = promote(a, b)
        pairs.setdefault(a, {})[b] = r
        if err is not None:
            errors[f'{a},{b}'] = err
    for a, b, c in itertools.product(NAMES, repeat=3):
        triples[f'{a},{b},{c}'] = promote(a, b, c)[0]
    # Sanity: NumPy's own documented examples hold here.
    assert pairs['int32']['float32'] == 'float64' and pairs['int64']['uint64'] == 'float64'
    doc = {
        'numpy': np.__version__,
        'ml_dtypes': ml_dtypes.__version__,
        'dtypes': NAMES,
        'pairs': pairs,
        'errors': errors,
        'triples': triples,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(doc, indent=1, sort_keys=False) + '\n')
    n_err = sum(v is None for row in pairs.values() for v in row.values())
    print(f'wrote {OUT.relative_to(ROOT)}: {len(NAMES) ** 2} pairs ({n_err} without promotion), '
          f'{len(triples)} triples')


if __name__ == '__main__':
    main()
