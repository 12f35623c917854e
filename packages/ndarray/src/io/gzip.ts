/**
 * gzip (RFC 1952) decompression with a size cap, for IDX files as distributed (`*.gz`) and any
 * other compressed input a loader meets. Pure TypeScript on top of inflate.ts, so it works in
 * browsers as in Node and is synchronous.
 *
 * Strict where zlib's `gunzip` is lenient: every member's header (reserved flag bits, optional
 * fields, header CRC), CRC-32 and size trailer are checked; members may follow one another (as
 * `cat a.gz b.gz`), but bytes after the last member that do not start another one are an error,
 * not silently ignored. The output is capped by `maxOutput` (what a header inside the data
 * declares) and by the load's {@link Budget}; the decoder stops at the cap, so a small file that
 * inflates to gigabytes fails after producing at most the cap. `prefix` mode returns just the first
 * bytes, so a caller can read its own header before deciding how much to inflate.
 */
import { crc32, hex32 } from './crc32.js';
import { inflateBounded } from './inflate.js';
import { Budget, type LoadLimits } from './limits.js';
import { fileError } from './types.js';

export interface GunzipOptions extends LoadLimits {
  /** Names the data in errors (a file name); default "<bytes>". */
  readonly source?: string;
  /** API entry point named in errors; default "gunzip". */
  readonly op?: string;
  /**
   * The most bytes the content may have, e.g. what a header inside it declares. Counted against
   * the load's caps before anything is inflated. Default: whatever the caps allow.
   */
  readonly maxOutput?: number;
  /** What `maxOutput` is, for the error when the data inflates past it. */
  readonly limitName?: string;
  /** Return only the first `maxOutput` bytes of the content (no trailer checks). */
  readonly prefix?: boolean;
}

const FHCRC = 2;
const FEXTRA = 4;
const FNAME = 8;
const FCOMMENT = 16;
const RESERVED_FLAGS = 0xe0;
const CORRUPT_HINT = 'the file is truncated or corrupt: obtain it again';

/** True when `bytes` start with gzip's magic (1f 8b). */
export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** Decompresses gzip data (one or more members), bounded as described above. */
export function gunzip(bytes: Uint8Array, options: GunzipOptions = {}): Uint8Array {
  const op = options.op ?? 'gunzip';
  const source = options.source;
  const fail = (message: string, offset: number): Error =>
    fileError(
      op,
      source,
      `the gzip data cannot be decompressed: ${message} at offset ${offset}`,
      CORRUPT_HINT,
    );
  let cap: number;
  let limitName: string;
  if (options.prefix) {
    cap = options.maxOutput ?? 0;
    limitName = '';
  } else {
    const budget = new Budget(op, source, bytes.length, options);
    if (options.maxOutput !== undefined) {
      budget.charge(options.maxOutput, `the gzip content (${options.limitName ?? 'its declared size'})`);
      cap = options.maxOutput;
      limitName = options.limitName ?? 'its declared size';
    } else {
      cap = budget.left;
      limitName = `the cap of this load (${budget.limit} bytes; raise maxBytes or maxExpansion for a trusted file)`;
    }
  }
  const parts: Uint8Array[] = [];
  let produced = 0;
  let pos = 0;
  for (let member = 0; ; member++) {
    const where = `gzip member ${member}`;
    pos = skipHeader(bytes, pos, (m, at) => fail(`${where}: ${m}`, at));
    const dataAt = pos;
    const inflated = inflateBounded(bytes, {
      start: dataAt,
      maxOutput: cap - produced,
      limitName,
      overflowMessage: `it inflates to more than ${cap} bytes, ${limitName}`,
      stopAtMax: options.prefix === true,
      fail: (m) => fail(`${where}: deflate data: ${m}`, dataAt),
    });
    parts.push(inflated.data);
    produced += inflated.data.length;
    if (!inflated.complete) break;
    pos = inflated.end;
    if (pos + 8 > bytes.length) {
      throw fail(`${where}: truncated: the 8-byte CRC-32 and size trailer is missing`, pos);
    }
    const view = new DataView(bytes.buffer, bytes.byteOffset + pos, 8);
    const crc = view.getUint32(0, true);
    const isize = view.getUint32(4, true);
    const actual = crc32(inflated.data);
    if (crc !== actual) {
      throw fail(
        `${where}: CRC-32 mismatch: the trailer says ${hex32(crc)}, the data has ${hex32(actual)}`,
        pos,
      );
    }
    if (isize !== inflated.data.length % 2 ** 32) {
      throw fail(`${where}: the trailer says ${isize} bytes, the data has ${inflated.data.length}`, pos + 4);
    }
    pos += 8;
    if (pos === bytes.length || (options.prefix && produced >= cap)) break;
    if (!isGzip(bytes.subarray(pos))) {
      throw fail(
        `${bytes.length - pos} trailing bytes after gzip member ${member} (they do not start another member)`,
        pos,
      );
    }
  }
  if (parts.length === 1) return parts[0] as Uint8Array;
  const out = new Uint8Array(produced);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Checks one member header at `pos`; returns where its deflate data starts. */
function skipHeader(b: Uint8Array, pos: number, fail: (message: string, offset: number) => Error): number {
  const start = pos;
  if (b.length - pos < 10) throw fail('truncated: the 10-byte header is incomplete', pos);
  if (b[pos] !== 0x1f || b[pos + 1] !== 0x8b) throw fail('missing the gzip magic 1f 8b', pos);
  if (b[pos + 2] !== 8) throw fail(`unknown compression method ${b[pos + 2]} (only 8, deflate)`, pos + 2);
  const flags = b[pos + 3] as number;
  if ((flags & RESERVED_FLAGS) !== 0)
    throw fail(`reserved header flag bits are set (0x${flags.toString(16)})`, pos + 3);
  pos += 10;
  if (flags & FEXTRA) {
    if (b.length - pos < 2) throw fail('truncated: the extra field length is missing', pos);
    const xlen = (b[pos] as number) | ((b[pos + 1] as number) << 8);
    pos += 2;
    if (b.length - pos < xlen) throw fail(`truncated: the ${xlen}-byte extra field is incomplete`, pos);
    pos += xlen;
  }
  for (const [flag, what] of [
    [FNAME, 'file name'],
    [FCOMMENT, 'comment'],
  ] as const) {
    if ((flags & flag) === 0) continue;
    const nul = b.indexOf(0, pos);
    if (nul < 0) throw fail(`truncated: the ${what} has no terminating zero byte`, pos);
    pos = nul + 1;
  }
  if (flags & FHCRC) {
    if (b.length - pos < 2) throw fail('truncated: the header CRC is missing', pos);
    const stored = (b[pos] as number) | ((b[pos + 1] as number) << 8);
    const actual = crc32(b.subarray(start, pos)) & 0xffff;
    if (stored !== actual)
      throw fail(`header CRC mismatch (0x${stored.toString(16)} vs 0x${actual.toString(16)})`, pos);
    pos += 2;
  }
  return pos;
}
