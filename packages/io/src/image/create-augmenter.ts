/**
 * MXNet's `CreateAugmenter`: the standard augmenter list of ImageIter, in MXNet's order — resize
 * the short side, crop (random-sized, random or centre), mirror, cast to float32, color jitter
 * (random order), hue, PCA lighting noise, random gray, normalize. Options are MXNet's keyword
 * arguments in camelCase; `rng` is given to every augmenter of the list, so one seeded generator
 * reproduces MXNet's draws for the whole list.
 */
import { MXNetError } from '@mx/base';
import {
  type Augmenter,
  CastAug,
  CenterCropAug,
  HorizontalFlipAug,
  RandomCropAug,
  RandomSizedCropAug,
  ResizeAug,
} from './augmenters.js';
import {
  ColorJitterAug,
  ColorNormalizeAug,
  HueJitterAug,
  IMAGENET_EIGVAL,
  IMAGENET_EIGVEC,
  LightingAug,
  RandomGrayAug,
} from './color-augmenters.js';
import type { ImageRng } from './random.js';
import type { ChannelValues } from './transforms.js';

/** ImageNet's RGB mean, `mean: true` in createAugmenter. */
export const IMAGENET_MEAN: readonly number[] = [123.68, 116.28, 103.53];
/** ImageNet's RGB standard deviation, `std: true` in createAugmenter. */
export const IMAGENET_STD: readonly number[] = [58.395, 57.12, 57.375];

/** MXNet's `CreateAugmenter` keyword arguments (camelCase). */
export interface CreateAugmenterOptions {
  /** Output shape `(channels, height, width)`; the crop is `(width, height)`. */
  readonly dataShape: readonly [number, number, number];
  /** Resize the shorter side to this first, if > 0. Default 0. */
  readonly resize?: number;
  /** Random crop instead of centre crop. Default false. */
  readonly randCrop?: boolean;
  /** Random-sized crop (area 0.08-1, ratio 3/4-4/3); needs `randCrop`. Default false. */
  readonly randResize?: boolean;
  /** Mirror with probability 0.5. Default false. */
  readonly randMirror?: boolean;
  /** Mean to subtract: `true` for ImageNet's, or 1 or 3 values. */
  readonly mean?: boolean | ChannelValues | null;
  /** Standard deviation to divide by: `true` for ImageNet's, or 1 or 3 values. */
  readonly std?: boolean | ChannelValues | null;
  readonly brightness?: number;
  readonly contrast?: number;
  readonly saturation?: number;
  readonly hue?: number;
  /** PCA lighting noise level (LightingAug with ImageNet's eigenvectors). */
  readonly pcaNoise?: number;
  /** Probability of converting to gray (3 channels kept). */
  readonly randGray?: number;
  /** Interpolation of every resize (OpenCV code 0-4, 9 auto, 10 random). Default 2 (bicubic). */
  readonly interMethod?: number;
  /** Generator of every augmenter's draws (default: one fresh unseeded `ImageRandom` per augmenter). */
  readonly rng?: ImageRng;
}

function channelValues(
  v: boolean | ChannelValues | null | undefined,
  defaults: readonly number[],
  name: string,
): ChannelValues | null {
  if (v === undefined || v === null || v === false) return null;
  if (v === true) return [...defaults];
  const list = typeof v === 'number' ? [v] : v;
  if (!Array.isArray(list) || (list.length !== 1 && list.length !== 3) || !list.every(Number.isFinite)) {
    throw new MXNetError(
      `${name} must be true, or 1 or 3 numbers (one per channel), got ${JSON.stringify(v)}`,
      {
        op: 'CreateAugmenter',
        params: { [name]: v },
      },
    );
  }
  return typeof v === 'number' ? v : [...list];
}

/** MXNet's `CreateAugmenter(data_shape, ...)`: the standard augmenter list. */
export function createAugmenter(options: CreateAugmenterOptions): Augmenter[] {
  const op = 'CreateAugmenter';
  const shape = options.dataShape;
  if (!Array.isArray(shape) || shape.length !== 3 || !shape.every((d) => Number.isInteger(d) && d > 0)) {
    throw new MXNetError(`dataShape must be (channels, height, width), got ${JSON.stringify(shape)}`, {
      op,
      params: { dataShape: shape },
    });
  }
  const interp = options.interMethod ?? 2;
  const aug = options.rng === undefined ? {} : { rng: options.rng };
  const list: Augmenter[] = [];
  if ((options.resize ?? 0) > 0) list.push(new ResizeAug(options.resize as number, interp, aug));
  const crop = [shape[2], shape[1]] as const;
  if (options.randResize) {
    if (!options.randCrop) {
      throw new MXNetError('randResize needs randCrop', {
        op,
        params: { randResize: true, randCrop: false },
      });
    }
    list.push(new RandomSizedCropAug(crop, 0.08, [3.0 / 4.0, 4.0 / 3.0], interp, aug));
  } else if (options.randCrop) {
    list.push(new RandomCropAug(crop, interp, aug));
  } else {
    list.push(new CenterCropAug(crop, interp, aug));
  }
  if (options.randMirror) list.push(new HorizontalFlipAug(0.5, aug));
  list.push(new CastAug('float32', aug));
  const { brightness = 0, contrast = 0, saturation = 0 } = options;
  if (brightness || contrast || saturation)
    list.push(new ColorJitterAug(brightness, contrast, saturation, aug));
  if (options.hue) list.push(new HueJitterAug(options.hue, aug));
  if ((options.pcaNoise ?? 0) > 0) {
    list.push(new LightingAug(options.pcaNoise as number, IMAGENET_EIGVAL, IMAGENET_EIGVEC, aug));
  }
  if ((options.randGray ?? 0) > 0) list.push(new RandomGrayAug(options.randGray as number, aug));
  const mean = channelValues(options.mean, IMAGENET_MEAN, 'mean');
  const std = channelValues(options.std, IMAGENET_STD, 'std');
  if (mean !== null || std !== null) list.push(new ColorNormalizeAug(mean, std, aug));
  return list;
}
