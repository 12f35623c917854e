/**
 * Runs our nodes together with the reference C++ ps-lite (dmlc/ps-lite's `tests/test_kv_app`,
 * built at /work/pslite/src or $MX_PSLITE_REFERENCE_DIR) on 127.0.0.1. Used by the interop tests
 * (skipped where the build is absent, as in CI) and by tools/golden/pslite/capture.ts, which
 * records the frames the C++ nodes send. test_kv_app's server is `KVServer<float>` with
 * `KVServerDefaultHandle` (store[key] += val; a pull returns store[key]); its worker pushes 10000
 * keys `kMaxKey/10000·i + rank` 50 times, pulls, pushpulls 50 times and checks the sums.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { KVMeta, KVPairs, KVServerApi } from '../api.js';
import { freePort, jobEnv } from './cluster.js';

/** Where the reference build is (its tests/ folder holds the binaries). */
export function referenceDir(): string {
  return process.env.MX_PSLITE_REFERENCE_DIR ?? '/work/pslite/src';
}

/** The test_kv_app binary, or undefined with the reason it is missing. */
export function referenceKvApp(): { bin?: string; reason?: string } {
  const bin = join(referenceDir(), 'tests', 'test_kv_app');
  return existsSync(bin)
    ? { bin }
    : {
        reason: `no reference ps-lite build at ${bin} (build dmlc/ps-lite there or set MX_PSLITE_REFERENCE_DIR)`,
      };
}

/** A running C++ node. */
export interface RefProcess {
  readonly role: string;
  readonly proc: ChildProcess;
  readonly output: string[];
  /** Resolves with the exit code (signals as 128+n). */
  readonly exit: Promise<number>;
}

/** Starts test_kv_app as `role` in a job at 127.0.0.1:`port`. */
export function spawnReference(
  bin: string,
  role: string,
  port: number,
  servers: number,
  workers: number,
  extra: Record<string, string> = {},
): RefProcess {
  const env = {
    PATH: process.env.PATH ?? '',
    ...jobEnv(role, port, servers, workers, { PS_HEARTBEAT_INTERVAL: '1', ...extra }),
  };
  const proc = spawn(bin, [], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  proc.stdout?.on('data', (d: Buffer) => output.push(d.toString()));
  proc.stderr?.on('data', (d: Buffer) => output.push(d.toString()));
  const exit = new Promise<number>((resolve) => {
    proc.on('exit', (code, signal) => resolve(code ?? (signal ? 128 + 9 : 1)));
    proc.on('error', () => resolve(127));
  });
  return { role, proc, output, exit };
}

/** Kills what still runs (tests call it in afterEach). */
export function killAll(procs: readonly RefProcess[]): void {
  for (const p of procs) if (p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill('SIGKILL');
}

/** A fresh port for a job's scheduler. */
export const schedulerPort = freePort;

/** ps-lite's `KVServerDefaultHandle<float>` in TS: sums pushed floats per key, answers pulls. */
export function floatSumHandler(): {
  handle: (meta: KVMeta, data: KVPairs, server: KVServerApi) => void;
  store: Map<bigint, number>;
} {
  const store = new Map<bigint, number>();
  const handle = (meta: KVMeta, data: KVPairs, server: KVServerApi) => {
    const n = data.keys.length;
    const vals = new Float32Array(data.vals.slice().buffer, 0, meta.push ? n : 0);
    const out = new Float32Array(meta.pull ? n : 0);
    for (let i = 0; i < n; i++) {
      const k = data.keys[i] as bigint;
      if (meta.push) store.set(k, Math.fround((store.get(k) ?? 0) + (vals[i] as number)));
      if (meta.pull) out[i] = store.get(k) ?? 0;
    }
    if (meta.pull)
      server.response(meta, { keys: data.keys, vals: new Uint8Array(out.buffer), lens: new Int32Array(0) });
    else server.response(meta);
  };
  return { handle, store };
}
