"""Shared helpers for the operator conformance generators (tools/golden/ops/<family>.py).

Each family script builds cases with NumPy (the reference), then calls write(family, cases), which
writes packages/conformance/src/__golden__/<family>.json. Run from anywhere:
    python3 tools/golden/ops/<family>.py
Cases are deterministic (fixed seeds). Expected values come from NumPy only, never from @mx.

Case format (JSON):
  {"name": str, "op": MXNet op name, "params": {k: value} (typed JSON values or MXNet strings),
   "inputs": [array], "outputs": [array] | absent when "error" is given,
   "error": substring of the expected MXNetError message (bad-input cases),
   "rtol": float, "atol": float,
   "backends"?: [names] (only these), "skip"?: reason}
  array = {"shape": [..], "dtype": numpy name, "data": flat row-major list}
  Floats that JSON cannot hold are the strings "nan", "inf", "-inf".
"""
import json
import math
import os

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
OUT_DIR = os.path.join(ROOT, 'packages', 'conformance', 'src', '__golden__')

# Default tolerances per dtype (explicit, used unless a case overrides them).
TOL = {
    'float32': (1e-5, 1e-6),
    'float64': (1e-12, 1e-14),
    'float16': (1e-3, 1e-3),
    'bfloat16': (1e-2, 1e-2),
}


def tol(dtype):
    return TOL.get(str(dtype), (0.0, 0.0))


def _scalar(v, kind):
    if kind == 'f':
        f = float(v)
        if math.isnan(f):
            return 'nan'
        if math.isinf(f):
            return 'inf' if f > 0 else '-inf'
        return f
    if kind == 'b':
        return 1 if bool(v) else 0
    return int(v)


def arr(a, dtype=None):
    """Encode a NumPy array (or scalar) as a case array."""
    a = np.asarray(a, dtype=dtype)
    kind = a.dtype.kind
    name = 'bool' if kind == 'b' else str(a.dtype)
    return {'shape': list(a.shape), 'dtype': name, 'data': [_scalar(v, kind) for v in a.reshape(-1).tolist()]}


def case(name, op, inputs, outputs=None, params=None, rtol=None, atol=None, error=None, **extra):
    ins = [x if isinstance(x, dict) else arr(x) for x in inputs]
    c = {'name': name, 'op': op, 'params': params or {}, 'inputs': ins}
    if error is not None:
        c['error'] = error
    else:
        outs = [x if isinstance(x, dict) else arr(x) for x in outputs]
        c['outputs'] = outs
        dt = outs[0]['dtype'] if outs else 'float32'
        r, a = tol(dt)
        c['rtol'] = r if rtol is None else rtol
        c['atol'] = a if atol is None else atol
    c.update(extra)
    return c


def write(family, cases, out_dir=None):
    """Write the cases; `out_dir` (default: the conformance package) for backend-private data."""
    out_dir = out_dir or OUT_DIR
    os.makedirs(out_dir, exist_ok=True)
    names = [c['name'] for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise SystemExit(f'duplicate case names: {sorted(dup)[:5]}')
    path = os.path.join(out_dir, f'{family}.json')
    with open(path, 'w') as f:
        json.dump({'family': family, 'generator': f'tools/golden/ops/{family}.py',
                   'numpy': np.__version__, 'cases': cases}, f, separators=(',', ':'))
        f.write('\n')
    print(f'wrote {len(cases)} cases to {os.path.relpath(path, ROOT)}')
