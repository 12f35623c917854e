/**
 * The GPU checks of this package as one script, for a machine that has a CUDA device but no Node
 * toolchain (a lent GPU machine: no pnpm, no node_modules). `scripts/pack-device-check.mjs` bundles
 * it with everything it imports (golden cases included) next to a compressed Node binary; there it
 * runs the conformance suite op by op on gpu(0) and writes what it found as JSON.
 *
 * A kernel that faults leaves its CUDA context unusable (a sticky error), so each family runs in a
 * child process that logs every op as it starts and ends: when a child dies, the parent records the
 * op it was in as a crash and reruns the rest of the family without it. `MX_CHECK_SECONDS` bounds
 * the whole run (default 330); families not reached are listed as such.
 *
 * Usage: `node check.mjs <out-dir>` (parent) — children get `--family <name> --skip a,b --log f`.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CaseResult, listFamilies, runCase, selectCases } from '@mx/conformance';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime } from '@mx/ndarray';
import { createCudaBackend, probeCuda } from '../src/index.js';
import { cudaTarget } from '../src/test-util/gpu.js';

type LogLine = { start: string } | { op: string; ms: number; results: CaseResult[] };

async function child(family: string, skip: Set<string>, log: string): Promise<void> {
  const backend = await createCudaBackend();
  const runtime = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 }), backend], seed: 0 });
  const target = cudaTarget(runtime);
  const byOp = new Map<string, ReturnType<typeof selectCases>>();
  for (const c of selectCases({ family })) byOp.set(c.op, [...(byOp.get(c.op) ?? []), c]);
  for (const [op, cases] of byOp) {
    if (skip.has(op)) continue;
    appendFileSync(log, `${JSON.stringify({ start: op })}\n`);
    const t0 = performance.now();
    const results: CaseResult[] = [];
    for (const c of cases) results.push(await runCase(target, c));
    await backend.sync();
    appendFileSync(log, `${JSON.stringify({ op, ms: performance.now() - t0, results })}\n`);
  }
  await runtime.dispose();
}

/** Run one child to its end: exit code (null when killed) and the tail of its stderr. */
function runChild(args: string[], timeoutMs: number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done) => {
    const p = spawn(process.execPath, [process.argv[1] as string, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    p.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
    });
    const timer = setTimeout(() => p.kill('SIGKILL'), Math.max(5000, Math.round(timeoutMs)));
    p.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stderr });
    });
  });
}

async function parent(out: string): Promise<void> {
  const budget = Number(process.env.MX_CHECK_SECONDS ?? 330) * 1000;
  const jobs = Number(process.env.MX_CHECK_JOBS ?? 4);
  const t0 = performance.now();
  const logs = mkdtempSync(join(tmpdir(), 'mx-device-check-'));
  const probe = probeCuda();
  const report = {
    probe,
    ops: [] as { op: string; family: string; ms: number; pass: number; fail: number; skip: number }[],
    failures: [] as { op: string; name: string; reason: string }[],
    crashes: [] as { family: string; op: string; stderr: string }[],
    notReached: [] as string[],
    seconds: 0,
  };
  const runFamily = async (family: string): Promise<void> => {
    const skip = new Set<string>();
    for (let attempt = 0; ; attempt++) {
      const left = budget - (performance.now() - t0);
      if (left <= 0) {
        report.notReached.push(family);
        return;
      }
      const log = join(logs, `${family}.jsonl`);
      writeFileSync(log, '');
      const r = await runChild(['--family', family, '--skip', [...skip].join(','), '--log', log], left);
      let started: string | undefined;
      const lines = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
      for (const l of lines.map((x) => JSON.parse(x) as LogLine)) {
        if ('start' in l) {
          started = l.start;
          continue;
        }
        started = undefined;
        skip.add(l.op);
        const count = (s: string) => l.results.filter((x) => x.status === s).length;
        report.ops.push({
          op: l.op,
          family,
          ms: Math.round(l.ms),
          pass: count('pass'),
          fail: count('fail'),
          skip: count('skip'),
        });
        for (const x of l.results)
          if (x.status === 'fail') report.failures.push({ op: x.op, name: x.name, reason: x.reason ?? '' });
      }
      console.log(`${family}: attempt ${attempt}, exit ${r.code}, ${Math.round(performance.now() - t0)} ms`);
      if (r.code === 0) return;
      const stderr = r.stderr.trim().split('\n').slice(-8).join('\n');
      report.crashes.push({ family, op: started ?? '(before any op)', stderr });
      if (started === undefined) return;
      skip.add(started);
    }
  };
  const queue = [...listFamilies()];
  await Promise.all(
    Array.from({ length: jobs }, async () => {
      for (let f = queue.shift(); f !== undefined; f = queue.shift()) await runFamily(f);
    }),
  );
  report.seconds = Math.round((performance.now() - t0) / 1000);
  writeFileSync(join(out, 'conformance.json'), JSON.stringify(report, null, 1));
  const sum = (k: 'pass' | 'fail' | 'skip') => report.ops.reduce((a, o) => a + o[k], 0);
  console.log(
    `ops ${report.ops.length}, cases pass ${sum('pass')} fail ${sum('fail')} skip ${sum('skip')}, ` +
      `crashes ${report.crashes.length}, not reached ${report.notReached.join(',') || 'none'}, ${report.seconds} s`,
  );
  const failedOps = [...new Set(report.failures.map((f) => f.op))];
  console.log(`failing ops (${failedOps.length}): ${failedOps.join(' ')}`);
  for (const c of report.crashes)
    console.log(`crash in ${c.family}/${c.op}: ${c.stderr.split('\n').slice(-3).join(' | ')}`);
}

const args = process.argv.slice(2);
const at = (k: string) => args[args.indexOf(k) + 1] ?? '';
if (args[0] === '--family') {
  await child(at('--family'), new Set(at('--skip').split(',').filter(Boolean)), at('--log'));
  process.exit(0);
} else {
  await parent(args[0] ?? '.');
}
