/**
 * `.npy`/`.npz` without NumPy: MXNet's exact header bytes, every dtype, Fortran order, big-endian
 * data, versions 2.0/3.0, the Python-literal header parser, ZIP details and loadAny's dispatch.
 */
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ByteWriter } from './bytes.js';
import { detectArrayFileFormat, loadAny } from './index.js';
import { saveMXNetList } from './mxnet-list.js';
import { fortranToC, loadNpy, saveNpy } from './npy.js';
import { loadNpz, saveNpz } from './npz.js';
import { parsePyLiteral } from './py-literal.js';
import { DTYPE_NAMES, deflatedZip, expectMXNetError, plain, sample } from './test-util.js';
import type { HostArray } from './types.js';
import { crc32, readZip, writeZip } from './zip.js';

/** A hand-made npy file: version, header text (unpadded) and body bytes. */
function npyFile(header: string, body: Uint8Array, major = 1): Uint8Array {
  const pre = major === 1 ? 10 : 12;
  const h = `${header}${' '.repeat(63 - ((pre + header.length) % 64))}\n`;
  const out = new Uint8Array(pre + h.length + body.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, major, 0]);
  const v = new DataView(out.buffer);
  if (major === 1) v.setUint16(8, h.length, true);
  else v.setUint32(8, h.length, true);
  out.set(new TextEncoder().encode(h), pre);
  out.set(body, pre + h.length);
  return out;
}

const text = (b: Uint8Array, from: number, to: number) => String.fromCharCode(...b.subarray(from, to));

describe('npy writer (MXNet create_npy_header)', () => {
  it('writes the exact MXNet header, padded to 64 bytes', () => {
    const b = saveNpy(sample('float32', [2, 3]));
    expect(b.length).toBe(128 + 24);
    expect(Array.from(b.subarray(0, 8))).toEqual([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
    expect(new DataView(b.buffer).getUint16(8, true)).toBe(118);
    const dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    expect(text(b, 10, 128)).toBe(`${dict}${' '.repeat(118 - dict.length - 1)}\n`);
    expect(text(saveNpy(sample('int8', [5])), 10, 128)).toContain(
      "{'descr': '|i1', 'fortran_order': False, 'shape': (5,), }",
    );
    expect(text(saveNpy(sample('bool', [])), 10, 128)).toContain(
      "{'descr': '|b1', 'fortran_order': False, 'shape': (), }",
    );
    expect(text(saveNpy(sample('bfloat16', [1])), 10, 128)).toContain("'descr': [('bfloat16', '<u2')],");
  });

  it('pads as MXNet for every header length, a full 64 bytes when already aligned', () => {
    let aligned = 0;
    for (let k = 0; k < 70; k++) {
      const shape = Array<number>(k).fill(1);
      const dims = shape.join(', ') + (k === 1 ? ',' : '');
      const dict = `{'descr': '<f4', 'fortran_order': False, 'shape': (${dims}), }`;
      const pad = 64 - ((10 + dict.length + 1) % 64);
      if (pad === 64) aligned++;
      const b = saveNpy(sample('float32', shape));
      expect(new DataView(b.buffer).getUint16(8, true)).toBe(dict.length + pad + 1);
      expect(text(b, 10, 10 + dict.length)).toBe(dict);
    }
    expect(aligned).toBeGreaterThan(0);
  });

  it.each(DTYPE_NAMES)('%s round-trips (shapes (), (0,), (2,0,1), (4,5,6))', (dtype) => {
    for (const shape of [[], [0], [2, 0, 1], [4, 5, 6]]) {
      const a = sample(dtype, shape);
      expect(plain(loadNpy(saveNpy(a)))).toEqual(plain(a));
    }
  });
});

describe('npy reader', () => {
  it('transposes Fortran-order data into row-major order', () => {
    // numpy.arange(6).reshape(2, 3) stored column-major: 0 3 1 4 2 5.
    const body = new Uint8Array(Int32Array.of(0, 3, 1, 4, 2, 5).buffer);
    const a = loadNpy(npyFile("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", body));
    expect(plain(a)).toEqual({ shape: [2, 3], dtype: 'int32', data: [0, 1, 2, 3, 4, 5], none: false });
    const cube = Array.from({ length: 24 }, (_, i) => i);
    const f = fortranToC(new Uint8Array(cube), [2, 3, 4], 1);
    // C index (i,j,k) = 12i+4j+k holds F offset i + 2j + 6k.
    expect(f[12 * 1 + 4 * 2 + 3]).toBe(1 + 2 * 2 + 6 * 3);
  });

  it('byte-swaps big-endian data and reads versions 2.0 and 3.0', () => {
    const be = new Uint8Array([0x3f, 0x80, 0, 0, 0xc0, 0, 0, 0]);
    const a = loadNpy(npyFile("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", be));
    expect(plain(a).data).toEqual([1, -2]);
    const body = new Uint8Array(Float64Array.of(0.5).buffer);
    for (const major of [2, 3]) {
      const b = loadNpy(npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", body, major));
      expect(plain(b).data).toEqual([0.5]);
    }
  });

  it('accepts headers written by other tools (spacing, key order, L suffixes)', () => {
    const body = new Uint8Array(2);
    const a = loadNpy(npyFile("{ 'shape':(1L,2L) ,\"fortran_order\":False,'descr':'|u1' }", body));
    expect(a.shape).toEqual([1, 2]);
    expect(a.dtype).toBe('uint8');
  });

  it('rejects what MXNet cannot hold, with the file name', () => {
    const body = new Uint8Array(16);
    const bad = (h: string) => () => loadNpy(npyFile(h, body), 'x.npy');
    expectMXNetError(
      bad("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }"),
      'x.npy',
      "unsupported dtype descr '<c8'",
    );
    expectMXNetError(
      bad("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }"),
      'unsupported dtype descr',
    );
    expectMXNetError(bad("{'descr': '<f4', 'shape': (1,), }"), "'fortran_order'");
    expectMXNetError(bad("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }"), 'integers >= 0');
    expectMXNetError(bad("{'descr': '<f4', 'fortran_order': False, 'shape': (1,) "), 'bad header');
    expectMXNetError(
      bad("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }"),
      'truncated',
      'needs 24 bytes',
    );
    expectMXNetError(
      () => loadNpy(new Uint8Array([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 9, 0, 0, 0])),
      'version 9',
    );
  });

  it('parses the Python literal subset', () => {
    expect(parsePyLiteral('(3,)')).toEqual({ kind: 'tuple', items: [{ kind: 'int', value: 3 }] });
    expect(parsePyLiteral('(3)')).toEqual({ kind: 'int', value: 3 });
    expect(parsePyLiteral('()')).toEqual({ kind: 'tuple', items: [] });
    expect(parsePyLiteral("'a\\'b'")).toEqual({ kind: 'str', value: "a'b" });
    expect(() => parsePyLiteral('{1: 2}')).toThrow('dict keys');
    expect(() => parsePyLiteral('[1, 2')).toThrow();
  });
});

describe('zip and npz', () => {
  it('computes CRC-32 like zlib', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
  });

  it('round-trips lists (arr_0, arr_1, ...) and dicts, keeping order', () => {
    const list = [sample('float32', [2, 2]), sample('int64', []), sample('bool', [0, 3])];
    const l = loadNpz(saveNpz(list));
    expect(l.names).toEqual(['arr_0', 'arr_1', 'arr_2']);
    expect(l.arrays.map(plain)).toEqual(list.map(plain));
    const dict = { 'net.0.weight': sample('float16', [3]), ü: sample('uint8', [2]) };
    const d = loadNpz(saveNpz(dict));
    expect(d.names).toEqual(['net.0.weight', 'ü']);
    expect(d.arrays.map(plain)).toEqual(Object.values(dict).map(plain));
    expect(loadNpz(saveNpz([]))).toEqual({ arrays: [], names: [] });
  });

  it('verifies CRC-32 on read', () => {
    const b = saveNpz({ a: sample('float32', [4]) });
    const at = 30 + 'a.npy'.length + 64 + 2; // a data byte
    b[at] = (b[at] as number) ^ 0xff;
    expectMXNetError(() => loadNpz(b, 'w.npz'), 'w.npz', 'CRC-32 mismatch', 'a.npy');
  });

  it('inflates deflated entries (numpy.savez_compressed)', () => {
    const npy = saveNpy(sample('float64', [50, 7]));
    const zipped = writeZip([{ name: 'x.npy', data: npy }], 'test');
    // Re-pack the entry as method 8 by hand: same headers, deflated body.
    for (const level of [0, 1, 9]) {
      const deflated = deflateRawSync(npy, { level });
      const z = deflatedZip('x.npy', npy, deflated);
      expect(plain(loadNpz(z).arrays[0] as HostArray)).toEqual(plain(loadNpz(zipped).arrays[0] as HostArray));
    }
  });

  it('refuses sparse folders and skips non-.npy entries', () => {
    const e = (name: string) => ({ name, data: saveNpy(sample('int64', [2])) });
    const csr = writeZip(
      ['data', 'indices', 'indptr', 'format', 'shape'].map((f) => e(`w/${f}.npy`)),
      't',
    );
    expectMXNetError(() => loadNpz(csr, 's.npz'), 's.npz', 'sparse arrays are not supported yet', '"w"');
    const mixed = writeZip([e('a.npy'), { name: 'README.txt', data: new Uint8Array(3) }, e('d/b.npy')], 't');
    expect(loadNpz(mixed).names).toEqual(['a', 'd/b']);
  });

  it('loadAny dispatches on the magic', () => {
    const a = sample('int32', [3]);
    expect(detectArrayFileFormat(saveNpz([a]))).toBe('npz');
    expect(detectArrayFileFormat(saveNpz([]))).toBe('npz');
    expect(detectArrayFileFormat(saveNpy(a))).toBe('npy');
    expect(detectArrayFileFormat(saveMXNetList([a]))).toBe('mxnet');
    expect(loadAny(saveNpz({ k: a }))).toEqual({
      arrays: [a].map((x) => expect.objectContaining(plainLike(x))),
      names: ['k'],
    });
    expect(loadAny(saveNpy(a)).names).toBeNull();
    expect(plain(loadAny(saveMXNetList([a])).arrays[0] as HostArray)).toEqual(plain(a));
    expectMXNetError(() => loadAny(new Uint8Array([1, 2]), 'tiny'), 'tiny', 'truncated');
  });

  it('reads the zip64 records numpy.savez writes', () => {
    expect(readZip(zip64('a.npy', saveNpy(sample('int8', [3]))), 't', undefined)[0]?.name).toBe('a.npy');
  });
});

function plainLike(a: HostArray) {
  return { shape: a.shape, dtype: a.dtype };
}

/** A one-entry zip with ZIP64 sizes in the central directory and a ZIP64 end record, as Python writes. */
function zip64(name: string, data: Uint8Array): Uint8Array {
  const n = new TextEncoder().encode(name);
  const crc = crc32(data);
  const w = new ByteWriter();
  const fields = (f: [2 | 4 | 8, number][]) => {
    for (const [size, v] of f) {
      if (size === 2) w.u16(v);
      else if (size === 4) w.u32(v);
      else w.u64(v);
    }
  };
  const FF = 0xffffffff;
  fields([
    [4, 0x04034b50],
    [2, 45],
    [2, 0],
    [2, 0],
    [2, 0],
    [2, 0x21],
    [4, crc],
    [4, FF],
    [4, FF],
    [2, n.length],
    [2, 20],
  ]);
  w.bytes(n);
  fields([
    [2, 1],
    [2, 16],
    [8, data.length],
    [8, data.length],
  ]);
  w.bytes(data);
  const cdAt = w.length;
  fields([
    [4, 0x02014b50],
    [2, 45],
    [2, 45],
    [2, 0],
    [2, 0],
    [2, 0],
    [2, 0x21],
    [4, crc],
    [4, FF],
    [4, FF],
  ]);
  fields([
    [2, n.length],
    [2, 28],
    [2, 0],
    [2, 0],
    [2, 0],
    [4, 0],
    [4, FF],
  ]);
  w.bytes(n);
  fields([
    [2, 1],
    [2, 24],
    [8, data.length],
    [8, data.length],
    [8, 0],
  ]);
  const cdSize = w.length - cdAt;
  const z64At = w.length;
  fields([
    [4, 0x06064b50],
    [8, 44],
    [2, 45],
    [2, 45],
    [4, 0],
    [4, 0],
    [8, 1],
    [8, 1],
    [8, cdSize],
    [8, cdAt],
  ]);
  fields([
    [4, 0x07064b50],
    [4, 0],
    [8, z64At],
    [4, 1],
  ]);
  fields([
    [4, 0x06054b50],
    [2, 0],
    [2, 0],
    [2, 0xffff],
    [2, 0xffff],
    [4, FF],
    [4, FF],
    [2, 0],
  ]);
  return w.finish();
}
