/**
 * Test helpers: a whole ps-lite job (scheduler, servers, workers) started in one process on
 * 127.0.0.1 with a random scheduler port, so the cluster tests exercise the real ZeroMQ van
 * without spawning processes; and a free-port finder.
 */
import { createServer } from 'node:net';
import { type PostofficeOptions, PsPostoffice } from '../van.js';

/** A TCP port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** The DMLC_* variables of one node of a local job. */
export function jobEnv(
  role: string,
  port: number,
  servers: number,
  workers: number,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    DMLC_ROLE: role,
    DMLC_PS_ROOT_URI: '127.0.0.1',
    DMLC_PS_ROOT_PORT: String(port),
    DMLC_NUM_SERVER: String(servers),
    DMLC_NUM_WORKER: String(workers),
    DMLC_NODE_HOST: '127.0.0.1',
    ...extra,
  };
}

export interface LocalJob {
  scheduler: PsPostoffice;
  servers: PsPostoffice[];
  workers: PsPostoffice[];
  logs: string[];
  closeAll(): Promise<void>;
}

/**
 * Starts a scheduler on a port it picks itself (no race with other tests for a "free" port) and
 * resolves that port once it listens, with the scheduler's start (which completes when every
 * node has registered).
 */
export async function startScheduler(
  servers: number,
  workers: number,
  extra: Record<string, string> = {},
  opts: Partial<PostofficeOptions> = {},
): Promise<{ port: number; started: Promise<PsPostoffice> }> {
  let bound: (p: number) => void = () => undefined;
  const port = new Promise<number>((r) => {
    bound = r;
  });
  const started = PsPostoffice.start({
    env: jobEnv('scheduler', 1, servers, workers, extra),
    config: { rootPort: 0 },
    onBound: (p) => bound(p),
    ...opts,
  });
  started.catch(() => undefined);
  return { port: await Promise.race([port, started.then(() => 0)]), started };
}

/** Starts scheduler + servers + workers in this process and waits for the start barrier. */
export async function startLocalJob(
  servers: number,
  workers: number,
  extra: Record<string, string> = {},
  opts: Partial<PostofficeOptions> = {},
): Promise<LocalJob> {
  const logs: string[] = [];
  const log = (l: string) => logs.push(l);
  const sched = await startScheduler(servers, workers, extra, { log, ...opts });
  const start = (role: string) =>
    PsPostoffice.start({ env: jobEnv(role, sched.port, servers, workers, extra), log, ...opts });
  const all = await Promise.all([
    sched.started,
    ...Array.from({ length: servers }, () => start('server')),
    ...Array.from({ length: workers }, () => start('worker')),
  ]);
  const [scheduler, ...rest] = all as [PsPostoffice, ...PsPostoffice[]];
  return {
    scheduler,
    servers: rest.slice(0, servers).sort((a, b) => a.id - b.id),
    workers: rest.slice(servers).sort((a, b) => a.id - b.id),
    logs,
    closeAll: async () => {
      await Promise.all(all.map((p) => p.close()));
    },
  };
}
