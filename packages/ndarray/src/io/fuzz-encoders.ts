/**
 * Test-only writers for the strict-loader fuzz tests. They write every variant the loaders must
 * read (MXNet records V0..V3, npy 1.0/2.0/3.0 with big-endian or Fortran-order data, zips with
 * stored or zlib-deflated members and Python's ZIP64 local fields) and record where each field
 * is, so mutations can target a shape, a count, a device id, a CRC or a directory entry. They share
 * no code with the library's writers.
 */
import { deflateRawSync, crc32 as zcrc32 } from 'node:zlib';
import { FLAG_DTYPES } from './fuzz-reference.js';

/** A field of a written file: its kind, offset and width in bytes. */
export interface Field {
  readonly kind: string;
  readonly at: number;
  readonly size: number;
}

export interface Written {
  readonly bytes: Uint8Array;
  readonly fields: Field[];
}

/** A little-endian writer that records field positions. */
class W {
  readonly parts: number[] = [];
  readonly fields: Field[] = [];
  get pos(): number {
    return this.parts.length;
  }
  int(v: number, size: 1 | 2 | 4 | 8, kind?: string): void {
    if (kind !== undefined) this.fields.push({ kind, at: this.pos, size });
    let x = BigInt.asUintN(size * 8, BigInt(v));
    for (let i = 0; i < size; i++) {
      this.parts.push(Number(x & 0xffn));
      x >>= 8n;
    }
  }
  raw(b: Uint8Array, kind?: string): void {
    if (kind !== undefined) this.fields.push({ kind, at: this.pos, size: b.length });
    for (const x of b) this.parts.push(x);
  }
  done(): Written {
    return { bytes: Uint8Array.from(this.parts), fields: this.fields };
  }
}

/** One array for the MXNet writers: dtype flag, shape, device and little-endian element bytes. */
export interface TestArray {
  readonly flag: number;
  readonly shape: readonly number[];
  readonly devType: number;
  readonly devId: number;
  readonly bytes: Uint8Array;
}

export type RecordVersion = 0 | 1 | 2 | 3;

/** An MXNet list file; `versions[i]` picks record i's layout. */
export function writeList(
  arrays: readonly TestArray[],
  versions: readonly RecordVersion[],
  names: string[] | null,
): Written {
  const w = new W();
  w.int(0x112, 8, 'magic');
  w.int(0, 8, 'reserved');
  w.int(arrays.length, 8, 'count');
  arrays.forEach((a, i) => {
    const v = versions[i] ?? 3;
    if (v === 0) {
      w.int(a.shape.length, 4, 'ndim');
      for (const d of a.shape) w.int(d, 4, 'dim');
    } else {
      w.int([0, 0xf993fac8, 0xf993fac9, 0xf993faca][v] as number, 4, 'record magic');
      if (v >= 2) w.int(0, 4, 'stype');
      w.int(a.shape.length, 4, 'ndim');
      for (const d of a.shape) w.int(d, 8, 'dim');
    }
    w.int(a.devType, 4, 'dev_type');
    w.int(a.devId, 4, 'dev_id');
    w.int(a.flag, 4, 'dtype flag');
    w.raw(a.bytes, 'data');
  });
  w.int(names === null ? 0 : names.length, 8, 'name count');
  for (const n of names ?? []) {
    const b = new TextEncoder().encode(n);
    w.int(b.length, 8, 'name length');
    w.raw(b, 'name');
  }
  return w.done();
}

/** Element size of a dtype flag. */
export const flagSize = (flag: number): number => (FLAG_DTYPES[flag] as [string, number])[1];

const NPY_DESCR: Readonly<Record<number, string>> = {
  0: 'f4',
  1: 'f8',
  2: 'f2',
  3: 'u1',
  4: 'i4',
  5: 'i1',
  6: 'i8',
  7: 'b1',
  8: 'i2',
  9: 'u2',
  10: 'u4',
  11: 'u8',
};

export interface NpyVariant {
  readonly version: 1 | 2 | 3;
  readonly bigEndian: boolean;
  readonly fortran: boolean;
}

/** A `.npy` of `a` (row-major little-endian bytes in, stored as the variant says). */
export function writeNpy(a: TestArray, v: NpyVariant, shapeText?: string): Written {
  const size = flagSize(a.flag);
  const order = v.bigEndian ? '>' : size === 1 ? '|' : '<';
  const descr = a.flag === 12 ? `[('bfloat16', '${order}u2')]` : `'${order}${NPY_DESCR[a.flag]}'`;
  const dims = shapeText ?? `(${a.shape.join(', ')}${a.shape.length === 1 ? ',' : ''})`;
  let dict = `{'descr': ${descr}, 'fortran_order': ${v.fortran ? 'True' : 'False'}, 'shape': ${dims}, }`;
  const pre = v.version === 1 ? 10 : 12;
  dict += `${' '.repeat(63 - ((pre + dict.length) % 64))}\n`;
  const w = new W();
  w.raw(Uint8Array.of(0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59), 'magic');
  w.int(v.version, 1, 'major');
  w.int(0, 1, 'minor');
  w.int(dict.length, v.version === 1 ? 2 : 4, 'header length');
  w.raw(new TextEncoder().encode(dict), 'header');
  let data: Uint8Array = a.bytes.slice();
  if (v.fortran && a.shape.length > 1) data = toFortran(data, a.shape, size);
  if (v.bigEndian) for (let i = 0; i < data.length; i += size) data.subarray(i, i + size).reverse();
  w.raw(data, 'data');
  return w.done();
}

function toFortran(src: Uint8Array, shape: readonly number[], size: number): Uint8Array {
  const out = new Uint8Array(src.length);
  const n = shape.reduce((x, y) => x * y, 1);
  for (let j = 0; j < n; j++) {
    let rest = j;
    const coords: number[] = [];
    for (let k = shape.length - 1; k >= 0; k--) {
      coords[k] = rest % (shape[k] as number);
      rest = Math.floor(rest / (shape[k] as number));
    }
    let f = 0;
    let stride = 1;
    for (let k = 0; k < shape.length; k++) {
      f += (coords[k] as number) * stride;
      stride *= shape[k] as number;
    }
    out.set(src.subarray(j * size, j * size + size), f * size);
  }
  return out;
}

export interface ZipVariant {
  /** Deflate members with zlib (as numpy.savez_compressed). */
  readonly deflate: boolean;
  /** ZIP64 local headers (0xFFFFFFFF sizes + extra field), as Python's force_zip64 writes. */
  readonly zip64Local: boolean;
}

/** A zip of the given members, with every header field recorded. */
export function writeZipFile(members: readonly { name: string; data: Uint8Array }[], v: ZipVariant): Written {
  const w = new W();
  const entries: {
    name: Uint8Array;
    flags: number;
    crc: number;
    csize: number;
    usize: number;
    offset: number;
  }[] = [];
  for (const m of members) {
    const name = new TextEncoder().encode(m.name);
    const body = v.deflate ? new Uint8Array(deflateRawSync(m.data)) : m.data;
    const crc = zcrc32(m.data);
    const offset = w.pos;
    const flags = name.length === m.name.length ? 0 : 0x800;
    w.int(0x04034b50, 4, 'local sig');
    w.int(v.zip64Local ? 45 : 20, 2);
    w.int(flags, 2, 'local flags');
    w.int(v.deflate ? 8 : 0, 2, 'local method');
    w.int(0, 2);
    w.int(0x21, 2);
    w.int(crc, 4, 'local crc');
    w.int(v.zip64Local ? 0xffffffff : body.length, 4, 'local csize');
    w.int(v.zip64Local ? 0xffffffff : m.data.length, 4, 'local usize');
    w.int(name.length, 2, 'local name length');
    w.int(v.zip64Local ? 20 : 0, 2, 'local extra length');
    w.raw(name, 'local name');
    if (v.zip64Local) {
      w.int(1, 2);
      w.int(16, 2);
      w.int(m.data.length, 8, 'local usize');
      w.int(body.length, 8, 'local csize');
    }
    w.raw(body, 'member data');
    entries.push({ name, flags, crc, csize: body.length, usize: m.data.length, offset });
  }
  const cdOffset = w.pos;
  for (const e of entries) {
    w.int(0x02014b50, 4, 'central sig');
    w.int(20, 2);
    w.int(20, 2);
    w.int(e.flags, 2, 'central flags');
    w.int(v.deflate ? 8 : 0, 2, 'central method');
    w.int(0, 2);
    w.int(0x21, 2);
    w.int(e.crc, 4, 'central crc');
    w.int(e.csize, 4, 'central csize');
    w.int(e.usize, 4, 'central usize');
    w.int(e.name.length, 2, 'central name length');
    w.int(0, 2);
    w.int(0, 2);
    w.int(0, 2);
    w.int(0, 2);
    w.int(0, 4);
    w.int(e.offset, 4, 'central offset');
    w.raw(e.name, 'central name');
  }
  const cdSize = w.pos - cdOffset;
  w.int(0x06054b50, 4, 'eocd sig');
  w.int(0, 2, 'eocd disk');
  w.int(0, 2, 'eocd cd disk');
  w.int(entries.length, 2, 'eocd entries on disk');
  w.int(entries.length, 2, 'eocd entries');
  w.int(cdSize, 4, 'eocd cd size');
  w.int(cdOffset, 4, 'eocd cd offset');
  w.int(0, 2, 'eocd comment length');
  return w.done();
}

/** Field offsets of kind `kind`. */
export function fieldsOf(w: Written, kind: string): Field[] {
  return w.fields.filter((f) => f.kind === kind);
}

/** `b` with the little-endian integer at `f` replaced by `v`. */
export function setField(b: Uint8Array, f: Field, v: number): Uint8Array {
  const out = b.slice();
  let x = BigInt.asUintN(f.size * 8, BigInt(v));
  for (let i = 0; i < f.size; i++) {
    out[f.at + i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}

/** The little-endian integer at `f`. */
export function getField(b: Uint8Array, f: Field): number {
  let v = 0;
  for (let i = f.size - 1; i >= 0; i--) v = v * 256 + (b[f.at + i] as number);
  return v;
}
