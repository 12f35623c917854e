/**
 * The ZIP container of `.npz` files, hand-written because an npz needs little of ZIP: the writer
 * stores entries uncompressed (as `npx.savez` and `numpy.savez` do); the reader finds the central
 * directory (ZIP64 records included, which `numpy.savez` emits via `force_zip64`), verifies each
 * entry's CRC-32 and inflates deflated entries (`numpy.savez_compressed`). Timestamps are fixed at
 * 1980-01-01 so identical arrays give identical bytes.
 */
import { MXNetError } from '@mx/base';
import { ByteReader, ByteWriter } from './bytes.js';
import { inflateRaw } from './inflate.js';

export interface ZipEntry {
  readonly name: string;
  readonly data: Uint8Array;
}

const LOCAL_SIG = 0x04034b50;
const CENTRAL_SIG = 0x02014b50;
const EOCD_SIG = 0x06054b50;
const ZIP64_EOCD_SIG = 0x06064b50;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const DOS_DATE_1980_01_01 = 0x21;
const UTF8_FLAG = 0x800;
const U32_MAX = 0xffffffff;

const CRC_TABLE: Uint32Array = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 (ISO 3309, as ZIP and zlib) of `data`. */
export function crc32(data: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < data.length; i++)
    c = (CRC_TABLE[(c ^ (data[i] as number)) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Writes a ZIP archive with every entry stored (method 0). */
export function writeZip(entries: readonly ZipEntry[], op: string): Uint8Array {
  if (entries.length >= 0xffff)
    throw new MXNetError(`too many entries (${entries.length}) for a zip file`, { op });
  const enc = new TextEncoder();
  const w = new ByteWriter();
  const central = new ByteWriter();
  for (const e of entries) {
    const name = enc.encode(e.name);
    const offset = w.length;
    if (e.data.length >= U32_MAX || offset >= U32_MAX) {
      throw new MXNetError(`entry "${e.name}" is too large for a zip file without ZIP64`, { op });
    }
    const crc = crc32(e.data);
    const flags = name.length === e.name.length ? 0 : UTF8_FLAG; // non-ASCII names are marked UTF-8
    w.u32(LOCAL_SIG);
    w.u16(20); // version needed
    w.u16(flags);
    w.u16(0); // stored
    w.u16(0); // time
    w.u16(DOS_DATE_1980_01_01);
    w.u32(crc);
    w.u32(e.data.length);
    w.u32(e.data.length);
    w.u16(name.length);
    w.u16(0); // extra
    w.bytes(name);
    w.bytes(e.data);

    central.u32(CENTRAL_SIG);
    central.u16(20); // version made by
    central.u16(20); // version needed
    central.u16(flags);
    central.u16(0);
    central.u16(0);
    central.u16(DOS_DATE_1980_01_01);
    central.u32(crc);
    central.u32(e.data.length);
    central.u32(e.data.length);
    central.u16(name.length);
    central.u16(0); // extra
    central.u16(0); // comment
    central.u16(0); // disk
    central.u16(0); // internal attributes
    central.u32(0); // external attributes
    central.u32(offset);
    central.bytes(name);
  }
  const cdOffset = w.length;
  const cd = central.finish();
  w.bytes(cd);
  w.u32(EOCD_SIG);
  w.u16(0);
  w.u16(0);
  w.u16(entries.length);
  w.u16(entries.length);
  w.u32(cd.length);
  w.u32(cdOffset);
  w.u16(0); // comment
  return w.finish();
}

/** Reads every entry of a ZIP archive, in central-directory order. */
export function readZip(bytes: Uint8Array, op: string, source: string | undefined): ZipEntry[] {
  const r = new ByteReader(bytes, op, source);
  r.where = 'zip end of central directory';
  const eocd = findEocd(bytes);
  if (eocd < 0) {
    throw r.corrupt('no end-of-central-directory record found', bytes.length, 'the zip file is truncated');
  }
  const e = new ByteReader(bytes, op, source, eocd + 4);
  e.where = r.where;
  const disk = e.u16('disk number') + e.u16('central directory disk');
  e.u16('entries on this disk');
  let count = e.u16('entry count');
  let cdSize = e.u32('central directory size');
  let cdOffset = e.u32('central directory offset');
  if (disk !== 0) throw r.corrupt('multi-disk zip archives are not supported', eocd);
  if (count === 0xffff || cdSize === U32_MAX || cdOffset === U32_MAX) {
    if (eocd < 20) throw r.corrupt('ZIP64 sizes without a ZIP64 locator', eocd);
    const loc = new ByteReader(bytes, op, source, eocd - 20);
    loc.where = 'zip64 locator';
    if (loc.u32('zip64 locator signature') !== ZIP64_LOCATOR_SIG) {
      throw r.corrupt('ZIP64 sizes without a ZIP64 locator', eocd);
    }
    loc.u32('disk');
    const z = new ByteReader(bytes, op, source, loc.u64('zip64 end record offset'));
    z.where = 'zip64 end of central directory';
    if (z.u32('zip64 end signature') !== ZIP64_EOCD_SIG) throw r.corrupt('bad ZIP64 end record', z.pos - 4);
    z.take(28, 'zip64 end record fields'); // size, versions, disks, entries on this disk
    count = z.u64('entry count');
    cdSize = z.u64('central directory size');
    cdOffset = z.u64('central directory offset');
  }
  const c = new ByteReader(bytes, op, source, cdOffset);
  c.need(cdSize, 'central directory');
  const dec = new TextDecoder();
  const out: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    c.where = `zip entry ${i}`;
    const at = c.pos;
    if (c.u32('central header signature') !== CENTRAL_SIG)
      throw c.corrupt('bad central directory signature', at);
    c.take(4, 'versions');
    const flags = c.u16('flags');
    const method = c.u16('method');
    c.take(4, 'time and date');
    const crc = c.u32('crc-32');
    let csize = c.u32('compressed size');
    let usize = c.u32('uncompressed size');
    const nameLen = c.u16('name length');
    const extraLen = c.u16('extra field length');
    const commentLen = c.u16('comment length');
    c.take(8, 'disk and attributes');
    let offset = c.u32('local header offset');
    const name = dec.decode(c.take(nameLen, 'entry name'));
    c.where = `zip entry "${name}"`;
    const extra = new ByteReader(c.take(extraLen, 'extra field'), op, source);
    extra.where = c.where;
    while (extra.remaining >= 4) {
      const id = extra.u16('extra id');
      const len = extra.u16('extra length');
      const body = new ByteReader(extra.take(len, 'extra data'), op, source);
      body.where = c.where;
      if (id !== 1) continue; // only the ZIP64 field matters
      if (usize === U32_MAX) usize = body.u64('zip64 uncompressed size');
      if (csize === U32_MAX) csize = body.u64('zip64 compressed size');
      if (offset === U32_MAX) offset = body.u64('zip64 local header offset');
    }
    c.take(commentLen, 'entry comment');
    if ((flags & 1) !== 0) throw c.corrupt('encrypted entries are not supported', at);

    const l = new ByteReader(bytes, op, source, offset);
    l.where = c.where;
    if (l.u32('local header signature') !== LOCAL_SIG) throw l.corrupt('bad local header signature', offset);
    l.take(22, 'local header fields');
    const localName = l.u16('local name length');
    const localExtra = l.u16('local extra length');
    l.take(localName + localExtra, 'local name and extra');
    const dataAt = l.pos;
    const raw = l.take(csize, 'entry data');
    let data: Uint8Array;
    if (method === 0) {
      if (csize !== usize) throw l.corrupt(`stored entry sizes differ (${csize} vs ${usize})`, dataAt);
      data = raw;
    } else if (method === 8) {
      // DEFLATE expands at most ~1032:1; a larger declared size is corruption, not a reason to allocate it.
      if (usize > csize * 1032 + 1024) {
        throw l.corrupt(`declared size ${usize} is impossible for ${csize} deflated bytes`, dataAt);
      }
      data = inflateRaw(raw, usize, (msg) => l.corrupt(`deflate data: ${msg}`, dataAt));
    } else {
      throw l.corrupt(`compression method ${method} is not supported (only stored and deflate)`, at);
    }
    const actual = crc32(data);
    if (actual !== crc) {
      throw l.corrupt(
        `CRC-32 mismatch: stored 0x${crc.toString(16).padStart(8, '0')}, data has 0x${actual.toString(16).padStart(8, '0')}`,
        dataAt,
      );
    }
    out.push({ name, data });
  }
  return out;
}

/** Offset of the end-of-central-directory record, or -1. Searches back over a possible comment. */
function findEocd(b: Uint8Array): number {
  const min = Math.max(0, b.length - 22 - 0xffff);
  for (let i = b.length - 22; i >= min; i--) {
    if (b[i] === 0x50 && b[i + 1] === 0x4b && b[i + 2] === 0x05 && b[i + 3] === 0x06) {
      const commentLen = (b[i + 20] as number) | ((b[i + 21] as number) << 8);
      if (i + 22 + commentLen <= b.length) return i;
    }
  }
  return -1;
}
