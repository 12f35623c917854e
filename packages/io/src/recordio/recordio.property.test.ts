/**
 * Property and mutation fuzzing (fast-check, fixed seed, bounded runs; MX_FUZZ_SCALE=10 runs ten
 * times as many): random records with the magic number planted at aligned and unaligned offsets
 * must be framed exactly like the test's plain reference encoder and read back through the sync and
 * async readers with random buffer sizes (and `readView`, mixed with `read` at random, without
 * changing what `read` returned); every part split must hand out each record once, to the
 * part its header starts in (bounds moved to the next record head, as dmlc does); mutated files
 * (flips, truncations, junk, planted magics, edited lrec words) must read exactly as the reference
 * decoder reads them or fail with an MXNetError, never anything else, never hang, and the reader
 * must work again after reset(). Seeks succeed at record heads and fail elsewhere.
 */
import { isMXNetError } from '@mx/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RecordIOBlobReader } from './blob-reader.js';
import { MXRecordIO } from './recordio.js';
import { InMemoryFile } from './source.js';
import { blobOf, hex, RefReject, refDecode, refEncode } from './test-util.js';

const SEED = 0x7ec0;
const SCALE = Number(process.env.MX_FUZZ_SCALE ?? 1);
const MAGIC = [0x0a, 0x23, 0xd7, 0xce];

/** A payload of random bytes with magics planted at some offsets (aligned ones are likelier). */
const payloadArb = fc
  .tuple(
    fc.uint8Array({ maxLength: 90 }),
    fc.array(fc.tuple(fc.nat(), fc.boolean()), { maxLength: 5 }),
    fc.constantFrom(0, 1, 2, 3),
  )
  .map(([bytes, plants, tail]) => {
    const b = Uint8Array.from([...bytes, ...new Array(tail).fill(7)]);
    for (const [at, aligned] of plants) {
      if (b.length < 4) break;
      const max = b.length - 4;
      const pos = aligned ? (at % (Math.floor(max / 4) + 1)) * 4 : at % (max + 1);
      b.set(MAGIC, pos);
    }
    return b;
  });
const recordsArb = fc.array(payloadArb, { maxLength: 12 });

function readAllSync(bytes: Uint8Array, bufferSize: number): { records: Uint8Array[]; offsets: number[] } {
  const r = new MXRecordIO(bytes, 'r', { bufferSize });
  const records: Uint8Array[] = [];
  const offsets: number[] = [];
  for (let t = r.tell(), p = r.read(); p !== null; t = r.tell(), p = r.read()) {
    records.push(p);
    offsets.push(t);
  }
  return { records, offsets };
}

async function readAllAsync(bytes: Uint8Array, bufferSize: number): Promise<Uint8Array[]> {
  const r = await RecordIOBlobReader.open(blobOf(bytes), { bufferSize });
  const out: Uint8Array[] = [];
  for await (const p of r) out.push(p);
  return out;
}

describe('RecordIO properties', () => {
  it('frames like the reference encoder and reads back (sync, async, any buffer size)', async () => {
    await fc.assert(
      fc.asyncProperty(recordsArb, fc.integer({ min: 1, max: 300 }), async (recs, bufferSize) => {
        const mem = new InMemoryFile();
        const w = new MXRecordIO(mem, 'w', { bufferSize });
        for (const r of recs) w.write(r);
        w.close();
        const bytes = mem.bytes();
        expect(hex(bytes)).toBe(hex(refEncode(recs)));
        const back = readAllSync(bytes, bufferSize);
        expect(back.records.map(hex)).toEqual(recs.map(hex));
        expect(back.offsets).toEqual(refDecode(bytes).offsets);
        expect((await readAllAsync(bytes, bufferSize)).map(hex)).toEqual(recs.map(hex));
      }),
      { seed: SEED, numRuns: 150 * SCALE },
    );
  });

  it('readView gives what read() gives, mixed with read() in any order, leaving read()’s records alone', () => {
    fc.assert(
      fc.property(
        recordsArb,
        fc.integer({ min: 1, max: 300 }),
        fc.array(fc.boolean(), { maxLength: 14 }),
        (recs, bufferSize, views) => {
          const bytes = refEncode(recs);
          const r = new MXRecordIO(bytes, 'r', { bufferSize });
          const got: string[] = [];
          const owned: [Uint8Array, string][] = [];
          for (let i = 0; ; i++) {
            const view = views[i] ?? true;
            const p = view ? r.readView() : r.read();
            if (p === null) break;
            got.push(hex(p));
            if (!view) owned.push([p, hex(p)]);
          }
          expect(got).toEqual(recs.map(hex));
          for (const [p, h] of owned) expect(hex(p)).toBe(h);
        },
      ),
      { seed: SEED, numRuns: 150 * SCALE },
    );
  });

  it('splits into parts: each record once, in the part its header starts in', () => {
    fc.assert(
      fc.property(
        recordsArb,
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 8, max: 200 }),
        (recs, numParts, bufferSize) => {
          const bytes = refEncode(recs);
          const { offsets } = refDecode(bytes);
          // Reference: bounds of ceil(size / n) rounded up to 4, moved to the next record head.
          const nstep = Math.ceil(Math.ceil(bytes.length / numParts) / 4) * 4;
          const head = (x: number): number => offsets.find((o) => o >= x) ?? bytes.length;
          const seen: number[] = [];
          for (let k = 0; k < numParts; k++) {
            const b0 = Math.min(nstep * k, bytes.length);
            const e0 = Math.min(nstep * (k + 1), bytes.length);
            const [b, e] =
              b0 === e0 ? [b0, b0] : [b0 === 0 ? 0 : head(b0), e0 === bytes.length ? e0 : head(e0)];
            const want = offsets.map((o, i) => [o, i] as const).filter(([o]) => o >= b && o < e);
            const r = new MXRecordIO(bytes, 'r', { numParts, partIndex: k, bufferSize });
            const got: number[] = [];
            for (let t = r.tell(), p = r.read(); p !== null; t = r.tell(), p = r.read()) {
              const i = offsets.indexOf(t);
              expect(hex(p)).toBe(hex(recs[i] as Uint8Array));
              got.push(i);
            }
            expect(got).toEqual(want.map(([, i]) => i));
            seen.push(...got);
          }
          expect(seen).toEqual(recs.map((_, i) => i));
        },
      ),
      { seed: SEED + 1, numRuns: 200 * SCALE },
    );
  });

  const mutationArb = fc.oneof(
    fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), xor: fc.integer({ min: 1, max: 255 }) }),
    fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('junk' as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 12 }) }),
    fc.record({ kind: fc.constant('magic' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('lrec' as const), at: fc.nat(), word: fc.nat({ max: 0xffffffff }) }),
    fc.record({ kind: fc.constant('cflag' as const), at: fc.nat(), cflag: fc.integer({ min: 0, max: 7 }) }),
    fc.record({
      kind: fc.constant('insert' as const),
      at: fc.nat(),
      bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }),
    }),
  );
  type Mutation = typeof mutationArb extends fc.Arbitrary<infer T> ? T : never;

  function mutate(src: Uint8Array, m: Mutation): Uint8Array {
    const b = Uint8Array.from(src);
    const words = Math.floor(b.length / 4);
    const put = (i: number, w: number): void => new DataView(b.buffer).setUint32(i, w >>> 0, true);
    switch (m.kind) {
      case 'flip':
        if (b.length) b[m.at % b.length] = (b[m.at % b.length] as number) ^ m.xor;
        return b;
      case 'truncate':
        return b.subarray(0, m.at % (b.length + 1));
      case 'junk':
        return Uint8Array.from([...b, ...m.bytes]);
      case 'magic':
        if (words) b.set(MAGIC, (m.at % words) * 4);
        return b;
      case 'lrec':
        if (words) put((m.at % words) * 4, m.word);
        return b;
      case 'cflag': {
        // Rewrite the flag of one real header's lrec word.
        const heads = [...Array(words).keys()]
          .map((i) => i * 4)
          .filter((i) => MAGIC.every((x, j) => b[i + j] === x) && i + 8 <= b.length);
        if (heads.length) {
          const at = (heads[m.at % heads.length] as number) + 4;
          const v = new DataView(b.buffer);
          put(at, (v.getUint32(at, true) & (2 ** 29 - 1)) + m.cflag * 2 ** 29);
        }
        return b;
      }
      case 'insert': {
        const at = m.at % (b.length + 1);
        return Uint8Array.from([...b.subarray(0, at), ...m.bytes, ...b.subarray(at)]);
      }
    }
  }

  it('mutated files read as the reference decoder reads them, or fail with an MXNetError', async () => {
    const counts: Record<string, number> = {};
    await fc.assert(
      fc.asyncProperty(
        recordsArb,
        fc.array(mutationArb, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 8, max: 120 }),
        async (recs, ms, bufferSize) => {
          const bytes = ms.reduce(mutate, refEncode(recs));
          let want: Uint8Array[] | 'reject';
          try {
            want = refDecode(bytes).records;
          } catch (e) {
            if (!(e instanceof RefReject)) throw e;
            want = 'reject';
          }
          const key = `${(ms[0] as Mutation).kind}${ms.length > 1 ? '+' : ''}:${want === 'reject' ? 'rejected' : 'read'}`;
          counts[key] = (counts[key] ?? 0) + 1;
          // Sync reader: read to the end or to the first error; the records before it must match.
          const r = new MXRecordIO(bytes, 'r', { bufferSize });
          const got: Uint8Array[] = [];
          let failed = false;
          try {
            for (let p = r.read(); p !== null; p = r.read()) got.push(p);
          } catch (e) {
            if (!isMXNetError(e)) throw e;
            failed = true;
          }
          if (want === 'reject') expect(failed).toBe(true);
          else {
            expect(failed).toBe(false);
            expect(got.map(hex)).toEqual(want.map(hex));
          }
          // After reset() the reader starts over and gets as far again.
          r.reset();
          for (const p of got) expect(hex(r.read() as Uint8Array)).toBe(hex(p));
          // The async reader agrees.
          let asyncGot: Uint8Array[] | 'reject';
          try {
            asyncGot = await readAllAsync(bytes, bufferSize);
          } catch (e) {
            if (!isMXNetError(e)) throw e;
            asyncGot = 'reject';
          }
          expect(asyncGot === 'reject' ? 'reject' : asyncGot.map(hex)).toEqual(
            want === 'reject' ? 'reject' : want.map(hex),
          );
          // Part splits of mutated files end (records or MXNetError), whatever the bytes.
          for (const numParts of [2, 3]) {
            for (let k = 0; k < numParts; k++) {
              try {
                const part = new MXRecordIO(bytes, 'r', { numParts, partIndex: k, bufferSize });
                for (let n = 0; part.read() !== null; n++) expect(n).toBeLessThan(bytes.length);
              } catch (e) {
                if (!isMXNetError(e)) throw e;
              }
            }
          }
        },
      ),
      { seed: SEED + 2, numRuns: 400 * SCALE },
    );
    if (process.env.MX_FUZZ_REPORT) console.log(counts);
    const total = (outcome: string): number =>
      Object.entries(counts).reduce((n, [k, c]) => n + (k.endsWith(outcome) ? c : 0), 0);
    // Both outcomes are exercised: files still readable after the mutation, and corrupt ones.
    expect(total(':rejected')).toBeGreaterThan(100 * SCALE);
    expect(total(':read')).toBeGreaterThan(20 * SCALE);
  });

  it('seeks succeed at record heads and fail where no record starts', () => {
    fc.assert(
      fc.property(recordsArb, fc.nat(), (recs, at) => {
        const bytes = refEncode(recs);
        const { offsets } = refDecode(bytes);
        const r = new MXRecordIO(bytes, 'r', { bufferSize: 32 });
        offsets.forEach((o, i) => {
          r.seekOffset(o);
          expect(hex(r.read() as Uint8Array)).toBe(hex(recs[i] as Uint8Array));
        });
        const x = at % (bytes.length + 8);
        const looksLikeHead =
          x + 8 <= bytes.length &&
          MAGIC.every((m, j) => bytes[x + j] === m) &&
          (bytes[x + 7] as number) >> 5 <= 1;
        if (offsets.includes(x) || x === bytes.length) {
          r.seekOffset(x);
        } else if (!looksLikeHead) {
          expect(() => r.seekOffset(x)).toThrow(/no record starts|outside the file/);
        }
      }),
      { seed: SEED + 3, numRuns: 150 * SCALE },
    );
  });
});
