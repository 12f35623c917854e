/**
 * RecordFileDataset against files written by @mx/io's MXIndexedRecordIO (keys out of order,
 * records that hold the RecordIO magic and so span several parts, packed image-record headers)
 * and against dmlc-core's own files in @mx/io's fixtures (their manifest gives each record's
 * payload and offset, so an index in shuffled key order is checked record by record). Then the
 * `.idx` name rule (Python's splitext, stated from Python), DataLoader use (worker threads too:
 * image-workers.test.ts checks those further), and bad input.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { InMemoryFile, MXIndexedRecordIO, recordio } from '@mx/io';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { DataLoader } from './dataloader.js';
import { idxPathOf, RecordFileDataset } from './record-dataset.js';
import { importWorkerFn } from './worker-spec.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 16 })] });
afterAll(() => rt.dispose());

const tmp = mkdtempSync(join(tmpdir(), 'mx-gluon-recfile-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const IO_FIXTURES = fileURLToPath(new URL('../../../io/src/__fixtures__/recordio/', import.meta.url));

interface DmlcFile {
  rec: string;
  idx: string;
  shuffledIdx: string;
  payloads: string;
  count: number;
  offsets: number[];
}
const MANIFEST = JSON.parse(readFileSync(`${IO_FIXTURES}manifest.json`, 'utf8')).files as Record<
  'mixed' | 'small',
  DmlcFile
>;

/** The dmlc driver's payload container: per record a u32 little-endian length, then the bytes. */
function driverPayloads(name: string): Uint8Array[] {
  const b = new Uint8Array(readFileSync(`${IO_FIXTURES}${name}`));
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out: Uint8Array[] = [];
  for (let at = 0; at < b.length; at += 4 + v.getUint32(at, true)) {
    out.push(b.slice(at + 4, at + 4 + v.getUint32(at, true)));
  }
  return out;
}

/** `key\toffset` lines of an index file, parsed here independently of @mx/io. */
function indexLines(path: string): [number, number][] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => l.split('\t').map(Number) as [number, number]);
}

const MAGIC = [0x0a, 0x23, 0xd7, 0xce];
const bytes = (...xs: number[]) => Uint8Array.from(xs);
const text = (s: string) => new TextEncoder().encode(s);

/** Keys in a shuffled order, payloads of many lengths (0, odd, with aligned magics). */
const WRITTEN: [number, Uint8Array][] = [
  [10, text('record ten')],
  [3, new Uint8Array(0)],
  [7, bytes(1, 2, 3)],
  [42, bytes(...MAGIC, 9, 9, 9, 9, ...MAGIC)],
  [0, Uint8Array.from({ length: 1000 }, (_, i) => (i * 37) % 256)],
  [5, bytes(0xff, ...MAGIC, 1)],
];

function writeRec(name: string, records: readonly [number, Uint8Array][]): string {
  const rec = join(tmp, `${name}.rec`);
  const w = new MXIndexedRecordIO(join(tmp, `${name}.idx`), rec, 'w');
  for (const [key, payload] of records) w.writeIdx(key, payload);
  w.close();
  return rec;
}

describe('RecordFileDataset', () => {
  it('gives the record of the i-th key of the .idx, found next to the .rec', () => {
    const ds = new RecordFileDataset(writeRec('written', WRITTEN));
    expect(ds.length).toBe(WRITTEN.length);
    expect(ds.keys).toEqual(WRITTEN.map(([k]) => k));
    expect(ds.filename).toBe(join(tmp, 'written.rec'));
    expect(ds.idxFile).toBe(join(tmp, 'written.idx'));
    // Random access in any order, repeated.
    for (const i of [3, 0, 5, 1, 4, 2, 3, 5]) {
      expect(Array.from(ds.get(i))).toEqual(Array.from((WRITTEN[i] as [number, Uint8Array])[1]));
    }
    expect(Array.from(ds, (r) => r.length)).toEqual(WRITTEN.map(([, p]) => p.length));
    // A sample is the caller's: changing it does not change the next read.
    ds.get(0).fill(0);
    expect(new TextDecoder().decode(ds.get(0))).toBe('record ten');
    ds.close();
  });

  it.each(['small', 'mixed'] as const)(
    'reads dmlc-core’s %s.rec through its .idx and its shuffled index',
    (name) => {
      const g = MANIFEST[name];
      const payloads = driverPayloads(g.payloads);
      expect(payloads.length).toBe(g.count);
      const ordinalAt = new Map(g.offsets.map((o, i) => [o, i]));

      const inOrder = new RecordFileDataset(`${IO_FIXTURES}${g.rec}`);
      const lines = indexLines(`${IO_FIXTURES}${g.idx}`);
      expect(inOrder.length).toBe(lines.length);
      lines.forEach(([, offset], i) => {
        expect(Array.from(inOrder.get(i))).toEqual(
          Array.from(payloads[ordinalAt.get(offset) as number] as Uint8Array),
        );
      });
      inOrder.close();

      const shuffledLines = indexLines(`${IO_FIXTURES}${g.shuffledIdx}`);
      const shuffled = new RecordFileDataset({
        rec: `${IO_FIXTURES}${g.rec}`,
        idx: `${IO_FIXTURES}${g.shuffledIdx}`,
      });
      expect(shuffled.keys).toEqual(shuffledLines.map(([k]) => k));
      expect(shuffledLines.map(([k]) => k)).not.toEqual(lines.map(([k]) => k));
      shuffledLines.forEach(([, offset], i) => {
        expect(Array.from(shuffled.get(i))).toEqual(
          Array.from(payloads[ordinalAt.get(offset) as number] as Uint8Array),
        );
      });
      shuffled.close();
    },
  );

  it('reads bytes and InMemoryFiles; records packed with an IRHeader unpack to their labels', () => {
    const idx = new InMemoryFile('mem.idx');
    const rec = new InMemoryFile('mem.rec');
    const w = new MXIndexedRecordIO(idx, rec, 'w');
    const labels = [3, 1.5, -2];
    labels.forEach((label, i) => {
      w.writeIdx(i, recordio.pack(recordio.IRHeader(0, label, 100 + i, 0), text(`img${i}`)));
    });
    w.close();
    for (const source of [
      { rec, idx },
      { rec: rec.bytes(), idx: idx.bytes() },
    ]) {
      const ds = new RecordFileDataset(source);
      expect(ds.filename).toBe(source.rec === rec ? 'mem.rec' : `<${rec.size} bytes in memory>`);
      const unpacked = Array.from(ds, (r) => recordio.unpack(r));
      expect(unpacked.map(([h]) => h.label)).toEqual(labels);
      expect(unpacked.map(([h]) => h.id)).toEqual([100, 101, 102]);
      expect(unpacked.map(([, payload]) => new TextDecoder().decode(payload))).toEqual([
        'img0',
        'img1',
        'img2',
      ]);
    }
  });

  it('finds the index as MXNet does: os.path.splitext(filename)[0] + ".idx"', () => {
    // Python's results for these names (posixpath.splitext; ntpath for the Windows one).
    expect(idxPathOf('a/b.rec')).toBe('a/b.idx');
    expect(idxPathOf('a.b/c')).toBe('a.b/c.idx');
    expect(idxPathOf('.rec')).toBe('.rec.idx');
    expect(idxPathOf('x.tar.rec')).toBe('x.tar.idx');
    expect(idxPathOf('data/..rec')).toBe('data/..rec.idx');
    expect(idxPathOf('dir/.hidden.rec')).toBe('dir/.hidden.idx');
    expect(idxPathOf('plain')).toBe('plain.idx');
    expect(idxPathOf('a/b.')).toBe('a/b.idx');
    expect(idxPathOf('C:\\d.x\\f.rec')).toBe('C:\\d.x\\f.idx');
  });

  it('works with a DataLoader on the calling thread and in worker threads (each opens the file)', async () => {
    const ds = new RecordFileDataset(writeRec('loader', WRITTEN));
    const byteLength = await importWorkerFn(
      new URL('./__fixtures__/pipeline.mjs', import.meta.url),
      'byteLength',
    );
    const lengths = ds.transform(byteLength);
    const loader = new DataLoader<NDArray>(rt, lengths, { batchSize: 4 });
    const batches = Array.from(loader, (b) => {
      const v = Array.from(b.dataSync() as ArrayLike<number>);
      b.dispose();
      return v;
    });
    expect(batches).toEqual([
      [10, 0, 3, 12],
      [1000, 6],
    ]);
    const threaded = new DataLoader<NDArray>(rt, lengths, { batchSize: 4, numWorkers: 2 });
    const fromWorkers: number[][] = [];
    try {
      for await (const b of threaded) {
        fromWorkers.push(Array.from(b.dataSync() as ArrayLike<number>));
        b.dispose();
      }
    } finally {
      await threaded.dispose();
    }
    expect(fromWorkers).toEqual(batches);
    // Workers need a sendable source: not InMemoryFiles, and not a subclass they do not know.
    const mem = new RecordFileDataset({ rec: new InMemoryFile('m.rec'), idx: new InMemoryFile('m.idx') });
    expect(() => mem.workerSpec()).toThrow(/InMemoryFiles \(m\.rec\) cannot be sent/);
    class Mine extends RecordFileDataset {}
    expect(() => new Mine(join(tmp, 'loader.rec')).workerSpec()).toThrow(/a Mine cannot be sent/);
    ds.close();
  });

  it('fails by name on a missing .rec or .idx, a bad index entry, a bad index and a closed file', () => {
    const rec = writeRec('bad', WRITTEN.slice(0, 3));
    expect(() => new RecordFileDataset(join(tmp, 'nowhere.rec'))).toThrow(MXNetError);
    expect(() => new RecordFileDataset(join(tmp, 'nowhere.rec'))).toThrow(/nowhere\.(rec|idx)/);
    writeFileSync(join(tmp, 'noidx.rec'), readFileSync(rec));
    expect(() => new RecordFileDataset(join(tmp, 'noidx.rec'))).toThrow(/noidx\.idx/);

    // Key 7's record starts at 28 (after 'record ten': 8 + 12 bytes, and the empty record: 8):
    // point it into the middle of a record instead, and key 9 past the end of the file.
    const lines = readFileSync(join(tmp, 'bad.idx'), 'utf8');
    expect(lines).toBe('10\t0\n3\t20\n7\t28\n');
    writeFileSync(join(tmp, 'bad.idx'), '10\t0\n3\t20\n7\t4\n9\t4000\n');
    const ds = new RecordFileDataset(rec);
    expect(ds.length).toBe(4);
    expect(() => ds.get(2)).toThrow(MXNetError);
    expect(() => ds.get(2)).toThrow(/key 7/);
    expect(() => ds.get(3)).toThrow(/key 9/);
    // The failures leave the reader usable.
    expect(new TextDecoder().decode(ds.get(0))).toBe('record ten');
    expect(ds.get(1).length).toBe(0);
    expect(() => ds.get(4)).toThrow('index 4 is out of range for a dataset of 4 samples');
    expect(() => ds.get(-1)).toThrow(MXNetError);
    ds.close();
    expect(() => ds.get(0)).toThrow(/closed/);

    writeFileSync(join(tmp, 'bad.idx'), '10\t0\nnot a line\n');
    expect(() => new RecordFileDataset(rec)).toThrow(/bad\.idx/);
    expect(() => new RecordFileDataset(42 as unknown as string)).toThrow(
      /path of a \.rec file, or \{ rec, idx \}/,
    );
  });
});
