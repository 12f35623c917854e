/**
 * Geometric image transforms of MXNet's gluon.data.vision.transforms: Resize, CenterCrop,
 * RandomResizedCrop and the random flips. Like transforms.ts they are plain transform objects with
 * `forward(x, ...rest)` (extra arguments, the label, pass through). They take one (H, W, C) image,
 * uint8 or float32: a host array `{ data, shape, dtype }` (what the image datasets hold) or an
 * NDArray (read back synchronously, transformed on the host, copied to a new NDArray on the same
 * device). Geometry comes from @mx/io's host image functions (OpenCV-coded resize, MXNet's crops).
 *
 * Randomness: each random transform owns a generator, `{ seed }` (an `ImageRandom`, Python's draws)
 * or `{ rng }` (any `ImageRng`, e.g. shared by a pipeline); without either, an unseeded one.
 * DataLoader workers rebuild these transforms; see image-base.ts for what their generators do there.
 */
import { image } from '@mx/io';
import {
  checkProb,
  type ImageSizeArg,
  ImageTransformBlock,
  like,
  type RandomOptions,
  sizeOf,
  type WorkerConstruction,
} from './image-base.js';

type HostImage = image.HostImage;
type ImageRng = image.ImageRng;

/** Options of Resize. */
export interface ResizeOptions {
  /** With a single `size`: resize the shorter side to `size`, keeping the aspect ratio. */
  readonly keepRatio?: boolean;
  /** OpenCV interpolation code (default 1, bilinear). */
  readonly interpolation?: number;
}

/**
 * Resizes to `size` (`[w, h]`, or a square), or with `keepRatio` and one number the shorter side to
 * `size` and the longer to `floor(long * size / short)` (MXNet's `image.resize`).
 */
export class Resize extends ImageTransformBlock {
  readonly size: ImageSizeArg;
  readonly keepRatio: boolean;
  readonly interpolation: number;

  constructor(size: ImageSizeArg, options: ResizeOptions = {}) {
    super();
    sizeOf(size, 'Resize');
    this.size = size;
    this.keepRatio = options.keepRatio ?? false;
    this.interpolation = options.interpolation ?? 1;
  }

  apply(img: HostImage): HostImage {
    const [h, w] = img.shape;
    let [newW, newH] = sizeOf(this.size, 'Resize');
    if (typeof this.size === 'number' && this.keepRatio) {
      const s = this.size;
      [newW, newH] = h > w ? [s, Math.floor((h * s) / w)] : [Math.floor((w * s) / h), s];
    }
    return image.host.imresize(img, newW, newH, this.interpolation);
  }

  protected override workerConstruction(): WorkerConstruction {
    const size = typeof this.size === 'number' ? this.size : [...this.size];
    return {
      cls: Resize,
      name: 'Resize',
      args: [size, { keepRatio: this.keepRatio, interpolation: this.interpolation }],
    };
  }
}

/** Crops the centre `size` region (scaled down to fit and resized up when the image is smaller). */
export class CenterCrop extends ImageTransformBlock {
  readonly size: readonly [number, number];
  readonly interpolation: number;

  constructor(size: ImageSizeArg, options: { readonly interpolation?: number } = {}) {
    super();
    this.size = sizeOf(size, 'CenterCrop');
    this.interpolation = options.interpolation ?? 1;
  }

  apply(img: HostImage): HostImage {
    return image.host.centerCrop(img, this.size, { interp: this.interpolation })[0];
  }

  protected override workerConstruction(): WorkerConstruction {
    return {
      cls: CenterCrop,
      name: 'CenterCrop',
      args: [[...this.size], { interpolation: this.interpolation }],
    };
  }
}

/** Options of RandomResizedCrop. */
export interface RandomResizedCropOptions extends RandomOptions {
  /** Area fraction range of the crop (a number `s` means `[s, 1]`); default `[0.08, 1]`. */
  readonly scale?: number | readonly [number, number];
  /** Aspect ratio (w/h) range of the crop; default `[3/4, 4/3]`. */
  readonly ratio?: readonly [number, number];
  /** OpenCV interpolation code (default 1, bilinear). */
  readonly interpolation?: number;
}

/**
 * Inception-style crop: a random area fraction and aspect ratio, resized to `size` (falls back to a
 * centre crop after 10 tries). The draws are mx.image's `random_size_crop`.
 */
export class RandomResizedCrop extends ImageTransformBlock {
  readonly size: readonly [number, number];
  readonly scale: readonly [number, number];
  readonly ratio: readonly [number, number];
  readonly interpolation: number;
  readonly #rng: ImageRng;

  constructor(size: ImageSizeArg, options: RandomResizedCropOptions = {}) {
    super();
    this.size = sizeOf(size, 'RandomResizedCrop');
    const scale = options.scale ?? [0.08, 1.0];
    this.scale = typeof scale === 'number' ? [scale, 1.0] : [scale[0], scale[1]];
    this.ratio = options.ratio ?? [3 / 4, 4 / 3];
    this.interpolation = options.interpolation ?? 1;
    this.#rng = this.draws(options);
  }

  apply(img: HostImage): HostImage {
    return image.host.randomSizeCrop(img, this.size, this.scale, this.ratio, {
      interp: this.interpolation,
      rng: this.#rng,
    })[0];
  }

  protected override workerConstruction(): WorkerConstruction {
    const options: RandomResizedCropOptions = {
      scale: [...this.scale] as [number, number],
      ratio: [...this.ratio] as [number, number],
      interpolation: this.interpolation,
      ...this.randomArgs(),
    };
    return { cls: RandomResizedCrop, name: 'RandomResizedCrop', args: [[...this.size], options] };
  }
}

function flip(img: HostImage, axis: 0 | 1): HostImage {
  if (axis === 1) return image.host.flipLeftRight(img);
  const [h, w, c] = img.shape;
  const row = w * c;
  const out = like(img);
  for (let y = 0; y < h; y++) out.set(img.data.subarray(y * row, (y + 1) * row), (h - 1 - y) * row);
  return { data: out, shape: img.shape };
}

abstract class RandomFlip extends ImageTransformBlock {
  readonly p: number;
  readonly #rng: ImageRng;
  readonly #axis: 0 | 1;

  constructor(axis: 0 | 1, p: number, options: RandomOptions) {
    super();
    this.#axis = axis;
    this.p = checkProb(p, axis === 1 ? 'RandomFlipLeftRight' : 'RandomFlipTopBottom');
    this.#rng = this.draws(options);
  }

  apply(img: HostImage): HostImage {
    if (this.p <= 0) return img;
    if (this.p >= 1 || this.#rng.random() < this.p) return flip(img, this.#axis);
    return img;
  }
}

/** Mirrors the image left-right with probability `p` (default 0.5). */
export class RandomFlipLeftRight extends RandomFlip {
  constructor(p = 0.5, options: RandomOptions = {}) {
    super(1, p, options);
  }

  protected override workerConstruction(): WorkerConstruction {
    return { cls: RandomFlipLeftRight, name: 'RandomFlipLeftRight', args: [this.p, this.randomArgs()] };
  }
}

/** Mirrors the image top-bottom with probability `p` (default 0.5). */
export class RandomFlipTopBottom extends RandomFlip {
  constructor(p = 0.5, options: RandomOptions = {}) {
    super(0, p, options);
  }

  protected override workerConstruction(): WorkerConstruction {
    return { cls: RandomFlipTopBottom, name: 'RandomFlipTopBottom', args: [this.p, this.randomArgs()] };
  }
}
