/**
 * The ssh launcher's pieces, after dmlc-core's tracker/dmlc_tracker/ssh.py: the hostfile format
 * (`host`, `host:port`, MPI's `host slots=N`), the remote command line (`cd DIR && export K=V … &&
 * CMD`, run by `ssh -o StrictHostKeyChecking=no`) and the rsync that --sync-dst-dir runs. Kept as
 * pure functions returning argv arrays (spawned without a local shell) plus a printable command
 * line, so what would be run can be tested without ssh. Every word is shell-quoted where needed so
 * the remote side sees the same argv the launcher was given.
 */

/** One host of the hostfile; `port` only when the line names one (ssh's own default applies otherwise). */
export interface SshHost {
  readonly host: string;
  readonly port: string | undefined;
}

/**
 * Parses a hostfile as dmlc's ssh.py does: one host per non-blank line, `slots=…` and what follows
 * dropped (MPI hostfiles work too), `host:port` split at the first colon. Lines starting with `#`
 * are skipped (an addition).
 */
export function parseHostfile(text: string): SshHost[] {
  const hosts: SshHost[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const slots = line.indexOf('slots=');
    if (slots >= 0) line = line.slice(0, slots).trim();
    const colon = line.indexOf(':');
    hosts.push(
      colon < 0
        ? { host: line, port: undefined }
        : { host: line.slice(0, colon), port: line.slice(colon + 1) },
    );
  }
  return hosts;
}

/** Names whose values ssh.py forwards from the launcher's environment to every remote process. */
export const SSH_FORWARDED_VARS: readonly string[] = [
  'OMP_NUM_THREADS',
  'KMP_AFFINITY',
  'LD_LIBRARY_PATH',
  'DMLC_INTERFACE',
];

/** Quotes `word` for a POSIX shell when it holds anything beyond `[A-Za-z0-9_@%+=:,./-]`. */
export function shellQuote(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** A command to spawn (`argv[0]` is the program) and how it reads on a shell command line. */
export interface BuiltCommand {
  readonly argv: readonly string[];
  readonly commandLine: string;
}

function built(argv: string[]): BuiltCommand {
  return { argv, commandLine: argv.map(shellQuote).join(' ') };
}

/** What {@link sshCommand} runs. */
export interface SshCommandOptions {
  readonly host: SshHost;
  /** Directory the command runs in on the host (ssh.py: the launcher's cwd, or --sync-dst-dir). */
  readonly cwd: string;
  /** Variables exported before the command, in this order. */
  readonly env: Readonly<Record<string, string>>;
  /** The user's command (program and arguments). */
  readonly command: readonly string[];
}

/**
 * The ssh invocation for one remote process:
 * `ssh -o StrictHostKeyChecking=no [-p PORT] HOST 'cd DIR && export K=V … && CMD'`.
 */
export function sshCommand(o: SshCommandOptions): BuiltCommand {
  const parts = [`cd ${shellQuote(o.cwd)}`];
  const exports = Object.entries(o.env).map(([k, v]) => `${k}=${shellQuote(v)}`);
  if (exports.length > 0) parts.push(`export ${exports.join(' ')}`);
  parts.push(o.command.map(shellQuote).join(' '));
  const port = o.host.port === undefined ? [] : ['-p', o.host.port];
  return built(['ssh', '-o', 'StrictHostKeyChecking=no', ...port, o.host.host, parts.join(' && ')]);
}

/**
 * The rsync that copies `localDir` into `dstDir` on `host` (ssh.py's sync_dir):
 * `rsync -az --rsh="ssh -o StrictHostKeyChecking=no [-p PORT]" LOCAL/ HOST:DST`.
 */
export function rsyncCommand(host: SshHost, localDir: string, dstDir: string): BuiltCommand {
  const rsh = [
    'ssh',
    '-o',
    'StrictHostKeyChecking=no',
    ...(host.port === undefined ? [] : ['-p', host.port]),
  ];
  const src = localDir.endsWith('/') ? localDir : `${localDir}/`;
  return built(['rsync', '-az', `--rsh=${rsh.join(' ')}`, src, `${host.host}:${dstDir}`]);
}
