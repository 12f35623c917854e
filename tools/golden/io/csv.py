#!/usr/bin/env python3
"""Golden data for CSVIter's number parser (packages/io/src/iters/csv-number.test.ts).

MXNet's CSV parser (dmlc-core) converts every field with C's strtof. This script asks the C
library's strtof itself (through ctypes), never @mx code, for the float32 of each string:

1. ordinary decimals as NumPy and C print them ('%.18e' = np.savetxt's default, '%.9g', '%g',
   '%.3f', plain integers), from a seeded NumPy generator over many magnitudes;
2. hard cases for a parser that goes through float64: for random float32 values f, the exact
   midpoint m between f and its upper neighbour, written (a) exactly (a tie: rounds to even),
   (b) cut to 20-30 significant digits (just below m: rounds down, although the nearest double
   of the text is m itself) and (c) that cut plus one unit in its last digit (just above m);
   the same near the float32 subnormal range and near the overflow threshold;
3. spellings strtof accepts: signs, '.5', '5.', exponents, 'inf', 'infinity', 'nan' in any case,
   zeros, overflow to infinity and underflow to zero.

Also one file written by np.savetxt (default format and delimiter ','), with its float32 values.

Writes packages/io/src/__golden__/csv-numbers.json: {"cases": [[text, bits], ...], "savetxt":
{"text": ..., "shape": [...], "bits": [...]}} with bits the float32 as an unsigned 32-bit integer
(NaN: null). Run from anywhere with a Python that has NumPy (here /usr/bin/python3):
    python3 tools/golden/io/csv.py
"""
import ctypes
import ctypes.util
import decimal
import io
import json
import pathlib
import struct

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / 'packages/io/src/__golden__/csv-numbers.json'

libc = ctypes.CDLL(ctypes.util.find_library('c'))
libc.strtof.restype = ctypes.c_float
libc.strtof.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p)]

decimal.getcontext().prec = 2000


def strtof_bits(text):
    """float32 bits of C strtof(text); asserts the whole text was consumed. None for NaN."""
    raw = text.encode('ascii')
    end = ctypes.c_char_p()
    value = libc.strtof(raw, ctypes.byref(end))
    consumed = ctypes.cast(end, ctypes.c_void_p).value - ctypes.cast(ctypes.c_char_p(raw), ctypes.c_void_p).value
    bits = struct.unpack('<I', struct.pack('<f', value))[0]
    if value != value:
        return None
    return bits, consumed


def exact(x):
    """The exact decimal expansion of a Python float (a double)."""
    return format(decimal.Decimal(x), 'f')


def significant(text, n, up):
    """text (a positive decimal) cut to n significant digits, plus one unit in the last if up."""
    d = decimal.Decimal(text)
    exp = d.adjusted() - n + 1
    q = decimal.Decimal(1).scaleb(exp)
    cut = d.quantize(q, rounding=decimal.ROUND_DOWN)
    if up:
        cut += q
    return format(cut, 'E')


def main():
    rng = np.random.default_rng(20240613)
    cases = []

    def add(text):
        r = strtof_bits(text)
        if r is None:
            cases.append([text, None])
            return
        bits, consumed = r
        assert consumed == len(text), (text, consumed)
        cases.append([text, bits])

    # 1. ordinary decimals
    for _ in range(60):
        mag = 10.0 ** rng.integers(-12, 13)
        v = float(rng.standard_normal() * mag)
        f32 = float(np.float32(v))
        for fmt in ('%.18e', '%.9g', '%g', '%.3f'):
            add(fmt % f32)
        add('%d' % int(rng.integers(-10**9, 10**9)))

    # 2. float32 midpoints written exactly, just below and just above
    def midpoints(values):
        for f in values:
            f = np.float32(f)
            if not np.isfinite(f) or f <= 0:
                continue
            up = np.nextafter(f, np.float32(np.inf))
            if not np.isfinite(up):
                continue
            m = (float(f) + float(up)) / 2  # exact in float64
            text = exact(m)
            add(text)
            n = int(rng.integers(20, 31))
            add(significant(text, n, False))
            add(significant(text, n, True))
            add('-' + significant(text, n, True))

    midpoints(np.abs(rng.standard_normal(40)) * 10.0 ** rng.integers(-30, 30, 40))
    midpoints([1.0, 0.1, 3.0, 16777216.0, 1e10, 2.0 ** -126, 2.0 ** -140, 1.4e-45])
    midpoints(rng.integers(1, 2**23, 10) * 2.0 ** -149)  # subnormal float32
    f_max = float(np.finfo(np.float32).max)
    threshold = exact(f_max + 2.0 ** 103)  # halfway to 2^128: strtof's overflow threshold
    add(threshold)
    add(significant(threshold, 25, False))
    add(significant(threshold, 25, True))
    add(exact(f_max))

    # 3. spellings
    for text in ('0', '-0', '+0', '0.0', '.5', '5.', '+1.5', '-2.25', '1e5', '1E5', '1e+05', '2.5e-3',
                 '000123', '0.000123', '00.100', '123456789012345678901234567890', '1e39', '-1e39',
                 '1e-50', '-1e-50', '1e400', '4e-320', 'inf', '-inf', 'Inf', 'INFINITY', '-Infinity',
                 'nan', 'NaN', '-nan', '3.4028235e38', '1.17549435e-38', '1.4e-45', '7e-46', '8e-46',
                 '0.1', '0.2', '0.3', '16777217', '16777219', '33554435', '200000001', '2147483648'):
        add(text)

    # np.savetxt's default output
    values = (rng.standard_normal((7, 6)) * 10.0 ** rng.integers(-3, 4, (7, 6))).astype(np.float32)
    buf = io.StringIO()
    np.savetxt(buf, values, delimiter=',')
    savetxt = {
        'text': buf.getvalue(),
        'shape': list(values.shape),
        'bits': [int(b) for b in values.reshape(-1).view(np.uint32)],
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    lines = ',\n'.join(json.dumps(c) for c in cases)
    OUT.write_text('{"cases": [\n' + lines + '\n],\n"savetxt": ' + json.dumps(savetxt) + '}\n')
    print(f'wrote {OUT} ({len(cases)} cases)')


if __name__ == '__main__':
    main()
