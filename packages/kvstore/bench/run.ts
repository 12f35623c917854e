/**
 * Benchmarks of @mx/kvstore (`pnpm bench`): distributed jobs of real processes on 127.0.0.1, started
 * with mx-launch's local launcher (scheduler, 2 servers, 2 workers; built packages), so the numbers
 * include ps-lite's protocol, the engine ops and ZeroMQ:
 *   - push + pull of a 25M-float32 model (ResNet-50 sized, 100 MB, split over both servers): seconds
 *     per round and effective GB/s per worker (100 MB out + 100 MB back), against a raw ZeroMQ
 *     ROUTER/DEALER transfer of the same bytes between the same number of processes in the same run
 *     (goal ≥ 0.7× its GB/s, reported as met or missed);
 *   - 1,000 keys of 1,000 floats: rounds per second;
 *   - the Gluon LeNet example (examples/dist-lenet) with 2 workers + 2 servers against 1 + 1:
 *     samples/s and seconds to 98% validation accuracy (this machine's cores are shared by all).
 * Each measurement alternates with its baseline (2 runs each), medians over the runs' rounds.
 * `MX_BENCH_ONLY=bigarray,smallkeys,lenet` selects. No GPU is needed; nothing is asserted.
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { fmt, Report, selected, summarize, want, writeReport } from '@mx/bench-kit';
import { findFreePort, launchLocal } from '@mx/kvstore/launch';

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const WORKLOADS = ['bigarray', 'smallkeys', 'lenet'];
const unknown = selected.filter((k) => !WORKLOADS.includes(k));
if (unknown.length > 0)
  console.log(`MX_BENCH_ONLY: unknown ${unknown.join(', ')} (workloads: ${WORKLOADS.join(', ')})`);
const GOAL = 0.7;
const report = new Report();
const cores = availableParallelism();

/** Runs a dist job of `script`; resolves to everything it printed (throws on a failed job). */
async function job(
  command: string[],
  workers: number,
  servers: number,
  env: [string, string][],
): Promise<string> {
  let out = '';
  const h = launchLocal({
    numWorkers: workers,
    numServers: servers,
    command,
    rootPort: await findFreePort(),
    env,
    cwd: here('..'),
    graceMs: 2000,
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (out += s) },
  });
  const { code } = await h.done;
  if (code !== 0) throw new Error(`job ${command.join(' ')} exited ${code}:\n${out.slice(-2000)}`);
  return out;
}

const times = (out: string): number[] =>
  [...out.matchAll(/TIMES (\[.*\])/g)].flatMap((m) => JSON.parse(m[1] as string) as number[]);

/** Two echo servers and two clients of raw ZeroMQ moving `bytes` per client round. */
async function raw(bytes: number, rounds: number): Promise<number[]> {
  const ports = [await findFreePort(20000, 20999), await findFreePort(21000, 21999)];
  const env = { ...process.env, BENCH_BYTES: String(bytes), BENCH_ROUNDS: String(rounds) };
  const run = (args: string[]) =>
    new Promise<string>((resolve, reject) => {
      const p = spawn(process.execPath, [here('zmq-raw.mjs'), ...args], { env, cwd: here('..') });
      let out = '';
      p.stdout.on('data', (d) => (out += d));
      p.stderr.on('data', (d) => (out += d));
      p.on('exit', (code) =>
        code === 0 ? resolve(out) : reject(new Error(`zmq-raw ${args[0]}: ${code}\n${out}`)),
      );
    });
  const servers = ports.map((p) => run(['server', String(p)]));
  await new Promise((r) => setTimeout(r, 300));
  const clients = [0, 1].map(() => run(['client', ...ports.map(String)]));
  const outs = await Promise.all(clients);
  await Promise.all(servers);
  return outs.flatMap(times);
}

const kvJob = (keys: string, rounds: number) =>
  job([process.execPath, here('kv-job.mjs')], 2, 2, [
    ['BENCH_KEYS', keys],
    ['BENCH_ROUNDS', String(rounds)],
  ]).then(times);

const t0 = performance.now();
if (want('bigarray')) {
  const FLOATS = 25_000_000;
  const bytes = FLOATS * 4;
  const ours: number[] = [];
  const base: number[] = [];
  for (let rep = 0; rep < 2; rep++) {
    base.push(...(await raw(bytes, 4)));
    ours.push(...(await kvJob(`1x${FLOATS}`, 4)));
  }
  const s = summarize(ours);
  const r = summarize(base);
  const gbs = (ms: number) => (2 * bytes) / 1e9 / (ms / 1000);
  const ratio = gbs(s.medianMs) / gbs(r.medianMs);
  const params = {
    floats: FLOATS,
    MB: bytes / 1e6,
    workers: 2,
    servers: 2,
    cores,
    transport: 'ZeroMQ over 127.0.0.1',
  };
  report.add(
    'kvstore.raw-zmq.100MB',
    { ...params, what: 'ROUTER/DEALER echo, same processes and bytes' },
    r,
    { rate: { value: gbs(r.medianMs), unit: 'GB/s' } },
    `raw ZeroMQ: ${fmt(r.medianMs / 1000, 3)} s per round, ${fmt(gbs(r.medianMs))} GB/s per client`,
  );
  report.add(
    'kvstore.dist-sync.pushpull-25M',
    { ...params, what: 'push + pull of one 25M-float32 key (split over the servers)' },
    s,
    {
      rate: { value: gbs(s.medianMs), unit: 'GB/s' },
      target: `≥ ${GOAL}× raw ZeroMQ's GB/s`,
      extra: { secondsPerRound: s.medianMs / 1000, ratioToRawZmq: ratio, goal: GOAL, goalMet: ratio >= GOAL },
    },
    `dist_sync push+pull of 25M floats: ${fmt(s.medianMs / 1000, 3)} s per round, ${fmt(gbs(s.medianMs))} GB/s per worker = ${fmt(ratio)}× raw ZeroMQ; goal ≥ ${GOAL}: ${ratio >= GOAL ? 'met' : 'missed'}`,
  );
}
if (want('smallkeys')) {
  const s = summarize([...(await kvJob('1000x1000', 10)), ...(await kvJob('1000x1000', 10))]);
  report.add(
    'kvstore.dist-sync.1000-keys',
    { keys: 1000, floatsPerKey: 1000, workers: 2, servers: 2, cores },
    s,
    { rate: { value: 1000 / s.medianMs, unit: 'rounds/s' } },
    `dist_sync push+pull of 1,000 keys × 1,000 floats: ${fmt(1000 / s.medianMs)} rounds/s (${fmt(s.medianMs)} ms per round)`,
  );
}
if (want('lenet')) {
  const tsx = here('../node_modules/.bin/tsx');
  const script = here('../../../examples/dist-lenet/src/train.ts');
  const parse = (out: string) => {
    const lines = [
      ...out.matchAll(
        /rank 0\/\d+: (\d+) samples\/s on this worker \((\d+) across \d+\); 98% validation accuracy (?:after ([\d.]+) s|not reached); final ([\d.]+)%/g,
      ),
    ];
    const m = lines[0];
    if (m === undefined) throw new Error(`no summary line in the LeNet job's output:\n${out.slice(-1500)}`);
    return { total: Number(m[2]), to98: m[3] === undefined ? null : Number(m[3]), final: Number(m[4]) };
  };
  for (const [w, s] of [
    [1, 1],
    [2, 2],
  ] as const) {
    const started = performance.now();
    const out = await job([tsx, script], w, s, [['MX_EPOCHS', '10']]);
    const res = parse(out);
    const wall = performance.now() - started;
    report.add(
      `kvstore.dist-lenet.${w}-workers`,
      {
        workers: w,
        servers: s,
        epochs: 10,
        batchPerWorker: 64,
        cores,
        note: `all processes share this machine's ${cores} cores`,
      },
      summarize([wall]),
      {
        rate: { value: res.total, unit: 'samples/s' },
        extra: { secondsTo98: res.to98, finalAccuracy: res.final },
      },
      `Gluon LeNet, ${w} worker(s) + ${s} server(s): ${res.total} samples/s in all, 98% after ${res.to98 ?? 'never'} s, final ${res.final}%`,
    );
  }
}
console.log(`kvstore bench took ${((performance.now() - t0) / 1000).toFixed(1)} s`);
console.log(`wrote ${writeReport('kvstore', report.results)}`);
