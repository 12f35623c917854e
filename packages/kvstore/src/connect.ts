/**
 * Joining a distributed job over ps-lite's ZeroMQ transport as this process's DMLC_ROLE, and
 * MXNet's rule that a server or scheduler process serves instead of running the training script:
 * MXNet's kvstore_server.py does it on `import mxnet`; here it happens when such a process
 * creates a distributed store (`create(runtime, 'dist_sync')`, which the training script does first
 * on every process that mx-launch starts) or calls `serveIfRole()`. The role is served until the
 * job ends (kStopServer from worker 0, then ps-lite's finalize) and the process then exits, so the
 * rest of the script never runs there — as in MXNet. Servers compute on their own cpu-wasm runtime.
 */
import { Env, MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type Runtime } from '@mx/ndarray';
import type { PsApps } from './distributed/memory-ps.js';
import { type DmlcRole, dmlcRole, runServerIfRole } from './distributed/role.js';
import { DistKVStore } from './distributed/worker.js';
import { SimpleApp, serverApps, workerApps } from './pslite/kv-app.js';
import { startPostoffice } from './pslite/van.js';

/** The DMLC_* / PS_* variables of `env` as the record the postoffice reads. */
function envRecord(env: Env): Readonly<Record<string, string | undefined>> {
  return new Proxy({} as Record<string, string | undefined>, {
    get: (_t, name) => (typeof name === 'string' ? env.raw(name) : undefined),
    has: (_t, name) => typeof name === 'string' && env.isSet(name),
  });
}

/** Joins the job described by `env` as `role` over ZeroMQ and returns that node's ps-lite apps. */
export async function connectPsLite(role: DmlcRole, env: Env = Env.fromProcess()): Promise<PsApps> {
  // The stores and servers run MXNet's joining barrier themselves (ps::StartAsync).
  const node = await startPostoffice({ env: envRecord(env), doBarrier: false });
  if (role === 'worker') return workerApps(node);
  if (role === 'server') return serverApps(node);
  return { node, app: new SimpleApp(node, 0, 0) };
}

/**
 * Serves this process's role when DMLC_ROLE is `server` or `scheduler` and then exits the process
 * (never returns there); resolves to false on a worker. Call it first in a script that creates no
 * distributed store on every process.
 */
export async function serveIfRole(env: Env = Env.fromProcess()): Promise<false> {
  const role = dmlcRole(env);
  if (role === 'worker') return false;
  let server: Runtime | undefined;
  try {
    await runServerIfRole(env, {
      connect: (r) => connectPsLite(r, env),
      runtime: () => {
        server = createRuntime({ backends: [new CpuWasmBackend()], env });
        return server;
      },
    });
  } catch (e) {
    console.error(`[mx ${role}] ${e instanceof Error ? e.message : String(e)}`);
    await server?.dispose();
    exitProcess(1);
  }
  await server?.dispose();
  exitProcess(0);
  return new Promise<false>(() => {}); // the process is exiting
}

function exitProcess(code: number): void {
  const proc = (globalThis as { process?: { exit(code: number): void } }).process;
  if (proc === undefined) {
    throw new MXNetError(`a ${code === 0 ? 'finished' : 'failed'} server role cannot end this process`, {
      op: 'serveIfRole',
      hint: 'distributed stores need Node.js',
    });
  }
  proc.exit(code);
}

/** A distributed store on a worker; on a server or scheduler process, serves and exits instead. */
export async function createDist(runtime: Runtime, type: string): Promise<DistKVStore> {
  const proc = (globalThis as { process?: { versions?: { node?: string } } }).process;
  if (proc?.versions?.node === undefined) {
    throw new MXNetError(
      `'${type}' needs Node.js: distributed stores talk ZeroMQ, which browsers do not have`,
      {
        op: 'kv.create',
        hint: "use 'local' or 'device' in a browser",
      },
    );
  }
  await serveIfRole(runtime.env);
  const apps = await connectPsLite('worker', runtime.env);
  const { node, worker, app } = apps;
  if (worker === undefined) throw new MXNetError('no KVWorker for the worker role', { op: 'kv.create' });
  return DistKVStore.create(runtime, type, { node, worker, app }, { env: runtime.env });
}
