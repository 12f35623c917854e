#!/usr/bin/env python3
"""Golden resizes for @mx/io's imresize (packages/io/src/image/resize.test.ts).

The reference is mxnet_image_ref.imresize: OpenCV's geometry and kernels for codes 0-4 (nearest,
bilinear, bicubic A=-0.75, area, Lanczos-4) as separable float64 tap tables, rounded once (see that
module). Before writing anything, the reference is checked against PyTorch on float64 images where
PyTorch resamples with the same geometry: bilinear and bicubic (align_corners=False, no antialias),
and area at integer shrink factors (adaptive average pooling). Nearest is checked against
PyTorch's 'nearest' (floor(d * in / out)) on the cases where float32 rounding cannot move it.

Images are stored as base64 of their raw bytes (uint8, or little-endian float32).
Writes packages/io/src/__golden__/image-resize.json.  Rerun:  python3 tools/golden/image/resize.py
"""
import base64
import json
import pathlib
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import mxnet_image_ref as ref  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / 'packages/io/src/__golden__/image-resize.json'

# (src h, w, c) -> (dst w, h)
GEOMETRIES = [
    ((7, 9, 3), (13, 11)),   # enlarge both
    ((7, 9, 3), (4, 3)),     # shrink both, fractional
    ((12, 10, 3), (5, 6)),   # shrink by 2
    ((12, 9, 1), (3, 4)),    # shrink by 3, one channel
    ((7, 9, 2), (13, 5)),    # wider, shorter
    ((7, 9, 3), (9, 3)),     # same width, shorter
    ((1, 6, 3), (3, 2)),     # one source row
    ((5, 4, 3), (1, 1)),     # to one pixel
    ((16, 16, 3), (7, 9)),   # shrink, w and h differ
]


def b64(a):
    return base64.b64encode(np.ascontiguousarray(a).tobytes()).decode()


def image(shape, seed, dtype):
    rs = np.random.RandomState(seed)
    if dtype == 'uint8':
        return rs.randint(0, 256, size=shape).astype(np.uint8)
    return (rs.rand(*shape) * 300 - 20).astype(np.float32)


def torch_resize(img, w, h, mode):
    t = torch.from_numpy(img.astype(np.float64)).permute(2, 0, 1)[None]
    kw = {} if mode in ('area', 'nearest') else {'align_corners': False}
    return F.interpolate(t, size=(h, w), mode=mode, **kw)[0].permute(1, 2, 0).numpy()


def cross_check():
    checked = 0
    for seed, (shape, (w, h)) in enumerate(GEOMETRIES):
        img = image(shape, 100 + seed, 'float32').astype(np.float64)
        for interp, mode in [(1, 'bilinear'), (2, 'bicubic')]:
            ours = ref.imresize(img, w, h, interp)
            assert np.allclose(ours, torch_resize(img, w, h, mode), atol=1e-9), (shape, w, h, mode)
            checked += 1
        sh, sw, _ = shape
        if sh % h == 0 and sw % w == 0:
            assert np.allclose(ref.imresize(img, w, h, 3), torch_resize(img, w, h, 'area'), atol=1e-9)
            checked += 1
        near = ref.imresize(img, w, h, 0)
        if np.array_equal(near, torch_resize(img, w, h, 'nearest')):
            checked += 1
        else:
            exact_x = [min(d * sw // w, sw - 1) for d in range(w)]
            exact_y = [min(d * sh // h, sh - 1) for d in range(h)]
            assert np.array_equal(near, img[exact_y][:, exact_x]), (shape, w, h)
    return checked


def main():
    checked = cross_check()
    cases = []
    for g, (shape, (w, h)) in enumerate(GEOMETRIES):
        for dtype in ['uint8', 'float32']:
            if dtype == 'float32' and g % 2 == 1:
                continue
            src = image(shape, g * 7 + (dtype == 'float32'), dtype)
            for interp in range(5):
                out = ref.imresize(src, w, h, interp)
                cases.append({'shape': list(shape), 'w': w, 'h': h, 'interp': interp, 'dtype': dtype,
                              'src': b64(src), 'out': b64(out)})
    golden = {'generator': f'tools/golden/image/resize.py (NumPy {np.__version__}; {checked} configurations '
                           f'cross-checked with PyTorch {torch.__version__})', 'cases': cases}
    OUT.write_text(json.dumps(golden) + '\n')
    print(f'wrote {len(cases)} cases to {OUT}; {checked} cross-checks passed')


if __name__ == '__main__':
    main()
