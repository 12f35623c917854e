/**
 * The process entry of the server and scheduler roles (MXNet's kvstore_server.py, which runs on
 * `import mxnet` in any process whose DMLC_ROLE is not `worker`: it creates a dist store, which on
 * a server runs KVStoreDistServer until kStopServer, and on the scheduler only joins and leaves the
 * job). The transport is not chosen here: `connect(role)` gives the node's ps-lite apps (the ZeroMQ
 * transport, or the in-memory one in tests), and `runtime()` the runtime the server computes on
 * (cpu-wasm in a server process).
 */
import { type Env, MXNetError } from '@mx/base';
import type { Runtime } from '@mx/ndarray';
import { SCHEDULER, SERVER_GROUP, WORKER_GROUP } from '../pslite/api.js';
import type { PsApps } from './memory-ps.js';
import { DistServer, type DistServerOptions } from './server.js';

/** The roles of DMLC_ROLE. */
export type DmlcRole = 'worker' | 'server' | 'scheduler';

export interface RunServerOptions extends DistServerOptions {
  /** The node's ps-lite apps for `role` (joins the job). */
  readonly connect: (role: 'server' | 'scheduler') => PsApps | Promise<PsApps>;
  /** The runtime a server computes on (asked only on a server). */
  readonly runtime: () => Runtime | Promise<Runtime>;
}

/** DMLC_ROLE from `env` (default `worker`); an MXNetError for other values. */
export function dmlcRole(env: Env): DmlcRole {
  const raw = env.raw('DMLC_ROLE');
  const role = raw === undefined || raw === '' ? 'worker' : raw.toLowerCase();
  if (role !== 'worker' && role !== 'server' && role !== 'scheduler') {
    throw new MXNetError(`DMLC_ROLE must be worker, server or scheduler, got '${raw}'`, {
      op: 'runServerIfRole',
      hint: 'the launcher sets DMLC_ROLE for every process it starts',
    });
  }
  return role;
}

/**
 * When DMLC_ROLE is `server` or `scheduler`, play that role until the job ends and resolve `true`
 * (the caller then exits, as kvstore_server.py calls sys.exit()); for a worker resolve `false` at
 * once. Rejects with the server's MXNetError when it could not serve a request.
 */
export async function runServerIfRole(env: Env, options: RunServerOptions): Promise<boolean> {
  const role = dmlcRole(env);
  if (role === 'worker') return false;
  const apps = await options.connect(role);
  if (role === 'scheduler') {
    // MXNet's RunServer on the scheduler: join (a barrier over every node), then Finalize.
    await apps.node.barrier(SCHEDULER + SERVER_GROUP + WORKER_GROUP);
    await apps.node.finalize();
    return true;
  }
  if (apps.server === undefined) {
    throw new MXNetError('the server role needs a KVServer app from connect()', { op: 'runServerIfRole' });
  }
  const runtime = await options.runtime();
  const server = new DistServer(runtime, { node: apps.node, server: apps.server, app: apps.app }, options);
  await server.run();
  return true;
}
