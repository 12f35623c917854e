/**
 * The `.idx` text format as MXNet's Python reads and writes it: `'%s\t%d\n' % (key, pos)` lines
 * (compared with the dmlc fixture's index, written by the driver in that format), `int` and `str`
 * keys, repeated keys (last offset wins in the map, both stay in `keys`), whitespace and CRLF
 * (stripped like `line.strip()`), extra tab-separated fields (ignored), and writing through
 * MXIndexedRecordIO to a file on disk.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatIndexLine, parseRecordIOIndex } from './idx.js';
import { MXIndexedRecordIO } from './indexed.js';
import { fixture, manifest } from './test-util.js';

const tmp = mkdtempSync(join(tmpdir(), 'mx-recordio-idx-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('.idx files', () => {
  it('round-trips the dmlc fixture index (keys 1000 - 7i, offsets from dmlc Tell())', () => {
    const g = manifest().mixed;
    const text = new TextDecoder().decode(fixture(g.idx));
    const { idx, keys } = parseRecordIOIndex(text);
    expect(keys).toEqual(g.offsets.map((_, i) => 1000 - 7 * i));
    expect(keys.map((k) => idx.get(k))).toEqual(g.offsets);
    expect(keys.map((k) => formatIndexLine(k, idx.get(k) as number)).join('')).toBe(text);
  });

  it('follows Python: strip, split on tabs, int keys, repeats, extra fields', () => {
    const { idx, keys } = parseRecordIOIndex(' 3\t16 \r\n+4\t0\textra\n3\t32\n\n-2\t8\n');
    expect(keys).toEqual([3, 4, 3, -2]);
    expect([...idx.entries()]).toEqual([
      [3, 32],
      [4, 0],
      [-2, 8],
    ]);
  });

  it('keeps string keys with keyType str', () => {
    const { idx, keys } = parseRecordIOIndex('cat/1.jpg\t0\n007\t12\n', 'str');
    expect(keys).toEqual(['cat/1.jpg', '007']);
    expect(idx.get('007')).toBe(12);
    expect(parseRecordIOIndex('007\t12\n').keys).toEqual([7]);
  });

  it('MXIndexedRecordIO writes the index on disk and reads it back by key', () => {
    const idxPath = join(tmp, 'a.idx');
    const recPath = join(tmp, 'a.rec');
    const w = new MXIndexedRecordIO(idxPath, recPath, 'w', { keyType: 'str' });
    for (const k of ['b', 'a', 'c']) w.writeIdx(k, `record ${k}`);
    w.close();
    expect(readFileSync(idxPath, 'utf8')).toBe('b\t0\na\t16\nc\t32\n');
    const r = new MXIndexedRecordIO(idxPath, recPath, 'r', { keyType: 'str' });
    expect(r.keys).toEqual(['b', 'a', 'c']);
    expect(new TextDecoder().decode(r.readIdx('a'))).toBe('record a');
    expect(new TextDecoder().decode(r.readIdx('b'))).toBe('record b');
    r.reset();
    expect(new TextDecoder().decode(r.read() as Uint8Array)).toBe('record b');
    r.close();
  });
});
