/**
 * Issue 15's benchmark: a sparse linear model with a 1M-row weight, batches of 256 with 100
 * nonzeros each — the step time (forward, backward and update) of the sparse path (row_sparse
 * gradient, lazy SGD) against the dense path (dense gradient, standard SGD), and the bytes each
 * step's gradient and update touch. The issue's model is the binary classifier (a [1M, 1] weight);
 * a 32-label model (a [1M, 32] weight, the width of an embedding or a factorization machine's
 * factors) shows how the gap grows with the row width. Steps are pipelined as in training (one wait
 * per 8 steps, time per step reported); the two paths are timed in turns in one process so the
 * machine's noise hits both alike. Same model code as the example (src/model.ts).
 *
 * Beside them, the same step written directly in C (bench/native-floor.c, single-threaded, no
 * framework), compiled with the system's C compiler when it has one: the floor the machine sets.
 * Both paths share the forward gather, so dense / forward bounds any implementation's ratio.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Report, type Samples, timeInterleaved, writeReport } from '@mx/bench-kit';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { type CSRNDArray, createRuntime, type NDArray } from '@mx/ndarray';
import { prng, rowIds, SPEC } from '../src/data.js';
import { type LinearModel, linearModel } from '../src/model.js';

const BATCH = 256;
const BATCHES = 16;
const PIPELINE = 8;

const rt = createRuntime({ backends: [new CpuWasmBackend()], seed: 1 });
const { nd } = rt;
const rand = prng(11);
const xs: CSRNDArray[] = [];
for (let b = 0; b < BATCHES; b++) {
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

/** The C floor's medians for `outputs` labels, or why it did not run. */
interface NativeFloor {
  readonly sparseMs: number;
  readonly denseMs: number;
  readonly forwardMs: number;
}
const native = compileNativeFloor();
if (typeof native === 'string') console.log(`native C floor skipped: ${native}`);

function compileNativeFloor(): string | ((outputs: number) => NativeFloor | string) {
  const dir = mkdtempSync(join(tmpdir(), 'mx-native-floor-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const exe = join(dir, 'native-floor');
  const src = fileURLToPath(new URL('./native-floor.c', import.meta.url));
  const cc = spawnSync(process.env.CC ?? 'cc', ['-O3', '-march=native', '-o', exe, src, '-lm'], {
    encoding: 'utf8',
  });
  if (cc.error !== undefined || cc.status !== 0)
    return `no working C compiler (${cc.error?.message ?? cc.stderr.trim().split('\n')[0]})`;
  return (outputs) => {
    const run = spawnSync(exe, [String(outputs)], { encoding: 'utf8' });
    if (run.status !== 0) return `exit ${run.status}: ${run.stderr.trim()}`;
    return JSON.parse(run.stdout) as NativeFloor;
  };
}

const report = new Report();
for (const outputs of [1, 32]) {
  const ys = xs.map(() =>
    nd.array(
      Float32Array.from({ length: BATCH * outputs }, () => (rand() < 0.5 ? 1 : 0)),
      { shape: [BATCH, outputs] },
    ),
  );
  const models = (['sparse', 'dense'] as const).map((path) =>
    linearModel(rt, { features: SPEC.features, path, learningRate: 0.5, batchSize: BATCH, outputs }),
  ) as [LinearModel, LinearModel];
  const variants = models.map((m) => {
    let i = 0;
    return {
      run: async () => {
        for (let k = 0; k < PIPELINE; k++, i++)
          m.step(xs[i % BATCHES] as CSRNDArray, ys[i % BATCHES] as NDArray).dispose();
        await m.w.waitToRead();
      },
      dispose: () => undefined,
    };
  });
  const [sparse, dense] = (await timeInterleaved(variants, { budgetMs: 8000, minSamples: 10 })) as [
    Samples,
    Samples,
  ];
  // Per step: each sample ran PIPELINE steps.
  const per = (x: Samples): Samples => ({
    times: x.times.map((t) => t / PIPELINE),
    medianMs: x.medianMs / PIPELINE,
    minMs: x.minMs / PIPELINE,
    maxMs: x.maxMs / PIPELINE,
  });
  const s = per(sparse);
  const d = per(dense);
  // Gradient bytes as stored after a step; the update reads weight and gradient rows and writes
  // the weight rows (4 bytes an element), plus the row ids of a row_sparse gradient (8 bytes).
  const sparseGrad = await models[0].gradBytes();
  const rows = sparseGrad / (4 * outputs + 8);
  const bytes = {
    sparse: sparseGrad + rows * (12 * outputs + 8),
    dense: SPEC.features * outputs * 4 * 4,
  };
  const ratio = d.medianMs / s.medianMs;
  const c = typeof native === 'string' ? native : native(outputs);
  const nativeText =
    typeof c === 'string'
      ? `native C floor skipped: ${c}`
      : `native C (1 thread): sparse ${c.sparseMs.toFixed(3)} ms, dense ${c.denseMs.toFixed(3)} ms = ${(c.denseMs / c.sparseMs).toFixed(1)}x, dense / forward gather ${(c.denseMs / c.forwardMs).toFixed(1)}x`;
  report.add(
    `sparse-linear-step-${outputs === 1 ? 'binary' : `${outputs}-labels`}`,
    { features: SPEC.features, outputs, batch: BATCH, nnzPerRow: SPEC.nnzPerRow, path: 'sparse+lazy' },
    s,
    {
      ...(outputs === 1 ? { target: '>= 20x faster than the dense path (same run)' } : {}),
      extra: {
        bytesTouched: bytes.sparse,
        gradientRows: rows,
        dense: { medianMs: d.medianMs, bytesTouched: bytes.dense },
        ratio,
        nativeC:
          typeof c === 'string'
            ? { skipped: c }
            : { ...c, ratio: c.denseMs / c.sparseMs, denseOverForward: c.denseMs / c.forwardMs },
      },
    },
    `sparse ${s.medianMs.toFixed(3)} ms/step, ${(bytes.sparse / 1e6).toFixed(2)} MB touched (${rows} gradient rows); ` +
      `dense ${d.medianMs.toFixed(3)} ms/step, ${(bytes.dense / 1e6).toFixed(1)} MB; ` +
      `sparse ${ratio.toFixed(1)}x faster, ${(bytes.dense / bytes.sparse).toFixed(0)}x fewer bytes; ${nativeText}`,
  );
  for (const m of models) m.dispose();
  for (const y of ys) y.dispose();
}
for (const x of xs) x.dispose();
await rt.dispose();
console.log(`wrote ${writeReport('example-sparse-linear', report.results)}`);
