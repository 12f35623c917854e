/**
 * MXNet's image augmenters (python/mxnet/image/image.py): the base class, the composites and the
 * geometric ones (color ones are in color-augmenters.ts). An augmenter is a configuration plus a
 * generator: `apply(img, rng?)` transforms a host image synchronously (what worker threads call,
 * with their own generator), `call(ndarray, rng?)` does the same to an NDArray (MXNet's
 * `aug(src)`), and `dumps()` describes it as MXNet does. Draws come from the `rng` argument, else
 * from the generator given at construction, else from a fresh unseeded `ImageRandom` made on first
 * use; composites hand theirs to their children, so one seeded generator reproduces MXNet's
 * `random.seed(s); np.random.seed(s)` for a whole list.
 */
import { MXNetError } from '@mx/base';
import type { NDArray } from '@mx/ndarray';
import { type AugmenterDump, dumpsAugmenter, type Kwarg } from './dumps.js';
import { checkSize, type HostImage, type ImageDType, type ImageSize } from './host-image.js';
import { onHost } from './nd-convert.js';
import { ImageRandom, type ImageRng } from './random.js';
import { checkInterpParam, getInterpMethod, imresize } from './resize.js';
import { cast, centerCrop, flipLeftRight, randomCrop, randomSizeCrop, resizeShort } from './transforms.js';

export type { AugmenterDump } from './dumps.js';

/** Options every augmenter accepts. */
export interface AugmenterOptions {
  /** Where its random draws come from when `apply` / `call` get no generator. */
  readonly rng?: ImageRng;
}

/** MXNet's `Augmenter`: an image transform with its parameters and a random generator. */
export abstract class Augmenter {
  /** MXNet's class name (`dumps` writes it in lower case). */
  abstract readonly kind: string;
  #rng: ImageRng | undefined;

  constructor(options: AugmenterOptions = {}) {
    this.#rng = options.rng;
  }

  /** The generator used when `apply` / `call` are given none. */
  get rng(): ImageRng {
    this.#rng ??= new ImageRandom();
    return this.#rng;
  }

  /**
   * Transforms a host image. The input is never modified; it may come back as it is when the
   * augmenter leaves it unchanged (a flip that did not happen).
   */
  abstract apply(src: HostImage, rng?: ImageRng): HostImage;

  /** MXNet's `aug(src)` on an NDArray image: a new NDArray on the source's device. */
  call(src: NDArray, rng?: ImageRng): Promise<NDArray> {
    return onHost(src, this.kind, (img) => this.apply(img, rng));
  }

  /** The keyword arguments MXNet records for `dumps`. */
  protected abstract kwargs(): readonly Kwarg[];

  /** MXNet's `dumps()`: `json.dumps([name, kwargs])` as Python writes it. */
  dumps(): AugmenterDump {
    return dumpsAugmenter(this.kind.toLowerCase(), this.kwargs());
  }
}

const sizeKwarg = (size: ImageSize | number): Kwarg => [
  'size',
  typeof size === 'number' ? size : [...size],
  'int',
];

/** MXNet's `SequentialAug(ts)`: applies `ts` in order. */
export class SequentialAug extends Augmenter {
  readonly kind: string = 'SequentialAug';
  readonly ts: readonly Augmenter[];

  constructor(ts: readonly Augmenter[], options: AugmenterOptions = {}) {
    super(options);
    this.ts = [...ts];
  }

  apply(src: HostImage, rng?: ImageRng): HostImage {
    const r = rng ?? this.rng;
    return this.ts.reduce((img, aug) => aug.apply(img, r), src);
  }

  protected kwargs(): readonly Kwarg[] {
    return [];
  }

  /** `[name, [child dumps...]]` (MXNet returns this list, not a string, for composites). */
  override dumps(): AugmenterDump {
    return [this.kind.toLowerCase(), this.ts.map((t) => t.dumps())];
  }
}

/**
 * MXNet's `RandomOrderAug(ts)`: applies `ts` in a random order. Like MXNet it shuffles its own list
 * in place on every call (`random.shuffle(self.ts)`), so each order starts from the previous one.
 */
export class RandomOrderAug extends Augmenter {
  readonly kind: string = 'RandomOrderAug';
  readonly #ts: Augmenter[];

  constructor(ts: readonly Augmenter[], options: AugmenterOptions = {}) {
    super(options);
    this.#ts = [...ts];
  }

  /** The augmenters, in the order of the last call. */
  get ts(): readonly Augmenter[] {
    return [...this.#ts];
  }

  apply(src: HostImage, rng?: ImageRng): HostImage {
    const r = rng ?? this.rng;
    r.shuffle(this.#ts);
    return this.#ts.reduce((img, aug) => aug.apply(img, r), src);
  }

  protected kwargs(): readonly Kwarg[] {
    return [];
  }

  override dumps(): AugmenterDump {
    return [this.kind.toLowerCase(), this.#ts.map((t) => t.dumps())];
  }
}

/** MXNet's `ResizeAug(size, interp=2)`: resizes the shorter side to `size`. */
export class ResizeAug extends Augmenter {
  readonly kind = 'ResizeAug';

  constructor(
    readonly size: number,
    readonly interp = 2,
    options: AugmenterOptions = {},
  ) {
    super(options);
    if (!Number.isInteger(size) || size < 1) {
      throw new MXNetError(`size must be a positive integer, got ${String(size)}`, {
        op: this.kind,
        params: { size },
      });
    }
    checkInterpParam(interp, this.kind);
  }

  apply(src: HostImage, rng?: ImageRng): HostImage {
    return resizeShort(src, this.size, { interp: this.interp, rng: rng ?? this.rng });
  }

  protected kwargs(): readonly Kwarg[] {
    return [sizeKwarg(this.size), ['interp', this.interp, 'int']];
  }
}

/** MXNet's `ForceResizeAug(size, interp=2)`: resizes to `size` `(w, h)`, ignoring the aspect ratio. */
export class ForceResizeAug extends Augmenter {
  readonly kind = 'ForceResizeAug';
  readonly size: ImageSize;

  constructor(
    size: ImageSize,
    readonly interp = 2,
    options: AugmenterOptions = {},
  ) {
    super(options);
    this.size = checkSize(size, this.kind);
    checkInterpParam(interp, this.kind);
  }

  apply(src: HostImage, rng?: ImageRng): HostImage {
    const [w, h] = this.size;
    const code = getInterpMethod(this.interp, [src.shape[0], src.shape[1], h, w], rng ?? this.rng, this.kind);
    return imresize(src, w, h, code);
  }

  protected kwargs(): readonly Kwarg[] {
    return [sizeKwarg(this.size), ['interp', this.interp, 'int']];
  }
}

/** MXNet's `RandomCropAug(size, interp=2)`: `randomCrop` to `size` `(w, h)`. */
export class RandomCropAug extends Augmenter {
  readonly kind = 'RandomCropAug';
  readonly size: ImageSize;

  constructor(
    size: ImageSize,
    readonly interp = 2,
    options: AugmenterOptions = {},
  ) {
    super(options);
    this.size = checkSize(size, this.kind);
    checkInterpParam(interp, this.kind);
  }

  apply(src: HostImage, rng?: ImageRng): HostImage {
    return randomCrop(src, this.size, { interp: this.interp, rng: rng ?? this.rng })[0];
  }

  protected kwargs(): readonly Kwarg[] {
    return [sizeKwarg(this.size), ['interp', this.interp, 'int']];
  }
}

/**
 * MXNet's `RandomSizedCropAug(size, area, ratio, interp=2)`: `randomSizeCrop` (random area fraction
 * and aspect ratio, then resized to `size`).
 */
export class RandomSizedCropAug extends Augmenter {
  readonly kind = 'RandomSizedCropAug';
  readonly size: ImageSize;

  constructor(
    size: ImageSize,
    readonly area: number | readonly [number, number],
    readonly ratio: readonly [number, number],
    readonly interp = 2,
    options: AugmenterOptions = {},
  ) {
    super(options);
    this.size = checkSize(size, this.kind);
    checkInterpParam(interp, this.kind);
  }

  apply(src: HostImage, rng?: ImageRng): HostImage {
    return randomSizeCrop(src, this.size, this.area, this.ratio, {
      interp: this.interp,
      rng: rng ?? this.rng,
    })[0];
  }

  protected kwargs(): readonly Kwarg[] {
    const area = typeof this.area === 'number' ? this.area : [...this.area];
    return [
      sizeKwarg(this.size),
      ['area', area, 'float'],
      ['ratio', [...this.ratio], 'float'],
      ['interp', this.interp, 'int'],
    ];
  }
}

/** MXNet's `CenterCropAug(size, interp=2)`: `centerCrop` to `size` `(w, h)`. */
export class CenterCropAug extends Augmenter {
  readonly kind = 'CenterCropAug';
  readonly size: ImageSize;

  constructor(
    size: ImageSize,
    readonly interp = 2,
    options: AugmenterOptions = {},
  ) {
    super(options);
    this.size = checkSize(size, this.kind);
    checkInterpParam(interp, this.kind);
  }

  apply(src: HostImage, rng?: ImageRng): HostImage {
    return centerCrop(src, this.size, { interp: this.interp, rng: rng ?? this.rng })[0];
  }

  protected kwargs(): readonly Kwarg[] {
    return [sizeKwarg(this.size), ['interp', this.interp, 'int']];
  }
}

/** MXNet's `HorizontalFlipAug(p)`: mirrors left-right with probability `p` (`random() < p`). */
export class HorizontalFlipAug extends Augmenter {
  readonly kind = 'HorizontalFlipAug';

  constructor(
    readonly p: number,
    options: AugmenterOptions = {},
  ) {
    super(options);
  }

  apply(src: HostImage, rng?: ImageRng): HostImage {
    return (rng ?? this.rng).random() < this.p ? flipLeftRight(src) : src;
  }

  protected kwargs(): readonly Kwarg[] {
    return [['p', this.p, 'float']];
  }
}

/** MXNet's `CastAug(typ='float32')`. */
export class CastAug extends Augmenter {
  readonly kind = 'CastAug';

  constructor(
    readonly typ: ImageDType = 'float32',
    options: AugmenterOptions = {},
  ) {
    super(options);
    if (typ !== 'float32' && typ !== 'uint8') {
      throw new MXNetError(`CastAug casts to float32 or uint8, not ${String(typ)}`, {
        op: this.kind,
        params: { typ },
      });
    }
  }

  apply(src: HostImage): HostImage {
    return cast(src, this.typ);
  }

  protected kwargs(): readonly Kwarg[] {
    return [['type', this.typ, 'str']];
  }
}
