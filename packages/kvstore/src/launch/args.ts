/**
 * `mx-launch`'s command line: MXNet's tools/launch.py options (-n, -s, -H, --launcher, --env,
 * --env-server, --env-worker, --sync-dst-dir) plus dmlc's --host-ip and a --grace-period for stopping.
 * Parsed with node's util.parseArgs (no argument-parser dependency in the repository), in two passes:
 * options end at the first positional argument (or `--`), and everything from there on is the user's
 * command untouched, so `mx-launch -n 2 node train.js --lr 0.1` never mistakes `--lr` for ours.
 * Every problem is an MXNetError naming the option, so a bad command line fails before anything runs.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { MXNetError } from '@mx/base';
import { parseHostfile, type SshHost } from './ssh.js';

/** The launchers mx-launch provides (launch.py also names mpi, sge and yarn). */
export type LauncherKind = 'local' | 'ssh';

/** An environment variable to set: `[name, value]`. */
export type EnvPair = readonly [name: string, value: string];

/** mx-launch's parsed command line. */
export interface LaunchArgs {
  /** `-n/--num-workers`: worker processes (≥ 1). */
  readonly numWorkers: number;
  /** `-s/--num-servers`: server processes (≥ 1; launch.py's default: the number of workers). */
  readonly numServers: number;
  /** `--launcher`: `ssh` when a hostfile is given, else `local` (launch.py: always `ssh`, failing without -H). */
  readonly launcher: LauncherKind;
  /** `-H/--hostfile` as given (ssh only). */
  readonly hostfile: string | undefined;
  /** The hosts read from the hostfile (ssh only; empty for local). */
  readonly hosts: readonly SshHost[];
  /** `--env`: set for every role (scheduler, servers, workers). */
  readonly env: readonly EnvPair[];
  /** `--env-server`: set for the servers only. */
  readonly envServer: readonly EnvPair[];
  /** `--env-worker`: set for the workers only. */
  readonly envWorker: readonly EnvPair[];
  /** `--sync-dst-dir`: rsync the working directory there on every host first (ssh only). */
  readonly syncDstDir: string | undefined;
  /** `--host-ip`: the scheduler's address given to every node (DMLC_PS_ROOT_URI). */
  readonly hostIp: string | undefined;
  /** `--grace-period`: milliseconds between SIGTERM and SIGKILL when stopping the job. */
  readonly graceMs: number;
  /** The command every role runs (program and arguments). */
  readonly command: readonly string[];
}

/** Default time a process is given to exit after SIGTERM before it is killed. */
export const DEFAULT_GRACE_MS = 10_000;

const OPTIONS = {
  'num-workers': { type: 'string', short: 'n' },
  'num-servers': { type: 'string', short: 's' },
  hostfile: { type: 'string', short: 'H' },
  launcher: { type: 'string' },
  env: { type: 'string', multiple: true },
  'env-server': { type: 'string', multiple: true },
  'env-worker': { type: 'string', multiple: true },
  'sync-dst-dir': { type: 'string' },
  'host-ip': { type: 'string' },
  'grace-period': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The usage text (`mx-launch --help`). */
export function launchUsage(): string {
  return [
    'usage: mx-launch -n NUM_WORKERS [-s NUM_SERVERS] [--launcher {local,ssh}] [-H HOSTFILE]',
    '                 [--env K=V ...] [--env-server K=V ...] [--env-worker K=V ...]',
    '                 [--sync-dst-dir DIR] [--host-ip ADDR] [--grace-period SECONDS] [--] command ...',
    '',
    'Launch a distributed job over ps-lite: one scheduler, the servers and the workers, each running',
    'the same command with DMLC_ROLE and the DMLC_PS_* variables set.',
    '',
    '  -n, --num-workers N       number of worker processes',
    '  -s, --num-servers N       number of server processes (default: NUM_WORKERS)',
    '  -H, --hostfile FILE       hosts to run on, one per line (host, host:port, "host slots=N")',
    '  --launcher {local,ssh}    where to run (default: ssh with -H, local without)',
    '  --env K=V | K             set K for every process (K alone: pass its current value on)',
    '  --env-server K=V | K:V    set K for the servers only',
    '  --env-worker K=V | K:V    set K for the workers only',
    '  --sync-dst-dir DIR        ssh: rsync the current directory into DIR on every host first',
    '  --host-ip ADDR            the scheduler address the nodes connect to',
    "                            (default: 127.0.0.1 for local, this machine's IP for ssh)",
    `  --grace-period SECONDS    time between SIGTERM and SIGKILL when stopping (default ${DEFAULT_GRACE_MS / 1000})`,
    '  -h, --help                show this help',
    '',
  ].join('\n');
}

function fail(message: string, option: string, value?: unknown, hint?: string): never {
  throw new MXNetError(message, {
    op: 'mx-launch',
    params: value === undefined ? { option } : { option, value },
    ...(hint === undefined ? {} : { hint }),
  });
}

function count(option: string, raw: string, min: number): number {
  if (!/^\d+$/.test(raw) || Number(raw) < min || !Number.isSafeInteger(Number(raw))) {
    fail(`${option} must be an integer ≥ ${min}, got '${raw}'`, option, raw);
  }
  return Number(raw);
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * One `--env`-style value: `K=V`, `K:V` (launch.py's spelling for --env-server/--env-worker) or a
 * bare `K`, which passes K's value from `from` on (launch.py's --env). The separator is the first
 * `=` or `:`; names must be shell identifiers (they are exported on remote hosts).
 */
export function parseEnvPair(option: string, raw: string, from: NodeJS.ProcessEnv): EnvPair {
  const cut = raw.search(/[=:]/);
  const name = cut < 0 ? raw : raw.slice(0, cut);
  if (!ENV_NAME.test(name)) {
    fail(
      `${option} '${raw}': '${name}' is not a valid environment variable name`,
      option,
      raw,
      'use NAME=value',
    );
  }
  if (cut >= 0) return [name, raw.slice(cut + 1)];
  const value = from[name];
  if (value === undefined) {
    fail(
      `${option} ${name}: ${name} is not set in mx-launch's environment`,
      option,
      raw,
      `give the value: ${option} ${name}=value`,
    );
  }
  return [name, value];
}

/**
 * Parses mx-launch's command line (without the program name). Returns `'help'` for -h/--help.
 * Reads the hostfile (ssh). `env` is the environment bare `--env NAME` values come from.
 * @throws MXNetError naming the option for anything launch.py would reject, plus: counts below 1,
 * `-s 0` (dmlc's rabit tracker, not provided), launchers other than local/ssh, ssh without a
 * readable non-empty hostfile, a hostfile given to the local launcher, a missing command.
 */
export function parseLaunchArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): LaunchArgs | 'help' {
  // Pass 1 (lenient) only finds where the command starts: options that take a value consume it.
  const { tokens } = parseArgs({
    args: [...argv],
    options: OPTIONS,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  let optEnd = argv.length;
  let cmdStart = argv.length;
  for (const t of tokens) {
    if (t.kind === 'positional' || t.kind === 'option-terminator') {
      optEnd = t.index;
      cmdStart = t.kind === 'positional' ? t.index : t.index + 1;
      break;
    }
  }
  // Pass 2 (strict) checks the options themselves.
  let values: ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];
  try {
    ({ values } = parseArgs({ args: argv.slice(0, optEnd), options: OPTIONS, strict: true }));
  } catch (e) {
    const msg = e instanceof Error ? e.message.split('\n')[0]! : String(e);
    const named = /'(-[^'\s,]+)/.exec(msg)?.[1] ?? '?';
    fail(msg.replace(/\.$/, ''), named, undefined, 'see mx-launch --help');
  }
  if (values.help) return 'help';

  if (values['num-workers'] === undefined) {
    fail('-n/--num-workers is required', '-n/--num-workers', undefined, 'e.g. mx-launch -n 2 node train.js');
  }
  const numWorkers = count('-n/--num-workers', values['num-workers'], 1);
  const numServers =
    values['num-servers'] === undefined ? numWorkers : count('-s/--num-servers', values['num-servers'], 0);
  if (numServers === 0) {
    fail(
      "-s/--num-servers 0 asks for dmlc's rabit tracker (no parameter servers), which mx-launch does not provide",
      '-s/--num-servers',
      '0',
      'the distributed KVStore needs at least one server: -s 1',
    );
  }

  const hostfile = values.hostfile;
  const launcherRaw = values.launcher ?? (hostfile === undefined ? 'local' : 'ssh');
  if (launcherRaw !== 'local' && launcherRaw !== 'ssh') {
    fail(
      `unknown launcher '${launcherRaw}' for --launcher: mx-launch provides local and ssh`,
      '--launcher',
      launcherRaw,
      ['mpi', 'sge', 'yarn'].includes(launcherRaw)
        ? `launch.py's ${launcherRaw} launcher is not ported`
        : undefined,
    );
  }
  const launcher: LauncherKind = launcherRaw;
  let hosts: SshHost[] = [];
  if (launcher === 'ssh') {
    if (hostfile === undefined) {
      fail('the ssh launcher needs -H/--hostfile', '-H/--hostfile', undefined, 'or use --launcher local');
    }
    let text: string;
    try {
      text = readFileSync(hostfile, 'utf8');
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      throw new MXNetError(`cannot read -H/--hostfile '${hostfile}': ${why}`, {
        op: 'mx-launch',
        params: { option: '-H/--hostfile', value: hostfile },
        cause: e,
      });
    }
    hosts = parseHostfile(text);
    if (hosts.length === 0) fail(`-H/--hostfile '${hostfile}' names no host`, '-H/--hostfile', hostfile);
  } else if (hostfile !== undefined) {
    fail('-H/--hostfile is for the ssh launcher', '-H/--hostfile', hostfile, 'drop -H or use --launcher ssh');
  }

  let graceMs = DEFAULT_GRACE_MS;
  const grace = values['grace-period'];
  if (grace !== undefined) {
    const s = Number(grace);
    if (grace.trim() === '' || !Number.isFinite(s) || s < 0) {
      fail(`--grace-period must be a number of seconds ≥ 0, got '${grace}'`, '--grace-period', grace);
    }
    graceMs = Math.round(s * 1000);
  }

  const command = argv.slice(cmdStart);
  if (command.length === 0) {
    fail('missing the command to launch', 'command', undefined, 'e.g. mx-launch -n 2 node train.js');
  }
  const pairs = (option: string, list: readonly string[] | undefined) =>
    (list ?? []).map((raw) => parseEnvPair(option, raw, env));
  return {
    numWorkers,
    numServers,
    launcher,
    hostfile,
    hosts,
    env: pairs('--env', values.env),
    envServer: pairs('--env-server', values['env-server']),
    envWorker: pairs('--env-worker', values['env-worker']),
    syncDstDir: values['sync-dst-dir'],
    hostIp: values['host-ip'],
    graceMs,
    command,
  };
}
