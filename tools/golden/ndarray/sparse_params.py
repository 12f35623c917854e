#!/usr/bin/env python3
"""Golden MXNet list files holding sparse records, for packages/ndarray/src/io/mxnet-sparse.test.ts.

The bytes are written here by transcribing MXNet's own writer (src/ndarray/ndarray.cc,
`NDArray::Save` for one record, the list `NDArray::Save` for the file), not by @mx code:

  list:   u64 0x112, u64 0, u64 N, N records, u64 K, K x (u64 length + UTF-8 name)
  record: u32 0xF993FAC9 (V2), i32 stype (0 default, 1 row_sparse, 2 csr),
          [sparse: storage shape], shape, i32 dev_type, i32 dev_id, i32 dtype flag,
          [sparse: per aux array i32 type flag + shape; csr aux = (indptr, indices),
           row_sparse aux = (indices,)], the data (storage shape for sparse), each aux's bytes.
  shape:  i32 ndim + ndim x i64 (mxnet::TShape::Save).

The values come from SciPy (CSR) and NumPy (row_sparse: the stored rows and their indices); the
expected dense arrays are SciPy's `toarray()` / a NumPy scatter. Values are small multiples of
1/4, exact in float32. Also writes malformed files (each with the rule it breaks), built with the
same transcription. Output: packages/ndarray/src/__golden__/sparse-params.json (files as base64).
Run with /usr/bin/python3 (NumPy, SciPy):  python3 tools/golden/ndarray/sparse_params.py
"""
import base64
import json
import pathlib
import struct

import numpy as np
import scipy.sparse as sp

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / 'packages/ndarray/src/__golden__/sparse-params.json'

V2_MAGIC = 0xF993FAC9
LIST_MAGIC = 0x112
FLAGS = {'float32': 0, 'float64': 1, 'int32': 4, 'int64': 6}
STYPES = {'default': 0, 'row_sparse': 1, 'csr': 2}
CPU = (1, 0)


def tshape(shape):
    return struct.pack('<i', len(shape)) + b''.join(struct.pack('<q', int(d)) for d in shape)


def record(stype, shape, dtype, data, aux=(), storage_shape=None, ctx=CPU, stype_flag=None):
    """One V2 record. aux: [(dtype name, ndarray)] in MXNet's aux order."""
    out = struct.pack('<I', V2_MAGIC)
    out += struct.pack('<i', STYPES[stype] if stype_flag is None else stype_flag)
    if stype != 'default':
        out += tshape(storage_shape if storage_shape is not None else data.shape)
    out += tshape(shape)
    out += struct.pack('<ii', *ctx)
    out += struct.pack('<i', FLAGS[dtype])
    for adt, a in aux:
        out += struct.pack('<i', FLAGS[adt]) + tshape(a.shape)
    out += np.ascontiguousarray(data, dtype=dtype).tobytes()
    for adt, a in aux:
        out += np.ascontiguousarray(a, dtype=adt).tobytes()
    return out


def list_file(records, names=None):
    out = struct.pack('<QQ', LIST_MAGIC, 0) + struct.pack('<Q', len(records)) + b''.join(records)
    names = names or []
    out += struct.pack('<Q', len(names))
    for n in names:
        b = n.encode('utf-8')
        out += struct.pack('<Q', len(b)) + b
    return out


def values(rng, n, dtype):
    return (rng.integers(-40, 40, size=n) / 4).astype(dtype)


def csr_case(rng, shape, density, dtype, aux_dtype='int64'):
    m = sp.random(shape[0], shape[1], density=density, format='csr', random_state=rng, dtype=np.float64)
    m.data = values(rng, m.nnz, np.float64)
    m.data[m.data == 0] = 0.5
    m = m.astype(dtype)
    m.sort_indices()
    rec = record('csr', shape, dtype, m.data,
                 aux=[(aux_dtype, m.indptr.astype(aux_dtype)), (aux_dtype, m.indices.astype(aux_dtype))])
    exp = {'stype': 'csr', 'shape': list(shape), 'storageShape': [int(m.nnz)], 'dtype': dtype,
           'auxDtypes': [aux_dtype, aux_dtype], 'data': m.data.tolist(), 'indptr': m.indptr.tolist(),
           'indices': m.indices.tolist(), 'dense': m.toarray().ravel().tolist()}
    return rec, exp


def rsp_case(rng, shape, rows, dtype, aux_dtype='int64'):
    idx = np.array(sorted(rows), dtype=np.int64)
    stored = values(rng, len(idx) * int(np.prod(shape[1:])), dtype).reshape((len(idx),) + tuple(shape[1:]))
    dense = np.zeros(shape, dtype=dtype)
    dense[idx] = stored
    rec = record('row_sparse', shape, dtype, stored, aux=[(aux_dtype, idx.astype(aux_dtype))])
    exp = {'stype': 'row_sparse', 'shape': list(shape), 'storageShape': list(stored.shape), 'dtype': dtype,
           'auxDtypes': [aux_dtype], 'data': stored.ravel().tolist(), 'indices': idx.tolist(),
           'dense': dense.ravel().tolist()}
    return rec, exp


def dense_case(rng, shape, dtype):
    a = values(rng, int(np.prod(shape)), dtype).reshape(shape)
    return record('default', shape, dtype, a), {'stype': 'default', 'shape': list(shape), 'dtype': dtype,
                                                 'dense': a.ravel().tolist()}


def b64(b):
    return base64.b64encode(b).decode('ascii')


def main():
    rng = np.random.default_rng(20240611)
    files = []

    def add(name, cases, names=None):
        recs = [c[0] for c in cases]
        files.append({'name': name, 'names': names, 'records': [c[1] for c in cases],
                      'bytes': b64(list_file(recs, names))})

    add('csr_float32', [csr_case(rng, (4, 6), 0.4, 'float32')])
    add('csr_nnz0', [csr_case(rng, (3, 5), 0.0, 'float32')])
    add('csr_float64_named', [csr_case(rng, (5, 3), 0.5, 'float64')], ['weight'])
    add('csr_int32_aux', [csr_case(rng, (3, 4), 0.5, 'float32', aux_dtype='int32')])
    add('rsp_2d', [rsp_case(rng, (6, 3), [1, 4], 'float32')])
    add('rsp_3d_float64', [rsp_case(rng, (5, 2, 3), [0, 2, 4], 'float64')])
    add('rsp_empty', [rsp_case(rng, (4, 2), [], 'float32')])
    mixed = [dense_case(rng, (2, 3), 'float32'), csr_case(rng, (3, 4), 0.5, 'float32'),
             rsp_case(rng, (4, 2), [3], 'float64'), dense_case(rng, (4,), 'int64')]
    add('mixed_named', mixed, ['fc_weight', 'embed_csr', 'embed_rsp', 'steps'])
    add('mixed_list', mixed)

    # Malformed files: each breaks one rule; `rule` is text the error must contain.
    bad = []
    data = np.array([1.0, 2.0], dtype=np.float32)
    i64 = lambda *v: np.array(v, dtype=np.int64)  # noqa: E731
    bad.append({'name': 'csr_indices_not_nnz', 'rule': 'indices has nnz = 2',
                'bytes': b64(list_file([record('csr', (2, 3), 'float32', data,
                                               aux=[('int64', i64(0, 1, 2)), ('int64', i64(0, 2, 1))])]))})
    bad.append({'name': 'csr_indptr_not_rows', 'rule': 'indptr has rows + 1 = 3',
                'bytes': b64(list_file([record('csr', (2, 3), 'float32', data,
                                               aux=[('int64', i64(0, 2)), ('int64', i64(0, 2))])]))})
    bad.append({'name': 'csr_indptr_last', 'rule': 'the last entry must equal nnz = 2',
                'bytes': b64(list_file([record('csr', (2, 3), 'float32', data,
                                               aux=[('int64', i64(0, 1, 1)), ('int64', i64(0, 2))])]))})
    bad.append({'name': 'rsp_indices_not_rows', 'rule': 'indices has k = 1',
                'bytes': b64(list_file([record('row_sparse', (4, 2), 'float32', data.reshape(1, 2),
                                               aux=[('int64', i64(0, 3))])]))})
    bad.append({'name': 'unknown_stype', 'rule': 'storage type 3',
                'bytes': b64(list_file([record('csr', (2, 3), 'float32', data, stype_flag=3,
                                               aux=[('int64', i64(0, 1, 2)), ('int64', i64(0, 2))])]))})
    full = list_file([record('csr', (2, 3), 'float32', data, aux=[('int64', i64(0, 1, 2)), ('int64', i64(0, 2))])],
                     ['w'])
    # Cut inside the indices (aux 1): drop the names (8 + 8 + 1 bytes) and 4 bytes of the last index.
    bad.append({'name': 'truncated_aux', 'rule': 'aux 1 int64 data', 'bytes': b64(full[:len(full) - 17 - 4])})
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({'files': files, 'bad': bad}, indent=1) + '\n')
    print(f'wrote {OUT}')


if __name__ == '__main__':
    main()
