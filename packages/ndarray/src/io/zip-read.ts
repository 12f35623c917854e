/**
 * Strict ZIP reading for `.npz` archives (stored or deflated members, ZIP64 records as
 * `numpy.savez` writes them, data descriptors as Python writes to unseekable files).
 *
 * A zip file says everything twice: the central directory lists each member, and each member has
 * its own local header. A damaged or crafted archive makes the two disagree, and a lenient reader
 * then loads fewer arrays than the file holds (a directory entry lost) or many times the data it
 * holds (directory entries aliasing one member: a "zip bomb"). So before anything is inflated:
 * - the end record must end the file; its entry counts (ZIP64 ones included) must agree with each
 *   other and with the number of directory entries, which must fill the directory exactly;
 * - every local header must repeat its directory entry's name, flags, method, CRC-32 and sizes;
 * - the members, sorted by offset, must tile the bytes before the directory exactly: from offset 0,
 *   no gap (an unlisted member or junk) and no overlap (two entries aliasing the same data);
 * - names must be unique; a deflated member cannot declare more than DEFLATE can produce;
 * - the declared sizes of all members are charged to the load's {@link Budget}.
 * Then each member is inflated into at most its declared size, must consume exactly its
 * compressed bytes, and must match its CRC-32.
 */
import { ByteReader } from './bytes.js';
import { crc32, hex32 } from './crc32.js';
import { inflateBounded } from './inflate.js';
import { Budget } from './limits.js';

export interface ZipEntry {
  readonly name: string;
  readonly data: Uint8Array;
}

export const LOCAL_SIG = 0x04034b50;
export const CENTRAL_SIG = 0x02014b50;
export const EOCD_SIG = 0x06054b50;
export const UTF8_FLAG = 0x800;
export const U32_MAX = 0xffffffff;
const ZIP64_EOCD_SIG = 0x06064b50;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const DESCRIPTOR_SIG = 0x08074b50;
const U16_MAX = 0xffff;
const ENCRYPTED_FLAGS = 0x1 | 0x40; // traditional and strong encryption
const DESCRIPTOR_FLAG = 0x8;
/** DEFLATE produces at most 258 bytes per 2 bits. */
const DEFLATE_MAX_RATIO = 1032;

/** One central directory entry, resolved (ZIP64 values applied) and checked against its local header. */
interface Member {
  readonly index: number;
  readonly name: string;
  readonly nameBytes: Uint8Array;
  readonly flags: number;
  readonly method: number;
  readonly crc: number;
  readonly csize: number;
  readonly usize: number;
  /** Offset of the local header. */
  readonly offset: number;
  /** Set once the local header is read: where the data starts, and where the member ends. */
  dataAt: number;
  end: number;
}

/** Reads every entry of a ZIP archive, in central-directory order, after checking all of it. */
export function readZip(
  bytes: Uint8Array,
  op: string,
  source: string | undefined,
  budget: Budget = new Budget(op, source, bytes.length),
): ZipEntry[] {
  const r = new ByteReader(bytes, op, source);
  r.where = 'zip end of central directory';
  const eocd = findEocd(r);
  const e = new ByteReader(bytes, op, source, eocd + 4);
  e.where = r.where;
  const disk = e.u16('disk number');
  const cdDisk = e.u16('central directory disk');
  const onDisk = e.u16('entries on this disk');
  let count = e.u16('entry count');
  let cdSize = e.u32('central directory size');
  let cdOffset = e.u32('central directory offset');
  if (disk !== 0 || cdDisk !== 0) throw r.corrupt('multi-disk zip archives are not supported', eocd + 4);
  if (onDisk !== count) {
    throw r.corrupt(`the end record counts ${onDisk} entries on this disk but ${count} in all`, eocd + 8);
  }
  let cdEnd = eocd;
  const zip64 =
    count === U16_MAX ||
    cdSize === U32_MAX ||
    cdOffset === U32_MAX ||
    (eocd >= 20 &&
      new DataView(bytes.buffer, bytes.byteOffset + eocd - 20, 4).getUint32(0, true) === ZIP64_LOCATOR_SIG);
  if (zip64) {
    const z = readZip64End(bytes, op, source, eocd);
    const agree = (v: number, max: number, v64: number, what: string, at: number): number => {
      if (v !== max && v !== v64) {
        throw r.corrupt(`the end record's ${what} ${v} disagrees with the ZIP64 end record's ${v64}`, at);
      }
      return v64;
    };
    count = agree(count, U16_MAX, z.count, 'entry count', eocd + 10);
    cdSize = agree(cdSize, U32_MAX, z.cdSize, 'directory size', eocd + 12);
    cdOffset = agree(cdOffset, U32_MAX, z.cdOffset, 'directory offset', eocd + 16);
    cdEnd = z.at;
  }
  if (cdOffset + cdSize !== cdEnd) {
    throw r.corrupt(
      `the central directory (offset ${cdOffset}, ${cdSize} bytes) does not end where the end record starts (offset ${cdEnd})`,
      eocd + 12,
    );
  }
  if (count * 46 > cdSize) {
    throw r.corrupt(`${count} entries cannot fit in a ${cdSize}-byte central directory`, eocd + 10);
  }
  const members = readDirectory(new ByteReader(bytes.subarray(0, cdEnd), op, source, cdOffset), count);
  for (const m of members) readLocalHeader(bytes, op, source, m);
  checkLayout(r, members, cdOffset);
  let total = 0;
  for (const m of members) total += m.usize;
  budget.charge(total, `the ${count} zip members' declared sizes`);
  return members.map((m) => ({ name: m.name, data: memberData(bytes, op, source, m) }));
}

/** Offset of the end-of-central-directory record, which must end the file (after its comment). */
function findEocd(r: ByteReader): number {
  const b = r.bytes;
  const min = Math.max(0, b.length - 22 - U16_MAX);
  let trailing = -1;
  for (let i = b.length - 22; i >= min; i--) {
    if (b[i] === 0x50 && b[i + 1] === 0x4b && b[i + 2] === 0x05 && b[i + 3] === 0x06) {
      const end = i + 22 + ((b[i + 20] as number) | ((b[i + 21] as number) << 8));
      if (end === b.length) return i;
      if (end < b.length && trailing < 0) trailing = end;
    }
  }
  if (trailing >= 0) {
    throw r.corrupt(
      `${b.length - trailing} trailing bytes after the end-of-central-directory record`,
      trailing,
    );
  }
  throw r.corrupt('no end-of-central-directory record found', b.length, 'the zip file is truncated');
}

/** The ZIP64 locator just before the end record and the ZIP64 end record it points at. */
function readZip64End(
  bytes: Uint8Array,
  op: string,
  source: string | undefined,
  eocd: number,
): { at: number; count: number; cdSize: number; cdOffset: number } {
  const loc = new ByteReader(bytes, op, source, Math.max(0, eocd - 20));
  loc.where = 'zip64 locator';
  if (eocd < 20 || loc.u32('zip64 locator signature') !== ZIP64_LOCATOR_SIG) {
    throw loc.corrupt(
      'the end record has ZIP64 values but no ZIP64 locator precedes it',
      Math.max(0, eocd - 20),
    );
  }
  const diskAt = loc.pos;
  if (loc.u32('zip64 end record disk') !== 0)
    throw loc.corrupt('multi-disk zip archives are not supported', diskAt);
  const at = loc.u64('zip64 end record offset');
  const disksAt = loc.pos;
  if (loc.u32('total disks') !== 1) throw loc.corrupt('multi-disk zip archives are not supported', disksAt);
  const z = new ByteReader(bytes.subarray(0, eocd - 20), op, source, Math.min(at, eocd - 20));
  z.where = 'zip64 end of central directory';
  if (at > eocd - 20 || z.u32('zip64 end signature') !== ZIP64_EOCD_SIG) {
    throw z.corrupt('the ZIP64 locator does not point at a ZIP64 end record', disksAt - 8);
  }
  const size = z.u64('zip64 end record size');
  if (size < 44 || at + 12 + size !== eocd - 20) {
    throw z.corrupt(`the ZIP64 end record's size ${size} does not reach the locator`, at + 4);
  }
  z.u16('version made by');
  z.u16('version needed');
  const disksOk = z.u32('disk number') === 0 && z.u32('central directory disk') === 0;
  if (!disksOk) throw z.corrupt('multi-disk zip archives are not supported', at + 16);
  const onDisk = z.u64('entries on this disk');
  const count = z.u64('entry count');
  if (onDisk !== count) {
    throw z.corrupt(
      `the ZIP64 end record counts ${onDisk} entries on this disk but ${count} in all`,
      at + 24,
    );
  }
  const cdSize = z.u64('central directory size');
  const cdOffset = z.u64('central directory offset');
  return { at, count, cdSize, cdOffset };
}

/** `count` central directory entries, which must fill the directory exactly. */
function readDirectory(c: ByteReader, count: number): Member[] {
  const members: Member[] = [];
  const byName = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    c.where = `zip entry ${i}`;
    const at = c.pos;
    if (c.remaining === 0) {
      throw c.corrupt(
        `the central directory ends after ${i} of the ${count} entries the end record counts`,
        at,
      );
    }
    if (c.u32('central header signature') !== CENTRAL_SIG)
      throw c.corrupt('bad central directory signature', at);
    c.u16('version made by');
    c.u16('version needed');
    const flags = c.u16('flags');
    const method = c.u16('method');
    c.u32('time and date');
    const crc = c.u32('crc-32');
    let csize = c.u32('compressed size');
    let usize = c.u32('uncompressed size');
    const nameLen = c.u16('name length');
    const extraLen = c.u16('extra field length');
    const commentLen = c.u16('comment length');
    let disk = c.u16('disk number');
    c.u16('internal attributes');
    c.u32('external attributes');
    let offset = c.u32('local header offset');
    const nameBytes = c.take(nameLen, 'entry name');
    const name = decodeName(c, nameBytes, at + 46);
    c.where = `zip entry ${i} ("${name}")`;
    const z64 = zip64Extra(c, c.take(extraLen, 'extra field'), at + 46 + nameLen);
    if (z64 !== null) {
      const field = (v: number, max: number, size: 4 | 8, what: string): number => {
        if (v !== max) return v;
        if (z64.remaining < size)
          throw c.corrupt(`the ZIP64 extra field lacks the ${what}`, at + 46 + nameLen);
        return size === 8 ? z64.u64(what) : z64.u32(what);
      };
      usize = field(usize, U32_MAX, 8, 'uncompressed size');
      csize = field(csize, U32_MAX, 8, 'compressed size');
      offset = field(offset, U32_MAX, 8, 'local header offset');
      disk = field(disk, U16_MAX, 4, 'disk number');
    }
    c.take(commentLen, 'entry comment');
    if (disk !== 0)
      throw c.corrupt(`the member is on disk ${disk} (multi-disk archives are not supported)`, at + 34);
    if ((flags & ENCRYPTED_FLAGS) !== 0) throw c.corrupt('encrypted entries are not supported', at + 8);
    if (method !== 0 && method !== 8) {
      throw c.corrupt(`compression method ${method} is not supported (only stored and deflate)`, at + 10);
    }
    if (method === 0 && csize !== usize) {
      throw c.corrupt(`a stored member's sizes differ (${csize} compressed, ${usize} uncompressed)`, at + 20);
    }
    if (method === 8 && usize > csize * DEFLATE_MAX_RATIO + 1024) {
      throw c.corrupt(`declared size ${usize} is impossible for ${csize} deflated bytes`, at + 24);
    }
    const first = byName.get(name);
    if (first !== undefined) throw c.corrupt(`duplicate name "${name}" (also zip entry ${first})`, at + 46);
    byName.set(name, i);
    members.push({ index: i, name, nameBytes, flags, method, crc, csize, usize, offset, dataAt: 0, end: 0 });
  }
  c.where = 'zip central directory';
  if (c.remaining > 0) {
    throw c.corrupt(
      `${c.remaining} bytes of the central directory are left after the ${count} entries the end record counts`,
      c.pos,
    );
  }
  return members;
}

function decodeName(c: ByteReader, raw: Uint8Array, at: number): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    throw c.corrupt('the entry name is not valid UTF-8', at);
  }
}

/** Walks an extra field (id, length, data)*; returns a reader over the ZIP64 field's data, if any. */
function zip64Extra(c: ByteReader, extra: Uint8Array, at: number): ByteReader | null {
  const x = new ByteReader(extra, 'readZip', undefined);
  let found: ByteReader | null = null;
  while (x.remaining > 0) {
    if (x.remaining < 4)
      throw c.corrupt(`${x.remaining} stray bytes at the end of the extra field`, at + x.pos);
    const id = x.u16('extra id');
    const len = x.u16('extra length');
    if (len > x.remaining)
      throw c.corrupt(`extra field 0x${id.toString(16)} runs past its end`, at + x.pos - 4);
    const body = x.take(len, 'extra data');
    if (id !== 1) continue;
    if (found !== null) throw c.corrupt('two ZIP64 extra fields', at + x.pos - len - 4);
    found = new ByteReader(body, 'readZip', undefined);
  }
  return found;
}

/** Reads member `m`'s local header, which must agree with its directory entry; sets its extent. */
function readLocalHeader(bytes: Uint8Array, op: string, source: string | undefined, m: Member): void {
  const l = new ByteReader(bytes, op, source, Math.min(m.offset, bytes.length));
  l.where = `zip member "${m.name}" local header`;
  const at = m.offset;
  if (at > bytes.length || l.u32('local header signature') !== LOCAL_SIG) {
    throw l.corrupt('no local header where the central directory says this member starts', at);
  }
  l.u16('version needed');
  const flags = l.u16('flags');
  const method = l.u16('method');
  l.u32('time and date');
  const crc = l.u32('crc-32');
  let csize = l.u32('compressed size');
  let usize = l.u32('uncompressed size');
  const nameLen = l.u16('name length');
  const extraLen = l.u16('extra field length');
  const nameBytes = l.take(nameLen, 'name');
  const z64 = zip64Extra(l, l.take(extraLen, 'extra field'), at + 30 + nameLen);
  const mismatch = (what: string, local: string | number, central: string | number, offset: number): Error =>
    l.corrupt(
      `the local header's ${what} (${local}) disagrees with the central directory's (${central})`,
      offset,
    );
  if (flags !== m.flags) throw mismatch('flags', flags, m.flags, at + 6);
  if (method !== m.method) throw mismatch('method', method, m.method, at + 8);
  if (nameLen !== m.nameBytes.length || !nameBytes.every((b, i) => b === m.nameBytes[i])) {
    throw mismatch(
      'name',
      JSON.stringify(new TextDecoder().decode(nameBytes)),
      JSON.stringify(m.name),
      at + 30,
    );
  }
  // Local ZIP64 fields hold both sizes, uncompressed first, when either says 0xFFFFFFFF.
  const wide = z64 !== null && (usize === U32_MAX || csize === U32_MAX);
  if (wide) {
    if (z64.remaining < 16) throw l.corrupt('the ZIP64 extra field lacks the sizes', at + 30 + nameLen);
    const u64 = z64.u64('uncompressed size');
    const c64 = z64.u64('compressed size');
    // A size not marked 0xFFFFFFFF must say the same as its ZIP64 value.
    if ((usize !== U32_MAX && usize !== u64) || (csize !== U32_MAX && csize !== c64)) {
      throw l.corrupt(
        `the local header's sizes (${csize} / ${usize}) disagree with its ZIP64 field (${c64} / ${u64})`,
        at + 18,
      );
    }
    usize = u64;
    csize = c64;
  }
  const deferred = (m.flags & DESCRIPTOR_FLAG) !== 0;
  // With a data descriptor the local fields may be zero; the descriptor must then carry the values.
  if (!(deferred && crc === 0 && csize === 0 && usize === 0)) {
    if (crc !== m.crc) throw mismatch('CRC-32', hex32(crc), hex32(m.crc), at + 14);
    if (csize !== m.csize) throw mismatch('compressed size', csize, m.csize, at + 18);
    if (usize !== m.usize) throw mismatch('uncompressed size', usize, m.usize, at + 22);
  }
  m.dataAt = l.pos;
  l.need(m.csize, 'member data');
  l.skip(m.csize);
  if (deferred) {
    l.where = `zip member "${m.name}" data descriptor`;
    const dAt = l.pos;
    // The descriptor's signature is optional: read it both ways, keep the one that agrees.
    const size = z64 !== null ? 8 : 4;
    const read = (from: number): { crc: number; csize: number; usize: number; end: number } => {
      const d = new ByteReader(bytes, op, source, from);
      d.where = l.where;
      const crc = d.u32('descriptor CRC-32');
      const csize = size === 8 ? d.u64('descriptor compressed size') : d.u32('descriptor compressed size');
      const usize =
        size === 8 ? d.u64('descriptor uncompressed size') : d.u32('descriptor uncompressed size');
      return { crc, csize, usize, end: d.pos };
    };
    const agrees = (d: { crc: number; csize: number; usize: number }): boolean =>
      d.crc === m.crc && d.csize === m.csize && d.usize === m.usize;
    const signed = l.remaining >= 4 && l.u32('descriptor signature') === DESCRIPTOR_SIG;
    const withSig = signed && l.remaining >= 4 + 2 * size ? read(dAt + 4) : null;
    const d = withSig !== null && agrees(withSig) ? withSig : read(dAt);
    if (!agrees(d)) {
      throw l.corrupt(
        `the data descriptor (CRC ${hex32(d.crc)}, ${d.csize} / ${d.usize} bytes) disagrees with the central ` +
          `directory (CRC ${hex32(m.crc)}, ${m.csize} / ${m.usize} bytes)`,
        dAt,
      );
    }
    m.end = d.end;
    return;
  }
  m.end = l.pos;
}

/** The members must tile [0, cdOffset) exactly: no gap (a lost entry), no overlap (aliasing). */
function checkLayout(r: ByteReader, members: readonly Member[], cdOffset: number): void {
  r.where = 'zip layout';
  const sorted = [...members].sort((a, b) => a.offset - b.offset);
  let expected = 0;
  let previous: Member | undefined;
  for (const m of sorted) {
    if (m.offset < expected) {
      throw r.corrupt(
        `zip entry ${m.index} ("${m.name}") starts inside zip entry ${previous?.index} ("${previous?.name}", ` +
          `offsets ${previous?.offset}..${expected}): entries must not share data`,
        m.offset,
      );
    }
    if (m.offset > expected) throw gap(r, expected, m.offset);
    expected = m.end;
    previous = m;
  }
  if (expected > cdOffset) {
    throw r.corrupt(
      `zip entry ${previous?.index} ("${previous?.name}") runs into the central directory`,
      cdOffset,
    );
  }
  if (expected < cdOffset) throw gap(r, expected, cdOffset);
}

function gap(r: ByteReader, from: number, to: number): Error {
  const b = r.bytes;
  const local = b[from] === 0x50 && b[from + 1] === 0x4b && b[from + 2] === 0x03 && b[from + 3] === 0x04;
  return r.corrupt(
    `bytes ${from}..${to} belong to no entry of the central directory` +
      (local ? ' (a local header is there: the directory lost its entry)' : ''),
    from,
    'the archive is damaged: save it again',
  );
}

/** The member's bytes: a view for stored members, inflated (exactly its declared size) otherwise. */
function memberData(bytes: Uint8Array, op: string, source: string | undefined, m: Member): Uint8Array {
  const l = new ByteReader(bytes, op, source, m.dataAt);
  l.where = `zip member "${m.name}"`;
  let data: Uint8Array;
  if (m.method === 0) {
    data = bytes.subarray(m.dataAt, m.dataAt + m.csize);
  } else {
    const inflated = inflateBounded(bytes.subarray(0, m.dataAt + m.csize), {
      start: m.dataAt,
      maxOutput: m.usize,
      limitName: 'the size its zip entry declares',
      fail: (msg) => l.corrupt(`deflate data: ${msg}`, m.dataAt),
    });
    if (inflated.end !== m.dataAt + m.csize) {
      throw l.corrupt(
        `the deflate stream ends after ${inflated.end - m.dataAt} of the ${m.csize} compressed bytes the entry declares`,
        inflated.end,
      );
    }
    data = inflated.data;
    if (data.length !== m.usize) {
      throw l.corrupt(
        `deflate data: it inflates to ${data.length} bytes, the zip entry declares ${m.usize}`,
        m.dataAt,
      );
    }
  }
  const actual = crc32(data);
  if (actual !== m.crc) {
    throw l.corrupt(`CRC-32 mismatch: stored ${hex32(m.crc)}, data has ${hex32(actual)}`, m.dataAt);
  }
  return data;
}
