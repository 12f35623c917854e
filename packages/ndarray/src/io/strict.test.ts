/**
 * Regression tests for issue 10's loader findings, one per finding, plus the committed "bomb"
 * fixtures (tools/golden/loader-bombs.py) and the load caps: every case the landed loaders
 * accepted must now be an MXNetError naming the file, the record and the byte offset, raised
 * before any large allocation. Also: a real MXNet 1.6 Gluon export still loads and re-saves
 * byte for byte.
 */
import { readFileSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ByteWriter } from './bytes.js';
import { crc32 } from './crc32.js';
import { loadAny } from './index.js';
import { loadMXNetList, saveMXNetList } from './mxnet-list.js';
import { loadMXNetRecord, saveMXNetRecord } from './mxnet-record.js';
import { loadNpy, saveNpy } from './npy.js';
import { loadNpz, saveNpz } from './npz.js';
import { deflatedZip, expectMXNetError, plain, sample } from './test-util.js';
import { writeZip } from './zip.js';

const fixture = (name: string) =>
  new Uint8Array(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url)));
const u32 = (b: Uint8Array, at: number, v: number) =>
  new DataView(b.buffer, b.byteOffset).setUint32(at, v, true);
const u16 = (b: Uint8Array, at: number, v: number) =>
  new DataView(b.buffer, b.byteOffset).setUint16(at, v, true);

describe('issue 10 findings', () => {
  it('an .npy whose shape was edited from (3, 2) to (2, 2) is rejected (trailing bytes)', () => {
    const b = saveNpy(sample('float32', [3, 2]));
    const text = new TextDecoder().decode(b.subarray(10, 128)).replace('(3, 2)', '(2, 2)');
    b.set(new TextEncoder().encode(text), 10);
    expectMXNetError(
      () => loadNpy(b, 'w.npy'),
      'w.npy',
      '8 trailing bytes after float32 data for shape (2, 2)',
      'offset 144',
    );
  });

  it('a name count damaged to 0 does not turn a named file into a list', () => {
    const b = saveMXNetList({ w: sample('float32', [2]), b: sample('int32', [1]) });
    const kAt = b.length - (8 + 1) * 2 - 8;
    u32(b, kAt, 0);
    expectMXNetError(
      () => loadMXNetList(b, { source: 'p.params' }),
      'p.params',
      'trailing bytes after the name count 0',
      `offset ${kAt + 8}`,
    );
  });

  it('an .npz whose central directory lost an entry is rejected', () => {
    const z = saveNpz({ a: sample('int8', [3]), b: sample('int8', [2]) });
    // Drop the second directory entry and fix up the end record so it is self-consistent.
    const eocd = z.length - 22;
    const cdAt = new DataView(z.buffer).getUint32(eocd + 16, true);
    const first = 46 + 5; // "a.npy"
    const out = Uint8Array.from([...z.subarray(0, cdAt + first), ...z.subarray(eocd)]);
    const e = out.length - 22;
    u16(out, e + 8, 1);
    u16(out, e + 10, 1);
    u32(out, e + 12, first);
    expect(loadNpz(z).names).toEqual(['a', 'b']);
    expectMXNetError(
      () => loadNpz(out, 'x.npz'),
      'x.npz',
      'belong to no entry of the central directory',
      'the directory lost its entry',
      'offset',
    );
  });

  it('the .npy version must be 1.0, 2.0 or 3.0', () => {
    for (const [major, minor] of [
      [1, 1],
      [2, 5],
      [4, 0],
      [0, 0],
    ] as const) {
      const b = saveNpy(sample('int8', [2]));
      b[6] = major;
      b[7] = minor;
      expectMXNetError(
        () => loadNpy(b, 'v.npy'),
        'v.npy',
        `unsupported npy format version ${major}.${minor}`,
        'offset 6',
      );
    }
  });

  it('a corrupted device id (cpu(255)) is rejected, naming the record and its name', () => {
    const b = saveMXNetList({ w: sample('float32', [2]) });
    const ctxAt = 24 + 4 + 4 + 4 + 8;
    u32(b, ctxAt + 4, 255);
    expectMXNetError(
      () => loadMXNetList(b, { source: 'd.params' }),
      'd.params',
      'record 0 ("w")',
      'invalid device: dev_type 1, dev_id 255',
      `offset ${ctxAt}`,
    );
    u32(b, ctxAt, 4);
    u32(b, ctxAt + 4, 0);
    expectMXNetError(() => loadMXNetList(b), 'dev_type 4');
    // The valid device types and ids 0..15 load.
    for (const [t, id] of [
      [2, 15],
      [3, 0],
      [5, 1],
    ]) {
      u32(b, ctxAt, t as number);
      u32(b, ctxAt + 4, id as number);
      expect(loadMXNetList(b).arrays[0]?.ctx).toEqual({ devType: t, devId: id });
    }
  });

  it('duplicate names are an error, not a shadowed array', () => {
    const b = saveMXNetList(
      new Map([
        ['ab', sample('float32', [2])],
        ['cd', sample('float32', [2])],
      ]),
    );
    b.set(new TextEncoder().encode('ab'), b.length - 2);
    expectMXNetError(
      () => loadMXNetList(b, { source: 'n.params' }),
      'n.params',
      'duplicate name "ab"',
      'name 1',
    );
  });

  it('a raw record (pickle state) must end where the bytes end', () => {
    const b = saveMXNetRecord(sample('int32', [2]));
    expect(plain(loadMXNetRecord(b))).toEqual(plain(sample('int32', [2])));
    expectMXNetError(() => loadMXNetRecord(Uint8Array.from([...b, 0])), '1 trailing bytes after the record');
  });

  it('dtype flags outside 0..12 and the reserved field are checked', () => {
    const b = saveMXNetList([sample('float32', [1])]);
    const bad = b.slice();
    u32(bad, 24 + 4 + 4 + 4 + 8 + 8, 13);
    expectMXNetError(() => loadMXNetList(bad), 'unknown dtype flag 13', 'record 0');
    const reserved = b.slice();
    reserved[8] = 1;
    expectMXNetError(() => loadMXNetList(reserved), 'the reserved field is 1', 'offset 8');
  });
});

describe('npz directory and local headers must agree', () => {
  const a = saveNpy(sample('int16', [4]));
  const b = saveNpy(sample('int8', [3]));

  it('members may not overlap (an entry whose local header sits inside another member)', () => {
    // Member "outer.npy" stores, as its data, a complete local header + data of "inner.npy";
    // a second directory entry points at that inner header. Each pair of headers agrees.
    const inner = writeZip([{ name: 'inner.npy', data: b }], 't');
    const innerLocal = inner.subarray(0, 30 + 9 + b.length);
    const outer = writeZip(
      [
        { name: 'outer.npy', data: innerLocal },
        { name: 'inner.npy', data: b },
      ],
      't',
    );
    // Point the second entry at the header inside the first member's data.
    const cdAt = new DataView(outer.buffer).getUint32(outer.length - 6, true);
    const second = cdAt + 46 + 9;
    u32(outer, second + 42, 30 + 9);
    expectMXNetError(
      () => loadNpz(outer, 'o.npz'),
      'o.npz',
      'starts inside zip entry 0',
      'must not share data',
    );
  });

  it('entry counts, CRCs and sizes must agree', () => {
    const z = saveNpz({ a: sample('int16', [4]), b: sample('int8', [3]) });
    const e = z.length - 22;
    const onDisk = z.slice();
    u16(onDisk, e + 8, 1);
    expectMXNetError(() => loadNpz(onDisk), 'counts 1 entries on this disk but 2 in all');
    const fewer = z.slice();
    u16(fewer, e + 8, 1);
    u16(fewer, e + 10, 1);
    expectMXNetError(() => loadNpz(fewer), 'bytes of the central directory are left after the 1 entries');
    const more = z.slice();
    u16(more, e + 8, 3);
    u16(more, e + 10, 3);
    expectMXNetError(() => loadNpz(more), '3 entries cannot fit');
    const crc = z.slice();
    crc[14] = (crc[14] as number) ^ 1; // the first local header's CRC
    expectMXNetError(() => loadNpz(crc), "the local header's CRC-32", 'disagrees', 'offset 14');
    const size = z.slice();
    u32(size, 18, a.length + 1);
    expectMXNetError(() => loadNpz(size), "the local header's compressed size");
    const tail = Uint8Array.from([...z, 0, 0]);
    expectMXNetError(() => loadNpz(tail), '2 trailing bytes after the end-of-central-directory record');
  });

  it('reads a member with a data descriptor (as Python writes to unseekable files)', () => {
    const data = saveNpy(sample('float64', [2]));
    const w = new ByteWriter();
    const name = new TextEncoder().encode('d.npy');
    const crc = crc32(data);
    for (const [v, n] of [
      [0x04034b50, 4],
      [20, 2],
      [8, 2],
      [0, 2],
      [0, 4],
      [0, 4],
      [0, 4],
      [0, 4],
      [5, 2],
      [0, 2],
    ] as const)
      n === 2 ? w.u16(v) : w.u32(v);
    w.bytes(name);
    w.bytes(data);
    for (const v of [0x08074b50, crc, data.length, data.length]) w.u32(v);
    const cdAt = w.length;
    for (const [v, n] of [
      [0x02014b50, 4],
      [20, 2],
      [20, 2],
      [8, 2],
      [0, 2],
      [0, 4],
      [crc, 4],
      [data.length, 4],
      [data.length, 4],
      [5, 2],
      [0, 2],
      [0, 2],
      [0, 2],
      [0, 2],
      [0, 4],
      [0, 4],
    ] as const)
      n === 2 ? w.u16(v) : w.u32(v);
    w.bytes(name);
    const cdSize = w.length - cdAt;
    for (const [v, n] of [
      [0x06054b50, 4],
      [0, 2],
      [0, 2],
      [1, 2],
      [1, 2],
      [cdSize, 4],
      [cdAt, 4],
      [0, 2],
    ] as const)
      n === 2 ? w.u16(v) : w.u32(v);
    const z = w.finish();
    expect(plain(loadNpz(z).arrays[0] as never)).toEqual(plain(sample('float64', [2])));
    const bad = z.slice();
    const at = 30 + 5 + data.length + 8; // the descriptor's compressed size
    bad[at] = (bad[at] as number) ^ 1;
    expectMXNetError(() => loadNpz(bad), 'data descriptor', 'disagrees');
  });

  it('a deflate stream must fill exactly its compressed size', () => {
    const raw = saveNpy(sample('int32', [20]));
    const z = deflatedZip('x.npy', raw, Uint8Array.from([...deflateRawSync(raw), 0, 0, 0]));
    expectMXNetError(
      () => loadNpz(z),
      'the deflate stream ends after',
      'compressed bytes the entry declares',
    );
  });
});

describe('bombs (tools/golden/loader-bombs.py) fail before allocating', () => {
  it('3,000 directory entries aliasing one 1 MiB member', () => {
    expectMXNetError(
      () => loadNpz(fixture('bomb-aliased-members.npz'), 'alias.npz'),
      'alias.npz',
      'zip member "a1.npy"',
      'disagrees',
    );
  });

  it('a member that declares 7,000 bytes and inflates to 64 MiB', () => {
    expectMXNetError(
      () => loadNpz(fixture('bomb-size-lies.npz'), 'lie.npz'),
      'lie.npz',
      'inflates to more than 7000 bytes, the size its zip entry declares',
    );
  });
});

describe('load caps (maxBytes, maxExpansion)', () => {
  it('refuse a file whose data passes the cap, before copying it', () => {
    const b = saveMXNetList([sample('float64', [1000])]);
    expectMXNetError(
      () => loadMXNetList(b, { maxBytes: 4000, source: 'big.params' }),
      'big.params',
      'array data of 1 records needs 8000 bytes',
      'over its cap of 4000',
    );
    expect(loadMXNetList(b, { maxBytes: 8000 }).arrays[0]?.shape).toEqual([1000]);
    expectMXNetError(
      () => loadNpy(saveNpy(sample('int8', [100])), 'n.npy', { maxBytes: 99 }),
      'n.npy',
      'over its cap of 99',
    );
    expectMXNetError(
      () => loadAny(saveNpz([sample('int8', [100])]), 'z.npz', { maxBytes: 100 }),
      'z.npz',
      "zip members' declared sizes",
    );
  });

  it('maxExpansion bounds decoded bytes per input byte (plus 1 MiB)', () => {
    const raw = saveNpy({ shape: [3 << 20], dtype: 'uint8', data: new Uint8Array(3 << 20) });
    const z = deflatedZip('x.npy', raw, deflateRawSync(raw));
    expect(loadNpz(z).arrays[0]?.shape).toEqual([3 << 20]);
    expectMXNetError(() => loadNpz(z, 'c.npz', { maxExpansion: 100 }), 'c.npz', 'maxExpansion 100 x');
  });

  it('reject invalid caps', () => {
    expectMXNetError(
      () => loadNpy(saveNpy(sample('int8', [1])), 'n.npy', { maxBytes: -1 }),
      'maxBytes must be a positive number',
    );
    expectMXNetError(
      () => loadMXNetList(saveMXNetList([]), { maxExpansion: Number.NaN }),
      'maxExpansion must be a positive number',
    );
  });
});

describe('real MXNet files stay byte-exact', () => {
  it('a Gluon export written by MXNet 1.6 (V2 records, names) loads and re-saves byte for byte', () => {
    const b = fixture('fashion-mnist-0039.params');
    const l = loadMXNetList(b, { npShape: false, source: 'fashion-mnist-0039.params' });
    expect(l.names).toEqual(
      ['conv0_weight', 'conv0_bias', 'dense0_weight', 'dense0_bias', 'dense1_weight', 'dense1_bias'].map(
        (n) => `arg:hybridsequential16_${n}`,
      ),
    );
    expect(l.arrays.map((a) => a.shape)).toEqual([[8, 1, 4, 4], [8], [16, 1152], [16], [10, 16], [10]]);
    const names = l.names as string[];
    const again = saveMXNetList(new Map(names.map((n, i) => [n, l.arrays[i] as never])), { npShape: false });
    expect(again).toEqual(b);
  });
});
