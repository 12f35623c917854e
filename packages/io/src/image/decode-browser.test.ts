/**
 * The browser decoding paths in Node, with stand-in platforms (no browser here): which PNGs count
 * as having alpha (on the committed fixtures, hand-made chunks and fuzzed bytes), how a WebCodecs
 * frame is copied out (channel orders, row padding, layouts refused), and which path
 * `BrowserDecoder` takes and falls back from. The real decoders are held to sharp's pixels in
 * headless Chromium (tools/browser-smoke, gluon-io.test.ts); the pixels here only trace the
 * plumbing: each stand-in hands out known bytes and the test checks where they land.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { decodeImage, imageDecoder } from './decode.js';
import {
  type BrowserDecodePlatform,
  BrowserDecoder,
  decodeWithImageDecoder,
  type FrameLike,
  type ImageDecoderClass,
  pngHasAlpha,
  type WebGL2Like,
} from './decode-browser.js';
import { expectMXNetError } from './test-util.js';
import { fixedCrop } from './transforms.js';

const fixture = (name: string) =>
  new Uint8Array(readFileSync(new URL(`../__fixtures__/images/${name}`, import.meta.url)));

/** `bytes` with a chunk (type + data, CRC left zero: only the layout is read) put before IDAT. */
function withChunkBeforeIdat(bytes: Uint8Array, type: string, data: number[]): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 8;
  while (String.fromCharCode(...bytes.subarray(at + 4, at + 8)) !== 'IDAT') at += 12 + view.getUint32(at);
  const len = [data.length >>> 24, (data.length >>> 16) & 255, (data.length >>> 8) & 255, data.length & 255];
  const chunk = [...len, ...Array.from(type, (c) => c.charCodeAt(0)), ...data, 0, 0, 0, 0];
  return Uint8Array.from([...bytes.subarray(0, at), ...chunk, ...bytes.subarray(at)]);
}

describe('pngHasAlpha', () => {
  it('tells the fixtures with alpha (color types 4 and 6) from those without', () => {
    expect(pngHasAlpha(fixture('rgba-6x4.png'))).toBe(true);
    expect(pngHasAlpha(fixture('graya-5x3.png'))).toBe(true);
    for (const f of ['rgb-8x6.png', 'gray-7x5.png', 'palette-6x5.png', 'rgb16-4x3.png']) {
      expect([f, pngHasAlpha(fixture(f))]).toEqual([f, false]);
    }
  });

  it('counts a tRNS chunk before IDAT (palette alpha, color key) as alpha', () => {
    expect(pngHasAlpha(withChunkBeforeIdat(fixture('palette-6x5.png'), 'tRNS', [0, 128]))).toBe(true);
    expect(pngHasAlpha(withChunkBeforeIdat(fixture('rgb-8x6.png'), 'tRNS', [0, 1, 0, 2, 0, 3]))).toBe(true);
    // Other ancillary chunks do not.
    expect(pngHasAlpha(withChunkBeforeIdat(fixture('rgb-8x6.png'), 'gAMA', [0, 0, 177, 143]))).toBe(false);
  });

  it('sends headers it cannot read to the exact paths (counts them as alpha)', () => {
    const rgb = fixture('rgb-8x6.png');
    expect(pngHasAlpha(rgb.subarray(0, 20))).toBe(true);
    const notIhdr = rgb.slice();
    notIhdr[12] = 0x78; // 'xHDR'
    expect(pngHasAlpha(notIhdr)).toBe(true);
    // A chunk length running past the end: no IDAT found.
    const runaway = rgb.slice(0, 40);
    runaway.set([0x7f, 0xff, 0xff, 0xff], 33);
    expect(pngHasAlpha(runaway)).toBe(true);
  });

  it('never throws on arbitrary bytes after a PNG signature (fuzzed)', () => {
    const sig = fixture('rgb-8x6.png').subarray(0, 8);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (tail) => {
        expect(typeof pngHasAlpha(Uint8Array.from([...sig, ...tail]))).toBe('boolean');
      }),
      { seed: 20240611, numRuns: 300 },
    );
  });
});

interface FrameSpec {
  format: string | null;
  width: number;
  height: number;
  /** Bytes per row of the copy (>= 4 * width). */
  stride: number;
  offset?: number;
}

/** A frame whose copy holds byte (y * stride + x * 4 + k) = 10 * y + 4 * x + k at `offset`. */
function standInImageDecoder(spec: FrameSpec, log: string[], fail?: Error): ImageDecoderClass {
  const offset = spec.offset ?? 0;
  const frame: FrameLike = {
    format: spec.format,
    codedWidth: spec.width,
    codedHeight: spec.height,
    visibleRect: { width: spec.width, height: spec.height },
    allocationSize: () => offset + spec.stride * spec.height,
    copyTo: async (dest) => {
      for (let y = 0; y < spec.height; y++) {
        for (let b = 0; b < spec.stride; b++) dest[offset + y * spec.stride + b] = (10 * y + b) & 255;
      }
      return [{ offset, stride: spec.stride }];
    },
    close: () => log.push('frame.close'),
  };
  return class {
    static isTypeSupported = async (type: string) => {
      log.push(`isTypeSupported ${type}`);
      return true;
    };
    constructor(init: {
      type: string;
      data: Uint8Array;
      premultiplyAlpha: string;
      colorSpaceConversion: string;
    }) {
      log.push(
        `new ${init.type} ${init.data.length} ${init.data.buffer instanceof ArrayBuffer} ${init.premultiplyAlpha} ${init.colorSpaceConversion}`,
      );
    }
    async decode() {
      if (fail !== undefined) throw fail;
      return { image: frame };
    }
    close() {
      log.push('decoder.close');
    }
  };
}

describe('decodeWithImageDecoder', () => {
  const png = fixture('rgba-6x4.png');

  it.each([
    ['RGBA', [0, 1, 2, 3]],
    ['BGRA', [2, 1, 0, 3]],
    ['RGBX', [0, 1, 2, -1]],
    ['BGRX', [2, 1, 0, -1]],
  ] as const)(
    'copies a %s frame to RGBA rows, skipping row padding and the offset',
    async (format, order) => {
      const log: string[] = [];
      const spec = { format, width: 3, height: 2, stride: 16, offset: 5 };
      const raw = await decodeWithImageDecoder(png, 'png', 'imdecode', standInImageDecoder(spec, log));
      expect(raw).toMatchObject({ width: 3, height: 2, channels: 4 });
      const want: number[] = [];
      for (let y = 0; y < 2; y++) {
        for (let x = 0; x < 3; x++) {
          for (const k of order) want.push(k < 0 ? 255 : 10 * y + 4 * x + k);
        }
      }
      expect(Array.from(raw?.data ?? [])).toEqual(want);
      expect(log).toEqual([`new image/png ${png.length} true none none`, 'frame.close', 'decoder.close']);
    },
  );

  it('gives undefined for other frame layouts (I420, none) and still closes everything', async () => {
    for (const format of ['I420', null]) {
      const log: string[] = [];
      const spec = { format, width: 2, height: 2, stride: 8 };
      expect(await decodeWithImageDecoder(png, 'png', 'imdecode', standInImageDecoder(spec, log))).toBe(
        undefined,
      );
      expect(log.slice(1)).toEqual(['frame.close', 'decoder.close']);
    }
  });

  it('refuses a frame whose rows do not fit its copy', async () => {
    const log: string[] = [];
    const spec = { format: 'RGBA', width: 4, height: 2, stride: 12 };
    await expectMXNetError(
      () => decodeWithImageDecoder(png, 'png', 'imread', standInImageDecoder(spec, log)),
      'imread',
      'ImageDecoder gave a RGBA frame of 4x2 whose layout',
    );
    expect(log.slice(1)).toEqual(['frame.close', 'decoder.close']);
  });

  it('hands ImageDecoder a copy of bytes that live in a SharedArrayBuffer', async () => {
    const log: string[] = [];
    const shared = new Uint8Array(new SharedArrayBuffer(png.length));
    shared.set(png);
    const spec = { format: 'RGBA', width: 1, height: 1, stride: 4 };
    await decodeWithImageDecoder(shared, 'png', 'imdecode', standInImageDecoder(spec, log));
    expect(log[0]).toBe(`new image/png ${png.length} true none none`);
  });
});

interface GlOptions {
  maxSize?: number;
  /** getError() after readPixels. */
  readError?: number;
  framebufferComplete?: boolean;
}

/** A WebGL2 stand-in: readPixels writes 100 + i at byte i; calls are logged. */
function standInGl(log: string[], o: GlOptions = {}): WebGL2Like {
  let lost = false;
  let read = false;
  const c = {
    TEXTURE_2D: 1,
    RGBA8: 2,
    RGBA: 3,
    UNSIGNED_BYTE: 4,
    FRAMEBUFFER: 5,
    COLOR_ATTACHMENT0: 6,
    FRAMEBUFFER_COMPLETE: 7,
    NO_ERROR: 0,
    NONE: 0,
    MAX_TEXTURE_SIZE: 8,
    UNPACK_PREMULTIPLY_ALPHA_WEBGL: 9,
    UNPACK_COLORSPACE_CONVERSION_WEBGL: 10,
    UNPACK_FLIP_Y_WEBGL: 11,
  };
  return {
    ...c,
    isContextLost: () => lost,
    getParameter: (name) => (name === c.MAX_TEXTURE_SIZE ? (o.maxSize ?? 4096) : undefined),
    getError: () => (read ? (o.readError ?? 0) : 0),
    getExtension: () => ({
      loseContext: () => {
        log.push('loseContext');
        lost = true;
      },
    }),
    createTexture: () => ({ texture: true }),
    deleteTexture: () => log.push('deleteTexture'),
    createFramebuffer: () => ({ framebuffer: true }),
    deleteFramebuffer: () => log.push('deleteFramebuffer'),
    bindTexture: () => {},
    bindFramebuffer: () => {},
    pixelStorei: (name, value) => log.push(`pixelStorei ${name} ${value}`),
    texImage2D: (_t, _l, internal, w, h, _b, format, type, source) =>
      log.push(`texImage2D ${internal} ${w}x${h} ${format} ${type} ${(source as { id: string }).id}`),
    framebufferTexture2D: () => {},
    checkFramebufferStatus: () => (o.framebufferComplete === false ? 0 : c.FRAMEBUFFER_COMPLETE),
    readPixels: (x, y, w, h, _f, _t, dst) => {
      read = true;
      log.push(`readPixels ${x} ${y} ${w} ${h}`);
      for (let i = 0; i < dst.length; i++) dst[i] = (100 + i) & 255;
    },
  };
}

/** A platform of stand-ins: bitmaps of the given size; 2d reads give 7 everywhere. */
function standInPlatform(
  log: string[],
  size: [number, number],
  options: { gl?: GlOptions | null; imageDecoder?: ImageDecoderClass } = {},
): BrowserDecodePlatform {
  let bitmaps = 0;
  return {
    ImageDecoder: options.imageDecoder,
    createImageBitmap: async (_blob, opts) => {
      const id = `bitmap${++bitmaps}`;
      log.push(`createImageBitmap ${JSON.stringify(opts)}`);
      return { id, width: size[0], height: size[1], close: () => log.push(`close ${id}`) };
    },
    OffscreenCanvas: class {
      getContext(kind: string): unknown {
        log.push(`getContext ${kind}`);
        if (kind === 'webgl2') return options.gl === null ? null : standInGl(log, options.gl);
        return {
          drawImage: () => log.push('drawImage'),
          getImageData: (_x: number, _y: number, w: number, h: number) => ({
            data: new Uint8ClampedArray(w * h * 4).fill(7),
          }),
        };
      }
    } as unknown as BrowserDecodePlatform['OffscreenCanvas'],
  };
}

describe('BrowserDecoder picks the path by image and platform', () => {
  const rgba = fixture('rgba-6x4.png');
  const rgb = fixture('rgb-8x6.png');

  it('PNG with alpha: ImageDecoder where it exists (support asked once), no bitmap made', async () => {
    const log: string[] = [];
    const ID = standInImageDecoder({ format: 'BGRA', width: 6, height: 4, stride: 24 }, log);
    const d = new BrowserDecoder('imdecode', standInPlatform(log, [6, 4], { imageDecoder: ID }));
    for (let i = 0; i < 2; i++) expect((await d.decode(rgba, 'png')).path).toBe('ImageDecoder');
    expect(log.filter((l) => l.startsWith('isTypeSupported'))).toEqual(['isTypeSupported image/png']);
    expect(log.some((l) => l.startsWith('createImageBitmap') || l.startsWith('getContext'))).toBe(false);
  });

  it('JPEG and opaque PNG: the 2d canvas, even where ImageDecoder and WebGL2 exist', async () => {
    const log: string[] = [];
    const ID = standInImageDecoder({ format: 'BGRA', width: 8, height: 6, stride: 32 }, log);
    const d = new BrowserDecoder('imdecode', standInPlatform(log, [8, 6], { imageDecoder: ID, gl: {} }));
    const r = await d.decode(rgb, 'png');
    expect(r.path).toBe('2d');
    expect((await d.decode(fixture('rgb-16x12.jpg'), 'jpeg')).path).toBe('2d');
    expect(Array.from(r.data.subarray(0, 4))).toEqual([7, 7, 7, 7]);
    expect(log).toEqual([
      'createImageBitmap {"premultiplyAlpha":"none","colorSpaceConversion":"none"}',
      'getContext 2d',
      'drawImage',
      'close bitmap1',
      'createImageBitmap {"premultiplyAlpha":"none","colorSpaceConversion":"none"}',
      'getContext 2d',
      'drawImage',
      'close bitmap2',
    ]);
  });

  it('PNG with alpha, no ImageDecoder: WebGL2 with premultiplication off, one context for all images', async () => {
    const log: string[] = [];
    const d = new BrowserDecoder('imdecode', standInPlatform(log, [3, 2], { gl: {} }));
    const r = await d.decode(rgba, 'png');
    expect(r).toMatchObject({ path: 'WebGL2', width: 3, height: 2, channels: 4 });
    expect(Array.from(r.data)).toEqual(Array.from({ length: 24 }, (_, i) => 100 + i));
    expect(log).toEqual([
      'createImageBitmap {"premultiplyAlpha":"none","colorSpaceConversion":"none"}',
      'getContext webgl2',
      'pixelStorei 9 false',
      'pixelStorei 10 0',
      'pixelStorei 11 false',
      'texImage2D 2 3x2 3 4 bitmap1',
      'readPixels 0 0 3 2',
      'deleteFramebuffer',
      'deleteTexture',
      'close bitmap1',
    ]);
    await d.decode(rgba, 'png');
    expect(log.filter((l) => l === 'getContext webgl2')).toHaveLength(1);
    d.dispose();
    expect(log.at(-1)).toBe('loseContext');
    expect((await d.decode(rgba, 'png')).path).toBe('WebGL2');
    expect(log.filter((l) => l === 'getContext webgl2')).toHaveLength(2);
  });

  it('ImageDecoder that does not support PNG, or gives an unlisted frame layout: WebGL2', async () => {
    const log: string[] = [];
    const unsupported = standInImageDecoder({ format: 'RGBA', width: 3, height: 2, stride: 12 }, log);
    unsupported.isTypeSupported = async () => false;
    const i420 = standInImageDecoder({ format: 'I420', width: 3, height: 2, stride: 12 }, log);
    for (const ID of [unsupported, i420]) {
      const d = new BrowserDecoder('imdecode', standInPlatform(log, [3, 2], { imageDecoder: ID, gl: {} }));
      expect((await d.decode(rgba, 'png')).path).toBe('WebGL2');
    }
  });

  it.each([
    ['no WebGL2 context', null],
    ['an image over MAX_TEXTURE_SIZE', { maxSize: 2 }],
    ['an incomplete framebuffer', { framebufferComplete: false }],
    ['a GL error after readPixels', { readError: 0x0502 }],
  ] as const)('PNG with alpha and %s: the 2d canvas, textures freed', async (_what, gl) => {
    const log: string[] = [];
    const d = new BrowserDecoder('imdecode', standInPlatform(log, [3, 2], { gl }));
    const r = await d.decode(rgba, 'png');
    expect(r.path).toBe('2d');
    expect(Array.from(r.data.subarray(0, 4))).toEqual([7, 7, 7, 7]);
    expect(log.filter((l) => l.startsWith('createImageBitmap'))).toHaveLength(1);
    expect(log.filter((l) => l === 'deleteTexture')).toHaveLength(gl === null || 'maxSize' in gl ? 0 : 1);
    expect(log.at(-1)).toBe('close bitmap1');
  });

  it('throws what ImageDecoder throws for undecodable data (imdecode wraps it)', async () => {
    const log: string[] = [];
    const fail = new Error('EncodingError: Failed to decode frame at index 0');
    const ID = standInImageDecoder({ format: 'RGBA', width: 1, height: 1, stride: 4 }, log, fail);
    const d = new BrowserDecoder('imdecode', standInPlatform(log, [1, 1], { imageDecoder: ID }));
    await expect(d.decode(rgba, 'png')).rejects.toThrow('Failed to decode frame');
    expect(log.at(-1)).toBe('decoder.close');
  });
});

describe("imdecode with backend 'canvas' on a browser-like global", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('takes the ImageDecoder path for a PNG with alpha and drops alpha like OpenCV (flag 1)', async () => {
    const log: string[] = [];
    vi.stubGlobal(
      'ImageDecoder',
      standInImageDecoder({ format: 'BGRA', width: 6, height: 4, stride: 24 }, log),
    );
    const img = await decodeImage(fixture('rgba-6x4.png'), { backend: 'canvas' });
    expect(img.shape).toEqual([4, 6, 3]);
    // Stand-in byte at (y, x, k) is 10y + 4x + k in BGRA order: RGB = (k=2, 1, 0).
    expect(Array.from(img.data.subarray(0, 6))).toEqual([2, 1, 0, 6, 5, 4]);
    expect(Array.from(img.data.subarray(18, 21))).toEqual([12, 11, 10]);
  });

  it('decodes a region by cropping what the browser decoded (imageDecoder region)', async () => {
    vi.stubGlobal(
      'ImageDecoder',
      standInImageDecoder({ format: 'BGRA', width: 6, height: 4, stride: 24 }, []),
    );
    const decode = await imageDecoder('canvas');
    const whole = await decode(fixture('rgba-6x4.png'));
    const part = await decode(fixture('rgba-6x4.png'), { region: { x: 2, y: 1, width: 3, height: 2 } });
    expect(part).toEqual(fixedCrop(whole, 2, 1, 3, 2));
    await expectMXNetError(
      () => decode(fixture('rgba-6x4.png'), { region: { x: 4, y: 0, width: 3, height: 1 } }),
      'inside the 6x4 image',
    );
  });

  it('still says what is missing where there is neither ImageDecoder nor a canvas', async () => {
    await expectMXNetError(
      () => decodeImage(fixture('rgba-6x4.png'), { backend: 'canvas' }),
      'createImageBitmap and OffscreenCanvas are missing',
    );
  });
});
