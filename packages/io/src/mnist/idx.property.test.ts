/**
 * Mutation fuzzing of parseIdx, plain and gzip-compressed (fast-check, fixed seed, bounded
 * counts): truncations, trailing bytes (and a whole extra gzip member), edited magics and sizes,
 * edited gzip trailers, and random byte flips in both forms. The parser must agree with a plain
 * reference decoder (gzip through Node's zlib, an independent DEFLATE): reject what it rejects,
 * and otherwise return exactly the elements the bytes hold. Classes that can never give a valid
 * file must always be rejected; anything but an MXNetError fails. MX_FUZZ_REPORT=1 prints the
 * per-class counts, MX_FUZZ_SCALE=10 runs ten times as many cases.
 */
import { crc32, gzipSync, inflateRawSync } from 'node:zlib';
import { isMXNetError } from '@mx/base';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { parseIdx } from './idx.js';

const SEED = 0x1d5;
const SCALE = Number(process.env.MX_FUZZ_SCALE ?? 1);
const TYPES: Readonly<Record<number, [string, number]>> = {
  8: ['uint8', 1],
  9: ['int8', 1],
  11: ['int16', 2],
  12: ['int32', 4],
  13: ['float32', 4],
  14: ['float64', 8],
};

interface Content {
  dtype: string;
  shape: number[];
  values: number[];
}

class Reject extends Error {}
const reject = (): never => {
  throw new Reject();
};

/** Plain IDX, straight from the format description. */
function refPlain(b: Uint8Array): Content {
  if (b.length < 4 || b[0] !== 0 || b[1] !== 0) reject();
  const t = TYPES[b[2] as number];
  const ndim = b[3] as number;
  if (t === undefined || ndim === 0 || b.length < 4 + 4 * ndim) return reject();
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const shape: number[] = [];
  for (let d = 0; d < ndim; d++) {
    const s = v.getInt32(4 + 4 * d);
    if (s < 0) reject();
    shape.push(s);
  }
  const n = shape.reduce((x, y) => x * y, 1);
  if (b.length !== 4 + 4 * ndim + n * t[1]) reject();
  const values: number[] = [];
  for (let i = 0; i < n; i++) {
    const at = 4 + 4 * ndim + i * t[1];
    values.push(
      t[0] === 'uint8'
        ? v.getUint8(at)
        : t[0] === 'int8'
          ? v.getInt8(at)
          : t[0] === 'int16'
            ? v.getInt16(at)
            : t[0] === 'int32'
              ? v.getInt32(at)
              : t[0] === 'float32'
                ? v.getFloat32(at)
                : v.getFloat64(at),
    );
  }
  return { dtype: t[0], shape, values };
}

/** RFC 1952 members, nothing after the last; DEFLATE and CRC-32 from Node's zlib. */
function refGunzip(b: Uint8Array): Uint8Array {
  const parts: number[] = [];
  let pos = 0;
  do {
    const start = pos;
    if (b.length - pos < 10 || b[pos] !== 0x1f || b[pos + 1] !== 0x8b || b[pos + 2] !== 8) reject();
    const flg = b[pos + 3] as number;
    if (flg & 0xe0) reject();
    pos += 10;
    if (flg & 4) {
      if (pos + 2 > b.length) reject();
      pos += 2 + ((b[pos] as number) | ((b[pos + 1] as number) << 8));
    }
    for (const f of [8, 16]) {
      if (flg & f) {
        const nul = b.indexOf(0, pos);
        if (nul < 0) reject();
        pos = nul + 1;
      }
    }
    if (flg & 2) {
      if (pos + 2 > b.length) reject();
      if (((b[pos] as number) | ((b[pos + 1] as number) << 8)) !== (crc32(b.subarray(start, pos)) & 0xffff))
        reject();
      pos += 2;
    }
    if (pos > b.length) reject();
    let r: { buffer: Buffer; engine: { bytesWritten: number } };
    try {
      r = inflateRawSync(b.subarray(pos), { info: true }) as unknown as typeof r;
    } catch {
      return reject();
    }
    pos += r.engine.bytesWritten;
    if (pos + 8 > b.length) reject();
    const v = new DataView(b.buffer, b.byteOffset + pos, 8);
    if (v.getUint32(0, true) !== crc32(r.buffer) || v.getUint32(4, true) !== r.buffer.length) reject();
    pos += 8;
    parts.push(...r.buffer);
  } while (pos < b.length);
  return Uint8Array.from(parts);
}

const refIdx = (b: Uint8Array): Content | null => {
  try {
    return refPlain(b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b ? refGunzip(b) : b);
  } catch (e) {
    if (e instanceof Reject) return null;
    throw e;
  }
};

const stats = new Map<string, { runs: number; rejected: number; accepted: number }>();
afterAll(() => {
  if (!process.env.MX_FUZZ_REPORT) return;
  for (const [k, s] of stats)
    console.log(`${k.padEnd(30)} ${s.runs} runs, ${s.rejected} rejected, ${s.accepted} accepted`);
});

function check(key: string, bytes: Uint8Array, mustReject: boolean): void {
  const s = stats.get(key) ?? { runs: 0, rejected: 0, accepted: 0 };
  stats.set(key, s);
  s.runs++;
  const want = refIdx(bytes);
  if (mustReject) expect(want).toBeNull();
  let got: Content;
  try {
    const r = parseIdx(bytes, 'fuzz');
    got = { dtype: r.dtype, shape: [...r.shape], values: Array.from(r.data as ArrayLike<number>) };
  } catch (e) {
    if (!isMXNetError(e)) throw e;
    s.rejected++;
    if (want !== null) throw new Error(`false rejection: ${(e as Error).message}`);
    return;
  }
  s.accepted++;
  if (want === null) throw new Error('silent acceptance of a file the reference rejects');
  expect(got).toEqual(want);
}

const arbFile = fc
  .record({
    type: fc.constantFrom(8, 9, 11, 12, 13, 14),
    shape: fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 3 }),
    seed: fc.nat(255),
  })
  .map(({ type, shape, seed }) => {
    const n = shape.reduce((a, b) => a * b, 1) * (TYPES[type] as [string, number])[1];
    const out = new Uint8Array(4 + 4 * shape.length + n);
    const v = new DataView(out.buffer);
    out[2] = type;
    out[3] = shape.length;
    shape.forEach((d, i) => {
      v.setInt32(4 + 4 * i, d);
    });
    for (let i = 0; i < n; i++) out[4 + 4 * shape.length + i] = (i * 29 + seed) & 0xff;
    return out;
  });
const arbPick = fc.double({ min: 0, max: 0.999999, noNaN: true });
const arbFlips = fc.array(fc.tuple(arbPick, fc.integer({ min: 0, max: 255 })), {
  minLength: 1,
  maxLength: 4,
});
const flipped = (b: Uint8Array, flips: [number, number][]) => {
  const out = b.slice();
  for (const [at, x] of flips) out[Math.floor(at * out.length)] = x;
  return out;
};
const cut = (b: Uint8Array, at: number) => b.subarray(0, Math.floor(at * b.length));
const append = (b: Uint8Array, x: Uint8Array) => Uint8Array.from([...b, ...x]);
const gz = (b: Uint8Array) => new Uint8Array(gzipSync(b));
const run = <T>(arb: fc.Arbitrary<T>, body: (x: T) => void, numRuns = 100) =>
  fc.assert(
    fc.property(arb, (x) => {
      body(x);
    }),
    { seed: SEED, numRuns: Math.round(numRuns * SCALE) },
  );

describe.each([
  ['plain', (b: Uint8Array) => b],
  ['gzip', gz],
] as const)('IDX files (%s)', (form, wrap) => {
  const key = (cls: string) => `idx/${form}/${cls}`;
  it('valid files load exactly', () => run(arbFile, (f) => check(key('valid'), wrap(f), false)));
  it('truncation at any offset is rejected', () =>
    run(fc.tuple(arbFile, arbPick), ([f, at]) => check(key('truncation'), cut(wrap(f), at), true)));
  it('trailing bytes are rejected', () =>
    run(fc.tuple(arbFile, fc.uint8Array({ minLength: 1, maxLength: 16 })), ([f, x]) =>
      check(key('trailing bytes'), append(wrap(f), x[0] === 0x1f ? Uint8Array.of(0, ...x) : x), true),
    ));
  it('edited magics and sizes', () =>
    run(fc.tuple(arbFile, arbPick, fc.integer({ min: 0, max: 255 })), ([f, at, x]) => {
      const out = f.slice();
      out[Math.floor(at * Math.min(out.length, 4 + 4 * (f[3] as number)))] = x;
      check(key('header edits'), wrap(out), false);
    }));
  it('random byte flips', () =>
    run(
      fc.tuple(arbFile, arbFlips),
      ([f, flips]) => check(key('byte flips'), flipped(wrap(f), flips), false),
      200,
    ));
});

describe('gzip-only mutations', () => {
  it('an extra member of content past the declared size is rejected', () =>
    run(fc.tuple(arbFile, fc.uint8Array({ minLength: 1, maxLength: 64 })), ([f, x]) =>
      check('idx/gzip/extra member', append(gz(f), gz(x)), true),
    ));
  it('edited CRC-32 or size trailers are rejected', () =>
    run(
      fc.tuple(arbFile, fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 255 })),
      ([f, back, x]) => {
        const b = gz(f);
        b[b.length - back] = ((b[b.length - back] as number) + x) & 0xff;
        check('idx/gzip/trailer edits', b, true);
      },
    ));
});
