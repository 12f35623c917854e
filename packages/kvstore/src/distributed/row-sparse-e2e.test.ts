/**
 * Row_sparse keys over ZeroMQ: mx-launch's local launcher starts a scheduler, two servers and two
 * workers as real processes on 127.0.0.1 running __fixtures__/rsp.mjs (built packages), with the
 * table split over both servers (MXNET_KVSTORE_BIGARRAY_BOUND lowered) and no updater, so pushes of
 * no rows, pulls of no rows and row lengths cross the real wire. Every worker's pulled rows and
 * dense values must be the NumPy ones of tools/golden/kvstore/row_sparse.py, and every process
 * must exit 0.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import golden from '../__golden__/row_sparse.json' with { type: 'json' };
import { findFreePort } from '../launch/env.js';
import { launchLocal } from '../launch/launchers.js';

const SCRIPT = fileURLToPath(new URL('./__fixtures__/rsp.mjs', import.meta.url));
const CASE = 2;

interface Result {
  rank: number;
  steps: { pulled: { indices: number[]; data: number[] }; weight: number[] }[];
}

describe('row_sparse keys of dist_sync over ZeroMQ (real processes)', () => {
  it('two workers and two servers pull the NumPy rows and values', async () => {
    let out = '';
    const handle = launchLocal({
      numWorkers: 2,
      numServers: 2,
      command: [process.execPath, SCRIPT],
      // A port range of this file's own: e2e files run concurrently, and two jobs that found the same
      // free port before either scheduler bound it would join one scheduler and hang.
      rootPort: await findFreePort(41200, 41400),
      env: [
        ['MXNET_KVSTORE_BIGARRAY_BOUND', '8'],
        ['ROW_SPARSE_CASE', String(CASE)],
        ['PS_HEARTBEAT_TIMEOUT', '20'],
      ],
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      graceMs: 2000,
      stdout: { write: (s: string) => (out += s) },
      stderr: { write: (s: string) => (out += s) },
    });
    const { code } = await handle.done;
    expect(code, out).toBe(0);
    const results = [...out.matchAll(/RESULT (\{.*\})/g)].map((m) => JSON.parse(m[1] as string) as Result);
    expect(results.map((r) => r.rank).sort()).toEqual([0, 1]);
    const c = golden.dist[CASE] as (typeof golden.dist)[0];
    expect(c.updater).toBe('none');
    expect((c.shape[0] as number) * (c.shape[1] as number)).toBeGreaterThanOrEqual(8); // split
    for (const r of results) {
      expect(r.steps.length).toBe(c.steps.length);
      for (const [i, s] of r.steps.entries()) {
        expect(s.pulled).toEqual(c.steps[i]?.pulled[r.rank]);
        expect(s.weight).toEqual(c.steps[i]?.weight);
      }
    }
  }, 120_000);
});
