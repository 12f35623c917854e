#!/usr/bin/env python3
"""Golden data for @mx/kvstore's row_sparse keys (packages/kvstore/src/row-sparse*.test.ts and
src/distributed/row-sparse*.test.ts), none computed with @mx code.

NumPy float32 transcriptions of what MXNet does with row_sparse values (src/kvstore/*.h,
src/operator/tensor/sparse_retain-inl.h, src/ndarray/ndarray_function.cc):

- row_sparse_pull (KVStoreLocal::Unique + SparseRetainOpForwardRspImpl): the row ids are made
  sorted and unique; the output stores every one of those rows, holding the stored row or zeros
  where the store has none; it stores nothing when the stored value has no row, no row is asked or
  the table has no rows.
- the sum of row_sparse pushes (ElementwiseSum on row_sparse inputs): the union of the rows, each
  element summed in push order, one float32 rounding per addition, starting from zero.
- an updater-less push replaces the stored value by the sum (absent rows are zero after it).
- `lazy_sgd`, the custom updater of the tests: for each row r of the merged gradient,
  w[r] = w[r] - float32(lr) * g[r] (two float32 roundings), other rows untouched.
- `add_scaled`, the custom server updater of the dist tests (MXNet's 'test' optimizer with
  rescale_grad = rate, touching the gradient's rows): w[r] = w[r] + rate * g[r].
- EncodeRowSparseKey (kvstore_dist.h), with ps-lite's key ranges: a table of R rows of `unit`
  elements is split over every server when R * unit >= bound, part i holding
  llround(R / S * (i + 1)) - llround(R / S * i) rows; each server involved gets its master key
  (range.begin + key, length 0) and a key range.begin + key + (row - first row of the part) of
  unit * bytes per row sent; a smaller table goes to server (key * 9973) % S (C++ int arithmetic).

Random values are float32 normal draws from seeded generators. ps keys are uint64, written as
decimal strings. Writes packages/kvstore/src/__golden__/row_sparse.json (a rerun reproduces it).
Run with the system Python:  /usr/bin/python3 tools/golden/kvstore/row_sparse.py
"""
import json
import math
import pathlib

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / 'packages/kvstore/src/__golden__/row_sparse.json'
F = np.float32
K_MAX_KEY = 2**64 - 1


def rsp(rows, data):
    return {'indices': [int(r) for r in rows], 'data': [float(x) for x in np.asarray(data, F).ravel()]}


def rand_rsp(rng, shape, rows):
    unit = int(np.prod(shape[1:]))
    rows = sorted(set(int(r) for r in rows))
    data = rng.standard_normal((len(rows), unit)).astype(F)
    return rows, data


def dense_of(shape, rows, data):
    unit = int(np.prod(shape[1:]))
    out = np.zeros((shape[0], unit), F)
    for j, r in enumerate(rows):
        out[r] = data[j]
    return out


def retain(shape, rows, data, row_ids):
    """MXNet row_sparse_pull of the stored (rows, data) at row_ids."""
    want = sorted(set(int(r) for r in row_ids))
    unit = int(np.prod(shape[1:]))
    if len(rows) == 0 or len(want) == 0 or shape[0] == 0:
        return [], np.zeros((0, unit), F)
    out = np.zeros((len(want), unit), F)
    where = {int(r): j for j, r in enumerate(rows)}
    for i, r in enumerate(want):
        if r in where:
            out[i] = data[where[r]]
    return want, out


def rsp_sum(shape, parts):
    """ElementwiseSum of row_sparse parts: union of the rows, float32 sum in input order."""
    unit = int(np.prod(shape[1:]))
    rows = sorted(set(int(r) for p in parts for r in p[0]))
    pos = {r: i for i, r in enumerate(rows)}
    out = np.zeros((len(rows), unit), F)
    for prow, pdata in parts:
        for j, r in enumerate(prow):
            out[pos[int(r)]] = (out[pos[int(r)]] + pdata[j]).astype(F)
    return rows, out


def retain_cases():
    rng = np.random.default_rng(15)
    cases = []
    for shape, stored_rows, ids_list in (
        ([6, 3], [1, 3, 4], [[4, 0, 4, 1], [5, 5], [2], [], [0, 1, 2, 3, 4, 5], [3, 1, 3, 1]]),
        ([5], [0, 2, 3], [[3, 2, 0, 4], [1]]),
        ([4, 2, 3], [0, 1, 2, 3], [[2, 2, 0], [3]]),
        ([7, 2], [], [[1, 6, 1], []]),
    ):
        rows, data = rand_rsp(rng, shape, stored_rows)
        for ids in ids_list:
            want, out = retain(shape, rows, data, ids)
            cases.append({'shape': shape, 'stored': rsp(rows, data), 'row_ids': ids, 'expected': rsp(want, out)})
    return cases


def sum_cases():
    rng = np.random.default_rng(16)
    cases = []
    for shape, pushes in (
        ([6, 3], [[0, 2], [2, 5], [1, 2, 3]]),
        ([6, 3], [[4], [], [4]]),
        ([5, 2, 2], [[0, 1, 2, 3, 4], [1, 3], [4], [0]]),
        ([4, 2], [[], []]),
    ):
        parts = [rand_rsp(rng, shape, p) for p in pushes]
        rows, data = rsp_sum(shape, parts)
        cases.append({
            'shape': shape,
            'pushes': [rsp(r, d) for r, d in parts],
            'sum': rsp(rows, data),
            'dense': [float(x) for x in dense_of(shape, rows, data).ravel()],
        })
    return cases


def lazy_sgd_case():
    """A local store with the lazy SGD updater: 3 steps of 3-device pushes, pulls after each."""
    rng = np.random.default_rng(17)
    shape, lr = [8, 4], 0.1
    init_rows, init_data = rand_rsp(rng, shape, [0, 1, 3, 4, 6])
    w = dense_of(shape, init_rows, init_data)
    stored_rows = set(init_rows)
    steps = []
    for rows_per_dev, ids in (
        ([[1, 2], [2, 7], [1]], [7, 2, 2, 0]),
        ([[], [5], [0, 5]], [5, 6, 1]),
        ([[3], [3], [3]], [3, 4, 3]),
    ):
        parts = [rand_rsp(rng, shape, r) for r in rows_per_dev]
        g_rows, g = rsp_sum(shape, parts)
        for j, r in enumerate(g_rows):
            w[r] = (w[r] - (F(lr) * g[j]).astype(F)).astype(F)
        stored_rows |= set(g_rows)
        s_rows = sorted(stored_rows)
        want, out = retain(shape, s_rows, w[s_rows], ids)
        steps.append({
            'pushes': [rsp(r, d) for r, d in parts],
            'merged': rsp(g_rows, g),
            'row_ids': ids,
            'pulled': rsp(want, out),
            'weight': [float(x) for x in w.ravel()],
        })
    return {'shape': shape, 'lr': lr, 'init': rsp(init_rows, init_data), 'steps': steps}


def dist_case(shape, bound, updater, seed):
    """Two workers (two devices each) pushing to a dist_sync store; both pull after every step."""
    rng = np.random.default_rng(seed)
    rate = 2.0
    init = np.asarray(rng.standard_normal(shape), F)
    w = init.reshape(shape[0], -1).copy()
    steps = []
    n = shape[0]
    plans = (
        ([[[0, 1], [1, n - 1]], [[2], []]], [[n - 1, 0, 0, 2], [1, 3, n - 1]]),
        ([[[], []], [[n // 2], [n // 2, n - 2]]], [[n // 2, n // 2], list(range(n))]),
        ([[[3], [3]], [[3, 4], [0]]], [[], [4, 3, 2]]),
    )
    for dev_rows, ids in plans:
        worker_sums = []
        pushes = []
        for rank in range(2):
            parts = [rand_rsp(rng, shape, r) for r in dev_rows[rank]]
            pushes.append([rsp(r, d) for r, d in parts])
            worker_sums.append(rsp_sum(shape, parts))
        g_rows, g = rsp_sum(shape, worker_sums)
        if updater == 'add_scaled':
            for j, r in enumerate(g_rows):
                w[r] = (w[r] + (F(rate) * g[j]).astype(F)).astype(F)
        else:
            w = dense_of(shape, g_rows, g)
        pulled = []
        for rank in range(2):
            want, out = retain(shape, list(range(n)), w, ids[rank])
            pulled.append(rsp(want, out))
        steps.append({'pushes': pushes, 'row_ids': ids, 'pulled': pulled,
                      'weight': [float(x) for x in w.ravel()]})
    return {'shape': shape, 'bound': bound, 'updater': updater, 'rate': rate,
            'init': [float(x) for x in init.ravel()], 'steps': steps}


def key_ranges(num_servers):
    return [(K_MAX_KEY // num_servers * i, K_MAX_KEY // num_servers * (i + 1)) for i in range(num_servers)]


def c_int32(x):
    x &= 0xFFFFFFFF
    return x - 2**32 if x >= 2**31 else x


def llround(x):
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


def encode_row_sparse_key(key, rows, unit, total_rows, num_bytes, num_servers, bound):
    krs = key_ranges(num_servers)
    keys, lens = [], []
    if total_rows * unit >= bound:
        start = 0
        for i in range(num_servers):
            keys.append(krs[i][0] + key)
            lens.append(0)
            if len(rows) > 0:
                part = llround(total_rows / num_servers * (i + 1)) - llround(total_rows / num_servers * i)
                end = start + part
                for r in rows:
                    if start <= r < end:
                        keys.append(krs[i][0] + key + (r - start))
                        lens.append(unit * num_bytes)
                start = end
    else:
        s = int(math.fmod(c_int32(key * 9973), num_servers))
        keys.append(krs[s][0] + key)
        lens.append(0)
        for r in rows:
            keys.append(krs[s][0] + key + r)
            lens.append(unit * num_bytes)
    return {'keys': [str(k) for k in keys], 'lens': lens}


def encoding_cases():
    cases = []
    for key, rows, unit, total, nb, servers, bound in (
        (3, [0, 2, 5], 4, 6, 4, 2, 10**6),
        (3, [], 4, 6, 4, 2, 10**6),
        (0, [0, 1, 2, 3, 4], 3, 5, 4, 3, 10**6),
        (9, [1, 4, 6, 9], 2, 10, 8, 2, 20),
        (9, [], 2, 10, 8, 2, 20),
        (2, [0, 3, 4, 6, 7, 10], 1, 11, 4, 3, 5),
        (5, [2, 3], 5, 7, 2, 4, 30),
        (1, list(range(7)), 3, 7, 4, 2, 21),
    ):
        p = encode_row_sparse_key(key, rows, unit, total, nb, servers, bound)
        cases.append({'key': key, 'rows': rows, 'unit': unit, 'total_rows': total, 'bytes': nb,
                      'servers': servers, 'bound': bound, **p})
    return cases


def main():
    data = {
        'retain': retain_cases(),
        'sum': sum_cases(),
        'lazy_sgd': lazy_sgd_case(),
        'dist': [dist_case([6, 3], 10**6, 'add_scaled', 18), dist_case([9, 2], 8, 'add_scaled', 19),
                 dist_case([7, 2], 10**6, 'none', 20)],
        'encoding': encoding_cases(),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(data, indent=1) + '\n')


if __name__ == '__main__':
    main()
