/**
 * @mx/engine benchmarks (`pnpm --filter @mx/engine bench`), written to bench-results/engine.json.
 *
 * - throughput: push + complete of no-op sync ops that read 2 vars and write 1 (target >= 2M ops/s
 *   with W = 10,000 and with W = 1,000,000). Ops are pushed in windows of W before waiting for all,
 *   as a program runs ahead of execution; a 1M-op window keeps a million ops pending at once, so it
 *   measures the engine's memory layout (cache misses, GC) more than its logic.
 * - memory per pending op: heap + array-buffer bytes held per queued op (its table slot and var
 *   queue entries) with a million pending, after a full GC, first fill and with warm tables.
 * - overlap: a chain of 1,000 async ops, each 1 ms of simulated device time on a worker thread;
 *   pushing must return in < 20 ms and the chain finish in about 1 s (push hidden behind execution).
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { cpu } from '@mx/base';
import { type BenchResult, machineInfo, measure, result, summarize, writeReport } from '@mx/bench-kit';
import { createEngine, type Engine, type EngineKind, type Var } from '@mx/engine';
import { SimulatedDevice } from './device-worker.js';

const CTX = cpu(0);
const NOOP = (): void => {};

async function throughput(kind: EngineKind, window: number, total: number): Promise<BenchResult> {
  const engine = createEngine({ kind });
  const vars: Var[] = Array.from({ length: 256 }, (_, i) => engine.newVariable(`v${i}`));
  const run = async (): Promise<void> => {
    for (let done = 0; done < total; done += window) {
      for (let i = done; i < done + window; i++) {
        engine.pushSync(
          NOOP,
          CTX,
          [vars[(i * 7) & 255] as Var, vars[(i * 13 + 1) & 255] as Var],
          [vars[(i * 31 + 2) & 255] as Var],
        );
      }
      await engine.waitForAll();
    }
  };
  const s = await measure(run, { warmup: 2, minSamples: 5, maxSamples: 30, budgetMs: 4000 });
  return result(
    `engine.throughput.${kind}`,
    { reads: 2, writes: 1, window, opsPerSample: total, vars: 256 },
    s,
    {
      rate: { value: total / (s.medianMs / 1000), unit: 'ops/s' },
      target: '>= 2,000,000 ops/s (window 10,000, threaded)',
    },
  );
}

/** V8's gc(), obtained at run time (no --expose-gc needed). */
function obtainGc(): () => void {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  v8.setFlagsFromString('--no-expose-gc');
  return gc;
}

/** Bytes of heap and array buffers per pending op with `n` ops queued (fresh engine, then again). */
async function pendingMemory(kind: EngineKind, n: number): Promise<Record<string, number>> {
  const gc = obtainGc();
  const used = (): [number, number] => {
    gc();
    gc();
    const m = process.memoryUsage();
    return [m.heapUsed, m.arrayBuffers];
  };
  const engine = createEngine({ kind });
  const vars: Var[] = Array.from({ length: 256 }, (_, i) => engine.newVariable(`v${i}`));
  const pushAll = (): void => {
    for (let i = 0; i < n; i++) {
      engine.pushSync(
        NOOP,
        CTX,
        [vars[(i * 7) & 255] as Var, vars[(i * 13 + 1) & 255] as Var],
        [vars[(i * 31 + 2) & 255] as Var],
      );
    }
  };
  const perOp = (a: [number, number], b: [number, number], k: 0 | 1): number => Math.round((b[k] - a[k]) / n);
  const m0 = used();
  pushAll();
  const m1 = used();
  await engine.waitForAll();
  const m2 = used();
  pushAll();
  const m3 = used();
  await engine.waitForAll();
  return {
    pendingOps: n,
    heapBytesPerPendingOp: perOp(m0, m1, 0),
    bufferBytesPerPendingOp: perOp(m0, m1, 1),
    bytesPerPendingOpWarm: perOp(m2, m3, 0) + perOp(m2, m3, 1),
    bytesHeldAfterDrainPerOp: perOp(m0, m2, 0) + perOp(m0, m2, 1),
  };
}

async function overlap(engine: Engine, device: SimulatedDevice, n: number, ms: number) {
  const v = engine.newVariable('chain');
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    engine.pushAsync((_r, done) => device.launch(ms, done), CTX, [], [v], { name: 'kernel' });
  }
  const pushMs = performance.now() - t0;
  await engine.waitForAll();
  return { pushMs, totalMs: performance.now() - t0 };
}

async function main(): Promise<void> {
  const results: BenchResult[] = [];
  for (const window of [10_000, 1_000, 100_000]) results.push(await throughput('threaded', window, 200_000));
  const big = await throughput('threaded', 1_000_000, 1_000_000);
  results.push({ ...big, target: '>= 2,000,000 ops/s', extra: await pendingMemory('threaded', 1_000_000) });
  results.push(await throughput('naive', 10_000, 200_000));

  const device = new SimulatedDevice();
  const engine = createEngine({ kind: 'threaded' });
  await overlap(engine, device, 50, 1); // warm up the worker and the JIT
  const push: number[] = [];
  const total: number[] = [];
  for (let rep = 0; rep < 5; rep++) {
    const r = await overlap(engine, device, 1000, 1);
    push.push(r.pushMs);
    total.push(r.totalMs);
  }
  await device.close();
  const p = summarize(push);
  const t = summarize(total);
  results.push(
    result(
      'engine.overlap.push',
      { ops: 1000, deviceMsPerOp: 1, dependency: 'chain (each op writes one var)' },
      p,
      {
        target: '< 20 ms to push 1,000 ops',
      },
    ),
    result('engine.overlap.total', { ops: 1000, deviceMsPerOp: 1, idealMs: 1000 }, t, {
      target: '≈ 1,000 ms (device time), push hidden behind execution',
      extra: { overheadPerOpMs: (t.medianMs - 1000) / 1000, pushShareOfTotal: p.medianMs / t.medianMs },
    }),
  );
  writeReport('@mx/engine', results);
  const summary = results.map((r) =>
    r.rate
      ? `${r.name} w=${r.params.window}: ${(r.rate.value / 1e6).toFixed(2)}M ops/s${r.extra ? ` ${JSON.stringify(r.extra)}` : ''}`
      : `${r.name}: ${r.medianMs.toFixed(1)} ms`,
  );
  process.stderr.write(`${summary.join('\n')}\n${JSON.stringify(machineInfo().loadavg)}\n`);
}

await main();
