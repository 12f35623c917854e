/**
 * A dist_async job over ZeroMQ survives a worker's death (real processes on 127.0.0.1, built
 * packages, __fixtures__/recover.mjs): worker rank 1 kills itself mid-training; the other worker
 * keeps training and counts it dead (`numDeadNodes`) within the heartbeat timeout; the same command
 * started again rejoins as rank 1 (ps-lite recovery; PS_RECOVERY_TIMEOUT lets barriers wait for it),
 * trains on, and both finish with the weights every push made (SGD, exact float32), and every
 * process exits 0.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { findFreePort } from '../launch/env.js';

const SCRIPT = fileURLToPath(new URL('./__fixtures__/recover.mjs', import.meta.url));
const CWD = fileURLToPath(new URL('../..', import.meta.url));
const started: ChildProcess[] = [];
afterEach(() => {
  for (const p of started.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
});

interface Run {
  out: string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function run(env: Record<string, string>): Run {
  const p = spawn(process.execPath, [SCRIPT], { cwd: CWD, env: { ...process.env, ...env } });
  started.push(p);
  const r: Run = {
    out: '',
    exit: new Promise((resolve) => p.on('exit', (code, signal) => resolve({ code, signal }))),
  };
  p.stdout?.on('data', (d) => (r.out += d));
  p.stderr?.on('data', (d) => (r.out += d));
  return r;
}

const result = (r: Run) => JSON.parse(/RESULT (\{.*\})/.exec(r.out)?.[1] ?? 'null');

describe('dist_async over ZeroMQ with a worker restarted', () => {
  it('the restarted worker rejoins as the dead one and training goes on', async () => {
    // A port range of this file's own: e2e files run concurrently, and two jobs that found the same
    // free port before either scheduler bound it would join one scheduler and hang.
    const port = await findFreePort(41400, 41600);
    const env = (role: string) => ({
      DMLC_ROLE: role,
      DMLC_PS_ROOT_URI: '127.0.0.1',
      DMLC_PS_ROOT_PORT: String(port),
      DMLC_NUM_SERVER: '1',
      DMLC_NUM_WORKER: '2',
      DMLC_NODE_HOST: '127.0.0.1',
      PS_HEARTBEAT_INTERVAL: '0.3',
      PS_HEARTBEAT_TIMEOUT: '1.5',
      // The scheduler's closing barrier waits for rank 1's replacement instead of failing.
      PS_RECOVERY_TIMEOUT: '30',
    });
    const scheduler = run(env('scheduler'));
    const server = run(env('server'));
    const workers = [run(env('worker')), run(env('worker'))];
    // Whichever got rank 1 dies; give the others time to notice, then start it again.
    const first = await Promise.race(workers.map((w, i) => w.exit.then((e) => ({ i, e }))));
    const log = () => [scheduler, server, ...workers].map((r) => r.out).join('\n---\n');
    expect(first.e.signal, log()).toBe('SIGKILL');
    expect(workers[first.i]?.out).toContain('DYING');
    await new Promise((r) => setTimeout(r, 2500));
    const again = run({ ...env('worker'), MX_RESTARTED: '1' });
    const survivor = workers[1 - first.i] as Run;
    const exits = await Promise.all([again.exit, survivor.exit, server.exit, scheduler.exit]);
    expect(
      exits.map((e) => e.code),
      `${log()}\n---\n${again.out}`,
    ).toEqual([0, 0, 0, 0]);
    const a = result(again);
    const s = result(survivor);
    expect([a.rank, a.restarted, s.rank]).toEqual([1, true, 0]);
    expect(s.sawDead).toBe(true);
    // Every push counted once: rank 0's 1s and rank 1's 2s (4 before its death, 4 after), lr 0.125.
    const want = 1 - 0.125 * s.steps - 0.25 * 8;
    expect(s.w).toEqual(new Array(8).fill(want));
    expect(a.w).toEqual(s.w);
    expect(scheduler.out).toMatch(/replaces dead node 11 \(recovery\)/);
  }, 60_000);
});
