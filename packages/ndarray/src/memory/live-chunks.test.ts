/**
 * LiveChunks: records join and leave the list in any order without losing or double-counting one;
 * the report groups by site (op, dtype, shape) per device, largest first, with a sampled stack
 * pointing at the caller, a summary of the sites past the limit, and the unrecorded remainder.
 */
import { cpu, gpu } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { LiveChunks, type LiveNode } from './live-chunks.js';

const chunk = (): { liveNode: LiveNode | null } => ({ liveNode: null });

describe('LiveChunks', () => {
  it('adds and removes in any order; removing an unrecorded chunk is a no-op', () => {
    const live = new LiveChunks();
    const cs = Array.from({ length: 6 }, chunk);
    cs.forEach((c, i) => {
      live.add(c, cpu(), 100 * (i + 1), 'op', 'float32', [i + 1]);
    });
    expect(live.size).toBe(6);
    for (const i of [5, 0, 3]) live.remove(cs[i] as ReturnType<typeof chunk>); // head, tail, middle
    live.remove(cs[3] as ReturnType<typeof chunk>); // twice
    live.remove(chunk()); // never recorded
    expect(live.size).toBe(3);
    expect(
      live
        .sites(cpu())
        .map((s) => s.site)
        .sort(),
    ).toEqual(['op float32 (2,)', 'op float32 (3,)', 'op float32 (5,)']);
    for (const c of cs) live.remove(c);
    expect(live.size).toBe(0);
    expect(live.sites(cpu())).toEqual([]);
  });

  it('reports sites of one device, largest first, with stacks, the rest and the unrecorded', () => {
    const live = new LiveChunks();
    live.sampleEvery = 2;
    for (let i = 0; i < 4; i++) live.add(chunk(), cpu(), 4096, 'FullyConnected', 'float32', [32, 32]);
    live.add(chunk(), cpu(), 64, 'sum', 'float64', []);
    live.add(chunk(), gpu(), 1 << 20, 'Convolution', 'float32', [8, 3, 32, 32]);
    for (let i = 0; i < 3; i++) live.add(chunk(), cpu(), 8, `op${i}`, 'int32', [2]);
    const sites = live.sites(cpu());
    expect(sites.map((s) => [s.site, s.chunks, s.bytes])).toEqual([
      ['FullyConnected float32 (32, 32)', 4, 16384],
      ['sum float64 ()', 1, 64],
      ['op0 int32 (2,)', 1, 8],
      ['op1 int32 (2,)', 1, 8],
      ['op2 int32 (2,)', 1, 8],
    ]);
    expect(sites[0]?.stack).toMatch(/live-chunks\.test\.ts/); // the caller, not LiveChunks itself
    const report = live.report(cpu(), 7, 2).split('\n');
    expect(report[0]).toBe(
      'live arrays on cpu(0) by allocation site (8 storage chunks, 16.1 KiB; largest first):',
    );
    expect(report[1]).toBe('  4 × FullyConnected float32 (32, 32) = 16.0 KiB');
    expect(report[2]).toMatch(/^ {6}at .*live-chunks\.test\.ts/);
    expect(report).toContain('  … and 3 more site(s), 24 B');
    expect(report.at(-1)).toBe(
      '  (7 older live chunk(s) on all devices predate the first reclaim and are not itemized)',
    );
    expect(live.report(gpu(1), 0)).toBe(
      'no recorded live arrays on gpu(1)\n  (no creation stacks sampled; nd.leakCheck(fn) records one for every array)',
    );
  });
});
