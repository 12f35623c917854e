/**
 * The training loop, with no DOM in it, so the page (main.ts) only fetches data and draws: a
 * 784-128-10 MLP (FullyConnected → relu → FullyConnected), loss = −mean(pick(log_softmax(logits),
 * label)), gradients from autograd's `backward()`, and `sgd_mom_update` writing each weight (and
 * its momentum) in place — every op on `ctx`, which is gpu(0) on WebGPU or cpu(0) on cpu-wasm.
 *
 * Parameters are drawn on cpu(0) with the runtime's seeded generator and copied to `ctx`, so both
 * devices start from the same weights and the init ops need no GPU kernel. Validation accuracy is
 * an argmax of the logits on the host (1,000 × 10 numbers per pass): the page needs no argmax
 * kernel to report it. The loss is read back every step to draw the curve; that read is the only
 * point where the page waits for the device.
 */
import { type Context, cpu } from '@mx/base';
import { MNISTIter } from '@mx/io';
import type { NDArray, Runtime } from '@mx/ndarray';

export interface MnistBytes {
  /** Raw (decompressed) IDX files. */
  readonly trainImages: Uint8Array;
  readonly trainLabels: Uint8Array;
  readonly valImages: Uint8Array;
  readonly valLabels: Uint8Array;
}

export interface TrainOptions {
  readonly epochs: number;
  readonly batchSize: number;
  readonly lr: number;
  readonly momentum: number;
  /** Hidden units (128 as in the other MLP examples). */
  readonly hidden: number;
  /** Stop after this many steps in total (0: no limit). */
  readonly maxSteps: number;
}

export const DEFAULT_OPTIONS: TrainOptions = {
  epochs: 2,
  batchSize: 100,
  lr: 0.05,
  momentum: 0.9,
  hidden: 128,
  maxSteps: 0,
};

export interface Progress {
  readonly epoch: number;
  readonly step: number;
  readonly stepsPerEpoch: number;
  readonly loss: number;
}

export interface EpochResult {
  readonly epoch: number;
  readonly meanLoss: number;
  readonly valAccuracy: number;
  /** Wall time of the epoch's training steps (validation excluded). */
  readonly ms: number;
}

export interface TrainResult {
  readonly losses: readonly number[];
  readonly epochs: readonly EpochResult[];
  /** Accuracy on the 1,000 validation images before training (chance is ~0.1). */
  readonly initialValAccuracy: number;
  readonly steps: number;
  readonly trainMs: number;
}

export interface TrainHooks {
  onStep?(p: Progress): void;
  onEpoch?(e: EpochResult): void;
}

/** Wait for the browser to paint between steps, so the page stays live. */
const yieldToPage = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

export async function trainMlp(
  rt: Runtime,
  ctx: Context,
  data: MnistBytes,
  options: TrainOptions = DEFAULT_OPTIONS,
  hooks: TrainHooks = {},
): Promise<TrainResult> {
  const { nd, autograd } = rt;
  const h = options.hidden;
  const onDevice = (a: NDArray): NDArray => {
    if (a.ctx.toString() === ctx.toString()) return rt.keep(a);
    const moved = rt.keep(a.copyTo(ctx));
    a.dispose();
    return moved;
  };
  const host = cpu(0);
  const w1 = onDevice(nd._random_normal({ shape: [h, 784], loc: 0, scale: 0.05, ctx: host }));
  const b1 = onDevice(nd.zeros([h], { ctx: host }));
  const w2 = onDevice(nd._random_normal({ shape: [10, h], loc: 0, scale: 0.1, ctx: host }));
  const b2 = onDevice(nd.zeros([10], { ctx: host }));
  const params = [w1, b1, w2, b2];
  const moms = params.map((p) => onDevice(nd.zeros(p.shape, { ctx: host })));
  for (const p of params) p.attachGrad();

  const forward = (x: NDArray): NDArray => {
    const hidden = nd.Activation(nd.FullyConnected(x, w1, b1, { num_hidden: h }), { act_type: 'relu' });
    return nd.FullyConnected(hidden, w2, b2, { num_hidden: 10 });
  };
  const lossOf = (x: NDArray, label: NDArray): NDArray =>
    nd.negative(nd.mean(nd.pick(nd.log_softmax(forward(x)), label)));

  const common = { batch_size: options.batchSize, flat: true, silent: true, ctx, scale: 1 / 255 };
  const train = new MNISTIter(rt, {
    ...common,
    image: data.trainImages,
    label: data.trainLabels,
    shuffle: true,
    seed: 7,
  });
  const val = new MNISTIter(rt, { ...common, image: data.valImages, label: data.valLabels, shuffle: false });

  const accuracy = async (): Promise<number> => {
    val.reset();
    let right = 0;
    let seen = 0;
    for (const batch of val) {
      const [logits, labels] = await nd.scope(async () => {
        const out = forward(batch.data[0] as NDArray);
        return [await out.data(), await (batch.label[0] as NDArray).data()] as const;
      });
      batch.dispose();
      for (let i = 0; i < labels.length; i++) {
        let best = 0;
        for (let k = 1; k < 10; k++)
          if ((logits[i * 10 + k] as number) > (logits[i * 10 + best] as number)) best = k;
        if (best === labels[i]) right++;
      }
      seen += labels.length;
    }
    return right / seen;
  };

  const stepsPerEpoch = Math.floor(train.numImages / options.batchSize);
  const losses: number[] = [];
  const epochs: EpochResult[] = [];
  const initialValAccuracy = await accuracy();
  const t0 = performance.now();
  let step = 0;
  try {
    for (let epoch = 1; epoch <= options.epochs; epoch++) {
      train.reset();
      const te = performance.now();
      let sum = 0;
      let n = 0;
      for (const batch of train) {
        if (options.maxSteps > 0 && step >= options.maxSteps) {
          batch.dispose();
          break;
        }
        const loss = await nd.scope(async () => {
          const l = autograd.record(() => lossOf(batch.data[0] as NDArray, batch.label[0] as NDArray));
          l.backward();
          params.forEach((w, i) => {
            nd.sgd_mom_update(w, w.grad as NDArray, moms[i] as NDArray, {
              lr: options.lr,
              momentum: options.momentum,
              out: w,
            });
          });
          return (await l.data())[0] as number;
        });
        batch.dispose();
        step++;
        n++;
        sum += loss;
        losses.push(loss);
        hooks.onStep?.({ epoch, step, stepsPerEpoch, loss });
        await yieldToPage();
      }
      const ms = performance.now() - te;
      const e: EpochResult = { epoch, meanLoss: sum / Math.max(n, 1), valAccuracy: await accuracy(), ms };
      epochs.push(e);
      hooks.onEpoch?.(e);
      if (options.maxSteps > 0 && step >= options.maxSteps) break;
    }
  } finally {
    train.dispose();
    val.dispose();
    for (const a of [...params, ...moms]) a.dispose();
  }
  return { losses, epochs, initialValAccuracy, steps: step, trainMs: performance.now() - t0 };
}
