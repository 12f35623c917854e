/**
 * The two launchers as plans (which processes, with which argv and environment) and as running
 * jobs. local (dmlc's local.py): the scheduler, workers and servers all on this machine, each
 * inheriting the launcher's environment. ssh (dmlc's ssh.py): the scheduler on this machine, then
 * servers before workers, process i on host i mod #hosts, each through `ssh host 'cd … && export …
 * && cmd'`. Plans are plain data so tests can check them without starting anything.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { EnvPair } from './args.js';
import { buildEnv, guessHostIp, type LaunchRole, pickEnv } from './env.js';
import { type LaunchHandle, type ProcessSpec, type RunJobOptions, runJob } from './job.js';
import { type BuiltCommand, SSH_FORWARDED_VARS, type SshHost, sshCommand } from './ssh.js';

/** What both launchers need. */
export interface JobOptions extends RunJobOptions {
  readonly numWorkers: number;
  readonly numServers: number;
  /** The command every role runs (program and arguments). */
  readonly command: readonly string[];
  /** The scheduler's port (see findFreePort). */
  readonly rootPort: number;
  /** The scheduler's address (local default 127.0.0.1, ssh default this machine's IP). */
  readonly rootUri?: string;
  readonly env?: readonly EnvPair[];
  readonly envServer?: readonly EnvPair[];
  readonly envWorker?: readonly EnvPair[];
  /** The launcher's environment (default process.env). */
  readonly baseEnv?: NodeJS.ProcessEnv;
  /** Working directory of the local processes (default process.cwd()). */
  readonly cwd?: string;
}

/** What the ssh launcher needs beyond {@link JobOptions}. */
export interface SshJobOptions extends JobOptions {
  readonly hosts: readonly SshHost[];
  /** Directory the remote processes run in (default: this machine's working directory). */
  readonly remoteDir?: string;
}

/** A process of an ssh plan with the command line that starts it. */
export interface SshPlanEntry {
  readonly spec: ProcessSpec;
  /** The ssh invocation (undefined for the scheduler, which runs here). */
  readonly ssh: BuiltCommand | undefined;
}

function envFor(o: JobOptions, rootUri: string) {
  return {
    numWorkers: o.numWorkers,
    numServers: o.numServers,
    rootUri,
    rootPort: o.rootPort,
    env: o.env,
    envServer: o.envServer,
    envWorker: o.envWorker,
  };
}

function schedulerSpec(o: JobOptions, rootUri: string, launcher: 'local' | 'ssh', argv: readonly string[]) {
  const env = buildEnv({
    ...envFor(o, rootUri),
    role: 'scheduler',
    index: 0,
    launcher,
    base: o.baseEnv ?? process.env,
  });
  return { role: 'scheduler', index: 0, argv, env, cwd: o.cwd } satisfies ProcessSpec;
}

/**
 * local.py's rewrite of the program: a bare name that is a file in the working directory runs as
 * `./name` (else it is looked up on PATH).
 */
export function localProgram(command: readonly string[], cwd: string): readonly string[] {
  const [program, ...rest] = command;
  if (program === undefined || program.includes('/')) return command;
  const path = join(cwd, program);
  return existsSync(path) && statSync(path).isFile() ? [`./${program}`, ...rest] : command;
}

/** The local launcher's processes: the scheduler, workers 0…W−1, servers 0…S−1. */
export function planLocal(o: JobOptions): ProcessSpec[] {
  const rootUri = o.rootUri ?? '127.0.0.1';
  const cwd = o.cwd ?? process.cwd();
  const argv = localProgram(o.command, cwd);
  const base = o.baseEnv ?? process.env;
  const specs: ProcessSpec[] = [schedulerSpec({ ...o, cwd }, rootUri, 'local', argv)];
  const roles: [LaunchRole, number][] = [
    ['worker', o.numWorkers],
    ['server', o.numServers],
  ];
  for (const [role, n] of roles) {
    for (let index = 0; index < n; index++) {
      const env = buildEnv({ ...envFor(o, rootUri), role, index, launcher: 'local', base });
      specs.push({ role, index, argv, env, cwd });
    }
  }
  return specs;
}

/** Starts a job on this machine (see {@link planLocal}); the caller owns the handle. */
export function launchLocal(o: JobOptions): LaunchHandle {
  return runJob(planLocal(o), o);
}

/**
 * The ssh launcher's processes: the scheduler here, then servers 0…S−1 and workers 0…W−1, process
 * i on `hosts[i % hosts.length]`. Remote processes get the DMLC_* variables, --env pairs and the
 * variables ssh.py forwards (OMP_NUM_THREADS, KMP_AFFINITY, LD_LIBRARY_PATH, DMLC_INTERFACE).
 */
export function planSsh(o: SshJobOptions): SshPlanEntry[] {
  const rootUri = o.rootUri ?? guessHostIp();
  const cwd = o.cwd ?? process.cwd();
  const base = o.baseEnv ?? process.env;
  const forwarded = pickEnv(base, SSH_FORWARDED_VARS);
  const plan: SshPlanEntry[] = [
    { spec: schedulerSpec({ ...o, cwd }, rootUri, 'ssh', localProgram(o.command, cwd)), ssh: undefined },
  ];
  const total = o.numServers + o.numWorkers;
  for (let i = 0; i < total; i++) {
    const role: LaunchRole = i < o.numServers ? 'server' : 'worker';
    const index = role === 'server' ? i : i - o.numServers;
    const host = o.hosts[i % o.hosts.length]!;
    const remoteEnv = buildEnv({
      ...envFor(o, rootUri),
      role,
      index,
      launcher: 'ssh',
      nodeHost: host.host,
      base: forwarded,
    });
    const ssh = sshCommand({ host, cwd: o.remoteDir ?? cwd, env: remoteEnv, command: o.command });
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(base)) if (v !== undefined) env[k] = v;
    plan.push({ spec: { role, index, argv: ssh.argv, env, cwd }, ssh });
  }
  return plan;
}

/** Starts a job over ssh (see {@link planSsh}); the caller owns the handle. */
export function launchSsh(o: SshJobOptions): LaunchHandle {
  return runJob(
    planSsh(o).map((e) => e.spec),
    o,
  );
}
