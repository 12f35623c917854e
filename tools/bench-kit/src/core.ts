/**
 * Benchmark harness for `pnpm bench`. Benchmarks are programs, not tests: each repeats a workload
 * within a time budget, reports the median (this machine is shared and noisy, so means lie), and
 * writes one JSON report per package to `<repo>/bench-results/<package>.json` as well as stdout.
 * Consumed as TypeScript source through tsx; it is never published.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface MeasureOptions {
  /** Untimed runs before sampling (JIT warm-up). Default 3. */
  readonly warmup?: number;
  /** At least this many samples, even past the budget. Default 5. */
  readonly minSamples?: number;
  /** At most this many samples. Default 200. */
  readonly maxSamples?: number;
  /** Stop sampling once this much time was spent (ms), after minSamples. Default 3000. */
  readonly budgetMs?: number;
}

export interface Samples {
  /** Sample times in ms, sorted ascending. */
  readonly times: readonly number[];
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
}

export function summarize(times: number[]): Samples {
  const sorted = [...times].sort((a, b) => a - b);
  const n = sorted.length;
  const mid = n >> 1;
  const median =
    n % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return { times: sorted, medianMs: median, minMs: sorted[0] as number, maxMs: sorted[n - 1] as number };
}

/** Time `fn` repeatedly; each call is one sample. */
export async function measure(fn: () => unknown, opts: MeasureOptions = {}): Promise<Samples> {
  const { warmup = 3, minSamples = 5, maxSamples = 200, budgetMs = 3000 } = opts;
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  const start = performance.now();
  while (times.length < maxSamples && (times.length < minSamples || performance.now() - start < budgetMs)) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return summarize(times);
}

export interface BenchResult {
  readonly name: string;
  /** Workload parameters (shape, counts, options). */
  readonly params: Readonly<Record<string, unknown>>;
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  readonly samples: number;
  /** Throughput derived from the median, e.g. { value: 2.1e6, unit: 'ops/s' }. */
  readonly rate?: { readonly value: number; readonly unit: string };
  /** Target from the issue, for the reader; never asserted. */
  readonly target?: string;
  readonly extra?: Readonly<Record<string, unknown>>;
}

export function result(
  name: string,
  params: Record<string, unknown>,
  s: Samples,
  more: Partial<Pick<BenchResult, 'rate' | 'target' | 'extra'>> = {},
): BenchResult {
  return {
    name,
    params,
    medianMs: s.medianMs,
    minMs: s.minMs,
    maxMs: s.maxMs,
    samples: s.times.length,
    ...more,
  };
}

export function machineInfo(): Record<string, unknown> {
  const cpus = os.cpus();
  return {
    node: process.version,
    v8: process.versions.v8,
    platform: `${os.platform()} ${os.release()}`,
    arch: os.arch(),
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    memGiB: Math.round(os.totalmem() / 2 ** 30),
    loadavg: os.loadavg(),
  };
}

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Print the report as JSON and write it to bench-results/<pkg>.json at the repo root. */
export function writeReport(pkg: string, results: readonly BenchResult[]): string {
  const report = { package: pkg, date: new Date().toISOString(), machine: machineInfo(), results };
  const text = JSON.stringify(report, null, 2);
  const file = join(repoRoot, 'bench-results', `${pkg.replace(/^@mx\//, '')}.json`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${text}\n`);
  process.stdout.write(`${text}\n`);
  return file;
}
