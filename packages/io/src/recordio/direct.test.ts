/**
 * Large records are read straight from the file into the array a read returns (reader.ts): these
 * tests mix them with small ones at the default buffer size (so the sync reader's short refills
 * after them are taken), check every payload against the plain reference encoder's input, that
 * each result owns exactly its ArrayBuffer (ImageRecordIter transfers `record.buffer` to workers),
 * that the big arrays are the ones readSync filled, and the bad path: a file cut short under a
 * direct read fails without moving the reader. `readView` reads the same file as views of its buffer.
 */
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { RecordIOBlobReader } from './blob-reader.js';
import { MXRecordIO } from './recordio.js';
import { refEncode } from './test-util.js';

const tmp = mkdtempSync(join(tmpdir(), 'mx-recordio-direct-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** 80 records: mostly 16-96 KB (above the 16 KiB direct-read size), some tiny; one multi-part. */
function records(): Uint8Array[] {
  const out: Uint8Array[] = [];
  let x = 777;
  for (let i = 0; i < 80; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    const len = i % 7 === 3 ? 1 + (x % 3000) : 16_384 + (x % 80_000);
    const r = new Uint8Array(len);
    for (let j = 0; j < len; j++) r[j] = (j * 13 + i * 7 + (j >> 9)) & 0xff;
    out.push(r);
  }
  // A large record holding the magic at aligned offsets: written as parts (cflag 1, 2, 3).
  const multi = out[75] as Uint8Array;
  multi.set([0x0a, 0x23, 0xd7, 0xce], 4_000);
  multi.set([0x0a, 0x23, 0xd7, 0xce], 12_000);
  return out;
}

function fsModule(): Record<string, (...a: unknown[]) => unknown> {
  const p = process as unknown as {
    getBuiltinModule(id: string): Record<string, (...a: unknown[]) => unknown>;
  };
  return p.getBuiltinModule('node:fs');
}

describe('direct reads of large records', () => {
  const recs = records();
  // One record at a time: the reference encoder spreads a record into an argument list.
  const encoded = recs.map((r) => refEncode([r]));
  const bytes = new Uint8Array(encoded.reduce((n, e) => n + e.length, 0));
  let offset = 0;
  for (const e of encoded) {
    bytes.set(e, offset);
    offset += e.length;
  }
  const path = join(tmp, 'mixed.rec');
  writeFileSync(path, bytes);

  it('returns every payload: big ones in their own ArrayBuffer (filled by readv), small ones in disjoint views', () => {
    const readSync = vi.spyOn(fsModule(), 'readSync' as never);
    const readvSync = vi.spyOn(fsModule(), 'readvSync' as never);
    try {
      const r = new MXRecordIO(path, 'r');
      const got = [...r];
      r.close();
      expect(got.length).toBe(recs.length);
      const slabbed = new Map<ArrayBufferLike, [number, number][]>();
      for (const [i, p] of got.entries()) {
        expect(p, `record ${i}`).toEqual(recs[i]);
        if (p.length > 4096) {
          expect(p.byteOffset).toBe(0);
          expect(p.buffer.byteLength).toBe(p.length);
        } else {
          const spans = slabbed.get(p.buffer) ?? [];
          spans.push([p.byteOffset, p.byteOffset + p.length]);
          slabbed.set(p.buffer, spans);
        }
      }
      // The small records share slabs without overlapping; writing one leaves the others intact.
      expect(slabbed.size).toBeGreaterThan(0);
      for (const spans of slabbed.values()) {
        spans.sort((a, b) => a[0] - b[0]);
        for (let k = 1; k < spans.length; k++) {
          expect((spans[k] as [number, number])[0]).toBeGreaterThanOrEqual(
            (spans[k - 1] as [number, number])[1],
          );
        }
      }
      const smalls = got.filter((p) => p.length <= 4096);
      (smalls[0] as Uint8Array).fill(0xee);
      for (const [i, p] of got.entries()) if (p !== smalls[0]) expect(p, `record ${i}`).toEqual(recs[i]);
      // The ArrayBuffers the file was read into (readv reads a payload through a view of it).
      const targets = new Set<ArrayBufferLike>([
        ...readSync.mock.calls.map((c) => (c[1] as Uint8Array).buffer),
        ...readvSync.mock.calls.flatMap((c) => (c[1] as Uint8Array[]).map((b) => b.buffer)),
      ]);
      const direct = got.filter((p) => p.length > 4096 && targets.has(p.buffer));
      // The single-part records of 16 KiB or more after the 1 MiB buffer's first fill (records
      // 20-79 but for the 8 small ones and the multi-part one, read through the buffer).
      expect(direct.length).toBeGreaterThan(45);
      expect(direct.every((p) => p.length >= 16_384)).toBe(true);
      expect(direct).not.toContain(got[75]);
      // No read larger than the buffer; none of the whole file.
      expect(Math.max(...readSync.mock.calls.map((c) => c[3] as number))).toBeLessThanOrEqual(1 << 20);
    } finally {
      readSync.mockRestore();
      readvSync.mockRestore();
    }
  });

  it('a caller changing a result changes nothing else', () => {
    const r = new MXRecordIO(path, 'r');
    const a = r.read() as Uint8Array;
    const b = r.read() as Uint8Array;
    a.fill(0);
    b.fill(0);
    r.reset();
    expect(r.read()).toEqual(recs[0]);
    expect(r.read()).toEqual(recs[1]);
    r.close();
  });

  it('the same records through parts, in-memory bytes and a Blob (whole-buffer refills)', async () => {
    const parts: Uint8Array[] = [];
    for (let k = 0; k < 3; k++) parts.push(...new MXRecordIO(path, 'r', { numParts: 3, partIndex: k }));
    expect(parts).toEqual(recs);
    expect([...new MXRecordIO(bytes, 'r', { bufferSize: 100_000 })]).toEqual(recs);
    const slices: number[] = [];
    class CountingBlob extends Blob {
      override slice(start?: number, end?: number, type?: string): Blob {
        slices.push((end ?? this.size) - (start ?? 0));
        return super.slice(start, end, type);
      }
    }
    const b = await RecordIOBlobReader.open(new CountingBlob([bytes as Uint8Array<ArrayBuffer>]));
    const got: Uint8Array[] = [];
    for await (const p of b) got.push(p);
    expect(got).toEqual(recs);
    // Async reads cost per call: no short refills, so about two reads per 1 MiB, not two per record.
    expect(slices.length).toBeLessThan(2 * Math.ceil(bytes.length / (1 << 20)) + 4);
    // Records larger than the buffer are read directly there too (the buffer is not grown).
    slices.length = 0;
    const small = await RecordIOBlobReader.open(new CountingBlob([bytes as Uint8Array<ArrayBuffer>]), {
      bufferSize: 8192,
    });
    got.length = 0;
    for await (const p of small) got.push(p);
    expect(got).toEqual(recs);
    expect(Math.max(...slices)).toBeLessThanOrEqual(96_384);
    expect(
      got.filter((p) => p.length > 4096 && (p.byteOffset !== 0 || p.buffer.byteLength !== p.length)),
    ).toEqual([]);
  });

  it('small records lent from the read buffer stay the caller’s: refills, seeks back and reset do not touch them', () => {
    // 3000 records of 1-600 bytes (about 1 MB): read in sequence, they are views of read buffers.
    const small: Uint8Array[] = [];
    let x = 4242;
    for (let i = 0; i < 3000; i++) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      small.push(new Uint8Array(1 + (x % 600)).map((_, j) => (i * 31 + j) & 0xff));
    }
    const p = join(tmp, 'small.rec');
    writeFileSync(p, refEncode(small));
    const r = new MXRecordIO(p, 'r', { bufferSize: 65536 });
    const offsets: number[] = [];
    const got: Uint8Array[] = [];
    for (let i = 0; i < small.length; i++) {
      offsets.push(r.tell());
      got.push(r.read() as Uint8Array);
    }
    expect(r.read()).toBeNull();
    // Many records share a buffer (views), yet every one still holds its bytes after all refills.
    expect(new Set(got.map((g) => g.buffer)).size).toBeLessThan(got.length / 10);
    for (const [i, g] of got.entries()) expect(g, `record ${i}`).toEqual(small[i]);
    // The caller scribbles over a lent record still in the buffer; seeking back reads the file.
    (got[2997] as Uint8Array).fill(0xee);
    r.seekOffset(offsets[2997] as number);
    expect(r.read()).toEqual(small[2997]);
    expect(r.read()).toEqual(small[2998]);
    r.reset();
    expect(r.read()).toEqual(small[0]);
    for (const [i, g] of got.entries()) if (i !== 2997) expect(g, `record ${i}`).toEqual(small[i]);
    r.close();
  });

  it('readView reads the same records from the file as views of the buffer, which grows for big ones', () => {
    for (const bufferSize of [undefined, 20_000]) {
      const r = new MXRecordIO(path, 'r', bufferSize === undefined ? {} : { bufferSize });
      const got: Uint8Array[] = [];
      const buffers = new Set<ArrayBufferLike>();
      for (let v = r.readView(); v !== null; v = r.readView()) {
        buffers.add(v.buffer);
        got.push(v.slice());
      }
      r.close();
      expect(got.length).toBe(recs.length);
      for (const [i, g] of got.entries()) expect(g, `record ${i}`).toEqual(recs[i]);
      // Views of one reused buffer (a few once it grew or a multi-part record was copied), not a
      // buffer per record.
      expect(buffers.size).toBeLessThan(8);
    }
  });

  it('a file cut short under a direct read fails there and does not move the reader', () => {
    const cut = join(tmp, 'cut.rec');
    writeFileSync(cut, bytes);
    const r = new MXRecordIO(cut, 'r');
    for (let i = 0; i < 60; i++) r.read();
    const at = r.tell();
    const len = (recs[60] as Uint8Array).length;
    expect(len).toBeGreaterThanOrEqual(16_384);
    truncateSync(cut, at + 8 + Math.floor(len / 2));
    const msg = new RegExp(
      `cut\\.rec: the file ended at byte \\d+, before its size when opened \\(${bytes.length}\\)`,
    );
    expect(() => r.read()).toThrow(msg);
    expect(r.tell()).toBe(at);
    expect(() => r.read()).toThrow(msg);
    r.close();
  });
});
