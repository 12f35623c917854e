/**
 * The `mx-launch` command (MXNet's tools/launch.py): parse, pick the scheduler's port and address,
 * rsync for --sync-dst-dir (ssh), start the job and wait for it. `launchMain(argv, io)` returns the
 * exit code instead of exiting, so it can be tested and embedded; bin/mx-launch.js calls it. While
 * the job runs, SIGINT/SIGTERM to the launcher stop it (a second signal kills what is left at once).
 * A bad command line prints the usage hint and gives exit code 1, like the repository's other
 * commands (argparse uses 2).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { isMXNetError } from '@mx/base';
import { type LaunchArgs, launchUsage, parseLaunchArgs } from './args.js';
import { findFreePort } from './env.js';
import type { LaunchHandle, LaunchOutput } from './job.js';
import { launchLocal, launchSsh } from './launchers.js';
import { type BuiltCommand, rsyncCommand } from './ssh.js';

/** Where launchMain reads and writes (defaults: the process's own). */
export interface LaunchMainIO extends LaunchOutput {
  /** The launcher's environment, inherited by local processes (default process.env). */
  readonly env?: NodeJS.ProcessEnv;
  /** Working directory (default process.cwd()). */
  readonly cwd?: string;
  /** Stop the job on SIGINT/SIGTERM to this process (default true). */
  readonly handleSignals?: boolean;
}

function runQuiet(cmd: BuiltCommand, label: string, io: Required<LaunchOutput>): Promise<number> {
  return new Promise((resolve) => {
    const [program, ...args] = cmd.argv;
    const child = spawn(program!, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let failed: Error | undefined;
    child.on('error', (e) => {
      failed = e;
    });
    for (const [s, sink] of [
      [child.stdout, io.stdout],
      [child.stderr, io.stderr],
    ] as const) {
      createInterface({ input: s, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (l) =>
        sink.write(`[${label}] ${l}\n`),
      );
    }
    child.on('close', (code, signal) => {
      if (failed !== undefined)
        io.stderr.write(`[${label}] mx-launch: cannot run ${cmd.commandLine}: ${failed.message}\n`);
      resolve(failed !== undefined ? 127 : signal !== null ? 1 : (code ?? 1));
    });
  });
}

async function syncDirs(
  args: LaunchArgs,
  dst: string,
  cwd: string,
  io: Required<LaunchOutput>,
): Promise<number> {
  const seen = new Set<string>();
  const cmds: [string, BuiltCommand][] = [];
  for (const h of args.hosts) {
    const key = `${h.host}:${h.port ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    cmds.push([`rsync ${h.host}`, rsyncCommand(h, cwd, dst)]);
  }
  const codes = await Promise.all(cmds.map(([label, c]) => runQuiet(c, label, io)));
  return codes.find((c) => c !== 0) ?? 0;
}

/**
 * Runs mx-launch on a command line (without the program name) and resolves to the exit code: the
 * first failing process's code, 128 + signal when the launcher was stopped by SIGINT/SIGTERM, 0
 * when every process exited with 0, 1 for a bad command line.
 */
export async function launchMain(argv: readonly string[], io: LaunchMainIO = {}): Promise<number> {
  const out = io.stdout ?? process.stdout;
  const err = io.stderr ?? process.stderr;
  const env = io.env ?? process.env;
  const cwd = io.cwd ?? process.cwd();
  let args: LaunchArgs | 'help';
  try {
    args = parseLaunchArgs(argv, env);
    if (args === 'help') {
      out.write(launchUsage());
      return 0;
    }
    const port = await findFreePort();
    if (args.launcher === 'ssh' && args.syncDstDir !== undefined) {
      const code = await syncDirs(args, args.syncDstDir, cwd, { stdout: out, stderr: err });
      if (code !== 0) {
        err.write(`mx-launch: --sync-dst-dir: rsync failed (exit code ${code}); nothing was launched\n`);
        return code;
      }
    } else if (args.syncDstDir !== undefined) {
      err.write('mx-launch: warning: --sync-dst-dir only applies to the ssh launcher; ignored\n');
    }
    const common = {
      numWorkers: args.numWorkers,
      numServers: args.numServers,
      command: args.command,
      rootPort: port,
      rootUri: args.hostIp,
      env: args.env,
      envServer: args.envServer,
      envWorker: args.envWorker,
      baseEnv: env,
      cwd,
      graceMs: args.graceMs,
      stdout: out,
      stderr: err,
    };
    const handle: LaunchHandle =
      args.launcher === 'local'
        ? launchLocal(common)
        : launchSsh({ ...common, hosts: args.hosts, remoteDir: args.syncDstDir });
    if (io.handleSignals === false) return (await handle.done).code;
    const onSignal = (signal: NodeJS.Signals) => {
      err.write(`mx-launch: got ${signal}; stopping the job\n`);
      handle.stop(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      return (await handle.done).code;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  } catch (e) {
    if (!isMXNetError(e)) throw e;
    err.write(`${e.message}\n(mx-launch --help shows the usage)\n`);
    return 1;
  }
}
