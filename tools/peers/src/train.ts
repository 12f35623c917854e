/**
 * Training-step workloads for TensorFlow.js, as in ../shared/reference/scripts/tfjs_bench.mjs:
 * one SGD step (forward, backward through `optimizer.minimize`, update, loss read back) of an
 * MLP 784-512-512-10 at batch 128 and of LeNet-5 (NHWC, tfjs's native layout) at batch 64.
 * tfjs-wasm cannot run the LeNet step (no Conv2DBackpropFilter kernel): the workload throws then.
 */
import type * as TF from '@tensorflow/tfjs-core';
import type { Tfjs, Workload } from './tfjs.js';

type T4 = TF.Tensor4D;

const labels = (tf: Tfjs, n: number) =>
  tf.cast(
    tf.oneHot(
      tf.tensor1d(
        Array.from({ length: n }, (_, i) => i % 10),
        'int32',
      ),
      10,
    ),
    'float32',
  );

/** One MLP 784-512-512-10 training step at batch 128. */
export function mlpTrainStep(tf: Tfjs): Workload {
  const g = (s: number[]) => tf.variable(tf.randomNormal(s, 0, 0.05, 'float32', 7));
  const p = {
    w1: g([784, 512]),
    b1: tf.variable(tf.zeros([512])),
    w2: g([512, 512]),
    b2: tf.variable(tf.zeros([512])),
    w3: g([512, 10]),
    b3: tf.variable(tf.zeros([10])),
  };
  const x = tf.randomUniform([128, 784], -1, 1, 'float32', 42);
  const y = labels(tf, 128);
  const opt = tf.train.sgd(0.01);
  return {
    run: () => {
      const loss = opt.minimize(() => {
        const h1 = tf.relu(tf.add(tf.matMul(x, p.w1), p.b1));
        const h2 = tf.relu(tf.add(tf.matMul(h1, p.w2), p.b2));
        return tf.losses.softmaxCrossEntropy(y, tf.add(tf.matMul(h2, p.w3), p.b3)) as ReturnType<
          Tfjs['scalar']
        >;
      }, true);
      loss?.dataSync();
      loss?.dispose();
    },
    dispose: () => {
      for (const v of Object.values(p)) v.dispose();
      x.dispose();
      y.dispose();
      opt.dispose();
    },
  };
}

/** One LeNet-5 training step (28×28×1 input, batch 64). */
export function lenetTrainStep(tf: Tfjs): Workload {
  const B = 64;
  const g = (s: number[]) => tf.variable(tf.randomNormal(s, 0, 0.1, 'float32', 3));
  const p = {
    c1: g([5, 5, 1, 6]),
    c1b: tf.variable(tf.zeros([6])),
    c2: g([5, 5, 6, 16]),
    c2b: tf.variable(tf.zeros([16])),
    f1: g([400, 120]),
    f1b: tf.variable(tf.zeros([120])),
    f2: g([120, 84]),
    f2b: tf.variable(tf.zeros([84])),
    f3: g([84, 10]),
    f3b: tf.variable(tf.zeros([10])),
  };
  const x = tf.randomUniform([B, 28, 28, 1], -1, 1, 'float32', 42) as T4;
  const y = labels(tf, B);
  const opt = tf.train.sgd(0.01);
  return {
    run: () => {
      const loss = opt.minimize(() => {
        let h = tf.relu(tf.add(tf.conv2d(x, p.c1 as unknown as T4, 1, 'same'), p.c1b)) as T4;
        h = tf.maxPool(h, 2, 2, 'valid');
        h = tf.relu(tf.add(tf.conv2d(h, p.c2 as unknown as T4, 1, 'valid'), p.c2b)) as T4;
        h = tf.maxPool(h, 2, 2, 'valid');
        let f = tf.reshape(h, [B, 400]);
        f = tf.relu(tf.add(tf.matMul(f, p.f1), p.f1b));
        f = tf.relu(tf.add(tf.matMul(f, p.f2), p.f2b));
        return tf.losses.softmaxCrossEntropy(y, tf.add(tf.matMul(f, p.f3), p.f3b)) as ReturnType<
          Tfjs['scalar']
        >;
      }, true);
      loss?.dataSync();
      loss?.dispose();
    },
    dispose: () => {
      for (const v of Object.values(p)) v.dispose();
      x.dispose();
      y.dispose();
      opt.dispose();
    },
  };
}
