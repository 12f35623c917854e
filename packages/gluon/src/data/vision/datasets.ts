/**
 * Vision datasets (MXNet python/mxnet/gluon/data/vision/datasets.py): MNIST and FashionMNIST from
 * IDX files, read with @mx/io's checked IDX reader (gzip or not).
 *
 * Samples are `[image, label]` as in MXNet: the image a (28, 28, 1) uint8 host array (MXNet: an
 * NDArray; host data here so that worker threads can share it), the label a number (MXNet: an
 * int32 NumPy scalar; the default batchify stacks numbers as float32).
 *
 * Files: MNIST without `root` is @mx/io's embedded subset (7,000 training, 1,000 validation
 * images, the latter standing in for the 10,000-image test set). With `root`, the files MXNet
 * downloads are read from that folder (`train-…`/`t10k-…-ubyte[.gz]`); nothing is downloaded.
 * FashionMNIST has no embedded copy: its default root is MXNet's, $MXNET_HOME/datasets/fashion-mnist
 * (~/.mxnet/datasets/fashion-mnist). In browsers pass the file bytes as `images` and `labels`.
 */
import { MXNetError, nodeBuiltin } from '@mx/base';
import { embeddedMnist, parseIdx } from '@mx/io';
import type { HostArray } from '@mx/ndarray';
import { ArrayDataset } from '../dataset.js';

export interface MNISTOptions {
  /** Training set (default) or test set. */
  readonly train?: boolean;
  /** Folder holding the IDX files; default: see the class. */
  readonly root?: string;
  /** Image file bytes (instead of `root`). */
  readonly images?: Uint8Array;
  /** Label file bytes (instead of `root`). */
  readonly labels?: Uint8Array;
}

interface NodeFs {
  existsSync(path: string): boolean;
  readFileSync(path: string): Uint8Array;
}

const builtin = <T>(id: string, op: string): T =>
  nodeBuiltin<T>(id, op, 'pass the IDX file bytes as the images and labels options');

/** `dir/name.gz`, or `dir/name` when only the uncompressed file is there. */
function findFile(dir: string, name: string, op: string): string {
  const fs = builtin<NodeFs>('node:fs', op);
  const path = builtin<{ join(...p: string[]): string }>('node:path', op);
  for (const candidate of [path.join(dir, `${name}.gz`), path.join(dir, name)]) {
    if (fs.existsSync(candidate)) return candidate;
  }
  throw new MXNetError(`cannot find ${name}.gz (or ${name}) in ${dir}`, {
    op,
    hint: 'download the IDX files into root (nothing is downloaded here), or pass their bytes as images and labels',
  });
}

function readFile(path: string, op: string): Uint8Array {
  try {
    return builtin<NodeFs>('node:fs', op).readFileSync(path);
  } catch (e) {
    throw new MXNetError(`cannot read ${path}`, { op, cause: e });
  }
}

/** Images (n, 28, 28, 1) uint8 and labels as int32, checked against each other. */
function loadIdx(images: Uint8Array, labels: Uint8Array, op: string): [HostArray, HostArray] {
  const img = parseIdx(images, `${op} image`);
  const lab = parseIdx(labels, `${op} label`);
  if (img.dtype !== 'uint8' || img.shape.length !== 3) {
    throw new MXNetError(
      `the image file holds (${img.shape.join(', ')}) ${img.dtype}, not (n, rows, cols) uint8`,
      {
        op,
        shapes: [img.shape],
      },
    );
  }
  if (lab.dtype !== 'uint8' || lab.shape.length !== 1) {
    throw new MXNetError(`the label file holds (${lab.shape.join(', ')}) ${lab.dtype}, not (n,) uint8`, {
      op,
      shapes: [lab.shape],
    });
  }
  if (lab.shape[0] !== img.shape[0]) {
    throw new MXNetError(
      `the image file has ${img.shape[0]} images but the label file ${lab.shape[0]} labels`,
      {
        op,
        shapes: [img.shape, lab.shape],
        hint: 'use the image and label files of the same set',
      },
    );
  }
  const [n, rows, cols] = img.shape as [number, number, number];
  return [
    { data: img.data, shape: [n, rows, cols, 1], dtype: 'uint8' },
    { data: Int32Array.from(lab.data as Uint8Array), shape: [n], dtype: 'int32' },
  ];
}

interface Files {
  readonly trainImages: string;
  readonly trainLabels: string;
  readonly testImages: string;
  readonly testLabels: string;
}

const MXNET_FILES: Files = {
  trainImages: 'train-images-idx3-ubyte',
  trainLabels: 'train-labels-idx1-ubyte',
  testImages: 't10k-images-idx3-ubyte',
  testLabels: 't10k-labels-idx1-ubyte',
};

function fromOptions(
  options: MNISTOptions,
  op: string,
  defaultRoot: () => string | null,
): [HostArray, HostArray] {
  const train = options.train ?? true;
  if ((options.images === undefined) !== (options.labels === undefined)) {
    throw new MXNetError('pass both images and labels, or neither', { op });
  }
  if (options.images !== undefined && options.labels !== undefined) {
    if (options.root !== undefined) throw new MXNetError('pass root or the file bytes, not both', { op });
    return loadIdx(options.images, options.labels, op);
  }
  if (options.root === undefined) {
    const embedded = defaultRoot();
    if (embedded === null) {
      const files = embeddedMnist();
      return loadIdx(
        readFile(train ? files.trainImages : files.valImages, op),
        readFile(train ? files.trainLabels : files.valLabels, op),
        op,
      );
    }
    return fromRoot(embedded, train, op);
  }
  return fromRoot(options.root, train, op);
}

function fromRoot(root: string, train: boolean, op: string): [HostArray, HostArray] {
  const images = findFile(root, train ? MXNET_FILES.trainImages : MXNET_FILES.testImages, op);
  const labels = findFile(root, train ? MXNET_FILES.trainLabels : MXNET_FILES.testLabels, op);
  return loadIdx(readFile(images, op), readFile(labels, op), op);
}

/** MNIST handwritten digits: samples `[image (28, 28, 1) uint8, label]`. */
export class MNIST extends ArrayDataset<[HostArray, number]> {
  /** Whether this is the training set. */
  readonly train: boolean;

  constructor(options: MNISTOptions = {}) {
    super(...fromOptions(options, 'MNIST', () => null));
    this.train = options.train ?? true;
  }
}

/** Zalando's Fashion-MNIST (same format as MNIST): samples `[image (28, 28, 1) uint8, label]`. */
export class FashionMNIST extends ArrayDataset<[HostArray, number]> {
  readonly train: boolean;

  constructor(options: MNISTOptions = {}) {
    super(...fromOptions(options, 'FashionMNIST', () => defaultHome('fashion-mnist', 'FashionMNIST')));
    this.train = options.train ?? true;
  }
}

/** MXNet's data folder: $MXNET_HOME/datasets/<name>, MXNET_HOME defaulting to ~/.mxnet. */
function defaultHome(name: string, op: string): string {
  const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  const os = builtin<{ homedir(): string }>('node:os', op);
  const path = builtin<{ join(...p: string[]): string }>('node:path', op);
  const home = proc?.env?.MXNET_HOME ?? path.join(os.homedir(), '.mxnet');
  return path.join(home, 'datasets', name);
}
