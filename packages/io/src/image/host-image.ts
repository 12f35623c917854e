/**
 * Host images: HWC pixels in a plain typed array, `{ data, shape: [height, width, channels] }`.
 * Every transform in this folder is a pure function on them, so that decoding and augmentation
 * can run where no NDArray runtime exists (the worker threads of an image record iterator); the
 * NDArray API (`nd-api.ts`) copies to and from them. Pixels are uint8 (decoded images) or
 * float32 (after `CastAug`, as MXNet's augmenters work on float32 NDArrays).
 */
import { MXNetError } from '@mx/base';

/** Element types of host images. */
export type ImageDType = 'uint8' | 'float32';
/** The typed arrays behind host images. */
export type ImagePixels = Uint8Array | Float32Array;

/** An HWC image in host memory (row-major: pixel (y, x) channel k is `data[(y * w + x) * c + k]`). */
export interface HostImage<P extends ImagePixels = ImagePixels> {
  readonly data: P;
  /** `[height, width, channels]`. */
  readonly shape: readonly [number, number, number];
}

/** `(w, h)` as MXNet writes sizes: width first. */
export type ImageSize = readonly [width: number, height: number];

/** The dtype of a host image's pixels. */
export function dtypeOf(img: HostImage): ImageDType {
  return img.data instanceof Uint8Array ? 'uint8' : 'float32';
}

/** `(h, w, c) dtype`, for messages. */
export function describeImage(img: HostImage): string {
  return `(${img.shape.join(', ')}) ${dtypeOf(img)}`;
}

function isPositiveInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v > 0;
}

/**
 * Checks that `img` is a well-formed host image (3-d positive shape matching the data length,
 * Uint8Array or Float32Array) and returns its `[h, w, c]`.
 */
export function checkImage(img: HostImage, op: string): readonly [number, number, number] {
  const shape = img?.shape as readonly unknown[] | undefined;
  const data = img?.data as unknown;
  if (!(data instanceof Uint8Array || data instanceof Float32Array)) {
    const got = data === undefined ? 'nothing' : ((data as object)?.constructor?.name ?? typeof data);
    throw new MXNetError(`an image's data must be a Uint8Array or a Float32Array, got ${got}`, {
      op,
      hint: 'decode images with imdecode, or cast them with CastAug',
    });
  }
  if (!Array.isArray(shape) || shape.length !== 3 || !shape.every(isPositiveInt)) {
    throw new MXNetError(`an image needs a shape [height, width, channels] of positive integers`, {
      op,
      shapes: Array.isArray(shape) ? [shape as number[]] : [],
      hint: 'images are HWC (use .reshape for a 2-d gray image: [h, w, 1])',
    });
  }
  const [h, w, c] = shape as [number, number, number];
  if (h * w * c !== data.length) {
    throw new MXNetError(`shape (${h}, ${w}, ${c}) needs ${h * w * c} values, the data has ${data.length}`, {
      op,
      shapes: [[h, w, c]],
    });
  }
  return [h, w, c];
}

/** Checks a float32 image (the color augmenters' input: MXNet applies them after CastAug). */
export function requireFloat(img: HostImage<ImagePixels>, op: string): HostImage<Float32Array> {
  checkImage(img, op);
  if (!(img.data instanceof Float32Array)) {
    throw new MXNetError(`needs a float32 image, got ${describeImage(img)}`, {
      op,
      shapes: [[...img.shape]],
      dtypes: [dtypeOf(img)],
      hint: 'cast first (CastAug, or createAugmenter, which puts a CastAug before the color augmenters)',
    });
  }
  return img as HostImage<Float32Array>;
}

/** Checks that an image has exactly `channels` channels. */
export function requireChannels(img: HostImage, op: string, channels: number): void {
  if (img.shape[2] !== channels) {
    throw new MXNetError(`needs ${channels}-channel (RGB) images, got ${describeImage(img)}`, {
      op,
      shapes: [[...img.shape]],
      hint: channels === 3 ? 'decode with flag=1 (color) for color augmenters' : undefined,
    });
  }
}

/** A new image of the given dtype and shape (zeros). */
export function allocImage(dtype: ImageDType, h: number, w: number, c: number): HostImage {
  const n = h * w * c;
  return { data: dtype === 'uint8' ? new Uint8Array(n) : new Float32Array(n), shape: [h, w, c] };
}

/** A host image from a typed array and a shape, checked. */
export function hostImage<P extends ImagePixels>(data: P, shape: readonly number[]): HostImage<P> {
  const img = { data, shape: shape as unknown as readonly [number, number, number] };
  checkImage(img, 'hostImage');
  return { data, shape: [shape[0] as number, shape[1] as number, shape[2] as number] };
}

/** Checks a `(w, h)` size of positive integers. */
export function checkSize(size: ImageSize, op: string, what = 'size'): readonly [number, number] {
  if (!Array.isArray(size) || size.length !== 2 || !size.every(isPositiveInt)) {
    throw new MXNetError(
      `${what} must be (width, height) as two positive integers, got ${JSON.stringify(size)}`,
      {
        op,
        params: { [what]: size as unknown },
      },
    );
  }
  return [size[0], size[1]];
}
