/**
 * Where the time of a softmax written from elementwise ops goes on cpu-wasm, kernel by kernel, on
 * x of shape [1024, 1000] float32 (the symbol bench's softmax): max(axis=1, keepdims), broadcast_sub,
 * exp, the executor's fused exp(sub(i0, i1)) (defined here as an op with that expression, i1 a
 * [1024, 1] per-row scalar), sum(axis=1, keepdims), broadcast_div, and reading a ready output back
 * (`dataSync`). Every step goes through the public NDArray API (invoke, then waitToReadSync), so the
 * figures include the engine's per-op cost (a few µs). Steps run in turns, medians reported, both
 * with the worker pool and with threads off (`workers: 0`), with the minor page faults per call (a
 * fresh 4 MB host buffer costs ~1000 faults, ~1 ms, which is what a slow readback usually is).
 *
 * Run: `npx tsx bench/softmax-path.ts [--rounds N]` (from packages/ndarray; sibling packages
 * resolve to their sources through the package tsconfig). `MX_SOFTMAX_WORKERS=1,0,1` sets the worker counts measured, in order (default 0,1).
 */
import { Env } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import type { NDArray, Runtime } from '@mx/ndarray';
import { createRuntime } from '@mx/ndarray';
import { E, P } from '@mx/ops';

const ROWS = 1024;
const COLS = 1000;
const argRounds = process.argv.indexOf('--rounds');
const ROUNDS = argRounds > 0 ? Number(process.argv[argRounds + 1]) : 200;

interface Step {
  readonly name: string;
  readonly run: () => void;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/** The fused kernel the executor builds for broadcast_sub + exp. */
function defineFused(rt: Runtime): string {
  const name = '_bench_fused_broadcast_sub_exp';
  rt.registry.define({
    name,
    numInputs: 2,
    params: { scalar: P.double({ default: 0 }) },
    elementwise: { forward: E.exp(E.sub(E.x, E.y)), broadcast: true },
    inferShape: (_a, ins, outs) => {
      outs[0] = [...(ins[0] as number[])];
      return true;
    },
    inferType: (_a, ins, outs) => {
      outs[0] = ins[0] as string as never;
      return true;
    },
  });
  return name;
}

async function measure(workers: number): Promise<void> {
  const backend = new CpuWasmBackend({ workers });
  const rt = createRuntime({ backends: [backend], env: Env.fromProcess(), seed: 42 });
  // Let the pool's workers start (Node spawns them asynchronously): one pooled kernel, then a pause.
  rt.nd.ones([1024, 1024]).exp().waitToReadSync();
  await new Promise((r) => setTimeout(r, 300));
  const pool = backend.runtime.threads === null ? null : { size: workers + 1 };
  const { nd } = rt;
  const fused = defineFused(rt);
  const x = nd._random_uniform({ shape: [ROWS, COLS], low: -1, high: 1 }) as NDArray;
  const m = x.max({ axis: -1, keepdims: true });
  const d = nd.broadcast_sub(x, m);
  const e = d.exp();
  const s = e.sum({ axis: -1, keepdims: true });
  const y = nd.broadcast_div(e, s);
  y.waitToReadSync();
  const op = (f: () => NDArray) => () => {
    const r = f();
    r.waitToReadSync();
    r.dispose();
  };
  const steps: Step[] = [
    { name: 'max(axis=1, keepdims)', run: op(() => x.max({ axis: -1, keepdims: true })) },
    { name: 'broadcast_sub(x, m)', run: op(() => nd.broadcast_sub(x, m)) },
    { name: 'exp(d)', run: op(() => d.exp()) },
    { name: 'fused exp(sub(x, m))', run: op(() => rt.invoke(fused, [x, m])[0] as NDArray) },
    { name: 'sum(axis=1, keepdims)', run: op(() => e.sum({ axis: -1, keepdims: true })) },
    { name: 'broadcast_div(e, s)', run: op(() => nd.broadcast_div(e, s)) },
    { name: 'dataSync of ready y', run: () => void y.dataSync() },
    {
      name: 'softmax eager + dataSync',
      run: () =>
        nd.scopeSync(() => {
          const ee = nd.broadcast_sub(x, x.max({ axis: -1, keepdims: true })).exp();
          nd.broadcast_div(ee, ee.sum({ axis: -1, keepdims: true })).dataSync();
        }),
    },
  ];
  const times = steps.map(() => [] as number[]);
  const faults = steps.map(() => 0);
  for (let w = 0; w < 20; w++) for (const st of steps) st.run();
  for (let r = 0; r < ROUNDS; r++) {
    steps.forEach((st, i) => {
      const f0 = process.resourceUsage().minorPageFault;
      const t0 = performance.now();
      st.run();
      (times[i] as number[]).push(performance.now() - t0);
      faults[i] = (faults[i] as number) + process.resourceUsage().minorPageFault - f0;
    });
  }
  console.log(`\n[${ROWS}, ${COLS}] float32, ${pool === null ? 'threads off' : `pool of ${pool.size}`}:`);
  steps.forEach((st, i) => {
    const ms = median(times[i] as number[]);
    const ns = (ms * 1e6) / (ROWS * COLS);
    const pf = ((faults[i] as number) / ROUNDS).toFixed(0);
    console.log(
      `  ${st.name.padEnd(28)} ${ms.toFixed(3).padStart(7)} ms  ${ns.toFixed(2).padStart(5)} ns/elem  ${pf.padStart(5)} page faults/call`,
    );
  });
  for (const a of [x, m, d, e, s, y]) a.dispose();
  await rt.dispose();
}

const order = (process.env.MX_SOFTMAX_WORKERS ?? '0,1').split(',').map(Number);
for (const w of order) await measure(w);
