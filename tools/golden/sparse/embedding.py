#!/usr/bin/env python3
"""Golden data for Embedding's row_sparse gradient (sparse_grad=True) and for training an
Embedding-bag model with sparse gradients, computed by PyTorch and NumPy, never by @mx code.

1. packages/cpu-wasm/src/__golden__/sparse-embedding.json
   - backward: for index arrays of several shapes (repeats, one index used by every position, every
     row used, an empty batch; 'pair A'/'pair B' share one weight shape for accumulation tests) and
     float32/float64 output gradients, PyTorch's
     `F.embedding(idx, w, sparse=True)` backward gives a sparse COO weight gradient; `coalesce()`
     sums the repeated rows and sorts them, which is MXNet's row_sparse gradient: `indices` (the
     distinct indices, ascending) and `data` (their summed output-gradient rows). `dense` is the
     same gradient with `sparse=False` (what the dense kernel writes).
   - forward_rsp: Embedding's forward with a row_sparse weight (MXNet's FComputeEx): the weight has
     only some rows stored; looked-up rows that are not stored read as zeros (NumPy take of the
     densified weight).
2. packages/gluon/src/__golden__/sparse-embedding-train.json: an Embedding-bag model, sum over the
   bag of Embedding(V, D) rows -> Dense(D -> C) -> Gluon's L2Loss (mean over the non-batch axis of
   0.5 * (y - label)^2), trained with plain SGD (lr 0.5, no momentum, no weight decay, gradients
   rescaled by 1 / batch as Trainer.step does) for 3 steps with DENSE gradients in PyTorch
   (float64, results rounded to float32). Plain SGD without weight decay leaves rows without a
   gradient untouched, so the sparse-gradient model must reach the same weights.

Values are small integers times powers of two (exact in float32), stored as JSON numbers.
Run from anywhere with /usr/bin/python3 (NumPy and PyTorch):
    /usr/bin/python3 tools/golden/sparse/embedding.py
"""
import json
import pathlib

import numpy as np
import torch
import torch.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT_KERNEL = ROOT / 'packages/cpu-wasm/src/__golden__/sparse-embedding.json'
OUT_TRAIN = ROOT / 'packages/gluon/src/__golden__/sparse-embedding-train.json'


def as_list(a):
    return [float(v) for v in np.asarray(a, dtype=np.float64).reshape(-1)]


def small(rng, shape, dtype):
    """Small integers / 4 (exact in float32)."""
    return (rng.integers(-8, 9, size=shape) / 4.0).astype(dtype)


def backward_case(rng, name, idx, input_dim, output_dim, dtype):
    idx = np.asarray(idx, dtype=np.int64)
    ograd = small(rng, idx.shape + (output_dim,), dtype)
    tdtype = torch.float32 if dtype == 'float32' else torch.float64
    grads = {}
    for sparse in (True, False):
        w = torch.zeros((input_dim, output_dim), dtype=tdtype, requires_grad=True)
        out = F.embedding(torch.from_numpy(idx), w, sparse=sparse)
        out.backward(torch.from_numpy(ograd))
        grads[sparse] = w.grad
    g = grads[True].coalesce()
    rows = g.indices().reshape(-1).numpy()
    assert np.all(np.diff(rows) > 0), 'coalesce sorts the rows'
    return {
        'name': name,
        'dtype': dtype,
        'input_dim': input_dim,
        'output_dim': output_dim,
        'data_shape': list(idx.shape),
        'idx': [int(i) for i in idx.reshape(-1)],
        'ograd': as_list(ograd),
        'indices': [int(r) for r in rows],
        'data': as_list(g.values().numpy()),
        'dense': as_list(grads[False].numpy()),
    }


def forward_rsp_case(rng, name, idx, input_dim, output_dim, stored, dtype):
    idx = np.asarray(idx, dtype=np.int64)
    stored = sorted(stored)
    rows = small(rng, (len(stored), output_dim), dtype)
    rows[rows == 0] = 0.5  # every stored row is nonzero
    dense = np.zeros((input_dim, output_dim), dtype=dtype)
    if stored:
        dense[stored] = rows
    return {
        'name': name,
        'dtype': dtype,
        'input_dim': input_dim,
        'output_dim': output_dim,
        'data_shape': list(idx.shape),
        'idx': [int(i) for i in idx.reshape(-1)],
        'weight_indices': stored,
        'weight_data': as_list(rows),
        'out': as_list(np.take(dense, idx, axis=0)),
    }


def kernel_golden():
    rng = np.random.default_rng(15)
    backward = []
    for dtype in ('float32', 'float64'):
        backward += [
            backward_case(rng, f'1-D with repeats {dtype}', [3, 1, 3, 7, 1, 3], 8, 4, dtype),
            backward_case(rng, f'2-D batch x seq {dtype}', [[0, 5, 5], [9, 2, 0]], 10, 3, dtype),
            backward_case(rng, f'one index everywhere {dtype}', [[4, 4], [4, 4]], 6, 5, dtype),
            backward_case(rng, f'every row used {dtype}', [2, 0, 1, 3, 1], 4, 2, dtype),
            backward_case(rng, f'empty batch (nnz = 0) {dtype}', np.zeros((0,), np.int64), 5, 3, dtype),
        ]
    backward.append(backward_case(rng, 'wide rows float32', [11, 0, 11, 6], 12, 37, 'float32'))
    # Two batches over one weight (gradient accumulation and two uses in one graph).
    backward.append(backward_case(rng, 'pair A float32', [1, 4, 4, 6], 8, 3, 'float32'))
    backward.append(backward_case(rng, 'pair B float32', [[4, 0], [6, 6]], 8, 3, 'float32'))
    forward_rsp = []
    for dtype in ('float32', 'float64'):
        forward_rsp += [
            forward_rsp_case(rng, f'some rows stored {dtype}', [[1, 4, 6], [6, 0, 1]], 8, 3, [1, 2, 6], dtype),
            forward_rsp_case(rng, f'no row stored {dtype}', [3, 0], 5, 2, [], dtype),
            forward_rsp_case(rng, f'every row stored {dtype}', [2, 0, 3], 4, 4, [0, 1, 2, 3], dtype),
        ]
    return {'backward': backward, 'forward_rsp': forward_rsp}


def train_golden():
    rng = np.random.default_rng(1515)
    V, D, C, B, L, steps, lr = 16, 4, 3, 4, 3, 3, 0.5
    emb0 = small(rng, (V, D), 'float32')
    w0 = small(rng, (C, D), 'float32')
    b0 = small(rng, (C,), 'float32')
    # Batches use only some vocabulary rows (repeats inside a bag and across bags).
    batches = [rng.integers(0, V // 2 + 3 * s, size=(B, L)) for s in range(steps)]
    labels = [small(rng, (B, C), 'float32') for _ in range(steps)]
    emb = torch.tensor(emb0, dtype=torch.float64, requires_grad=True)
    w = torch.tensor(w0, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(b0, dtype=torch.float64, requires_grad=True)
    after = []
    for x, y in zip(batches, labels):
        h = F.embedding(torch.from_numpy(x), emb).sum(dim=1)
        pred = h @ w.T + b
        loss = (0.5 * (pred - torch.from_numpy(y).double()) ** 2).mean(dim=1)
        loss.sum().backward()
        rows = sorted(set(int(i) for i in x.reshape(-1)))
        with torch.no_grad():
            after.append({
                'grad_rows': rows,
                'emb_grad_rows': as_list(emb.grad.numpy()[rows].astype(np.float32)),
            })
            for p in (emb, w, b):
                p -= lr * p.grad / B
                p.grad = None
        after[-1].update({
            'embedding': as_list(emb.detach().numpy().astype(np.float32)),
            'dense_weight': as_list(w.detach().numpy().astype(np.float32)),
            'dense_bias': as_list(b.detach().numpy().astype(np.float32)),
        })
    return {
        'vocab': V,
        'dim': D,
        'classes': C,
        'batch': B,
        'bag': L,
        'lr': lr,
        'embedding0': as_list(emb0),
        'dense_weight0': as_list(w0),
        'dense_bias0': as_list(b0),
        'batches': [[int(i) for i in x.reshape(-1)] for x in batches],
        'labels': [as_list(y) for y in labels],
        'steps': after,
    }


def main():
    for path, value in ((OUT_KERNEL, kernel_golden()), (OUT_TRAIN, train_golden())):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value, indent=1) + '\n')
        print('wrote', path)


if __name__ == '__main__':
    main()
