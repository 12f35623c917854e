/**
 * The bad paths: corrupt framing (bad magic, lengths past the end, truncated headers, bad
 * continuation flags), `.idx` offsets past the end or where no record starts, wrong modes, closed
 * objects, unreadable paths, files that shrink while read, invalid part splits. Every failure is an
 * MXNetError naming the file and the byte offset (and the record or key), never moves the reader,
 * and `reset()` makes the reader usable again. Files are built with the test's plain encoder.
 */
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMXNetError, type MXNetError } from '@mx/base';
import { afterAll, describe, expect, it } from 'vitest';
import { RecordIOBlobReader } from './blob-reader.js';
import { checkPayloadLength } from './format.js';
import { MXIndexedRecordIO } from './indexed.js';
import { MXRecordIO } from './recordio.js';
import { InMemoryFile } from './source.js';
import { blobOf, refEncode } from './test-util.js';

const tmp = mkdtempSync(join(tmpdir(), 'mx-recordio-err-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const MAGIC = Uint8Array.of(0x0a, 0x23, 0xd7, 0xce);

function caught(f: () => unknown): MXNetError {
  try {
    f();
  } catch (e) {
    if (isMXNetError(e)) return e;
    throw e;
  }
  throw new Error('expected an MXNetError');
}

async function caughtAsync(f: () => Promise<unknown>): Promise<MXNetError> {
  try {
    await f();
  } catch (e) {
    if (isMXNetError(e)) return e;
    throw e;
  }
  throw new Error('expected an MXNetError');
}

/** A file of the given records, with the little-endian word at `at` replaced. */
function withWord(records: Uint8Array[], at: number, word: number): Uint8Array {
  const b = refEncode(records);
  new DataView(b.buffer).setUint32(at, word >>> 0, true);
  return b;
}

function lrec(cflag: number, len: number): number {
  return cflag * 2 ** 29 + len;
}

/** Raw header + body bytes (no padding added). */
function part(cflag: number, body: number[]): number[] {
  const l = lrec(cflag, body.length);
  return [...MAGIC, l & 0xff, (l >>> 8) & 0xff, (l >>> 16) & 0xff, l >>> 24, ...body];
}

describe('corrupt framing', () => {
  const ab = [enc('abc'), enc('defgh')]; // offsets 0 and 12, 28 bytes in all

  it('bad magic, naming the file, the offset and the record', () => {
    const e = caught(() => {
      const r = new MXRecordIO(withWord(ab, 12, 0x12345678), 'r');
      r.read();
      r.read();
    });
    expect(e.message).toMatch(/bad magic 0x12345678.*byte offset 12 \(record 1 of this pass\)/);
    expect(e.message).toContain('<28 bytes in memory>');
    expect(e.op).toBe('MXRecordIO.read');
    expect(e.params).toMatchObject({ offset: 12 });
  });

  it('a length past the end of the file', () => {
    const e = caught(() => new MXRecordIO(withWord(ab, 4, lrec(0, 100)), 'r').read());
    expect(e.message).toMatch(/length 100 runs past the end of the file \(28 bytes\).*byte offset 0/);
  });

  it('a missing padding byte at the end', () => {
    const e = caught(() => new MXRecordIO(refEncode([enc('abc')]).subarray(0, 11), 'r').read());
    expect(e.message).toMatch(/runs past the end of the file \(11 bytes\)/);
  });

  it('a truncated header', () => {
    const b = Uint8Array.from([...refEncode(ab), ...MAGIC]);
    const r = new MXRecordIO(b, 'r');
    r.read();
    r.read();
    expect(caught(() => r.read()).message).toMatch(
      /truncated record header: 4 byte\(s\) left.*byte offset 28 \(record 2/,
    );
  });

  it('bad continuation flags', () => {
    const cases: [number[], RegExp][] = [
      [part(2, [1, 2, 3, 4]), /continuation part \(cflag 2\).*byte offset 0/],
      [part(3, []), /continuation part \(cflag 3\)/],
      [
        [...part(1, [1, 2, 3, 4]), ...part(0, [])],
        /bad continuation flag sequence: cflag 0 .* starts at offset 0.*byte offset 12/,
      ],
      [[...part(1, []), ...part(2, []), ...part(1, [])], /cflag 1 inside .*byte offset 16/],
      [[...part(1, [1, 2, 3, 4])], /truncated record header: 0 byte\(s\).*byte offset 12/],
      [part(5, []), /invalid continuation flag 5/],
      [part(7, []), /invalid continuation flag 7/],
    ];
    for (const [bytes, want] of cases) {
      expect(caught(() => new MXRecordIO(Uint8Array.from(bytes), 'r').read()).message).toMatch(want);
    }
  });

  it('a failed read does not move the reader, and reset() recovers', () => {
    const b = withWord(ab, 12, 0);
    const r = new MXRecordIO(b, 'r');
    expect(r.read()).toEqual(enc('abc'));
    const first = caught(() => r.read()).message;
    expect(r.tell()).toBe(12);
    expect(caught(() => r.read()).message).toBe(first);
    r.reset();
    expect(r.read()).toEqual(enc('abc'));
  });

  it('the Blob reader reports the same errors and recovers the same way', async () => {
    const b = await RecordIOBlobReader.open(blobOf(withWord(ab, 12, 0)), {
      name: 'x.rec',
      bufferSize: 64,
    });
    expect(await b.read()).toEqual(enc('abc'));
    expect((await caughtAsync(() => b.read())).message).toMatch(
      /x\.rec: bad magic 0x00000000 .*at byte offset 12/,
    );
    b.reset();
    expect(await b.read()).toEqual(enc('abc'));
  });

  it('a Blob that cannot be read any more gives an MXNetError with the cause', async () => {
    class GoneBlob extends Blob {
      override slice(): Blob {
        const b = new Blob([]);
        b.arrayBuffer = () => Promise.reject(new Error('NotReadableError'));
        return b;
      }
    }
    const r = await RecordIOBlobReader.open(
      new GoneBlob([refEncode([enc('abc')]) as Uint8Array<ArrayBuffer>]),
      { name: 'gone.rec' },
    );
    const e = await caughtAsync(() => r.read());
    expect(e.message).toMatch(/cannot read bytes 0 to 12 of gone\.rec/);
    expect((e.cause as Error).message).toBe('NotReadableError');
  });

  it('overlapping async reads are refused', async () => {
    const big = refEncode([new Uint8Array(5000), new Uint8Array(10)]);
    const b = await RecordIOBlobReader.open(blobOf(big), { bufferSize: 64 });
    const first = b.read();
    expect((await caughtAsync(() => b.read())).message).toMatch(/another read or seek is still running/);
    expect((await first)?.length).toBe(5000);
    expect((await b.read())?.length).toBe(10);
  });

  it('a file that shrinks while it is read', () => {
    const path = join(tmp, 'shrink.rec');
    writeFileSync(path, refEncode([new Uint8Array(100), new Uint8Array(3000)]));
    const r = new MXRecordIO(path, 'r', { bufferSize: 128 });
    expect(r.read()?.length).toBe(100);
    truncateSync(path, 1000);
    expect(caught(() => r.read()).message).toMatch(
      /shrink\.rec: the file ended at byte 1000, before its size when opened \(3116\)/,
    );
    r.close();
  });

  it('records of 2^29 bytes or more are refused', () => {
    expect(caught(() => checkPayloadLength(2 ** 29, 'MXRecordIO.write')).message).toMatch(
      /shorter than 2\^29/,
    );
    expect(() => checkPayloadLength(2 ** 29 - 1, 'MXRecordIO.write')).not.toThrow();
  });
});

describe('.idx offsets', () => {
  const recs = [enc('abcd'), Uint8Array.from([...MAGIC, 1, 2, 3, 4, ...MAGIC]), enc('z')];
  const rec = refEncode(recs); // offsets 0, 12 (parts at 12, 20, 32), 40; 52 bytes

  it('reads by key; a missing key, an offset past the end, or a non-record offset fail by name', () => {
    const idx = enc('1\t0\n2\t12\n3\t40\n4\t9999\n5\t4\n6\t20\n7\t52\n');
    const r = new MXIndexedRecordIO(idx, rec, 'r');
    expect(r.readIdx(2)).toEqual(recs[1]);
    expect(r.readIdx('3')).toEqual(recs[2]);
    r.seek(2);
    expect(caught(() => r.readIdx(8)).message).toMatch(/key 8 is not in the index/);
    expect(caught(() => r.readIdx(4)).message).toMatch(
      /\.idx key 4 .*points at byte offset 9999, outside the file \(52 bytes\)/,
    );
    expect(caught(() => r.readIdx(7)).message).toMatch(
      /\.idx key 7 .*points at byte offset 52, the end of the file/,
    );
    expect(caught(() => r.readIdx(5)).message).toMatch(
      /<52 bytes in memory>: \.idx key 5 \(<idx bytes>\) points at byte offset 4, where no record starts: there is no magic/,
    );
    expect(caught(() => r.readIdx(6)).message).toMatch(
      /\.idx key 6 .*offset 20, where .*cflag 2 there is not the start of a record/,
    );
    // Failed seeks leave the reader where it was.
    expect(r.read()).toEqual(recs[1]);
  });

  it('a malformed index fails when opened, naming the line', () => {
    const cases: [string, RegExp][] = [
      ['1\t0\nfoo\n', /line 2: expected a key and an offset/],
      ['1\t-4\n', /line 1: the offset is not a non-negative integer/],
      ['x\t0\n', /line 1: the key is not an integer/],
      ['1\t0x10\n', /line 1: the offset is not/],
    ];
    for (const [text, want] of cases) {
      expect(caught(() => new MXIndexedRecordIO(enc(text), rec, 'r')).message).toMatch(want);
    }
  });

  it('the Blob reader checks keys the same way', async () => {
    const b = await RecordIOBlobReader.open(blobOf(rec), { index: '1\t0\n2\t12\n4\t9999\n5\t4\n' });
    expect(await b.readIdx(2)).toEqual(recs[1]);
    expect((await caughtAsync(() => b.readIdx(4))).message).toMatch(
      /points at byte offset 9999, outside the file/,
    );
    expect((await caughtAsync(() => b.readIdx(5))).message).toMatch(/where no record starts/);
    expect((await caughtAsync(() => b.readIdx(9))).message).toMatch(/key 9 is not in the index/);
    const plain = await RecordIOBlobReader.open(rec);
    expect(caught(() => plain.keys).message).toMatch(/opened without an index/);
  });
});

describe('modes and lifecycle', () => {
  it('refuses to write to a reader or read from a writer, and a closed file', () => {
    const mem = new InMemoryFile('m.rec');
    const w = new MXRecordIO(mem, 'w');
    expect(caught(() => w.read()).message).toMatch(/cannot read from m\.rec: it is open for writing \('w'\)/);
    w.write('x');
    w.close();
    expect(caught(() => w.write('y')).message).toMatch(/m\.rec is closed/);
    const r = new MXRecordIO(mem, 'r');
    expect(caught(() => r.write('y')).message).toMatch(/cannot write to m\.rec: it is open for reading/);
    expect(r.read()).toEqual(enc('x'));
    r.close();
    r.close();
    expect(caught(() => r.read()).message).toMatch(/closed/);
    r.open();
    expect(r.read()).toEqual(enc('x'));
  });

  it('reset() on a writer truncates, as in MXNet', () => {
    const mem = new InMemoryFile();
    const w = new MXRecordIO(mem, 'w');
    w.write('first');
    w.reset();
    w.write('second');
    w.close();
    expect(mem.bytes()).toEqual(refEncode([enc('second')]));
  });

  it('bad flags, bytes opened for writing, and missing files', () => {
    expect(caught(() => new MXRecordIO('x', 'a' as 'r')).message).toMatch(/invalid flag 'a'/);
    expect(caught(() => new MXRecordIO(new Uint8Array(4), 'w')).message).toMatch(
      /cannot write RecordIO into fixed bytes/,
    );
    expect(caught(() => new MXRecordIO(join(tmp, 'nope.rec'), 'r')).message).toMatch(
      /cannot open the file '.*nope\.rec'/,
    );
    expect(caught(() => new MXRecordIO(join(tmp, 'no-dir', 'x.rec'), 'w')).message).toMatch(
      /cannot create the file/,
    );
    const mem = new InMemoryFile();
    expect(caught(() => new MXIndexedRecordIO(join(tmp, 'nope.idx'), mem, 'r')).message).toMatch(
      /cannot read the file/,
    );
    expect(caught(() => new MXIndexedRecordIO(new Uint8Array(0), mem, 'w')).message).toMatch(
      /cannot write an \.idx/,
    );
    expect(
      caught(() => new MXIndexedRecordIO(new InMemoryFile(), mem, 'w').writeIdx(1.5, 'a')).message,
    ).toMatch(/record key 1\.5 is not an integer/);
  });
});

describe('part splits', () => {
  it('refuse invalid parts and files that are not a multiple of 4 bytes', () => {
    const rec = refEncode([enc('abc')]);
    expect(caught(() => new MXRecordIO(rec, 'r', { numParts: 0 })).message).toMatch(/invalid part/);
    expect(caught(() => new MXRecordIO(rec, 'r', { numParts: 2, partIndex: 2 })).message).toMatch(
      /partIndex 2 of numParts 2/,
    );
    expect(caught(() => new MXRecordIO(rec.subarray(0, 10), 'r', { numParts: 2 })).message).toMatch(
      /multiple of 4 bytes/,
    );
  });

  it('a magic number as the last word of the file is an invalid file (dmlc: SeekRecordBegin)', () => {
    const b = Uint8Array.from([...refEncode([new Uint8Array(16)]), ...MAGIC]);
    expect(caught(() => new MXRecordIO(b, 'r', { numParts: 2, partIndex: 1 })).message).toMatch(
      /a magic number ends the file at byte offset 24/,
    );
  });

  it('an empty file has empty parts', () => {
    for (let k = 0; k < 3; k++)
      expect(new MXRecordIO(new Uint8Array(0), 'r', { numParts: 3, partIndex: k }).read()).toBeNull();
  });
});
