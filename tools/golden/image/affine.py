#!/usr/bin/env python3
"""Golden data for @mx/io's warpAffine and ImageRecordIter's affine augmentation (OpenCV's cv2).

- warp: cv2.warpAffine (BORDER_CONSTANT) of small uint8 / float32 images under several matrices
  (MXNet's augmenter matrices, translations by fractions of a pixel, shrinks, enlargements, a
  random matrix), destination sizes, interpolations (nearest, bilinear, bicubic, area, Lanczos-4)
  and border values (packages/io/src/image/warp.test.ts);
- matrices: the 2x3 matrix and output size MXNet's default augmenter (src/io/image_aug_default.cc)
  builds from a draw (angle, shear, scale, aspect ratio) for an image of cols x rows, transcribed
  below in NumPy float32 as MXNet computes it in C++ floats;
- iter: whole ImageRecordUInt8Iter batches (packages/io/src/image-record-iter/affine.test.ts): the
  test's PNG pattern images, each record's draws made with CPython's `random` seeded as the
  iterator seeds a record (recordSeed: 111 + seed mixed with the epoch and the position, and
  ImageRandom(s) is `random.seed(s)`), in MXNet's order (shear, angle, [rotate_list index],
  scale, aspect ratio, [inter_method 10], crop y, crop x, mirror), then cv2.warpAffine,
  cv2.copyMakeBorder (pad), the crop and the mirror; CHW uint8.

Images are stored as base64 of their raw bytes (uint8, or little-endian float32).
Needs OpenCV's Python bindings (Debian: apt-get install python3-opencv).
Writes packages/io/src/__golden__/image-affine.json.  Rerun:  /usr/bin/python3 tools/golden/image/affine.py
"""
import base64
import json
import math
import pathlib
import random

import cv2
import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / 'packages/io/src/__golden__/image-affine.json'
f32 = np.float32
M32 = 0xFFFFFFFF


def b64(a):
    return base64.b64encode(np.ascontiguousarray(a).tobytes()).decode()


def mxnet_matrix(angle, s, scale, ratio, cols, rows, min_img=0.0, max_img=1e10):
    """image_aug_default.cc's affine matrix, float32 step by step as the C++ floats round."""
    a = f32(math.cos(angle / 180.0 * math.pi))
    b = f32(math.sin(angle / 180.0 * math.pi))
    s, scale, ratio = f32(s), f32(scale), f32(ratio)
    hs = f32(f32(f32(2) * scale) / f32(f32(1) + ratio))
    ws = f32(ratio * hs)
    new_w = max(f32(min_img), min(f32(max_img), f32(scale * f32(cols))))
    new_h = max(f32(min_img), min(f32(max_img), f32(scale * f32(rows))))
    m00 = f32(f32(hs * a) - f32(f32(s * b) * ws))
    m10 = f32(-b * ws)
    m01 = f32(f32(hs * b) + f32(f32(s * a) * ws))
    m11 = f32(a * ws)
    ocw = f32(f32(m00 * f32(cols)) + f32(m01 * f32(rows)))
    och = f32(f32(m10 * f32(cols)) + f32(m11 * f32(rows)))
    m02 = f32(f32(new_w - ocw) / f32(2))
    m12 = f32(f32(new_h - och) / f32(2))
    M = np.array([[m00, m01, m02], [m10, m11, m12]], dtype=np.float32)
    # cv::Size(float, float) converts to int by truncation
    return M, (int(new_w), int(new_h)), float(new_w), float(new_h)


def image(shape, seed, dtype):
    rs = np.random.RandomState(seed)
    if dtype == 'uint8':
        return rs.randint(0, 256, size=shape).astype(np.uint8)
    return (rs.rand(*shape) * 300 - 20).astype(np.float32)


def warp(src, M, dsize, interp, border):
    bv = tuple(float(v) for v in border) + (0.0,) * (4 - len(border))
    out = cv2.warpAffine(src, M, dsize, flags=interp, borderMode=cv2.BORDER_CONSTANT, borderValue=bv)
    return out.reshape(dsize[1], dsize[0], src.shape[2])


def warp_cases():
    rs = np.random.RandomState(7)
    mats = []
    for angle, s, scale, ratio, dsize in [
        (30, 0.0, 1.0, 1.0, None), (90, 0.0, 1.0, 1.0, None), (-45, 0.2, 1.3, 0.8, None),
        (17, -0.3, 0.7, 1.2, None), (180, 0.1, 1.0, 1.0, None), (5, 0.0, 2.0, 1.0, None),
        (-120, 0.05, 1.1, 1.0, (9, 8)),
    ]:
        M, size, _, _ = mxnet_matrix(angle, s, scale, ratio, 12, 9)
        mats.append((f'mxnet angle={angle} shear={s} scale={scale} ratio={ratio}', M, dsize or size))
    mats += [
        ('identity', np.array([[1, 0, 0], [0, 1, 0]], np.float32), (12, 9)),
        ('translate (0.5, 0.25)', np.array([[1, 0, 0.5], [0, 1, 0.25]], np.float32), (12, 9)),
        ('translate (-2.3, 1.7)', np.array([[1, 0, -2.3], [0, 1, 1.7]], np.float32), (12, 9)),
        ('shrink 0.37', np.array([[0.37, 0, 0.2], [0, 0.37, -0.1]], np.float32), (7, 5)),
        ('enlarge 2.6', np.array([[2.6, 0, -1.3], [0, 2.6, 0.4]], np.float32), (15, 11)),
        ('shear x', np.array([[1, 0.45, -2], [0, 1, 0]], np.float32), (14, 9)),
        ('random', (rs.rand(2, 3) * [[1.6, 1.6, 6], [1.6, 1.6, 6]] - [[0.8, 0.8, 3], [0.8, 0.8, 3]]).astype(np.float32),
         (12, 9)),
        ('singular', np.array([[1, 2, 0], [0.5, 1, 0]], np.float32), (5, 4)),
    ]
    cases = []
    sources = [((9, 12, 3), 'uint8', 0), ((7, 10, 1), 'uint8', 1), ((9, 12, 3), 'float32', 2)]
    borders = [(7, 7, 7), (255, 0, 128), (0, 0, 0)]
    for n, (name, M, dsize) in enumerate(mats):
        for shape, dtype, seed in sources:
            if dtype == 'float32' and n % 3 != 0:
                continue
            src = image(shape, 100 * n + seed, dtype)
            border = borders[(n + seed) % 3][: shape[2]]
            if dtype == 'float32':
                border = tuple(v + 0.25 for v in border)
            # out[i]: interpolation i (0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 Lanczos-4)
            outs = [b64(warp(src, M, dsize, interp, border)) for interp in range(5)]
            cases.append({'name': name, 'shape': list(shape), 'dtype': dtype, 'src': b64(src),
                          'M': [float(v) for v in M.reshape(-1)], 'dsize': list(dsize),
                          'border': [float(v) for v in border], 'out': outs})
    return cases


def matrix_cases():
    rs = random.Random(3)
    draws = [(0, 0.0, 1.0, 1.0, 12, 10), (90, 0.0, 1.0, 1.0, 12, 10), (30, 0.0, 1.0, 1.0, 12, 10),
             (-45, 0.2, 1.3, 0.8, 12, 9), (180, 0.0, 1.0, 1.0, 224, 224), (7, -0.15, 0.5, 1.25, 480, 360)]
    for _ in range(12):
        draws.append((rs.randint(-180, 180), rs.uniform(-0.5, 0.5), rs.uniform(0.3, 2.0), rs.uniform(0.5, 2.0),
                      rs.randint(1, 500), rs.randint(1, 500)))
    cases = []
    for angle, s, scale, ratio, cols, rows in draws:
        for min_img, max_img in [(0.0, 1e10), (0.0, 100.0), (20.0, 1e10)]:
            if (min_img, max_img) != (0.0, 1e10) and cols < 100:
                continue
            M, size, nw, nh = mxnet_matrix(angle, s, scale, ratio, cols, rows, min_img, max_img)
            cases.append({'angle': angle, 'shear': float(f32(s)), 'scale': float(f32(scale)),
                          'ratio': float(f32(ratio)), 'cols': cols, 'rows': rows, 'min_img_size': min_img,
                          'max_img_size': max_img, 'M': [float(v) for v in M.reshape(-1)],
                          'width': nw, 'height': nh, 'dsize': list(size)})
    return cases


# --- ImageRecordUInt8Iter batches -------------------------------------------------------------

W, H, N = 12, 10, 5


def pattern(i):
    """The test's image i: pixel (y, x, k) = (7y + 13x + 50k + 31i) mod 256, HWC RGB."""
    y, x, k = np.meshgrid(np.arange(H), np.arange(W), np.arange(3), indexing='ij')
    return ((y * 7 + x * 13 + k * 50 + i * 31) % 256).astype(np.uint8)


def imul(a, b):
    return (a * b) & M32


def record_seed(seed, epoch, position):
    """The iterator's per-record seed (kernel.ts recordSeed), in unsigned 32-bit arithmetic."""
    s = (111 + seed) & M32
    s = imul(s ^ (s >> 16), 0x85EBCA6B) ^ imul(epoch + 1, 0x9E3779B1)
    s = imul(s ^ (s >> 13), 0xC2B2AE35) ^ imul(position + 1, 0x27D4EB2F)
    return (s ^ (s >> 16)) & M32


def interp_method(code, old_w, old_h, new_w, new_h, rng):
    """MXNet's GetInterMethod (9: by the change of size, 10: a draw)."""
    if code == 9:
        if new_w > old_w and new_h > old_h:
            return 2
        if new_w < old_w and new_h < old_h:
            return 3
        return 1
    if code == 10:
        return rng.randint(0, 4)
    return code


def record(i, p):
    rng = random.Random(record_seed(p.get('seed', 0), 0, i))
    img = pattern(i)
    fill = p.get('fill_value', 255)
    inter = p.get('inter_method', 1)
    msr = f32(p.get('max_shear_ratio', 0))
    mra = p.get('max_rotate_angle', 0)
    smin, smax = f32(p.get('min_random_scale', 1)), f32(p.get('max_random_scale', 1))
    if 'min_aspect_ratio' in p:
        amin, amax = f32(p['min_aspect_ratio']), f32(p.get('max_aspect_ratio', 0))
    else:
        amin, amax = f32(1 - f32(p.get('max_aspect_ratio', 0))), f32(1 + f32(p.get('max_aspect_ratio', 0)))
    rlist = p.get('rotate_list', [])
    if mra > 0 or msr > 0 or p.get('rotate', -1) > 0 or rlist or smin != 1 or smax != 1 or amin != 1 or amax != 1:
        s = f32(f32(f32(f32(rng.random()) * msr) * f32(2)) - msr)
        angle = rng.randint(-mra, mra)
        if p.get('rotate', -1) > 0:
            angle = p['rotate']
        if rlist:
            angle = rlist[rng.randint(0, len(rlist) - 1)]
        scale = f32(f32(f32(rng.random()) * f32(smax - smin)) + smin)
        ratio = f32(f32(f32(rng.random()) * f32(amax - amin)) + amin)
        M, dsize, _, _ = mxnet_matrix(angle, s, scale, ratio, img.shape[1], img.shape[0])
        method = interp_method(inter, img.shape[1], img.shape[0], dsize[0], dsize[1], rng)
        img = warp(img, M, dsize, method, (fill, fill, fill))
    pad = p.get('pad', 0)
    if pad > 0:
        img = cv2.copyMakeBorder(img, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=(fill, fill, fill))
    if inter == 10:
        rng.randint(0, 4)  # MXNet's center-crop path asks GetInterMethod even when it does not resize
    _, h, w = p['data_shape']
    y, x = img.shape[0] - h, img.shape[1] - w
    assert y >= 0 and x >= 0, p
    if p.get('rand_crop'):
        y = rng.randint(0, y)
        x = rng.randint(0, x)
    else:
        y, x = y // 2, x // 2
    crop = img[y:y + h, x:x + w]
    if p.get('rand_mirror') and rng.random() < 0.5:
        crop = crop[:, ::-1]
    return crop.transpose(2, 0, 1)


ITER_CASES = [
    {'name': 'rotate 90, pad, fill', 'data_shape': [3, 8, 10], 'rotate': 90, 'pad': 2, 'fill_value': 7},
    {'name': 'fixed rotation, scale and aspect (bilinear)', 'data_shape': [3, 8, 10], 'rotate': 30,
     'min_random_scale': 1.5, 'max_random_scale': 1.5, 'min_aspect_ratio': 1.25, 'max_aspect_ratio': 1.25,
     'fill_value': 40},
    {'name': 'random rotation, shear, scale, aspect; rand_crop, rand_mirror', 'data_shape': [3, 8, 10],
     'seed': 5, 'max_rotate_angle': 25, 'max_shear_ratio': 0.2, 'min_random_scale': 1.1,
     'max_random_scale': 1.4, 'max_aspect_ratio': 0.15, 'fill_value': 200, 'pad': 1, 'rand_crop': True,
     'rand_mirror': True},
    {'name': 'rotate_list, nearest', 'data_shape': [3, 9, 9], 'seed': 11, 'rotate_list': [0, 90, 180, 270],
     'inter_method': 0, 'min_random_scale': 1.0, 'max_random_scale': 1.3, 'rand_crop': True},
    {'name': 'bicubic, shear only', 'data_shape': [3, 8, 10], 'seed': 2, 'max_shear_ratio': 0.3,
     'inter_method': 2, 'fill_value': 0},
    {'name': 'random interpolation (10)', 'data_shape': [3, 8, 10], 'seed': 9, 'max_rotate_angle': 40,
     'min_random_scale': 1.2, 'max_random_scale': 1.6, 'inter_method': 10, 'rand_crop': True},
    {'name': 'pad only', 'data_shape': [3, 12, 14], 'pad': 3, 'fill_value': 99, 'rand_crop': True, 'seed': 4},
]


def iter_cases():
    out = []
    for p in ITER_CASES:
        batch = np.stack([record(i, p) for i in range(N)])
        out.append({'params': p, 'data': b64(batch)})
    return out


def main():
    golden = {'generator': f'tools/golden/image/affine.py (OpenCV {cv2.__version__}, NumPy {np.__version__})',
              'warp': warp_cases(), 'matrices': matrix_cases(), 'iter': iter_cases()}
    OUT.write_text(json.dumps(golden) + '\n')
    print(f"wrote {len(golden['warp'])} warps, {len(golden['matrices'])} matrices, "
          f"{len(golden['iter'])} iterator batches to {OUT}")


if __name__ == '__main__':
    main()
