/**
 * `mx.image` for TypeScript: decoding (JPEG, PNG), resizing, crops, normalization and MXNet's
 * augmenters with `createAugmenter`. Images are HWC arrays, uint8 as decoded (RGB by default) and
 * float32 after `CastAug`. The functions here take and return NDArrays (asynchronously); the same
 * functions on plain typed arrays, for worker threads without a runtime, are in `host`.
 * Interpolation codes are OpenCV's, as MXNet passes them to cv::resize (0 nearest, 1 bilinear,
 * 2 bicubic, 3 area, 4 Lanczos; 9 auto, 10 random where MXNet allows them).
 */
export {
  Augmenter,
  type AugmenterDump,
  type AugmenterOptions,
  CastAug,
  CenterCropAug,
  ForceResizeAug,
  HorizontalFlipAug,
  RandomCropAug,
  RandomOrderAug,
  RandomSizedCropAug,
  ResizeAug,
  SequentialAug,
} from './augmenters.js';
export {
  BrightnessJitterAug,
  ColorJitterAug,
  ColorNormalizeAug,
  ContrastJitterAug,
  HueJitterAug,
  IMAGENET_EIGVAL,
  IMAGENET_EIGVEC,
  LightingAug,
  RandomGrayAug,
  SaturationJitterAug,
} from './color-augmenters.js';
export {
  type CreateAugmenterOptions,
  createAugmenter,
  IMAGENET_MEAN,
  IMAGENET_STD,
} from './create-augmenter.js';
export type { DecodeOptions } from './decode.js';
export * as host from './host-api.js';
export type { HostImage, ImageDType, ImagePixels, ImageSize } from './host-image.js';
export { ImageIter, type ImageIterOptions } from './image-iter.js';
export {
  centerCrop,
  colorNormalize,
  fixedCrop,
  type ImdecodeOptions,
  imdecode,
  imread,
  imresize,
  randomCrop,
  randomSizeCrop,
  resizeShort,
  scaleDown,
} from './nd-api.js';
export { ImageRandom, type ImageRandomSeed, type ImageRng } from './random.js';
export {
  getInterpMethod,
  INTER_AREA,
  INTER_CUBIC,
  INTER_LANCZOS4,
  INTER_LINEAR,
  INTER_NEAREST,
  type InterpCode,
} from './resize.js';
export type { ChannelValues, CropRect, FixedCropOptions, ResizeOptions } from './transforms.js';
export { type AffineMatrix, warpAffine } from './warp.js';
