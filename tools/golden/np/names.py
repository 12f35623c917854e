#!/usr/bin/env python3
"""The names behind docs/np-coverage.md: NumPy's public functions (Debian's NumPy 1.24.2: run with
/usr/bin/python3) in `numpy`, `numpy.linalg` and `numpy.random`, and MXNet 2.0's `mx.np` lists (the
`__all__` of python/mxnet/numpy/{multiarray,linalg,random}.py and of fallback.py, read from an
apache/mxnet mirror, path in MXNET_MIRROR, default /work/.mirror/apache+mxnet/repo).
Writes packages/webgpu/scripts/np-names.json, which gen-np-coverage.ts renders.
"""
import ast
import json
import os
import pathlib
import subprocess
import types

import numpy as np

OUT = pathlib.Path(__file__).resolve().parents[3] / 'packages/webgpu/scripts/np-names.json'
MIRROR = os.environ.get('MXNET_MIRROR', '/work/.mirror/apache+mxnet/repo')


def public_functions(mod, names=None):
    out = []
    for n in sorted(names if names is not None else dir(mod)):
        if n.startswith('_'):
            continue
        v = getattr(mod, n, None)
        if isinstance(v, (np.ufunc, types.FunctionType, types.BuiltinFunctionType)) or (
                callable(v) and type(v).__name__ == '_ArrayFunctionDispatcher'):
            out.append(n)
    return out


def mxnet_all(path):
    src = subprocess.run(['git', f'--git-dir={MIRROR}', 'show', f'HEAD:{path}'], capture_output=True, text=True,
                         check=True).stdout
    names = []
    tree = ast.parse(src)
    lists = {}  # module-level `name = [...]` lists (fallback.py: `__all__ = fallbacks`)
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.List):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    lists[t.id] = [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in lists and any(
                isinstance(t, ast.Name) and t.id == '__all__' for t in node.targets):
            names += lists[node.value.id]
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == '__all__' for t in targets) and isinstance(node.value, ast.List):
                names += [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
    return sorted(set(names))


random_names = [n for n in np.random.__all__ if callable(getattr(np.random, n, None))
                and not isinstance(getattr(np.random, n), type)]
data = {
    'numpy': np.__version__,
    'np': public_functions(np),
    'linalg': public_functions(np.linalg),
    'random': sorted(random_names),
    'mxnet': {
        'np': mxnet_all('python/mxnet/numpy/multiarray.py'),
        'fallback': mxnet_all('python/mxnet/numpy/fallback.py'),
        'linalg': mxnet_all('python/mxnet/numpy/linalg.py'),
        'random': mxnet_all('python/mxnet/numpy/random.py'),
    },
}
OUT.parent.mkdir(parents=True, exist_ok=True)
OUT.write_text(json.dumps(data, indent=1) + '\n')
print(f"wrote {OUT}: numpy {len(data['np'])}+{len(data['linalg'])}+{len(data['random'])}, "
      f"mxnet {len(data['mxnet']['np'])}+{len(data['mxnet']['linalg'])}+{len(data['mxnet']['random'])} "
      f"(fallback {len(data['mxnet']['fallback'])})")
