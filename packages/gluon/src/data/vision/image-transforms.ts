/**
 * The image transforms of MXNet's gluon.data.vision.transforms, in three modules to keep each
 * readable: image-base.ts (the base class, generators, worker descriptions), image-geometry.ts
 * (Resize, CenterCrop, RandomResizedCrop, flips) and image-color.ts (the colour jitters, lighting,
 * gray). This module is their public face, re-exported by transforms.ts.
 */
export { type ImageSizeArg, ImageTransformBlock, type RandomOptions } from './image-base.js';
export {
  adjustBrightness,
  adjustContrast,
  adjustHue,
  adjustLighting,
  adjustSaturation,
  type ColorJitterOptions,
  RandomBrightness,
  RandomColorJitter,
  RandomContrast,
  RandomGray,
  RandomHue,
  RandomLighting,
  RandomSaturation,
} from './image-color.js';
export {
  CenterCrop,
  RandomFlipLeftRight,
  RandomFlipTopBottom,
  RandomResizedCrop,
  type RandomResizedCropOptions,
  Resize,
  type ResizeOptions,
} from './image-geometry.js';
