/**
 * Image decoding to host images (MXNet's `imdecode`: OpenCV's `cv::imdecode` + BGR->RGB).
 *
 * - Node: sharp (libvips), imported lazily with a computed specifier so that bundles for browsers
 *   neither include nor resolve it. ICC profiles are ignored, as OpenCV ignores them. EXIF
 *   orientation is not applied: the pixels come as stored (newer OpenCV versions rotate by it).
 * - Browsers: `BrowserDecoder` (decode-browser.ts). JPEGs and opaque PNGs through
 *   `createImageBitmap` + a 2d `OffscreenCanvas`; PNGs with alpha through WebCodecs' `ImageDecoder`
 *   or WebGL2, which keep the stored colors of transparent pixels (a 2d canvas premultiplies them
 *   away), with the 2d canvas as the last resort. 16-bit PNGs are reduced to 8 bits by the browser.
 *
 * Both give interleaved 8-bit pixels with 1-4 channels, converted here like OpenCV: flag=1 gives
 * 3 channels (alpha dropped, not composited; gray replicated), flag=0 one gray channel from
 * OpenCV's fixed-point RGB->gray, `(4899 R + 9617 G + 1868 B + 8192) >> 14`. (For JPEG, OpenCV asks
 * libjpeg for the luma plane instead; the two differ by a unit or two.) Only JPEG and PNG are
 * accepted, recognised by their signatures.
 */
import { MXNetError } from '@mx/base';
import { BrowserDecoder, type RawPixels } from './decode-browser.js';
import { imageSize } from './header.js';
import type { HostImage } from './host-image.js';

export { type CanvasPlatform, decodeWithCanvas, type RawPixels } from './decode-browser.js';

/** Options of `imdecode` / `imread`. */
export interface DecodeOptions {
  /** 1 (default): 3-channel color; 0: 1-channel gray. */
  readonly flag?: 0 | 1;
  /** RGB order (default true, MXNet's); false gives OpenCV's BGR. */
  readonly toRgb?: boolean;
  /**
   * Decoder: 'auto' (default: sharp in Node, the browser's decoders elsewhere), 'sharp', or 'canvas'
   * (the browser's: createImageBitmap with a 2d canvas, WebCodecs or WebGL2 for PNGs with alpha).
   */
  readonly backend?: 'auto' | 'sharp' | 'canvas';
}

type ImageFormat = 'jpeg' | 'png';

/** JPEG (FF D8 FF) or PNG (its 8-byte signature), else undefined. */
export function sniffFormat(bytes: Uint8Array): ImageFormat | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length >= 8 && png.every((b, i) => bytes[i] === b)) return 'png';
  return undefined;
}

function hexHead(bytes: Uint8Array): string {
  return Array.from(bytes.subarray(0, 8), (b) => b.toString(16).padStart(2, '0')).join(' ');
}

/** Interleaved 1-4 channel pixels to MXNet's layout: 3 channels (RGB or BGR) or 1 gray channel. */
export function convertPixels(
  raw: RawPixels,
  flag: 0 | 1,
  toRgb: boolean,
  op = 'imdecode',
): HostImage<Uint8Array> {
  const { data, width: w, height: h, channels: c } = raw;
  if (!(c >= 1 && c <= 4) || data.length < w * h * c) {
    throw new MXNetError(`the decoder gave ${data.length} bytes for a ${w}x${h} image with ${c} channels`, {
      op,
    });
  }
  const n = w * h;
  if (flag === 0) {
    const out = new Uint8Array(n);
    for (let p = 0; p < n; p++) {
      const s = p * c;
      out[p] =
        c < 3
          ? (data[s] as number)
          : (4899 * (data[s] as number) +
              9617 * (data[s + 1] as number) +
              1868 * (data[s + 2] as number) +
              8192) >>
            14;
    }
    return { data: out, shape: [h, w, 1] };
  }
  if (c === 3 && toRgb && data instanceof Uint8Array) {
    // Already MXNet's layout: a plain Uint8Array over the decoder's own memory when it owns a whole
    // ArrayBuffer (sharp's output does), else a copy (Node Buffers can be views into a pool).
    const own =
      data.byteOffset === 0 && data.buffer.byteLength === n * 3 && data.buffer instanceof ArrayBuffer;
    return {
      data: own ? new Uint8Array(data.buffer, 0, n * 3) : new Uint8Array(data.subarray(0, n * 3)),
      shape: [h, w, 3],
    };
  }
  const out = new Uint8Array(n * 3);
  const [r, b] = toRgb ? [0, 2] : [2, 0];
  if (c < 3) {
    for (let p = 0, s = 0, o = 0; p < n; p++, s += c, o += 3) {
      const g = data[s] as number;
      out[o] = g;
      out[o + 1] = g;
      out[o + 2] = g;
    }
  } else {
    for (let p = 0, s = 0, o = 0; p < n; p++, s += c, o += 3) {
      out[o + r] = data[s] as number;
      out[o + 1] = data[s + 1] as number;
      out[o + b] = data[s + 2] as number;
    }
  }
  return { data: out, shape: [h, w, 3] };
}

interface SharpPipeline {
  raw(options?: { depth?: 'uchar' }): SharpPipeline;
  extract(area: { left: number; top: number; width: number; height: number }): SharpPipeline;
  metadata(): Promise<{ width?: number; height?: number }>;
  toBuffer(options: { resolveWithObject: true }): Promise<{
    data: Uint8Array;
    info: { width: number; height: number; channels: number };
  }>;
}
type SharpFactory = (input: Uint8Array, options?: { ignoreIcc?: boolean }) => SharpPipeline;

async function loadSharp(op: string): Promise<SharpFactory> {
  const specifier = 'sharp';
  try {
    const mod = (await import(/* @vite-ignore */ /* webpackIgnore: true */ specifier)) as {
      default?: SharpFactory;
    };
    return (mod.default ?? mod) as SharpFactory;
  } catch (e) {
    throw new MXNetError('cannot load sharp, the image decoder for Node', {
      op,
      cause: e,
      hint: "install it (npm install sharp), or pass { backend: 'canvas' } where createImageBitmap exists",
    });
  }
}

function sharpRaw(
  sharp: SharpFactory,
): (bytes: Uint8Array, format: ImageFormat, region?: ImageRegion) => Promise<RawPixels> {
  return async (bytes, _format, region) => {
    let pipeline = sharp(bytes, { ignoreIcc: true });
    if (region !== undefined) {
      const header = imageSize(bytes);
      const { width, height } = header ? { width: header[0], height: header[1] } : await pipeline.metadata();
      checkRegion(region, width, height, 'imdecode');
      pipeline = pipeline.extract({
        left: region.x,
        top: region.y,
        width: region.width,
        height: region.height,
      });
    }
    const { data, info } = await pipeline.raw({ depth: 'uchar' }).toBuffer({
      resolveWithObject: true,
    });
    return { data, width: info.width, height: info.height, channels: info.channels };
  };
}

function isNode(): boolean {
  const proc = (globalThis as { process?: { versions?: { node?: string } } }).process;
  return typeof proc?.versions?.node === 'string';
}

/** Decodes one image with a decoder already loaded (`imageDecoder`). */
export type ImageDecodeFn = (bytes: Uint8Array, options?: DecodeFnOptions) => Promise<HostImage<Uint8Array>>;

/** A rectangle of an image, in pixels (the left column and top row, then the size). */
export interface ImageRegion {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** Options of an {@link ImageDecodeFn}: `imdecode`'s, and a region to decode alone. */
export interface DecodeFnOptions extends Omit<DecodeOptions, 'backend'> {
  /**
   * Give only this rectangle of the image: the same pixels as decoding it whole and cropping
   * (`fixedCrop`), but libvips then converts and copies out only the region (a 224x224 crop of a
   * 500x375 JPEG decodes 1.3x faster). It must lie inside the image (`imageSize` reads the size
   * from the header); otherwise an MXNetError.
   */
  readonly region?: ImageRegion;
}

function checkInput(bytes: Uint8Array, flag: unknown, op: string): ImageFormat {
  if (flag !== 0 && flag !== 1) {
    throw new MXNetError(`flag must be 1 (color) or 0 (gray), got ${String(flag)}`, { op, params: { flag } });
  }
  if (!(bytes instanceof Uint8Array)) {
    const got = (bytes as object | undefined)?.constructor?.name ?? typeof bytes;
    throw new MXNetError(`expects the encoded image as a Uint8Array, got ${got}`, {
      op,
      hint: 'read the file as bytes (fs.readFileSync, or await blob.arrayBuffer())',
    });
  }
  const format = sniffFormat(bytes);
  if (!format) {
    const head = bytes.length ? hexHead(bytes) : 'nothing';
    throw new MXNetError(
      `the ${bytes.length} bytes given are not a JPEG or PNG image (they start with ${head})`,
      {
        op,
        hint: 'only JPEG and PNG are decoded; a JPEG starts with ff d8 ff, a PNG with 89 50 4e 47 0d 0a 1a 0a',
      },
    );
  }
  return format;
}

/** A loaded decoder: sharp's, or a `BrowserDecoder` (which holds a WebGL2 context once needed). */
interface RawDecoder {
  decode(bytes: Uint8Array, format: ImageFormat, region?: ImageRegion): Promise<RawPixels>;
  dispose?(): void;
}

async function rawDecoder(backend: DecodeOptions['backend'] = 'auto', op = 'imdecode'): Promise<RawDecoder> {
  if (backend === 'sharp' || (backend === 'auto' && isNode())) {
    return { decode: sharpRaw(await loadSharp(op)) };
  }
  const browser = new BrowserDecoder(op);
  return {
    decode: async (bytes, format, region) => cropRaw(await browser.decode(bytes, format), region, op),
    dispose: () => browser.dispose(),
  };
}

/** The region of decoded pixels (browsers decode whole images); checks that it fits. */
function cropRaw(raw: RawPixels, region: ImageRegion | undefined, op: string): RawPixels {
  if (region === undefined) return raw;
  checkRegion(region, raw.width, raw.height, op);
  const { width: w, channels: c } = raw;
  const out = new Uint8Array(region.width * region.height * c);
  const row = region.width * c;
  for (let y = 0; y < region.height; y++) {
    const from = ((region.y + y) * w + region.x) * c;
    out.set(raw.data.subarray(from, from + row), y * row);
  }
  return { data: out, width: region.width, height: region.height, channels: c };
}

function checkRegion(
  r: ImageRegion,
  width: number | undefined,
  height: number | undefined,
  op: string,
): void {
  const ints = [r.x, r.y, r.width, r.height].every(Number.isSafeInteger);
  const fits =
    ints &&
    r.x >= 0 &&
    r.y >= 0 &&
    r.width > 0 &&
    r.height > 0 &&
    (width === undefined || r.x + r.width <= width) &&
    (height === undefined || r.y + r.height <= height);
  if (!fits) {
    const size = width === undefined ? 'the image' : `the ${width}x${height} image`;
    throw new MXNetError(`region ${JSON.stringify(r)} is not a non-empty rectangle inside ${size}`, {
      op,
      params: { region: r },
      hint: 'x, y >= 0, width, height >= 1, x + width <= image width, y + height <= image height',
    });
  }
}

async function decodeWith(
  decoder: RawDecoder,
  bytes: Uint8Array,
  options: DecodeFnOptions,
  op: string,
): Promise<HostImage<Uint8Array>> {
  const { flag = 1, toRgb = true, region } = options;
  const format = checkInput(bytes, flag, op);
  if (region !== undefined) checkRegion(region, undefined, undefined, op);
  let pixels: RawPixels;
  try {
    pixels = await decoder.decode(bytes, format, region);
  } catch (e) {
    if (e instanceof MXNetError) throw e;
    const why = (e as Error)?.message ?? String(e);
    throw new MXNetError(`cannot decode the ${bytes.length}-byte ${format.toUpperCase()} image: ${why}`, {
      op,
      cause: e,
      hint: 'the data is truncated or corrupt',
    });
  }
  return convertPixels(pixels, flag, toRgb, op);
}

/**
 * Loads the platform's decoder once ('auto': sharp in Node, the browser's decoders elsewhere) and
 * returns a function that decodes with it — for loops over many images (an iterator's worker),
 * where `decodeImage` would look the decoder up (and, in browsers, make a WebGL2 context for an
 * image with alpha where WebCodecs is missing) on every call.
 */
export async function imageDecoder(
  backend: DecodeOptions['backend'] = 'auto',
  op = 'imdecode',
): Promise<ImageDecodeFn> {
  const decoder = await rawDecoder(backend, op);
  return (bytes, options = {}) => decodeWith(decoder, bytes, options, op);
}

/**
 * Decodes JPEG or PNG bytes to an HWC uint8 host image (MXNet's `imdecode`). Not-image bytes,
 * other formats and undecodable data are refused with an MXNetError saying what was given.
 */
export async function decodeImage(
  bytes: Uint8Array,
  options: DecodeOptions = {},
  op = 'imdecode',
): Promise<HostImage<Uint8Array>> {
  const { backend, ...rest } = options;
  checkInput(bytes, rest.flag ?? 1, op);
  const decoder = await rawDecoder(backend, op);
  try {
    return await decodeWith(decoder, bytes, rest, op);
  } finally {
    decoder.dispose?.();
  }
}
