import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { isMXNetError, MXNetError } from '@mx/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIdx } from './idx.js';

/** An IDX file: magic 00 00 type ndim, big-endian int32 sizes, then `body`. */
function idx(type: number, shape: readonly number[], body: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + 4 * shape.length + body.length);
  const view = new DataView(out.buffer);
  out[2] = type;
  out[3] = shape.length;
  for (const [d, s] of shape.entries()) view.setInt32(4 + 4 * d, s, false);
  out.set(body, 4 + 4 * shape.length);
  return out;
}

const bigEndian = (n: number, write: (v: DataView, i: number) => void, bytes: number): Uint8Array => {
  const out = new Uint8Array(n * bytes);
  const v = new DataView(out.buffer);
  for (let i = 0; i < n; i++) write(v, i);
  return out;
};

function expectError(f: () => unknown, text: string): void {
  let error: unknown;
  try {
    f();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(MXNetError);
  expect((error as Error).message).toContain(text);
}

describe('parseIdx', () => {
  it('reads an MNIST-style uint8 image file (n, rows, cols) as a view on the bytes', () => {
    const body = Uint8Array.from({ length: 2 * 3 * 4 }, (_, i) => i * 10);
    const file = idx(0x08, [2, 3, 4], body);
    const parsed = parseIdx(file);
    expect(parsed.dtype).toBe('uint8');
    expect(parsed.shape).toEqual([2, 3, 4]);
    expect(Array.from(parsed.data as Uint8Array)).toEqual(Array.from(body));
    expect((parsed.data as Uint8Array).buffer).toBe(file.buffer);
  });

  it('reads every IDX element type big-endian', () => {
    const cases = [
      { type: 0x09, dtype: 'int8', values: [-128, -1, 0, 127], body: Uint8Array.from([0x80, 0xff, 0, 0x7f]) },
      {
        type: 0x0b,
        dtype: 'int16',
        values: [-2, 300],
        body: bigEndian(2, (v, i) => v.setInt16(2 * i, [-2, 300][i] as number, false), 2),
      },
      {
        type: 0x0c,
        dtype: 'int32',
        values: [-70000, 123456789],
        body: bigEndian(2, (v, i) => v.setInt32(4 * i, [-70000, 123456789][i] as number, false), 4),
      },
      {
        type: 0x0d,
        dtype: 'float32',
        values: [1.5, -0.25],
        body: bigEndian(2, (v, i) => v.setFloat32(4 * i, [1.5, -0.25][i] as number, false), 4),
      },
      {
        type: 0x0e,
        dtype: 'float64',
        values: [Math.PI, -1e300],
        body: bigEndian(2, (v, i) => v.setFloat64(8 * i, [Math.PI, -1e300][i] as number, false), 8),
      },
    ];
    for (const c of cases) {
      const parsed = parseIdx(idx(c.type, [c.values.length], c.body));
      expect(parsed.dtype).toBe(c.dtype);
      expect(Array.from(parsed.data as ArrayLike<number>)).toEqual(c.values);
    }
  });

  it('reads gzip-compressed files and zero-size ones', () => {
    const file = idx(0x08, [3], Uint8Array.from([7, 2, 1]));
    expect(Array.from(parseIdx(gzipSync(file)).data as Uint8Array)).toEqual([7, 2, 1]);
    expect(parseIdx(idx(0x08, [0, 28, 28], new Uint8Array(0))).shape).toEqual([0, 28, 28]);
  });

  it('rejects files without an IDX magic', () => {
    expectError(() => parseIdx(new Uint8Array(0)), 'too few for an IDX header');
    expectError(() => parseIdx(Uint8Array.from([0, 0, 8])), 'too few for an IDX header');
    expectError(() => parseIdx(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0])), 'found 0x89504e47');
    expectError(() => parseIdx(idx(0x0a, [1], Uint8Array.from([1]))), 'does not start with an IDX magic');
    expectError(() => parseIdx(Uint8Array.from([0, 0, 8, 0])), 'does not start with an IDX magic');
  });

  it('rejects truncated headers, bad sizes, truncated data and trailing bytes', () => {
    const good = idx(0x08, [2, 2, 2], new Uint8Array(8));
    expectError(
      () => parseIdx(good.subarray(0, 10)),
      'truncated: its magic 0x00000803 announces 3 dimension sizes',
    );
    expectError(() => parseIdx(good.subarray(0, good.length - 1), 'image'), 'the image file');
    expectError(() => parseIdx(good.subarray(0, good.length - 1)), 'i.e. 24 bytes, but the file has 23');
    const padded = new Uint8Array(good.length + 4);
    padded.set(good);
    expectError(() => parseIdx(padded), 'but the file has 28');
    expectError(() => parseIdx(idx(0x08, [-1], new Uint8Array(0))), 'negative size -1');
    expectError(() => parseIdx(gzipSync(good).subarray(0, 20)), 'the gzip data cannot be decompressed');
  });

  it('never accepts a truncated or extended file (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(0x08, 0x0b, 0x0d, 0x0e),
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: -40, max: 40 }).filter((d) => d !== 0),
        (type, shape, delta) => {
          const bytes = { 8: 1, 11: 2, 13: 4, 14: 8 }[type] as number;
          const full = idx(type, shape, new Uint8Array(shape.reduce((a, b) => a * b, 1) * bytes));
          expect(parseIdx(full).shape).toEqual(shape);
          const length = Math.max(0, full.length + delta);
          const changed = new Uint8Array(length);
          changed.set(full.subarray(0, Math.min(length, full.length)));
          try {
            parseIdx(changed);
            return false;
          } catch (e) {
            return isMXNetError(e);
          }
        },
      ),
    );
  });

  it('reads a gzip file only as far as its header declares (the committed bomb fails at 7,856 bytes)', () => {
    // tools/golden/loader-bombs.py: header (10, 28, 28) uint8, gzip content of 256 MiB.
    const bomb = new Uint8Array(
      readFileSync(new URL('./__fixtures__/bomb-idx-declares-7856-inflates-256mib.gz', import.meta.url)),
    );
    expectError(
      () => parseIdx(bomb, 'bomb'),
      'it inflates to more than 7856 bytes, the size its IDX header declares',
    );
    // Shorter content than declared, and a second member adding content, fail too.
    const good = idx(0x08, [2, 3], Uint8Array.from([1, 2, 3, 4, 5, 6]));
    expectError(
      () => parseIdx(gzipSync(good.subarray(0, 16))),
      'i.e. 18 bytes, but the decompressed file has 16',
    );
    expectError(
      () => parseIdx(Uint8Array.from([...gzipSync(good), ...gzipSync(Uint8Array.of(7))])),
      'inflates to more than 18 bytes',
    );
    expect(
      Array.from(
        parseIdx(Uint8Array.from([...gzipSync(good.subarray(0, 9)), ...gzipSync(good.subarray(9))]))
          .data as Uint8Array,
      ),
    ).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('refuses a declared size over the load caps before inflating or copying', () => {
    const header = idx(0x0e, [1 << 14, 1 << 14], new Uint8Array(0)); // 2 GiB of float64 declared
    expectError(() => parseIdx(gzipSync(header)), 'over its cap');
    expectError(() => parseIdx(header), "over the load's maxBytes of 2147483648");
    const small = idx(0x08, [100], new Uint8Array(100));
    expectError(() => parseIdx(gzipSync(small), 'x', { maxBytes: 50 }), 'over its cap of 50');
    expectError(() => parseIdx(small, 'x', { maxBytes: 50 }), 'maxBytes of 50');
  });
});
