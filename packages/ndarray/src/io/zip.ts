/**
 * The ZIP container of `.npz` files, hand-written because an npz needs little of ZIP: the writer
 * stores entries uncompressed (as `npx.savez` and `numpy.savez` do) with timestamps fixed at
 * 1980-01-01, so identical arrays give identical bytes; the reader (zip-read.ts) checks archives
 * strictly before it inflates anything.
 */
import { MXNetError } from '@mx/base';
import { ByteWriter } from './bytes.js';
import { crc32 } from './crc32.js';
import { CENTRAL_SIG, EOCD_SIG, LOCAL_SIG, U32_MAX, UTF8_FLAG, type ZipEntry } from './zip-read.js';

export { crc32 } from './crc32.js';
export { readZip, type ZipEntry } from './zip-read.js';

const DOS_DATE_1980_01_01 = 0x21;

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
