/**
 * pack/unpack against bytes from Python's struct ('IfQQ') and NumPy float32, following MXNet's
 * recordio.pack/unpack (tools/golden/recordio/pack.py → __fixtures__/recordio/pack.json): scalar
 * and array labels, the flag rule, float32 rounding and overflow, uint64 ids beyond 2^53, and the
 * inputs struct/NumPy reject. Also a packed record through MXRecordIO and back.
 */
import { isMXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { IRHeader, pack, unpack } from './irheader.js';
import { MXRecordIO } from './recordio.js';
import { InMemoryFile } from './source.js';
import { fixture, hex } from './test-util.js';

type Num = number | string;
interface Case {
  name: string;
  header: { flag: number; label: Num | Num[]; labelIsArray: boolean; id: Num; id2: Num };
  payload: string;
  packed: string;
  unpacked: { flag: number; label: Num | Num[]; id: Num; id2: Num; rest: string };
}
const G = JSON.parse(new TextDecoder().decode(fixture('pack.json'))) as {
  cases: Case[];
  packErrors: { name: string; header: { label: number; id: Num; id2: number } }[];
  unpackErrors: { name: string; bytes: string }[];
};

const num = (v: Num): number => (v === 'Infinity' ? Infinity : v === '-Infinity' ? -Infinity : (v as number));
const id = (v: Num): number | bigint => (typeof v === 'string' ? BigInt(v) : v);
const bytes = (h: string): Uint8Array => Uint8Array.from(h.match(/../g) ?? [], (x) => Number.parseInt(x, 16));

describe('IRHeader pack/unpack vs Python struct', () => {
  it.each(G.cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const label = c.header.labelIsArray ? (c.header.label as Num[]).map(num) : num(c.header.label as Num);
    const packed = pack(IRHeader(c.header.flag, label, id(c.header.id), id(c.header.id2)), bytes(c.payload));
    expect(hex(packed)).toBe(c.packed);
    const [h, rest] = unpack(bytes(c.packed));
    expect(h.flag).toBe(c.unpacked.flag);
    expect(h.id).toBe(id(c.unpacked.id));
    expect(h.id2).toBe(id(c.unpacked.id2));
    if (Array.isArray(c.unpacked.label)) {
      expect(h.label).toBeInstanceOf(Float32Array);
      expect(Array.from(h.label as Float32Array)).toEqual(c.unpacked.label.map(num));
    } else {
      expect(Object.is(h.label, num(c.unpacked.label))).toBe(true);
    }
    expect(hex(rest)).toBe(c.unpacked.rest);
  });

  it.each(G.packErrors.map((c) => [c.name, c] as const))('pack rejects: %s', (_name, c) => {
    expect(() =>
      pack({ label: c.header.label, id: id(c.header.id), id2: c.header.id2 }, new Uint8Array(0)),
    ).toThrow(/must be an integer in \[0, 2\^64\)/);
  });

  it.each(G.unpackErrors.map((c) => [c.name, c] as const))('unpack rejects: %s', (_name, c) => {
    let err: unknown;
    try {
      unpack(bytes(c.bytes));
    } catch (e) {
      err = e;
    }
    expect(isMXNetError(err)).toBe(true);
  });

  it('rejects non-integer ids and names the field', () => {
    expect(() => pack({ label: 1, id: 1.5 }, '')).toThrow(/IRHeader id must be an integer/);
    expect(() => pack({ label: 1, id2: -1n }, '')).toThrow(/IRHeader id2 must be/);
  });

  it('unpack messages say what is short', () => {
    expect(() => unpack(new Uint8Array(10))).toThrow(/24-byte IRHeader; this one has 10 bytes/);
    const h = pack({ label: [1, 2] }, '');
    expect(() => unpack(h.subarray(0, 28))).toThrow(/says 2 float32 labels .* only 4 bytes do/);
  });

  it('packed records go through MXRecordIO unchanged (payloads with the magic included)', () => {
    const mem = new InMemoryFile();
    const w = new MXRecordIO(mem, 'w');
    const magicLabel = new Float32Array(new Uint32Array([0xced7230a]).buffer)[0] as number;
    const items = [
      pack({ label: [magicLabel, 2], id: 7 }, 'img-a'),
      pack({ label: 3, id: 2n ** 60n }, 'img-b'),
    ];
    for (const s of items) w.write(s);
    w.close();
    const r = new MXRecordIO(mem, 'r');
    const [h0, s0] = unpack(r.read() as Uint8Array);
    expect(Array.from(h0.label as Float32Array)).toEqual([magicLabel, 2]);
    expect(new TextDecoder().decode(s0)).toBe('img-a');
    const [h1, s1] = unpack(r.read() as Uint8Array);
    expect([h1.label, h1.id, new TextDecoder().decode(s1)]).toEqual([3, 2n ** 60n, 'img-b']);
  });
});
