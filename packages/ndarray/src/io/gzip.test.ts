/**
 * The bounded DEFLATE decoder and gzip reader against Node's zlib (an independent implementation):
 * identical output and stream ends for every zlib level and strategy, the same accept/reject
 * decisions on damaged streams, output caps that stop or fail before more is produced, and
 * gzip's header options, multi-member files, trailers and trailing bytes.
 */
import { constants, deflateRawSync, gzipSync, inflateRawSync, crc32 as zcrc32 } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gunzip } from './gzip.js';
import { inflateBounded, inflateRaw } from './inflate.js';
import { expectMXNetError } from './test-util.js';

const fail = (m: string) => new Error(m);
const inflate = (src: Uint8Array, maxOutput = 1 << 24) =>
  inflateRaw(src, { maxOutput, limitName: 'test', fail });

/** Compressible sample data: runs, text-like bytes and noise, from a seed. */
function sampleData(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    const mode = (i >> 9) % 3;
    out[i] = mode === 0 ? 0 : mode === 1 ? 97 + ((x >>> 16) % 6) : x >>> 24;
  }
  return out;
}

describe('inflateRaw agrees with zlib', () => {
  it('every level and strategy, with the stream end reported exactly', () => {
    const strategies = [
      constants.Z_DEFAULT_STRATEGY,
      constants.Z_FILTERED,
      constants.Z_HUFFMAN_ONLY,
      constants.Z_RLE,
      constants.Z_FIXED,
    ];
    for (const n of [0, 1, 100, 70_000]) {
      const data = sampleData(n, n + 7);
      for (let level = 0; level <= 9; level++) {
        for (const strategy of strategies) {
          const z = new Uint8Array(deflateRawSync(data, { level, strategy }));
          const withTail = Uint8Array.from([...z, 1, 2, 3]);
          const r = inflate(withTail, Math.max(1, n));
          expect(r.data).toEqual(data);
          expect(r.end).toBe(z.length);
          expect(r.complete).toBe(true);
        }
      }
    }
  });

  it('damaged streams: the same decision and output as zlib (property)', () => {
    const base = new Uint8Array(deflateRawSync(sampleData(3000, 3)));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ minLength: 1, maxLength: 64 }),
          fc
            .array(fc.tuple(fc.nat(base.length - 1), fc.integer({ min: 0, max: 255 })), {
              minLength: 1,
              maxLength: 3,
            })
            .map((edits) => {
              const b = base.slice();
              for (const [at, v] of edits) b[at] = v;
              return b;
            }),
        ),
        (src) => {
          let want: { data: Uint8Array; end: number } | null;
          try {
            const r = inflateRawSync(src, { info: true }) as unknown as {
              buffer: Buffer;
              engine: { bytesWritten: number };
            };
            want = { data: new Uint8Array(r.buffer), end: r.engine.bytesWritten };
          } catch {
            want = null;
          }
          let got: { data: Uint8Array; end: number } | null;
          try {
            const r = inflate(src);
            got = { data: r.data, end: r.end };
          } catch {
            got = null;
          }
          expect(got).toEqual(want);
        },
      ),
      { seed: 1032, numRuns: 600 },
    );
  });

  it('stops at the cap (stopAtMax) or fails when the stream produces more', () => {
    const data = sampleData(50_000, 9);
    const z = new Uint8Array(deflateRawSync(data));
    const head = inflateRaw(z, { maxOutput: 1000, limitName: 'x', stopAtMax: true, fail });
    expect(head.complete).toBe(false);
    expect(head.data).toEqual(data.subarray(0, 1000));
    expect(() => inflateRaw(z, { maxOutput: 49_999, limitName: 'the declared size', fail })).toThrow(
      'it inflates to more than 49999 bytes, the declared size',
    );
    // A bound far above the real size allocates as it goes and returns exactly the content.
    const big = inflateRaw(z, { maxOutput: 2 ** 30, limitName: 'x', fail });
    expect(big.data).toEqual(data);
    expect(big.data.buffer.byteLength).toBe(data.length);
  });
});

describe('inflateBounded (node:zlib for large streams in Node) decides as inflateRaw', () => {
  it('same output, end, overflow and truncation errors', () => {
    // Half noise (xorshift), half runs: compressible, but still over 64 KiB once deflated.
    let x = 2463534242;
    const data = sampleData(300_000, 5).map((v, i) => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return i % 1024 < 512 ? x & 0xff : v;
    });
    for (const level of [0, 6]) {
      const z = Uint8Array.from([...deflateRawSync(data, { level }), 9, 9]);
      expect(z.length).toBeGreaterThan(1 << 16);
      const opts = { maxOutput: data.length, limitName: 'the declared size', fail };
      const fast = inflateBounded(z, opts);
      const portable = inflateRaw(z, opts);
      expect(fast.data).toEqual(data);
      expect(portable.data).toEqual(data);
      expect(fast.end).toBe(portable.end);
      for (const f of [inflateBounded, inflateRaw]) {
        expect(() => f(z, { ...opts, maxOutput: data.length - 1 })).toThrow(
          `it inflates to more than ${data.length - 1} bytes, the declared size`,
        );
        expect(() => f(z.subarray(0, z.length - 1000), opts)).toThrow('the stream ends early');
      }
    }
  });
});

describe('gunzip', () => {
  const content = sampleData(5000, 1);
  const gz = new Uint8Array(gzipSync(content));

  it('reads one or more members, and only the prefix when asked', () => {
    expect(gunzip(gz)).toEqual(content);
    const two = Uint8Array.from([...gz, ...gzipSync(Uint8Array.of(1, 2, 3))]);
    expect(gunzip(two)).toEqual(Uint8Array.from([...content, 1, 2, 3]));
    expect(gunzip(gz, { prefix: true, maxOutput: 10 })).toEqual(content.subarray(0, 10));
    expect(gunzip(gz, { maxOutput: 5000 })).toEqual(content);
  });

  it('honours the optional header fields (FEXTRA, FNAME, FCOMMENT, FHCRC)', () => {
    const deflated = new Uint8Array(deflateRawSync(content));
    const trailer = new Uint8Array(8);
    new DataView(trailer.buffer).setUint32(0, zcrc32(content), true);
    new DataView(trailer.buffer).setUint32(4, content.length, true);
    const head = [
      0x1f,
      0x8b,
      8,
      4 | 8 | 16 | 2,
      0,
      0,
      0,
      0,
      0,
      255,
      3,
      0,
      65,
      66,
      67,
      ...Buffer.from('name\0note\0'),
    ];
    const hcrc = zcrc32(Uint8Array.from(head)) & 0xffff;
    const file = Uint8Array.from([...head, hcrc & 0xff, hcrc >> 8, ...deflated, ...trailer]);
    expect(gunzip(file)).toEqual(content);
    file[head.length] = (file[head.length] as number) ^ 1;
    expectMXNetError(() => gunzip(file, { source: 'h.gz' }), 'h.gz', 'header CRC mismatch');
  });

  it('rejects trailing bytes, bad trailers, reserved flags and truncation, naming the offset', () => {
    expectMXNetError(
      () => gunzip(Uint8Array.from([...gz, 0]), { source: 'a.gz' }),
      'a.gz',
      '1 trailing bytes after gzip member 0',
      `offset ${gz.length}`,
    );
    const crc = gz.slice();
    crc[gz.length - 8] = (crc[gz.length - 8] as number) ^ 1;
    expectMXNetError(() => gunzip(crc), 'CRC-32 mismatch');
    const size = gz.slice();
    size[gz.length - 1] = (size[gz.length - 1] as number) ^ 1;
    expectMXNetError(() => gunzip(size), 'the trailer says');
    const flags = gz.slice();
    flags[3] = 0x20;
    expectMXNetError(() => gunzip(flags), 'reserved header flag bits');
    for (const n of [0, 5, 10, 20, gz.length - 8, gz.length - 1])
      expectMXNetError(() => gunzip(gz.subarray(0, n)), 'cannot be decompressed');
  });

  it('refuses a declared size over the load caps before inflating anything', () => {
    // The data is not even valid DEFLATE: the cap check must come first.
    const junk = Uint8Array.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255, 7, 7, 7]);
    expectMXNetError(
      () => gunzip(junk, { maxOutput: 2 ** 40, source: 'b.gz' }),
      'b.gz',
      'over its cap',
      'maxExpansion 1032 x 13 input bytes + 1 MiB',
    );
    expectMXNetError(
      () => gunzip(junk, { maxOutput: 2 ** 40, maxExpansion: Infinity }),
      'maxBytes 2147483648',
    );
    expectMXNetError(() => gunzip(junk, { maxOutput: 5000, maxBytes: 4096 }), 'over its cap of 4096');
    expectMXNetError(
      () => gunzip(junk, { maxOutput: 2 ** 21, maxExpansion: 1 }),
      'maxExpansion 1 x 13 input bytes',
    );
    expectMXNetError(() => gunzip(gz, { maxBytes: 0 }), 'maxBytes must be a positive number');
    // Without a declared size the cap itself bounds the output.
    expectMXNetError(
      () => gunzip(gz, { maxBytes: 4000 }),
      'inflates to more than 4000 bytes',
      'the cap of this load',
    );
  });
});
