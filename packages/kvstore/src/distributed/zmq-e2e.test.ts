/**
 * The distributed store end to end over ZeroMQ: mx-launch's local launcher starts a scheduler, two
 * servers and two workers as real processes on 127.0.0.1 running __fixtures__/train.mjs (built
 * packages), with one key split over both servers. Every worker must pull the weights that one
 * process gets from a local store summing both workers' gradients with the same optimizer
 * (MXNet's dist_sync semantics: the servers merge numWorkers pushes, then update once), and every
 * process must exit 0.
 */
import { fileURLToPath } from 'node:url';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime } from '@mx/ndarray';
import { createOptimizer } from '@mx/optimizer';
import { describe, expect, it } from 'vitest';
import { findFreePort } from '../launch/env.js';
import { launchLocal } from '../launch/launchers.js';
import { LocalKVStore } from '../local.js';

const SCRIPT = fileURLToPath(new URL('./__fixtures__/train.mjs', import.meta.url));

interface Result {
  rank: number;
  numWorkers: number;
  w3: number[];
  w7: number[];
}

async function runJob(
  numWorkers: number,
  numServers: number,
): Promise<{ code: number; results: Result[]; log: string }> {
  let out = '';
  const handle = launchLocal({
    numWorkers,
    numServers,
    command: [process.execPath, SCRIPT],
    // A port range of this file's own: e2e files run concurrently, and two jobs that found the same
    // free port before either scheduler bound it would join one scheduler and hang.
    rootPort: await findFreePort(41000, 41200),
    env: [
      ['MXNET_KVSTORE_BIGARRAY_BOUND', '100'],
      ['PS_HEARTBEAT_TIMEOUT', '20'],
    ],
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    graceMs: 2000,
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (out += s) },
  });
  const { code } = await handle.done;
  const results = [...out.matchAll(/RESULT (\{.*\})/g)].map((m) => JSON.parse(m[1] as string) as Result);
  return { code, results, log: out };
}

/** One process with a local store: both workers' gradients pushed together each step. */
async function reference(numWorkers: number): Promise<{ w3: number[]; w7: number[] }> {
  const rt = createRuntime({ backends: [new CpuWasmBackend()] });
  const { nd } = rt;
  const sizes: Record<number, number> = { 3: 40, 7: 300 };
  const grad = (key: number, rank: number, step: number) =>
    nd.array(
      Float32Array.from(
        { length: sizes[key] as number },
        (_, i) => ((i % 7) - 3) * 0.01 * (rank + 1) + step * 0.001 * key,
      ),
    );
  const kv = new LocalKVStore(rt, 'local');
  kv.init([3, 7], [nd.full([40], 0.5), nd.full([300], -0.25)]);
  kv.setOptimizer(createOptimizer('sgd', { learningRate: 0.1, momentum: 0.9 }));
  const outs = [nd.zeros([40]), nd.zeros([300])];
  const ranks = Array.from({ length: numWorkers }, (_, r) => r);
  for (let step = 0; step < 3; step++) {
    kv.push([3, 7], [ranks.map((r) => grad(3, r, step)), ranks.map((r) => grad(7, r, step))]);
    kv.pull([3, 7], outs);
  }
  const res = {
    w3: Array.from((await outs[0]?.data()) as Float32Array),
    w7: Array.from((await outs[1]?.data()) as Float32Array),
  };
  kv.dispose();
  await rt.dispose();
  return res;
}

describe('dist_sync over ZeroMQ (real processes)', () => {
  it('two workers and two servers give the weights of one process summing both gradients', async () => {
    const [job, want] = await Promise.all([runJob(2, 2), reference(2)]);
    expect(job.code, job.log).toBe(0);
    expect(job.results.map((r) => r.rank).sort()).toEqual([0, 1]);
    for (const r of job.results) {
      expect(r.numWorkers).toBe(2);
      expect(r.w3.length).toBe(40);
      expect(r.w7.length).toBe(300);
      for (const [i, v] of r.w3.entries()) expect(v).toBeCloseTo(want.w3[i] as number, 5);
      for (const [i, v] of r.w7.entries()) expect(v).toBeCloseTo(want.w7[i] as number, 5);
    }
  }, 120_000);
});
