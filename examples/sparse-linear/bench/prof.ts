/**
 * Profiling aid for issue 15's step (not part of `pnpm bench`): trains the example's model on the
 * benchmark's batches and prints µs per step; with `prof` the engine profiler's per-op totals.
 * Usage: `npx tsx bench/prof.ts <outputs> <sparse|dense> [prof]`. Same data and model as
 * bench/run.ts, one path per process, so a `node --cpu-prof` run sees only that path.
 */
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { type CSRNDArray, createRuntime } from '@mx/ndarray';
import { prng, rowIds, SPEC } from '../src/data.js';
import { linearModel } from '../src/model.js';

const BATCH = 256;
const outputs = Number(process.argv[2] ?? 1);
const path = (process.argv[3] ?? 'sparse') as 'sparse' | 'dense';
const rt = createRuntime({ backends: [new CpuWasmBackend()], seed: 1 });
const { nd } = rt;
const rand = prng(11);
const xs: CSRNDArray[] = [];
for (let b = 0; b < 16; b++) {
  const indptr = [0];
  const indices: number[] = [];
  for (let r = 0; r < BATCH; r++) {
    indices.push(...rowIds(rand));
    indptr.push(indices.length);
  }
  xs.push(
    nd.sparse.csrMatrix([new Float32Array(indices.length).fill(1), indices, indptr], {
      shape: [BATCH, SPEC.features],
    }),
  );
}
const ys = xs.map(() =>
  nd.array(
    Float32Array.from({ length: BATCH * outputs }, () => (rand() < 0.5 ? 1 : 0)),
    { shape: [BATCH, outputs] },
  ),
);
const m = linearModel(rt, { features: SPEC.features, path, learningRate: 0.5, batchSize: BATCH, outputs });
for (let i = 0; i < 50; i++) m.step(xs[i % 16]!, ys[i % 16]!).dispose();
await m.w.waitToRead();
const N = 400;
const prof = rt.engine.profiler;
if (process.argv[4] === 'prof') prof.setState('run');
const t0 = performance.now();
for (let i = 0; i < N; i++) {
  m.step(xs[i % 16]!, ys[i % 16]!).dispose();
  if (i % 8 === 7) await m.w.waitToRead();
}
await m.w.waitToRead();
const t1 = performance.now();
console.log(`${path} [1M,${outputs}] ${(((t1 - t0) / N) * 1000).toFixed(1)} us/step`);
if (process.argv[4] === 'prof') {
  prof.setState('stop');
  console.log(prof.dumps());
}
m.dispose();
await rt.dispose();
