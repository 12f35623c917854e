#!/usr/bin/env python3
"""Golden strings for NDArray printing (packages/ndarray/src/format.test.ts).

MXNet's NDArray repr is NumPy's str() of the values followed by `<NDArray 2x3 @cpu(0)>`; the
values part is what this file pins down: `str(array)` under NumPy's default print options
(precision 8, threshold 1000, edgeitems 3, linewidth 75, suppress False, floatmode maxprec) for
arrays chosen to hit each rule: positional vs scientific notation (the float32/float16 cutoffs
of NumPy >= 2.2), the 8-digit cap and its round-half-even ties, common-width padding, nan/inf, -0,
line wrapping, summarisation of large arrays, ints, bools, 0-d arrays (scalar str) and empty ones.

Each case stores the flat storage contents as the array's typed array holds them (float16 as its
uint16 bits; int64/uint64 as decimal strings; non-finite floats as "nan"/"inf"/"-inf"), the
shape, the dtype and NumPy's string. Writes packages/ndarray/src/__golden__/print.json. Rerun from the repository root:  python3 tools/golden/print.py
"""
import json
import math
import pathlib

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "packages/ndarray/src/__golden__/print.json"


def storage(a):
    flat = a.reshape(-1)
    if a.dtype == np.float16:
        return [int(v) for v in flat.view(np.uint16)]
    if a.dtype == np.bool_:
        return [int(v) for v in flat]
    if a.dtype in (np.int64, np.uint64):
        return [str(int(v)) for v in flat]
    if a.dtype.kind == "f":
        out = []
        for v in flat:
            v = float(v)
            out.append("nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else v)
        return out
    return [int(v) for v in flat]


def case(name, a):
    a = np.asarray(a)
    return {"name": name, "dtype": str(a.dtype), "shape": list(a.shape), "data": storage(a), "str": str(a)}


def cases():
    rng = np.random.default_rng(20261121)
    f32, f64, f16 = np.float32, np.float64, np.float16
    c = [
        case("2x3 float32 integers", np.array([[1, 2, 3], [4, 5, 6]], f32)),
        case("common width, fraction padding", np.array([1.5, 2.25, -3.125], f32)),
        case("float32 shortest digits", np.array([0.1, 0.2, 0.3], f32)),
        case("float32 thirds (8-digit cap)", np.array([1 / 3, 2 / 3, 10 / 3], f32)),
        case("float64 thirds (8-digit cap)", np.array([1 / 3, 2 / 3, -10 / 3], f64)),
        case("round half to even at the cap", np.array([0.001953125, 1.0, 0.005859375], f64)),
        case("small values: scientific", np.array([1e-5, 1.0, 2.5], f32)),
        case("wide ratio: scientific", np.array([1.0, 1500.0], f32)),
        case("float32 cutoff 1e6: scientific", np.array([1e6, 2e6], f32)),
        case("float64 below 1e8: positional", np.array([1e7, 2e7], f64)),
        case("float64 at 1e8: scientific", np.array([123456789.0, 1e8], f64)),
        case("three-digit exponents", np.array([1e-300, 1e300], f64)),
        case("float32 1e-4 is not below float32(1e-4)", np.array([1e-4, 0.05], f32)),
        case("float64 1e-4 boundary", np.array([1e-4, 0.05], f64)),
        case("float16 1e-4 boundary", np.array([1e-4, 0.05], f16)),
        case("ratio exactly 1000", np.array([1.0, 1000.0], f32)),
        case("ratio just above 1000", np.array([1.0, 1000.5], f32)),
        case("rounding carries into the integer part", np.array([0.999999999, 1.5], f64)),
        case("scientific carry to the next exponent", np.array([9.9999999999e-5, 1.0], f64)),
        case("nan and inf", np.array([np.nan, 1.5, -np.inf], f32)),
        case("all non-finite", np.array([np.nan, np.inf], f64)),
        case("inf with scientific", np.array([np.inf, 1e-7], f32)),
        case("negative zero", np.array([-0.0, 1.0], f32)),
        case("all zeros", np.zeros((2, 2), f32)),
        case("3-d blocks", np.arange(24, dtype=f32).reshape(2, 3, 4)),
        case("singleton dims", np.array([[[5.0]]], f32)),
        case("line wrap 1-d float64", np.linspace(0, 1, 30)),
        case("line wrap 2-d random float32", rng.standard_normal((3, 12)).astype(f32)),
        case("random float64 5x5", rng.standard_normal((5, 5))),
        case("summarised 1-d float32", np.arange(2000, dtype=f32)),
        case("summarised 1-d int32", np.arange(1001, dtype=np.int32)),
        case("summarised one axis", rng.standard_normal((3, 400)).astype(f32)),
        case("summarised 3-d", np.arange(2200, dtype=np.int32).reshape(10, 11, 20)),
        case("summarised bool", np.arange(1001) % 3 == 0),
        case("int rows wrap", np.arange(60, dtype=np.int64).reshape(2, 30)),
        case("int64 extremes", np.array([-(2**63), 2**63 - 1, 0], np.int64)),
        case("uint64 max", np.array([0, 2**64 - 1], np.uint64)),
        case("int8", np.array([-128, 127, 0], np.int8)),
        case("uint8", np.array([[0, 255], [7, 8]], np.uint8)),
        case("int16 negative width", np.array([-5, 10, 200], np.int16)),
        case("uint16", np.array([65535, 1], np.uint16)),
        case("uint32", np.array([4294967295, 1], np.uint32)),
        case("bool 2x2", np.array([[True, False], [False, True]])),
        case("bool all true", np.array([True])),
        case("float16 scientific (cutoff 1e3)", np.array([0.1, 1000, 65504], f16)),
        case("float16 positional", np.array([0.5, 1.25, -2.0], f16)),
        case("float16 shortest digits", np.array([0.1, 0.3, 3.14], f16)),
        case("empty 1-d", np.zeros((0,), f32)),
        case("empty 2-d", np.zeros((2, 0), np.int32)),
        case("0-d float32", np.array(3.5, f32)),
        case("0-d float32 third", np.array(1 / 3, f32)),
        case("0-d float64 third", np.array(1 / 3, f64)),
        case("0-d float32 integer", np.array(2.0, f32)),
        case("0-d float32 large", np.array(1e20, f32)),
        case("0-d float32 1e16", np.array(1e16, f32)),
        case("0-d float64 below 1e16", np.array(123456789012345.0, f64)),
        case("0-d float32 small", np.array(1e-5, f32)),
        case("0-d float32 1e-4", np.array(1e-4, f32)),
        case("0-d float16", np.array(0.1, f16)),
        case("0-d nan", np.array(np.nan, f32)),
        case("0-d -inf", np.array(-np.inf, f64)),
        case("0-d -0", np.array(-0.0, f32)),
        case("0-d int32", np.array(-7, np.int32)),
        case("0-d int64", np.array(2**62, np.int64)),
        case("0-d bool", np.array(False)),
    ]
    return c


def main():
    data = {"numpy": np.__version__, "cases": cases()}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    # One case per line: the large storage lists stay on one line each.
    lines = ",\n".join(json.dumps(c) for c in data["cases"])
    OUT.write_text(f'{{"numpy": "{data["numpy"]}", "cases": [\n{lines}\n]}}\n')


if __name__ == "__main__":
    main()
