/**
 * The `mx-launch` command end to end: `launchMain` in-process (help, bad command lines, a local
 * job's exit code), and the command as its own process run from source with tsx, the way
 * bin/mx-launch.js runs the built one: a failing worker's exit code becomes the launcher's, and
 * SIGTERM to the launcher stops every process it started.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { alive, Capture } from './__fixtures__/capture.js';
import { launchMain } from './main.js';

const ROLE = fileURLToPath(new URL('./__fixtures__/role.mjs', import.meta.url));
const ENTRY = fileURLToPath(new URL('./__fixtures__/mx-launch-src.ts', import.meta.url));
const PKG = fileURLToPath(new URL('../..', import.meta.url));

describe('launchMain', () => {
  it('prints the usage for --help', async () => {
    const stdout = new Capture();
    expect(await launchMain(['--help'], { stdout, stderr: new Capture(), handleSignals: false })).toBe(0);
    expect(stdout.lines[0]).toMatch(/^usage: mx-launch -n NUM_WORKERS/);
  });

  it('reports a bad command line with the option and exits 1 without starting anything', async () => {
    const stderr = new Capture();
    expect(
      await launchMain(['-n', '0', 'node', ROLE], { stdout: new Capture(), stderr, handleSignals: false }),
    ).toBe(1);
    expect(stderr.lines[0]).toBe("mx-launch: -n/--num-workers must be an integer ≥ 1, got '0'");
    expect(stderr.lines).toContain('  params: option=-n/--num-workers, value=0');
  });

  it('runs a local job and exits with the first failure', async () => {
    const stdout = new Capture();
    const stderr = new Capture();
    const code = await launchMain(
      [
        '-n',
        '2',
        '-s',
        '1',
        '--env',
        'MX_FIXTURE_FAIL_TASK=0',
        '--env-worker',
        'MX_FIXTURE_FAIL_MODE:fail:5',
        '--env',
        'MX_FIXTURE_MODE=hang',
        '--grace-period',
        '3',
        process.execPath,
        ROLE,
      ],
      { stdout, stderr, handleSignals: false, env: { PATH: process.env.PATH } },
    );
    expect(code).toBe(5);
    const port = stdout.of('scheduler').find((l) => l.startsWith('env DMLC_PS_ROOT_PORT='));
    expect(Number(port?.split('=')[1])).toBeGreaterThanOrEqual(9091);
    expect(stderr.lines).toContain('mx-launch: worker 0 exited with code 5; stopping the other processes');
  });
});

/** Starts mx-launch from source as a process; resolves its pids of interest from the output. */
function startCli(args: string[]): {
  child: ChildProcess;
  stdout: Capture;
  stderr: Capture;
  exit: Promise<number | null>;
} {
  const stdout = new Capture();
  const stderr = new Capture();
  const child = spawn(process.execPath, ['--import', 'tsx', ENTRY, ...args], {
    cwd: PKG,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.setEncoding('utf8').on('data', (s: string) => stdout.write(s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => stderr.write(s));
  const exit = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  return { child, stdout, stderr, exit };
}

function pids(c: Capture): number[] {
  return c.lines.flatMap((l) => {
    const m = /^\[[^\]]+\] pid (\d+)$/.exec(l);
    return m ? [Number(m[1])] : [];
  });
}

const LABELS = ['scheduler', 'server 0', 'worker 0', 'worker 1'];

describe('mx-launch as a process', () => {
  it('stops every process when it gets SIGTERM, and exits 143', async () => {
    const cli = startCli(['-n', '2', '-s', '1', '--env', 'MX_FIXTURE_MODE=hang', 'node', ROLE]);
    await Promise.all(LABELS.map((l) => cli.stdout.waitFor((line) => line === `[${l}] ready`, 20_000)));
    const started = pids(cli.stdout);
    expect(started).toHaveLength(4);
    for (const pid of started) expect(alive(pid)).toBe(true);
    cli.child.kill('SIGTERM');
    expect(await cli.exit).toBe(143);
    expect(cli.stderr.lines).toContain('mx-launch: got SIGTERM; stopping the job');
    for (const l of LABELS) expect(cli.stdout.of(l)).toContain('got SIGTERM, exiting');
    for (const pid of started) expect(alive(pid)).toBe(false);
  }, 30_000);

  it("exits with a failing worker's code after killing one that ignores SIGTERM", async () => {
    const cli = startCli([
      '-n',
      '2',
      '-s',
      '1',
      '--env',
      'MX_FIXTURE_MODE=ignore-term',
      '--env',
      'MX_FIXTURE_FAIL_TASK=1',
      '--env',
      'MX_FIXTURE_FAIL_MODE=fail:3',
      '--env',
      'MX_FIXTURE_DELAY_MS=1500',
      '--grace-period',
      '0.5',
      'node',
      ROLE,
    ]);
    expect(await cli.exit).toBe(3);
    const started = pids(cli.stdout);
    expect(started).toHaveLength(4);
    for (const pid of started) expect(alive(pid)).toBe(false);
    expect(cli.stderr.lines).toContain(
      'mx-launch: worker 1 exited with code 3; stopping the other processes',
    );
    expect(cli.stderr.lines).toContain('mx-launch: killing 3 process(es) still running 500 ms after SIGTERM');
  }, 30_000);
});
