#!/usr/bin/env python3
"""Golden crops, color math, augmenters and CreateAugmenter lists for @mx/io's image namespace
(packages/io/src/image/{transforms,color,augmenters}.test.ts), from mxnet_image_ref (a NumPy
restatement of MXNet's python/mxnet/image/image.py) with MXNet's own randomness: Python's
`random` and NumPy's global legacy generator, seeded per case with `random.seed(s)` and
`np.random.seed(s)`, the state @mx's `new ImageRandom(s)` starts from.

Sections:
- scale_down / resize_short shapes;
- crops: fixed_crop, center_crop, random_crop, random_size_crop (image and rectangle);
- color: each color formula with its factor given explicitly;
- augmenters: one augmenter applied three times in a row to the same image (the draws go on from
  call to call), with its dumps();
- create: CreateAugmenter lists applied to three images in turn, with every dumps();
- float_repr: Python's repr of some floats (dumps() writes floats the Python way).

Images are base64 of raw bytes (uint8, or little-endian float32).
Writes packages/io/src/__golden__/image-augment.json.  Rerun:  python3 tools/golden/image/augment.py
"""
import base64
import json
import pathlib
import random
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import mxnet_image_ref as ref  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / 'packages/io/src/__golden__/image-augment.json'


def b64(a):
    return base64.b64encode(np.ascontiguousarray(a).tobytes()).decode()


def enc(img):
    return {'shape': list(img.shape), 'dtype': str(img.dtype), 'data': b64(img)}


def image(h, w, c, seed):
    return np.random.RandomState(seed).randint(0, 256, size=(h, w, c)).astype(np.uint8)


def seed_all(s):
    random.seed(s)
    np.random.seed(s)


def scale_down_cases():
    cases = []
    for src, size in [((640, 480), (720, 120)), ((640, 480), (224, 224)), ((100, 50), (224, 224)),
                      ((50, 100), (224, 224)), ((10, 10), (3, 7)), ((7, 3), (20, 5)), ((5, 5), (5, 5))]:
        cases.append({'src': list(src), 'size': list(size), 'out': list(ref.scale_down(src, size))})
    return cases


def resize_short_cases():
    cases = []
    for k, ((h, w, c), size, interp) in enumerate([((9, 12, 3), 6, 2), ((12, 9, 3), 5, 1), ((6, 6, 1), 8, 9),
                                                   ((7, 10, 3), 14, 9), ((10, 7, 3), 3, 9), ((8, 11, 3), 4, 3)]):
        src = image(h, w, c, 300 + k)
        cases.append({'src': enc(src), 'size': size, 'interp': interp, 'out': enc(ref.resize_short(src, size, interp))})
    return cases


def crop_cases():
    cases = []
    src = image(11, 14, 3, 1)
    small = image(5, 9, 3, 2)

    def add(fn, args, img, seed, call):
        seed_all(seed)
        res = call()
        out, rect = res if isinstance(res, tuple) else (res, None)
        cases.append({'fn': fn, 'args': args, 'seed': seed, 'src': enc(img), 'out': enc(out),
                      'rect': list(rect) if rect else None})

    add('fixed_crop', {'x0': 2, 'y0': 3, 'w': 7, 'h': 5}, src, 0, lambda: ref.fixed_crop(src, 2, 3, 7, 5))
    add('fixed_crop', {'x0': 0, 'y0': 0, 'w': 14, 'h': 11, 'size': [6, 4], 'interp': 3}, src, 0,
        lambda: ref.fixed_crop(src, 0, 0, 14, 11, (6, 4), 3))
    add('fixed_crop', {'x0': 5, 'y0': 1, 'w': 4, 'h': 6, 'size': [8, 9], 'interp': 9}, src, 0,
        lambda: ref.fixed_crop(src, 5, 1, 4, 6, (8, 9), 9))
    add('fixed_crop', {'x0': 1, 'y0': 1, 'w': 5, 'h': 5, 'size': [7, 3], 'interp': 10}, src, 4,
        lambda: ref.fixed_crop(src, 1, 1, 5, 5, (7, 3), 10))
    for size, interp in [((6, 4), 2), ((14, 11), 2), ((20, 20), 1), ((3, 9), 2)]:
        add('center_crop', {'size': list(size), 'interp': interp}, src, 0, lambda: ref.center_crop(src, size, interp))
    for seed in [0, 1, 2, 3]:
        add('random_crop', {'size': [5, 4], 'interp': 2}, src, seed, lambda: ref.random_crop(src, (5, 4), 2))
    add('random_crop', {'size': [12, 12], 'interp': 1}, small, 5, lambda: ref.random_crop(small, (12, 12), 1))
    add('random_crop', {'size': [4, 4], 'interp': 10}, small, 6, lambda: ref.random_crop(small, (4, 4), 10))
    for seed, area, ratio in [(0, 0.08, (0.75, 4 / 3)), (1, 0.08, (0.75, 4 / 3)), (2, (0.3, 0.6), (0.5, 2.0)),
                              (3, 0.5, (1.0, 1.0)), (4, 1.0, (3.0, 4.0)), (5, 0.9, (0.2, 0.3))]:
        add('random_size_crop', {'size': [6, 5], 'area': list(area) if isinstance(area, tuple) else area,
                                 'ratio': list(ratio), 'interp': 2}, src, seed,
            lambda: ref.random_size_crop(src, (6, 5), area, ratio, 2))
    return cases


def color_cases():
    src = image(6, 7, 3, 10).astype(np.float32)
    src[0, 0] = [255.0, 0.0, 128.5]
    eigval = [55.46, 4.794, 1.148]
    eigvec = [[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]]
    cases = []
    for fn, arg, out in [
        ('brightness', 0.7, ref.brightness(src, 0.7)),
        ('brightness', 1.2345678, ref.brightness(src, 1.2345678)),
        ('contrast', 0.75, ref.contrast(src, 0.75)),
        ('contrast', 1.3, ref.contrast(src, 1.3)),
        ('saturation', 0.6, ref.saturation(src, 0.6)),
        ('saturation', 1.45, ref.saturation(src, 1.45)),
        ('hue', 0.1, ref.hue(src, 0.1)),
        ('hue', -0.37, ref.hue(src, -0.37)),
        ('gray', None, ref.to_gray(src)),
        ('lighting', [0.01, -0.02, 0.03], ref.lighting(src, ref.pca_offset(np.array([0.01, -0.02, 0.03]), eigval, eigvec))),
        ('normalize', {'mean': [123.68, 116.28, 103.53], 'std': [58.395, 57.12, 57.375]},
         ref.color_normalize(src, [123.68, 116.28, 103.53], [58.395, 57.12, 57.375])),
        ('normalize', {'mean': [100.5], 'std': None}, ref.color_normalize(src, [100.5], None)),
        ('normalize', {'mean': None, 'std': [2.5, 3.0, 0.5]}, ref.color_normalize(src, None, [2.5, 3.0, 0.5])),
    ]:
        cases.append({'fn': fn, 'arg': arg, 'out': enc(out.astype(np.float32))})
    offset = ref.pca_offset(np.array([0.01, -0.02, 0.03]), eigval, eigvec)
    return {'src': enc(src), 'pca_offset': [float(v) for v in offset], 'cases': cases}


AUGMENTERS = [
    ('ResizeAug', [6, 2]), ('ResizeAug', [5, 10]), ('ForceResizeAug', [[9, 5], 1]), ('ForceResizeAug', [[9, 5], 10]),
    ('RandomCropAug', [[6, 5], 2]), ('RandomSizedCropAug', [[6, 5], 0.08, [0.75, 4 / 3], 2]),
    ('RandomSizedCropAug', [[4, 4], [0.2, 0.5], [0.5, 2.0], 9]), ('CenterCropAug', [[8, 6], 2]),
    ('HorizontalFlipAug', [0.5]), ('CastAug', []), ('BrightnessJitterAug', [0.3]), ('ContrastJitterAug', [0.4]),
    ('SaturationJitterAug', [0.5]), ('HueJitterAug', [0.2]), ('ColorJitterAug', [0.3, 0.3, 0.3]),
    ('ColorJitterAug', [0.0, 0.2, 0.4]),
    ('LightingAug', [0.1, [55.46, 4.794, 1.148], [[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140],
                                                    [-0.5836, -0.6948, 0.4203]]]),
    ('ColorNormalizeAug', [[123.68, 116.28, 103.53], [58.395, 57.12, 57.375]]), ('ColorNormalizeAug', [[127.5], None]),
    ('RandomGrayAug', [0.5]),
]
FLOAT_INPUT = {'BrightnessJitterAug', 'ContrastJitterAug', 'SaturationJitterAug', 'HueJitterAug', 'ColorJitterAug',
               'LightingAug', 'ColorNormalizeAug', 'RandomGrayAug'}


def make_aug(name, args):
    cls = getattr(ref, name)
    conv = [tuple(a) if isinstance(a, list) and name not in ('LightingAug', 'ColorNormalizeAug') else a for a in args]
    if name == 'LightingAug':
        conv = [args[0], np.array(args[1]), np.array(args[2])]
    if name == 'ColorNormalizeAug':
        conv = [np.array(a) if a is not None else None for a in args]
    return cls(*conv)


def augmenter_cases():
    cases = []
    base = image(9, 12, 3, 20)
    for k, (name, args) in enumerate(AUGMENTERS):
        seed = 1000 + k
        src = base.astype(np.float32) if name in FLOAT_INPUT else base
        aug = make_aug(name, args)
        seed_all(seed)
        outs = [enc(np.asarray(aug(src))) for _ in range(3)]
        cases.append({'name': name, 'args': args, 'seed': seed, 'src': enc(src), 'outs': outs, 'dumps': aug.dumps()})
    return cases


CREATE = [
    {'data_shape': [3, 6, 8]},
    {'data_shape': [3, 6, 8], 'resize': 10, 'rand_crop': True, 'rand_mirror': True, 'mean': True, 'std': True},
    {'data_shape': [3, 7, 7], 'rand_crop': True, 'rand_resize': True, 'inter_method': 10, 'brightness': 0.2,
     'contrast': 0.2, 'saturation': 0.2, 'hue': 0.1, 'pca_noise': 0.05, 'rand_gray': 0.3, 'mean': True},
    {'data_shape': [3, 5, 9], 'resize': 7, 'inter_method': 9, 'saturation': 0.4, 'std': [50.0, 60.0, 70.0],
     'rand_mirror': True},
    {'data_shape': [3, 12, 16], 'rand_crop': True, 'inter_method': 1, 'contrast': 0.5, 'mean': [127.0]},
]


def create_cases():
    cases = []
    images = [image(10, 13, 3, 40), image(13, 10, 3, 41), image(6, 6, 3, 42)]
    for k, kw in enumerate(CREATE):
        seed = 2000 + k
        args = dict(kw)
        for key in ('mean', 'std'):
            if isinstance(args.get(key), list):
                args[key] = np.array(args[key])
        augs = ref.create_augmenter(**args)
        seed_all(seed)
        outs = []
        for img in images:
            for aug in augs:
                img = aug(img)
            outs.append(enc(np.asarray(img)))
        cases.append({'kwargs': kw, 'seed': seed, 'srcs': [enc(i) for i in images], 'outs': outs,
                      'dumps': [a.dumps() for a in augs]})
    return cases


FLOATS = [0.0, -0.0, 1.0, 0.5, 0.1, 1 / 3, 4 / 3, 123.68, 1e-05, 0.0001, 1.5e-07, 1e16, 9999999999999998.0,
          1.2345e+20, -2.5, 3e-300, 1.7976931348623157e308, 100.0, 5e-324]


def main():
    golden = {
        'float_repr': [[v, repr(v)] for v in FLOATS],
        'generator': f'tools/golden/image/augment.py (NumPy {np.__version__})',
        'scale_down': scale_down_cases(),
        'resize_short': resize_short_cases(),
        'crops': crop_cases(),
        'color': color_cases(),
        'augmenters': augmenter_cases(),
        'create': create_cases(),
    }
    OUT.write_text(json.dumps(golden) + '\n')
    print(f'wrote {OUT} ({OUT.stat().st_size} bytes)')


if __name__ == '__main__':
    main()
