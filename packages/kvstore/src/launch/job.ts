/**
 * Runs the processes of one job and supervises them, which dmlc's tracker leaves to threads that
 * never stop their siblings: every process's stdout/stderr is forwarded line by line with its role
 * as prefix (`[scheduler] …`, `[server 1] …`, `[worker 0] …`); the first process that fails (non-zero
 * exit, killed by a signal it was not sent by us, or not startable) decides the job's exit code and
 * stops all the others; `stop()` sends SIGTERM to every live process and SIGKILL to those still
 * alive after the grace period. Each process leads its own process group (POSIX), and signals go to
 * the group, so helper processes a command starts (a shell wrapper, npx, …) are stopped with it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { constants } from 'node:os';
import { createInterface } from 'node:readline';
import type { LaunchRole } from './env.js';

/** One process to start. */
export interface ProcessSpec {
  readonly role: LaunchRole;
  /** Index within the role (launch order; ps-lite assigns its own ranks when nodes register). */
  readonly index: number;
  /** Program and arguments, spawned without a shell. */
  readonly argv: readonly string[];
  /** The complete environment of the process. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

/** Where the prefixed lines go. */
export interface LaunchOutput {
  readonly stdout?: { write(s: string): unknown };
  readonly stderr?: { write(s: string): unknown };
}

/** How a job runs. */
export interface RunJobOptions extends LaunchOutput {
  /** Milliseconds between SIGTERM and SIGKILL when stopping (default 10 000). */
  readonly graceMs?: number;
}

/** A started process. */
export interface LaunchedProcess {
  readonly role: LaunchRole;
  readonly index: number;
  /** `scheduler`, `server 0`, `worker 1`, … (the output prefix without brackets). */
  readonly label: string;
  /** The OS process id (also its process group id); undefined when it could not be started. */
  readonly pid: number | undefined;
}

/** How a process ended. */
export interface ProcessExit {
  readonly label: string;
  /** Exit code, or 128 + signal number, or 127/126 when the program was not found / not executable. */
  readonly code: number;
  readonly signal: NodeJS.Signals | null;
}

/** How the job ended. */
export interface JobResult {
  /** The launcher's exit code: the first failure's code, else 128 + the stop signal, else 0. */
  readonly code: number;
  /** The first process that failed on its own, if any. */
  readonly failure: ProcessExit | undefined;
  /** The signal `stop(signal)` was called with from outside (not after a failure), if any. */
  readonly stoppedBy: NodeJS.Signals | undefined;
  /** Every process's end, in the order they ended. */
  readonly exits: readonly ProcessExit[];
}

/** A running job. */
export interface LaunchHandle {
  readonly processes: readonly LaunchedProcess[];
  /** Resolves once every process has exited. Never rejects. */
  readonly done: Promise<JobResult>;
  /**
   * Stops the job: SIGTERM to every live process, SIGKILL after the grace period. `reason` is the
   * signal the launcher itself received (it sets the exit code to 128 + its number unless a
   * process had already failed). A second call kills the remaining processes at once.
   */
  stop(reason?: NodeJS.Signals): void;
}

/** Label of a process: `scheduler`, `server 0`, `worker 1`. */
export function processLabel(role: LaunchRole, index: number): string {
  return role === 'scheduler' ? 'scheduler' : `${role} ${index}`;
}

function signalCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform === 'win32') child.kill(signal);
    else process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** Starts every process of `specs` (in order) and supervises them as described in the file comment. */
export function runJob(specs: readonly ProcessSpec[], opts: RunJobOptions = {}): LaunchHandle {
  const out = opts.stdout ?? process.stdout;
  const err = opts.stderr ?? process.stderr;
  const graceMs = opts.graceMs ?? 10_000;
  const exits: ProcessExit[] = [];
  const live = new Set<ChildProcess>();
  let failure: ProcessExit | undefined;
  let stoppedBy: NodeJS.Signals | undefined;
  let stopping = false;
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  let remaining = specs.length;
  let resolveDone!: (r: JobResult) => void;
  const done = new Promise<JobResult>((r) => {
    resolveDone = r;
  });

  const finish = () => {
    if (killTimer !== undefined) clearTimeout(killTimer);
    const code = failure?.code ?? (stoppedBy === undefined ? 0 : signalCode(stoppedBy));
    resolveDone({ code, failure, stoppedBy, exits });
  };

  const killAll = () => {
    for (const c of live) signalGroup(c, 'SIGKILL');
  };

  const stop = (reason?: NodeJS.Signals) => {
    if (reason !== undefined && failure === undefined && stoppedBy === undefined) stoppedBy = reason;
    if (stopping) {
      killAll();
      return;
    }
    stopping = true;
    for (const c of live) signalGroup(c, 'SIGTERM');
    if (live.size > 0) {
      killTimer = setTimeout(() => {
        if (live.size > 0) {
          err.write(
            `mx-launch: killing ${live.size} process(es) still running ${graceMs} ms after SIGTERM\n`,
          );
        }
        killAll();
      }, graceMs);
    }
  };

  const processes = specs.map((spec): LaunchedProcess => {
    const label = processLabel(spec.role, spec.index);
    const [program, ...args] = spec.argv;
    const child = spawn(program ?? '', args, {
      env: spec.env,
      cwd: spec.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
    });
    live.add(child);
    let spawnError: NodeJS.ErrnoException | undefined;
    child.on('error', (e: NodeJS.ErrnoException) => {
      spawnError ??= e;
    });
    for (const [stream, sink] of [
      [child.stdout, out],
      [child.stderr, err],
    ] as const) {
      if (stream === null) continue;
      createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) =>
        sink.write(`[${label}] ${line}\n`),
      );
    }
    child.on('close', (rawCode, signal) => {
      live.delete(child);
      let code: number;
      if (spawnError !== undefined) {
        code = spawnError.code === 'ENOENT' ? 127 : 126;
        err.write(`[${label}] mx-launch: cannot start '${program}': ${spawnError.message}\n`);
      } else {
        code = signal !== null ? signalCode(signal) : (rawCode ?? 0);
      }
      const exit: ProcessExit = { label, code, signal };
      exits.push(exit);
      if (code !== 0 && !stopping) {
        failure = exit;
        err.write(
          `mx-launch: ${label} ${signal === null ? `exited with code ${code}` : `was killed by ${signal}`}; stopping the other processes\n`,
        );
        stop();
      }
      if (--remaining === 0) finish();
    });
    return { role: spec.role, index: spec.index, label, pid: child.pid };
  });
  if (specs.length === 0) finish();
  return { processes, done, stop };
}
