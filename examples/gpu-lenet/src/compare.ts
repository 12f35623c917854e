/**
 * The same training on cpu(0) and gpu(0), step by step: main.ts's LeNet starts from one set of
 * weights (initialized on the CPU, saved with `saveParameters`, loaded on both devices), both
 * trainers see the same batches, and every step prints the two losses and their relative
 * difference; at the end, the largest weight difference. Float32 reductions run in another order
 * on the GPU, so the curves drift apart slowly; a kernel bug makes them part at once. Exits 1 when
 * the first 20 steps differ by more than 1e-3 (relative). Skips (exit 0) without a CUDA device.
 *
 * `MX_STEPS` sets the steps (default 200).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCudaBackend } from '@mx/cuda-native';
import * as mx from '@mx/mxnet';
import { LeNet, mnist } from './lenet.js';

const STEPS = Number(process.env.MX_STEPS ?? 200);
const BATCH = 64;
const { loss, Trainer } = mx.gluon;

// MX_CTX=cpu compares cpu(0) with itself: a check of this script (every difference must be 0).
const self = process.env.MX_CTX === 'cpu';
if (!self) {
  try {
    mx.useBackend(await createCudaBackend());
  } catch (e) {
    console.log(`gpu-lenet compare skipped: ${(e as Error).message.split('\n')[0]}`);
    process.exit(0);
  }
}
const { nd, autograd } = mx;

const images = mnist('train-images-idx3-ubyte.gz', true);
const labels = mnist('train-labels-idx1-ubyte.gz', false);

const devices = [mx.cpu(0), self ? mx.cpu(0) : mx.gpu(0)] as const;
const file = join(mkdtempSync(join(tmpdir(), 'mx-compare-')), 'lenet.params');
const nets = devices.map(() => new LeNet());
mx.random.seed(42);
(nets[0] as LeNet).initialize(new mx.init.Xavier(), { ctx: devices[0] });
const probe = nd.zeros([1, 1, 28, 28]);
(nets[0] as LeNet).forward(probe); // completes the deferred shapes
await (nets[0] as LeNet).saveParameters(file);
await (nets[1] as LeNet).loadParameters(file, { ctx: devices[1], runtime: mx.runtime() });
const lossFn = new loss.SoftmaxCrossEntropyLoss();
const trainers = nets.map((n) => {
  n.hybridize({ staticAlloc: true, staticShape: true });
  return new Trainer(n.collectParams(), 'sgd', { learningRate: 0.02, momentum: 0.9, wd: 1e-4 });
});

let worstEarly = 0;
for (let step = 0; step < STEPS; step++) {
  const first = (step * BATCH) % (labels.length - BATCH);
  const x = nd.array(images.subarray(first * 784, (first + BATCH) * 784), { shape: [BATCH, 1, 28, 28] });
  const y = nd.array(labels.subarray(first, first + BATCH), { shape: [BATCH] });
  const losses: number[] = [];
  for (const [i, net] of nets.entries()) {
    const ctx = devices[i] as mx.Context;
    const value = await nd.scope(async () => {
      const [xs, ys] = [x.copyTo(ctx), y.copyTo(ctx)];
      const l = autograd.record(() => lossFn.forward(net.forward(xs), ys));
      l.backward();
      (trainers[i] as InstanceType<typeof Trainer>).step(BATCH);
      return ((await nd.mean(l).data()) as Float32Array)[0] as number;
    });
    losses.push(value);
  }
  x.dispose();
  y.dispose();
  const [c, g] = losses as [number, number];
  const rel = Math.abs(c - g) / Math.max(Math.abs(c), 1e-6);
  if (step < 20) worstEarly = Math.max(worstEarly, rel);
  if (step < 5 || step % 20 === 19)
    console.log(`step ${step + 1}: loss cpu ${c.toFixed(6)} gpu ${g.toFixed(6)} rel ${rel.toExponential(2)}`);
}
let worstWeight = 0;
const gpuParams = (nets[1] as LeNet).collectParams();
for (const [name, p] of (nets[0] as LeNet).collectParams()) {
  const a = (await p.data().data()) as Float32Array;
  const b = (await (gpuParams.get(name) as typeof p).data().data()) as Float32Array;
  for (let i = 0; i < a.length; i++)
    worstWeight = Math.max(worstWeight, Math.abs((a[i] as number) - (b[i] as number)));
}
console.log(`first 20 steps: largest relative loss difference ${worstEarly.toExponential(2)}`);
console.log(`after ${STEPS} steps: largest weight difference ${worstWeight.toExponential(2)}`);
await mx.shutdown();
process.exit(worstEarly <= 1e-3 ? 0 : 1);
