/**
 * The README's main job: MXNet's LeNet written with Gluon, hybridized, and trained on the embedded
 * MNIST subset (7,000 training and 1,000 validation images) the way an MXNet user writes it —
 * `DataLoader` over `vision.MNIST` with `ToTensor`, `SoftmaxCrossEntropyLoss`, `Trainer('sgd')`,
 * `metric.Accuracy` — with a progress bar and validation accuracy per epoch. It then exports
 * `lenet-symbol.json` + `lenet-0010.params` (files MXNet itself loads) and re-imports them with
 * `SymbolBlock.imports` to show the same accuracy.
 *
 * `MX_EPOCHS` overrides the epoch count; `MX_OUT` the output directory (default: examples/gluon-lenet/out).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as mx from '@mx/mxnet';
import cliProgress from 'cli-progress';

const EPOCHS = Number(process.env.MX_EPOCHS ?? 10);
const BATCH = 64;
const OUT = process.env.MX_OUT ?? fileURLToPath(new URL('../out/', import.meta.url));
const { nn, data, loss, metric, Trainer } = mx.gluon;
type NDArray = mx.NDArray;

mx.random.seed(42);

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
const trainSet = new data.vision.MNIST({ train: true }).transformFirst(toTensor);
const valSet = new data.vision.MNIST({ train: false }).transformFirst(toTensor);
const rt = mx.runtime();
const train = new data.DataLoader<[NDArray, NDArray]>(rt, trainSet, {
  batchSize: BATCH,
  shuffle: true,
  seed: 7,
  lastBatch: 'discard',
});
const val = new data.DataLoader<[NDArray, NDArray]>(rt, valSet, { batchSize: 100 });

const net = new LeNet();
net.initialize(new mx.init.Xavier());
net.hybridize({ staticAlloc: true, staticShape: true });
const lossFn = new loss.SoftmaxCrossEntropyLoss();
const trainer = new Trainer(net.collectParams(), 'sgd', { learningRate: 0.02, momentum: 0.9, wd: 1e-4 });

/** Validation accuracy of any block (the trained net, or the re-imported files). */
async function evaluate(model: { forward(x: NDArray): unknown }): Promise<number> {
  const acc = new metric.Accuracy();
  for (const [x, y] of val) {
    await mx.nd.scope(async () => {
      await acc.update([y], [model.forward(x) as NDArray]);
      x.dispose();
      y.dispose();
    });
  }
  return acc.get()[1] as number;
}

const perEpoch = Math.floor(trainSet.length / BATCH) * BATCH;
console.log(
  `Gluon LeNet (hybridized) on the embedded MNIST subset: ${perEpoch} training images per epoch, batch ${BATCH}, ${EPOCHS} epochs, cpu-wasm`,
);
const bar = new cliProgress.SingleBar(
  {
    format: 'epoch {epoch} |{bar}| {value}/{total} images | loss {loss} | acc {acc} | {speed} img/s',
    noTTYOutput: true,
    notTTYSchedule: 5000,
    hideCursor: true,
  },
  cliProgress.Presets.shades_classic,
);
const started = performance.now();
const trainAcc = new metric.Accuracy();
let valAcc = 0;
for (let epoch = 1; epoch <= EPOCHS; epoch++) {
  trainAcc.reset();
  bar.start(perEpoch, 0, { epoch, loss: '-', acc: '-', speed: '-' });
  const t0 = performance.now();
  let seen = 0;
  let lossSum = 0;
  for (const [x, y] of train) {
    await mx.nd.scope(async () => {
      const [out, l] = mx.autograd.record(() => {
        const o = net.forward(x);
        return [o, lossFn.forward(o, y)] as const;
      });
      l.backward();
      trainer.step(BATCH);
      await trainAcc.update([y], [out]);
      lossSum += ((await mx.nd.mean(l).data()) as Float32Array)[0] as number;
      x.dispose();
      y.dispose();
    });
    seen += BATCH;
    const secs = (performance.now() - t0) / 1000;
    bar.update(seen, {
      epoch,
      loss: (lossSum / (seen / BATCH)).toFixed(4),
      acc: (trainAcc.get()[1] as number).toFixed(4),
      speed: Math.round(seen / secs),
    });
  }
  bar.stop();
  valAcc = await evaluate(net);
  console.log(
    `epoch ${epoch}: mean loss ${(lossSum / (seen / BATCH)).toFixed(4)}, training accuracy ${((trainAcc.get()[1] as number) * 100).toFixed(2)}%, validation accuracy ${(valAcc * 100).toFixed(2)}%`,
  );
}
const seconds = (performance.now() - started) / 1000;
console.log(
  `validation accuracy ${(valAcc * 100).toFixed(2)}% after ${EPOCHS} epochs in ${seconds.toFixed(1)} s`,
);

mkdirSync(OUT, { recursive: true });
const { symbolFile, paramsFile } = await net.export(join(OUT, 'lenet'), EPOCHS);
console.log(`exported ${symbolFile} and ${paramsFile}`);
const again = await mx.gluon.SymbolBlock.imports(symbolFile, ['data'], paramsFile, { runtime: rt });
const againAcc = await evaluate(again);
console.log(`re-imported with SymbolBlock.imports: validation accuracy ${(againAcc * 100).toFixed(2)}%`);

train.dispose?.();
val.dispose?.();
await mx.shutdown();
if (valAcc < 0.98 || againAcc !== valAcc) {
  console.error(
    valAcc < 0.98
      ? 'validation accuracy is below the 98% target'
      : 'the re-imported model does not reproduce the accuracy',
  );
  process.exitCode = 1;
}
