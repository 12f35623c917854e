#!/usr/bin/env python3
"""Golden data for @mx/kvstore's distributed store encodings (packages/kvstore/src/distributed/*.test.ts),
none computed with @mx code.

A Python transcription of MXNet's src/kvstore/kvstore_dist.h and kvstore_dist_server.h and of
ps-lite's Postoffice (mxnet-catalog.md section 8), with C++ integer semantics spelled out:

- ps-lite's server key ranges: server i of S owns [kMaxKey / S * i, kMaxKey / S * (i + 1)), with
  kMaxKey = 2^64 - 1 and unsigned integer division.
- EncodeDefaultKey: an array of n < bound elements goes to server (key * 9973) % S (C++ `int`
  arithmetic: the product wraps at 32 bits, `%` truncates toward zero) under ps key
  range.begin + key, one part of n * bytes; a larger one is split over every server, part i holding
  size_t(round(n / S * (i + 1))) - size_t(round(n / S * i)) elements (C `round`: half away from 0).
- EncodeCompressedKey (push and pull pskv): for small arrays a meta key range.begin + n with length
  0, then the data key with the compressed size; big arrays split the compressed size as above
  (the last server takes the rest) and give each part part_compr * factor original elements.
- GetCommandType: the Cantor pairing ((m + d) * (m + d + 1)) / 2 + d of the request type m and the
  mshadow dtype flag d; DepairDataHandleType inverts it.

ps keys are uint64, so they are written as decimal strings. Writes
packages/kvstore/src/__golden__/dist.json (a rerun reproduces it exactly). Run with the system
Python:  /usr/bin/python3 tools/golden/kvstore/dist.py
"""
import json
import math
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / 'packages/kvstore/src/__golden__/dist.json'
K_MAX_KEY = 2**64 - 1


def c_int32(x):
    """Wrap to a C++ 32-bit int."""
    x &= 0xFFFFFFFF
    return x - 2**32 if x >= 2**31 else x


def c_mod(a, b):
    """C++ `%`: the sign of the dividend (truncating division)."""
    return int(math.fmod(a, b))


def c_round(x):
    """C `round`: halves away from zero."""
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


def key_ranges(num_servers):
    return [(K_MAX_KEY // num_servers * i, K_MAX_KEY // num_servers * (i + 1)) for i in range(num_servers)]


def server_of(key, num_servers):
    return c_mod(c_int32(key * 9973), num_servers)


def default_pskv(key, n, num_bytes, num_servers, bound):
    krs = key_ranges(num_servers)
    if n < bound:
        s = server_of(key, num_servers)
        return {'keys': [str(krs[s][0] + key)], 'lens': [n * num_bytes], 'size': n * num_bytes}
    keys, lens = [], []
    for i in range(num_servers):
        part = c_round(n / num_servers * (i + 1)) - c_round(n / num_servers * i)
        keys.append(str(krs[i][0] + key))
        lens.append(part * num_bytes)
    return {'keys': keys, 'lens': lens, 'size': sum(lens)}


def compressed_pskv(key, n, factor, num_servers, bound):
    """(push, pull) pskv for float32 values; factor = 16 (2bit) or 32 (1bit)."""
    krs = key_ranges(num_servers)
    nb = 4
    compr = (n + factor - 1) // factor
    if n < bound:
        s = server_of(key, num_servers)
        push = {'keys': [str(krs[s][0] + n), str(krs[s][0] + key)], 'lens': [0, compr * nb], 'size': compr * nb}
        pull = {'keys': [str(krs[s][0] + key)], 'lens': [n * nb], 'size': n * nb}
        return push, pull
    pk, pl, qk, ql = [], [], [], []
    psize = qsize = 0
    for i in range(num_servers):
        if i == num_servers - 1:
            part_compr = compr - psize
            part_orig = n - qsize
        else:
            part_compr = c_round(compr / num_servers * (i + 1)) - c_round(compr / num_servers * i)
            part_orig = part_compr * factor
        pk += [str(krs[i][0] + part_orig), str(krs[i][0] + key)]
        pl += [0, part_compr * nb]
        qk.append(str(krs[i][0] + key))
        ql.append(part_orig * nb)
        psize += part_compr
        qsize += part_orig
    return {'keys': pk, 'lens': pl, 'size': psize * nb}, {'keys': qk, 'lens': ql, 'size': qsize * nb}


def cantor(m, d):
    return ((m + d) * (m + d + 1)) // 2 + d


def depair(cmd):
    w = math.floor((math.sqrt(8 * cmd + 1) - 1) / 2)
    t = (w * w + w) // 2
    y = cmd - t
    return [w - y, y]


def main():
    ranges = {str(s): [[str(b), str(e)] for b, e in key_ranges(s)] for s in (1, 2, 3, 4, 7)}
    placement = []
    for s in (1, 2, 3, 4, 7):
        for key in (0, 1, 2, 3, 5, 10, 99, 1000, 12345, 215326, 215327, 300000, 2**31 - 1):
            placement.append({'key': key, 'servers': s, 'server': server_of(key, s)})
    default = []
    for s in (1, 2, 3, 4, 7):
        for key, n, nb, bound in ((0, 1, 4, 10**6), (3, 999999, 4, 10**6), (3, 10**6, 4, 10**6),
                                  (7, 1000003, 8, 10**6), (1, 10, 4, 10), (2, 11, 2, 10), (5, 25, 4, 8),
                                  (4, 7, 1, 5), (9, 1001, 4, 100)):
            if s == 7 and n < s:
                continue
            p = default_pskv(key, n, nb, s, bound)
            default.append({'key': key, 'n': n, 'bytes': nb, 'servers': s, 'bound': bound, **p})
    compressed = []
    for s in (1, 2, 3):
        for ctype, factor in (('2bit', 16), ('1bit', 32)):
            for key, n, bound in ((0, 50, 10**6), (3, 35, 10**6), (1, 50, 10), (2, 1000, 100),
                                  (6, 1000003, 10**6), (4, 97, 64)):
                push, pull = compressed_pskv(key, n, factor, s, bound)
                compressed.append({'key': key, 'n': n, 'type': ctype, 'servers': s, 'bound': bound,
                                   'push': push, 'pull': pull})
    commands = []
    for m in range(3):
        for d in range(13):
            c = cantor(m, d)
            assert depair(c) == [m, d]
            commands.append({'request': m, 'dtype': d, 'cmd': c})
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({'ranges': ranges, 'placement': placement, 'default': default,
                               'compressed': compressed, 'commands': commands}, indent=1) + '\n')


if __name__ == '__main__':
    main()
