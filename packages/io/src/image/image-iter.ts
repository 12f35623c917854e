/**
 * MXNet's `mx.image.ImageIter` (python/mxnet/image/image.py): batches of images from a `.rec`
 * (sequential, or by key with its `.idx`), from a `.lst` + image folder, or from an in-memory list
 * of [label(s), path], decoded and passed through an augmenter list (by default `createAugmenter`
 * with the remaining options), HWC → CHW, into float32 batches; MXNet's `last_batch_handle` rules
 * (pad from the start, discard, roll over into the next epoch), partitions and shuffling.
 *
 * Decoding is asynchronous here (sharp in Node, the browser's decoders elsewhere), so batches come
 * from `nextAsync()` / `for await`; the images of one batch are decoded concurrently and written in
 * their order. Samples whose decoded image is not a 3-D array are skipped, as MXNet does; an
 * undecodable image is an MXNetError naming the file or record (MXNet's "Broken image …"), after
 * which `reset()` starts a clean epoch. Shuffles use Python's `random.shuffle` draws (`seed`).
 */
import { type DTypeName, MXNetError } from '@mx/base';
import type { NDArray } from '@mx/ndarray';
import { DataBatch, DataDesc, DataIter } from '../data-iter.js';
import { nodeModule } from '../host.js';
import { MXIndexedRecordIO } from '../recordio/indexed.js';
import { unpack } from '../recordio/irheader.js';
import { MXRecordIO } from '../recordio/recordio.js';
import { type NdLike, ndOf } from '../runtime-of.js';
import type { Augmenter } from './augmenters.js';
import { type CreateAugmenterOptions, createAugmenter } from './create-augmenter.js';
import { type ImageDecodeFn, imageDecoder } from './decode.js';
import type { HostImage } from './host-image.js';
import { ImageRandom, type ImageRandomSeed } from './random.js';

/** MXNet's ImageIter arguments (camelCase), plus CreateAugmenter's when `augList` is not given. */
export interface ImageIterOptions extends Omit<CreateAugmenterOptions, 'dataShape'> {
  readonly batchSize: number;
  /** `(3, height, width)`. */
  readonly dataShape: readonly [number, number, number];
  readonly labelWidth?: number;
  readonly pathImgrec?: string;
  readonly pathImglist?: string;
  readonly pathRoot?: string;
  readonly pathImgidx?: string;
  readonly shuffle?: boolean;
  readonly partIndex?: number;
  readonly numParts?: number;
  /** The augmenters (default: `createAugmenter({ dataShape, ...options })`). */
  readonly augList?: readonly Augmenter[];
  /** `[label or labels, path]` per image (labels as in a .lst). */
  readonly imglist?: readonly (readonly [number | readonly number[], string])[];
  readonly dataName?: string;
  readonly labelName?: string;
  /** Label dtype: float32 (default), int32, int64 is not supported here, float64. */
  readonly dtype?: 'float32' | 'int32' | 'float64';
  readonly lastBatchHandle?: 'pad' | 'discard' | 'roll_over';
  /** Seed of the shuffles (Python's `random`); unseeded by default, like MXNet's global random. */
  readonly seed?: ImageRandomSeed;
}

interface Sample {
  readonly label: readonly number[];
  readonly bytes: Uint8Array;
  /** How errors name it: "filename: x.jpg" or "index: 3". */
  readonly where: string;
}

interface Filled {
  data: Float32Array;
  label: Float32Array;
  count: number;
}

/** MXNet's `mx.image.ImageIter`. */
export class ImageIter extends DataIter {
  readonly dataShape: readonly [number, number, number];
  readonly labelWidth: number;
  readonly lastBatchHandle: 'pad' | 'discard' | 'roll_over';
  readonly auglist: readonly Augmenter[];
  readonly #nd: ReturnType<typeof ndOf>;
  readonly #rec: MXRecordIO | undefined;
  readonly #imglist: Map<number, { label: number[]; path: string }> | undefined;
  readonly #root: string | undefined;
  readonly #seq: number[] | undefined;
  readonly #shuffle: boolean;
  readonly #rng: ImageRandom;
  readonly #dtype: DTypeName;
  readonly #dataName: string;
  readonly #labelName: string;
  #decode: ImageDecodeFn | undefined;
  #cur = 0;
  #allowRead = true;
  #cache: Filled | undefined;

  constructor(runtime: NdLike, options: ImageIterOptions) {
    const op = 'ImageIter';
    const bs = options.batchSize;
    if (!Number.isInteger(bs) || bs < 1) {
      throw new MXNetError(`batchSize must be a positive integer, got ${String(bs)}`, { op });
    }
    super(bs);
    const shape = options.dataShape;
    if (!Array.isArray(shape) || shape.length !== 3) {
      throw new MXNetError('data_shape should have length 3, with dimensions CxHxW', {
        op,
        params: { dataShape: shape as unknown },
      });
    }
    if (shape[0] !== 3) {
      throw new MXNetError('This iterator expects inputs to have 3 channels.', {
        op,
        params: { dataShape: shape },
      });
    }
    const { pathImgrec, pathImglist, imglist } = options;
    if (pathImgrec === undefined && pathImglist === undefined && imglist === undefined) {
      throw new MXNetError('ImageIter needs pathImgrec, pathImglist or imglist', { op });
    }
    const dtype = options.dtype ?? 'float32';
    if (!['float32', 'int32', 'float64'].includes(dtype)) {
      throw new MXNetError(`${String(dtype)} label not supported`, {
        op,
        hint: 'use float32, int32 or float64',
      });
    }
    const last = options.lastBatchHandle ?? 'pad';
    if (!['pad', 'discard', 'roll_over'].includes(last)) {
      throw new MXNetError(`lastBatchHandle must be 'pad', 'discard' or 'roll_over', got ${String(last)}`, {
        op,
      });
    }
    this.#nd = ndOf(runtime);
    this.dataShape = [shape[0], shape[1], shape[2]];
    this.labelWidth = options.labelWidth ?? 1;
    this.lastBatchHandle = last;
    this.#dtype = dtype;
    this.#dataName = options.dataName ?? 'data';
    this.#labelName = options.labelName ?? 'softmax_label';
    this.#shuffle = options.shuffle ?? false;
    this.#rng = new ImageRandom(options.seed);
    this.#root = options.pathRoot;
    let keys: number[] | undefined;
    if (pathImglist !== undefined) {
      this.#imglist = parseImglist(pathImglist, op);
      keys = [...this.#imglist.keys()];
    } else if (imglist !== undefined) {
      this.#imglist = new Map(
        imglist.map(([label, path], i) => [
          i + 1,
          { label: typeof label === 'number' ? [label] : [...label], path },
        ]),
      );
      keys = [...this.#imglist.keys()];
    }
    if (pathImgrec !== undefined) {
      if (options.pathImgidx !== undefined) {
        const rec = new MXIndexedRecordIO(options.pathImgidx, pathImgrec, 'r');
        this.#rec = rec;
        keys ??= rec.keys.map(Number);
      } else {
        this.#rec = new MXRecordIO(pathImgrec, 'r');
        if (keys === undefined && (this.#shuffle || (options.numParts ?? 1) > 1)) {
          this.#rec.close();
          throw new MXNetError('shuffling or partitioning a .rec needs its index', {
            op,
            params: { pathImgrec },
            hint: 'pass pathImgidx (the .idx written with the .rec)',
          });
        }
      }
    }
    const numParts = options.numParts ?? 1;
    const partIndex = options.partIndex ?? 0;
    if (
      !(Number.isInteger(numParts) && numParts >= 1 && Number.isInteger(partIndex) && partIndex < numParts)
    ) {
      this.#rec?.close();
      throw new MXNetError(`partIndex ${partIndex} must be below numParts ${numParts}`, { op });
    }
    if (keys !== undefined && numParts > 1) {
      const c = Math.floor(keys.length / numParts);
      keys = keys.slice(partIndex * c, (partIndex + 1) * c);
    }
    this.#seq = keys;
    this.auglist = options.augList ?? createAugmenter({ ...options, dataShape: this.dataShape });
    this.reset();
  }

  get provideData(): DataDesc[] {
    return [new DataDesc(this.#dataName, [this.batchSize, ...this.dataShape])];
  }

  get provideLabel(): DataDesc[] {
    const shape = this.labelWidth > 1 ? [this.batchSize, this.labelWidth] : [this.batchSize];
    return [new DataDesc(this.#labelName, shape, this.#dtype, 'NC')];
  }

  /** Number of images (undefined for a .rec read sequentially, as MXNet's `num_image`). */
  get numImage(): number | undefined {
    return this.#seq?.length;
  }

  /** Back to the start (kept roll-over samples stay for the next batch, as in MXNet). */
  reset(): void {
    this.checkLive('reset');
    if (this.#shuffle && this.#seq !== undefined) this.#rng.shuffle(this.#seq);
    if (this.lastBatchHandle !== 'roll_over' || this.#cache === undefined) {
      if (this.#rec !== undefined && this.#seq === undefined) this.#rec.reset();
      this.#cur = 0;
      this.#allowRead = true;
    }
  }

  /** Resets and forgets rolled-over samples (MXNet `hard_reset`). */
  hardReset(): void {
    this.#cache = undefined;
    this.#allowRead = true;
    this.#cur = 0;
    if (this.#shuffle && this.#seq !== undefined) this.#rng.shuffle(this.#seq);
    if (this.#rec !== undefined && this.#seq === undefined) this.#rec.reset();
  }

  /** The next batch, or null at the end of the epoch. */
  async nextAsync(): Promise<DataBatch | null> {
    this.checkLive('nextAsync');
    if (!this.#allowRead) return null;
    const bs = this.batchSize;
    const cached = this.#cache;
    this.#cache = undefined;
    let f: Filled;
    if (cached !== undefined) f = cached;
    else {
      const [c, h, w] = this.dataShape;
      f = { data: new Float32Array(bs * c * h * w), label: new Float32Array(bs * this.labelWidth), count: 0 };
      await this.#batchify(f);
    }
    if (f.count === 0) return null;
    // MXNet's pad: how many slots the epoch's own samples did not fill (reported in every mode)
    const pad = bs - f.count;
    if (pad > 0) {
      if (this.lastBatchHandle === 'discard') return null;
      if (this.lastBatchHandle === 'roll_over' && cached === undefined) {
        this.#cache = f; // the first batch of the next epoch starts with these
        return null;
      }
      await this.#batchify(f); // from the start of the data
      if (this.lastBatchHandle === 'pad') this.#allowRead = false;
    }
    return this.#batch(f, pad);
  }

  /** Decoding is asynchronous: use `nextAsync()` or `for await`. */
  override next(): DataBatch | null {
    throw new MXNetError('ImageIter decodes asynchronously: use await iter.nextAsync() or for await', {
      op: 'ImageIter.next',
    });
  }

  override async *[Symbol.asyncIterator](): AsyncIterator<DataBatch> {
    for (let b = await this.nextAsync(); b !== null; b = await this.nextAsync()) yield b;
  }

  iterNext(): boolean {
    throw new MXNetError('use nextAsync()', { op: 'ImageIter.iterNext' });
  }
  getData(): NDArray[] {
    throw new MXNetError('use nextAsync()', { op: 'ImageIter.getData' });
  }
  getLabel(): NDArray[] {
    throw new MXNetError('use nextAsync()', { op: 'ImageIter.getLabel' });
  }
  getPad(): number {
    return 0;
  }

  override dispose(): void {
    if (this.isDisposed) return;
    this.#rec?.close();
    super.dispose();
  }

  /** Reads the next sample, or null at the end (MXNet's next_sample + StopIteration). */
  #nextSample(): Sample | null {
    const seq = this.#seq;
    if (seq !== undefined) {
      if (this.#cur >= seq.length) {
        if (this.lastBatchHandle !== 'discard') this.#cur = 0;
        return null;
      }
      const idx = seq[this.#cur++] as number;
      if (this.#rec !== undefined) {
        const s = (this.#rec as MXIndexedRecordIO).readIdx(idx);
        const [header, img] = unpack(s);
        const listed = this.#imglist?.get(idx);
        return { label: listed?.label ?? labelsOf(header.label), bytes: img, where: `index: ${idx}` };
      }
      const item = this.#imglist?.get(idx) as { label: number[]; path: string };
      return { label: item.label, bytes: this.#readImage(item.path), where: `filename: ${item.path}` };
    }
    const rec = this.#rec as MXRecordIO;
    const s = rec.read();
    if (s === null) {
      if (this.lastBatchHandle !== 'discard') rec.reset();
      return null;
    }
    const [header, img] = unpack(s);
    const where = `index: ${this.#cur++}`;
    return { label: labelsOf(header.label), bytes: img, where };
  }

  #readImage(fname: string): Uint8Array {
    const path = nodeModule('node:path', 'ImageIter', 'pass imglist images as a .rec in browsers');
    const fs = nodeModule('node:fs', 'ImageIter', 'pass imglist images as a .rec in browsers');
    const file = this.#root === undefined ? fname : path.join(this.#root, fname);
    try {
      return fs.readFileSync(file);
    } catch (e) {
      throw new MXNetError(`cannot read image file '${file}': ${(e as Error).message}`, {
        op: 'ImageIter',
        params: { pathRoot: this.#root, file: fname },
        cause: e,
      });
    }
  }

  /** Fills `f` from slot `f.count` (MXNet `_batchify`): reads, decodes, augments, skips invalid. */
  async #batchify(f: Filled): Promise<void> {
    const bs = this.batchSize;
    const [c, h, w] = this.dataShape;
    const lw = this.labelWidth;
    this.#decode ??= await imageDecoder('auto', 'ImageIter');
    const decode = this.#decode;
    let ended = false;
    while (f.count < bs && !ended) {
      const samples: Sample[] = [];
      while (samples.length < bs - f.count) {
        const s = this.#nextSample();
        if (s === null) {
          ended = true;
          break;
        }
        samples.push(s);
      }
      const images = await Promise.all(
        samples.map(async (s) => {
          try {
            return await decode(s.bytes);
          } catch (e) {
            this.#cache = undefined;
            throw new MXNetError(`Broken image ${s.where}, ${(e as Error).message}`, {
              op: 'ImageIter',
              cause: e,
              hint: 'the image is truncated or not an image; reset() starts a clean epoch',
            });
          }
        }),
      );
      for (let k = 0; k < samples.length; k++) {
        const s = samples[k] as Sample;
        let img: HostImage = images[k] as HostImage;
        if (img.shape.length !== 3) continue; // MXNet: "Invalid image, skipping"
        for (const aug of this.auglist) img = aug.apply(img);
        const [ih, iw, ic] = img.shape;
        if (ih !== h || iw !== w || ic !== c) {
          throw new MXNetError(
            `the augmenters made a (${img.shape.join(', ')}) image from ${s.where}; data_shape (${c}, ${h}, ${w}) needs (${h}, ${w}, ${c})`,
            {
              op: 'ImageIter',
              shapes: [[...img.shape]],
              hint: 'add a crop or resize augmenter that gives data_shape',
            },
          );
        }
        if (s.label.length !== lw) {
          throw new MXNetError(`${s.where} has ${s.label.length} label(s), labelWidth is ${lw}`, {
            op: 'ImageIter',
            hint: `set labelWidth to ${s.label.length}`,
          });
        }
        toPlanes(img, f.data, f.count * c * h * w);
        f.label.set(s.label, f.count * lw);
        f.count++;
      }
    }
  }

  #batch(f: Filled, pad: number): DataBatch {
    const [c, h, w] = this.dataShape;
    const bs = this.batchSize;
    const data = this.#nd.array(f.data, { shape: [bs, c, h, w] });
    let label: NDArray;
    try {
      const shape = this.labelWidth > 1 ? [bs, this.labelWidth] : [bs];
      label = this.#nd.array(f.label, { shape, dtype: this.#dtype });
    } catch (e) {
      data.dispose();
      throw e;
    }
    return new DataBatch([data], [label], {
      pad,
      provideData: this.provideData,
      provideLabel: this.provideLabel,
    });
  }
}

function labelsOf(label: number | Float32Array): number[] {
  return typeof label === 'number' ? [label] : Array.from(label);
}

/** HWC (any dtype) into CHW float32 at `offset` (MXNet's postprocess_data transpose). */
function toPlanes(img: HostImage, out: Float32Array, offset: number): void {
  const [h, w, c] = img.shape;
  const plane = h * w;
  const src = img.data;
  for (let k = 0; k < c; k++) {
    const o = offset + k * plane;
    for (let p = 0; p < plane; p++) out[o + p] = src[p * c + k] as number;
  }
}

/** A .lst: `index \t label(s) \t path` per line (MXNet's format). */
function parseImglist(path: string, op: string): Map<number, { label: number[]; path: string }> {
  const fs = nodeModule('node:fs', op, 'pass imglist instead of pathImglist in browsers');
  const text = new TextDecoder().decode(fs.readFileSync(path));
  const out = new Map<number, { label: number[]; path: string }>();
  text.split('\n').forEach((raw, n) => {
    const line = raw.trim();
    if (line === '') return;
    const cells = line.split('\t');
    const key = Number(cells[0]);
    const label = cells.slice(1, -1).map(Number);
    if (cells.length < 3 || !Number.isInteger(key) || label.some((v) => Number.isNaN(v))) {
      throw new MXNetError(`${path} line ${n + 1}: expected 'index<TAB>label(s)<TAB>path', got '${line}'`, {
        op,
        params: { pathImglist: path, line: n + 1 },
        hint: 'write the list with mx-im2rec --list',
      });
    }
    out.set(key, { label, path: cells[cells.length - 1] as string });
  });
  return out;
}
