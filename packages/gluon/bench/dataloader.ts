/**
 * Benchmark 2: the DataLoader on the embedded MNIST training subset (7,000 images) with ToTensor,
 * batch 128, a seeded shuffle, with `numWorkers: 0` (the calling thread) and 2 (worker threads):
 * (a) batches/s over whole epochs, each batch read back (dataSync) and disposed — the first epoch
 * apart (with workers it includes starting the threads, each decoding the dataset, and their cold
 * JIT), later epochs interleaved between the two loaders so a slow phase of the machine hits both;
 * (b) how long a training loop waits for data: one hybridized MLP step per batch (nets.ts's MLP),
 * the time spent awaiting the loader's `next()` against the whole loop. Workers are kept alive
 * between epochs (keepAlive) and disposed at the end so the process exits.
 */
import { fmt, summarize, want } from '@mx/bench-kit';
import { data, Trainer } from '@mx/gluon';
import { NDArray, type Runtime } from '@mx/ndarray';
import type { TfjsWasmReport as Report } from '@mx/peers';
import { gluonLoss, initializedNet } from './nets.js';

const BATCH = 128;
const WORKERS = [0, 2] as const;
/** Timed epochs per loader after the first, for throughput and for the consumer loop. */
const LATER_EPOCHS = 20;
const CONSUMER_EPOCHS = 8;

type Loader = data.DataLoader<[NDArray, NDArray]>;

/** One epoch reading every batch back; returns its length in ms and its batch count. */
async function readEpoch(loader: Loader): Promise<{ ms: number; batches: number }> {
  const t0 = performance.now();
  let batches = 0;
  for await (const [x, y] of loader) {
    x.dataSync();
    x.dispose();
    y.dispose();
    batches++;
  }
  return { ms: performance.now() - t0, batches };
}

/** One epoch of `train` per batch: loop time and the part spent waiting on the loader. */
async function consumeEpoch(
  loader: Loader,
  train: (x: NDArray, y: NDArray) => Promise<void>,
): Promise<{ loopMs: number; waitMs: number; batches: number }> {
  const it = loader[Symbol.asyncIterator]();
  const t0 = performance.now();
  let waitMs = 0;
  let batches = 0;
  for (;;) {
    const w0 = performance.now();
    const r = await it.next();
    waitMs += performance.now() - w0;
    if (r.done === true) break;
    const [x, y] = r.value;
    await train(x, y);
    x.dispose();
    y.dispose();
    batches++;
  }
  return { loopMs: performance.now() - t0, waitMs, batches };
}

/** A hybridized MLP 784-512-512-10 training step on MNIST batches (the light consumer). */
function mlpConsumer(rt: Runtime, sample: NDArray): (x: NDArray, y: NDArray) => Promise<void> {
  const { nd, autograd } = rt;
  const net = initializedNet(nd, 'mlp', sample);
  net.hybridize({ staticAlloc: true, staticShape: true });
  const lossFn = gluonLoss();
  const trainer = new Trainer(net.collectParams(), 'sgd', { learningRate: 0.05, momentum: 0.9 });
  return async (x, y) => {
    nd.scopeSync(() => {
      const l = autograd.record(() => lossFn.forward(net.forward(x) as NDArray, y));
      l.backward();
      trainer.step(x.shape[0] as number);
    });
    await nd.waitall();
  };
}

const PARAMS = {
  dataset: 'vision.MNIST({ train: true }) (embedded 7,000-image subset), transformFirst(ToTensor)',
  batchSize: BATCH,
  shuffle: true,
  seed: 7,
  lastBatch: 'discard',
};

export async function dataloaderBench(rt: Runtime, report: Report): Promise<void> {
  if (!want('dataloader')) return;
  const { vision } = data;
  const dataset = new vision.MNIST({ train: true }).transformFirst(new vision.transforms.ToTensor());
  // Decode the embedded file on this thread before timing (workers decode their own copies).
  // Samples are host arrays here ({ data, shape, dtype }), NDArrays with other transforms.
  const [image] = dataset.get(0) as [{ readonly shape: readonly number[] }, unknown];
  const imageShape = [...image.shape];
  if (image instanceof NDArray) image.dispose();
  const loaders: Loader[] = WORKERS.map(
    (numWorkers) =>
      new data.DataLoader<[NDArray, NDArray]>(rt, dataset, {
        batchSize: BATCH,
        shuffle: true,
        seed: 7,
        lastBatch: 'discard',
        numWorkers,
        keepAlive: 120,
      }),
  );
  try {
    // (a) Throughput: first epochs, then later epochs in turns.
    const first = [];
    for (const l of loaders) first.push(await readEpoch(l));
    const later: number[][] = loaders.map(() => []);
    for (let e = 0; e < LATER_EPOCHS; e++) {
      for (const [i, l] of loaders.entries()) (later[i] as number[]).push((await readEpoch(l)).ms);
    }
    const perEpoch = loaders[0]?.length ?? 0;
    const steadyBps: number[] = [];
    for (const [i, workers] of WORKERS.entries()) {
      const f = first[i] as { ms: number; batches: number };
      const s = summarize(later[i] as number[]);
      const bps = (perEpoch * 1000) / s.medianMs;
      steadyBps.push(bps);
      const firstBps = (f.batches * 1000) / f.ms;
      report.add(
        `dataloader.mnist.b${BATCH}.workers${workers}`,
        { ...PARAMS, numWorkers: workers, batchesPerEpoch: perEpoch, consumer: 'x.dataSync(), dispose' },
        s,
        {
          rate: { value: bps, unit: 'batches/s' },
          extra: {
            firstEpochMs: f.ms,
            firstEpochBatchesPerS: firstBps,
            laterEpochs: LATER_EPOCHS,
            laterEpochMedianMs: s.medianMs,
            laterEpochBatchesPerS: bps,
            ...(i > 0 ? { speedupOverWorkers0: bps / (steadyBps[0] as number) } : {}),
          },
        },
        `${fmt(bps, 1)} batches/s over later epochs (median of ${LATER_EPOCHS}), first epoch ${fmt(firstBps, 1)} batches/s`,
      );
    }

    // (b) A training loop: time waiting for data against the whole loop, epochs in turns.
    const shaped = rt.nd.zeros([BATCH, ...imageShape]);
    const train = mlpConsumer(rt, shaped);
    shaped.dispose();
    for (const l of loaders) await consumeEpoch(l, train); // warm: trace the CachedOp, JIT
    const runs: { loopMs: number; waitMs: number; batches: number }[][] = loaders.map(() => []);
    for (let e = 0; e < CONSUMER_EPOCHS; e++) {
      for (const [i, l] of loaders.entries()) runs[i]?.push(await consumeEpoch(l, train));
    }
    for (const [i, workers] of WORKERS.entries()) {
      const r = runs[i] as { loopMs: number; waitMs: number; batches: number }[];
      const loop = summarize(r.map((x) => x.loopMs));
      const wait = summarize(r.map((x) => x.waitMs));
      const frac = summarize(r.map((x) => x.waitMs / x.loopMs));
      report.add(
        `dataloader.mnist.b${BATCH}.workers${workers}.training_loop`,
        {
          ...PARAMS,
          numWorkers: workers,
          consumer:
            'one hybridized Gluon MLP 784-512-512-10 step per batch (sgd momentum), await nd.waitall()',
        },
        loop,
        {
          rate: { value: (perEpoch * 1000) / loop.medianMs, unit: 'steps/s' },
          extra: {
            epochs: CONSUMER_EPOCHS,
            loopMsPerEpoch: loop.medianMs,
            waitMsPerEpoch: wait.medianMs,
            waitFraction: frac.medianMs,
            computeMsPerStep: (loop.medianMs - wait.medianMs) / perEpoch,
          },
        },
        `epoch loop ${fmt(loop.medianMs, 0)} ms, of which waiting for data ${fmt(wait.medianMs, 0)} ms (${fmt(frac.medianMs * 100, 1)}%)`,
      );
    }
  } finally {
    for (const l of loaders) await l.dispose();
  }
}
