/**
 * Data-parallel training of MXNet's LeNet (Gluon, hybridized) over a `dist_sync` KVStore, started
 * by `mx-launch -n 2 -s 2 --launcher local tsx src/train.ts` (`pnpm start` here): every process
 * runs this script; in the scheduler and the servers `mx.kv.create('dist_sync')` joins the job as
 * its DMLC_ROLE says and serves until the workers finish (MXNet's servers do the same on import).
 * Each worker trains on its shard of the embedded MNIST subset (`Dataset.shard(numWorkers, rank)`);
 * the Trainer pushes gradients and pulls weights that the servers update with the optimizer
 * (`updateOnKvstore`). Rank 0 reports samples/s over all workers, the time to 98% validation
 * accuracy, and the final accuracy.
 *
 * `MX_EPOCHS` overrides the epoch count (default 10).
 */
import * as mx from '@mx/mxnet';

const EPOCHS = Number(process.env.MX_EPOCHS ?? 10);
const BATCH = 64;
const TARGET = 0.98;
const { nn, data, loss, metric, Trainer } = mx.gluon;
type NDArray = mx.NDArray;

const kv = await mx.kv.create('dist_sync');
const { rank, numWorkers } = kv;
mx.random.seed(42); // the same initial weights everywhere (rank 0's are the ones the servers keep)

/** MXNet's LeNet (example/image-classification/symbols/lenet.py) as a HybridBlock. */
class LeNet extends nn.HybridBlock {
  conv1 = new nn.Conv2D(20, 5, { activation: 'tanh' });
  pool1 = new nn.MaxPool2D(2, { strides: 2 });
  conv2 = new nn.Conv2D(50, 5, { activation: 'tanh' });
  pool2 = new nn.MaxPool2D(2, { strides: 2 });
  fc1 = new nn.Dense(500, { activation: 'tanh' });
  fc2 = new nn.Dense(10);

  forward(x: NDArray): NDArray {
    const h = this.pool2.forward(this.conv2.forward(this.pool1.forward(this.conv1.forward(x))));
    return this.fc2.forward(this.fc1.forward(h));
  }
}

const toTensor = new data.vision.transforms.ToTensor();
const rt = mx.runtime();
const trainSet = new data.vision.MNIST({ train: true }).shard(numWorkers, rank).transformFirst(toTensor);
const train = new data.DataLoader<[NDArray, NDArray]>(rt, trainSet, {
  batchSize: BATCH,
  shuffle: true,
  seed: 7 + rank,
  lastBatch: 'discard',
});
const val = new data.DataLoader<[NDArray, NDArray]>(
  rt,
  new data.vision.MNIST({ train: false }).transformFirst(toTensor),
  { batchSize: 100 },
);

const net = new LeNet();
net.initialize(new mx.init.Xavier());
net.hybridize({ staticAlloc: true, staticShape: true });
const lossFn = new loss.SoftmaxCrossEntropyLoss();
// The servers sum numWorkers gradients of BATCH samples each: rescale by the global batch.
const trainer = new Trainer(
  net.collectParams(),
  'sgd',
  { learningRate: 0.02, momentum: 0.9, wd: 1e-4 },
  { kvstore: kv },
);

async function evaluate(): Promise<number> {
  const acc = new metric.Accuracy();
  for (const [x, y] of val) {
    await mx.nd.scope(async () => {
      await acc.update([y], [net.forward(x)]);
      x.dispose();
      y.dispose();
    });
  }
  return acc.get()[1] as number;
}

const log = (s: string) => console.log(`rank ${rank}/${numWorkers}: ${s}`);
log(`${trainSet.length} training images in this shard, batch ${BATCH}, ${EPOCHS} epochs, cpu-wasm`);
const started = performance.now();
let trainSeconds = 0;
let samples = 0;
let reached: number | undefined;
let valAcc = 0;
for (let epoch = 1; epoch <= EPOCHS; epoch++) {
  const t0 = performance.now();
  for (const [x, y] of train) {
    mx.nd.scope(() => {
      const l = mx.autograd.record(() => lossFn.forward(net.forward(x), y));
      l.backward();
      trainer.step(BATCH * numWorkers);
      x.dispose();
      y.dispose();
    });
    samples += BATCH;
  }
  await mx.waitall();
  trainSeconds += (performance.now() - t0) / 1000;
  valAcc = await evaluate();
  const elapsed = (performance.now() - started) / 1000;
  if (reached === undefined && valAcc >= TARGET) reached = elapsed;
  log(`epoch ${epoch}: validation accuracy ${(valAcc * 100).toFixed(2)}% at ${elapsed.toFixed(1)} s`);
}
await kv.barrier();
log(
  `${Math.round(samples / trainSeconds)} samples/s on this worker (${Math.round((samples * numWorkers) / trainSeconds)} across ${numWorkers}); ` +
    `${TARGET * 100}% validation accuracy ${reached === undefined ? 'not reached' : `after ${reached.toFixed(1)} s`}; final ${(valAcc * 100).toFixed(2)}%`,
);
train.dispose?.();
val.dispose?.();
kv.dispose();
await mx.shutdown();
if (valAcc < TARGET) process.exitCode = 1;
