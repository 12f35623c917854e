/**
 * Frames captured from the reference C++ ps-lite (tools/golden/pslite/capture.ts →
 * __golden__/pslite/frames.json): each decodes, re-encodes to the very same bytes (our encoder
 * sets the fields ps-lite's PackMeta sets, in the same order), and carries what test_kv_app
 * sent — registrations, barriers, heartbeats, the scheduler's node list, ~5000-key float pushes and
 * pulls, and the ACK signatures the C++ resender computed for our messages.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Command, DataType, K_EMPTY, keysFromBytes, MetaCodec } from './codec.js';
import { messageSignature } from './resender.js';
import { MAX_KEY, serverKeyRanges } from './util.js';

interface Captured {
  scenario: string;
  receiver: string;
  kind: string;
  identity: string;
  frames: string[];
}
const golden = JSON.parse(
  readFileSync(new URL('../__golden__/pslite/frames.json', import.meta.url), 'utf8'),
) as { messages: Captured[] };
const codec = new MetaCodec();
const bytes = (s: string) => new Uint8Array(Buffer.from(s, 'base64'));
const decode = (m: Captured) => codec.decodeFrames([bytes(m.identity), ...m.frames.map(bytes)], 1);
const pick = (scenario: string, kind: string) =>
  golden.messages.filter((m) => m.scenario === scenario && m.kind === kind);

describe('frames from the C++ reference', () => {
  it('holds every captured kind', () => {
    expect(golden.messages.length).toBeGreaterThanOrEqual(13);
  });

  it('every captured meta re-encodes to the same bytes', () => {
    for (const m of golden.messages) {
      const msg = decode(m);
      expect(Buffer.from(codec.encodeMeta(msg.meta)).toString('hex'), `${m.scenario} ${m.kind}`).toBe(
        Buffer.from(bytes(m.frames[0] as string)).toString('hex'),
      );
    }
  });

  it('ADD_NODE from a node without an id: unidentified sender, one node record', () => {
    const adds = pick('A', `control:${Command.ADD_NODE}:res`);
    expect(adds.length).toBe(2);
    for (const m of adds) {
      const { meta } = decode(m);
      expect(meta.sender).toBe(K_EMPTY);
      expect(meta.timestamp).toBe(0);
      expect(meta.control.node).toHaveLength(1);
      const n = meta.control.node[0];
      expect(n?.id).toBe(K_EMPTY);
      expect(n?.hostname).toBe('127.0.0.1');
      expect(n?.port).toBeGreaterThan(0);
    }
    expect(adds.map((m) => decode(m).meta.control.node[0]?.role).sort()).toEqual([0, 1]);
  });

  it('BARRIER requests and HEARTBEATs carry the sender in the identity', () => {
    for (const m of pick('A', `control:${Command.BARRIER}:req`)) {
      const { meta } = decode(m);
      expect([8, 9]).toContain(meta.sender);
      expect(meta.request).toBe(true);
      expect(meta.control.barrierGroup).toBe(7);
      expect(meta.appId).toBe(0);
      expect(meta.customerId).toBe(0);
    }
    for (const m of pick('A', `control:${Command.HEARTBEAT}:res`)) {
      const { meta } = decode(m);
      expect(meta.control.node[0]?.id).toBe(meta.sender);
    }
  });

  it("the C++ scheduler's node list: ids by role, ports ascending within a role, scheduler last", () => {
    const [m] = pick('B', `control:${Command.ADD_NODE}:res`);
    const { meta } = decode(m as Captured);
    expect(meta.sender).toBe(1);
    const nodes = meta.control.node;
    expect(nodes.map((n) => n.id).sort((a, b) => a - b)).toEqual([1, 8, 9, 10]);
    expect(nodes.at(-1)?.role).toBe(2);
    const servers = nodes.filter((n) => n.role === 0).sort((a, b) => a.id - b.id);
    expect((servers[0]?.port ?? 0) < (servers[1]?.port ?? 0)).toBe(true);
  });

  it("test_kv_app's push and pull: ~5000 keys of one server's range, float vals", () => {
    const [push] = pick('B', 'data:push:req');
    const [pull] = pick('B', 'data:pull:req');
    const p = decode(push as Captured);
    expect(p.meta.sender).toBe(9);
    expect(p.meta.push).toBe(true);
    expect(p.meta.pull).toBe(false);
    expect(p.meta.request).toBe(true);
    expect(p.meta.dataType).toEqual([DataType.UINT64, DataType.FLOAT]);
    expect(p.meta.dataSize).toBe(0); // the ZMQ van does not send data_size
    const keys = keysFromBytes(p.data[0] as Uint8Array);
    expect(Math.abs(keys.length - 5000)).toBeLessThanOrEqual(1);
    // worker rank 0 pushes keys kMaxKey/10000·i; the server got the ones of its range, in order
    const all = Array.from({ length: 10000 }, (_, i) => (MAX_KEY / 10000n) * BigInt(i));
    const ranges = serverKeyRanges(2);
    const mine = ranges
      .map((r) => all.filter((k) => k >= r.begin && k < r.end))
      .find((ks) => ks[0] === keys[0]);
    expect(Array.from(keys)).toEqual(mine);
    const vals = new Float32Array((p.data[1] as Uint8Array).slice().buffer);
    expect(vals.length).toBe(keys.length);
    expect(vals.every((v) => Number.isInteger(v) && v >= 0 && v < 1000)).toBe(true);
    const q = decode(pull as Captured);
    expect(q.meta.pull).toBe(true);
    expect(q.meta.push).toBe(false);
    expect(q.meta.timestamp).toBe(50); // after 50 pushes on the same customer
    expect(Array.from(keysFromBytes(q.data[0] as Uint8Array))).toEqual(Array.from(keys));
    expect(q.data[1]?.length).toBe(0); // ps-lite sends an empty vals frame with a pull
  });

  it('ACKs from the C++ resender carry the signature we compute for the acknowledged message', () => {
    const acks = pick('C', `control:${Command.ACK}:res`);
    expect(acks.length).toBe(2);
    for (const m of acks) {
      const { meta } = decode(m);
      expect(meta.sender).toBe(9);
      const sig = meta.control.msgSig;
      const app = Number(sig >> 48n);
      const sender = Number((sig >> 40n) & 0xffn);
      const recver = Number((sig >> 32n) & 0xffn);
      const low = Number(sig & 0xffffffffn);
      // our message went from us (scheduler 1 or a server 8/10) to the C++ worker 9
      expect(recver).toBe(9);
      if (m.receiver === 'scheduler') {
        expect(sender).toBe(1);
        // ADD_NODE has app_id kEmpty (→ 0xffff); a barrier release carries the request's app 0
        expect([0, 0xffff]).toContain(app);
      } else {
        expect([8, 10]).toContain(sender);
        expect(app).toBe(0); // an answer of app 0
      }
      const sent = decode(m); // reuse a Meta shell for the message we sent
      Object.assign(sent.meta, {
        appId: app === 0xffff ? K_EMPTY : app,
        sender: K_EMPTY,
        recver,
        timestamp: low >>> 1,
        request: (low & 1) === 1,
      });
      expect(messageSignature(sent, sender)).toBe(sig);
    }
  });
});
