/**
 * mx-launch's command line: launch.py's options and defaults, where our options end and the user's
 * command begins, and each rejected input as an MXNetError naming the option.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { DEFAULT_GRACE_MS, type LaunchArgs, parseEnvPair, parseLaunchArgs } from './args.js';

function parse(argv: string[], env: NodeJS.ProcessEnv = {}): LaunchArgs {
  const r = parseLaunchArgs(argv, env);
  if (r === 'help') throw new Error('unexpected help');
  return r;
}

function error(argv: string[], env: NodeJS.ProcessEnv = {}): MXNetError {
  try {
    parseLaunchArgs(argv, env);
  } catch (e) {
    expect(e).toBeInstanceOf(MXNetError);
    return e as MXNetError;
  }
  throw new Error(`no error for ${JSON.stringify(argv)}`);
}

const dir = mkdtempSync(join(tmpdir(), 'mx-launch-args-'));
const hostfile = join(dir, 'hosts');
writeFileSync(hostfile, '10.0.0.1\n\n  10.0.0.2:2222  \nnode3 slots=4\n');

describe('parseLaunchArgs', () => {
  it('reads launch.py options; -s defaults to -n; local without a hostfile', () => {
    const a = parse(['-n', '3', 'node', 'train.js']);
    expect(a).toMatchObject({
      numWorkers: 3,
      numServers: 3,
      launcher: 'local',
      hosts: [],
      env: [],
      graceMs: DEFAULT_GRACE_MS,
      command: ['node', 'train.js'],
    });
    expect(parse(['--num-workers=2', '-s1', 'x']).numServers).toBe(1);
    expect(parse(['-n2', '--num-servers', '4', 'x'])).toMatchObject({ numWorkers: 2, numServers: 4 });
  });

  it('ends our options at the first positional: the command keeps its own options, even ours', () => {
    const a = parse(['-n', '1', 'node', 'train.js', '--lr', '0.1', '-n', '5', '--env', 'A=1']);
    expect(a.command).toEqual(['node', 'train.js', '--lr', '0.1', '-n', '5', '--env', 'A=1']);
    expect(a.numWorkers).toBe(1);
    expect(a.env).toEqual([]);
    expect(parse(['-n', '1', '--', '--weird-program', 'x']).command).toEqual(['--weird-program', 'x']);
  });

  it('collects --env, --env-server and --env-worker (K=V, K:V, bare K from the environment)', () => {
    const a = parse(
      [
        '-n',
        '1',
        '--env',
        'A=1=2',
        '--env',
        'HOME_DIR',
        '--env-server',
        'OMP_NUM_THREADS:3',
        '--env-worker=B=x:y',
        'cmd',
      ],
      { HOME_DIR: '/home/u' },
    );
    expect(a.env).toEqual([
      ['A', '1=2'],
      ['HOME_DIR', '/home/u'],
    ]);
    expect(a.envServer).toEqual([['OMP_NUM_THREADS', '3']]);
    expect(a.envWorker).toEqual([['B', 'x:y']]);
    expect(parseEnvPair('--env', 'E=', {})).toEqual(['E', '']);
  });

  it('reads the hostfile for ssh (the default launcher with -H), as dmlc parses it', () => {
    const a = parse(['-n', '2', '-H', hostfile, '--sync-dst-dir', '/tmp/job', 'python', 'x.py']);
    expect(a.launcher).toBe('ssh');
    expect(a.hosts).toEqual([
      { host: '10.0.0.1', port: undefined },
      { host: '10.0.0.2', port: '2222' },
      { host: 'node3', port: undefined },
    ]);
    expect(a.syncDstDir).toBe('/tmp/job');
    expect(parse(['-n', '1', '--launcher', 'ssh', '--hostfile', hostfile, 'x']).launcher).toBe('ssh');
  });

  it('reads --host-ip and --grace-period (seconds)', () => {
    expect(parse(['-n', '1', '--host-ip', '10.1.2.3', '--grace-period', '0.25', 'x'])).toMatchObject({
      hostIp: '10.1.2.3',
      graceMs: 250,
    });
  });

  it('answers help for -h/--help', () => {
    expect(parseLaunchArgs(['-h'], {})).toBe('help');
    expect(parseLaunchArgs(['-n', '2', '--help'], {})).toBe('help');
  });

  it.each([
    [['node', 'x.js'], '-n/--num-workers', 'is required'],
    [['-n', '0', 'node'], '-n/--num-workers', "integer ≥ 1, got '0'"],
    [['-n', 'two', 'node'], '-n/--num-workers', "got 'two'"],
    [['-n', '1.5', 'node'], '-n/--num-workers', "got '1.5'"],
    [['-n', '-1', 'node'], '-n', 'ambiguous'],
    [['-n', '2', '-s', '0', 'node'], '-s/--num-servers', 'rabit'],
    [['-n', '2', '-s', 'x', 'node'], '-s/--num-servers', "got 'x'"],
    [['-n', '2'], 'command', 'missing the command'],
    [['-n', '2', '--'], 'command', 'missing the command'],
    [['-n', '2', '--launcher', 'yarn', 'node'], '--launcher', "unknown launcher 'yarn'"],
    [['-n', '2', '--launcher', 'bogus', 'node'], '--launcher', "unknown launcher 'bogus'"],
    [['-n', '2', '--launcher', 'ssh', 'node'], '-H/--hostfile', 'needs -H/--hostfile'],
    [['-n', '2', '--launcher', 'local', '-H', hostfile, 'node'], '-H/--hostfile', 'for the ssh launcher'],
    [['-n', '2', '-H', join(dir, 'missing'), 'node'], '-H/--hostfile', 'cannot read'],
    [['-n', '2', '-H', dir, 'node'], '-H/--hostfile', 'cannot read'],
    [['-n', '2', '--env', '1A=2', 'node'], '--env', "'1A' is not a valid"],
    [['-n', '2', '--env-worker', 'A B=2', 'node'], '--env-worker', 'not a valid'],
    [['-n', '2', '--env', 'UNSET_VAR', 'node'], '--env', 'UNSET_VAR is not set'],
    [['-n', '2', '--grace-period', 'soon', 'node'], '--grace-period', "got 'soon'"],
    [['-n', '2', '--p3', 'node'], '--p3', "Unknown option '--p3'"],
    [['-n', '2', '--launcher'], '--launcher', 'argument missing'],
  ])('rejects %j naming %s', (argv, option, text) => {
    const e = error(argv);
    expect(e.params?.option).toBe(option);
    expect(e.message).toContain(text);
    expect(e.op).toBe('mx-launch');
  });

  it('rejects an empty hostfile', () => {
    const empty = join(dir, 'empty');
    writeFileSync(empty, '\n# nothing\n');
    const e = error(['-n', '1', '-H', empty, 'x']);
    expect(e.params?.option).toBe('-H/--hostfile');
    expect(e.message).toContain('names no host');
  });
});
