/**
 * Convolution workloads on TensorFlow.js, shaped like ../shared/reference/scripts/tfjs_bench.mjs's
 * `conv` row: NHWC (tfjs's native layout) `conv2d` with 'same' or 'valid' padding, read back with
 * `dataSync`, so @mx's conv benchmark reports a ratio measured in the same process.
 */
import type { Tensor4D } from '@tensorflow/tfjs-core';
import type { Tfjs, Workload } from './tfjs.js';

export interface Conv2dShape {
  readonly batch: number;
  readonly height: number;
  readonly width: number;
  readonly inChannels: number;
  readonly outChannels: number;
  readonly kernel: number;
  readonly padding: 'same' | 'valid';
}

/** One conv2d (stride 1) plus readback per repetition. */
export function conv2d(tf: Tfjs, s: Conv2dShape): Workload {
  const x = tf.randomUniform([s.batch, s.height, s.width, s.inChannels], -1, 1, 'float32', 42) as Tensor4D;
  const w = tf.randomUniform(
    [s.kernel, s.kernel, s.inChannels, s.outChannels],
    -1,
    1,
    'float32',
    43,
  ) as Tensor4D;
  return {
    run: () => {
      const y = tf.conv2d(x, w, 1, s.padding, 'NHWC');
      y.dataSync();
      y.dispose();
    },
    dispose: () => {
      x.dispose();
      w.dispose();
    },
  };
}
