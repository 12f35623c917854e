/**
 * `imdecode` in browsers (and Web Workers): JPEG/PNG bytes to interleaved RGBA with the colors the
 * file stores, as sharp gives them in Node and OpenCV in MXNet (flag=1 drops alpha, it does not
 * composite). Shaped around one platform fact: a 2d canvas stores premultiplied colors, so drawing
 * and `getImageData` turn a pixel of alpha 0 into (0, 0, 0) and round the colors of semi-transparent
 * ones. Hence three paths, chosen per image and feature-detected:
 *
 * 1. PNGs with alpha (color type 4 or 6, or a tRNS chunk; `pngHasAlpha`) go to WebCodecs'
 *    `ImageDecoder` (premultiplyAlpha and colorSpaceConversion 'none'), whose VideoFrame is copied
 *    in its own layout (RGBA, BGRA, RGBX or BGRX) and reordered here. Not `copyTo({ format: 'RGBA' })`:
 *    Chromium converts that through premultiplied colors and loses them again.
 * 2. Without `ImageDecoder` (or with a frame layout not listed), WebGL2: an `ImageBitmap`
 *    (premultiplyAlpha 'none') uploaded to an RGBA8 texture with UNPACK_PREMULTIPLY_ALPHA_WEBGL off,
 *    read back with `readPixels` from a framebuffer holding that texture. Nothing is rendered, so the
 *    rows come in the texture's order, which is the image's (top row first) — the bottom-up order
 *    of readPixels applies to what is drawn into the default framebuffer, not here.
 * 3. The 2d canvas (`decodeWithCanvas`): JPEGs and opaque PNGs, where it is exact, and the last
 *    resort for alpha (no ImageDecoder, no WebGL2, or a texture over MAX_TEXTURE_SIZE).
 *
 * A `BrowserDecoder` keeps its WebGL2 context between images (one per decoder: contexts are few)
 * and tells which path gave each image (`path`), so tests can hold every path to sharp's pixels.
 */
import { MXNetError } from '@mx/base';

/** Interleaved 8-bit pixels as a decoder gives them. */
export interface RawPixels {
  readonly data: Uint8Array | Uint8ClampedArray;
  readonly width: number;
  readonly height: number;
  readonly channels: number;
}

/** The two formats `imdecode` accepts. */
export type BrowserImageFormat = 'jpeg' | 'png';

/** The decoding path that gave an image's pixels. */
export type BrowserDecodePath = 'ImageDecoder' | 'WebGL2' | '2d';

/** Pixels from a `BrowserDecoder`, with the path that gave them. */
export interface BrowserPixels extends RawPixels {
  readonly path: BrowserDecodePath;
}

interface Bitmap {
  readonly width: number;
  readonly height: number;
  close(): void;
}

interface Canvas2d {
  drawImage(image: unknown, x: number, y: number): void;
  getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
}

/** What the 2d-canvas path needs from the platform (globalThis in browsers; injectable for tests). */
export interface CanvasPlatform {
  createImageBitmap?: (
    image: unknown,
    options?: { premultiplyAlpha?: 'none'; colorSpaceConversion?: 'none' },
  ) => Promise<Bitmap>;
  OffscreenCanvas?: new (
    width: number,
    height: number,
  ) => {
    getContext(kind: '2d'): Canvas2d | null;
  };
}

/** The part of a WebCodecs VideoFrame read here. */
export interface FrameLike {
  readonly format: string | null;
  readonly codedWidth: number;
  readonly codedHeight: number;
  readonly visibleRect?: { readonly width: number; readonly height: number } | null;
  allocationSize(): number;
  copyTo(destination: Uint8Array): Promise<readonly { offset: number; stride: number }[]>;
  close(): void;
}

/** The part of WebCodecs' `ImageDecoder` used here. */
export interface ImageDecoderClass {
  new (init: {
    type: string;
    data: Uint8Array;
    premultiplyAlpha: 'none';
    colorSpaceConversion: 'none';
  }): { decode(): Promise<{ image: FrameLike }>; close(): void };
  isTypeSupported(type: string): Promise<boolean>;
}

/** The part of a WebGL2 context used here (constants included, as contexts carry them). */
export interface WebGL2Like {
  readonly TEXTURE_2D: number;
  readonly RGBA8: number;
  readonly RGBA: number;
  readonly UNSIGNED_BYTE: number;
  readonly FRAMEBUFFER: number;
  readonly COLOR_ATTACHMENT0: number;
  readonly FRAMEBUFFER_COMPLETE: number;
  readonly NO_ERROR: number;
  readonly NONE: number;
  readonly MAX_TEXTURE_SIZE: number;
  readonly UNPACK_PREMULTIPLY_ALPHA_WEBGL: number;
  readonly UNPACK_COLORSPACE_CONVERSION_WEBGL: number;
  readonly UNPACK_FLIP_Y_WEBGL: number;
  isContextLost(): boolean;
  getParameter(name: number): unknown;
  getError(): number;
  getExtension(name: 'WEBGL_lose_context'): { loseContext(): void } | null;
  createTexture(): unknown;
  deleteTexture(texture: unknown): void;
  createFramebuffer(): unknown;
  deleteFramebuffer(framebuffer: unknown): void;
  bindTexture(target: number, texture: unknown): void;
  bindFramebuffer(target: number, framebuffer: unknown): void;
  pixelStorei(name: number, value: number | boolean): void;
  texImage2D(
    target: number,
    level: number,
    internalFormat: number,
    width: number,
    height: number,
    border: number,
    format: number,
    type: number,
    source: unknown,
  ): void;
  framebufferTexture2D(
    target: number,
    attachment: number,
    textureTarget: number,
    texture: unknown,
    level: number,
  ): void;
  checkFramebufferStatus(target: number): number;
  readPixels(
    x: number,
    y: number,
    width: number,
    height: number,
    format: number,
    type: number,
    destination: Uint8Array,
  ): void;
}

/** Everything the browser paths may use; each missing piece only rules its path out. */
export interface BrowserDecodePlatform extends Omit<CanvasPlatform, 'OffscreenCanvas'> {
  OffscreenCanvas?: new (
    width: number,
    height: number,
  ) => {
    getContext(kind: '2d'): Canvas2d | null;
    getContext(kind: 'webgl2', options: Record<string, boolean>): WebGL2Like | null;
  };
  ImageDecoder?: ImageDecoderClass;
}

/**
 * Whether a PNG may hold alpha: color type 4 (gray+alpha) or 6 (RGBA), or a tRNS chunk (palette
 * alpha, or a transparent color key for gray/RGB) before the first IDAT. A header too short or
 * malformed to tell counts as alpha, so it goes to the exact paths (which then say what is wrong).
 */
export function pngHasAlpha(bytes: Uint8Array): boolean {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const typeAt = (at: number) => String.fromCharCode(...bytes.subarray(at + 4, at + 8));
  if (bytes.length < 33 || typeAt(8) !== 'IHDR') return true;
  const colorType = bytes[25];
  if (colorType === 4 || colorType === 6) return true;
  for (let at = 8; at + 8 <= bytes.length; at += 12 + view.getUint32(at)) {
    const type = typeAt(at);
    if (type === 'tRNS') return true;
    if (type === 'IDAT' || type === 'IEND') return false;
  }
  return true;
}

/** Channel order of the frame layouts copied as they are: source byte of R, G, B, A (-1: opaque). */
const FRAME_ORDER: Readonly<Record<string, readonly [number, number, number, number]>> = {
  RGBA: [0, 1, 2, 3],
  RGBX: [0, 1, 2, -1],
  BGRA: [2, 1, 0, 3],
  BGRX: [2, 1, 0, -1],
};

/** Owned bytes: platform APIs refuse views of a SharedArrayBuffer (a worker's RecordIO buffer). */
function unshared(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return (bytes.buffer instanceof ArrayBuffer ? bytes : new Uint8Array(bytes)) as Uint8Array<ArrayBuffer>;
}

/**
 * Decodes with WebCodecs' `ImageDecoder` to unpremultiplied RGBA, or undefined when the frame comes
 * in a layout other than RGBA/BGRA/RGBX/BGRX. Decoding errors (corrupt data) are thrown.
 */
export async function decodeWithImageDecoder(
  bytes: Uint8Array,
  format: BrowserImageFormat,
  op: string,
  ImageDecoder: ImageDecoderClass,
): Promise<RawPixels | undefined> {
  const decoder = new ImageDecoder({
    type: `image/${format}`,
    data: unshared(bytes),
    premultiplyAlpha: 'none',
    colorSpaceConversion: 'none',
  });
  try {
    const { image: frame } = await decoder.decode();
    try {
      const order = FRAME_ORDER[frame.format ?? ''];
      if (order === undefined) return undefined;
      const width = frame.visibleRect?.width ?? frame.codedWidth;
      const height = frame.visibleRect?.height ?? frame.codedHeight;
      const buffer = new Uint8Array(frame.allocationSize());
      const [plane] = await frame.copyTo(buffer);
      const row = 4 * width;
      if (
        plane === undefined ||
        plane.stride < row ||
        (height > 0 && plane.offset + (height - 1) * plane.stride + row > buffer.length)
      ) {
        throw new MXNetError(
          `ImageDecoder gave a ${frame.format} frame of ${width}x${height} whose layout (${JSON.stringify(plane)}) does not fit its ${buffer.length} bytes`,
          { op },
        );
      }
      const [r, g, b, a] = order;
      const out = new Uint8Array(width * height * 4);
      for (let y = 0, o = 0; y < height; y++) {
        for (let s = plane.offset + y * plane.stride, end = s + row; s < end; s += 4, o += 4) {
          out[o] = buffer[s + r] as number;
          out[o + 1] = buffer[s + g] as number;
          out[o + 2] = buffer[s + b] as number;
          out[o + 3] = a < 0 ? 255 : (buffer[s + a] as number);
        }
      }
      return { data: out, width, height, channels: 4 };
    } finally {
      frame.close();
    }
  } finally {
    decoder.close();
  }
}

/** `createImageBitmap` of the bytes, unpremultiplied and without color-space conversion. */
async function bitmapOf(
  bytes: Uint8Array,
  format: BrowserImageFormat,
  op: string,
  platform: CanvasPlatform,
): Promise<Bitmap> {
  const { createImageBitmap, OffscreenCanvas } = platform;
  if (typeof createImageBitmap !== 'function' || typeof OffscreenCanvas !== 'function') {
    throw new MXNetError('no image decoder here: createImageBitmap and OffscreenCanvas are missing', {
      op,
      hint: "in Node use the sharp backend ({ backend: 'sharp' }, npm install sharp)",
    });
  }
  const B = (globalThis as { Blob?: new (parts: unknown[], options: { type: string }) => unknown }).Blob;
  if (B === undefined) throw new MXNetError('no Blob here: the canvas decoder needs one', { op });
  const blob = new B([unshared(bytes)], { type: `image/${format}` });
  return createImageBitmap(blob, { premultiplyAlpha: 'none', colorSpaceConversion: 'none' });
}

function readWith2d(bitmap: Bitmap, op: string, platform: CanvasPlatform): RawPixels {
  const { width, height } = bitmap;
  const Canvas = platform.OffscreenCanvas as NonNullable<CanvasPlatform['OffscreenCanvas']>;
  const ctx = new Canvas(width, height).getContext('2d');
  if (!ctx) throw new MXNetError('OffscreenCanvas has no 2d context here', { op });
  ctx.drawImage(bitmap, 0, 0);
  return { data: ctx.getImageData(0, 0, width, height).data, width, height, channels: 4 };
}

/**
 * Decodes with `createImageBitmap` + a 2d `OffscreenCanvas` (RGBA pixels). Exact for opaque images;
 * pixels with alpha < 255 come back premultiplied and divided again (alpha 0: color lost). Use
 * `BrowserDecoder`, which sends images with alpha elsewhere.
 */
export async function decodeWithCanvas(
  bytes: Uint8Array,
  format: BrowserImageFormat,
  op = 'imdecode',
  platform: CanvasPlatform = globalThis as CanvasPlatform,
): Promise<RawPixels> {
  const bitmap = await bitmapOf(bytes, format, op, platform);
  try {
    return readWith2d(bitmap, op, platform);
  } finally {
    bitmap.close();
  }
}

/** A WebGL2 context that reads ImageBitmaps back unpremultiplied (see the file comment). */
class WebGLReader {
  readonly #gl: WebGL2Like;
  readonly #maxSize: number;

  constructor(gl: WebGL2Like) {
    this.#gl = gl;
    this.#maxSize = Number(gl.getParameter(gl.MAX_TEXTURE_SIZE)) || 0;
  }

  get lost(): boolean {
    return this.#gl.isContextLost();
  }

  /** RGBA rows of the bitmap, top row first; undefined where this context cannot (size, lost, GL error). */
  read(bitmap: Bitmap): Uint8Array | undefined {
    const gl = this.#gl;
    const { width: w, height: h } = bitmap;
    if (gl.isContextLost() || w > this.#maxSize || h > this.#maxSize) return undefined;
    for (let i = 0; i < 8 && gl.getError() !== gl.NO_ERROR; i++); // errors of an earlier image
    const texture = gl.createTexture();
    const framebuffer = gl.createFramebuffer();
    try {
      gl.bindTexture(gl.TEXTURE_2D, texture);
      // ImageBitmaps keep their own premultiplyAlpha choice ('none'); the flags are set for clarity.
      gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
      gl.pixelStorei(gl.UNPACK_COLORSPACE_CONVERSION_WEBGL, gl.NONE);
      gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, w, h, 0, gl.RGBA, gl.UNSIGNED_BYTE, bitmap);
      gl.bindFramebuffer(gl.FRAMEBUFFER, framebuffer);
      gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, texture, 0);
      if (gl.checkFramebufferStatus(gl.FRAMEBUFFER) !== gl.FRAMEBUFFER_COMPLETE) return undefined;
      const out = new Uint8Array(w * h * 4);
      gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, out);
      return gl.getError() === gl.NO_ERROR ? out : undefined;
    } catch {
      return undefined; // a context that throws (lost mid-way, odd driver): the 2d canvas answers
    } finally {
      gl.bindFramebuffer(gl.FRAMEBUFFER, null);
      gl.bindTexture(gl.TEXTURE_2D, null);
      gl.deleteFramebuffer(framebuffer);
      gl.deleteTexture(texture);
    }
  }

  dispose(): void {
    this.#gl.getExtension('WEBGL_lose_context')?.loseContext();
  }
}

const GL_ATTRIBUTES = {
  alpha: true,
  premultipliedAlpha: false,
  antialias: false,
  depth: false,
  stencil: false,
  preserveDrawingBuffer: false,
};

/**
 * The browser's decoders behind one `decode`, choosing per image (see the file comment). Holds a
 * WebGL2 context once one was needed; `dispose()` releases it (a later decode makes a new one).
 */
export class BrowserDecoder {
  readonly op: string;
  readonly #platform: BrowserDecodePlatform;
  #pngSupported: Promise<boolean> | undefined;
  /** undefined: not tried yet; null: no WebGL2 here. */
  #gl: WebGLReader | null | undefined;

  constructor(op = 'imdecode', platform: BrowserDecodePlatform = globalThis as BrowserDecodePlatform) {
    this.op = op;
    this.#platform = platform;
  }

  /** RGBA pixels as the file stores them (opaque images and JPEGs: as the 2d canvas gives them). */
  async decode(bytes: Uint8Array, format: BrowserImageFormat): Promise<BrowserPixels> {
    const alpha = format === 'png' && pngHasAlpha(bytes);
    if (alpha && (await this.#imageDecoderReady())) {
      const ID = this.#platform.ImageDecoder as ImageDecoderClass;
      const pixels = await decodeWithImageDecoder(bytes, format, this.op, ID);
      if (pixels !== undefined) return { ...pixels, path: 'ImageDecoder' };
    }
    const bitmap = await bitmapOf(bytes, format, this.op, this.#platform);
    try {
      const gl = alpha ? this.#webgl() : undefined;
      const data = gl?.read(bitmap);
      const { width, height } = bitmap;
      if (data !== undefined) return { data, width, height, channels: 4, path: 'WebGL2' };
      return { ...readWith2d(bitmap, this.op, this.#platform), path: '2d' };
    } finally {
      bitmap.close();
    }
  }

  /** Releases the WebGL2 context, if one was made. */
  dispose(): void {
    this.#gl?.dispose();
    this.#gl = undefined;
  }

  #imageDecoderReady(): Promise<boolean> {
    const ID = this.#platform.ImageDecoder;
    if (typeof ID !== 'function' || typeof ID.isTypeSupported !== 'function') return Promise.resolve(false);
    this.#pngSupported ??= ID.isTypeSupported('image/png').catch(() => false);
    return this.#pngSupported;
  }

  #webgl(): WebGLReader | undefined {
    if (this.#gl?.lost) this.#gl = undefined;
    if (this.#gl === undefined) {
      const Canvas = this.#platform.OffscreenCanvas;
      let gl: WebGL2Like | null = null;
      try {
        gl = typeof Canvas === 'function' ? new Canvas(1, 1).getContext('webgl2', GL_ATTRIBUTES) : null;
      } catch {
        gl = null;
      }
      this.#gl = gl === null ? null : new WebGLReader(gl);
    }
    return this.#gl ?? undefined;
  }
}
