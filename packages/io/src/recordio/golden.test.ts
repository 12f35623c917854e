/**
 * Against dmlc-core itself (fixtures written by tools/golden/recordio/recordio_golden.cc): our
 * writer's bytes and tell() offsets equal dmlc's RecordIOWriter's for the same payloads, MXNet-style
 * `.idx` files come out byte-identical, the dmlc files read back to the driver's payloads through
 * every reader (file path, bytes, Blob; tiny buffers so records straddle refills), and part
 * splitting gives exactly the records dmlc's InputSplit / RecordIOChunkReader /
 * IndexedRecordIOSplitter give each part.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RecordIOBlobReader } from './blob-reader.js';
import { magicCuts } from './format.js';
import { parseRecordIOIndex } from './idx.js';
import { MXIndexedRecordIO } from './indexed.js';
import { MXRecordIO } from './recordio.js';
import { InMemoryFile } from './source.js';
import { blobOf, FIXTURES, fixture, hex, manifest, payloads } from './test-util.js';
import { indexedPartition } from './window.js';

const M = manifest();
const FILES = ['mixed', 'small'] as const;
const tmp = mkdtempSync(join(tmpdir(), 'mx-recordio-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Which record (by ordinal) starts at each offset. */
function ordinalOf(name: (typeof FILES)[number]): Map<number, number> {
  return new Map(M[name].offsets.map((o, i) => [o, i]));
}

describe.each(FILES)('dmlc fixture %s.rec', (name) => {
  const g = M[name];
  const recs = payloads(g.payloads);
  const rec = fixture(g.rec);

  it('has the records the manifest describes', () => {
    expect(recs.length).toBe(g.count);
    expect(rec.length).toBe(g.size);
    // dmlc's except_counter: one extra part per aligned magic.
    expect(recs.map((r) => magicCuts(r).length + 1)).toEqual(g.parts);
  });

  it('writes byte-identical files with the same tell() offsets (memory and disk)', () => {
    const mem = new InMemoryFile();
    const path = join(tmp, `${name}.rec`);
    for (const target of [mem, path]) {
      const w = new MXRecordIO(target, 'w', { bufferSize: 256 });
      const tells = recs.map((r) => {
        const t = w.tell();
        w.write(r);
        return t;
      });
      expect(w.tell()).toBe(g.size);
      w.close();
      expect(tells).toEqual(g.offsets);
      const bytes = target === mem ? mem.bytes() : new Uint8Array(readFileSync(path));
      expect(bytes.length).toBe(rec.length);
      expect(hex(bytes) === hex(rec)).toBe(true);
    }
  });

  it('writes the same .rec and .idx as MXIndexedRecordIO (dmlc writer + write_idx lines)', () => {
    const keys = parseRecordIOIndex(new TextDecoder().decode(fixture(g.idx))).keys;
    const idx = new InMemoryFile('w.idx');
    const out = new InMemoryFile('w.rec');
    const w = new MXIndexedRecordIO(idx, out, 'w');
    for (const [i, r] of recs.entries()) w.writeIdx(keys[i] as number, r);
    w.close();
    expect(idx.text()).toBe(new TextDecoder().decode(fixture(g.idx)));
    expect(hex(out.bytes()) === hex(rec)).toBe(true);
  });

  it.each([64, 100, 4096, undefined])(
    'reads the payloads back (buffer %s): path, bytes, Blob',
    async (bufferSize) => {
      const opts = bufferSize === undefined ? {} : { bufferSize };
      for (const src of [`${FIXTURES}${g.rec}`, rec, rec.buffer.slice(0) as ArrayBuffer]) {
        const r = new MXRecordIO(src, 'r', opts);
        const got: Uint8Array[] = [];
        const tells: number[] = [];
        for (let t = r.tell(), p = r.read(); p !== null; t = r.tell(), p = r.read()) {
          got.push(p);
          tells.push(t);
        }
        expect(r.read()).toBeNull();
        r.close();
        expect(tells).toEqual(g.offsets);
        expect(got.map(hex)).toEqual(recs.map(hex));
      }
      const b = await RecordIOBlobReader.open(blobOf(rec), opts);
      const got: Uint8Array[] = [];
      for await (const p of b) got.push(p);
      expect(got.map(hex)).toEqual(recs.map(hex));
    },
  );

  it('reads every record by key through the .idx, in a shuffled order', () => {
    const r = new MXIndexedRecordIO(`${FIXTURES}${g.shuffledIdx}`, `${FIXTURES}${g.rec}`, 'r', {
      bufferSize: 128,
    });
    const at = ordinalOf(name);
    expect(r.keys.length).toBe(g.count);
    for (const key of r.keys) {
      const i = at.get(r.idx.get(key) as number) as number;
      expect(hex(r.readIdx(key))).toBe(hex(recs[i] as Uint8Array));
    }
    r.close();
  });

  for (const split of g.splits) {
    it(`splits into ${split.numParts} parts as dmlc's InputSplit and RecordIOChunkReader do`, async () => {
      expect(split.chunkReader).toEqual(split.inputSplit);
      const at = ordinalOf(name);
      for (let k = 0; k < split.numParts; k++) {
        const r = new MXRecordIO(`${FIXTURES}${g.rec}`, 'r', {
          numParts: split.numParts,
          partIndex: k,
          bufferSize: 64,
        });
        const got: number[] = [];
        for (let t = r.tell(), p = r.read(); p !== null; t = r.tell(), p = r.read()) {
          const i = at.get(t) as number;
          expect(hex(p)).toBe(hex(recs[i] as Uint8Array));
          got.push(i);
        }
        r.close();
        expect(got, `part ${k}`).toEqual(split.inputSplit[k]);
        const b = await RecordIOBlobReader.open(blobOf(rec), {
          numParts: split.numParts,
          partIndex: k,
          bufferSize: 64,
        });
        const fromBlob: number[] = [];
        for (let t = b.tell(), p = await b.read(); p !== null; t = b.tell(), p = await b.read())
          fromBlob.push(at.get(t) as number);
        expect(fromBlob, `blob part ${k}`).toEqual(split.inputSplit[k]);
      }
    });

    it(`splits the .idx into ${split.numParts} parts as dmlc's IndexedRecordIOSplitter does`, () => {
      const at = ordinalOf(name);
      for (const [file, want] of [
        [g.idx, split.indexedInputSplit],
        [g.shuffledIdx, split.shuffledIndexedInputSplit],
      ] as const) {
        const offsets = [...parseRecordIOIndex(new TextDecoder().decode(fixture(file))).idx.values()];
        for (let k = 0; k < split.numParts; k++) {
          expect(indexedPartition(offsets, split.numParts, k).map((o) => at.get(o))).toEqual(want[k]);
        }
      }
    });
  }
});
