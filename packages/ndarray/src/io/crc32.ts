/**
 * CRC-32 (ISO 3309, the checksum of ZIP and gzip), table-driven. Shared by the zip reader/writer
 * and the gzip reader, which both verify it over the decompressed bytes. In Node, inputs of
 * 64 KiB or more go to `zlib.crc32` (Node >= 20.15, reached through `process.getBuiltinModule`,
 * never imported), which is an order of magnitude faster; the result is the same.
 */

const CRC_TABLE: Uint32Array = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** Inputs at least this long use node:zlib's crc32 where it exists. */
const NATIVE_MIN = 1 << 16;

/** CRC-32 (ISO 3309, as ZIP and zlib) of `data`. */
export function crc32(data: Uint8Array): number {
  if (data.length >= NATIVE_MIN) {
    const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const zlib = proc?.getBuiltinModule?.('node:zlib') as { crc32?: (d: Uint8Array) => number } | undefined;
    if (typeof zlib?.crc32 === 'function') return zlib.crc32(data) >>> 0;
  }
  let c = 0xffffffff;
  for (let i = 0; i < data.length; i++)
    c = (CRC_TABLE[(c ^ (data[i] as number)) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** `v` as 8 hex digits, for messages. */
export function hex32(v: number): string {
  return `0x${(v >>> 0).toString(16).padStart(8, '0')}`;
}
