/**
 * Readers stream: a Node file is read with positional `readSync` calls into buffers of the
 * configured size (no `readFileSync`, no read larger than the buffer; a large record is read into
 * its own array by `readvSync`),
 * and a Blob/File is read in `slice()`s of that size, never whole. Also: an InMemoryFile written in
 * a "browser" flow (no file system), turned into a Blob and a File, read back with its index.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { RecordIOBlobReader } from './blob-reader.js';
import { MXIndexedRecordIO } from './indexed.js';
import { MXRecordIO } from './recordio.js';
import { InMemoryFile } from './source.js';
import { refEncode } from './test-util.js';

const tmp = mkdtempSync(join(tmpdir(), 'mx-recordio-stream-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** 300 records of 1-4000 bytes (about 600 KB) and one of 100 KB. */
function records(): Uint8Array[] {
  const out: Uint8Array[] = [];
  let x = 12345;
  for (let i = 0; i < 300; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    out.push(new Uint8Array(1 + (x % 4000)).fill(i & 0xff));
  }
  out.splice(150, 0, new Uint8Array(100_000).fill(9));
  return out;
}

describe('streaming reads', () => {
  const recs = records();
  const bytes = refEncode(recs);

  it('reads a Node file in buffer-sized positional reads', () => {
    const path = join(tmp, 'big.rec');
    writeFileSync(path, bytes);
    const fs = (
      process as unknown as { getBuiltinModule(id: string): Record<string, (...a: unknown[]) => unknown> }
    ).getBuiltinModule('node:fs');
    const readSync = vi.spyOn(fs, 'readSync' as never);
    const readvSync = vi.spyOn(fs, 'readvSync' as never);
    const readFileSync = vi.spyOn(fs, 'readFileSync' as never);
    try {
      const r = new MXRecordIO(path, 'r', { bufferSize: 16384 });
      let n = 0;
      for (const p of r) expect(p.length).toBe((recs[n++] as Uint8Array).length);
      r.close();
      expect(n).toBe(recs.length);
      const lengths = readSync.mock.calls.map((c) => c[3] as number);
      const vectors = readvSync.mock.calls.map((c) => (c[1] as Uint8Array[]).map((b) => b.length));
      // Reads of at most the buffer size; records not all buffered (of 1/64 of it or more) are
      // read straight into their arrays by readv, with at most 4 KiB after them into the buffer:
      // one of those payload reads is larger than the buffer, the 100 KB record's; never the
      // whole file.
      expect(Math.max(...lengths)).toBeLessThanOrEqual(16384);
      expect(vectors.every((v) => v.length === 2 && (v[1] as number) <= 4096)).toBe(true);
      const over = vectors.map((v) => v[0] as number).filter((l) => l > 16384);
      expect(over.length).toBe(1);
      expect(over[0]).toBeLessThanOrEqual(100_000);
      expect(lengths.length + vectors.length).toBeGreaterThan(bytes.length / 16384);
      expect(readFileSync).not.toHaveBeenCalled();
    } finally {
      readSync.mockRestore();
      readvSync.mockRestore();
      readFileSync.mockRestore();
    }
  });

  it('reads a Blob in slices', async () => {
    const slices: number[] = [];
    class CountingBlob extends Blob {
      override slice(start?: number, end?: number, type?: string): Blob {
        slices.push((end ?? this.size) - (start ?? 0));
        return super.slice(start, end, type);
      }
    }
    const r = await RecordIOBlobReader.open(new CountingBlob([bytes as Uint8Array<ArrayBuffer>]), {
      bufferSize: 8192,
    });
    let n = 0;
    for await (const p of r) expect(p.length).toBe((recs[n++] as Uint8Array).length);
    expect(n).toBe(recs.length);
    expect(slices.findIndex((s) => s > 8192)).toBeGreaterThan(20);
    expect(Math.max(...slices)).toBeLessThanOrEqual(100_008);
    expect(slices.length).toBeGreaterThan(bytes.length / 100_008);
  });

  it('writes into an InMemoryFile and reads it back as a Blob and a File, with its index', async () => {
    const rec = new InMemoryFile('train.rec');
    const idx = new InMemoryFile('train.idx');
    const w = new MXIndexedRecordIO(idx, rec, 'w');
    for (const [i, p] of recs.slice(0, 20).entries()) w.writeIdx(100 + i, p);
    w.close();
    expect(rec.bytes()).toEqual(refEncode(recs.slice(0, 20)));
    const file = new File([rec.toBlob() as Blob], 'train.rec');
    const r = await RecordIOBlobReader.open(file, { index: idx.toBlob(), bufferSize: 1024 });
    expect(r.name).toBe('train.rec');
    expect(r.keys).toEqual(recs.slice(0, 20).map((_, i) => 100 + i));
    expect(await r.readIdx(117)).toEqual(recs[17]);
    expect(await r.readIdx(103)).toEqual(recs[3]);
    expect(await r.read()).toEqual(recs[4]);
    // The same file through the sync reader (bytes) and the in-memory file.
    const s = new MXIndexedRecordIO(idx, rec, 'r');
    expect(s.readIdx(119)).toEqual(recs[19]);
    expect(new MXRecordIO(rec.bytes(), 'r').read()).toEqual(recs[0]);
  });
});
