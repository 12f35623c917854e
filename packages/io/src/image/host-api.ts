/**
 * `image.host`: the image functions on host images (`{ data, shape: [h, w, c] }` typed arrays),
 * synchronous except decoding and needing no NDArray runtime — what an iterator's worker threads
 * use. Same names and semantics as the NDArray functions of `image`, plus the color formulas with
 * their random factor passed in.
 */
export {
  addChannelOffset,
  adjustBrightness,
  adjustContrast,
  adjustHue,
  adjustSaturation,
  pcaOffset,
  toGray,
} from './color.js';
export {
  type CanvasPlatform,
  convertPixels,
  type DecodeFnOptions,
  type DecodeOptions,
  decodeImage as imdecode,
  decodeWithCanvas,
  type ImageDecodeFn,
  type ImageRegion,
  imageDecoder,
  type RawPixels,
  sniffFormat,
} from './decode.js';
export { imageSize } from './header.js';
export { checkImage, describeImage, dtypeOf, hostImage } from './host-image.js';
export { imresize } from './resize.js';
export {
  cast,
  centerCrop,
  colorNormalize,
  fixedCrop,
  flipLeftRight,
  randomCrop,
  randomSizeCrop,
  resizeShort,
  scaleDown,
} from './transforms.js';
export { type AffineMatrix, warpAffine } from './warp.js';
