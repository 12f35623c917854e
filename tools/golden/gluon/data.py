#!/usr/bin/env python3
"""Golden data for gluon.data's tests (packages/gluon/src/data/*.test.ts), computed with NumPy only.

1. pad: batches padded the way MXNet's batchify.Pad specifies (every axis padded with `val` to the
   largest size, rounded up to `round_to`; with `axis`, GluonNLP's variant: only that axis), built
   here with np.pad + np.stack + astype (not MXNet's slice-assignment loop, and not our code).
   Lists of numbers are padded in float32 (what the TypeScript side makes of JS numbers).
2. random_sampler: the orders RandomSampler must give with a seed: np.random.seed(seed), then per
   epoch idx = np.arange(n); np.random.shuffle(idx) (MXNet's RandomSampler.__iter__).
3. mnist: labels and pixel statistics of @mx/io's embedded MNIST subset (read here with gzip and
   struct, as MXNet's MNIST._get_data does), and ToTensor / Normalize of image 0 in float32
   (to_tensor: x / 255; normalize: (x - mean) / std, float32 arithmetic as in MXNet's kernels).
4. normalize3: Normalize of a (2, 3, 2, 2) float32 batch with per-channel mean and std.

Writes packages/gluon/src/__golden__/data.json. Run with the system Python (NumPy):
    /usr/bin/python3 tools/golden/gluon/data.py
"""
import gzip
import json
import pathlib
import struct

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / 'packages/gluon/src/__golden__/data.json'
MNIST = ROOT / 'packages/io/data/mnist'


def sample(shape, seed, scale=8):
    """Values k/scale (exact in float32) from a fixed NumPy generator."""
    g = np.random.RandomState(seed)
    return (g.randint(-64, 64, size=shape) / scale).astype(np.float32)


def pad_ref(arrs, val, dtype, round_to=None, axis=None):
    ndim = arrs[0].ndim
    out_shape = []
    for d in range(ndim):
        m = max(a.shape[d] for a in arrs)
        if (axis is None or d == axis) and round_to is not None:
            m = round_to * int(np.ceil(m / round_to))
        out_shape.append(m)
    padded = [np.pad(a.astype(np.float64), [(0, out_shape[d] - a.shape[d]) for d in range(ndim)],
                     constant_values=val) for a in arrs]
    return np.stack(padded).astype(dtype)


def case(name, samples, val, expected, **opts):
    return {
        'name': name,
        'samples': [
            s if isinstance(s, list) else {'shape': list(s.shape), 'dtype': str(s.dtype), 'values': s.ravel().tolist()}
            for s in samples
        ],
        'val': val,
        'options': opts,
        'expected': {'shape': list(expected.shape), 'dtype': str(expected.dtype),
                     'values': expected.ravel().tolist()},
    }


def pad_cases():
    cases = []
    # MXNet's test_batchify_pad inputs (int64 there; int32 here).
    a = np.array([[1, 2, 3, 4], [11, 12, 13, 14]], dtype=np.int32)
    b = np.array([[4, 5, 6]], dtype=np.int32)
    c = np.array([[9, 10]], dtype=np.int32)
    cases.append(case('mxnet_test_batchify_pad', [a, b, c], -1, pad_ref([a, b, c], -1, np.int32)))
    x = [sample(s, 10 + i) for i, s in enumerate([(2, 3, 1), (4, 1, 2), (3, 2, 2)])]
    cases.append(case('float32_3d_all_axes', x, 0.5, pad_ref(x, 0.5, np.float32)))
    seqs = [[3, 1, 4, 1, 5], [9, 2], [6, 5, 3, 5, 8, 9, 7]]
    arrs = [np.array(s, dtype=np.float32) for s in seqs]
    cases.append(case('lists_round_to_4', seqs, 0, pad_ref(arrs, 0, np.float32, round_to=4), roundTo=4))
    y = [sample((3, n), 20 + n) for n in (4, 6, 1)]
    cases.append(case('axis_1_ret_length', y, -2, pad_ref(y, -2, np.float32, axis=1), axis=1, retLength=True))
    z = [sample((2, n), 30 + n) for n in (3, 1)]
    cases.append(case('float32_to_int32', z, -1, pad_ref(z, -1, np.int32), dtype='int32'))
    w = [sample((n, 2), 40 + n) for n in (1, 3)]
    cases.append(case('axis_minus_2_round_to_2', w, 7, pad_ref(w, 7, np.float32, round_to=2, axis=0),
                      axis=-2, roundTo=2))
    return cases


def summary(perm):
    perm = [int(v) for v in perm]
    out = {'n': len(perm), 'weighted': sum((i + 1) * v for i, v in enumerate(perm))}
    if len(perm) <= 100:
        out['perm'] = perm
    else:
        out['head'] = perm[:10]
        out['tail'] = perm[-10:]
    return out


def random_sampler():
    cases = []
    for n, seed in [(10, 0), (10, 42), (100, 7), (1000, 2**31 + 5), (1, 3), (0, 3)]:
        np.random.seed(seed)
        epochs = []
        for _ in range(3):
            idx = np.arange(n)
            np.random.shuffle(idx)
            epochs.append(summary(idx))
        cases.append({'n': n, 'seed': seed, 'epochs': epochs})
    return {'numpy': np.__version__, 'cases': cases}


def read_idx(path):
    with gzip.open(path, 'rb') as f:
        raw = f.read()
    ndim = raw[3]
    shape = struct.unpack('>' + 'I' * ndim, raw[4:4 + 4 * ndim])
    return np.frombuffer(raw[4 + 4 * ndim:], dtype=np.uint8).reshape(shape)


def mnist():
    out = {}
    for part in ('train', 'val'):
        img = read_idx(MNIST / f'{part}-images-idx3-ubyte.gz')
        lab = read_idx(MNIST / f'{part}-labels-idx1-ubyte.gz').astype(np.int32)
        out[part] = {
            'count': int(lab.shape[0]),
            'labels_head': lab[:20].tolist(),
            'label_sum': int(lab.sum()),
            'pixel_sum_first_5': [int(img[i].astype(np.int64).sum()) for i in range(5)],
            'pixel_sum_all': int(img.astype(np.int64).sum()),
        }
    img0 = read_idx(MNIST / 'train-images-idx3-ubyte.gz')[0].reshape(28, 28, 1)
    t = img0.transpose(2, 0, 1).astype(np.float32) / np.float32(255)
    m, s = np.float32(0.1307), np.float32(0.3081)
    n = (t - m) / s
    assert t.dtype == np.float32 and n.dtype == np.float32
    out['to_tensor_0'] = t.ravel().tolist()
    out['normalize_0'] = {'mean': 0.1307, 'std': 0.3081, 'values': n.ravel().tolist()}
    return out


def normalize3():
    x = sample((2, 3, 2, 2), 99)
    mean = [0.5, 0.25, -0.125]
    std = [0.2, 0.3, 0.7]
    m = np.array(mean, dtype=np.float32).reshape(1, 3, 1, 1)
    s = np.array(std, dtype=np.float32).reshape(1, 3, 1, 1)
    y = (x - m) / s
    assert y.dtype == np.float32
    return {'x': x.ravel().tolist(), 'shape': list(x.shape), 'mean': mean, 'std': std, 'values': y.ravel().tolist()}


def main():
    data = {
        'pad': pad_cases(),
        'random_sampler': random_sampler(),
        'mnist': mnist(),
        'normalize3': normalize3(),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(data, separators=(',', ':')) + '\n')
    print(f'wrote {OUT.relative_to(ROOT)} ({OUT.stat().st_size} bytes)')


if __name__ == '__main__':
    main()
