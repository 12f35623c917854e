/**
 * A small MLP (784-128-10) trained with plain autograd and the fused `sgd_update` op on the
 * embedded MNIST subset — the smallest complete training loop in @mx, with nothing but NDArrays:
 * parameters are arrays with `attachGrad()`, the loss is recorded with `autograd.record`,
 * `backward()` fills `.grad`, and `sgd_update` writes each weight in place (`out: w`).
 *
 * Run: `pnpm --filter @mx/example-mlp-autograd start` (prints the mean loss of each epoch; it goes
 * down).
 */
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { mnistTrainIter } from '@mx/io';
import { createRuntime, type NDArray } from '@mx/ndarray';

const rt = createRuntime({ backends: [new CpuWasmBackend()], seed: 1 });
const { nd, autograd } = rt;

const w1 = nd._random_normal({ shape: [128, 784], loc: 0, scale: 0.05 }).attachGrad();
const b1 = nd.zeros([128]).attachGrad();
const w2 = nd._random_normal({ shape: [10, 128], loc: 0, scale: 0.05 }).attachGrad();
const b2 = nd.zeros([10]).attachGrad();
const params = [w1, b1, w2, b2];

function loss(x: NDArray, label: NDArray): NDArray {
  const h = nd.Activation(nd.FullyConnected(x, w1, b1, { num_hidden: 128 }), { act_type: 'relu' });
  const logits = nd.FullyConnected(h, w2, b2, { num_hidden: 10 });
  return nd.negative(nd.mean(nd.pick(nd.log_softmax(logits), label)));
}

const train = mnistTrainIter(rt, { batch_size: 100, flat: true, shuffle: true, seed: 3 });
for (let epoch = 1; epoch <= 5; epoch++) {
  train.reset();
  let sum = 0;
  let n = 0;
  for (const batch of train) {
    sum += nd.scopeSync(() => {
      const l = autograd.record(() => loss(batch.data[0] as NDArray, batch.label[0] as NDArray));
      l.backward();
      for (const w of params) nd.sgd_update(w, w.grad as NDArray, { lr: 0.1, out: w });
      return (l.dataSync() as Float32Array)[0] as number;
    });
    n++;
    batch.dispose();
  }
  console.log(`epoch ${epoch}: mean loss ${(sum / n).toFixed(4)}`);
}
train.dispose();
await rt.dispose();
