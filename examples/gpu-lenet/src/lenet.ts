/**
 * What main.ts and compare.ts share: MXNet's LeNet (example/image-classification/symbols/lenet.py,
 * the network of examples/gluon-lenet) and the embedded MNIST idx files, read directly from the
 * repository (packages/io/data/mnist, found by walking up from this file) so that the scripts also
 * run as bundles on a GPU machine without the workspace.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import * as mx from '@mx/mxnet';

const { nn } = mx.gluon;
type NDArray = mx.NDArray;

/** MXNet's LeNet as a HybridBlock. */
export class LeNet extends nn.HybridBlock {
  conv1: mx.gluon.nn.Conv2D = new nn.Conv2D(20, 5, { activation: 'tanh' });
  pool1: mx.gluon.nn.MaxPool2D = new nn.MaxPool2D(2, { strides: 2 });
  conv2: mx.gluon.nn.Conv2D = new nn.Conv2D(50, 5, { activation: 'tanh' });
  pool2: mx.gluon.nn.MaxPool2D = new nn.MaxPool2D(2, { strides: 2 });
  fc1: mx.gluon.nn.Dense = new nn.Dense(500, { activation: 'tanh' });
  fc2: mx.gluon.nn.Dense = new nn.Dense(10);

  forward(x: NDArray): NDArray {
    const h = this.pool2.forward(this.conv2.forward(this.pool1.forward(this.conv1.forward(x))));
    return this.fc2.forward(this.fc1.forward(h));
  }
}

/** An embedded idx file's values: images scaled to [0, 1] (784 per image), or labels. */
export function mnist(name: string, images: boolean): Float32Array {
  for (let d = dirname(fileURLToPath(import.meta.url)); d !== dirname(d); d = dirname(d)) {
    const file = join(d, 'packages', 'io', 'data', 'mnist', name);
    if (!existsSync(file)) continue;
    const raw = gunzipSync(readFileSync(file));
    return Float32Array.from(raw.subarray(images ? 16 : 8), (v) => (images ? v / 255 : v));
  }
  throw new Error(`${name}: packages/io/data/mnist not found above this script`);
}
