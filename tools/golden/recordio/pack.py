#!/usr/bin/env python3
"""Golden bytes for @mx/io's IRHeader pack/unpack (packages/io/src/recordio/irheader.test.ts).

MXNet's python/mxnet/recordio.py packs a record header with struct format 'IfQQ' (uint32 flag,
float32 label, uint64 id, uint64 id2; native order and alignment, i.e. 24 little-endian bytes on
x86-64). A scalar label forces flag=0; an array label sets flag=label.size, label=0 and puts the
labels as float32 in front of the payload. unpack reads the 24 bytes back and, when flag > 0, takes
flag float32 labels off the front of the rest. The functions below follow those documented steps
with Python's own struct and NumPy, so the bytes come from struct's layout, not from @mx code.
Cases that struct/NumPy reject are recorded as such ("error": the exception's class name). Native
'f' packing is a C cast, so a label beyond float32's range becomes +-infinity rather than an error.

Non-finite floats are written as the strings "Infinity" / "-Infinity", integers beyond 2^53 - 1 as
decimal strings. Writes packages/io/src/__fixtures__/recordio/pack.json (a rerun reproduces it exactly). Run with
the system Python (NumPy needed) from anywhere, or through build.sh:
    /usr/bin/python3 tools/golden/recordio/pack.py
"""
import json
import numbers
import pathlib
import struct

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / 'packages/io/src/__fixtures__/recordio/pack.json'
FMT = 'IfQQ'
SIZE = struct.calcsize(FMT)
assert SIZE == 24


def pack(header, s):
    flag, label, id_, id2 = header
    if isinstance(label, numbers.Number):
        flag = 0
    else:
        with np.errstate(over='ignore'):
            arr = np.asarray(label, dtype=np.float32)
        flag, label = arr.size, 0
        s = arr.tobytes() + s
    return struct.pack(FMT, flag, label, id_, id2) + s


def unpack(s):
    flag, label, id_, id2 = struct.unpack(FMT, s[:SIZE])
    s = s[SIZE:]
    if flag > 0:
        if len(s) < flag * 4:
            raise ValueError('string size must be a multiple of element size')
        label = np.frombuffer(s, np.float32, flag)
        s = s[flag * 4:]
    return (flag, label, id_, id2), s


def jfloat(v):
    v = float(v)
    return v if np.isfinite(v) else ('Infinity' if v > 0 else '-Infinity')


def jlabel(label):
    if isinstance(label, np.ndarray):
        return [jfloat(v) for v in label]
    return jfloat(label)


def jid(v):
    """Integers beyond 2^53 - 1 as decimal strings (JSON numbers would lose them)."""
    return str(v) if v > 2**53 - 1 else v


CASES = [
    ('scalar', (0, 4, 2574, 0), b'hello'),
    ('scalar rounds to float32', (0, 0.1, 2**40 + 5, 7), b'\x00\x01\x02'),
    ('scalar overrides flag', (5, -2.5, 1, 2), b''),
    ('negative zero', (0, -0.0, 0, 0), b'x'),
    ('infinity', (0, float('inf'), 3, 0), b''),
    ('list label', (0, [1, 2, 3], 9, 0), b'payload'),
    ('float64 array label', (0, np.array([0.1, -2.5, 1e-40]), 11, 12), b'\xff' * 9),
    ('one-element list', (7, [42.5], 13, 0), b''),
    ('empty list', (3, [], 14, 0), b'abc'),
    ('uint64 ids', (0, 1, 2**64 - 1, 2**63 + 1), b'z'),
    ('ids above 2^53', (0, 1, 2**53 + 1, 2**53), b''),
    ('label beyond float32 becomes infinity', (0, 1e39, 0, 0), b''),
    ('label array beyond float32', (0, [1e39, -1e39, 3.4028235e38], 0, 0), b''),
]

ERRORS = [
    ('negative id', (0, 1, -1, 0), b''),
    ('id of 2^64', (0, 1, 2**64, 0), b''),
]

UNPACK_ERRORS = [
    ('shorter than the header', bytes(range(23))),
    ('fewer labels than flag', struct.pack(FMT, 3, 0, 1, 2) + b'\x00' * 8),
]


def main():
    cases = []
    for name, header, s in CASES:
        packed = pack(header, s)
        (flag, label, id_, id2), rest = unpack(packed)
        flag_in, label_in, id_in, id2_in = header
        cases.append({
            'name': name,
            'header': {'flag': flag_in, 'label': jlabel(np.asarray(label_in, dtype=np.float64)) if not isinstance(label_in, numbers.Number) else jfloat(label_in),
                       'labelIsArray': not isinstance(label_in, numbers.Number),
                       'id': jid(id_in), 'id2': jid(id2_in)},
            'payload': s.hex(),
            'packed': packed.hex(),
            'unpacked': {'flag': flag, 'label': jlabel(label), 'id': jid(id_), 'id2': jid(id2), 'rest': rest.hex()},
        })
    errors = []
    for name, header, s in ERRORS:
        try:
            pack(header, s)
            raise AssertionError(name + ' packed')
        except (struct.error, OverflowError) as e:
            flag, label, id_, id2 = header
            errors.append({'name': name, 'header': {'flag': flag, 'label': label, 'id': jid(id_) if id_ >= 0 else id_, 'id2': id2},
                           'error': type(e).__name__})
    unpack_errors = []
    for name, s in UNPACK_ERRORS:
        try:
            unpack(s)
            raise AssertionError(name + ' unpacked')
        except (struct.error, ValueError) as e:
            unpack_errors.append({'name': name, 'bytes': s.hex(), 'error': type(e).__name__})
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({'generator': 'tools/golden/recordio/pack.py', 'format': FMT, 'cases': cases,
                               'packErrors': errors, 'unpackErrors': unpack_errors}, indent=1) + '\n')
    print('wrote', OUT)


if __name__ == '__main__':
    main()
