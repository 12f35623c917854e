/**
 * Memory benchmarks for the safety net (build, then `pnpm --filter @mx/ndarray exec tsx
 * bench/memory.ts`; writes bench-results/ndarray-memory.json): what a training loop that disposes
 * nothing costs next to the same loop written with scopes, and what small arrays cost with and
 * without the small-object allocator. Each case runs in a fresh Node process (so the
 * peak RSS is that case's own) and reports per-step time, the cpu(0) pool's peak (bytes reserved
 * from wasm memory), reclaims (forced GCs), live arrays at the end and peak RSS.
 *
 * Cases (`MX_MEM_CASES=a,b` selects; default all but the real-size MLP):
 * - `mlp-small.<mode>`: the 32-32-10 MLP of src/memory/safety-net.test.ts, batch 16, 20,000 steps;
 * - `mlp-real.<mode>`: bench/train.ts's 784-512-512-10 MLP, batch 128 (`MX_MEM_REAL_STEPS`, default
 *   20,000; slow);
 *   with `<mode>` = `sync` (dataSync each step) or `async` (await item()), each either leaking
 *   (`-leak`: no dispose, no scope) or `-scoped` (nd.scopeSync / nd.scope per step);
 * - `scalars.<on|off>`: a million queued 1-element results (`nd.add` of two 1-element arrays, kept
 *   alive), with the small-object allocator on or off (off: MXNet's one page per block).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type BenchResult, writeReport } from '@mx/bench-kit';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray, type Runtime, type RuntimeOptions } from '@mx/ndarray';

const MiB = 2 ** 20;
type MemoryOptions = NonNullable<RuntimeOptions['memory']>;

interface CaseResult {
  readonly name: string;
  readonly params: Record<string, unknown>;
  readonly msPerStep?: number;
  readonly poolPeakMiB: number;
  readonly poolReservedMiB: number;
  readonly bytesInUseMiB: number;
  readonly reclaims: number;
  readonly arraysAtEnd: number;
  readonly peakRssMiB: number;
  readonly heapUsedMiB: number;
  readonly error?: string;
}

function runtime(memory: MemoryOptions = {}): Runtime {
  return createRuntime({ backends: [new CpuWasmBackend()], seed: 42, memory });
}

function mlp(rt: Runtime, real: boolean): () => NDArray {
  const { nd, autograd } = rt;
  const [inp, hid, batch] = real ? [784, 512, 128] : [32, 32, 16];
  const layers = real ? [hid, hid, 10] : [hid, 10];
  const params: NDArray[][] = [];
  let fanIn = inp;
  for (const n of layers) {
    const w = nd._random_normal({ shape: [n, fanIn], loc: 0, scale: real ? 0.05 : 0.2 });
    const b = nd.zeros([n]);
    w.attachGrad();
    b.attachGrad();
    params.push([w, b]);
    fanIn = n;
  }
  const x = nd._random_uniform({ shape: [batch, inp], low: -1, high: 1 });
  const y = nd.array(
    Float32Array.from({ length: batch }, (_, i) => i % 10),
    { shape: [batch] },
  );
  return () => {
    const loss = autograd.record(() => {
      let h = x;
      params.forEach(([w, b], i) => {
        h = nd.FullyConnected(h, w as NDArray, b as NDArray, { num_hidden: layers[i] as number });
        if (i < params.length - 1) h = nd.Activation(h, { act_type: 'relu' });
      });
      return nd.negative(nd.mean(nd.pick(nd.log_softmax(h), y)));
    });
    loss.backward();
    for (const w of params.flat()) nd.sgd_update(w, w.grad as NDArray, { lr: 0.01, out: w });
    return loss;
  };
}

function poolFigures(rt: Runtime): Omit<CaseResult, 'name' | 'params' | 'msPerStep'> {
  const m = rt.memory();
  const cpu = m.devices['cpu(0)'];
  return {
    poolPeakMiB: (cpu?.peakBytesReserved ?? 0) / MiB,
    poolReservedMiB: (cpu?.bytesReserved ?? 0) / MiB,
    bytesInUseMiB: (cpu?.bytesInUse ?? 0) / MiB,
    reclaims: cpu?.numReclaims ?? 0,
    arraysAtEnd: m.arrays,
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
    heapUsedMiB: process.memoryUsage().heapUsed / MiB,
  };
}

async function loopCase(name: string): Promise<CaseResult> {
  const [net, mode] = name.split('.') as [string, string];
  const real = net === 'mlp-real';
  const steps = real ? Number(process.env.MX_MEM_REAL_STEPS ?? 20_000) : 20_000;
  const rt = runtime();
  const step = mlp(rt, real);
  const { nd } = rt;
  const t0 = performance.now();
  let i = 0;
  let error: string | undefined;
  try {
    if (mode === 'sync-leak') for (; i < steps; i++) step().dataSync();
    else if (mode === 'async-leak') for (; i < steps; i++) await step().item();
    else if (mode === 'sync-scoped') for (; i < steps; i++) nd.scopeSync(() => step().dataSync());
    else if (mode === 'async-scoped') for (; i < steps; i++) await nd.scope(() => step().item());
    else throw new Error(`unknown mode ${mode}`);
  } catch (e) {
    error = `failed at step ${i}: ${String(e).split('\n')[0]}`;
  }
  const msPerStep = (performance.now() - t0) / Math.max(i, 1);
  return { name, params: { steps, gc: rt.memory().gc }, msPerStep, ...poolFigures(rt), error };
}

async function scalarsCase(name: string): Promise<CaseResult> {
  const on = name.endsWith('.on');
  const n = Number(process.env.MX_MEM_SCALARS ?? 1_000_000);
  const rt = runtime({ smallObjects: on });
  const { nd } = rt;
  const a = nd.array([1]);
  const b = nd.array([2]);
  const kept: NDArray[] = [];
  let error: string | undefined;
  try {
    for (let i = 0; i < n; i++) kept.push(nd.add(a, b));
  } catch (e) {
    error = `after ${kept.length} results: ${String(e).split('\n')[0]}`;
  }
  return { name, params: { results: n, kept: kept.length, smallObjects: on }, ...poolFigures(rt), error };
}

const ALL = [
  ...['sync-leak', 'sync-scoped', 'async-leak', 'async-scoped'].map((m) => `mlp-small.${m}`),
  'scalars.on',
  'scalars.off',
];

const single = process.env.MX_MEM_CASE;
if (single !== undefined) {
  const r = single.startsWith('scalars') ? await scalarsCase(single) : await loopCase(single);
  process.stdout.write(`${JSON.stringify(r)}\n`);
  process.exit(0);
}

const cases = (process.env.MX_MEM_CASES ?? '').split(',').filter(Boolean);
const results: BenchResult[] = [];
for (const name of cases.length > 0 ? cases : ALL) {
  const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
    env: { ...process.env, MX_MEM_CASE: name },
    encoding: 'utf8',
    maxBuffer: 16 * MiB,
  });
  const line = child.stdout.trim().split('\n').pop() ?? '';
  let r: CaseResult;
  try {
    r = JSON.parse(line) as CaseResult;
  } catch {
    console.error(`${name}: no result (exit ${child.status})\n${child.stderr.slice(-2000)}`);
    continue;
  }
  const f = (x: number) => x.toFixed(1);
  console.log(
    `${name}: ${r.msPerStep === undefined ? '' : `${r.msPerStep.toFixed(3)} ms/step, `}pool peak ${f(r.poolPeakMiB)} MiB ` +
      `(in use at end ${f(r.bytesInUseMiB)} MiB), reclaims ${r.reclaims}, arrays at end ${r.arraysAtEnd}, ` +
      `peak RSS ${f(r.peakRssMiB)} MiB, JS heap ${f(r.heapUsedMiB)} MiB${r.error ? `; ${r.error}` : ''}`,
  );
  const ms = r.msPerStep ?? 0;
  results.push({
    name: `memory.${name}`,
    params: r.params,
    medianMs: ms,
    minMs: ms,
    maxMs: ms,
    samples: 1,
    extra: {
      poolPeakMiB: r.poolPeakMiB,
      poolReservedMiB: r.poolReservedMiB,
      bytesInUseMiB: r.bytesInUseMiB,
      reclaims: r.reclaims,
      arraysAtEnd: r.arraysAtEnd,
      peakRssMiB: r.peakRssMiB,
      heapUsedMiB: r.heapUsedMiB,
      ...(r.error === undefined ? {} : { error: r.error }),
    },
  });
}
console.log(`wrote ${writeReport('ndarray-memory', results)}`);
