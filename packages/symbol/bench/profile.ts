/**
 * Where the time goes (`MX_BENCH_PROFILE=1`): runs a workload a few times under the engine's
 * profiler and prints the time per run by op, largest first. Graph runs bulk many nodes into one
 * engine op, so profiled executors are bound with bulkSize 1 (one engine op per node, named
 * `<op>:<node>`); the names are folded to the op. Off by default: profiling changes the timings.
 */
import type { Runtime } from '@mx/ndarray';

export const profiling = process.env.MX_BENCH_PROFILE === '1';

export interface OpShare {
  readonly op: string;
  readonly msPerRun: number;
  readonly count: number;
}

/** Profile `runs` calls of `fn`; returns per-op milliseconds per call, largest first (also printed). */
export function profileRuns(rt: Runtime, label: string, fn: () => unknown, runs = 20): OpShare[] {
  const profiler = rt.engine.profiler;
  profiler.reset();
  profiler.setState('run');
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) fn();
  const wall = (performance.now() - t0) / runs;
  profiler.setState('stop');
  const byOp = new Map<string, { ms: number; count: number }>();
  for (const s of profiler.aggregate()) {
    const op = s.name.split(':')[0] as string;
    const cur = byOp.get(op) ?? { ms: 0, count: 0 };
    cur.ms += s.totalMs / runs;
    cur.count += s.count / runs;
    byOp.set(op, cur);
  }
  profiler.reset();
  const shares = [...byOp.entries()]
    .map(([op, v]) => ({ op, msPerRun: v.ms, count: v.count }))
    .sort((a, b) => b.msPerRun - a.msPerRun);
  const inOps = shares.reduce((s, x) => s + x.msPerRun, 0);
  console.log(
    `  profile ${label}: ${wall.toFixed(2)} ms per run, ${inOps.toFixed(2)} ms in engine ops (${((100 * inOps) / wall).toFixed(0)}%)`,
  );
  for (const s of shares.slice(0, 14)) {
    console.log(
      `    ${s.op.slice(0, 48).padEnd(48)} ${s.msPerRun.toFixed(3).padStart(8)} ms  ${`x${s.count.toFixed(0)}`.padStart(5)}  ${((100 * s.msPerRun) / wall).toFixed(1).padStart(5)}%`,
    );
  }
  return shares;
}

/**
 * Run `fn` with environment settings overridden (the runtime's Env reads process.env live, and
 * executors read it when they bind). Used to bind unbulked inference graphs for profiles.
 */
export function withEnv<T>(overrides: Readonly<Record<string, string>>, fn: () => T): T {
  const saved = Object.fromEntries(Object.keys(overrides).map((k) => [k, process.env[k]]));
  Object.assign(process.env, overrides);
  try {
    return fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
