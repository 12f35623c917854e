/**
 * MXNet's color augmenters: each draws its factor the way MXNet does (Python's `random.uniform`,
 * or NumPy's `normal` for LightingAug) and applies the float32 pixel math of color.ts. They work on
 * float32 RGB images, so they come after a CastAug (as createAugmenter orders them); a uint8 or
 * non-RGB image is refused with an MXNetError.
 */
import { MXNetError } from '@mx/base';
import { Augmenter, type AugmenterOptions, RandomOrderAug } from './augmenters.js';
import {
  addChannelOffset,
  adjustBrightness,
  adjustContrast,
  adjustHue,
  adjustSaturation,
  pcaOffset,
  toGray,
} from './color.js';
import type { Kwarg } from './dumps.js';
import type { HostImage } from './host-image.js';
import type { ImageRng } from './random.js';
import { type ChannelValues, colorNormalize } from './transforms.js';

function checkRange(value: number, name: string, op: string): number {
  if (!Number.isFinite(value) || value < 0) {
    throw new MXNetError(`${name} must be a finite number >= 0, got ${String(value)}`, {
      op,
      params: { [name]: value },
    });
  }
  return value;
}

/** MXNet's `BrightnessJitterAug(brightness)`: `src * (1 + uniform(-brightness, brightness))`. */
export class BrightnessJitterAug extends Augmenter {
  readonly kind = 'BrightnessJitterAug';

  constructor(
    readonly brightness: number,
    options: AugmenterOptions = {},
  ) {
    super(options);
    checkRange(brightness, 'brightness', this.kind);
  }

  apply(src: HostImage, rng?: ImageRng): HostImage {
    const alpha = 1.0 + (rng ?? this.rng).uniform(-this.brightness, this.brightness);
    return adjustBrightness(src, alpha);
  }

  protected kwargs(): readonly Kwarg[] {
    return [['brightness', this.brightness, 'float']];
  }
}

/** MXNet's `ContrastJitterAug(contrast)`: blends with the mean luma, alpha in 1 +- contrast. */
export class ContrastJitterAug extends Augmenter {
  readonly kind = 'ContrastJitterAug';

  constructor(
    readonly contrast: number,
    options: AugmenterOptions = {},
  ) {
    super(options);
    checkRange(contrast, 'contrast', this.kind);
  }

  apply(src: HostImage, rng?: ImageRng): HostImage {
    const alpha = 1.0 + (rng ?? this.rng).uniform(-this.contrast, this.contrast);
    return adjustContrast(src, alpha);
  }

  protected kwargs(): readonly Kwarg[] {
    return [['contrast', this.contrast, 'float']];
  }
}

/** MXNet's `SaturationJitterAug(saturation)`: blends each pixel with its luma, alpha in 1 +- saturation. */
export class SaturationJitterAug extends Augmenter {
  readonly kind = 'SaturationJitterAug';

  constructor(
    readonly saturation: number,
    options: AugmenterOptions = {},
  ) {
    super(options);
    checkRange(saturation, 'saturation', this.kind);
  }

  apply(src: HostImage, rng?: ImageRng): HostImage {
    const alpha = 1.0 + (rng ?? this.rng).uniform(-this.saturation, this.saturation);
    return adjustSaturation(src, alpha);
  }

  protected kwargs(): readonly Kwarg[] {
    return [['saturation', this.saturation, 'float']];
  }
}

/** MXNet's `HueJitterAug(hue)`: rotates the hue by `uniform(-hue, hue) * pi` in YIQ space. */
export class HueJitterAug extends Augmenter {
  readonly kind = 'HueJitterAug';

  constructor(
    readonly hue: number,
    options: AugmenterOptions = {},
  ) {
    super(options);
    checkRange(hue, 'hue', this.kind);
  }

  apply(src: HostImage, rng?: ImageRng): HostImage {
    const alpha = (rng ?? this.rng).uniform(-this.hue, this.hue);
    return adjustHue(src, alpha);
  }

  protected kwargs(): readonly Kwarg[] {
    return [['hue', this.hue, 'float']];
  }
}

/**
 * MXNet's `ColorJitterAug(brightness, contrast, saturation)`: the jitters whose range is > 0, in a
 * random order (a RandomOrderAug).
 */
export class ColorJitterAug extends RandomOrderAug {
  override readonly kind = 'ColorJitterAug';

  constructor(brightness: number, contrast: number, saturation: number, options: AugmenterOptions = {}) {
    const ts: Augmenter[] = [];
    if (brightness > 0) ts.push(new BrightnessJitterAug(brightness, options));
    if (contrast > 0) ts.push(new ContrastJitterAug(contrast, options));
    if (saturation > 0) ts.push(new SaturationJitterAug(saturation, options));
    super(ts, options);
  }
}

/** ImageNet's RGB eigenvalues, as MXNet's createAugmenter uses for `pca_noise`. */
export const IMAGENET_EIGVAL: readonly number[] = [55.46, 4.794, 1.148];
/** ImageNet's RGB eigenvectors (rows), as MXNet's createAugmenter uses for `pca_noise`. */
export const IMAGENET_EIGVEC: readonly (readonly number[])[] = [
  [-0.5675, 0.7192, 0.4009],
  [-0.5808, -0.0045, -0.814],
  [-0.5836, -0.6948, 0.4203],
];

/**
 * MXNet's `LightingAug(alphastd, eigval, eigvec)`: AlexNet's PCA noise, adding
 * `eigvec . (alpha * eigval)` with `alpha` three draws of NumPy's `normal(0, alphastd)`.
 */
export class LightingAug extends Augmenter {
  readonly kind = 'LightingAug';
  readonly eigval: readonly number[];
  readonly eigvec: readonly (readonly number[])[];

  constructor(
    readonly alphastd: number,
    eigval: readonly number[],
    eigvec: readonly (readonly number[])[],
    options: AugmenterOptions = {},
  ) {
    super(options);
    checkRange(alphastd, 'alphastd', this.kind);
    const ok3 = (v: unknown): v is readonly number[] =>
      Array.isArray(v) && v.length === 3 && v.every((x) => Number.isFinite(x));
    if (!ok3(eigval) || !Array.isArray(eigvec) || eigvec.length !== 3 || !eigvec.every(ok3)) {
      throw new MXNetError('eigval must be 3 numbers and eigvec 3 rows of 3 numbers', {
        op: this.kind,
        params: { eigval, eigvec },
      });
    }
    this.eigval = [...eigval];
    this.eigvec = eigvec.map((r) => [...r]);
  }

  apply(src: HostImage, rng?: ImageRng): HostImage {
    const r = rng ?? this.rng;
    const alpha = [0, 1, 2].map(() => r.normal(0, this.alphastd));
    return addChannelOffset(src, pcaOffset(alpha, this.eigval, this.eigvec));
  }

  protected kwargs(): readonly Kwarg[] {
    return [
      ['alphastd', this.alphastd, 'float'],
      ['eigval', [...this.eigval], 'float'],
      ['eigvec', this.eigvec.map((row) => [...row]), 'float'],
    ];
  }
}

/** MXNet's `ColorNormalizeAug(mean, std)`: `colorNormalize` (float32 input). */
export class ColorNormalizeAug extends Augmenter {
  readonly kind = 'ColorNormalizeAug';

  constructor(
    readonly mean: ChannelValues | null,
    readonly std: ChannelValues | null,
    options: AugmenterOptions = {},
  ) {
    super(options);
    for (const [name, v] of [
      ['mean', mean],
      ['std', std],
    ] as const) {
      const list = typeof v === 'number' ? [v] : v;
      if (list !== null && (!Array.isArray(list) || list.length === 0 || !list.every(Number.isFinite))) {
        throw new MXNetError(
          `${name} must be null, a number or a list of numbers, got ${JSON.stringify(v)}`,
          {
            op: this.kind,
            params: { [name]: v },
          },
        );
      }
    }
  }

  apply(src: HostImage): HostImage {
    return colorNormalize(src, this.mean, this.std);
  }

  protected kwargs(): readonly Kwarg[] {
    const list = (v: ChannelValues | null) => (v === null || typeof v === 'number' ? v : [...v]);
    return [
      ['mean', list(this.mean), 'float'],
      ['std', list(this.std), 'float'],
    ];
  }
}

/**
 * MXNet's `RandomGrayAug(p)`: with probability `p` (`random() < p`) every channel becomes
 * `0.21 R + 0.72 G + 0.07 B` (still 3 channels).
 */
export class RandomGrayAug extends Augmenter {
  readonly kind = 'RandomGrayAug';

  constructor(
    readonly p: number,
    options: AugmenterOptions = {},
  ) {
    super(options);
  }

  apply(src: HostImage, rng?: ImageRng): HostImage {
    return (rng ?? this.rng).random() < this.p ? toGray(src) : src;
  }

  protected kwargs(): readonly Kwarg[] {
    return [['p', this.p, 'float']];
  }
}
