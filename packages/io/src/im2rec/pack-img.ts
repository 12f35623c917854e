/**
 * MXNet's `recordio.pack_img` / `unpack_img`: an image record is `pack(header, encoded image)`.
 * MXNet encodes and decodes with OpenCV; here sharp (libvips) does, so both are async (sharp is
 * imported lazily through a computed specifier, so bundles for browsers neither include nor resolve
 * it). Images are host images (`{ data, shape: [h, w, c] }`, uint8) in RGB(A) order — MXNet's
 * `mx.image` order, where OpenCV's arrays are BGR(A); the stored JPEG/PNG is the same picture.
 * Decoding follows OpenCV's `imdecode` flags: 1 color (alpha dropped), 0 gray (OpenCV's formula),
 * -1 as stored (gray, RGB or RGBA; gray+alpha becomes RGBA as OpenCV does). Encoding follows
 * `cv2.imencode`'s parameters: JPEG quality clamped to 1-100 (4:2:0, baseline, no Huffman
 * optimisation, as OpenCV's defaults), PNG compression level clamped to 0-9; a 4-channel image
 * loses its alpha in JPEG, as OpenCV drops it. The bytes differ from OpenCV's encoder's.
 */
import { MXNetError } from '@mx/base';
import { convertPixels, type RawPixels } from '../image/decode.js';
import { checkImage, describeImage, type HostImage } from '../image/host-image.js';
import { type IRHeader, type IRHeaderInit, pack, unpack } from '../recordio/irheader.js';

/** An `imdecode` flag, as OpenCV's: 1 color, 0 gray, -1 unchanged. */
export type ImreadFlag = -1 | 0 | 1;

interface SharpPipeline {
  raw(options?: { depth?: 'uchar' }): SharpPipeline;
  jpeg(options: {
    quality: number;
    chromaSubsampling: string;
    optimiseCoding: boolean;
    progressive: boolean;
  }): SharpPipeline;
  png(options: { compressionLevel: number; adaptiveFiltering: boolean }): SharpPipeline;
  toBuffer(): Promise<Uint8Array>;
  toBuffer(options: { resolveWithObject: true }): Promise<{
    data: Uint8Array;
    info: { width: number; height: number; channels: number };
  }>;
}
type SharpFactory = (
  input: Uint8Array,
  options?: { ignoreIcc?: boolean; raw?: { width: number; height: number; channels: number } },
) => SharpPipeline;

/** Loads sharp (once per call site; Node's module cache makes repeats cheap). */
export async function loadSharp(op: string): Promise<SharpFactory> {
  const specifier = 'sharp';
  try {
    const mod = (await import(/* @vite-ignore */ /* webpackIgnore: true */ specifier)) as {
      default?: SharpFactory;
    };
    return (mod.default ?? mod) as SharpFactory;
  } catch (e) {
    throw new MXNetError('cannot load sharp, the image codec im2rec and packImg use', {
      op,
      cause: e,
      hint: 'install it (npm install sharp); packImg / unpackImg run in Node only',
    });
  }
}

function checkFlag(flag: unknown, op: string): ImreadFlag {
  if (flag !== -1 && flag !== 0 && flag !== 1) {
    throw new MXNetError(
      `the color flag must be 1 (color), 0 (gray) or -1 (unchanged), got ${String(flag)}`,
      {
        op,
        params: { iscolor: flag as number },
      },
    );
  }
  return flag;
}

/** Pixels as stored, to OpenCV's IMREAD_UNCHANGED layout (RGB order): 1, 3 or 4 channels. */
function unchanged(raw: RawPixels): HostImage<Uint8Array> {
  const { data, width: w, height: h, channels: c } = raw;
  if (c !== 2) return { data: new Uint8Array(data.subarray(0, w * h * c)), shape: [h, w, c] };
  const out = new Uint8Array(w * h * 4);
  for (let p = 0; p < w * h; p++) {
    const g = data[2 * p] as number;
    out.set([g, g, g, data[2 * p + 1] as number], 4 * p);
  }
  return { data: out, shape: [h, w, 4] };
}

/**
 * Decodes an encoded image (any format sharp reads) with an OpenCV flag; undecodable bytes give an
 * MXNetError (`cv2.imread` would give None).
 */
export async function decodeWithFlag(
  bytes: Uint8Array,
  flag: ImreadFlag,
  op = 'unpack_img',
  sharp?: SharpFactory,
): Promise<HostImage<Uint8Array>> {
  checkFlag(flag, op);
  const codec = sharp ?? (await loadSharp(op));
  let raw: RawPixels;
  try {
    const { data, info } = await codec(bytes, { ignoreIcc: true })
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true });
    raw = { data, width: info.width, height: info.height, channels: info.channels };
  } catch (e) {
    throw new MXNetError(
      `cannot decode the ${bytes.length}-byte image: ${(e as Error)?.message ?? String(e)}`,
      {
        op,
        cause: e,
        hint: 'the data is not an image sharp reads (JPEG, PNG, WebP, GIF, TIFF, ...), or it is truncated',
      },
    );
  }
  return flag === -1 ? unchanged(raw) : convertPixels(raw, flag, true, op);
}

/** The encodings `packImg` writes, as MXNet's `img_fmt` (case-insensitive). */
export type ImgFmt = '.jpg' | '.jpeg' | '.png' | '.JPG' | '.JPEG' | '.PNG';

/** Encodes a uint8 host image (1, 3 or 4 channels, RGB order) as JPEG or PNG (see the file comment). */
export async function encodeImage(
  img: HostImage,
  quality = 95,
  imgFmt: string = '.jpg',
  op = 'pack_img',
  sharp?: SharpFactory,
): Promise<Uint8Array> {
  const [h, w, c] = checkImage(img, op);
  const fmt = String(imgFmt).toUpperCase();
  const jpeg = fmt === '.JPG' || fmt === '.JPEG';
  if (!jpeg && fmt !== '.PNG') {
    throw new MXNetError(`img_fmt must be '.jpg', '.jpeg' or '.png', got ${JSON.stringify(imgFmt)}`, {
      op,
      params: { img_fmt: String(imgFmt) },
    });
  }
  if (!(img.data instanceof Uint8Array) || c === 2 || c > 4) {
    throw new MXNetError(`can encode uint8 images with 1, 3 or 4 channels, got ${describeImage(img)}`, {
      op,
      shapes: [[h, w, c]],
      hint: 'cast float images to uint8 first (image.host.cast), as cv2.imencode needs 8-bit pixels',
    });
  }
  if (!Number.isFinite(quality)) {
    throw new MXNetError(`quality must be a number, got ${String(quality)}`, { op, params: { quality } });
  }
  let pixels: Uint8Array = img.data;
  let channels = c;
  if (jpeg && c === 4) {
    pixels = new Uint8Array(h * w * 3);
    for (let p = 0; p < h * w; p++) pixels.set(img.data.subarray(4 * p, 4 * p + 3), 3 * p);
    channels = 3;
  }
  const codec = sharp ?? (await loadSharp(op));
  const q = Math.trunc(quality);
  const input = codec(pixels, { raw: { width: w, height: h, channels } });
  const piped = jpeg
    ? input.jpeg({
        quality: Math.min(Math.max(q, 1), 100),
        chromaSubsampling: '4:2:0',
        optimiseCoding: false,
        progressive: false,
      })
    : input.png({ compressionLevel: Math.min(Math.max(q, 0), 9), adaptiveFiltering: false });
  try {
    return new Uint8Array(await piped.toBuffer());
  } catch (e) {
    throw new MXNetError(`cannot encode the ${describeImage(img)} image as ${fmt}`, { op, cause: e });
  }
}

/**
 * MXNet's `recordio.pack_img(header, img, quality=95, img_fmt='.jpg')`: encodes `img` (uint8 HWC,
 * RGB order, 1/3/4 channels) as JPEG (`quality` 1-100) or PNG (`quality` = compression 0-9) and
 * packs it behind `header`. Async, as sharp encodes off the main thread.
 */
export async function packImg(
  header: IRHeaderInit,
  img: HostImage,
  quality = 95,
  imgFmt: string = '.jpg',
): Promise<Uint8Array> {
  return pack(header, await encodeImage(img, quality, imgFmt, 'pack_img'));
}

/**
 * MXNet's `recordio.unpack_img(s, iscolor=-1)`: the header and the decoded image (uint8 HWC in
 * RGB(A) order; -1 keeps the stored channels, 1 gives 3, 0 gives 1). Async.
 */
export async function unpackImg(
  s: Uint8Array,
  iscolor: ImreadFlag = -1,
): Promise<[IRHeader, HostImage<Uint8Array>]> {
  const [header, payload] = unpack(s);
  return [header, await decodeWithFlag(payload, checkFlag(iscolor, 'unpack_img'), 'unpack_img')];
}
