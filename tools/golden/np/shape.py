#!/usr/bin/env python3
"""Golden data for np's shape functions (packages/ndarray/src/np/fns/shape.test.ts), computed by
Debian's NumPy 1.24.2 — run with `/usr/bin/python3 -P` (not pyenv's python3; -P keeps this
folder's random.py from shadowing the standard library's).

Each case names the TypeScript function (NumPy's name in camelCase), its positional arguments and
its options object (NumPy's keywords in camelCase) as the TypeScript call takes them, and NumPy's
result (one array, a list of arrays, or a plain value) or NumPy's error message (str(e), matched as
a substring). Arrays are {"array": {shape, dtype, data}}; lists of them are JSON lists.

MXNet 2.0's rules where they differ from NumPy's, applied here:
- pad takes MXNet 2.0's modes only (constant, edge, reflect, symmetric, maximum, minimum); others
  are MXNet's error `mode {'wrap'} is not supported.`;
- two NumPy messages that are accidents of its Python code are replaced by the checks @mx makes
  (MXNet's FFI makes the first): `split(x, 0)` (NumPy: 'integer modulo by zero') is 'number
  sections must be larger than 0.', and `array_split` on a missing axis (NumPy: 'tuple index out
  of range') is the AxisError text;
- JS values passed as arrays are NumPy's dtypes for them except floats, which are the default
  float (float32): cases pass typed arrays, so this only shows in `insert`'s values (cast to the
  array's dtype anyway).
Writes packages/ndarray/src/np/__golden__/shape.json.
"""
import json
import pathlib

import numpy as np

OUT = pathlib.Path(__file__).resolve().parents[3] / 'packages/ndarray/src/np/__golden__/shape.json'
rng = np.random.default_rng(1616_3)


def arr(shape, dtype='float32'):
    if dtype == 'bool':
        return np.asarray(rng.random(shape) < 0.5)
    if dtype.startswith('int') or dtype.startswith('uint'):
        return np.asarray(rng.integers(0 if dtype.startswith('u') else -5, 6, size=shape).astype(dtype))
    return np.asarray((rng.standard_normal(shape) * 3).round(2).astype(dtype))


def enc(a):
    a = np.asarray(a)
    vals = a.ravel().tolist()
    if a.dtype == np.bool_:
        vals = [bool(v) for v in vals]
    elif a.dtype.kind == 'f':
        vals = [None if v != v else v for v in vals]
    return {'shape': list(a.shape), 'dtype': str(a.dtype), 'data': vals}


def wrap(v):
    if isinstance(v, np.ndarray):
        return {'array': enc(v)}
    if isinstance(v, (list, tuple)):
        return [wrap(x) for x in v]
    if isinstance(v, dict):
        return {k: wrap(x) for k, x in v.items()}
    return v


def result(r):
    if isinstance(r, (list, tuple)):
        if all(isinstance(x, np.ndarray) for x in r):
            return [enc(x) for x in r]
        return list(r)
    if isinstance(r, (np.ndarray, np.generic)):
        return enc(np.asarray(r))
    return r


cases = []


def add(fn, args, opts, ref, label=''):
    c = {'fn': fn, 'label': label, 'args': wrap(list(args)), 'opts': wrap(opts)}
    try:
        c['expect'] = result(ref())
    except Exception as e:  # noqa: BLE001
        c['error'] = ACCIDENTS.get(str(e), str(e))
        if c['error'] == 'tuple index out of range':
            c['error'] = f"axis {opts['axis']} is out of bounds for array of dimension {np.ndim(args[0])}"
    cases.append(c)


ACCIDENTS = {'integer modulo by zero': 'number sections must be larger than 0.'}


DT = ['float32', 'float64', 'int32', 'int64', 'bool', 'float16', 'uint8']

# ---- axes -----------------------------------------------------------------------------------------
for dt in DT:
    a = arr((2, 3, 4), dt)
    add('ravel', [a], None, lambda: np.ravel(a), dt)
    add('moveaxis', [a, 0, -1], None, lambda: np.moveaxis(a, 0, -1), dt)
    add('swapaxes', [a, 0, 2], None, lambda: np.swapaxes(a, 0, 2), dt)
a = arr((2, 3, 4))
for src, dst in [([0, 1], [-1, -2]), ([2], [0]), ([], []), (3, 0), ([0, 0], [1, 2]), ([0], [1, 2])]:
    add('moveaxis', [a, src, dst], None, lambda: np.moveaxis(a, src, dst))
for a1, a2 in [(-1, 0), (1, 1), (0, 3), (-4, 0)]:
    add('swapaxes', [a, a1, a2], None, lambda: np.swapaxes(a, a1, a2))
for ax, st in [(2, None), (0, 3), (1, -1), (-1, 1), (0, 5), (3, 0)]:
    add('rollaxis', [a, ax], {} if st is None else {'start': st}, lambda: np.rollaxis(a, ax, 0 if st is None else st))
for shape in [(2, 3), (), (0, 2)]:
    x = arr(shape)
    for ax in [0, -1, [0, 2], [-1, 0], 5, [1, 1]]:
        add('expandDims', [x, ax], None, lambda: np.expand_dims(x, tuple(ax) if isinstance(ax, list) else ax))
for shape, ax in [((1, 3, 1), None), ((1, 3, 1), 0), ((1, 3, 1), [0, 2]), ((1, 3, 1), -1), ((1,), None), ((), None),
                  ((0, 1), 1), ((2, 1), 0), ((2, 1), 3)]:
    x = arr(shape, 'int32')
    add('squeeze', [x], {'axis': ax}, lambda: np.squeeze(x, tuple(ax) if isinstance(ax, list) else ax))
for dt in ['float32', 'int64', 'bool']:
    for s, t in [((3,), (2, 3)), ((2, 1), (2, 4)), ((), (2, 2)), ((1,), (0,)), ((1, 3), (4, 0, 3)), ((3,), (4,)),
                 ((3,), ()), ((3,), (-1,)), ((), ())]:
        x = arr(s, dt)
        add('broadcastTo', [x, list(t)], None, lambda: np.broadcast_to(x, t), dt)
for shapes in [[(3,), (2, 1)], [(2, 3), ()], [(1, 2), (3, 1), (3, 2)], [(2,), (3,)], [(0, 1), (1, 4)]]:
    xs = [arr(s) for s in shapes]
    add('broadcastArrays', xs, None, lambda: np.broadcast_arrays(*xs))
for n, f in [(1, np.atleast_1d), (2, np.atleast_2d), (3, np.atleast_3d)]:
    xs = [arr(()), arr((3,), 'int32'), arr((2, 3)), arr((2, 3, 1, 2), 'bool')]
    add(f'atleast{n}d', xs, None, lambda: list(f(*xs)))
    one = arr((2,))
    add(f'atleast{n}d', [one], None, lambda: f(one), 'one')
x = arr((2, 3, 4))
add('shape', [x], None, lambda: list(np.shape(x)))
add('ndim', [x], None, lambda: np.ndim(x))
add('size', [x], None, lambda: np.size(x))
add('size', [x], {'axis': -1}, lambda: np.size(x, -1))

# ---- joins and splits ------------------------------------------------------------------------------
for dt in DT:
    xs = [arr((2, 3), dt), arr((1, 3), dt)]
    add('concatenate', [xs], None, lambda: np.concatenate(xs), dt)
    ys = [arr((2, 3), dt), arr((2, 3), dt)]
    add('stack', [ys], {'axis': -1}, lambda: np.stack(ys, axis=-1), dt)
for da, db in [('int32', 'float32'), ('bool', 'int32'), ('float16', 'float64'), ('int32', 'int64'), ('uint8', 'int32')]:
    xs = [arr((2,), da), arr((3,), db)]
    add('concatenate', [xs], None, lambda: np.concatenate(xs), f'{da}+{db}')
for shapes, axis in [([(2, 3), (2, 1), (2, 0)], 1), ([(2, 3, 4), (2, 3, 4)], -1), ([(3,), (0,)], 0), ([(2, 3), (3,)], None),
                     ([(2, 2)], 0), ([(), (2,)], None), ([(2, 3), (3,)], 0), ([(2, 3), (2, 2)], 0), ([(2, 3), (2, 3)], 2),
                     ([(), ()], 0), ([], 0)]:
    xs = [arr(s) for s in shapes]
    add('concatenate', [xs], {'axis': axis}, lambda: np.concatenate(xs, axis=axis))
    add('concat', [xs], {'axis': axis}, lambda: np.concatenate(xs, axis=axis))
for shapes, axis in [([(2, 3), (2, 3), (2, 3)], 1), ([(), ()], 0), ([(0, 2), (0, 2)], 2), ([(2, 3), (3, 2)], 0),
                     ([(2,), (2,)], 2), ([(2,), (2,)], -3), ([], 0)]:
    xs = [arr(s) for s in shapes]
    add('stack', [xs], {'axis': axis}, lambda: np.stack(xs, axis=axis))
STACKS = {'vstack': np.vstack, 'rowStack': np.row_stack, 'hstack': np.hstack, 'dstack': np.dstack, 'columnStack': np.column_stack}
GROUPS = [[(3,), (3,)], [(2, 3), (4, 3)], [(2, 3), (2, 1)], [(2, 3), (2, 3)], [(), ()], [(2, 3, 2), (2, 3, 1)],
          [(2, 3, 2), (1, 3, 2)], [(2, 3, 2), (2, 1, 2)], [(3,), (2,)], [(2, 3), (2,)], [(0, 3), (3,)]]
for name, f in STACKS.items():
    for shapes in GROUPS:
        xs = [arr(s) for s in shapes]
        add(name, [xs], None, lambda: f(xs))
    xs = [arr((3,), 'int32'), arr((3,), 'float32')]
    add(name, [xs], None, lambda: f(xs), 'promote')
for s1, s2, axis in [((2, 3), (2, 3), None), ((2, 3), (3,), None), ((2, 3), (1, 3), 0), ((2, 3), (3,), 0), ((), (2,), None)]:
    x, y = arr(s1), arr(s2, 'int32')
    add('append', [x, y], {'axis': axis}, lambda: np.append(x, y, axis=axis))
for dt in ['float32', 'int64', 'bool']:
    x = arr((6, 4), dt)
    add('split', [x, 3], None, lambda: np.split(x, 3), dt)
    add('split', [x, [1, 4]], {'axis': 0}, lambda: np.split(x, [1, 4]), dt)
x = arr((5, 7))
for ios, axis in [([2, 5], 1), ([0, 3], 0), ([-2], 1), ([4, 2], 1), ([3, 10], 1), ([], 0), (7, 1), (2, 1), (0, 1), (1, 2)]:
    add('split', [x, ios], {'axis': axis}, lambda: np.split(x, ios, axis=axis))
    add('arraySplit', [x, ios], {'axis': axis}, lambda: np.array_split(x, ios, axis=axis))
add('arraySplit', [arr((0, 3)), 2], None, lambda: np.array_split(arr((0, 3)), 2))
for name, f in [('hsplit', np.hsplit), ('vsplit', np.vsplit), ('dsplit', np.dsplit)]:
    for shape in [(6,), (6, 6), (2, 6, 6), ()]:
        x = arr(shape)
        for ios in [3, [1, 4], 4]:
            add(name, [x, ios], None, lambda: f(x, ios))

# ---- rearrangements --------------------------------------------------------------------------------
for dt in ['float32', 'int32', 'bool']:
    x = arr((2, 3), dt)
    for reps in [2, [2, 1, 3], [0, 2], [], [1, 1], -1]:
        add('tile', [x, reps], None, lambda: np.tile(x, reps), dt)
    for rep, axis in [(2, None), ([1, 0, 3], 1), ([2, 1], 0), (0, 0), ([1, 2, 1, 1, 3, 1], None), (3, -1), ([1, 2], 1), (-1, 0), (1, 2)]:
        add('repeat', [x, rep], {'axis': axis}, lambda: np.repeat(x, rep, axis=axis), dt)
s0 = arr((), 'float32')
add('tile', [s0, [2, 2]], None, lambda: np.tile(s0, [2, 2]))
add('repeat', [s0, 3], None, lambda: np.repeat(s0, 3))
for dt in ['float32', 'int32', 'bool', 'float16']:
    x = arr((2, 3, 4), dt)
    for ax in [None, 0, [1, 2], -1, 3]:
        add('flip', [x], {'axis': ax}, lambda: np.flip(x, tuple(ax) if isinstance(ax, list) else ax), dt)
    add('fliplr', [x], None, lambda: np.fliplr(x), dt)
    add('flipud', [x], None, lambda: np.flipud(x), dt)
add('fliplr', [arr((3,))], None, lambda: np.fliplr(arr((3,))))
add('flipud', [arr(())], None, lambda: np.flipud(arr(())))
for dt in ['float32', 'int64', 'bool', 'float16']:
    x = arr((3, 4, 5), dt)
    for shift, axis in [(2, None), (1, 0), ([-3, 7], [1, 2]), (2, [0, 2]), ([1, 1], [1, 1]), (0, 1), ([1, 2, 3], [0, 1]), (1, 3),
                        ([1, 2], None)]:
        add('roll', [x, shift], {'axis': axis}, lambda: np.roll(x, shift, axis=axis), dt)
add('roll', [arr((0, 3)), 1], {'axis': 1}, lambda: np.roll(arr((0, 3)), 1, axis=1))
s1 = arr((), 'float32')
add('roll', [s1, 3], None, lambda: np.roll(s1, 3))
for dt in ['float32', 'int32', 'float64']:
    x = arr((2, 3, 4), dt)
    for k, axes in [(1, None), (2, [0, 1]), (3, [0, 1]), (-1, [1, 2]), (5, [2, 0]), (0, [0, 1]), (1, [0]), (1, [1, 1]),
                    (1, [0, 5]), (1, [0, -3])]:
        opts = {'k': k} if axes is None else {'k': k, 'axes': axes}
        add('rot90', [x], opts, lambda: np.rot90(x, k, (0, 1) if axes is None else tuple(axes)), dt)
add('rot90', [arr((3,))], None, lambda: np.rot90(arr((3,))))
for mode in ['constant', 'edge', 'reflect', 'symmetric', 'maximum', 'minimum']:
    for dt in ['float32', 'int32', 'float64', 'uint8']:
        x = arr((3, 4), dt)
        for pw in [[[1, 2], [0, 3]], [2, 2], 1, [[3, 4], [5, 1]], [[1], [2]]]:
            kw = {'constant_values': 7} if mode == 'constant' and dt == 'int32' else {}
            opts = {'mode': mode, **({'constantValues': 7} if kw else {})}
            add('pad', [x, pw], opts, lambda: np.pad(x, pw, mode=mode, **kw), f'{dt}/{mode}')
for pw, mode in [([[1, 2], [1, 2], [3, 4]], 'constant'), ([[1, -2]], 'constant'), (1, 'edge'), (1, 'wrap'), (1, 'mean')]:
    x = arr((0, 3)) if mode == 'edge' else arr((2, 3))
    add('pad', [x, pw], {'mode': mode}, (lambda: (_ for _ in ()).throw(ValueError(f"mode {{'{mode}'}} is not supported."))) if mode in ('wrap', 'mean') else (lambda: np.pad(x, pw, mode=mode)))
x = arr((2, 3, 2))
for mode in ['constant', 'reflect', 'maximum', 'symmetric']:
    add('pad', [x, [[1, 0], [2, 3], [1, 1]]], {'mode': mode}, lambda: np.pad(x, [[1, 0], [2, 3], [1, 1]], mode=mode), '3d')
add('pad', [arr((0, 3)), 1], None, lambda: np.pad(arr((0, 3)), 1))
y4 = arr((4,))
add('pad', [y4, [7, 9]], {'mode': 'reflect'}, lambda: np.pad(y4, [7, 9], mode='reflect'), 'wide')
add('pad', [y4, [7, 9]], {'mode': 'symmetric'}, lambda: np.pad(y4, [7, 9], mode='symmetric'), 'wide')
y1 = arr((1,))
add('pad', [y1, [3, 2]], {'mode': 'reflect'}, lambda: np.pad(y1, [3, 2], mode='reflect'), 'n=1')
for dt in ['float32', 'int32', 'bool']:
    x = arr((3, 4), dt)
    for obj, vals, axis in [(1, arr((), dt), None), (1, arr((4,), dt), 0), (2, arr((3,), dt), 1), ([1], arr((1, 4), dt), 0),
                            ([0, 2, 2], arr((3,), dt), 1), ({'start': 1, 'stop': 3}, arr((), dt), 0), (-1, arr((3, 1), dt), 1),
                            ([3, 0], arr((2, 4), dt), 0), (4, arr((), dt), 1), (5, arr((), dt), 0), ([5], arr((), dt), 0),
                            ([[1]], arr((), dt), 0)]:
        pyobj = slice(obj['start'], obj['stop']) if isinstance(obj, dict) else obj
        add('insert', [x, obj, vals], {'axis': axis}, lambda: np.insert(x, pyobj, vals, axis=axis), dt)
    for obj, axis in [(1, None), (1, 0), ([0, 2], 1), (-1, 1), ({'start': 0, 'stop': 4, 'step': 2}, 1), ([], 0),
                      ([True, False, True], 0), (5, 0), ([5], 0), ([0, 1, 2], 0), ({'start': None, 'stop': None, 'step': -1}, 1)]:
        pyobj = slice(obj['start'], obj['stop'], obj.get('step')) if isinstance(obj, dict) else (np.array(obj) if obj and isinstance(obj[0], bool) else obj) if isinstance(obj, list) else obj
        add('delete', [x, obj], {'axis': axis}, lambda: np.delete(x, pyobj, axis=axis), dt)
for dt in ['float32', 'int32']:
    x = arr((2, 3), dt)
    for ns in [[3, 4], 4, [2, 3], [0], [1, 0, 2], [7], [-1]]:
        add('resize', [x, ns], None, lambda: np.resize(x, ns), dt)
add('resize', [arr((0,)), [2, 2]], None, lambda: np.resize(arr((0,)), [2, 2]))

cases = [c for c in cases if c is not None]
OUT.write_text(json.dumps({'numpy': np.__version__, 'cases': cases}, separators=(',', ':')) + '\n')
print(f'wrote {len(cases)} cases ({sum("error" in c for c in cases)} errors) to {OUT}')
