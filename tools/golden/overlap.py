#!/usr/bin/env python3
"""Golden data for out= arrays that overlap an input (packages/ndarray/src/invoke.test.ts).

NumPy defines the result of an operation whose output overlaps an input as if the inputs had been
copied first (ufuncs since NumPy 1.13; matmul likewise). Each case starts from a base array `x`,
takes row views of it (x[a:b], what NDArray.slice gives) or whole-array aliases, runs the operation
with out= a view of x, and records x afterwards. `req: add` is MXNet's kAddTo: out += result.

Writes packages/ndarray/src/__golden__/overlap.json. Rerun from the repository root:
    python3 tools/golden/overlap.py
"""
import json
import pathlib

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "packages/ndarray/src/__golden__/overlap.json"


def base():
    return np.array([[1, 1], [11, 11], [21, 21]], dtype=np.float32)


def view(x, v):
    return x if v is None else x[v[0]:v[1]]


def case(name, op, inputs, out, params=None, req="write", x=None):
    """inputs: list of {"view": [a, b] | None} (a view of x) or {"array": nested, "shape": ...}."""
    x = base() if x is None else np.array(x, dtype=np.float32)
    x0 = x.copy()
    args = [view(x, i["view"]) if "view" in i else np.array(i["array"], dtype=np.float32) for i in inputs]
    o = view(x, out)
    if op == "broadcast_add":
        r = np.add(*args)
    elif op == "broadcast_mul":
        r = np.multiply(*args)
    elif op == "_plus_scalar":
        r = np.add(args[0], np.float32(params["scalar"]))
    elif op == "elemwise_add":
        r = np.add(*args)
    elif op == "dot":
        r = np.matmul(*args)
    elif op == "transpose":
        r = np.transpose(args[0])
    elif op == "relu":
        r = np.maximum(args[0], 0)
    else:
        raise ValueError(op)
    # The operations above allocate r first, i.e. they see the inputs as they were (NumPy's
    # overlap rule); now write it the way the op would.
    if req == "add":
        o += r
    else:
        o[...] = r
    return {"name": name, "op": op, "x": x0.tolist(), "inputs": inputs, "out": out,
            "params": params or {}, "req": req, "expected": x.tolist()}


def main():
    cases = [
        case("broadcast operand shifted under the output", "broadcast_add",
             [{"view": [0, 2]}, {"array": [[0, 0]]}], [1, 3]),
        case("broadcast view one row down", "broadcast_add", [{"view": [1, 2]}, {"array": [[1, 1]]}], [2, 3]),
        case("shifted down, scalar broadcast", "broadcast_add", [{"view": [0, 2]}, {"array": [1]}], [1, 3]),
        case("shifted up", "broadcast_add", [{"view": [1, 3]}, {"array": [1]}], [0, 2]),
        case("row operand inside the output", "broadcast_mul", [{"view": [0, 1]}, {"view": None}], None,
             x=[[2, 3], [11, 11], [21, 21]]),
        case("scalar op on a shifted view", "_plus_scalar", [{"view": [0, 2]}], [1, 3], {"scalar": 5}),
        case("exact in-place alias", "elemwise_add", [{"view": [0, 2]}, {"view": [0, 2]}], [0, 2]),
        case("exact alias, relu", "relu", [{"view": None}], None, x=[[1, -2], [-3, 4], [5, -6]]),
        case("dot into its own lhs", "dot", [{"view": None}, {"array": [[1, 2], [3, 4]]}], None,
             x=[[1, 2], [3, 4]]),
        case("transpose into itself", "transpose", [{"view": None}], None, x=[[1, 2], [3, 4]]),
        case("kAddTo into a shifted view", "broadcast_add", [{"view": [0, 2]}, {"array": [[1, 2]]}], [1, 3],
             req="add"),
    ]
    data = {"numpy": np.__version__, "cases": cases}
    OUT.write_text(json.dumps(data, indent=2) + "\n")


if __name__ == "__main__":
    main()
