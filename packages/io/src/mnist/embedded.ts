/**
 * The MNIST subset shipped with the package (data/mnist: 7,000 training and 1,000 validation
 * images, gzip-compressed IDX files as distributed), so examples and tests train on real digits
 * without a download. The files are found from this module's own location, which works from the
 * source tree (src/mnist/) and from the published build (dist/): we walk up to the package root.
 */
import { MXNetError } from '@mx/base';
import { nodeModule } from '../host.js';
import type { NdLike } from '../runtime-of.js';
import { MNISTIter, type MNISTIterParams } from './mnist-iter.js';

export interface EmbeddedMnist {
  /** Absolute path of the package's data/mnist folder. */
  readonly dir: string;
  readonly trainImages: string;
  readonly trainLabels: string;
  readonly valImages: string;
  readonly valLabels: string;
  readonly trainCount: 7000;
  readonly valCount: 1000;
}

const FILES = {
  trainImages: 'train-images-idx3-ubyte.gz',
  trainLabels: 'train-labels-idx1-ubyte.gz',
  valImages: 'val-images-idx3-ubyte.gz',
  valLabels: 'val-labels-idx1-ubyte.gz',
} as const;

let cached: EmbeddedMnist | undefined;

/** Paths of the embedded MNIST files (Node). */
export function embeddedMnist(): EmbeddedMnist {
  if (cached) return cached;
  const hint = 'the embedded files need Node.js; elsewhere pass the IDX bytes to MNISTIter';
  const fs = nodeModule('node:fs', 'embeddedMnist', hint);
  const path = nodeModule('node:path', 'embeddedMnist', hint);
  const url = nodeModule('node:url', 'embeddedMnist', hint);
  const here = path.dirname(url.fileURLToPath(import.meta.url));
  for (let dir = here, up = 0; up < 5; up++, dir = path.dirname(dir)) {
    const data = path.join(dir, 'data', 'mnist');
    if (fs.existsSync(path.join(data, FILES.trainImages))) {
      cached = {
        dir: data,
        trainImages: path.join(data, FILES.trainImages),
        trainLabels: path.join(data, FILES.trainLabels),
        valImages: path.join(data, FILES.valImages),
        valLabels: path.join(data, FILES.valLabels),
        trainCount: 7000,
        valCount: 1000,
      };
      return cached;
    }
  }
  throw new MXNetError(`cannot find @mx/io's data/mnist folder above ${here}`, {
    op: 'embeddedMnist',
    hint: 'the package was bundled without its data folder: copy node_modules/@mx/io/data next to the bundle, or pass the files to MNISTIter',
  });
}

/** Options of the embedded-set helpers: MNISTIter's, without the files. */
export type EmbeddedMnistParams = Omit<MNISTIterParams, 'image' | 'label'>;

/** MNISTIter over the 7,000 embedded training images (MNISTIter's defaults: shuffled, batch 128). */
export function mnistTrainIter(runtime: NdLike, params: EmbeddedMnistParams = {}): MNISTIter {
  const files = embeddedMnist();
  return new MNISTIter(runtime, {
    silent: true,
    ...params,
    image: files.trainImages,
    label: files.trainLabels,
  });
}

/** MNISTIter over the 1,000 embedded validation images (not shuffled unless asked). */
export function mnistValIter(runtime: NdLike, params: EmbeddedMnistParams = {}): MNISTIter {
  const files = embeddedMnist();
  return new MNISTIter(runtime, {
    silent: true,
    shuffle: false,
    ...params,
    image: files.valImages,
    label: files.valLabels,
  });
}
