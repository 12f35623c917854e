/**
 * Reads a packed .tgz in memory (gunzip, then the tar headers: ustar names with their prefix, pax
 * `path` records and GNU long names), so the contents check needs no `tar` binary and sees exactly
 * the bytes npm would unpack. Entries are keyed by their path inside the package (without the
 * leading `package/`). A malformed archive is an error naming the offset.
 */
import { gunzipSync } from 'node:zlib';

const BLOCK = 512;

function field(header: Uint8Array, offset: number, length: number): string {
  const bytes = header.subarray(offset, offset + length);
  const end = bytes.indexOf(0);
  return new TextDecoder().decode(end < 0 ? bytes : bytes.subarray(0, end));
}

function octal(header: Uint8Array, offset: number, length: number, at: number): number {
  const text = field(header, offset, length).trim();
  if (!/^[0-7]*$/.test(text)) throw new Error(`tar: bad octal field "${text}" in the header at byte ${at}`);
  return text === '' ? 0 : Number.parseInt(text, 8);
}

/** Parse a pax extended header's `length key=value\n` records. */
function paxRecords(data: Uint8Array): Map<string, string> {
  const out = new Map<string, string>();
  const text = new TextDecoder().decode(data);
  for (const m of text.matchAll(/\d+ ([^=\n]+)=([^\n]*)\n/g)) out.set(m[1] as string, m[2] as string);
  return out;
}

/** The regular files of a gzip-compressed tarball: path (without `package/`) → bytes. */
export function readTarball(gz: Uint8Array): Map<string, Uint8Array> {
  const tar = gunzipSync(gz);
  const files = new Map<string, Uint8Array>();
  let nextName: string | undefined;
  for (let at = 0; at + BLOCK <= tar.length; ) {
    const header = tar.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) break;
    const size = octal(header, 124, 12, at);
    const type = String.fromCharCode(header[156] ?? 0);
    const dataStart = at + BLOCK;
    if (dataStart + size > tar.length) throw new Error(`tar: entry at byte ${at} runs past the archive end`);
    const data = tar.subarray(dataStart, dataStart + size);
    const prefix = field(header, 345, 155);
    const headerName = prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100);
    if (type === 'x') {
      nextName = paxRecords(data).get('path');
    } else if (type === 'L') {
      nextName = field(data, 0, data.length);
    } else if (type === '0' || type === '\0') {
      const name = (nextName ?? headerName).replace(/^package\//, '');
      files.set(name, data);
      nextName = undefined;
    } else {
      nextName = undefined;
    }
    at = dataStart + Math.ceil(size / BLOCK) * BLOCK;
  }
  return files;
}
