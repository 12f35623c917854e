/**
 * The in-memory ps-lite keeps the semantics the store relies on: requests sliced by the servers'
 * key ranges (one message per server), pull answers merged in key order whatever order the
 * servers answer in, barriers per group, commands to a group.
 */
import { describe, expect, it } from 'vitest';
import { SERVER_GROUP, serverRankToId, WORKER_GROUP } from '../pslite/api.js';
import { MemoryPs } from './memory-ps.js';

describe('MemoryPs', () => {
  it('slices a push per server and merges pull answers in key order', async () => {
    const ps = new MemoryPs({ numWorkers: 1, numServers: 3 });
    const [r0, r1, r2] = ps.ranges;
    const stored = new Map<bigint, Uint8Array>();
    for (let s = 0; s < 3; s++) {
      const { server } = ps.server(s);
      server?.setRequestHandle((meta, data, srv) => {
        if (meta.push) {
          let o = 0;
          data.keys.forEach((k, i) => {
            stored.set(k, data.vals.slice(o, o + (data.lens[i] as number)));
            o += data.lens[i] as number;
          });
          srv.response(meta);
        } else {
          expect(data.lens.length).toBe(0);
          const vals = [...data.keys].map((k) => stored.get(k) as Uint8Array);
          // Server 0 answers last: the merge must still be in key order.
          const answer = () =>
            srv.response(meta, {
              keys: data.keys,
              vals: Uint8Array.from(vals.flatMap((v) => [...v])),
              lens: Int32Array.from(vals.map((v) => v.length)),
            });
          if (s === 0) setTimeout(answer, 5);
          else answer();
        }
      });
    }
    const { worker } = ps.worker(0);
    const keys = BigUint64Array.of(
      (r0?.begin ?? 0n) + 1n,
      (r1?.begin ?? 0n) + 1n,
      (r2?.begin ?? 0n) + 1n,
      (r2?.begin ?? 0n) + 2n,
    );
    await worker?.zpush(
      { keys, vals: Uint8Array.of(1, 2, 2, 3, 3, 3, 4), lens: Int32Array.of(1, 2, 3, 1) },
      0,
    );
    expect(ps.messages.map((m) => [m.recipient, m.keys.length])).toEqual([
      [serverRankToId(0), 1],
      [serverRankToId(1), 1],
      [serverRankToId(2), 2],
    ]);
    const got = await worker?.zpull(keys, 0);
    expect([...(got?.keys ?? [])]).toEqual([...keys]);
    expect([...(got?.vals ?? [])]).toEqual([1, 2, 2, 3, 3, 3, 4]);
    expect([...(got?.lens ?? [])]).toEqual([1, 2, 3, 1]);
    await expect(
      worker?.zpush({
        keys: BigUint64Array.of(keys[2] as bigint, keys[0] as bigint),
        vals: new Uint8Array(2),
        lens: Int32Array.of(1, 1),
      }),
    ).rejects.toThrow(/grouped by server/);
  });

  it('releases a barrier when the whole group arrived, and sends commands to a group', async () => {
    const ps = new MemoryPs({ numWorkers: 2, numServers: 2 });
    let released = 0;
    const first = ps
      .worker(0)
      .node.barrier(WORKER_GROUP)
      .then(() => released++);
    await new Promise((r) => setTimeout(r, 5));
    expect(released).toBe(0);
    await Promise.all([first, ps.worker(1).node.barrier(WORKER_GROUP)]);
    expect(released).toBe(1);
    const seen: string[] = [];
    for (let s = 0; s < 2; s++) {
      ps.server(s).app.setRequestHandle((head, body, sender) => {
        seen.push(`${s}:${head}:${new TextDecoder().decode(body)}:${sender}`);
      });
    }
    await ps.worker(1).app.request(3, 'hi', SERVER_GROUP);
    expect(seen.sort()).toEqual(['0:3:hi:11', '1:3:hi:11']);
  });
});
