/**
 * Decoding the committed fixtures (tools/golden/image/fixtures.py): PNG pixels exactly as the
 * generator wrote them (8- and 16-bit, gray, alpha, palette), JPEG pixels within a small tolerance
 * of Pillow's libjpeg decode (flag=0: libjpeg's luma plane, which is what OpenCV returns; gray made
 * from the decoded RGB is off by a few levels where the RGB decode clips). Also the
 * bad inputs, and the browser path (createImageBitmap + OffscreenCanvas) with a stand-in platform;
 * decoding in a real headless browser is not covered here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import golden from '../__golden__/image-decode.json' with { type: 'json' };
import {
  type CanvasPlatform,
  convertPixels,
  decodeImage,
  decodeWithCanvas,
  imageDecoder,
  sniffFormat,
} from './decode.js';
import { expectMXNetError, fromBase64, maxAbsDiff } from './test-util.js';

const FIXTURES = new URL('../__fixtures__/images/', import.meta.url);
const fixture = (name: string) => new Uint8Array(readFileSync(new URL(name, FIXTURES)));

describe('decodeImage (sharp) gives the pixels MXNet decodes', () => {
  it.each(golden.cases.map((c) => [c.file, c] as const))('%s', async (file, c) => {
    const bytes = fixture(file);
    const rgb = await decodeImage(bytes);
    expect(rgb.shape).toEqual([c.height, c.width, 3]);
    expect(rgb.data).toBeInstanceOf(Uint8Array);
    expect(maxAbsDiff(rgb.data, fromBase64(c.rgb))).toBeLessThanOrEqual(c.tolerance);

    const bgr = await decodeImage(bytes, { toRgb: false });
    for (let p = 0; p < c.width * c.height; p++) {
      expect([bgr.data[3 * p], bgr.data[3 * p + 1], bgr.data[3 * p + 2]]).toEqual([
        rgb.data[3 * p + 2],
        rgb.data[3 * p + 1],
        rgb.data[3 * p],
      ]);
    }

    const gray = await decodeImage(bytes, { flag: 0 });
    expect(gray.shape).toEqual([c.height, c.width, 1]);
    const want = fromBase64(c.gray);
    expect(maxAbsDiff(gray.data, want)).toBeLessThanOrEqual(c.gray_tolerance);
    const mean = gray.data.reduce((s, v, i) => s + Math.abs(v - (want[i] as number)), 0) / want.length;
    expect(mean).toBeLessThanOrEqual(c.gray_tolerance > 0 ? 0.25 : 0);
  });
});

describe('imageDecoder (the decoder loaded once)', () => {
  it('decodes like decodeImage and checks every input', async () => {
    const decode = await imageDecoder();
    for (const c of golden.cases.slice(0, 3)) {
      const img = await decode(fixture(c.file), { flag: 0 });
      expect(img.data).toEqual(fromBase64(c.gray));
    }
    await expectMXNetError(() => decode(new Uint8Array([0x47, 0x49, 0x46])), 'imdecode', 'not a JPEG or PNG');
    await expectMXNetError(
      () => imageDecoder('canvas').then((d) => d(fixture('rgb-8x6.png'))),
      'createImageBitmap',
    );
  });
});

describe('bad input', () => {
  const jpeg = fixture('rgb-16x12.jpg');
  const png = fixture('rgb-8x6.png');

  it('refuses what is not a JPEG or PNG, naming what was given', async () => {
    await expectMXNetError(
      () => decodeImage(new Uint8Array(0)),
      'imdecode',
      'the 0 bytes given are not a JPEG or PNG image',
    );
    await expectMXNetError(
      () => decodeImage(new TextEncoder().encode('hello, world')),
      'the 12 bytes given are not a JPEG or PNG image (they start with 68 65 6c 6c 6f 2c 20 77)',
    );
    await expectMXNetError(
      () => decodeImage(new TextEncoder().encode('GIF89a\x01\x00\x01\x00')),
      'not a JPEG or PNG',
      '47 49 46',
    );
    await expectMXNetError(
      () => decodeImage('x.jpg' as unknown as Uint8Array),
      'expects the encoded image as a Uint8Array, got String',
    );
  });

  it('refuses truncated and corrupt data', async () => {
    await expectMXNetError(
      () => decodeImage(jpeg.subarray(0, 200)),
      'imdecode',
      'cannot decode the 200-byte JPEG image',
    );
    await expectMXNetError(() => decodeImage(png.subarray(0, 60)), 'cannot decode the 60-byte PNG image');
    const corrupt = png.slice();
    corrupt[40] = (corrupt[40] as number) ^ 0xff; // inside IDAT: the CRC no longer matches
    await expectMXNetError(() => decodeImage(corrupt), 'cannot decode the', 'PNG image');
  });

  it('refuses a flag other than 0 or 1, and the canvas backend where there is no canvas', async () => {
    await expectMXNetError(
      () => decodeImage(png, { flag: 2 as 1 }),
      'flag must be 1 (color) or 0 (gray), got 2',
    );
    await expectMXNetError(
      () => decodeImage(png, { backend: 'canvas' }),
      'createImageBitmap and OffscreenCanvas are missing',
    );
  });

  it('sniffs signatures', () => {
    expect(sniffFormat(jpeg)).toBe('jpeg');
    expect(sniffFormat(png)).toBe('png');
    expect(sniffFormat(png.subarray(0, 7))).toBeUndefined();
  });
});

describe('browser path (createImageBitmap + OffscreenCanvas), with a stand-in platform', () => {
  const c = golden.cases.find((x) => x.file === 'rgba-6x4.png') as (typeof golden.cases)[number];
  const rgb = fromBase64(c.rgb);
  const rgba = new Uint8ClampedArray(c.width * c.height * 4);
  for (let p = 0; p < c.width * c.height; p++) {
    rgba.set(rgb.subarray(3 * p, 3 * p + 3), 4 * p);
    rgba[4 * p + 3] = (p * 37) % 256;
  }
  const calls: string[] = [];
  const platform: CanvasPlatform = {
    createImageBitmap: async (image, options) => {
      const blob = image as Blob;
      calls.push(`bitmap ${blob.type} ${blob.size} ${JSON.stringify(options)}`);
      return { width: c.width, height: c.height, close: () => calls.push('close') };
    },
    OffscreenCanvas: class {
      constructor(w: number, h: number) {
        calls.push(`canvas ${w}x${h}`);
      }
      getContext() {
        return {
          drawImage: () => calls.push('draw'),
          getImageData: (_x: number, _y: number, w: number, h: number) => ({
            data: rgba.slice(0, w * h * 4),
          }),
        };
      }
    },
  };

  it('decodes RGBA canvas pixels into MXNet layouts and closes the bitmap', async () => {
    const bytes = fixture('rgba-6x4.png');
    const raw = await decodeWithCanvas(bytes, 'png', 'imdecode', platform);
    expect(calls).toEqual([
      `bitmap image/png ${bytes.length} {"premultiplyAlpha":"none","colorSpaceConversion":"none"}`,
      'canvas 6x4',
      'draw',
      'close',
    ]);
    expect(convertPixels(raw, 1, true).data).toEqual(rgb);
    expect(maxAbsDiff(convertPixels(raw, 0, true).data, fromBase64(c.gray))).toBe(0);
  });

  it('converts 1- and 2-channel pixels and refuses short buffers', async () => {
    const gray = convertPixels(
      { data: Uint8Array.from([5, 200, 9, 9]), width: 2, height: 1, channels: 2 },
      1,
      false,
    );
    expect(Array.from(gray.data)).toEqual([5, 5, 5, 9, 9, 9]);
    await expectMXNetError(
      () => convertPixels({ data: new Uint8Array(5), width: 2, height: 1, channels: 3 }, 1, true),
      'the decoder gave 5 bytes for a 2x1 image with 3 channels',
    );
  });
});
