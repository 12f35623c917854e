/**
 * Real local launches of a small node script (__fixtures__/role.mjs) that prints its pid and its
 * DMLC_* environment: the counts of each role and their prefixes, the failure path (a worker that
 * exits 3 ends the job with 3 and no process survives), stopping (SIGTERM, then SIGKILL after the
 * grace period for a process that ignores SIGTERM), and a program that cannot be started.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { alive, Capture } from './__fixtures__/capture.js';
import { runJob } from './job.js';
import { launchLocal } from './launchers.js';

const ROLE = fileURLToPath(new URL('./__fixtures__/role.mjs', import.meta.url));

function job(numWorkers: number, numServers: number, extra: Partial<Parameters<typeof launchLocal>[0]> = {}) {
  const stdout = new Capture();
  const stderr = new Capture();
  const handle = launchLocal({
    numWorkers,
    numServers,
    command: [process.execPath, ROLE, 'a b', '--lr=0.1'],
    rootPort: 9377,
    stdout,
    stderr,
    graceMs: 5000,
    ...extra,
  });
  return { handle, stdout, stderr };
}

/** `env K=V` lines of one process as a record. */
function envOf(c: Capture, label: string): Record<string, string> {
  return Object.fromEntries(
    c
      .of(label)
      .filter((l) => l.startsWith('env '))
      .map((l) => l.slice(4).split(/=(.*)/s).slice(0, 2) as [string, string]),
  );
}

describe('launchLocal', () => {
  it('runs one scheduler, S servers and W workers, each line prefixed with its role', async () => {
    const { handle, stdout, stderr } = job(3, 2, {
      env: [['MX_FIXTURE_ALL', 'yes']],
      envServer: [['MX_FIXTURE_S', '1']],
    });
    expect(handle.processes.map((p) => p.label)).toEqual([
      'scheduler',
      'worker 0',
      'worker 1',
      'worker 2',
      'server 0',
      'server 1',
    ]);
    const result = await handle.done;
    expect(result.code).toBe(0);
    expect(result.failure).toBeUndefined();
    expect(result.exits).toHaveLength(6);

    const labels = new Set(stdout.lines.map((l) => /^\[([^\]]+)\] /.exec(l)?.[1]));
    expect([...labels].sort()).toEqual([
      'scheduler',
      'server 0',
      'server 1',
      'worker 0',
      'worker 1',
      'worker 2',
    ]);
    const roles = (role: string) =>
      [...labels].filter((l) => l !== undefined && envOf(stdout, l).DMLC_ROLE === role).length;
    expect([roles('scheduler'), roles('server'), roles('worker')]).toEqual([1, 2, 3]);

    for (const p of handle.processes) {
      const env = envOf(stdout, p.label);
      expect(stdout.of(p.label)).toContain(`pid ${p.pid}`);
      expect(env).toMatchObject({
        DMLC_NUM_WORKER: '3',
        DMLC_NUM_SERVER: '2',
        DMLC_PS_ROOT_URI: '127.0.0.1',
        DMLC_PS_ROOT_PORT: '9377',
        MX_FIXTURE_ALL: 'yes',
      });
      // The user's argv arrives untouched (no shell in between).
      expect(stdout.of(p.label)).toContain('argv ["a b","--lr=0.1"]');
      // A last line without a newline is still forwarded, prefixed; stderr goes to stderr.
      expect(stdout.of(p.label)).toContain('last line without a newline');
      expect(stderr.of(p.label)).toEqual([`stderr of ${p.role}`]);
    }
    expect(envOf(stdout, 'scheduler')).not.toHaveProperty('DMLC_TASK_ID');
    expect(envOf(stdout, 'worker 2')).toMatchObject({
      DMLC_ROLE: 'worker',
      DMLC_TASK_ID: '2',
      DMLC_JOB_CLUSTER: 'local',
    });
    expect(envOf(stdout, 'server 1')).toMatchObject({
      DMLC_ROLE: 'server',
      DMLC_TASK_ID: '4',
      MX_FIXTURE_S: '1',
    });
    expect(envOf(stdout, 'worker 0')).not.toHaveProperty('MX_FIXTURE_S');
  });

  it('a worker exiting 3 ends the job with 3 and stops every other process', async () => {
    const { handle, stdout, stderr } = job(2, 2, {
      env: [
        ['MX_FIXTURE_MODE', 'hang'],
        ['MX_FIXTURE_FAIL_TASK', '1'],
        ['MX_FIXTURE_FAIL_MODE', 'fail:3'],
        ['MX_FIXTURE_DELAY_MS', '1500'],
      ],
    });
    const result = await handle.done;
    expect(result.code).toBe(3);
    expect(result.failure).toEqual({ label: 'worker 1', code: 3, signal: null });
    expect(result.stoppedBy).toBeUndefined();
    expect(stderr.lines).toContain('mx-launch: worker 1 exited with code 3; stopping the other processes');
    // The others were told to stop (they exit 0 on SIGTERM) and are all gone.
    const stopped = handle.processes.filter((p) => p.label !== 'worker 1');
    for (const p of stopped) expect(stdout.of(p.label)).toContain('got SIGTERM, exiting');
    expect(result.exits.map((e) => e.label).sort()).toEqual(handle.processes.map((p) => p.label).sort());
    for (const p of handle.processes) expect(alive(p.pid!)).toBe(false);
  });

  it('stop() sends SIGTERM, then SIGKILL to a process still alive after the grace period', async () => {
    const { handle, stdout } = job(1, 1, {
      env: [['MX_FIXTURE_MODE', 'hang']],
      envServer: [['MX_FIXTURE_MODE', 'ignore-term']],
      graceMs: 700,
    });
    await Promise.all(handle.processes.map((p) => stdout.waitFor((l) => l === `[${p.label}] ready`)));
    const t0 = performance.now();
    handle.stop('SIGTERM');
    const result = await handle.done;
    const elapsed = performance.now() - t0;
    expect(elapsed).toBeGreaterThanOrEqual(650);
    expect(elapsed).toBeLessThan(5000);
    expect(stdout.of('server 0')).toContain('got SIGTERM, ignoring it');
    const byLabel = Object.fromEntries(result.exits.map((e) => [e.label, e]));
    expect(byLabel['server 0']).toEqual({ label: 'server 0', code: 137, signal: 'SIGKILL' });
    expect(byLabel['worker 0']).toEqual({ label: 'worker 0', code: 0, signal: null });
    // Stopped from outside: 128 + SIGTERM, no process counted as the failure.
    expect(result).toMatchObject({ code: 143, stoppedBy: 'SIGTERM', failure: undefined });
    for (const p of handle.processes) expect(alive(p.pid!)).toBe(false);
  });

  it('a second stop() kills at once', async () => {
    const { handle, stdout } = job(1, 1, { env: [['MX_FIXTURE_MODE', 'ignore-term']], graceMs: 60_000 });
    await Promise.all(handle.processes.map((p) => stdout.waitFor((l) => l === `[${p.label}] ready`)));
    handle.stop('SIGINT');
    await stdout.waitFor((l) => l === '[scheduler] got SIGTERM, ignoring it');
    handle.stop('SIGINT');
    const result = await handle.done;
    expect(result.code).toBe(130);
    expect(result.exits.every((e) => e.signal === 'SIGKILL')).toBe(true);
  });

  it('a process killed by a signal it was not sent by the launcher fails the job with 128 + n', async () => {
    const { handle, stdout } = job(2, 1, { env: [['MX_FIXTURE_MODE', 'hang']] });
    await Promise.all(handle.processes.map((p) => stdout.waitFor((l) => l === `[${p.label}] ready`)));
    process.kill(handle.processes[1]!.pid!, 'SIGKILL');
    const result = await handle.done;
    expect(result.failure).toEqual({ label: 'worker 0', code: 137, signal: 'SIGKILL' });
    expect(result.code).toBe(137);
    for (const p of handle.processes) expect(alive(p.pid!)).toBe(false);
  });

  it('a program that cannot be started fails with 127 and stops the rest', async () => {
    const stdout = new Capture();
    const stderr = new Capture();
    const handle = runJob(
      [
        {
          role: 'scheduler',
          index: 0,
          argv: [process.execPath, ROLE],
          env: { MX_FIXTURE_MODE: 'hang', PATH: '' },
        },
        { role: 'worker', index: 0, argv: ['mx-launch-no-such-program'], env: { PATH: '/nonexistent' } },
      ],
      { stdout, stderr, graceMs: 2000 },
    );
    const result = await handle.done;
    expect(result.failure).toMatchObject({ label: 'worker 0', code: 127 });
    expect(result.code).toBe(127);
    expect(
      stderr.lines.some((l) =>
        l.startsWith("[worker 0] mx-launch: cannot start 'mx-launch-no-such-program'"),
      ),
    ).toBe(true);
    expect(alive(handle.processes[0]!.pid!)).toBe(false);
  });
});
