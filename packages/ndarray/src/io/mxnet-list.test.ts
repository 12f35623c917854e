/**
 * MXNet list files and raw records: MXNet's own fixtures and examples byte for byte, every record
 * version, np-shape/legacy mixing, sparse records and the error messages.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadAny } from './index.js';
import { loadMXNetList, saveMXNetList } from './mxnet-list.js';
import { loadMXNetRecord, saveMXNetRecord } from './mxnet-record.js';
import { DTYPE_NAMES, expectMXNetError, hex, plain, sample, toHex } from './test-util.js';
import type { HostArray } from './types.js';

const fixture = (name: string): Uint8Array =>
  new Uint8Array(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url)));

const GPU_RECORD = hex('c9fa93f9 00000000 01000000 0100000000000000 02000000 00000000 00000000 00000000');
const ND_SAVE_81 = hex(
  '1201000000000000 0000000000000000 0100000000000000' +
    'c9fa93f9 00000000 01000000 0200000000000000 01000000 00000000 00000000 0000803f 00000040' +
    '0100000000000000 0100000000000000 77',
);

describe('MXNet fixtures (catalog §12)', () => {
  it('legacy_ndarray.v0 loads as 6 arrays equal to arange(128)', () => {
    const bytes = fixture('legacy_ndarray.v0');
    expect(bytes.length).toBe(3224);
    for (const npShape of [false, 'global'] as const) {
      const { arrays, names } = loadMXNetList(bytes, { npShape, source: 'legacy_ndarray.v0' });
      expect(names).toBeNull();
      expect(arrays).toHaveLength(6);
      for (const a of arrays) {
        expect(a.shape).toEqual([128]);
        expect(a.dtype).toBe('float32');
        expect(a.ctx).toEqual({ devType: 1, devId: 0 });
        expect(Array.from(a.data as Float32Array)).toEqual(Array.from({ length: 128 }, (_, i) => i));
      }
    }
    expect(loadAny(bytes, 'legacy_ndarray.v0', { npShape: false }).arrays).toHaveLength(6);
  });

  it('legacy_ndarray.v0 under np-shape (thread-local) raises, like MXNet', () => {
    expectMXNetError(
      () => loadMXNetList(fixture('legacy_ndarray.v0'), { source: 'legacy_ndarray.v0' }),
      'legacy_ndarray.v0',
      'record 0',
      'not saved in np shape semantics',
    );
  });

  it('the 36-byte GPU V2 record loads onto the CPU and keeps its device', () => {
    expect(GPU_RECORD.length).toBe(36);
    const a = loadMXNetRecord(GPU_RECORD, { npShape: false });
    expect(plain(a)).toEqual({ shape: [1], dtype: 'float32', data: [0], none: false });
    expect(a.ctx).toEqual({ devType: 2, devId: 0 });
    expect(toHex(saveMXNetRecord(a, { npShape: false }))).toBe(toHex(GPU_RECORD));
    expectMXNetError(() => loadMXNetRecord(GPU_RECORD), 'not saved in np shape semantics');
  });

  it("nd.save(f, {'w': float32 [1,2]}) gives the 81 documented bytes", () => {
    const w: HostArray = { shape: [2], dtype: 'float32', data: Float32Array.of(1, 2) };
    const bytes = saveMXNetList({ w }, { npShape: false });
    expect(bytes.length).toBe(81);
    expect(toHex(bytes)).toBe(toHex(ND_SAVE_81));
    const back = loadMXNetList(ND_SAVE_81, { npShape: false });
    expect(back.names).toEqual(['w']);
    expect(plain(back.arrays[0] as HostArray)).toEqual({
      shape: [2],
      dtype: 'float32',
      data: [1, 2],
      none: false,
    });
  });
});

describe('shapes (test_save_load_scalar_zero_size_ndarrays)', () => {
  const LEGACY = [[2, 0, 1], [0], [0, 4], [3, 0, 0, 0], [2, 1], [0, 5, 0]];
  const NP = [...LEGACY, [], [4, 5, 6], [0, 0, 0]];

  it('legacy -> legacy round-trips zero-size shapes (V2)', () => {
    const arrays = LEGACY.map((s, i) => sample('float32', s, i));
    const bytes = saveMXNetList(arrays, { npShape: false });
    const back = loadMXNetList(bytes, { npShape: false });
    expect(back.arrays.map(plain)).toEqual(arrays.map(plain));
  });

  it('np -> np round-trips scalars and zero-size shapes (V3)', () => {
    const arrays = NP.map((s, i) => sample('float64', s, i));
    const bytes = saveMXNetList(arrays);
    expect(new DataView(bytes.buffer).getUint32(24, true)).toBe(0xf993faca);
    const back = loadMXNetList(bytes);
    expect(back.arrays.map(plain)).toEqual(arrays.map(plain));
    expect(loadMXNetList(bytes, { npShape: 'global' }).arrays.map(plain)).toEqual(arrays.map(plain));
  });

  it('mixing np-shape and legacy between save and load raises', () => {
    const legacy = saveMXNetList([sample('float32', [2, 1])], { npShape: false });
    const np = saveMXNetList([sample('float32', [2, 1])], { npShape: true });
    expectMXNetError(
      () => loadMXNetList(legacy, { npShape: true }),
      'not saved in np shape semantics',
      'record 0',
    );
    expectMXNetError(() => loadMXNetList(np, { npShape: false }), 'saved in np shape semantics', 'record 0');
    // GlobalOn skips the legacy check, as MXNet.
    expect(loadMXNetList(legacy, { npShape: 'global' }).arrays[0]?.shape).toEqual([2, 1]);
  });

  it('V2 refuses zero-dim arrays (use npShape: true); no writer stores "none"', () => {
    expectMXNetError(
      () => saveMXNetList([sample('float32', [])], { npShape: false }),
      'zero-dimensional',
      'array 0',
      'npShape: true',
    );
    const none: HostArray = { shape: [], dtype: 'float32', data: new Float32Array(0), none: true };
    expectMXNetError(() => saveMXNetList({ g: none }), 'none', 'array "g"', 'cannot be saved');
    expectMXNetError(() => saveMXNetList([none], { npShape: false }), 'none', 'array 0');
  });

  it('a legacy "none" record (V2 ndim 0) loads as the explicit none value; stype -1 is refused', () => {
    // V2, stype 0, ndim 0: MXNet's NDArray::Load returns NDArray() (none) without np semantics.
    const list = (rec: string) =>
      hex(`1201000000000000 0000000000000000 0100000000000000 ${rec} 0000000000000000`);
    const none = loadMXNetList(list('c9fa93f9 00000000 00000000'), { npShape: false }).arrays[0];
    expect(none).toEqual({ shape: [], dtype: 'float32', data: new Float32Array(0), none: true });
    // Under np semantics (GlobalOn) MXNet reads ndim 0 as a scalar: ctx, dtype and one element.
    const scalar = loadMXNetList(list('c9fa93f9 00000000 00000000 01000000 00000000 00000000 0000c03f'), {
      npShape: 'global',
    }).arrays[0] as HostArray;
    expect(plain(scalar)).toEqual({ shape: [], dtype: 'float32', data: [1.5], none: false });
    // stype -1 (kUndefinedStorage): MXNet's num_aux_data fails on it; so do we, with the offset.
    expectMXNetError(
      () => loadMXNetList(list('c9fa93f9 ffffffff 00000000'), { npShape: false, source: 'g.params' }),
      'g.params',
      'storage type -1',
      'record 0',
      'offset 28',
    );
  });

  it('V3 ndim -1 or a dim of -1 is "none"', () => {
    const rec = (dims: string) =>
      hex(`1201000000000000 0000000000000000 0100000000000000 cafa93f9 00000000 ${dims} 0000000000000000`);
    expect(loadMXNetList(rec('ffffffff')).arrays[0]?.none).toBe(true);
    expect(loadMXNetList(rec('02000000 0300000000000000 ffffffffffffffff')).arrays[0]?.none).toBe(true);
    expectMXNetError(() => loadMXNetList(rec('01000000 feffffffffffffff')), 'shape dim 0 is -2', 'record 0');
  });
});

describe('dtypes, names, versions', () => {
  it.each(DTYPE_NAMES)('%s round-trips through V2 and V3 with names', (dtype) => {
    const arrays = { 'arg:w': sample(dtype, [2, 3]), 'aux:β': sample(dtype, [4], 5), s: sample(dtype, [1]) };
    for (const npShape of [true, false]) {
      const back = loadMXNetList(saveMXNetList(arrays, { npShape }), { npShape });
      expect(back.names).toEqual(['arg:w', 'aux:β', 's']);
      expect(back.arrays.map(plain)).toEqual(Object.values(arrays).map(plain));
      expect(back.arrays[0]?.data).toBeInstanceOf(sample(dtype, [1]).data.constructor);
    }
  });

  it('a Map keeps integer-like names in insertion order', () => {
    const m = new Map([
      ['1', sample('int8', [1])],
      ['0', sample('int8', [2])],
    ]);
    expect(loadMXNetList(saveMXNetList(m)).names).toEqual(['1', '0']);
  });

  it('reads V1 records (i64 TShape, no storage type)', () => {
    const v1 = hex(
      '1201000000000000 0000000000000000 0200000000000000' +
        'c8fa93f9 02000000 0100000000000000 0200000000000000 01000000 00000000 04000000 07000000 f9ffffff' +
        'c8fa93f9 00000000' + // ndim 0: none
        '0000000000000000',
    );
    const { arrays } = loadMXNetList(v1, { npShape: false });
    expect(plain(arrays[0] as HostArray)).toEqual({
      shape: [1, 2],
      dtype: 'int32',
      data: [7, -7],
      none: false,
    });
    expect(arrays[1]?.none).toBe(true);
  });

  it('an empty list and a list of one GPU array keep their devices', () => {
    expect(loadMXNetList(saveMXNetList([]))).toEqual({ arrays: [], names: null });
    const g: HostArray = { ...sample('float32', [2]), ctx: { devType: 2, devId: 3 } };
    expect(loadMXNetList(saveMXNetList([g])).arrays[0]?.ctx).toEqual({ devType: 2, devId: 3 });
  });

  it('refuses malformed arrays on save', () => {
    expectMXNetError(
      () => saveMXNetList([{ shape: [3], dtype: 'float32', data: new Float32Array(2) }]),
      'array 0',
    );
    expectMXNetError(
      () => saveMXNetList([{ shape: [2], dtype: 'int64', data: new Int32Array(2) }]),
      'BigInt64Array',
    );
    expectMXNetError(
      () => saveMXNetList([{ shape: [-1], dtype: 'float32', data: new Float32Array(0) }]),
      'shape',
    );
  });
});

describe('sparse records (refused unless sparse: true)', () => {
  // CSR (2,3) with 2 values: storage shape (2,), aux indptr int64 (3,), indices int64 (2,).
  const csr =
    'c9fa93f9 02000000 01000000 0200000000000000' + // V2, csr, storage shape (2,)
    '02000000 0200000000000000 0300000000000000' + // shape (2,3)
    '01000000 00000000 00000000' + // cpu(0), float32
    '06000000 01000000 0300000000000000' + // aux0 int64 (3,)
    '06000000 01000000 0200000000000000' + // aux1 int64 (2,)
    '0000803f 00000040' + // values
    '0000000000000000 0100000000000000 0200000000000000' + // indptr
    '0000000000000000 0200000000000000'; // indices
  const list = (rec: string) =>
    hex(`1201000000000000 0000000000000000 0100000000000000 ${rec} 0000000000000000`);

  it('a CSR record is read to its end and reported as unsupported', () => {
    expectMXNetError(
      () => loadMXNetList(list(csr), { npShape: false, source: 'sp.params' }),
      'sp.params',
      'reads dense arrays only',
      'csr',
      '(2, 3)',
      'record 0',
    );
  });

  it('a truncated CSR record is a truncation error in the aux data', () => {
    const full = list(csr);
    expectMXNetError(
      () => loadMXNetList(full.subarray(0, full.length - 8 - 4), { npShape: false }),
      'truncated',
      'aux 1 int64 data',
    );
  });

  it('a row_sparse record is refused, and sparse under np-shape is refused early', () => {
    const rsp =
      'c9fa93f9 01000000 02000000 0100000000000000 0200000000000000' + // rsp, storage (1,2)
      '02000000 0400000000000000 0200000000000000 01000000 00000000 00000000' + // shape (4,2), cpu, f32
      '06000000 01000000 0100000000000000' + // aux0 int64 (1,)
      '0000803f 00000040 0300000000000000';
    expectMXNetError(() => loadMXNetList(list(rsp), { npShape: false }), 'row_sparse', 'dense arrays only');
    const got = loadMXNetList(list(rsp), { npShape: false, sparse: true }).arrays[0];
    expect(got).toMatchObject({ stype: 'row_sparse', shape: [4, 2], storageShape: [1, 2] });
    expectMXNetError(
      () => loadMXNetList(list(rsp), { npShape: 'global', sparse: true }),
      'row_sparse',
      'np shape',
    );
  });
});

describe('errors name the file, the record and the offset', () => {
  const bytes = saveMXNetList([sample('float32', [4]), sample('float32', [128])], { npShape: false });

  it('truncated data', () => {
    expectMXNetError(
      () => loadMXNetList(bytes.subarray(0, 120), { npShape: false, source: 'model.params' }),
      'model.params: truncated: record 1 needs 512 bytes of float32 data for shape (128,) at offset 104, file has 120',
    );
  });

  it('bad magic, bad dtype flag, impossible counts, bad name counts', () => {
    expectMXNetError(
      () => loadMXNetList(hex('1301000000000000'), { source: 'x' }),
      'x: corrupted',
      'expected 0x112',
    );
    const badFlag = bytes.slice();
    new DataView(badFlag.buffer).setInt32(24 + 4 + 4 + 4 + 8 + 8, 99, true);
    expectMXNetError(
      () => loadMXNetList(badFlag, { npShape: false }),
      'unknown dtype flag 99',
      'record 0',
      'offset 52',
    );
    const bigCount = bytes.slice();
    new DataView(bigCount.buffer).setUint32(16, 1e9, true);
    expectMXNetError(() => loadMXNetList(bigCount, { npShape: false }), 'array count 1000000000');
    const badK = bytes.slice();
    new DataView(badK.buffer).setUint32(badK.length - 8, 1, true);
    expectMXNetError(() => loadMXNetList(badK, { npShape: false }), '1 names for 2 arrays');
    expectMXNetError(
      () => loadMXNetList(hex('1201000000000000 0000000000000000 0100000000000000 ffffff7f')),
      'unknown record magic',
    );
  });
});
