#!/usr/bin/env python3
"""Golden data for np indexing (packages/ndarray/src/np/indexing/*.test.ts): what NumPy does with
`x[key]` and `x[key] = value`, for the pure planner and reference indexer of docs/design/np.md.

Each source array is `np.arange(size).reshape(shape)`, so a result's values *are* the flat source
positions it reads: only shapes, keys and results are stored. Assignments write
`1000 + np.arange(value size).reshape(value shape)` into the arange; the stored result lists, per
source position, the value element now there, or -1 where the source value stayed.

Cases are enumerated with a seeded `random.Random` (reproducible) over shapes up to 4-D: integers
(negative, out of bounds), slices with every step sign and out-of-range bounds, None, Ellipsis
(also twice, an error), scalar booleans, boolean masks (matching and not), integer arrays (broadcasting,
negative, out of bounds, empty, adjacent and separated, with None between), float arrays (an error).
Errors keep NumPy's exception type and `str(e)`.

Views: `np_view` is `np.shares_memory(result, x)`. `mx_view` is MXNet 2.0's stricter rule for
basic keys (python/mxnet/ndarray/ndarray.py `_basic_indexing_slice_is_contiguous`, restated
here): with integers as one-element slices, scanning axes from the last: a zero-length axis
makes the result contiguous; an axis of more than one element must have step 1; once an axis
took a proper subset, every axis left of it must have at most one element. Results of 0 or 1
elements are contiguous. A scalar False gives a fresh empty array (not a view). `mx_view` is null
for keys holding arrays.

Key encoding: int -> number; slice -> {"s": [start, stop, step]}; None -> null; Ellipsis -> "...";
scalar bool -> true/false; float -> {"f": x}; array -> {"a": shape, "d": dtype, "v": flat values (bools as 0/1)}.
`src` is the key in Python syntax (basic keys only), for the string mini-language parser.

Run with Debian's NumPy 1.24.2 (the project's reference), not pyenv's python3:
    /usr/bin/python3 tools/golden/np/indexing.py
Writes packages/ndarray/src/np/indexing/__golden__/indexing.json.
"""
import json
import pathlib
import random
import warnings

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / 'packages/ndarray/src/np/indexing/__golden__/indexing.json'

SHAPES = [(), (5,), (0,), (3, 4), (1, 3), (0, 3), (2, 3, 4), (3, 1, 2), (2, 0, 3), (2, 3, 2, 3), (1, 2, 1, 3)]
STEPS = [None, None, 1, 2, 3, -1, -1, -2, -3]


# ---- key encoding ----------------------------------------------------------------------------

def enc_item(it):
    if it is None:
        return None
    if it is Ellipsis:
        return '...'
    if isinstance(it, bool):
        return it
    if isinstance(it, int):
        return it
    if isinstance(it, float):
        return {'f': it}
    if isinstance(it, slice):
        return {'s': [it.start, it.stop, it.step]}
    if isinstance(it, np.ndarray):
        return {'a': list(it.shape), 'd': str(it.dtype), 'v': [int(v) if it.dtype != np.float64 else float(v)
                                                               for v in it.reshape(-1)]}
    raise TypeError(type(it))


def src_item(it):
    if it is None:
        return 'None'
    if it is Ellipsis:
        return '...'
    if isinstance(it, int):
        return str(it)
    parts = ['' if it.start is None else str(it.start), '' if it.stop is None else str(it.stop)]
    if it.step is not None:
        parts.append(str(it.step))
    return ':'.join(parts)


def is_basic(key):
    return all(it is None or it is Ellipsis or isinstance(it, slice) or
               (isinstance(it, int) and not isinstance(it, bool)) for it in key)


# ---- MXNet's view rule (see the docstring) ---------------------------------------------------

def mx_view(shape, key):
    if any(isinstance(it, np.ndarray) for it in key):
        return None
    if any(it is False for it in key):
        return False
    items = [it for it in key if not isinstance(it, bool) and it is not None]
    if Ellipsis in items:
        at = items.index(Ellipsis)
        items = items[:at] + [slice(None)] * (len(shape) - len(items) + 1) + items[at + 1:]
    items += [slice(None)] * (len(shape) - len(items))
    axes = []
    for it, n in zip(items, shape):
        if isinstance(it, int):
            axes.append((1, 1, n))
        else:
            axes.append((len(range(*it.indices(n))), it.indices(n)[2], n))
    if int(np.prod([a[0] for a in axes])) in (0, 1):
        return True
    subset = False
    for count, step, n in reversed(axes):
        if count == 0:
            return True
        if count > 1 and step != 1:
            return False
        if subset and count > 1:
            return False
        if count < n:
            subset = True
    return True


# ---- random keys -----------------------------------------------------------------------------

def rand_int(r, n, oob=0.08):
    if r.random() < oob or n == 0:
        return r.choice([n, n + 1, -n - 1, -n - 2])
    return r.randrange(-n, n)


def rand_slice(r, n):
    def bound():
        return None if r.random() < 0.4 else r.randint(-n - 2, n + 2)
    return slice(bound(), bound(), r.choice(STEPS))


def key_extra(r):
    """Room for None/Ellipsis entries, which use no axis."""
    return 1 if r.random() < 0.3 else 0


def rand_basic_key(r, shape):
    key = []
    axis = 0
    ell = False
    length = r.randint(0, len(shape)) + (r.randint(1, 2) if r.random() < 0.12 else 0) + key_extra(r)
    for _ in range(length):
        u = r.random()
        n = shape[axis] if axis < len(shape) else 3
        if u < 0.12:
            key.append(None)
        elif u < 0.2 and (not ell or r.random() < 0.1):
            key.append(Ellipsis)
            ell = True
        elif u < 0.5:
            key.append(rand_int(r, n))
            axis += 1
        else:
            key.append(rand_slice(r, n))
            axis += 1
    if r.random() < 0.02:
        key.append(slice(None, None, 0))
    return tuple(key)


def rand_index_array(r, n, shape=None):
    shape = shape if shape is not None else r.choice([(2,), (3,), (1,), (2, 1), (1, 3), (2, 3), (0,), (4,)])
    size = int(np.prod(shape))
    vals = [rand_int(r, n, oob=0.03) for _ in range(size)]
    dtype = r.choice(['int64', 'int64', 'int32', 'uint8']) if all(v >= 0 for v in vals) else r.choice(['int64', 'int32'])
    if r.random() < 0.02:
        dtype = 'float64'
    return np.array(vals, dtype=dtype).reshape(shape)


def rand_mask(r, shape, axis, d):
    dims = list(shape[axis:axis + d])
    if r.random() < 0.1 and dims:
        dims[r.randrange(len(dims))] += 1
    return np.array([r.random() < 0.6 for _ in range(int(np.prod(dims)))], dtype=bool).reshape(dims)


def rand_adv_key(r, shape):
    ndim = len(shape)
    key = []
    axis = 0
    n_adv = 0
    length = r.randint(1, max(ndim, 1)) + (1 if r.random() < 0.1 else 0) + key_extra(r)
    for i in range(length):
        u = r.random()
        n = shape[axis] if axis < ndim else 3
        if u < 0.4:
            key.append(rand_index_array(r, n))
            axis += 1
            n_adv += 1
        elif u < 0.5 and axis < ndim:
            d = r.randint(1, ndim - axis)
            key.append(rand_mask(r, shape, axis, d))
            axis += d
            n_adv += 1
        elif u < 0.57:
            key.append(r.random() < 0.8)
        elif u < 0.65:
            key.append(None)
        elif u < 0.7 and not any(it is Ellipsis for it in key):
            key.append(Ellipsis)
        elif u < 0.82:
            key.append(rand_int(r, n, oob=0.03))
            axis += 1
        else:
            key.append(rand_slice(r, n) if r.random() < 0.6 else slice(None))
            axis += 1
    if n_adv == 0:
        key.insert(r.randrange(len(key) + 1), rand_index_array(r, shape[0] if ndim else 1))
    return tuple(key)


def rand_mask_key(r, shape):
    """A single boolean mask (maybe after leading full slices), the fast path."""
    ndim = len(shape)
    if ndim == 0:
        return (r.random() < 0.5,)
    axis = r.randrange(ndim) if r.random() < 0.3 else 0
    d = r.randint(1, ndim - axis)
    key = [slice(None)] * axis + [rand_mask(r, shape, axis, d)]
    if r.random() < 0.3:
        key.append(Ellipsis)
    return tuple(key)


# ---- running NumPy ---------------------------------------------------------------------------

def run_get(shape, key):
    x = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    case = {'shape': list(shape), 'key': [enc_item(it) for it in key]}
    if is_basic(key):
        case['src'] = ', '.join(src_item(it) for it in key) + (',' if len(key) == 1 else '')
    try:
        res = x[key]
    except (IndexError, ValueError, TypeError) as e:
        case['error'] = {'type': type(e).__name__, 'message': str(e)}
        return case
    except DeprecationWarning:
        return None
    case['result'] = {'shape': list(res.shape), 'values': [int(v) for v in res.reshape(-1)]}
    case['np_view'] = bool(np.shares_memory(res, x))
    case['mx_view'] = mx_view(shape, key)
    return case


def run_set(shape, key, vshape):
    x = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    size = int(np.prod(vshape))
    value = (1000 + np.arange(size, dtype=np.int64)).reshape(vshape)
    case = {'shape': list(shape), 'key': [enc_item(it) for it in key], 'value_shape': list(vshape)}
    if is_basic(key):
        case['src'] = ', '.join(src_item(it) for it in key) + (',' if len(key) == 1 else '')
    try:
        x[key] = value
    except (IndexError, ValueError, TypeError) as e:
        case['error'] = {'type': type(e).__name__, 'message': str(e)}
        return case
    except DeprecationWarning:
        return None
    flat = x.reshape(-1)
    case['result'] = [int(v) - 1000 if v >= 1000 else -1 for v in flat]
    return case


def has_duplicate_targets(shape, key):
    """Advanced assignments that write one element twice: NumPy's order there is unspecified."""
    x = np.arange(int(np.prod(shape))).reshape(shape)
    try:
        pos = x[key].reshape(-1)
    except (IndexError, ValueError, TypeError, DeprecationWarning):
        return False
    return len(set(pos.tolist())) != len(pos)


def value_shapes(r, shape, key):
    x = np.zeros(shape)
    try:
        res = x[key].shape
    except (IndexError, ValueError, TypeError, DeprecationWarning):
        return [(), (2,)]
    out = [res, ()]
    if res:
        out.append((1,) + res)
        out.append(res[1:])
        out.append((1,) * (len(res) - 1) + (res[-1],))
        bad = list(res)
        bad[r.randrange(len(bad))] += 1
        out.append(tuple(bad))
        out.append((2,) + res)
    else:
        out.append((1, 1))
        out.append((2,))
    return sorted(set(out), key=lambda s: (len(s), s))[:4] if r.random() < 0.5 else list(dict.fromkeys(out))


def main():
    # NumPy 1.24 only warns about an out-of-bounds index array when the result is empty (a future
    # NumPy raises): such keys are dropped here, and @mx raises for them as the future NumPy does.
    warnings.simplefilter('error', DeprecationWarning)
    r = random.Random(16)
    get_cases, set_cases, seen = [], [], set()

    def add_get(shape, key):
        sig = (shape, repr(key))
        if sig in seen:
            return
        seen.add(sig)
        case = run_get(shape, key)
        if case is not None:
            get_cases.append(case)

    fixed = [
        ((3,), (5,)), ((2, 3, 4), (0, 7)), ((2, 3, 4), (Ellipsis, Ellipsis)), ((2, 3, 4), (9, 0, 0, 0)),
        ((2, 3, 4), (slice(None, None, 0),)), ((2, 3, 4), (slice(None, None, 0), 9)),
        ((2, 3, 4), (9, slice(None, None, 0))), ((), ()), ((), (None,)), ((), (Ellipsis,)), ((), (True,)),
        ((), (False,)), ((), (0,)), ((), (None, Ellipsis, None)), ((2, 3, 4), (True,)), ((2, 3, 4), (False,)),
        ((2, 3, 4), (slice(None), True)), ((2, 3, 4), (True, True)), ((2, 3, 4), (True, slice(None), True)),
        ((2, 3, 4), (0, slice(None), True)), ((2, 3, 4), (slice(None), 0, True)), ((2, 3, 4), (True, 0)),
        ((2, 3, 4), (Ellipsis, True)), ((2, 3, 4), (1.5,)), ((2, 3, 4), (1.5, 0, 0, 0)),
        ((2, 3, 4), ([0, 1], [0, 1, 2])), ((2, 3, 4), ([0, 1], 0, [0, 1, 2])), ((2, 3, 4), ([0, 1], True, [0, 1, 2])),
        ((2, 3, 4), ([0, 1], False)), ((2, 3, 4), ([0, 1], True)), ((2, 3, 4), ([5, 0], 7)),
        ((2, 3, 4), (9, [0, 1], [0, 1, 2])), ((2, 3, 4), ([7], [5, 0])), ((2, 3, 4), ([[0, 1]], [[5], [0]])),
        ((2, 3, 4), ([[0, 1]], [[0], [1], [0]], [0, 1, 2, 0])), ((2, 3, 4), ([],)), ((2, 3, 4), ([[]],)),
        ((2, 3, 4), (slice(None), [0, 1], None, [0, 1])), ((2, 3, 4), (None, [0, 1], [0, 1])),
        ((2, 3, 4), ([0, 1], None, [0, 1])), ((2, 3, 4), (slice(None), [0, 1], Ellipsis, [0, 1])),
        ((2, 3, 4), (0, slice(None), [0, 1])), ((2, 3, 4), (0, [0, 1])), ((2, 3, 4), ([0, 1], slice(None), 0)),
        ((2, 3, 2, 3), (slice(None), [0, 1], slice(None), [2, 1])), ((2, 3, 2, 3), (slice(None), [0, 1], [1, 0])),
        ((2, 3, 2, 3), (Ellipsis, [0, 1], slice(None, None, -1), [2, 0])),
    ]
    for shape, key in fixed:
        key = tuple(np.array(it, dtype=np.int64) if isinstance(it, list) else it for it in key)
        add_get(shape, key)
    for shape in SHAPES:
        for _ in range(160 if len(shape) >= 2 else 60):
            add_get(shape, rand_basic_key(r, shape))
        for _ in range(110 if len(shape) >= 2 else 30):
            add_get(shape, rand_adv_key(r, shape))
        for _ in range(25 if len(shape) >= 1 else 3):
            add_get(shape, rand_mask_key(r, shape))

    set_keys = []
    for shape in SHAPES:
        for _ in range(25 if len(shape) >= 2 else 8):
            set_keys.append((shape, rand_basic_key(r, shape)))
        for _ in range(16 if len(shape) >= 2 else 5):
            set_keys.append((shape, rand_adv_key(r, shape)))
        for _ in range(8 if len(shape) >= 1 else 2):
            set_keys.append((shape, rand_mask_key(r, shape)))
        if len(shape) >= 1:
            set_keys.append((shape, tuple(0 for _ in shape)))
    set_keys.append(((), ()))
    for shape, key in set_keys:
        if has_duplicate_targets(shape, key):
            continue
        for vshape in value_shapes(r, shape, key):
            case = run_set(shape, key, vshape)
            if case is not None:
                set_cases.append(case)

    OUT.parent.mkdir(parents=True, exist_ok=True)
    doc = {'numpy': np.__version__, 'generator': 'tools/golden/np/indexing.py', 'get': get_cases, 'set': set_cases}
    OUT.write_text(json.dumps(doc, separators=(',', ':')) + '\n')
    print(f'{OUT}: {len(get_cases)} get, {len(set_cases)} set cases, {OUT.stat().st_size} bytes')


if __name__ == '__main__':
    main()
