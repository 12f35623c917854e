/**
 * MNISTIter: MXNet's C++ MNIST iterator (src/io/iter_mnist.cc) with its parameters, defaults and
 * batching:
 *
 * - reads an IDX image file (n, rows, cols) and an IDX label file (n) — paths, or bytes; gzip
 *   files are read too (MXNet's C++ reader needs them decompressed);
 * - `num_parts`/`part_index` keep the contiguous part [⌊n/parts·i⌋, ⌊n/parts·(i+1)⌋) of both files;
 * - pixels become float32 `pixel × scale`, with MXNet's scale 1/256 by default (`scale: 1 / 255`
 *   gives the [0, 1] range other frameworks use); labels are float32;
 * - `shuffle` (default true) reorders the part once, at construction, with
 *   `std::shuffle(std::mt19937(seed))` — every epoch then has the same order, as in MXNet;
 * - batches are (batch_size, 1, rows, cols), or (batch_size, rows·cols) with `flat`; labels
 *   (batch_size,); the incomplete last batch is dropped (pad is always 0).
 *
 * The images stay on the host; each batch is uploaded into new arrays on `ctx`, owned by the
 * caller (MXNet recycles a few prefetch buffers instead, so its batches are overwritten after
 * `prefetch_buffer` steps; here a batch stays valid until disposed).
 */
import { type Context, DType, type DTypeName, MXNetError } from '@mx/base';
import type { NDArray, Nd } from '@mx/ndarray';
import { DataDesc, DataIter } from '../data-iter.js';
import { readBytes } from '../host.js';
import { MT19937 } from '../random/mt19937.js';
import { stdShuffle } from '../random/shuffle.js';
import { type NdLike, ndOf } from '../runtime-of.js';
import { type IdxArray, parseIdx } from './idx.js';

/** MXNet's MNISTIter parameters (MNISTParam and PrefetcherParam), plus `scale`, `ctx` and names. */
export interface MNISTIterParams {
  /** Image file: a path or its bytes. Default './train-images-idx3-ubyte'. */
  readonly image?: string | Uint8Array;
  /** Label file: a path or its bytes. Default './train-labels-idx1-ubyte'. */
  readonly label?: string | Uint8Array;
  /** Default 128. */
  readonly batch_size?: number;
  /** Default true. */
  readonly shuffle?: boolean;
  /** (batch, rows·cols) instead of (batch, 1, rows, cols). Default false. */
  readonly flat?: boolean;
  /** Seed of the shuffle. Default 0. */
  readonly seed?: number;
  /** Do not print the summary line. Default false. */
  readonly silent?: boolean;
  /** Default 1. */
  readonly num_parts?: number;
  /** Default 0. */
  readonly part_index?: number;
  /** Accepted for compatibility; batches are made on demand. Default 4. */
  readonly prefetch_buffer?: number;
  /** Element type of the data and label arrays. Default float32. */
  readonly dtype?: DTypeName | null;
  /** Pixel multiplier. Default 1/256 (MXNet); 1/255 maps 255 to 1. */
  readonly scale?: number;
  /** Device of the batches. Default: the runtime's default device. */
  readonly ctx?: Context;
  /** Name in `provideData` (MXDataIter's `data_name`). Default 'data'. */
  readonly data_name?: string;
  /** Name in `provideLabel` (MXDataIter's `label_name`). Default 'softmax_label'. */
  readonly label_name?: string;
}

const OP = 'MNISTIter';

function checkInt(params: Readonly<Record<string, unknown>>, name: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new MXNetError(`${name} must be an integer >= ${min}, got ${String(value)}`, { op: OP, params });
  }
}

export class MNISTIter extends DataIter {
  /** Number of images in this part. */
  readonly numImages: number;
  readonly rows: number;
  readonly cols: number;
  readonly flat: boolean;
  readonly dtype: DTypeName;
  readonly ctx: Context;
  readonly #nd: Nd;
  readonly #images: Float32Array;
  readonly #labels: Float32Array;
  /** Index in the file of the image at each position. */
  readonly #index: Int32Array;
  readonly #dataName: string;
  readonly #labelName: string;
  #loc = 0;

  constructor(runtime: NdLike, params: MNISTIterParams = {}) {
    const p = {
      image: params.image ?? './train-images-idx3-ubyte',
      label: params.label ?? './train-labels-idx1-ubyte',
      batch_size: params.batch_size ?? 128,
      shuffle: params.shuffle ?? true,
      flat: params.flat ?? false,
      seed: params.seed ?? 0,
      silent: params.silent ?? false,
      num_parts: params.num_parts ?? 1,
      part_index: params.part_index ?? 0,
      prefetch_buffer: params.prefetch_buffer ?? 4,
      dtype: params.dtype ?? null,
      scale: params.scale ?? 1 / 256,
    };
    super(p.batch_size);
    const shown = { ...p, image: describe(p.image), label: describe(p.label) };
    checkInt(shown, 'batch_size', p.batch_size, 1);
    checkInt(shown, 'num_parts', p.num_parts, 1);
    checkInt(shown, 'part_index', p.part_index, 0);
    checkInt(shown, 'prefetch_buffer', p.prefetch_buffer, 1);
    if (!Number.isSafeInteger(p.seed)) {
      throw new MXNetError(`seed must be an integer, got ${String(p.seed)}`, { op: OP, params: shown });
    }
    if (p.part_index >= p.num_parts) {
      throw new MXNetError(`part_index ${p.part_index} is out of range for num_parts ${p.num_parts}`, {
        op: OP,
        params: shown,
        hint: `use a part_index in [0, ${p.num_parts - 1}]`,
      });
    }
    if (!Number.isFinite(p.scale)) {
      throw new MXNetError(`scale must be a finite number, got ${String(p.scale)}`, {
        op: OP,
        params: shown,
      });
    }
    if (p.dtype !== null && !Object.hasOwn(DType, p.dtype)) {
      throw new MXNetError(`unknown dtype '${String(p.dtype)}'`, {
        op: OP,
        params: shown,
        hint: "use a dtype name such as 'float32' or 'float64'",
      });
    }
    this.#nd = ndOf(runtime);
    this.ctx = params.ctx ?? this.#nd.runtime.defaultContext;
    this.flat = p.flat;
    this.dtype = p.dtype ?? 'float32';
    this.#dataName = params.data_name ?? 'data';
    this.#labelName = params.label_name ?? 'softmax_label';

    const images = readIdx(p.image, 'image', shown);
    const labels = readIdx(p.label, 'label', shown);
    if (images.shape.length !== 3 || images.dtype !== 'uint8') {
      throw new MXNetError(
        `the image file holds ${images.dtype} of shape (${images.shape.join(', ')}); MNIST images are uint8 (n, rows, cols)`,
        {
          op: OP,
          params: shown,
          hint: 'check that `image` names the images file (idx3-ubyte), not the labels',
        },
      );
    }
    if (labels.shape.length !== 1 || labels.dtype !== 'uint8') {
      throw new MXNetError(
        `the label file holds ${labels.dtype} of shape (${labels.shape.join(', ')}); MNIST labels are uint8 (n,)`,
        {
          op: OP,
          params: shown,
          hint: 'check that `label` names the labels file (idx1-ubyte), not the images',
        },
      );
    }
    const [count, rows, cols] = images.shape as [number, number, number];
    if (labels.shape[0] !== count) {
      throw new MXNetError(
        `the image file has ${count} images but the label file has ${labels.shape[0]} labels`,
        {
          op: OP,
          params: shown,
          hint: 'pass the image and label files of the same set',
        },
      );
    }
    this.rows = rows;
    this.cols = cols;
    // MXNet's GetPart: the bounds are computed in double and truncated.
    const start = Math.trunc((count / p.num_parts) * p.part_index);
    const end = Math.trunc((count / p.num_parts) * (p.part_index + 1));
    const n = end - start;
    this.numImages = n;
    if (n < p.batch_size) {
      throw new MXNetError(
        `batch_size ${p.batch_size} is larger than the ${n} images of part ${p.part_index} of ${p.num_parts}`,
        { op: OP, params: shown, hint: 'use a smaller batch_size or fewer parts' },
      );
    }

    const pixels = rows * cols;
    const index = Int32Array.from({ length: n }, (_, i) => i);
    if (p.shuffle) stdShuffle(index, new MT19937(p.seed));
    const scale = Math.fround(p.scale);
    const src = images.data as Uint8Array;
    const img = new Float32Array(n * pixels);
    const lab = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      const from = (start + (index[i] as number)) * pixels;
      const to = i * pixels;
      for (let k = 0; k < pixels; k++) img[to + k] = (src[from + k] as number) * scale;
      lab[i] = (labels.data as Uint8Array)[start + (index[i] as number)] as number;
      index[i] = start + (index[i] as number);
    }
    this.#images = img;
    this.#labels = lab;
    this.#index = index;
    if (!p.silent) {
      const shape = this.flat ? [p.batch_size, pixels] : [p.batch_size, 1, rows, cols];
      console.error(`MNISTIter: load ${n} images, shuffle=${p.shuffle ? 1 : 0}, shape=(${shape.join(',')})`);
    }
  }

  get provideData(): DataDesc[] {
    return [new DataDesc(this.#dataName, this.#dataShape(), this.dtype)];
  }

  get provideLabel(): DataDesc[] {
    return [new DataDesc(this.#labelName, [this.batchSize], this.dtype)];
  }

  /** Back to the first batch (the order stays: MXNet shuffles once, at construction). */
  reset(): void {
    this.checkLive('reset');
    this.#loc = 0;
  }

  iterNext(): boolean {
    this.checkLive('iterNext');
    if (this.#loc + this.batchSize <= this.numImages) {
      this.#loc += this.batchSize;
      return true;
    }
    return false;
  }

  getData(): NDArray[] {
    const begin = this.#begin('getData');
    const pixels = this.rows * this.cols;
    const values = this.#images.subarray(begin * pixels, (begin + this.batchSize) * pixels);
    return [this.#nd.array(values, { shape: this.#dataShape(), dtype: this.dtype, ctx: this.ctx })];
  }

  getLabel(): NDArray[] {
    const begin = this.#begin('getLabel');
    const values = this.#labels.subarray(begin, begin + this.batchSize);
    return [this.#nd.array(values, { shape: [this.batchSize], dtype: this.dtype, ctx: this.ctx })];
  }

  getPad(): number {
    return 0;
  }

  /** Indices in the image file of the examples of the current batch. */
  override getIndex(): readonly number[] {
    const begin = this.#begin('getIndex');
    return Array.from(this.#index.subarray(begin, begin + this.batchSize));
  }

  #dataShape(): number[] {
    return this.flat ? [this.batchSize, this.rows * this.cols] : [this.batchSize, 1, this.rows, this.cols];
  }

  #begin(op: string): number {
    this.checkLive(op);
    if (this.#loc === 0) {
      throw new MXNetError('there is no current batch', {
        op: `${OP}.${op}`,
        hint: 'call iterNext() or next() first',
      });
    }
    return this.#loc - this.batchSize;
  }
}

function describe(source: string | Uint8Array): string {
  return typeof source === 'string' ? source : `<${source.length} bytes>`;
}

function readIdx(
  source: string | Uint8Array,
  what: 'image' | 'label',
  params: Record<string, unknown>,
): IdxArray {
  const bytes = readBytes(source, OP, what);
  try {
    return parseIdx(bytes, `${what} (${describe(source)})`);
  } catch (e) {
    if (e instanceof MXNetError) {
      throw new MXNetError(e.reason, { op: OP, params, shapes: e.shapes, hint: e.hint, cause: e });
    }
    throw e;
  }
}
