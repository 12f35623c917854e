/**
 * The PBMeta codec: round trips, the exact bytes of hand-encoded protobuf (field numbers, packed
 * data_type, proto2 presence of zero values), ps-lite's identity parsing, and a fixed-seed fuzz of
 * the decoder (garbage is an MXNetError, never another exception). Frames captured from the C++
 * reference are checked in golden.test.ts.
 */
import { MXNetError } from '@mx/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addData,
  bytesOf,
  Command,
  DataType,
  emptyMeta,
  K_EMPTY,
  keysFromBytes,
  MetaCodec,
  makeNode,
  senderIdFromIdentity,
} from './codec.js';

const codec = new MetaCodec();
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('PBMeta encoding', () => {
  it('writes the fields ps-lite always sets, in field-number order, keeping zeros (proto2 presence)', () => {
    const m = emptyMeta();
    m.appId = 0;
    m.timestamp = 0;
    m.customerId = 0;
    m.head = 0;
    // head=1:0, request=4:0, push=5:0, simple_app=6:0, app_id=7:0, timestamp=8:0, customer_id=10:0,
    // pull=12:0, priority=13:0 — each a varint key byte then 00 (no data_size: the ZMQ van omits it).
    expect(hex(codec.encodeMeta(m))).toBe(
      '0800' + '2000' + '2800' + '3000' + '3800' + '4000' + '5000' + '6000' + '6800',
    );
  });

  it('packs data_type (field 9, wire type 2) and omits app_id/timestamp when empty', () => {
    const m = emptyMeta();
    m.dataType = [DataType.UINT64, DataType.CHAR, DataType.INT32];
    const b = codec.encodeMeta(m);
    // head = INT_MAX → 08 ff ff ff ff 07; data_type packed → 4a 03 08 00 03.
    expect(hex(b).startsWith('08ffffffff07')).toBe(true);
    expect(hex(b)).toContain('4a03080003');
    expect(hex(b)).not.toMatch(/^(..)*38/); // no app_id key (field 7, varint)
  });

  it('encodes control nodes and ACK signatures as 64-bit unsigned', () => {
    const m = emptyMeta();
    m.control.cmd = Command.ACK;
    m.control.msgSig = 0xffff_0901_0000_0003n;
    const back = codec.decodeMeta(codec.encodeMeta(m));
    expect(back.control.cmd).toBe(Command.ACK);
    expect(back.control.msgSig).toBe(0xffff_0901_0000_0003n);
  });

  it('round-trips every field', () => {
    const m = emptyMeta();
    Object.assign(m, {
      head: 3,
      appId: 0,
      customerId: 2,
      timestamp: 41,
      request: true,
      push: true,
      pull: true,
      simpleApp: false,
      priority: -5,
    });
    m.body = new TextEncoder().encode('sync');
    m.dataType = [8, 0];
    m.control.cmd = Command.ADD_NODE;
    m.control.node = [
      makeNode(1, { id: 9, hostname: '10.0.0.2', port: 9091, customerId: 0 }),
      makeNode(2, { id: 1, hostname: 'h', port: 1, isRecovery: true }),
    ];
    const back = codec.decodeMeta(codec.encodeMeta(m));
    expect(back).toEqual(m);
  });

  it('decodes absent ids as K_EMPTY like UnpackMeta', () => {
    const back = codec.decodeMeta(new Uint8Array(0));
    expect(back.appId).toBe(K_EMPTY);
    expect(back.timestamp).toBe(K_EMPTY);
    expect(back.head).toBe(0);
    expect(back.control.cmd).toBe(Command.EMPTY);
  });
});

describe('messages', () => {
  it('parses identities as ps-lite (ps<digits>, else empty)', () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    expect(senderIdFromIdentity(enc('ps9'))).toBe(9);
    expect(senderIdFromIdentity(enc('ps123'))).toBe(123);
    expect(senderIdFromIdentity(enc('ps'))).toBe(K_EMPTY);
    expect(senderIdFromIdentity(enc('ps9x'))).toBe(K_EMPTY);
    expect(senderIdFromIdentity(Uint8Array.from([0, 1, 2, 3, 4]))).toBe(K_EMPTY);
  });

  it('decodes [identity, meta, keys, vals, lens] with the data types checked against the frames', () => {
    const msg = { meta: emptyMeta(), data: [] as Uint8Array[] };
    msg.meta.appId = 0;
    msg.meta.timestamp = 3;
    msg.meta.push = true;
    addData(msg, bytesOf(BigUint64Array.from([1n, 2n])), DataType.UINT64);
    addData(msg, new Uint8Array(8), DataType.CHAR);
    addData(msg, bytesOf(Int32Array.from([4, 4])), DataType.INT32);
    expect(msg.meta.dataSize).toBe(32); // kept locally, as ps-lite's Meta; not sent
    const frames = [new TextEncoder().encode('ps9'), ...codec.encodeMessage(msg)];
    const back = codec.decodeFrames(frames, 8);
    expect(back.meta.sender).toBe(9);
    expect(back.meta.recver).toBe(8);
    expect(Array.from(keysFromBytes(back.data[0] as Uint8Array))).toEqual([1n, 2n]);
    // a keys frame that is not whole uint64s is refused
    const bad = [
      frames[0] as Uint8Array,
      frames[1] as Uint8Array,
      new Uint8Array(7),
      new Uint8Array(8),
      new Uint8Array(8),
    ];
    expect(() => codec.decodeFrames(bad, 8)).toThrow(MXNetError);
    // fewer frames than data types
    expect(() => codec.decodeFrames(frames.slice(0, 3), 8)).toThrow(/2 data types|3 data types/);
  });

  it('refuses unknown commands, roles and data types', () => {
    const m = emptyMeta();
    m.control.cmd = 42;
    expect(() => codec.decodeMeta(codec.encodeMeta(m))).toThrow(/control command 42/);
    const n = emptyMeta();
    n.control.cmd = Command.ADD_NODE;
    n.control.node = [makeNode(7 as 0, { id: 1 })];
    expect(() => codec.decodeMeta(codec.encodeMeta(n))).toThrow(/node role 7/);
    const d = emptyMeta();
    d.dataType = [12];
    expect(() => codec.decodeMeta(codec.encodeMeta(d))).toThrow(/data type 12/);
  });
});

describe('decoder fuzz', () => {
  it('garbage frames are MXNetErrors or valid messages, never other exceptions', () => {
    const valid = codec.encodeMeta(
      Object.assign(emptyMeta(), { appId: 0, timestamp: 1, push: true, dataType: [8, 0] }),
    );
    const frame = fc.oneof(
      fc.uint8Array({ maxLength: 64 }),
      // mutations of a valid meta: flipped bytes and truncations reach deeper into the decoder
      fc
        .tuple(fc.nat(valid.length), fc.integer({ min: 0, max: 255 }), fc.nat(valid.length))
        .map(([i, v, cut]) => {
          const b = valid.slice(0, Math.max(cut, 1));
          if (i < b.length) b[i] = v;
          return b;
        }),
    );
    fc.assert(
      fc.property(fc.array(frame, { minLength: 0, maxLength: 5 }), (frames) => {
        try {
          const msg = codec.decodeFrames(frames, 8);
          expect(msg.meta).toBeDefined();
        } catch (e) {
          expect(e).toBeInstanceOf(MXNetError);
        }
      }),
      { seed: 20260, numRuns: 3000 },
    );
  });
});
