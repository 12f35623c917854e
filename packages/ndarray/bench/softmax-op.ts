/**
 * Timing of the native softmax family on cpu-wasm (softmax, log_softmax and their backward ops
 * along the last axis) on float32 [1024, 1000] (pool-sized) and [64, 10] (per-call overhead), through
 * the public NDArray API (invoke into a preallocated output, then waitToReadSync), so the figures
 * include the engine's per-op cost. Per shape, the ops run in turns and medians are reported, with
 * the worker pool and with threads off (`workers: 0`): the machine is small and noisy, so one op's
 * runs are spread over the whole measurement instead of back to back.
 *
 * Run: `npx tsx bench/softmax-op.ts [--rounds N]` (from packages/ndarray).
 * `MX_SOFTMAX_WORKERS=1,0` sets the worker counts measured, in order (default 0,1).
 */
import { Env } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import type { NDArray } from '@mx/ndarray';
import { createRuntime } from '@mx/ndarray';

const argRounds = process.argv.indexOf('--rounds');
const ROUNDS = argRounds > 0 ? Number(process.argv[argRounds + 1]) : 200;
const SHAPES: readonly (readonly [number, number])[] = [
  [1024, 1000],
  [64, 10],
];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

async function measure(workers: number): Promise<void> {
  const backend = new CpuWasmBackend({ workers });
  const rt = createRuntime({ backends: [backend], env: Env.fromProcess(), seed: 42 });
  // Let the pool's workers start (Node spawns them asynchronously): one pooled kernel, then a pause.
  rt.nd.ones([1024, 1024]).exp().waitToReadSync();
  await new Promise((r) => setTimeout(r, 300));
  const pool = backend.runtime.threads === null ? null : { size: workers + 1 };
  const { nd } = rt;
  const keep: NDArray[] = [];
  console.log(
    `\nfloat32, axis -1, ${pool === null ? 'threads off' : `pool of ${pool.size}`} (median of ${ROUNDS}):`,
  );
  // One rotation per shape, so a small shape's calls do not follow a large one's cache sweep.
  for (const [r, c] of SHAPES) {
    const x = nd._random_uniform({ shape: [r, c], low: -4, high: 4 }) as NDArray;
    const g = nd._random_uniform({ shape: [r, c], low: -1, high: 1 }) as NDArray;
    const out = nd.zeros([r, c]);
    const y = rt.invoke('softmax', [x], { axis: -1 })[0] as NDArray;
    const ly = rt.invoke('log_softmax', [x], { axis: -1 })[0] as NDArray;
    keep.push(x, g, out, y, ly);
    const run = (op: string, ins: NDArray[]) => () => {
      rt.invoke(op, ins, { axis: -1 }, { out });
      out.waitToReadSync();
    };
    const tag = `[${r}, ${c}]`;
    const steps = [
      { name: `softmax ${tag}`, run: run('softmax', [x]) },
      { name: `log_softmax ${tag}`, run: run('log_softmax', [x]) },
      { name: `_backward_softmax ${tag}`, run: run('_backward_softmax', [g, y]) },
      { name: `_backward_log_softmax ${tag}`, run: run('_backward_log_softmax', [g, ly]) },
    ];
    const times = steps.map(() => [] as number[]);
    for (let w = 0; w < 20; w++) for (const st of steps) st.run();
    for (let i = 0; i < ROUNDS; i++) {
      steps.forEach((st, k) => {
        const t0 = performance.now();
        st.run();
        (times[k] as number[]).push(performance.now() - t0);
      });
    }
    steps.forEach((st, k) => {
      console.log(
        `  ${st.name.padEnd(34)} ${median(times[k] as number[])
          .toFixed(4)
          .padStart(8)} ms`,
      );
    });
  }
  for (const a of keep) a.dispose();
  await rt.dispose();
}

const order = (process.env.MX_SOFTMAX_WORKERS ?? '0,1').split(',').map(Number);
for (const w of order) await measure(w);
