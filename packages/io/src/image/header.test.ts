/**
 * `imageSize` (sizes from JPEG/PNG headers) against the committed fixtures' golden sizes and
 * against sharp's own reading of JPEGs it writes with segments before the frame header (EXIF,
 * progressive, gray); fuzzed so that no byte string makes it throw. And the decoders' `region`:
 * the same pixels as decoding whole and cropping with `fixedCrop`, for every fixture, color and
 * gray; a region outside the image is an MXNetError. (The browser path's crop: decode-browser.test.ts.)
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import golden from '../__golden__/image-decode.json' with { type: 'json' };
import { imageDecoder } from './decode.js';
import { imageSize } from './header.js';
import { expectMXNetError } from './test-util.js';
import { fixedCrop } from './transforms.js';

const FIXTURES = new URL('../__fixtures__/images/', import.meta.url);
const fixture = (name: string) => new Uint8Array(readFileSync(new URL(name, FIXTURES)));

describe('imageSize', () => {
  it.each(golden.cases.map((c) => [c.file, c] as const))('%s: the golden size', (file, c) => {
    expect(imageSize(fixture(file))).toEqual([c.width, c.height]);
  });

  it('reads JPEGs with EXIF before the frame, progressive and gray ones, as sharp does', async () => {
    const px = new Uint8Array(37 * 23 * 3).map((_, i) => (i * 31) & 255);
    const base = sharp(px, { raw: { width: 37, height: 23, channels: 3 } });
    const variants = [
      await base
        .clone()
        .jpeg()
        .withMetadata({ exif: { IFD0: { Copyright: 'x'.repeat(3000) } } })
        .toBuffer(),
      await base.clone().jpeg({ progressive: true }).toBuffer(),
      await base.clone().grayscale().jpeg().toBuffer(),
      await base.clone().png({ palette: true }).toBuffer(),
    ];
    for (const v of variants) {
      const meta = await sharp(v).metadata();
      expect(imageSize(new Uint8Array(v))).toEqual([meta.width, meta.height]);
    }
  });

  it('gives undefined for what is not a readable header, and never throws (fuzzed)', () => {
    expect(imageSize(new Uint8Array(0))).toBeUndefined();
    expect(imageSize(new Uint8Array([0xff, 0xd8, 0xff, 0xda, 0, 2]))).toBeUndefined();
    const jpeg = fixture('rgb-16x12.jpg');
    const png = fixture('rgb-8x6.png');
    expect(imageSize(jpeg.subarray(0, 30))).toBeUndefined();
    expect(imageSize(png.subarray(0, 20))).toBeUndefined();
    fc.assert(
      fc.property(
        fc.constantFrom(jpeg, png),
        fc.nat({ max: 200 }),
        fc.uint8Array({ minLength: 1, maxLength: 8 }),
        (src, at, junk) => {
          const b = src.slice(0, Math.max(at + junk.length, 3));
          b.set(junk.subarray(0, Math.max(0, b.length - at)), Math.min(at, b.length));
          const s = imageSize(b);
          if (s !== undefined) expect(s.every((v) => Number.isInteger(v) && v > 0)).toBe(true);
        },
      ),
      { seed: 13, numRuns: 2000 },
    );
  });
});

describe('decoding a region', () => {
  it.each(golden.cases.map((c) => [c.file, c] as const))('%s: equals decode + fixedCrop', async (file, c) => {
    const decode = await imageDecoder('sharp');
    const bytes = fixture(file);
    const region = { x: 1, y: 1, width: Math.max(1, c.width - 3), height: Math.max(1, c.height - 2) };
    for (const flag of [1, 0] as const) {
      const whole = await decode(bytes, { flag });
      const part = await decode(bytes, { flag, region });
      expect(part).toEqual(fixedCrop(whole, region.x, region.y, region.width, region.height));
    }
  });

  it('refuses a region outside the image or not a rectangle', async () => {
    const decode = await imageDecoder('sharp');
    const bytes = fixture('rgb-16x12.jpg');
    await expectMXNetError(
      () => decode(bytes, { region: { x: 10, y: 0, width: 7, height: 12 } }),
      /region .* is not a non-empty rectangle inside the 16x12 image/,
    );
    await expectMXNetError(() => decode(bytes, { region: { x: 0, y: 0, width: 0, height: 1 } }), /non-empty/);
    await expectMXNetError(
      () => decode(bytes, { region: { x: 0.5, y: 0, width: 2, height: 1 } }),
      /non-empty/,
    );
  });
});
