/**
 * Test helpers (not exported): the dmlc-core reference files in src/__fixtures__/recordio (written
 * by tools/golden/recordio/recordio_golden.cc, see its README) and an independent, deliberately
 * plain RecordIO encoder/decoder written from the format description (catalog §9), which the
 * property tests compare the real readers and writers against.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const FIXTURES = fileURLToPath(new URL('../__fixtures__/recordio/', import.meta.url));

export interface GoldenSplit {
  numParts: number;
  inputSplit: number[][];
  chunkReader: number[][];
  indexedInputSplit: number[][];
  shuffledIndexedInputSplit: number[][];
}

export interface GoldenFile {
  rec: string;
  idx: string;
  shuffledIdx: string;
  payloads: string;
  size: number;
  count: number;
  offsets: number[];
  parts: number[];
  splits: GoldenSplit[];
}

export function manifest(): Record<'mixed' | 'small', GoldenFile> {
  return JSON.parse(readFileSync(`${FIXTURES}manifest.json`, 'utf8')).files;
}

export function fixture(name: string): Uint8Array {
  return new Uint8Array(readFileSync(`${FIXTURES}${name}`));
}

/** The driver's payload container: per record a u32 little-endian length, then the bytes. */
export function payloads(name: string): Uint8Array[] {
  const b = fixture(name);
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out: Uint8Array[] = [];
  for (let at = 0; at < b.length; ) {
    const n = v.getUint32(at, true);
    out.push(b.slice(at + 4, at + 4 + n));
    at += 4 + n;
  }
  return out;
}

const MAGIC = [0x0a, 0x23, 0xd7, 0xce];

function header(cflag: number, len: number): number[] {
  const l = cflag * 2 ** 29 + len;
  return [...MAGIC, l & 0xff, (l >>> 8) & 0xff, (l >>> 16) & 0xff, Math.floor(l / 2 ** 24) & 0xff];
}

/** Plain reference encoder: split at aligned magics, drop them, pad the end. */
export function refEncode(records: readonly Uint8Array[]): Uint8Array {
  const out: number[] = [];
  for (const r of records) {
    const pieces: number[][] = [];
    let cur: number[] = [];
    for (let i = 0; i < r.length; i++) {
      const aligned = i % 4 === 0 && i + 4 <= r.length - (r.length % 4);
      if (aligned && MAGIC.every((m, j) => r[i + j] === m)) {
        pieces.push(cur);
        cur = [];
        i += 3;
      } else {
        cur.push(r[i] as number);
      }
    }
    pieces.push(cur);
    pieces.forEach((p, k) => {
      const cflag = pieces.length === 1 ? 0 : k === 0 ? 1 : k === pieces.length - 1 ? 3 : 2;
      out.push(...header(cflag, p.length), ...p);
    });
    while (out.length % 4) out.push(0);
  }
  return Uint8Array.from(out);
}

export class RefReject extends Error {}

/**
 * Plain reference decoder with the readers' rules: each record is magic + lrec (cflag 0, or 1 then
 * 2s then 3), its part, its padding; anything else rejects. Returns payloads and header offsets.
 */
export function refDecode(b: Uint8Array): { records: Uint8Array[]; offsets: number[] } {
  const word = (i: number): number =>
    (b[i] as number) +
    (b[i + 1] as number) * 256 +
    (b[i + 2] as number) * 65536 +
    (b[i + 3] as number) * 16777216;
  const records: Uint8Array[] = [];
  const offsets: number[] = [];
  let at = 0;
  while (at < b.length) {
    offsets.push(at);
    const bytes: number[] = [];
    for (let part = 0; ; part++) {
      if (b.length - at < 8 || word(at) !== 0xced7230a) throw new RefReject();
      const lrec = word(at + 4);
      const cflag = Math.floor(lrec / 2 ** 29);
      const len = lrec % 2 ** 29;
      if (part === 0 ? cflag > 1 : cflag < 2 || cflag > 3) throw new RefReject();
      const padded = Math.ceil(len / 4) * 4;
      if (at + 8 + padded > b.length) throw new RefReject();
      if (part > 0) bytes.push(...MAGIC);
      for (let i = 0; i < len; i++) bytes.push(b[at + 8 + i] as number);
      at += 8 + padded;
      if (cflag === 0 || cflag === 3) break;
    }
    records.push(Uint8Array.from(bytes));
  }
  return { records, offsets };
}

/** A Blob of bytes (typed for TypeScript's Blob constructor). */
export function blobOf(b: Uint8Array): Blob {
  return new Blob([b as Uint8Array<ArrayBuffer>]);
}

/** Hex of bytes, for readable failures. */
export function hex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}
