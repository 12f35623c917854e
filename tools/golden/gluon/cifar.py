#!/usr/bin/env python3
"""Tiny CIFAR-10 / CIFAR-100 binary files and what gluon.data.vision.CIFAR10/CIFAR100 must read from them.

The files follow the format of the official binary archives (cifar-10-binary.tar.gz,
cifar-100-binary.tar.gz): fixed-size records, CIFAR-10 = 1 label byte + 3072 pixel bytes,
CIFAR-100 = coarse label byte + fine label byte + 3072 pixel bytes; the pixels are three 32x32
planes R, G, B, each row-major. Only a handful of records per file, so the fixtures stay small:

- cifar10/data_batch_1.bin .. data_batch_5.bin: 2, 1, 1, 1, 2 records (train: 7 in file order),
  cifar10/test_batch.bin: 3 records;
- cifar100/train.bin: 4 records, cifar100/test.bin: 2 records.

Pixels: record 0 of each file is a structured pattern (R = 8*row, G = 8*col, B = row + col + 100,
20 * the file's number in the
lists below, so a swapped axis, plane or file shows at once); the others are uniform random bytes from a seeded
RandomState. Labels are random in range (coarse 0..19, fine 0..99 for CIFAR-100).

The expected samples are computed the way MXNet's CIFAR10._read_batch does, with NumPy:
frombuffer -> reshape(-1, 3073) (3074 for CIFAR-100) -> pixels reshape(-1, 3, 32, 32)
.transpose(0, 2, 3, 1) (HWC), labels column 0 (CIFAR-100: column 0 + fine_label) as int32,
files concatenated in MXNet's order. Each image is stored as its HWC bytes in base64.
`to_tensor_test` is ToTensor of the CIFAR-10 test images (CHW float32, x / 255 in float32), as
the little-endian float32 bytes in base64.

Writes packages/gluon/src/__fixtures__/cifar/** and packages/gluon/src/__golden__/cifar.json
(a rerun reproduces both exactly). Run from anywhere with the system Python (NumPy):
    /usr/bin/python3 tools/golden/gluon/cifar.py
"""
import base64
import json
import pathlib

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[3]
FIXTURES = ROOT / 'packages/gluon/src/__fixtures__/cifar'
OUT = ROOT / 'packages/gluon/src/__golden__/cifar.json'

CIFAR10_TRAIN = [('data_batch_1.bin', 2), ('data_batch_2.bin', 1), ('data_batch_3.bin', 1),
                 ('data_batch_4.bin', 1), ('data_batch_5.bin', 2)]
CIFAR10_TEST = [('test_batch.bin', 3)]
CIFAR100_TRAIN = [('train.bin', 4)]
CIFAR100_TEST = [('test.bin', 2)]


def planes(rng, structured, file_no):
    """(3, 32, 32) uint8 planes R, G, B."""
    if structured:
        row = np.arange(32).reshape(32, 1)
        col = np.arange(32).reshape(1, 32)
        r = np.broadcast_to(8 * row, (32, 32))
        g = np.broadcast_to(8 * col, (32, 32))
        b = row + col + 20 * file_no
        return np.stack([r, g, b]).astype(np.uint8)
    return rng.randint(0, 256, size=(3, 32, 32)).astype(np.uint8)


def write_file(path, count, label_bytes, rng, file_no):
    records = []
    for k in range(count):
        if label_bytes == 1:
            labels = [rng.randint(0, 10)]
        else:
            labels = [rng.randint(0, 20), rng.randint(0, 100)]
        records.append(bytes(labels) + planes(rng, k == 0, file_no).tobytes())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b''.join(records))


def read_batch(path, label_bytes, label_col):
    """MXNet's _read_batch, restated with NumPy."""
    data = np.frombuffer(path.read_bytes(), dtype=np.uint8).reshape(-1, 3072 + label_bytes)
    images = data[:, label_bytes:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
    return images, data[:, label_col].astype(np.int32)


def b64(array):
    return base64.b64encode(np.ascontiguousarray(array).tobytes()).decode('ascii')


def expected(folder, files, label_bytes, label_cols):
    """Images (HWC bytes in base64) and one label list per label column."""
    out = {}
    for key, col in label_cols.items():
        parts = [read_batch(FIXTURES / folder / name, label_bytes, col) for name, _ in files]
        images = np.concatenate([p[0] for p in parts])
        assert images.shape[1:] == (32, 32, 3) and images.dtype == np.uint8
        out['count'] = int(images.shape[0])
        out['images_b64'] = [b64(img) for img in images]
        out[key] = np.concatenate([p[1] for p in parts]).tolist()
    return out


def main():
    rng = np.random.RandomState(2024)
    for folder, files, label_bytes in (('cifar10', CIFAR10_TRAIN + CIFAR10_TEST, 1),
                                       ('cifar100', CIFAR100_TRAIN + CIFAR100_TEST, 2)):
        for file_no, (name, count) in enumerate(files):
            write_file(FIXTURES / folder / name, count, label_bytes, rng, file_no)

    test10 = expected('cifar10', CIFAR10_TEST, 1, {'labels': 0})
    test_images = np.stack([np.frombuffer(base64.b64decode(h), dtype=np.uint8).reshape(32, 32, 3)
                            for h in test10['images_b64']])
    to_tensor = test_images.transpose(0, 3, 1, 2).astype(np.float32) / np.float32(255)
    assert to_tensor.dtype == np.float32

    data = {
        'numpy': np.__version__,
        'record_bytes': {'cifar10': 3073, 'cifar100': 3074},
        'files': {
            'cifar10': {'train': [n for n, _ in CIFAR10_TRAIN], 'test': [n for n, _ in CIFAR10_TEST]},
            'cifar100': {'train': [n for n, _ in CIFAR100_TRAIN], 'test': [n for n, _ in CIFAR100_TEST]},
        },
        'cifar10': {
            'train': expected('cifar10', CIFAR10_TRAIN, 1, {'labels': 0}),
            'test': test10,
        },
        'cifar100': {
            'train': expected('cifar100', CIFAR100_TRAIN, 2, {'coarse': 0, 'fine': 1}),
            'test': expected('cifar100', CIFAR100_TEST, 2, {'coarse': 0, 'fine': 1}),
        },
        'to_tensor_test': {
            'shape': list(to_tensor.shape),
            'f32le_b64': b64(to_tensor.astype('<f4')),
        },
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(data, separators=(',', ':')) + '\n')
    print(f'wrote {FIXTURES.relative_to(ROOT)}/ and {OUT.relative_to(ROOT)} ({OUT.stat().st_size} bytes)')


if __name__ == '__main__':
    main()
