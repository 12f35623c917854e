"""Encoding helpers shared by the np golden generators in this folder (reduce.py, sort.py,
creation.py, foundation.py), so each script holds only its cases. Imported by those scripts, which
run as `/usr/bin/python3 tools/golden/np/X.py` (this folder is then first on sys.path).

The folder once had a random.py that shadowed the standard library's `random` (numpy imports it);
this module drops the folder from sys.path before importing numpy, and scripts import it first.
"""
import pathlib
import sys

sys.path = [p for p in sys.path if pathlib.Path(p or '.').resolve() != pathlib.Path(__file__).resolve().parent]
import numpy as np  # noqa: E402


def arr(rng, shape, dtype, nan=False):
    """Random test data of `dtype` from the generator `rng`: bools, small integers (unsigned ones
    non-negative), or floats rounded to 2 decimals with ~30% NaN when `nan`."""
    if dtype == 'bool':
        return rng.random(shape) < 0.5
    if dtype.startswith('int') or dtype.startswith('uint'):
        return rng.integers(-5 if dtype.startswith('int') else 0, 6, size=shape).astype(dtype)
    a = (rng.standard_normal(shape) * 3).round(2).astype(dtype)
    if nan and a.size:
        a.reshape(-1)[rng.random(a.size) < 0.3] = np.nan
    return a


def enc(a):
    """An array as the tests read it: shape, dtype, flat data (JSON has no NaN/Infinity: null and
    strings)."""
    a = np.asarray(a)
    vals = a.ravel().tolist()
    if a.dtype == np.bool_:
        vals = [bool(v) for v in vals]
    elif a.dtype.kind == 'f':
        vals = [None if v != v else ('Infinity' if v == float('inf') else '-Infinity' if v == -float('inf') else v)
                for v in vals]
    return {'shape': list(a.shape), 'dtype': str(a.dtype), 'data': vals}


def val(v):
    """A call argument: arrays and NumPy scalars as {"arr": enc}, tuples as lists, the rest as is."""
    if isinstance(v, (np.ndarray, np.generic)):
        return {'arr': enc(v)}
    if isinstance(v, tuple):
        return list(v)
    return v


def camel(d):
    """NumPy's snake_case keywords as the TypeScript options' camelCase."""
    return {''.join(w if i == 0 else w.capitalize() for i, w in enumerate(k.split('_'))): v for k, v in d.items()}


class CallCases:
    """The {fn, args, kwargs, expect | error} case list of reduce.py and sort.py."""

    def __init__(self):
        self.cases = []

    def add(self, fn, args, kwargs, expect=None, error=None):
        c = {'fn': fn, 'args': [val(a) for a in args], 'kwargs': {k: val(v) for k, v in kwargs.items()}}
        if error is not None:
            c['error'] = error
        elif isinstance(expect, (list, tuple)):
            c['expect'] = [enc(e) for e in expect]
        else:
            c['expect'] = enc(expect)
        self.cases.append(c)

    def err(self, fn, args, kwargs, call):
        """Record NumPy's message for `call()`, which must raise."""
        try:
            call()
        except Exception as e:  # noqa: BLE001
            self.add(fn, args, kwargs, error=str(e))
            return
        raise AssertionError(f'{fn} did not raise')
