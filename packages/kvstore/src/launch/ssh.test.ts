/**
 * The ssh launcher without ssh: the hostfile format, the quoting, the exact command lines built
 * (checked against hand-written strings in dmlc ssh.py's shape), the rsync of --sync-dst-dir, and
 * the plan (servers first, hosts round-robin, one local scheduler). A shell round trip checks that
 * the quoting gives the remote side the same argv.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { planSsh } from './launchers.js';
import { parseHostfile, rsyncCommand, shellQuote, sshCommand } from './ssh.js';

describe('parseHostfile', () => {
  it('reads host, host:port and MPI "host slots=N" lines, skipping blanks and comments', () => {
    expect(parseHostfile('a\r\n\n# c\n b:2200 \nc slots=8\nd:23 slots=2\n')).toEqual([
      { host: 'a', port: undefined },
      { host: 'b', port: '2200' },
      { host: 'c', port: undefined },
      { host: 'd', port: '23' },
    ]);
  });
});

describe('shellQuote', () => {
  it('leaves plain words and quotes the rest so sh reads them back unchanged', () => {
    expect(shellQuote('train.py')).toBe('train.py');
    expect(shellQuote('--lr=0.1')).toBe('--lr=0.1');
    expect(shellQuote('a b')).toBe("'a b'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote('')).toBe("''");
    const words = ['x y', "it's", '$HOME', '`id`', 'a"b', '', '*', 'new\nline', '\\'];
    const echoed = execFileSync('/bin/sh', ['-c', `printf '%s\\0' ${words.map(shellQuote).join(' ')}`], {
      encoding: 'utf8',
    });
    expect(echoed.split('\0').slice(0, -1)).toEqual(words);
  });
});

describe('sshCommand', () => {
  it("builds ssh -o StrictHostKeyChecking=no HOST 'cd DIR && export K=V … && CMD'", () => {
    const c = sshCommand({
      host: { host: '10.0.0.1', port: undefined },
      cwd: '/home/u/job',
      env: { DMLC_ROLE: 'worker', DMLC_PS_ROOT_PORT: '9091' },
      command: ['node', 'train.js', '--lr', '0.1'],
    });
    expect(c.argv).toEqual([
      'ssh',
      '-o',
      'StrictHostKeyChecking=no',
      '10.0.0.1',
      'cd /home/u/job && export DMLC_ROLE=worker DMLC_PS_ROOT_PORT=9091 && node train.js --lr 0.1',
    ]);
    expect(c.commandLine).toBe(
      "ssh -o StrictHostKeyChecking=no 10.0.0.1 'cd /home/u/job && export DMLC_ROLE=worker DMLC_PS_ROOT_PORT=9091 && node train.js --lr 0.1'",
    );
  });

  it('passes the port and quotes directories, values and arguments twice over', () => {
    const c = sshCommand({
      host: { host: 'h', port: '2222' },
      cwd: '/my dir',
      env: { MSG: "it's" },
      command: ['node', 'a b.js'],
    });
    const remote = "cd '/my dir' && export MSG='it'\\''s' && node 'a b.js'";
    expect(c.argv).toEqual(['ssh', '-o', 'StrictHostKeyChecking=no', '-p', '2222', 'h', remote]);
    // The printed line, read by a shell, gives back the argv.
    const back = execFileSync('/bin/sh', ['-c', `printf '%s\\0' ${c.commandLine}`], { encoding: 'utf8' });
    expect(back.split('\0').slice(0, -1)).toEqual(c.argv);
    expect(
      sshCommand({ host: { host: 'h', port: undefined }, cwd: '/d', env: {}, command: ['x'] }).argv.at(-1),
    ).toBe('cd /d && x');
  });
});

describe('rsyncCommand', () => {
  it('is ssh.py sync_dir: rsync -az --rsh="ssh -o StrictHostKeyChecking=no -p PORT" DIR/ HOST:DST', () => {
    expect(rsyncCommand({ host: 'h', port: '2222' }, '/src', '/dst').commandLine).toBe(
      "rsync -az '--rsh=ssh -o StrictHostKeyChecking=no -p 2222' /src/ h:/dst",
    );
    expect(rsyncCommand({ host: 'h', port: undefined }, '/src/', '/dst').argv).toEqual([
      'rsync',
      '-az',
      '--rsh=ssh -o StrictHostKeyChecking=no',
      '/src/',
      'h:/dst',
    ]);
  });
});

describe('planSsh', () => {
  const plan = planSsh({
    numWorkers: 2,
    numServers: 1,
    command: ['node', 'train.js'],
    rootPort: 9100,
    rootUri: '10.0.0.9',
    hosts: [
      { host: 'h1', port: undefined },
      { host: 'h2', port: '2200' },
    ],
    env: [['MX_A', '1']],
    envWorker: [['MX_W', 'w']],
    envServer: [['MX_S', 's']],
    baseEnv: { PATH: '/bin', OMP_NUM_THREADS: '4', DMLC_INTERFACE: 'eth1', SECRET: 'x' },
    cwd: '/job',
  });

  it('runs the scheduler here and servers before workers round-robin over the hosts', () => {
    expect(plan.map((p) => [p.spec.role, p.spec.index, p.ssh?.argv.at(-2)])).toEqual([
      ['scheduler', 0, undefined],
      ['server', 0, 'h1'],
      ['worker', 0, 'h2'],
      ['worker', 1, 'h1'],
    ]);
    const sched = plan[0]!.spec;
    expect(sched.argv).toEqual(['node', 'train.js']);
    expect(sched.env).toMatchObject({
      DMLC_ROLE: 'scheduler',
      DMLC_PS_ROOT_URI: '10.0.0.9',
      MX_A: '1',
      PATH: '/bin',
    });
  });

  it('exports the forwarded system variables, --env, the role pairs and DMLC_* with DMLC_NODE_HOST', () => {
    expect(plan[1]!.ssh!.commandLine).toBe(
      "ssh -o StrictHostKeyChecking=no h1 'cd /job && export OMP_NUM_THREADS=4 DMLC_INTERFACE=eth1 MX_A=1 MX_S=s " +
        'DMLC_NUM_WORKER=2 DMLC_NUM_SERVER=1 DMLC_PS_ROOT_URI=10.0.0.9 DMLC_PS_ROOT_PORT=9100 DMLC_ROLE=server ' +
        "DMLC_NODE_HOST=h1 && node train.js'",
    );
    expect(plan[2]!.ssh!.argv).toEqual([
      'ssh',
      '-o',
      'StrictHostKeyChecking=no',
      '-p',
      '2200',
      'h2',
      'cd /job && export OMP_NUM_THREADS=4 DMLC_INTERFACE=eth1 MX_A=1 MX_W=w DMLC_NUM_WORKER=2 DMLC_NUM_SERVER=1 ' +
        'DMLC_PS_ROOT_URI=10.0.0.9 DMLC_PS_ROOT_PORT=9100 DMLC_ROLE=worker DMLC_NODE_HOST=h2 && node train.js',
    ]);
    // The ssh client itself runs with the launcher's environment.
    expect(plan[2]!.spec.env).toEqual({
      PATH: '/bin',
      OMP_NUM_THREADS: '4',
      DMLC_INTERFACE: 'eth1',
      SECRET: 'x',
    });
  });
});
