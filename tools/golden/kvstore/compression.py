#!/usr/bin/env python3
"""Golden data for @mx/kvstore's gradient compression (packages/kvstore/src/compression/*.test.ts and
the device-store tests), none computed with @mx code.

A NumPy float32 transcription of MXNet's kernels in src/kvstore/gradient_compression-inl.h
(mxnet-catalog.md section 8), written element by element as MXNet's loops are:

- 2-bit (quantize_2bit): residual += grad; residual >= t writes the bits 11 (masks 0xC0, 0x30, 0x0C,
  0x03 for element i & 3 of byte i >> 2) and subtracts t; else residual <= -t writes 10 (masks 0x80,
  0x20, 0x08, 0x02) and adds t; otherwise 00. 16 values per float32 word: ceil(n / 16) words.
  Dequantize: 11 -> +t, 10 -> -t, anything else -> 0.
- 1-bit (quantize_1bit): residual += grad; residual > t sets bit 0x80 >> (i & 7) of byte i >> 3 and
  subtracts 1, otherwise adds 1. 32 values per word. Dequantize: bit set -> +1, else -1.

t is MXNet's `float threshold`, so it is rounded to float32 before any comparison; every
arithmetic step is float32 (NumPy float32 scalars), as in the C++ kernels. Bytes are the memory of
the compressed float32 array (byte addressing, so independent of endianness).

1. `cases`: per (type, threshold, size) several quantize steps from zero residuals: the gradient,
   the packed bytes, the residual after the step and the dequantized values (decoded here from the
   bytes by the dequantize formula, a second code path). Gradients are seeded normal draws with
   values that land exactly on the thresholds mixed in (t, -t, 0, and residual + grad == t), so the
   >=, <= and > edges are exercised. Thresholds include 0.1 and 0.7, whose float32 roundings lie
   above and below the decimal value.
2. `store`: MXNet's CommDevice::ReduceCompressed for one key pushed from 3 devices, 3 pushes in a
   row: each device's gradient is quantized with its own residual, dequantized on the merge device
   and the results summed in device order (ElementwiseSum). `merged` is what a pull returns with no
   updater.

Writes packages/kvstore/src/__golden__/compression.json (a rerun reproduces it exactly). Run from
anywhere with the system Python (NumPy):  /usr/bin/python3 tools/golden/kvstore/compression.py
"""
import json
import pathlib

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / 'packages/kvstore/src/__golden__/compression.json'
F = np.float32

POS_BITS = (0xC0, 0x30, 0x0C, 0x03)
NEG_BITS = (0x80, 0x20, 0x08, 0x02)
ONE_BITS = (0x80, 0x40, 0x20, 0x10, 0x08, 0x04, 0x02, 0x01)


def compressed_words(n, kind):
    per = 16 if kind == '2bit' else 32
    return n // per if n % per == 0 else n // per + 1


def quantize(kind, grad, residual, threshold):
    """One quantize step: returns the packed bytes; updates `residual` (float32) in place."""
    t = F(threshold)
    out = bytearray(4 * compressed_words(grad.size, kind))
    for i in range(grad.size):
        residual[i] = F(residual[i] + grad[i])
        if kind == '2bit':
            if residual[i] >= t:
                out[i >> 2] |= POS_BITS[i & 3]
                residual[i] = F(residual[i] - t)
            elif residual[i] <= F(-t):
                out[i >> 2] |= NEG_BITS[i & 3]
                residual[i] = F(residual[i] - F(-t))
        else:
            if residual[i] > t:
                out[i >> 3] |= ONE_BITS[i & 7]
                residual[i] = F(residual[i] - F(1))
            else:
                residual[i] = F(residual[i] + F(1))
    return bytes(out)


def dequantize(kind, packed, n, threshold):
    t = F(threshold)
    out = np.zeros(n, dtype=np.float32)
    for i in range(n):
        if kind == '2bit':
            byte = packed[(i >> 4) * 4 + ((i & 15) >> 2)]
            masked = byte & POS_BITS[i & 3]
            out[i] = t if masked == POS_BITS[i & 3] else (F(-t) if masked == NEG_BITS[i & 3] else F(0))
        else:
            byte = packed[(i >> 5) * 4 + ((i & 31) >> 3)]
            out[i] = F(1) if byte & ONE_BITS[i & 7] else F(-1)
    return out


def floats(a):
    return [float(x) for x in np.asarray(a, dtype=np.float32)]


def gradients(rng, n, threshold, steps):
    """`steps` float32 gradients; a few entries hit the thresholds exactly (given the residual so far)."""
    t = F(threshold)
    grads = [(rng.standard_normal(n) * max(float(t), 0.25)).astype(np.float32) for _ in range(steps)]
    if n >= 4:
        grads[0][0] = t
        grads[0][1] = F(-t)
        grads[0][2] = F(0)
        grads[0][3] = F(t / 2)
    return grads


def step_case(rng, kind, threshold, n, steps=4):
    residual = np.zeros(n, dtype=np.float32)
    grads = gradients(rng, n, threshold, steps)
    out = []
    for k, g in enumerate(grads):
        if k == 1 and n >= 4:
            # residual + grad lands exactly on the threshold (>= for 2-bit, not > for 1-bit).
            g[3] = F(F(threshold) - residual[3])
            assert F(residual[3] + g[3]) == F(threshold)
        packed = quantize(kind, g, residual, threshold)
        out.append({
            'grad': floats(g),
            'packed': list(packed),
            'residual': floats(residual),
            'dequantized': floats(dequantize(kind, packed, n, threshold)),
        })
    return {'type': kind, 'threshold': threshold, 'size': n, 'steps': out}


def store_case(rng, kind, threshold, shape, devices=3, pushes=3):
    n = int(np.prod(shape))
    residuals = [np.zeros(n, dtype=np.float32) for _ in range(devices)]
    out = []
    for _ in range(pushes):
        grads = [(rng.standard_normal(n) * 0.6).astype(np.float32) for _ in range(devices)]
        merged = None
        for d in range(devices):
            packed = quantize(kind, grads[d], residuals[d], threshold)
            part = dequantize(kind, packed, n, threshold)
            merged = part if merged is None else (merged + part).astype(np.float32)
        out.append({'grads': [floats(g) for g in grads], 'merged': floats(merged),
                    'residuals': [floats(r) for r in residuals]})
    return {'type': kind, 'threshold': threshold, 'shape': list(shape), 'pushes': out}


def main():
    rng = np.random.RandomState(20240611)
    cases = []
    for threshold in (0.5, 0.1, 0.7, 2.0):
        for n in (1, 7, 16, 17, 50):
            cases.append(step_case(rng, '2bit', threshold, n))
    for threshold in (0.5, 0.0, 0.7):
        for n in (1, 9, 32, 33, 70):
            cases.append(step_case(rng, '1bit', threshold, n))
    store = [store_case(rng, '2bit', 0.5, (5, 7)), store_case(rng, '1bit', 0.3, (5, 7))]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({'cases': cases, 'store': store}, separators=(',', ':')) + '\n')
    print(f'wrote {OUT} ({len(cases)} cases, {len(store)} store scenarios)')


if __name__ == '__main__':
    main()
