#!/usr/bin/env python3
"""Golden data for @mx/base's tests, computed by NumPy:

- dtypes: itemsize, kind and `.str` descriptor of every NumPy dtype @mx names;
- broadcast: `numpy.broadcast_shapes` over random shape tuples (or the fact that it raises);
- size: the element count of each shape (`numpy.prod`, with () -> 1);
- half: float64 values rounded to float16 (`numpy.float16(v).view(numpy.uint16)`), float16 bit
  patterns decoded (`view(numpy.float16).astype(float64)`), and bfloat16 (NumPy has none): values
  rounded to float32 by NumPy, then to the top 16 bits with round-half-even, the definition ml_dtypes
  implements, and bfloat16 bits decoded as the float32 with those high bits.

Writes packages/base/src/__golden__/base.json (a rerun reproduces the committed file exactly).  Rerun from the repository root:  python3 tools/golden/base.py
"""
import json
import pathlib
import random

import numpy

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "packages/base/src/__golden__/base.json"
NAMES = ["float32", "float64", "float16", "uint8", "int32", "int8", "int64", "bool",
         "int16", "uint16", "uint32", "uint64"]


def dtypes():
    return {n: {"itemsize": numpy.dtype(n).itemsize, "kind": numpy.dtype(n).kind,
                "str": numpy.dtype(n).str} for n in NAMES}


def random_shape(rng):
    ndim = rng.randint(0, 4)
    return tuple(rng.choice([0, 1, 1, 2, 3, 5]) for _ in range(ndim))


def broadcast(rng, count=300):
    cases = []
    for _ in range(count):
        shapes = [random_shape(rng) for _ in range(rng.randint(1, 3))]
        try:
            out = list(numpy.broadcast_shapes(*shapes))
        except ValueError:
            out = None
        cases.append({"shapes": [list(s) for s in shapes], "out": out})
    return cases


def half(rng):
    specials = [0.0, -0.0, 1.0, -1.0, 1.5, 65504.0, 65519.99, 65520.0, 1e6, -1e6, 2.0 ** -24, 2.0 ** -25,
                3 * 2.0 ** -26, 2.0 ** -14, 2.0 ** -14 - 2.0 ** -25, 0.1, 1 / 3, 2049.0, 2051.0, 1e-8,
                float("inf"), float("-inf")]
    values = specials + [rng.uniform(-1, 1) * 10 ** rng.randint(-9, 6) for _ in range(300)]
    to_half = [int(numpy.array(v, dtype=numpy.float64).astype(numpy.float16).view(numpy.uint16)) for v in values]
    bits = list(range(0, 65536, 97)) + [0x7c00, 0xfc00, 0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff, 0x3c00]
    from_half = [float(numpy.array(b, dtype=numpy.uint16).view(numpy.float16).astype(numpy.float64))
                 for b in bits if (b & 0x7c00) != 0x7c00 or (b & 0x3ff) == 0]
    kept_bits = [b for b in bits if (b & 0x7c00) != 0x7c00 or (b & 0x3ff) == 0]
    f32 = numpy.array(values, dtype=numpy.float64).astype(numpy.float32).view(numpy.uint32).astype(numpy.uint64)
    to_bf16 = ((f32 + 0x7FFF + ((f32 >> 16) & 1)) >> 16) & 0xFFFF
    from_bf16 = [float((numpy.array(b << 16, dtype=numpy.uint32)).view(numpy.float32)) for b in kept_bits]
    enc = lambda v: v if numpy.isfinite(v) else ("inf" if v > 0 else "-inf")
    return {"values": [enc(v) for v in values], "toHalf": to_half, "bits": kept_bits,
            "fromHalf": [enc(v) for v in from_half], "toBFloat16": [int(x) for x in to_bf16],
            "fromBFloat16": [enc(v) for v in from_bf16]}


def main():
    rng = random.Random(20261121)
    sizes = [{"shape": list(s), "size": int(numpy.prod(s, dtype=numpy.int64))}
             for s in (random_shape(rng) for _ in range(50))]
    data = {"numpy": numpy.__version__, "dtypes": dtypes(), "broadcast": broadcast(rng), "size": sizes,
            "half": half(random.Random(20261126))}
    OUT.write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main()
