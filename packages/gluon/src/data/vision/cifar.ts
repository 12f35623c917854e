/**
 * CIFAR-10 and CIFAR-100 (MXNet python/mxnet/gluon/data/vision/datasets.py) from the binary
 * version of the datasets: fixed-size records of label byte(s) then three 32×32 planes R, G, B.
 * CIFAR-10: data_batch_1..5.bin (train) / test_batch.bin, 1 label byte; CIFAR-100: train.bin /
 * test.bin, a coarse then a fine label byte.
 *
 * Samples are `[image, label]` as MXNet's: the image a (32, 32, 3) uint8 HWC host array (MXNet's
 * `_read_batch` transposes the planes to HWC; host data here so that worker threads can share it,
 * see MNIST), the label a number (MXNet: int32).
 *
 * Files are read from `root` (default MXNet's $MXNET_HOME/datasets/cifar10 or cifar100, MXNET_HOME
 * defaulting to ~/.mxnet; a leading `~` is expanded as MXNet does), or from the folder the official
 * archive extracts to inside it (cifar-10-batches-bin, cifar-100-binary). Nothing is downloaded:
 * a missing file is an MXNetError naming the path and the archive to fetch. In browsers pass the
 * files' bytes as `files`.
 */
import { MXNetError, nodeBuiltin } from '@mx/base';
import type { HostArray } from '@mx/ndarray';
import { ArrayDataset } from '../dataset.js';

export interface CIFAR10Options {
  /** Training set (default) or test set. */
  readonly train?: boolean;
  /** Folder holding the `.bin` files; default: see the class. */
  readonly root?: string;
  /**
   * The bytes of the set's files instead of `root`, in MXNet's order (CIFAR-10 train:
   * data_batch_1..5.bin, concatenated in that order). Any number of files is accepted.
   */
  readonly files?: Uint8Array | readonly Uint8Array[];
}

export interface CIFAR100Options extends CIFAR10Options {
  /** Fine labels (100 classes) instead of the coarse ones (20 super-classes, the default). */
  readonly fineLabel?: boolean;
}

/** How one variant is stored. */
interface Layout {
  readonly op: string;
  /** Folder name under $MXNET_HOME/datasets. */
  readonly namespace: string;
  /** Label bytes before the pixels of each record. */
  readonly labelBytes: number;
  readonly trainFiles: readonly string[];
  readonly testFiles: readonly string[];
  /** The archive MXNet downloads, and the folder the official archive extracts to. */
  readonly archive: string;
  readonly archiveDir: string;
}

const CIFAR10_LAYOUT: Layout = {
  op: 'CIFAR10',
  namespace: 'cifar10',
  labelBytes: 1,
  trainFiles: [
    'data_batch_1.bin',
    'data_batch_2.bin',
    'data_batch_3.bin',
    'data_batch_4.bin',
    'data_batch_5.bin',
  ],
  testFiles: ['test_batch.bin'],
  archive: 'cifar-10-binary.tar.gz',
  archiveDir: 'cifar-10-batches-bin',
};

const CIFAR100_LAYOUT: Layout = {
  op: 'CIFAR100',
  namespace: 'cifar100',
  labelBytes: 2,
  trainFiles: ['train.bin'],
  testFiles: ['test.bin'],
  archive: 'cifar-100-binary.tar.gz',
  archiveDir: 'cifar-100-binary',
};

const SIDE = 32;
const PLANE = SIDE * SIDE;
const PIXELS = 3 * PLANE;

interface NodeFs {
  existsSync(path: string): boolean;
  readFileSync(path: string): Uint8Array;
}
interface NodePath {
  join(...parts: string[]): string;
}

const builtin = <T>(id: string, op: string): T =>
  nodeBuiltin<T>(id, op, 'pass the .bin files’ bytes as the files option');

/** MXNet's default root, $MXNET_HOME/datasets/<namespace> (~/.mxnet by default). */
function defaultRoot(namespace: string, op: string): string {
  const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  const path = builtin<NodePath>('node:path', op);
  const home =
    proc?.env?.MXNET_HOME ?? path.join(builtin<{ homedir(): string }>('node:os', op).homedir(), '.mxnet');
  return path.join(home, 'datasets', namespace);
}

/** `~` and `~/…` to the home folder (MXNet: os.path.expanduser). */
function expandUser(root: string, op: string): string {
  if (root !== '~' && !root.startsWith('~/') && !root.startsWith('~\\')) return root;
  return builtin<{ homedir(): string }>('node:os', op).homedir() + root.slice(1);
}

/** The path of each file of the set: in `root`, or in the archive's folder inside it. */
function findFiles(root: string, layout: Layout, train: boolean): string[] {
  const { op } = layout;
  const fs = builtin<NodeFs>('node:fs', op);
  const path = builtin<NodePath>('node:path', op);
  return (train ? layout.trainFiles : layout.testFiles).map((name) => {
    const direct = path.join(root, name);
    const nested = path.join(root, layout.archiveDir, name);
    if (fs.existsSync(direct)) return direct;
    if (fs.existsSync(nested)) return nested;
    throw new MXNetError(`cannot find ${direct} (nor ${nested})`, {
      op,
      params: { root, train },
      hint: `nothing is downloaded here: get ${layout.archive} (https://www.cs.toronto.edu/~kriz/cifar.html, the binary version) and extract its ${[...layout.trainFiles, ...layout.testFiles].join(', ')} into ${root}; or pass the files' bytes as the files option`,
    });
  });
}

function readFile(file: string, op: string): Uint8Array {
  try {
    return builtin<NodeFs>('node:fs', op).readFileSync(file);
  } catch (e) {
    throw new MXNetError(`cannot read ${file}`, { op, cause: e });
  }
}

/** A Uint8Array that worker threads can share without a copy, where shared memory exists. */
function sharedBytes(n: number): Uint8Array {
  return typeof SharedArrayBuffer === 'undefined'
    ? new Uint8Array(n)
    : new Uint8Array(new SharedArrayBuffer(n));
}

/**
 * Images (n, 32, 32, 3) uint8 HWC and int32 labels (label byte `labelIndex` of each record) of the
 * files, concatenated in order. MXNet: `reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)`.
 */
function decode(
  files: readonly { readonly name: string; readonly bytes: Uint8Array }[],
  layout: Layout,
  labelIndex: number,
): [HostArray, HostArray] {
  const recordBytes = layout.labelBytes + PIXELS;
  let n = 0;
  for (const { name, bytes } of files) {
    if (bytes.length % recordBytes !== 0) {
      throw new MXNetError(
        `${name} has ${bytes.length} bytes, not a whole number of ${layout.op} records of ${recordBytes} bytes (${layout.labelBytes} label byte${layout.labelBytes > 1 ? 's' : ''} + 3×32×32 pixels)`,
        {
          op: layout.op,
          params: { file: name, size: bytes.length, recordBytes },
          hint: `the file is truncated or is not a ${layout.op} binary batch (${layout.op === 'CIFAR10' ? 'CIFAR-100 files are read with CIFAR100' : 'CIFAR-10 files are read with CIFAR10'}); download ${layout.archive} again`,
        },
      );
    }
    n += bytes.length / recordBytes;
  }
  const images = sharedBytes(n * PIXELS);
  const labels = new Int32Array(n);
  let k = 0;
  for (const { bytes } of files) {
    for (let rec = 0; rec < bytes.length; rec += recordBytes, k++) {
      labels[k] = bytes[rec + labelIndex] as number;
      const src = rec + layout.labelBytes;
      const dst = k * PIXELS;
      for (let p = 0; p < PLANE; p++) {
        images[dst + 3 * p] = bytes[src + p] as number;
        images[dst + 3 * p + 1] = bytes[src + PLANE + p] as number;
        images[dst + 3 * p + 2] = bytes[src + 2 * PLANE + p] as number;
      }
    }
  }
  return [
    { data: images, shape: [n, SIDE, SIDE, 3], dtype: 'uint8' },
    { data: labels, shape: [n], dtype: 'int32' },
  ];
}

function load(options: CIFAR10Options, layout: Layout, labelIndex: number): [HostArray, HostArray] {
  const { op } = layout;
  const train = options.train ?? true;
  if (options.files !== undefined) {
    if (options.root !== undefined) throw new MXNetError('pass root or the file bytes, not both', { op });
    const list = options.files instanceof Uint8Array ? [options.files] : options.files;
    if (!Array.isArray(list) || list.length === 0 || !list.every((f) => f instanceof Uint8Array)) {
      throw new MXNetError('files must be one or more Uint8Arrays (the .bin files’ bytes)', {
        op,
        hint: `e.g. [${(train ? layout.trainFiles : layout.testFiles).join(', ')}] read into Uint8Arrays`,
      });
    }
    return decode(
      list.map((bytes, i) => ({ name: `files[${i}]`, bytes })),
      layout,
      labelIndex,
    );
  }
  const root = options.root === undefined ? defaultRoot(layout.namespace, op) : expandUser(options.root, op);
  const paths = findFiles(root, layout, train);
  return decode(
    paths.map((name) => ({ name, bytes: readFile(name, op) })),
    layout,
    labelIndex,
  );
}

/**
 * CIFAR-10 (10 classes): samples `[image (32, 32, 3) uint8, label]`, 50,000 training and 10,000
 * test images. Default root: $MXNET_HOME/datasets/cifar10 (~/.mxnet/datasets/cifar10).
 */
export class CIFAR10 extends ArrayDataset<[HostArray, number]> {
  /** Whether this is the training set. */
  readonly train: boolean;

  constructor(options: CIFAR10Options = {}) {
    super(...load(options, CIFAR10_LAYOUT, 0));
    this.train = options.train ?? true;
  }
}

/**
 * CIFAR-100: samples `[image (32, 32, 3) uint8, label]` with the coarse label (20 super-classes)
 * or, with `fineLabel`, the fine one (100 classes). Default root: $MXNET_HOME/datasets/cifar100.
 */
export class CIFAR100 extends ArrayDataset<[HostArray, number]> {
  readonly train: boolean;
  /** Whether the labels are the fine ones. */
  readonly fineLabel: boolean;

  constructor(options: CIFAR100Options = {}) {
    super(...load(options, CIFAR100_LAYOUT, options.fineLabel ? 1 : 0));
    this.train = options.train ?? true;
    this.fineLabel = options.fineLabel ?? false;
  }
}
