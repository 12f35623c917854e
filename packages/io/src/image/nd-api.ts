/**
 * `mx.image` on NDArrays: MXNet's function names and arguments, returning promises (decoding is
 * asynchronous, and reading an NDArray's values waits for its pending writes). Each function copies
 * the image to the host, runs the pure transform of transforms.ts / resize.ts and uploads the
 * result to the source's device; HWC uint8 or float32 arrays, as MXNet's image functions take.
 * For many images (an iterator's workers), use the host functions (`image.host`) directly.
 */
import type { Context } from '@mx/base';
import { MXNetError } from '@mx/base';
import type { NDArray } from '@mx/ndarray';
import { readBytes } from '../host.js';
import { type NdLike, ndOf } from '../runtime-of.js';
import { type DecodeOptions, decodeImage } from './decode.js';
import type { HostImage, ImageSize } from './host-image.js';
import { fromHostImage, onHost, toHostImage } from './nd-convert.js';
import { imresize as resizeHost } from './resize.js';
import * as host from './transforms.js';

/** Options of `imdecode` / `imread` on NDArrays: decoding options plus the device of the result. */
export interface ImdecodeOptions extends DecodeOptions {
  /** Device of the decoded array (default: the runtime's default device). */
  readonly ctx?: Context;
}

/**
 * MXNet's `mx.image.imdecode(buf, flag=1, to_rgb=True)`: JPEG or PNG bytes (a Uint8Array or a
 * uint8 NDArray) to an HWC uint8 NDArray, `(h, w, 3)` RGB or `(h, w, 1)` gray.
 */
export async function imdecode(
  runtime: NdLike,
  buf: Uint8Array | NDArray,
  options: ImdecodeOptions = {},
): Promise<NDArray<'uint8'>> {
  let bytes: Uint8Array;
  if (buf instanceof Uint8Array) {
    bytes = buf;
  } else if (buf && typeof (buf as NDArray).data === 'function' && Array.isArray((buf as NDArray).shape)) {
    if (buf.dtype !== 'uint8') {
      throw new MXNetError(`the encoded image must be a uint8 buffer, got a ${buf.dtype} array`, {
        op: 'imdecode',
        shapes: [buf.shape],
        dtypes: [buf.dtype],
        hint: 'pass the file bytes as a Uint8Array, or an NDArray made with dtype uint8',
      });
    }
    bytes = (await buf.data()) as Uint8Array;
  } else {
    bytes = buf as unknown as Uint8Array; // decodeImage reports what it got
  }
  const img = await decodeImage(bytes, options, 'imdecode');
  return fromHostImage(img, ndOf(runtime), options.ctx) as NDArray<'uint8'>;
}

/** MXNet's `mx.image.imread(filename, flag=1, to_rgb=True)` (Node: reads the file, then imdecode). */
export async function imread(
  runtime: NdLike,
  filename: string,
  options: ImdecodeOptions = {},
): Promise<NDArray<'uint8'>> {
  const bytes = readBytes(filename, 'imread', 'image');
  const img = await decodeImage(bytes, options, 'imread');
  return fromHostImage(img, ndOf(runtime), options.ctx) as NDArray<'uint8'>;
}

/** MXNet's `imresize(src, w, h, interp=1)` (OpenCV codes 0-4). */
export function imresize(src: NDArray, w: number, h: number, interp = 1): Promise<NDArray> {
  return onHost(src, 'imresize', (img) => resizeHost(img, w, h, interp));
}

/** MXNet's `resize_short(src, size, interp=2)`. */
export function resizeShort(src: NDArray, size: number, options: host.ResizeOptions = {}): Promise<NDArray> {
  return onHost(src, 'resize_short', (img) => host.resizeShort(img, size, options));
}

/** MXNet's `fixed_crop(src, x0, y0, w, h, size=None, interp=2)`. */
export function fixedCrop(
  src: NDArray,
  x0: number,
  y0: number,
  w: number,
  h: number,
  options: host.FixedCropOptions = {},
): Promise<NDArray> {
  return onHost(src, 'fixed_crop', (img) => host.fixedCrop(img, x0, y0, w, h, options));
}

async function cropWith(
  src: NDArray,
  op: string,
  f: (img: HostImage) => [HostImage, host.CropRect],
): Promise<[NDArray, host.CropRect]> {
  const [out, rect] = f(await toHostImage(src, op));
  return [fromHostImage(out, src.runtime.nd, src.ctx), rect];
}

/** MXNet's `random_crop(src, size, interp=2)`: the crop and its `(x0, y0, w, h)` in `src`. */
export function randomCrop(
  src: NDArray,
  size: ImageSize,
  options: host.ResizeOptions = {},
): Promise<[NDArray, host.CropRect]> {
  return cropWith(src, 'random_crop', (img) => host.randomCrop(img, size, options));
}

/** MXNet's `center_crop(src, size, interp=2)`: the crop and its `(x0, y0, w, h)` in `src`. */
export function centerCrop(
  src: NDArray,
  size: ImageSize,
  options: host.ResizeOptions = {},
): Promise<[NDArray, host.CropRect]> {
  return cropWith(src, 'center_crop', (img) => host.centerCrop(img, size, options));
}

/** MXNet's `random_size_crop(src, size, area, ratio, interp=2)`: the crop and its rectangle. */
export function randomSizeCrop(
  src: NDArray,
  size: ImageSize,
  area: number | readonly [number, number],
  ratio: readonly [number, number],
  options: host.ResizeOptions = {},
): Promise<[NDArray, host.CropRect]> {
  return cropWith(src, 'random_size_crop', (img) => host.randomSizeCrop(img, size, area, ratio, options));
}

/** MXNet's `color_normalize(src, mean, std=None)` on a float32 image. */
export function colorNormalize(
  src: NDArray,
  mean?: host.ChannelValues | null,
  std?: host.ChannelValues | null,
): Promise<NDArray> {
  return onHost(src, 'color_normalize', (img) => host.colorNormalize(img, mean, std));
}

export { scaleDown } from './transforms.js';
