/**
 * The environment each role starts with, as dmlc-core's tracker sets it: the scheduler gets
 * DMLC_ROLE=scheduler and the DMLC_PS_ROOT_* address (tracker.py's PSTracker), every node gets
 * DMLC_NUM_WORKER/DMLC_NUM_SERVER and the root address, local nodes also DMLC_TASK_ID and
 * DMLC_JOB_CLUSTER=local (local.py), remote nodes DMLC_NODE_HOST (ssh.py). Precedence, lowest
 * first: the base environment, --env, --env-server/--env-worker, the launcher's DMLC_* values (so
 * a stray variable cannot give a process the wrong role). Also the scheduler's port (the first
 * free one from 9091, as PSTracker scans) and address.
 */
import { createServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import { MXNetError } from '@mx/base';
import type { EnvPair, LauncherKind } from './args.js';

/** A ps-lite role. */
export type LaunchRole = 'scheduler' | 'server' | 'worker';

/** What {@link buildEnv} needs to know about one process. */
export interface BuildEnvOptions {
  readonly role: LaunchRole;
  /** Index within the role (0-based; ignored for the scheduler). */
  readonly index: number;
  readonly numWorkers: number;
  readonly numServers: number;
  /** DMLC_PS_ROOT_URI: the scheduler's address. */
  readonly rootUri: string;
  /** DMLC_PS_ROOT_PORT: the scheduler's port. */
  readonly rootPort: number;
  /** `local` adds DMLC_TASK_ID and DMLC_JOB_CLUSTER; `ssh` adds DMLC_NODE_HOST (servers, workers). */
  readonly launcher: LauncherKind;
  /** ssh: the host this process runs on (DMLC_NODE_HOST). */
  readonly nodeHost?: string;
  /** --env pairs (every role). */
  readonly env?: readonly EnvPair[];
  /** --env-server pairs. */
  readonly envServer?: readonly EnvPair[];
  /** --env-worker pairs. */
  readonly envWorker?: readonly EnvPair[];
  /** Where the rest comes from: the launcher's environment for local processes (the default: none). */
  readonly base?: NodeJS.ProcessEnv;
}

/** The full environment of one launched process (see the file comment for the precedence). */
export function buildEnv(o: BuildEnvOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(o.base ?? {})) if (v !== undefined) env[k] = v;
  for (const [k, v] of o.env ?? []) env[k] = v;
  const rolePairs = o.role === 'server' ? o.envServer : o.role === 'worker' ? o.envWorker : undefined;
  for (const [k, v] of rolePairs ?? []) env[k] = v;
  env.DMLC_NUM_WORKER = String(o.numWorkers);
  env.DMLC_NUM_SERVER = String(o.numServers);
  env.DMLC_PS_ROOT_URI = o.rootUri;
  env.DMLC_PS_ROOT_PORT = String(o.rootPort);
  env.DMLC_ROLE = o.role;
  if (o.role !== 'scheduler') {
    if (o.launcher === 'local') {
      // local.py numbers the tasks workers first: worker i → i, server j → numWorkers + j.
      env.DMLC_TASK_ID = String(o.role === 'worker' ? o.index : o.numWorkers + o.index);
      env.DMLC_JOB_CLUSTER = 'local';
    } else {
      if (o.nodeHost === undefined) {
        throw new MXNetError('an ssh-launched process needs its host (DMLC_NODE_HOST)', {
          op: 'buildEnv',
          params: { role: o.role, index: o.index },
        });
      }
      env.DMLC_NODE_HOST = o.nodeHost;
    }
  }
  return env;
}

/** The variables of `env` named in `names` that are set (ssh.py's forwarded system variables). */
export function pickEnv(env: NodeJS.ProcessEnv, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of names) {
    const v = env[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen({ port, host: '0.0.0.0', exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

/**
 * The first port in `[from, to)` that can be bound on every IPv4 interface (PSTracker's scan over
 * 9091–9999). The port is free when checked; the scheduler binds it a moment later.
 * @throws MXNetError when none is free.
 */
export async function findFreePort(from = 9091, to = 9999): Promise<number> {
  for (let port = from; port < to; port++) if (await canBind(port)) return port;
  throw new MXNetError(`no free port for the scheduler in ${from}-${to - 1}`, {
    op: 'findFreePort',
    params: { from, to },
    hint: 'free one of those ports',
  });
}

/**
 * This machine's address as remote nodes would reach it (tracker.py's get_host_ip): the first
 * non-internal IPv4 address, else the first non-internal IPv6 one, else 127.0.0.1.
 */
export function guessHostIp(): string {
  const all = Object.values(networkInterfaces()).flatMap((l) => l ?? []);
  const external = all.filter((a) => !a.internal);
  return (external.find((a) => a.family === 'IPv4') ?? external[0])?.address ?? '127.0.0.1';
}
