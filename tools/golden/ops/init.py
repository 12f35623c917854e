"""Golden cases for the init family: _zeros, _ones, _full, _eye, zeros_like, ones_like, _arange,
_linspace, and the bad-parameter cases of the samplers (_random_uniform/_normal/_randint, whose
values are random and are tested statistically beside their kernels instead).

Expected values are NumPy's. Where MXNet's arithmetic differs from NumPy's own routine the case
computes MXNet's formula with NumPy, and says so:
- _arange: start and step are cast to the dtype first, element i = start + (i // repeat) * step in
  that dtype (MXNet range_fwd), so float32 ranges are float32 sums, not float64 rounded once.
- _linspace: element i = start + step * i in float64, step = (stop - start) / (num - 1 or num),
  then cast; integer dtypes take the floor (MXNet linspace_fwd), NumPy would truncate.
Run: python3 tools/golden/ops/init.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import arr, case, write  # noqa: E402

rng = np.random.default_rng(20240603)
INT_DTYPES = ['int32', 'int64', 'int8', 'uint8']
ALL = ['float32', 'float64'] + INT_DTYPES + ['bool']
cases = []


def fills():
    shapes = [(2, 3), (4,), (), (0, 3), (2, 0, 2), (1, 1, 1, 5)]
    for op, value in (('_zeros', 0), ('_ones', 1)):
        for dt in ALL:
            for shp in shapes:
                name = f'{op}/{dt}/{"x".join(map(str, shp)) or "scalar"}'
                cases.append(case(name, op, [], [np.full(shp, value, dtype=dt)],
                                  params={'shape': list(shp), 'dtype': dt}))
        # MXNet string form of params, as symbol JSON stores them; dtype defaults to float32.
        cases.append(case(f'{op}/string-params', op, [], [np.full((3, 2), value, np.float32)],
                          params={'shape': '(3, 2)'}))
    full = [
        ('float32', 2.5), ('float64', -1.25), ('float32', 'nan'), ('float64', '-inf'),
        ('int32', 7), ('int32', -3.7), ('int64', 2 ** 40), ('int8', -100), ('uint8', 200),
        ('bool', 0.5), ('bool', 0), ('float32', 1e30),
    ]
    for dt, v in full:
        fv = float(v) if isinstance(v, str) else v
        if dt == 'bool':
            expect = np.full((2, 3), fv != 0, dtype=np.bool_)
        elif dt.startswith('int') or dt.startswith('uint'):
            expect = np.full((2, 3), np.trunc(fv), dtype=dt)  # static_cast<int> truncates toward zero
        else:
            expect = np.full((2, 3), fv, dtype=dt)
        cases.append(case(f'_full/{dt}/{v}', '_full', [], [expect],
                          params={'shape': [2, 3], 'dtype': dt, 'value': v}))
    cases.append(case('_full/zero-size', '_full', [], [np.full((0,), 3, np.float32)],
                      params={'shape': [0], 'value': 3}))
    cases.append(case('_full/scalar', '_full', [], [np.full((), 3, np.float32)],
                      params={'shape': [], 'value': 3}))
    cases.append(case('_full/string-value', '_full', [], [np.full((2,), 0.5, np.float32)],
                      params={'shape': '(2,)', 'value': '0.5'}))


def eye():
    grid = [(3, 0, 0), (3, 4, 1), (4, 3, -1), (3, 3, 5), (3, 3, -5), (0, 0, 0), (1, 0, 0), (2, 5, 3), (5, 2, -4)]
    for n, m, k in grid:
        for dt in ('float32', 'int32'):
            cases.append(case(f'_eye/{n}x{m}/k{k}/{dt}', '_eye', [], [np.eye(n, m or n, k, dtype=dt)],
                              params={'N': n, 'M': m, 'k': k, 'dtype': dt}))
    for dt in ('float64', 'int64', 'int8', 'uint8', 'bool'):
        cases.append(case(f'_eye/3x3/{dt}', '_eye', [], [np.eye(3, dtype=dt)], params={'N': 3, 'dtype': dt}))
    cases.append(case('_eye/default-dtype-string', '_eye', [], [np.eye(2, 3, 1, dtype=np.float32)],
                      params={'N': '2', 'M': '3', 'k': '1'}))


def likes():
    for dt in ALL:
        for shp in ((2, 3), (), (0, 4), (3, 1, 2)):
            if dt == 'bool':
                x = rng.integers(0, 2, shp).astype(np.bool_)
            elif dt.startswith('float'):
                x = rng.standard_normal(shp).astype(dt)
            else:
                x = rng.integers(0, 100, shp).astype(dt)
            tag = "x".join(map(str, shp)) or 'scalar'
            cases.append(case(f'zeros_like/{dt}/{tag}', 'zeros_like', [x], [np.zeros_like(x)]))
            cases.append(case(f'ones_like/{dt}/{tag}', 'ones_like', [x], [np.ones_like(x)]))
    # Values are never read: nan and inf inputs still give zeros/ones.
    x = np.array([np.nan, np.inf, -np.inf], np.float32)
    cases.append(case('zeros_like/nan-input', 'zeros_like', [x], [np.zeros(3, np.float32)]))
    cases.append(case('ones_like/nan-input', 'ones_like', [x], [np.ones(3, np.float32)]))


def mx_arange(start, stop, step, repeat, dt):
    if stop is None:
        start, stop = 0, start
    n = int(np.ceil((stop - start) / step)) * repeat
    k = np.arange(n) // repeat
    if dt.startswith('float'):
        t = np.dtype(dt).type
        return (t(start) + k.astype(dt) * t(step)).astype(dt)
    s, d = int(np.trunc(start)), int(np.trunc(step))
    return (s + k * d).astype(dt)


def arange():
    grid = [
        (5, None, 1, 1), (2, 10, 3, 1), (5, -1, -2, 1), (0, 3, 1, 2), (0, 1, 0.1, 1), (-2.5, 2.5, 0.5, 1),
        (1, 2, 0.3, 3), (10, 0, -1, 1), (0, 100, 7, 1), (-3, 3, 1, 1),
    ]
    for start, stop, step, repeat in grid:
        for dt in ('float32', 'float64', 'int32', 'int64'):
            if dt.startswith('int') and (step != int(step) or start != int(start)):
                continue
            params = {'start': start, 'step': step, 'repeat': repeat, 'dtype': dt}
            if stop is not None:
                params['stop'] = stop
            name = f'_arange/{start}:{stop}:{step}x{repeat}/{dt}'
            cases.append(case(name, '_arange', [], [mx_arange(start, stop, step, repeat, dt)], params=params))
    for dt in ('int8', 'uint8'):
        cases.append(case(f'_arange/0:50:7/{dt}', '_arange', [], [mx_arange(0, 50, 7, 1, dt)],
                          params={'start': 0, 'stop': 50, 'step': 7, 'dtype': dt}))
    cases.append(case('_arange/string-params', '_arange', [], [mx_arange(1, 4, 1, 1, 'float32')],
                      params={'start': '1', 'stop': '4', 'step': '1', 'repeat': '1', 'dtype': 'float32'}))
    cases.append(case('_arange/stop-None-string', '_arange', [], [mx_arange(3, None, 1, 1, 'float32')],
                      params={'start': '3', 'stop': 'None'}))
    cases.append(case('_arange/error/step0', '_arange', [], params={'start': 0, 'stop': 5, 'step': 0},
                      error='Range does not support step=0'))
    cases.append(case('_arange/error/empty-up', '_arange', [], params={'start': 5, 'stop': 1},
                      error='Invalid range (start, stop, step)'))
    cases.append(case('_arange/error/empty-down', '_arange', [], params={'start': 1, 'stop': 5, 'step': -1},
                      error='Invalid range (start, stop, step)'))
    cases.append(case('_arange/error/repeat0', '_arange', [], params={'start': 0, 'stop': 5, 'repeat': 0},
                      error='Range only supports repeat > 0'))
    cases.append(case('_arange/error/missing-start', '_arange', [], params={'stop': 5},
                      error='Required parameter start'))


def mx_seq(n, start, step, repeat, dt):
    """MXNet's range_fwd over n elements: start and step cast to dt first, then start + (i // repeat) * step."""
    k = np.arange(n) // repeat
    if dt.startswith('float'):
        t = np.dtype(dt).type
        return (t(start) + k.astype(dt) * t(step)).astype(dt)
    return (int(np.trunc(start)) + k * int(np.trunc(step))).astype(dt)


def arange_like():
    """_contrib_arange_like (npx.arange_like): only the input's shape and dtype are read; with `axis`
    the output is 1-D, as long as that axis (MXNet's test_arange_like cases, plus start/step/repeat)."""
    op = '_contrib_arange_like'
    for shape in [(10,), (10, 20), (3, 4, 5), (2, 3, 4, 5), (), (0, 3)]:
        for axis in [None, 0, -1]:
            if axis is not None and len(shape) == 0:
                continue
            for dt, (start, step, repeat) in [('float32', (0, 1, 1)), ('float64', (-2.5, 0.5, 2)),
                                              ('int32', (3, 2, 1)), ('int64', (-4, 3, 3)), ('float32', (1.5, -0.25, 2))]:
                x = np.full(shape, np.nan if dt.startswith('float') else 7, dtype=dt)
                n = int(np.prod(shape)) if axis is None else shape[axis]
                out = mx_seq(n, start, step, repeat, dt)
                out = out.reshape(shape) if axis is None else out
                params = {'start': start, 'step': step, 'repeat': repeat}
                if axis is not None:
                    params['axis'] = axis
                cases.append(case(f'{op}/{dt}/{shape}/axis{axis}/{start}:{step}x{repeat}', op, [x], [out], params=params))
    cases.append(case(f'{op}/alias-npx', '_npx_arange_like', [np.zeros((2, 3), 'float32')],
                      [mx_seq(3, 0, 1, 1, 'float32')], params={'axis': 1}))
    cases.append(case(f'{op}/error/axis', op, [np.zeros((2, 3), 'float32')], params={'axis': 2},
                      error='cannot handle param.axis 2'))
    cases.append(case(f'{op}/error/repeat0', op, [np.zeros((2, 3), 'float32')], params={'repeat': 0},
                      error='Range only supports repeat > 0'))


def mx_linspace(start, stop, num, endpoint, dt):
    step_num = num - 1 if endpoint else num
    step = (stop - start) / step_num if step_num > 0 else 0.0
    v = start + step * np.arange(num, dtype=np.float64)
    if not dt.startswith('float'):
        v = np.floor(v)
    return v.astype(dt)


def linspace():
    grid = [(0, 1, 5, True), (0, 1, 5, False), (2, 3, 1, True), (2, 3, 1, False), (0, 1, 0, True),
            (-5, 0, 4, True), (10, -10, 7, True), (1, 1000, 11, False)]
    for start, stop, num, endpoint in grid:
        for dt in ('float32', 'float64', 'int32', 'int64'):
            name = f'_linspace/{start}:{stop}:{num}/{"end" if endpoint else "noend"}/{dt}'
            cases.append(case(name, '_linspace', [], [mx_linspace(start, stop, num, endpoint, dt)],
                              params={'start': start, 'stop': stop, 'num': num, 'endpoint': endpoint,
                                      'dtype': dt}))
    cases.append(case('_linspace/default', '_linspace', [], [mx_linspace(0, 2, 3, True, 'float32')],
                      params={'start': '0', 'stop': '2', 'num': '3'}))
    cases.append(case('_linspace/error/negative-num', '_linspace', [],
                      params={'start': 0, 'stop': 1, 'num': -1},
                      error='Number of sequence should be non-negative'))


def bad_params():
    err = [
        ('_zeros/error/unknown-param', '_zeros', {'shape': [2], 'fill': 1}, "Cannot find argument 'fill'"),
        ('_zeros/error/bad-dtype', '_zeros', {'shape': [2], 'dtype': 'float128'}, "Invalid Input: 'float128'"),
        ('_zeros/error/bad-shape', '_zeros', {'shape': '(2, x)'}, 'Invalid Parameter format for shape'),
        ('_zeros/error/negative-dim', '_zeros', {'shape': [2, -3]}, 'negative dimension'),
        ('_ones/error/bad-shape', '_ones', {'shape': 'abc'}, 'Invalid Parameter format for shape'),
        ('_full/error/missing-value', '_full', {'shape': [2]}, 'Required parameter value'),
        ('_full/error/bad-value', '_full', {'shape': [2], 'value': 'x'}, 'Invalid Parameter format for value'),
        ('_eye/error/missing-N', '_eye', {}, 'Required parameter N'),
        ('_eye/error/negative-N', '_eye', {'N': -2}, 'negative dimensions are not allowed'),
        ('_random_uniform/error/low-above-high', '_random_uniform', {'low': 2, 'high': 1, 'shape': [3]},
         'low must be less or equal to high'),
        ('_random_uniform/error/int-dtype', '_random_uniform', {'shape': [3], 'dtype': 'int32'},
         "Invalid Input: 'int32'"),
        ('_random_normal/error/negative-scale', '_random_normal', {'loc': 0, 'scale': -1, 'shape': [3]},
         'scale parameter in gaussian has to be positive'),
        ('_random_normal/error/zero-scale', '_random_normal', {'scale': 0, 'shape': [2, 2]},
         'scale parameter in gaussian has to be positive'),
        ('_random_randint/error/high-below-low', '_random_randint', {'low': 5, 'high': 1, 'shape': [3]},
         'low must be less'),
        ('_random_randint/error/missing-high', '_random_randint', {'low': 0, 'shape': [3]},
         'Required parameter high'),
        ('_random_randint/error/float-dtype', '_random_randint', {'low': 0, 'high': 5, 'dtype': 'float32'},
         "Invalid Input: 'float32'"),
    ]
    for name, op, params, msg in err:
        cases.append(case(name, op, [], params=params, error=msg))


def copyto():
    # _copyto copies values unchanged (same dtype, shape), whatever the devices.
    rng = np.random.default_rng(7)
    for dt in ['float32', 'float64', 'int32', 'int64', 'uint8', 'bool']:
        a = (rng.standard_normal((2, 3)) * 10).astype(dt)
        cases.append(case(f'_copyto/{dt}/2x3', '_copyto', [a], [a.copy()]))
    for shape in [(), (0,), (2, 0, 3)]:
        a = np.arange(int(np.prod(shape)), dtype='float32').reshape(shape)
        cases.append(case(f'_copyto/float32/{"x".join(map(str, shape)) or "scalar"}', '_copyto', [a], [a.copy()]))


fills()
copyto()
eye()
likes()
arange()
arange_like()
linspace()
bad_params()
write('init', cases)
