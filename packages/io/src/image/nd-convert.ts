/**
 * NDArray <-> host image copies for the NDArray API: the image functions and augmenters read an
 * array's values (`await src.data()`, after its pending writes), transform them on the host and
 * upload the result to the source's device, the way MXNet runs its OpenCV image ops on the CPU.
 */
import { type Context, MXNetError } from '@mx/base';
import type { NDArray, Nd } from '@mx/ndarray';
import type { HostImage, ImagePixels } from './host-image.js';

/** Checks an HWC uint8 / float32 NDArray and copies its values to a host image. */
export async function toHostImage(src: NDArray, op: string): Promise<HostImage> {
  if (src.shape.length !== 3 || src.shape.some((d) => d < 1)) {
    throw new MXNetError(
      `images are 3-d (height, width, channels) arrays, got shape (${src.shape.join(', ')})`,
      {
        op,
        shapes: [src.shape],
        hint: 'decode with imdecode, or reshape a gray image to [h, w, 1]',
      },
    );
  }
  if (src.dtype !== 'uint8' && src.dtype !== 'float32') {
    throw new MXNetError(`images must be uint8 or float32, got ${src.dtype}`, {
      op,
      shapes: [src.shape],
      dtypes: [src.dtype],
      hint: "cast with .astype('float32')",
    });
  }
  const data = (await src.data()) as ImagePixels;
  return { data, shape: [src.shape[0] as number, src.shape[1] as number, src.shape[2] as number] };
}

/** A new NDArray holding a host image, on `ctx` (default: the runtime's default device). */
export function fromHostImage(img: HostImage, nd: Nd, ctx?: Context): NDArray {
  const dtype = img.data instanceof Uint8Array ? 'uint8' : 'float32';
  return nd.array(img.data, { shape: [...img.shape], dtype, ...(ctx ? { ctx } : {}) });
}

/** Runs a host transform on an NDArray image; the result lives on the source's device. */
export async function onHost(src: NDArray, op: string, f: (img: HostImage) => HostImage): Promise<NDArray> {
  const out = f(await toHostImage(src, op));
  return fromHostImage(out, src.runtime.nd, src.ctx);
}
