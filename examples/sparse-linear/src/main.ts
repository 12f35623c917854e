/**
 * A sparse linear classifier on a LibSVM file (MXNet's example/sparse/linear_classification, in
 * TypeScript): 1,000,000 features, 100 nonzeros per row, batches of 256 read by `LibSVMIter` as
 * CSRNDArrays. The same logistic-regression model trains twice — with a row_sparse gradient and
 * lazy SGD updates, then with a dense gradient and standard updates — and the run prints each
 * path's step time, the bytes its gradient holds and its update touches, and the test accuracy.
 * Plain SGD without weight decay gives both paths the same weights; the run checks that too.
 *
 * Run: `pnpm --filter @mx/example-sparse-linear start` (writes its data under out/, ~10 s).
 */
import { fileURLToPath } from 'node:url';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { LibSVMIter } from '@mx/io';
import { type CSRNDArray, createRuntime, type NDArray } from '@mx/ndarray';
import { SPEC, writeLibSVM } from './data.js';
import { type LinearModel, linearModel, type Path } from './model.js';

const BATCH = 256;
const TRAIN_ROWS = 100 * BATCH;
const TEST_ROWS = 20 * BATCH;
const EPOCHS = 5;
const out = (name: string) => fileURLToPath(new URL(`../out/${name}`, import.meta.url));

const trainFile = out('train.libsvm');
const testFile = out('test.libsvm');
const positive = writeLibSVM(trainFile, TRAIN_ROWS, 1);
writeLibSVM(testFile, TEST_ROWS, 2);
console.log(
  `data: ${TRAIN_ROWS} training and ${TEST_ROWS} test rows, ${SPEC.features.toLocaleString('en')} features, ` +
    `${SPEC.nnzPerRow} nonzeros per row, ${(positive * 100).toFixed(1)}% positive`,
);

const rt = createRuntime({ backends: [new CpuWasmBackend()], seed: 1 });
const iter = (file: string) =>
  new LibSVMIter(rt, { data_libsvm: file, data_shape: [SPEC.features], batch_size: BATCH });

async function accuracy(model: LinearModel): Promise<number> {
  const it = iter(testFile);
  let right = 0;
  let seen = 0;
  for (const batch of it) {
    const keep = BATCH - batch.pad;
    const z = (await model.predict(batch.data[0] as CSRNDArray).data()) as Float32Array;
    const y = (await (batch.label[0] as NDArray).data()) as Float32Array;
    for (let i = 0; i < keep; i++) right += (z[i] as number) > 0 === (y[i] as number) > 0.5 ? 1 : 0;
    seen += keep;
    batch.dispose();
  }
  it.dispose();
  return right / seen;
}

interface Run {
  readonly path: Path;
  readonly stepMs: number;
  readonly gradBytes: number;
  readonly updateBytes: number;
  readonly loss: number;
  readonly accuracy: number;
  readonly weights: Float32Array;
}

async function train(path: Path): Promise<Run> {
  const model = linearModel(rt, { features: SPEC.features, path, learningRate: 4, batchSize: BATCH });
  const it = iter(trainFile);
  let stepMs = 0;
  let steps = 0;
  let loss = 0;
  let gradBytes = 0;
  for (let epoch = 0; epoch < EPOCHS; epoch++) {
    it.reset();
    loss = 0;
    for (const batch of it) {
      const y = (batch.label[0] as NDArray).reshape([BATCH, 1]);
      const t0 = performance.now();
      const p = model.step(batch.data[0] as CSRNDArray, y);
      await model.w.waitToRead(); // the update has run: the step is timed to completion
      stepMs += performance.now() - t0;
      steps++;
      // Log loss of the batch's predictions (made before this step's update).
      const prob = (await p.data()) as Float32Array;
      const label = (await y.data()) as Float32Array;
      for (let i = 0; i < BATCH - batch.pad; i++) {
        const q = Math.min(Math.max(prob[i] as number, 1e-7), 1 - 1e-7);
        loss -= (label[i] as number) > 0.5 ? Math.log(q) : Math.log(1 - q);
      }
      gradBytes = Math.max(gradBytes, await model.gradBytes());
      for (const a of [p, y]) a.dispose();
      batch.dispose();
    }
  }
  it.dispose();
  const acc = await accuracy(model);
  const weights = (await model.w.data()) as Float32Array;
  // The update reads the weight and gradient rows and writes the weight rows (4 bytes each), and
  // reads the row indices of a row_sparse gradient.
  const rows = path === 'sparse' ? gradBytes / 12 : SPEC.features;
  const updateBytes = rows * 12 + (path === 'sparse' ? rows * 8 : 0);
  model.dispose();
  return {
    path,
    stepMs: stepMs / steps,
    gradBytes,
    updateBytes,
    loss: loss / TRAIN_ROWS,
    accuracy: acc,
    weights,
  };
}

const runs = [await train('sparse'), await train('dense')];
const mb = (n: number) => `${(n / 1e6).toFixed(2)} MB`;
for (const r of runs) {
  console.log(
    `${r.path.padEnd(6)}: ${r.stepMs.toFixed(2)} ms/step, gradient ${mb(r.gradBytes)}, update touches ${mb(r.updateBytes)}, ` +
      `last-epoch loss ${r.loss.toFixed(4)}, test accuracy ${(r.accuracy * 100).toFixed(2)}%`,
  );
}
const [sparse, dense] = runs as [Run, Run];
let maxDiff = 0;
for (let i = 0; i < sparse.weights.length; i++)
  maxDiff = Math.max(maxDiff, Math.abs((sparse.weights[i] as number) - (dense.weights[i] as number)));
console.log(
  `sparse vs dense: ${(dense.stepMs / sparse.stepMs).toFixed(1)}x faster per step, ` +
    `${(dense.gradBytes / sparse.gradBytes).toFixed(0)}x less gradient memory; max |w_sparse - w_dense| = ${maxDiff.toExponential(2)}`,
);
await rt.dispose();
