/**
 * DataLoader throughput on the embedded MNIST training subset (7,000 images): batches per second
 * with numWorkers 0 (the calling thread) and 2 (worker threads), batch size 128, a seeded shuffle
 * and ToTensor + Normalize per sample. Not part of the package's scripts; run from packages/gluon:
 *
 *   npx tsx bench/dataloader.ts [epochs=3] [workers=2]
 *
 * Each epoch's batches are read back (dataSync) and disposed, so the main thread does the same work
 * in both modes apart from the per-sample transforms and batching that workers take over. The first
 * epoch is reported apart: with workers it includes starting the threads and their cold JIT.
 */
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { DataLoader, vision } from '../src/data/index.js';

const epochs = Number(process.argv[2] ?? 3);
const workers = Number(process.argv[3] ?? 2);
const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 256 })] });
const { transforms } = vision;
const dataset = new vision.MNIST().transformFirst(
  new transforms.Compose([new transforms.ToTensor(), new transforms.Normalize(0.1307, 0.3081)]),
);

/** Batches/s of the first epoch (workers starting cold) and of the next `epochs` (workers kept alive). */
async function run(numWorkers: number): Promise<{ first: number; steady: number }> {
  const loader = new DataLoader<[NDArray, NDArray]>(rt, dataset, {
    batchSize: 128,
    shuffle: true,
    seed: 0,
    numWorkers,
  });
  const epoch = async () => {
    const start = performance.now();
    let batches = 0;
    for await (const [x, y] of loader) {
      x.dataSync();
      x.dispose();
      y.dispose();
      batches++;
    }
    return { batches, ms: performance.now() - start };
  };
  const cold = await epoch();
  let batches = 0;
  let ms = 0;
  for (let e = 0; e < epochs; e++) {
    const r = await epoch();
    batches += r.batches;
    ms += r.ms;
  }
  await loader.dispose();
  return { first: (cold.batches * 1000) / cold.ms, steady: (batches * 1000) / ms };
}

await run(0); // warm-up of the main thread (JIT, wasm compilation)
const single = await run(0);
const threaded = await run(workers);
const f = (x: number) => x.toFixed(1).padStart(7);
console.log(
  `MNIST 7000 images, batch 128, ToTensor + Normalize; first epoch, then ${epochs} epochs (batches/s)`,
);
console.log(`numWorkers 0: first ${f(single.first)}  steady ${f(single.steady)}`);
console.log(`numWorkers ${workers}: first ${f(threaded.first)}  steady ${f(threaded.steady)}`);
await rt.dispose();
